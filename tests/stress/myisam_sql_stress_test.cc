// MyISAM tables through SQL under concurrent readers, appenders and deleters, for a bounded
// time (hidden tag [.stress]; MINNOW_STRESS_SECONDS, default 3; clean under ThreadSanitizer).
// Four appenders insert rows of their own id ranges, one after another (autocommit INSERTs,
// so they append beside readers and beside each other as concurrent_insert allows); a deleter
// deletes rows of the preloaded range, leaving holes; a setter switches concurrent_insert
// between NEVER, AUTO and ALWAYS; readers scan the table (whole, by the UNIQUE secondary
// index, under LOCK TABLES ... READ LOCAL twice) and check that every row they see is whole
// (its columns are functions of its id, so a half-written row shows), that they see a
// consistent prefix of each appender's rows (no gap: a later row never before an earlier one)
// that holds every row acknowledged before the statement began, and that a READ LOCAL lock's
// two reads agree (rows appended meanwhile stay unseen). Beside them the appenders race for
// the same values of a UNIQUE column of a second table: each value is taken exactly once.
// Afterwards the table holds exactly the acknowledged inserts minus the acknowledged
// deletes, its index agrees, and the database's integrity check (heap against indexes) passes.

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <random>
#include <set>
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

// The row of id `id`: a = 7 id, pad = a string of the id's digits, its length varying.
int64_t AOf(int64_t id) { return id * 7; }
std::string PadOf(int64_t id) {
  std::string d = std::to_string(id);
  std::string pad;
  while (pad.size() < 8 + static_cast<size_t>(id % 40)) pad += d;
  return pad.substr(0, 8 + static_cast<size_t>(id % 40));
}

constexpr int kAppenders = 4;
constexpr int64_t kPreloaded = 3000;   // ids 1..kPreloaded, the deleter's
constexpr int64_t kRange = 1'000'000;  // appender w's ids: (w + 1) * kRange + 0, 1, 2, ...

struct Shared {
  std::mutex latch;                     // guards every member below but `acked`
  std::set<int64_t> present;            // acknowledged inserts minus acknowledged deletes
  std::vector<std::string> unexpected;  // errors and broken rows
  std::vector<int> taken;               // per contested value of u.k: inserts that succeeded
  // Per appender: how many of its rows were acknowledged (its ids are consecutive).
  std::atomic<int64_t> acked[kAppenders] = {};
  // The value of u.k the appenders race for now; its winner moves it on.
  std::atomic<int64_t> contested{0};
  void Unexpected(const std::string& what) {
    std::lock_guard g(latch);
    unexpected.push_back(what);
  }
};

std::string Cell(const StatementResult& r, size_t row, size_t col) {
  const auto& v = r.rows.at(row).at(col);
  return v.has_value() ? *v : "NULL";
}

// Checks every row of a SELECT id, a, pad result: each whole, and of each appender the rows
// 0 .. n-1 for some n at least acked_before[w] (a prefix, nothing acknowledged missing).
void CheckRows(const StatementResult& r, const int64_t (&acked_before)[kAppenders],
               Shared* shared) {
  std::set<int64_t> of[kAppenders];
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const int64_t id = std::stoll(Cell(r, i, 0));
    if (Cell(r, i, 1) != std::to_string(AOf(id)) || Cell(r, i, 2) != PadOf(id)) {
      shared->Unexpected("half-written row " + std::to_string(id));
    }
    const int64_t w = id / kRange - 1;
    if (w >= 0 && w < kAppenders) of[w].insert(id % kRange);
  }
  for (int w = 0; w < kAppenders; ++w) {
    const auto n = static_cast<int64_t>(of[w].size());
    if (n > 0 && *of[w].rbegin() != n - 1) {
      shared->Unexpected("appender " + std::to_string(w) + ": " + std::to_string(n) +
                         " rows seen, up to row " + std::to_string(*of[w].rbegin()) +
                         ": not a prefix");
    }
    if (n < acked_before[w]) {
      shared->Unexpected("appender " + std::to_string(w) + ": " + std::to_string(n) +
                         " rows seen, " + std::to_string(acked_before[w]) +
                         " acknowledged before the read");
    }
  }
}

