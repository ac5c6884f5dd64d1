// e3_concurrent_insert: experiment E3, W2's concurrent insert on the table-locking engine
// (ENGINE=MyISAM), through the SQL front.
//
//   e3_concurrent_insert [--rows N] [--hole-percent H] [--writers W] [--oltp-sessions O]
//                        [--hold S] [--seconds T] [--oltp-seconds U] [--lock-wait-timeout L]
//                        [--pool-mib M] [--out DIR] [--compare-mariadb]
//
// Every cell sets SET GLOBAL concurrent_insert = 0 (NEVER), 1 (AUTO) or 2 (ALWAYS) first (MyISAM
// takes it when it opens a table), then starts from a fresh table, as MariaDB's run in the
// design brief did,
//   CREATE TABLE t (id int NOT NULL AUTO_INCREMENT, v varchar(64), n int, PRIMARY KEY (id))
//     ENGINE=MyISAM
// of N rows (default 20,000; W2's scale, `tools/demo --full`: 100,000), and "with holes" after
// DELETE FROM t WHERE mod(id, 100) < H (default 40: MariaDB's 40,000 holes in 100,000 rows).
// Then, each session a SqlSession on a thread of its own, with lock_wait_timeout L (default 60 s):
//   (a) short OLTP statements only, for U seconds (default 1; full 10): O sessions (default
//       4) each loop sysbench-like transactions of 10 point SELECTs (SELECT v FROM t WHERE
//       id = x), a range SELECT (SELECT sum(n) FROM t WHERE id BETWEEN a AND a+99) and an
//       INSERT (INSERT INTO t (v, n) VALUES (md5(rand()), k)). W2: concurrent insert slightly
//       slower, 473.84 vs 532.79 tps.
//   (b) for T seconds (default 2.5; full 20): one session loops a long SELECT that holds its read
//       lock about S seconds (default 0.3; full 0.8, MariaDB's hold, W2's "about a second"):
//       SELECT count(*), sum(length(md5(md5(...(v))))) FROM t, a scan whose md5 count is
//       calibrated on the first cell of each table shape (no holes, holes) to take S seconds
//       with no other session, then run as it is at every setting; W writer sessions
//       (default 4) each loop a point SELECT and an INSERT with no think time. W2: 113.2 vs 66.6
//       inserts/s, Table_locks_waited 20 vs 390.
// Before and after each cell's run: SHOW GLOBAL STATUS LIKE 'Table_locks%' (the deltas) and
// SHOW TABLE STATUS LIKE 't' (Data_free: the holes left).
//
// First the program checks that ENGINE=MyISAM is the table-locking engine through SQL
// (CheckTableLockingEngine); where it is not, it says so and reports nothing (exit 3): figures
// of the row-locking engine must not pass for MyISAM's.
//
// --compare-mariadb runs every cell again, the same statements from the same number of client
// threads, on a private MariaDB server (mariadb_peer.h; its tables ENGINE=MyISAM, MariaDB's
// own) after minnow's, prints its tables, and judges minnow's inserts/s against MariaDB's of
// this run; without it, against the design brief's MariaDB figures only at their set-up.
//
// Output: each engine's tables beside W2's and the design brief's MariaDB 10.11 figures, and the
// targets, on stdout; DIR/e3_concurrent_insert.csv (one row per engine and cell) and
// DIR/e3_concurrent_insert.png (inserts/s per setting).
#include "tools/experiments/e3_concurrent_insert.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tools/experiments/experiment_common.h"
#include "tools/experiments/mariadb_peer.h"
#include "tools/experiments/sql_connection.h"
#include "tools/experiments/w1_table.h"

namespace minnow::experiments::e3 {
namespace {

constexpr const char* kScratch = "e3_engine_check";
constexpr auto kWatchLimit = std::chrono::seconds(3);

// A statement run in its own session on a thread of its own, watched from the caller's.
class Watched {
 public:
  Watched(sql::SqlSession* s, std::string sql)
      : thread_([this, s, sql = std::move(sql)] {
          sql::SqlResult<sql::StatementResult> r = s->Execute(sql);
          if (!r.ok()) error_ = r.error().ToString();
          done_.store(true);
        }),
        session_(s) {}
  ~Watched() { Join(); }

