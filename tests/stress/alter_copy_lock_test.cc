// alter_copy_lock_rows: a copy-ALTER reads its source with share record locks (ON, as MySQL
// 8.0) or with none (OFF), and loses no committed write either way, because the statement's
// exclusive metadata lock keeps every writer out of the table for the whole copy.
//
// "[sql][ddl]": deterministic. A transaction of the engine's own API (it takes no metadata
// lock, so the ALTER does not wait for it up front) holds an X lock on the table's last row:
// with ON the copy's scan takes S locks on every row before it and then waits for that one
// (seen in performance_schema.data_locks and information_schema.innodb_trx from a third
// session); with OFF the copy never asks for it and the ALTER finishes while the lock is still
// held.
// The same wait holds a copy (and CREATE INDEX's build) mid-way: a third session sees its
// stage in the processlist's State and performance_schema.events_stages_current.
// "[.stress]": SQL writers insert and update while a DDL session copy-ALTERs over and over with
// ON, then with OFF; afterwards every committed row is in the table with its last value.

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

std::string Cell(const StatementResult& r, size_t row, size_t col) {
  const auto& v = r.rows.at(row).at(col);
  return v.has_value() ? *v : "NULL";
}

std::string One(SqlSession& s, const std::string& sql) {
  auto r = s.Execute(sql);
  INFO(sql);
  REQUIRE(r.ok());
  REQUIRE(!r->rows.empty());
  return Cell(*r, 0, 0);
}

struct Fixture {
  explicit Fixture(uint32_t lock_wait_timeout_ms = 20'000) {
    Options o;
    o.path = ":memory:";
    o.buffer_pool_bytes = 32u << 20;
    o.lock_wait_timeout_ms = lock_wait_timeout_ms;
    auto opened = Database::Open(o);
    REQUIRE(opened.ok());
    db = std::move(*opened);
    auto e = SqlEngine::Open(db.get());
    REQUIRE(e.ok());
    engine = std::move(*e);
  }
  ~Fixture() {
    engine.reset();
    if (db != nullptr) CHECK(db->CheckIntegrity().ok());
  }
  std::unique_ptr<Database> db;
  std::unique_ptr<SqlEngine> engine;
};

constexpr int kRows = 300;

// Makes t with kRows rows and returns an engine transaction holding an X lock on its last row.
std::unique_ptr<Transaction> LockLastRow(Fixture& f, SqlSession& admin,
                                         std::unique_ptr<Session>* kv) {
  REQUIRE(admin.Execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, KEY iv (v))").ok());
  std::string values;
  for (int i = 1; i <= kRows; ++i) {
    values += (i > 1 ? ", (" : "(") + std::to_string(i) + ", " + std::to_string(i % 7) + ")";
  }
  REQUIRE(admin.Execute("INSERT INTO t VALUES " + values).ok());
  auto session = f.db->NewSession();
  REQUIRE(session.ok());
  *kv = std::move(*session);
  auto ks = f.db->OpenKeyspace("t");
  REQUIRE(ks.ok());
  auto txn = (*kv)->Begin();
  REQUIRE(txn.ok());
  std::string last;
  {
    auto it = (*txn)->NewIterator(*ks);
    REQUIRE(it.ok());
    REQUIRE((*it)->SeekToLast().ok());
    REQUIRE((*it)->Valid());
    last = std::string((*it)->key());
  }
  ReadOptions ro;
  ro.lock_mode = LockMode::kExclusive;
  REQUIRE((*txn)->Get(*ks, last, ro).ok());
  return std::move(*txn);
}

const char* kSourceShareLocks =
    "SELECT count(*) FROM performance_schema.data_locks WHERE LOCK_TYPE = 'RECORD' AND "
    "LOCK_MODE LIKE 'S%' AND LOCK_STATUS = 'GRANTED'";