void Appender(SqlEngine* engine, int w, std::chrono::steady_clock::time_point deadline,
              Shared* shared) {
  auto session = engine->NewSession();
  const int64_t first = static_cast<int64_t>(w + 1) * kRange;
  for (int64_t n = 0; std::chrono::steady_clock::now() < deadline; ++n) {
    const int64_t id = first + n;
    auto r = session->Execute("INSERT INTO t VALUES (" + std::to_string(id) + ", " +
                              std::to_string(AOf(id)) + ", '" + PadOf(id) + "')");
    if (!r.ok()) {
      shared->Unexpected("insert: " + r.error().ToString());
      return;  // its rows would no longer be consecutive
    }
    {
      std::lock_guard g(shared->latch);
      shared->present.insert(id);
    }
    shared->acked[w].store(n + 1);
    if (n % 2 != 0) continue;
    // Every appender tries the contested value at once; one insert of it may succeed.
    int64_t k = shared->contested.load();
    auto u = session->Execute("INSERT INTO u (k, w) VALUES (" + std::to_string(k) + ", " +
                              std::to_string(w) + ")");
    if (!u.ok() && u.error().code != kErDupEntry) {
      shared->Unexpected("insert into u: " + u.error().ToString());
    }
    if (!u.ok()) continue;
    {
      std::lock_guard g(shared->latch);
      if (shared->taken.size() <= static_cast<size_t>(k)) shared->taken.resize(k + 1, 0);
      shared->taken[k]++;
    }
    shared->contested.compare_exchange_strong(k, k + 1);
  }
}

