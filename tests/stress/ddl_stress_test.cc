// DDL against concurrent writers, through SqlSession, for a bounded time (hidden tag [.stress];
// MINNOW_STRESS_SECONDS, default 3; clean under ThreadSanitizer). Writer threads insert and
// update rows of their own id ranges (autocommit statements and BEGIN ... COMMIT), while a DDL
// thread runs copy-ALTERs (ADD/DROP COLUMN) and CREATE/DROP INDEX over and over. Metadata locks
// keep each writer statement out of the table while DDL copies or switches it; without them a
// writer that waited on the copy's row locks resumes in the old keyspaces and its row or index
// entry is lost. Afterwards every committed row is there with its last committed value, and
// every index agrees with the table.

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::sql {
namespace {

double StressSeconds() {
  const char* s = std::getenv("MINNOW_STRESS_SECONDS");
  return s != nullptr ? std::atof(s) : 3.0;
}

// Errors a writer may see and retry: a lock wait timeout or a deadlock.
bool Retryable(const SqlError& e) { return e.code == 1205 || e.code == 1213; }

std::string Cell(const StatementResult& r, size_t row, size_t col) {
  const auto& v = r.rows.at(row).at(col);
  return v.has_value() ? *v : "NULL";
}

struct Shared {
  std::mutex latch;                      // guards committed, unexpected
  std::map<int64_t, int64_t> committed;  // id -> v, as of each writer's last commit
  std::vector<std::string> unexpected;   // errors that are neither 1205 nor 1213
  void Unexpected(const std::string& what, const SqlError& e) {
    std::lock_guard g(latch);
    unexpected.push_back(what + ": " + e.ToString());
  }
};

// One writer: ids w * 1'000'000 + n. Keeps its own model, published at each commit.
void Writer(SqlEngine* engine, int w, std::chrono::steady_clock::time_point deadline,
            Shared* shared) {
  auto session = engine->NewSession();
  std::mt19937 rng(static_cast<unsigned>(w) + 1);
  std::map<int64_t, int64_t> mine;
  int64_t next = static_cast<int64_t>(w) * 1'000'000;
  auto publish = [&](const std::map<int64_t, int64_t>& rows) {
    std::lock_guard g(shared->latch);
    for (const auto& [id, v] : rows) shared->committed[id] = v;
  };
  while (std::chrono::steady_clock::now() < deadline) {
    const bool txn = rng() % 3 == 0;
    // Each statement and the row (id, v) it leaves.
    std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> stmts;
    const int64_t id = next++;
    stmts.push_back({"INSERT INTO t (id, v) VALUES (" + std::to_string(id) + ", " +
                         std::to_string(id % 997) + ")",
                     {id, id % 997}});
    if (!mine.empty() && rng() % 2 == 0) {
      auto it = mine.begin();
      std::advance(it, static_cast<long>(rng() % mine.size()));
      stmts.push_back({"UPDATE t SET v = v + 1 WHERE id = " + std::to_string(it->first),
                       {it->first, it->second + 1}});
    }
    if (txn) {
      auto r = session->Execute("BEGIN");
      if (!r.ok()) shared->Unexpected("BEGIN", r.error());
    }
    std::map<int64_t, int64_t> done;  // rows written by the statements that succeeded
    bool ok = true;
    for (const auto& [sql, row] : stmts) {
      auto r = session->Execute(sql);
      if (!r.ok()) {
        if (!Retryable(r.error())) shared->Unexpected(sql, r.error());
        ok = false;
        break;
      }
      if (txn) {
        done[row.first] = row.second;
      } else {  // autocommit: committed now
        mine[row.first] = row.second;
        publish({{row.first, row.second}});
      }
    }
    if (txn) {
      auto r = session->Execute(ok ? "COMMIT" : "ROLLBACK");
      if (!r.ok()) {
        if (!Retryable(r.error())) shared->Unexpected("COMMIT", r.error());
      } else if (ok) {
        for (const auto& [k, v] : done) mine[k] = v;
        publish(done);
      }
    }
  }
}

TEST_CASE("ddl stress: copy-ALTER and CREATE/DROP INDEX lose no concurrent write",
          "[.stress][sql][mdl]") {
  Options o;
  o.path = ":memory:";
  o.buffer_pool_bytes = 32u << 20;
  o.lock_wait_timeout_ms = 20'000;
  auto db = Database::Open(o);
  REQUIRE(db.ok());
  auto engine = SqlEngine::Open(db->get());
  REQUIRE(engine.ok());
  auto admin = (*engine)->NewSession();
  REQUIRE(admin->Execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v BIGINT, KEY iv (v))").ok());

  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(StressSeconds()));
  Shared shared;
  std::vector<std::thread> threads;
  for (int w = 1; w <= 3; ++w) {
    threads.emplace_back(Writer, engine->get(), w, deadline, &shared);
  }
  std::atomic<uint64_t> ddl_done{0};
  threads.emplace_back([&] {
    auto session = (*engine)->NewSession();
    const char* kDdl[] = {
        "ALTER TABLE t ADD COLUMN x INT DEFAULT 1",
        "CREATE INDEX i2 ON t (v, id)",
        "ALTER TABLE t DROP COLUMN x",
        "DROP INDEX i2 ON t",
    };
    // The next statement only once the last one succeeded (DROP COLUMN x needs x).
    for (size_t n = 0; std::chrono::steady_clock::now() < deadline;) {
      const char* sql = kDdl[n % 4];
      auto r = session->Execute(sql);
      if (r.ok()) {
        ddl_done++;
        n++;
      } else if (!Retryable(r.error())) {
        shared.Unexpected(sql, r.error());
      }
    }
  });
  for (auto& t : threads) t.join();

  INFO("DDL statements: " << ddl_done.load());
  for (const std::string& e : shared.unexpected) UNSCOPED_INFO(e);
  CHECK(shared.unexpected.empty());
  CHECK(ddl_done.load() > 0);

  // Every committed row, with its value, through the clustered index...
  auto all = admin->Execute("SELECT id, v FROM t ORDER BY id");
  REQUIRE(all.ok());
  std::map<int64_t, int64_t> table;
  for (size_t i = 0; i < all->rows.size(); ++i) {
    table[std::stoll(Cell(*all, i, 0))] = std::stoll(Cell(*all, i, 1));
  }
  uint64_t lost = 0, wrong = 0;
  std::string first;
  for (const auto& [id, v] : shared.committed) {
    auto it = table.find(id);
    if (it == table.end() || it->second != v) {
      (it == table.end() ? lost : wrong)++;
      if (first.empty()) {
        first = "id " + std::to_string(id) + " committed with v = " + std::to_string(v) +
                (it == table.end() ? " is missing" : " has v = " + std::to_string(it->second));
      }
    }
  }
  INFO(first);
  CHECK(lost == 0);
  CHECK(wrong == 0);
  CHECK(table.size() == shared.committed.size());
  auto count = admin->Execute("SELECT count(*) FROM t");
  REQUIRE(count.ok());
  CHECK(Cell(*count, 0, 0) == std::to_string(shared.committed.size()));

  // ... and through each secondary index (the plan must use it, or this proves nothing).
  for (const char* index : {"iv", "i2"}) {
    const std::string where = std::string(index) == "iv" ? "v >= 0" : "v >= 0 AND id >= 0";
    auto plan = admin->Execute(std::string("EXPLAIN SELECT count(*) FROM t WHERE ") + where);
    REQUIRE(plan.ok());
    const std::string key = Cell(*plan, 0, 6);
    if (key != index) continue;  // i2 may be dropped at the end
    auto n = admin->Execute(std::string("SELECT count(*) FROM t WHERE ") + where);
    REQUIRE(n.ok());
    INFO("index " << index);
    CHECK(Cell(*n, 0, 0) == std::to_string(shared.committed.size()));
  }
  // The index's entries are exactly the rows' (v, id) pairs.
  auto by_v = admin->Execute("SELECT v, id FROM t WHERE v >= 0 ORDER BY v, id");
  REQUIRE(by_v.ok());
  std::vector<std::pair<int64_t, int64_t>> expected_pairs, index_pairs;
  for (const auto& [id, v] : shared.committed) expected_pairs.emplace_back(v, id);
  std::sort(expected_pairs.begin(), expected_pairs.end());
  for (size_t i = 0; i < by_v->rows.size(); ++i) {
    index_pairs.emplace_back(std::stoll(Cell(*by_v, i, 0)), std::stoll(Cell(*by_v, i, 1)));
  }
  CHECK(index_pairs.size() == expected_pairs.size());
  CHECK(std::equal(index_pairs.begin(), index_pairs.end(), expected_pairs.begin(),
                   expected_pairs.end()));
  admin.reset();
  engine->reset();
  REQUIRE((*db)->CheckIntegrity().ok());
}

}  // namespace
}  // namespace minnow::sql