TEST_CASE("alter_copy_lock_rows=ON: the copy holds S locks on the rows it has read", "[sql][ddl]") {
  Fixture f;
  auto admin = f.engine->NewSession();
  std::unique_ptr<Session> kv;
  std::unique_ptr<Transaction> holder = LockLastRow(f, *admin, &kv);
  auto alter = f.engine->NewSession();
  REQUIRE(alter->Execute("SET SESSION alter_copy_lock_rows = ON").ok());
  std::atomic<bool> done{false};
  SqlResult<StatementResult> result = SqlErr(kErUnknownError, "not run");
  std::thread t([&] {
    result = alter->Execute("ALTER TABLE t MODIFY COLUMN v BIGINT");
    done = true;
  });
  // Waits until the copy waits for the held row.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (One(*admin,
             "SELECT count(*) FROM information_schema.innodb_trx WHERE trx_state = "
             "'LOCK WAIT'") != "1") {
    REQUIRE(!done.load());
    REQUIRE(std::chrono::steady_clock::now() < give_up);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Every row before the held one is S-locked (next-key, as the copy's REPEATABLE READ scan
  // locks), and the copy waits for an S lock on the last.
  CHECK(One(*admin, kSourceShareLocks) == std::to_string(kRows - 1));
  CHECK(One(*admin,
            "SELECT count(*) FROM performance_schema.data_locks WHERE LOCK_TYPE = "
            "'RECORD' AND LOCK_MODE LIKE 'S%' AND LOCK_STATUS = 'WAITING'") == "1");
  REQUIRE(holder->Commit().ok());
  t.join();
  REQUIRE(result.ok());
  CHECK(One(*admin, "SELECT count(*) FROM t") == std::to_string(kRows));
  CHECK(One(*admin, "SELECT count(*) FROM t WHERE v >= 0") == std::to_string(kRows));
  CHECK(One(*admin, "SELECT count(*) FROM performance_schema.data_locks") == "0");
}

TEST_CASE("alter_copy_lock_rows=OFF: the copy locks no source row", "[sql][ddl]") {
  // Dropping the old keyspaces after the switch waits for the holder's table lock: with a
  // short engine lock wait timeout it gives up (the keyspaces are left to the next Open) and
  // the ALTER returns while the holder still holds its lock.
  Fixture f(/*lock_wait_timeout_ms=*/300);
  auto admin = f.engine->NewSession();
  std::unique_ptr<Session> kv;
  std::unique_ptr<Transaction> holder = LockLastRow(f, *admin, &kv);
  auto alter = f.engine->NewSession();
  REQUIRE(alter->Execute("SET SESSION alter_copy_lock_rows = OFF").ok());
  std::atomic<bool> done{false};
  SqlResult<StatementResult> result = SqlErr(kErUnknownError, "not run");
  std::thread t([&] {
    result = alter->Execute("ALTER TABLE t MODIFY COLUMN v BIGINT");
    done = true;
  });
  // The copy reads past the X-locked row without asking for it (ON waits there: above); while
  // it runs no S record lock exists and it never waits.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  uint64_t samples = 0;
  while (!done.load()) {
    CHECK(One(*admin, kSourceShareLocks) == "0");
    CHECK(One(*admin,
              "SELECT count(*) FROM information_schema.innodb_trx WHERE trx_state = "
              "'LOCK WAIT' AND trx_query LIKE 'ALTER%'") == "0");
    ++samples;
    REQUIRE(std::chrono::steady_clock::now() < give_up);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  t.join();
  INFO("samples " << samples);
  INFO((result.ok() ? std::string() : result.error().ToString()));
  REQUIRE(result.ok());
  CHECK(result->affected_rows == static_cast<uint64_t>(kRows));
  // Done, and the holder's X lock is the only record lock there is.
  CHECK(One(*admin,
            "SELECT count(*) FROM performance_schema.data_locks WHERE LOCK_TYPE = "
            "'RECORD'") == "1");
  CHECK(One(*admin,
            "SELECT count(*) FROM performance_schema.data_locks WHERE LOCK_TYPE = "
            "'RECORD' AND LOCK_MODE LIKE 'X%'") == "1");
  REQUIRE(holder->Commit().ok());
  auto show = admin->Execute("SHOW CREATE TABLE t");
  REQUIRE(show.ok());
  CHECK(Cell(*show, 0, 1).find("`v` bigint") != std::string::npos);
  CHECK(One(*admin, "SELECT count(*) FROM t") == std::to_string(kRows));
  CHECK(One(*admin, "SELECT count(*) FROM t WHERE v >= 0") == std::to_string(kRows));
  CHECK(One(*admin, "SELECT sum(v) FROM t") == One(*admin, "SELECT sum(id % 7) FROM t"));
  CHECK(One(*admin, "SELECT count(*) FROM performance_schema.data_locks") == "0");
}

// A table of kProgressRows rows, ~70 to a leaf, and an engine transaction holding an X lock
// on the row with id `held_id` (the held_id-th in key order).
constexpr int kProgressRows = 2000;
std::unique_ptr<Transaction> LockRowOfWideTable(Fixture& f, SqlSession& admin, int held_id,
                                                std::unique_ptr<Session>* kv) {
  REQUIRE(admin
              .Execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, pad CHAR(200) NOT NULL "
                       "DEFAULT '', KEY iv (v))")
              .ok());
  for (int first = 1; first <= kProgressRows; first += 500) {
    std::string values;
    for (int i = first; i < first + 500; ++i) {
      values += (i > first ? ", (" : "(") + std::to_string(i) + ", " + std::to_string(i % 7) +
                ", repeat('p', 200))";
    }
    REQUIRE(admin.Execute("INSERT INTO t VALUES " + values).ok());
  }
  auto session = f.db->NewSession();
  REQUIRE(session.ok());
  *kv = std::move(*session);
  auto ks = f.db->OpenKeyspace("t");
  REQUIRE(ks.ok());
  auto txn = (*kv)->Begin();
  REQUIRE(txn.ok());
  std::string key;
  {
    auto it = (*txn)->NewIterator(*ks);
    REQUIRE(it.ok());
    REQUIRE((*it)->SeekToFirst().ok());
    for (int i = 1; i < held_id; ++i) REQUIRE((*it)->Next().ok());
    REQUIRE((*it)->Valid());
    key = std::string((*it)->key());
  }
  ReadOptions ro;
  ro.lock_mode = LockMode::kExclusive;
  REQUIRE((*txn)->Get(*ks, key, ro).ok());
  return std::move(*txn);
}

// Runs `ddl` on a session of its own with alter_copy_lock_rows=ON while row 1500 of 2000 is
// X-locked: its source scan waits there, mid-copy. Checks what a third session sees of its
// stage, then lets it finish.
void CheckStageMidCopy(const std::string& ddl, const std::string& state) {
  constexpr int kHeld = 1500;
  Fixture f;
  auto admin = f.engine->NewSession();
  std::unique_ptr<Session> kv;
  std::unique_ptr<Transaction> holder = LockRowOfWideTable(f, *admin, kHeld, &kv);
  auto alter = f.engine->NewSession();
  REQUIRE(alter->Execute("SET SESSION alter_copy_lock_rows = ON").ok());
  CHECK(One(*admin, "SELECT count(*) FROM performance_schema.events_stages_current") == "0");
  std::atomic<bool> done{false};
  SqlResult<StatementResult> result = SqlErr(kErUnknownError, "not run");
  std::thread t([&] {
    result = alter->Execute(ddl);
    done = true;
  });
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (One(*admin,
             "SELECT count(*) FROM information_schema.innodb_trx WHERE trx_state = "
             "'LOCK WAIT'") != "1") {
    REQUIRE(!done.load());
    REQUIRE(std::chrono::steady_clock::now() < give_up);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const std::string id = std::to_string(alter->id());
  // A row lock wait does not change the State: the statement is still in its stage.
  CHECK(One(*admin, "SELECT STATE FROM information_schema.processlist WHERE ID = " + id) == state);
  auto shown = admin->Execute("SHOW PROCESSLIST");
  REQUIRE(shown.ok());
  int seen = 0;
  for (size_t r = 0; r < shown->rows.size(); ++r) {
    if (Cell(*shown, r, 0) == id) {
      CHECK(Cell(*shown, r, 6) == state);
      ++seen;
    }
  }
  CHECK(seen == 1);
  auto stage = admin->Execute(
      "SELECT THREAD_ID, EVENT_NAME, WORK_COMPLETED, WORK_ESTIMATED, NESTING_EVENT_TYPE FROM "
      "performance_schema.events_stages_current");
  REQUIRE(stage.ok());
  REQUIRE(stage->rows.size() == 1);
  CHECK(Cell(*stage, 0, 0) == id);
  CHECK(Cell(*stage, 0, 1) == "stage/sql/" + state);
  CHECK(Cell(*stage, 0, 4) == "STATEMENT");
  // Estimated: the source's row count as the copy began. Completed: the rows read before the
  // leaf holding the held row (the scan locks a leaf's records before it reads them),
  // published in batches of 256.
  CHECK(Cell(*stage, 0, 3) == std::to_string(kProgressRows));
  const int completed = std::stoi(Cell(*stage, 0, 2));
  CHECK(completed % 256 == 0);
  CHECK(completed >= 1024);
  CHECK(completed < kHeld);
  REQUIRE(holder->Commit().ok());
  t.join();
  INFO((result.ok() ? std::string() : result.error().ToString()));
  REQUIRE(result.ok());
  // The stage ends with the statement.
  CHECK(One(*admin, "SELECT count(*) FROM performance_schema.events_stages_current") == "0");
  CHECK(One(*admin, "SELECT STATE FROM information_schema.processlist WHERE ID = " + id) == "");
  CHECK(One(*admin, "SELECT count(*) FROM t") == std::to_string(kProgressRows));
}

TEST_CASE("a copy-ALTER shows 'copy to tmp table' and its rows done of rows estimated",
          "[sql][ddl]") {
  CheckStageMidCopy("ALTER TABLE t MODIFY COLUMN v BIGINT", "copy to tmp table");
}

TEST_CASE("OPTIMIZE TABLE copies: 'copy to tmp table'", "[sql][ddl]") {
  CheckStageMidCopy("OPTIMIZE TABLE t", "copy to tmp table");
}

TEST_CASE("CREATE INDEX's build shows 'altering table' and its progress", "[sql][ddl]") {
  CheckStageMidCopy("CREATE INDEX ip ON t (pad)", "altering table");
}

double StressSeconds() {
  const char* s = std::getenv("MINNOW_STRESS_SECONDS");
  return s != nullptr ? std::atof(s) : 2.0;
}

bool Retryable(const SqlError& e) { return e.code == 1205 || e.code == 1213; }

TEST_CASE("copy-ALTER with alter_copy_lock_rows ON and OFF loses no concurrent write",
          "[.stress][sql][ddl]") {
  const std::string mode = GENERATE(std::string("ON"), std::string("OFF"));
  INFO("alter_copy_lock_rows = " << mode);
  Fixture f;
  auto admin = f.engine->NewSession();
  REQUIRE(admin->Execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v BIGINT, KEY iv (v))").ok());
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(StressSeconds() / 2));
  std::mutex latch;                      // guards committed, unexpected
  std::map<int64_t, int64_t> committed;  // id -> v at its last commit
  std::vector<std::string> unexpected;
  auto writer = [&](int w) {
    auto s = f.engine->NewSession();
    std::mt19937 rng(static_cast<unsigned>(w));
    int64_t next = int64_t{w} * 1'000'000;
    std::map<int64_t, int64_t> mine;
    while (std::chrono::steady_clock::now() < deadline) {
      const bool txn = rng() % 2 == 0;
      struct Write {
        std::string sql;
        int64_t id, v;  // the row it leaves
      };
      std::vector<Write> writes;
      const int64_t id = next++;
      writes.push_back({"INSERT INTO t VALUES (" + std::to_string(id) + ", 0)", id, 0});
      if (!mine.empty()) {
        auto it = mine.begin();
        std::advance(it, static_cast<long>(rng() % mine.size()));
        writes.push_back({"UPDATE t SET v = v + 1 WHERE id = " + std::to_string(it->first),
                          it->first, it->second + 1});
      }
      std::map<int64_t, int64_t> rows;  // what a transaction's commit publishes
      bool ok = !txn || s->Execute("BEGIN").ok();
      for (const Write& wr : writes) {
        if (!ok) break;
        auto r = s->Execute(wr.sql);
        if (!r.ok()) {
          ok = false;
          if (!Retryable(r.error())) {
            std::lock_guard g(latch);
            unexpected.push_back(wr.sql + ": " + r.error().ToString());
          }
        } else if (txn) {
          rows[wr.id] = wr.v;
        } else {  // autocommit: committed now
          mine[wr.id] = wr.v;
          std::lock_guard g(latch);
          committed[wr.id] = wr.v;
        }
      }
      if (txn) {
        auto r = s->Execute(ok ? "COMMIT" : "ROLLBACK");
        if (ok && r.ok()) {
          for (const auto& [k, v] : rows) mine[k] = v;
          std::lock_guard g(latch);
          for (const auto& [k, v] : rows) committed[k] = v;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int w = 1; w <= 2; ++w) threads.emplace_back(writer, w);
  std::atomic<int> alters{0};
  threads.emplace_back([&] {
    auto s = f.engine->NewSession();
    if (!s->Execute("SET SESSION alter_copy_lock_rows = " + mode).ok()) {
      std::lock_guard g(latch);
      unexpected.push_back("SET alter_copy_lock_rows failed");
    }
    const char* kDdl[] = {"ALTER TABLE t MODIFY COLUMN v INT",
                          "ALTER TABLE t MODIFY COLUMN v BIGINT"};
    for (int n = 0; std::chrono::steady_clock::now() < deadline;) {
      auto r = s->Execute(kDdl[n % 2]);
      if (r.ok()) {
        alters++;
        n++;
      } else if (!Retryable(r.error())) {
        std::lock_guard g(latch);
        unexpected.push_back(std::string(kDdl[n % 2]) + ": " + r.error().ToString());
      }
    }
  });
  for (auto& t : threads) t.join();
  for (const std::string& e : unexpected) UNSCOPED_INFO(e);
  CHECK(unexpected.empty());
  CHECK(alters.load() > 0);
  auto all = admin->Execute("SELECT id, v FROM t ORDER BY id");
  REQUIRE(all.ok());
  std::map<int64_t, int64_t> table;
  for (size_t i = 0; i < all->rows.size(); ++i) {
    table[std::stoll(Cell(*all, i, 0))] = std::stoll(Cell(*all, i, 1));
  }
  CHECK(table == committed);
  CHECK(One(*admin, "SELECT count(*) FROM t WHERE v >= 0") == std::to_string(committed.size()));
}

}  // namespace
}  // namespace minnow::sql