  // Waits until the statement has ended or waits for a lock, at most kWatchLimit. True if it
  // ended; false if it is waiting (or still running, which behind a held lock means waiting).
  bool EndsWithoutWaiting() {
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < kWatchLimit) {
      if (done_.load()) return true;
      if (session_->waiting_for_lock()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return done_.load();
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }
  const std::string& error() const { return error_; }  // after Join

 private:
  std::atomic<bool> done_{false};
  std::string error_;
  std::thread thread_;
  sql::SqlSession* session_;
};

// The checks of CheckTableLockingEngine after the scratch table exists; "" if all pass.
std::string CheckConcurrentInsert(sql::SqlEngine* engine, sql::SqlSession* admin) {
  std::unique_ptr<sql::SqlSession> reader = engine->NewSession();
  std::unique_ptr<sql::SqlSession> writer = engine->NewSession();
  MustRun(writer.get(), "SET SESSION lock_wait_timeout = 10", kProgram);
  const std::string insert = fmt::format("INSERT INTO {} (v) VALUES (1)", kScratch);
  const std::string lock = fmt::format("LOCK TABLES {} READ LOCAL", kScratch);

  MustRun(admin, "SET GLOBAL concurrent_insert = ALWAYS", kProgram);
  MustRun(reader.get(), lock, kProgram);
  {
    Watched w(writer.get(), insert);
    const bool went_ahead = w.EndsWithoutWaiting();
    if (!went_ahead) MustRun(reader.get(), "UNLOCK TABLES", kProgram);
    w.Join();
    if (!went_ahead) {
      return "at concurrent_insert=ALWAYS an INSERT waited for another session's LOCK TABLES "
             "... READ LOCAL (no concurrent insert)";
    }
    if (!w.error().empty()) return "the concurrent INSERT failed: " + w.error();
  }
  const uint64_t seen = CellNumber(
      MustRun(reader.get(), fmt::format("SELECT count(*) FROM {}", kScratch), kProgram), 0, 0);
  MustRun(reader.get(), "UNLOCK TABLES", kProgram);
  if (seen != 1) {
    return fmt::format("a READ LOCAL reader saw {} rows where its lock found 1", seen);
  }

  MustRun(admin, "SET GLOBAL concurrent_insert = NEVER", kProgram);
  const sql::StatementResult before =
      MustRun(admin, "SHOW GLOBAL STATUS LIKE 'Table_locks_waited'", kProgram);
  MustRun(reader.get(), lock, kProgram);
  bool went_ahead = false;
  {
    Watched w(writer.get(), insert);
    went_ahead = w.EndsWithoutWaiting();
    MustRun(reader.get(), "UNLOCK TABLES", kProgram);
    w.Join();
    if (!w.error().empty()) return "the INSERT behind the read lock failed: " + w.error();
  }
  if (went_ahead) {
    return "at concurrent_insert=NEVER an INSERT went ahead beside another session's read "
           "lock (no table lock)";
  }
  const sql::StatementResult after =
      MustRun(admin, "SHOW GLOBAL STATUS LIKE 'Table_locks_waited'", kProgram);
  if (CellNumber(after, 0, 1) <= CellNumber(before, 0, 1)) {
    return "an INSERT waited for a table lock and Table_locks_waited did not count it";
  }
  return {};
}

}  // namespace

std::string CheckTableLockingEngine(sql::SqlEngine* engine, sql::SqlSession* admin) {
  MustRun(admin, fmt::format("DROP TABLE IF EXISTS {}", kScratch), kProgram);
  const sql::StatementResult created = MustRun(
      admin,
      fmt::format("CREATE TABLE {} (id int NOT NULL AUTO_INCREMENT, v int, PRIMARY KEY (id)) "
                  "ENGINE=MyISAM",
                  kScratch),
      kProgram);
  std::string why;
  for (const sql::SqlWarning& w : created.warnings) {
    if (w.code == sql::kErWarnUsingOtherHandler) {
      why = fmt::format("CREATE TABLE ... ENGINE=MyISAM gave warning {} ({})", w.code, w.message);
    }
  }
  if (why.empty()) {
    MustRun(admin, fmt::format("INSERT INTO {} (v) VALUES (0)", kScratch), kProgram);
    why = CheckConcurrentInsert(engine, admin);
  }
  MustRun(admin, fmt::format("DROP TABLE {}", kScratch), kProgram);
  MustRun(admin, "SET GLOBAL concurrent_insert = AUTO", kProgram);
  return why;
}

namespace {

int Main(const Config& c) {
  MemoryEngine m;
  if (!OpenMemoryEngine(c.pool_mib, kProgram, &m)) return 1;
  sql::SqlEngine* engine = m.engine.get();
  {
    std::unique_ptr<sql::SqlSession> checker = engine->NewSession();
    const std::string unavailable = CheckTableLockingEngine(engine, checker.get());
    if (!unavailable.empty()) {
      std::fprintf(stderr,
                   "%s: the table-locking engine is not available through SQL: %s.\n"
                   "E3 reports nothing rather than the row-locking engine's figures as "
                   "MyISAM's.\n",
                   kProgram, unavailable.c_str());
      return 3;
    }
  }
  Progress(fmt::format("ENGINE=MyISAM is the table-locking engine; {} cells of {} rows",
                       2 * 2 * std::size(kSettings), Commas(c.rows)));
  const Connect minnow = [engine]() -> std::unique_ptr<SqlConnection> {
    return std::make_unique<MinnowConnection>(engine->NewSession(), kProgram);
  };
  std::vector<EngineCells> runs;
  {
    std::unique_ptr<SqlConnection> admin = minnow();
    runs.push_back({admin->name(), RunCells(minnow, admin.get(), c)});
  }
  if (c.compare_mariadb) {
    std::unique_ptr<MariaDbPeer> peer = MariaDbPeer::Start(kProgram, c.pool_mib);
    if (peer == nullptr) return 1;
    const Connect maria = [&peer]() -> std::unique_ptr<SqlConnection> { return peer->Connect(); };
    std::unique_ptr<SqlConnection> admin = maria();
    const std::string who = admin->name();
    runs.push_back({who, RunCells(maria, admin.get(), c)});
  }
  return Report(c, runs) ? 0 : 1;
}

}  // namespace
}  // namespace minnow::experiments::e3

int main(int argc, char** argv) {
  minnow::experiments::e3::Config c;
  using minnow::experiments::Flag;
  const std::vector<Flag> flags = {
      {.name = "rows", .u64 = &c.rows, .min = 1000, .max = 1u << 28, .help = "rows of t"},
      {.name = "hole-percent",
       .u64 = &c.hole_percent,
       .min = 1,
       .max = 99,
       .help = "rows deleted for the cells with holes (mod(id, 100) < H)"},
      {.name = "writers",
       .u64 = &c.writers,
       .min = 1,
       .max = 256,
       .help = "(b): point SELECT + INSERT sessions"},
      {.name = "oltp-sessions",
       .u64 = &c.oltp_sessions,
       .min = 1,
       .max = 256,
       .help = "(a): OLTP sessions"},
      {.name = "hold",
       .real = &c.hold,
       .min = 0.001,
       .max = 60,
       .help = "(b): seconds the long SELECT takes alone"},
      {.name = "seconds", .real = &c.seconds, .min = 0.05, .max = 3600, .help = "per (b) cell"},
      {.name = "oltp-seconds",
       .real = &c.oltp_seconds,
       .min = 0.05,
       .max = 3600,
       .help = "per (a) cell"},
      {.name = "lock-wait-timeout",
       .u64 = &c.lock_wait_timeout,
       .min = 1,
       .max = 31536000,
       .help = "lock_wait_timeout, seconds"},
      minnow::experiments::PoolMibFlag(&c.pool_mib),
      minnow::experiments::OutFlag(&c.out),
      minnow::experiments::CompareMariaDbFlag(&c.compare_mariadb),
  };
  if (!minnow::experiments::ParseFlags(argc, argv, minnow::experiments::e3::kProgram, flags)) {
    return 2;
  }
  return minnow::experiments::e3::Main(c);
}