void Deleter(SqlEngine* engine, std::chrono::steady_clock::time_point deadline, Shared* shared) {
  auto session = engine->NewSession();
  std::mt19937 rng(7);
  while (std::chrono::steady_clock::now() < deadline) {
    int64_t victim = -1;
    {
      std::lock_guard g(shared->latch);
      // Only preloaded rows: the appenders' rows stay, so readers can check their prefixes.
      auto end = shared->present.lower_bound(kPreloaded + 1);
      const auto n = std::distance(shared->present.begin(), end);
      if (n > 0) {
        auto it = shared->present.begin();
        std::advance(it, static_cast<long>(rng() % static_cast<uint64_t>(n)));
        victim = *it;
      }
    }
    if (victim < 0) {
      std::this_thread::yield();
      continue;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // holes, not an empty range
    auto r = session->Execute("DELETE FROM t WHERE id = " + std::to_string(victim));
    if (!r.ok()) {
      shared->Unexpected("delete: " + r.error().ToString());
      continue;
    }
    std::lock_guard g(shared->latch);
    if (r->affected_rows == 1) shared->present.erase(victim);
  }
}

void Reader(SqlEngine* engine, int n, std::chrono::steady_clock::time_point deadline,
            Shared* shared) {
  auto session = engine->NewSession();
  for (int round = 0; std::chrono::steady_clock::now() < deadline; ++round) {
    int64_t acked[kAppenders];
    for (int w = 0; w < kAppenders; ++w) acked[w] = shared->acked[w].load();
    switch ((round + n) % 3) {
      case 0: {
        auto r = session->Execute("SELECT id, a, pad FROM t");
        if (!r.ok()) shared->Unexpected("scan: " + r.error().ToString());
        if (r.ok()) CheckRows(*r, acked, shared);
        break;
      }
      case 1: {
        auto r = session->Execute("SELECT id, a, pad FROM t WHERE a >= 7000000 ORDER BY a");
        if (!r.ok()) shared->Unexpected("index scan: " + r.error().ToString());
        if (r.ok()) CheckRows(*r, acked, shared);
        break;
      }
      default: {
        if (!session->Execute("LOCK TABLES t READ LOCAL").ok()) {
          shared->Unexpected("LOCK TABLES failed");
          break;
        }
        auto first = session->Execute("SELECT count(*) FROM t");
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        auto second = session->Execute("SELECT id, a, pad FROM t");
        if (first.ok() && second.ok()) {
          CheckRows(*second, acked, shared);
          if (Cell(*first, 0, 0) != std::to_string(second->rows.size())) {
            shared->Unexpected("READ LOCAL saw rows appended after its lock");
          }
        } else {
          shared->Unexpected("read under LOCK TABLES failed");
        }
        (void)session->Execute("UNLOCK TABLES");
      }
    }
  }
}

void Setter(SqlEngine* engine, std::chrono::steady_clock::time_point deadline, Shared* shared) {
  auto session = engine->NewSession();
  for (int i = 0; std::chrono::steady_clock::now() < deadline; ++i) {
    const char* mode[] = {"NEVER", "AUTO", "ALWAYS"};
    if (!session->Execute(std::string("SET GLOBAL concurrent_insert = ") + mode[i % 3]).ok())
      shared->Unexpected("SET GLOBAL concurrent_insert failed");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

TEST_CASE("myisam stress: readers, appenders and deleters lose no row and see none half-written",
          "[.stress][sql][myisam]") {
  Options o;
  o.path = ":memory:";
  o.buffer_pool_bytes = 32u << 20;
  o.lock_wait_timeout_ms = 20'000;
  auto db = Database::Open(o);
  REQUIRE(db.ok());
  auto engine = SqlEngine::Open(db->get());
  REQUIRE(engine.ok());
  auto admin = (*engine)->NewSession();
  REQUIRE(admin
              ->Execute("CREATE TABLE t (id BIGINT PRIMARY KEY, a BIGINT, pad VARCHAR(64), "
                        "UNIQUE KEY ia (a)) ENGINE=MyISAM")
              .ok());
  REQUIRE(admin
              ->Execute("CREATE TABLE u (id INT AUTO_INCREMENT PRIMARY KEY, k INT, w INT, "
                        "UNIQUE KEY uk (k)) ENGINE=MyISAM")
              .ok());
  Shared shared;
  for (int64_t id = 1; id <= kPreloaded; id += 500) {
    std::string sql = "INSERT INTO t VALUES ";
    for (int64_t i = id; i < id + 500; ++i) {
      sql += (i == id ? "(" : ", (") + std::to_string(i) + ", " + std::to_string(AOf(i)) + ", '" +
             PadOf(i) + "')";
      shared.present.insert(i);
    }
    REQUIRE(admin->Execute(sql).ok());
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(StressSeconds()));
  std::vector<std::thread> threads;
  for (int w = 0; w < kAppenders; ++w) {
    threads.emplace_back(Appender, engine->get(), w, deadline, &shared);
  }
  threads.emplace_back(Deleter, engine->get(), deadline, &shared);
  for (int n = 0; n < 2; ++n) threads.emplace_back(Reader, engine->get(), n, deadline, &shared);
  threads.emplace_back(Setter, engine->get(), deadline, &shared);
  for (std::thread& t : threads) t.join();

  for (const std::string& u : shared.unexpected) UNSCOPED_INFO(u);
  CHECK(shared.unexpected.empty());
  auto all = admin->Execute("SELECT id, a, pad FROM t ORDER BY id");
  REQUIRE(all.ok());
  std::set<int64_t> seen;
  for (size_t i = 0; i < all->rows.size(); ++i) seen.insert(std::stoll(Cell(*all, i, 0)));
  CHECK(seen == shared.present);
  CHECK(shared.present.size() > kPreloaded / 2);
  for (int w = 0; w < kAppenders; ++w) CHECK(shared.acked[w].load() > 0);
  // Each contested value was taken by exactly one appender, and u holds exactly those rows.
  CHECK(shared.contested.load() > 0);
  CHECK(shared.taken.size() == static_cast<size_t>(shared.contested.load()));
  int64_t taken = 0;
  for (size_t k = 0; k < shared.taken.size(); ++k) {
    INFO("u.k = " << k);
    CHECK(shared.taken[k] == 1);
    taken += shared.taken[k];
  }
  auto u = admin->Execute("SELECT count(*), count(DISTINCT k) FROM u");
  REQUIRE(u.ok());
  CHECK(Cell(*u, 0, 0) == std::to_string(taken));
  CHECK(Cell(*u, 0, 1) == std::to_string(taken));
  auto by_index = admin->Execute("SELECT count(*) FROM t WHERE a >= 0");
  REQUIRE(by_index.ok());
  CHECK(Cell(*by_index, 0, 0) == std::to_string(shared.present.size()));
  admin.reset();
  CHECK((*db)->CheckIntegrity().ok());
}

}  // namespace
}  // namespace minnow::sql
