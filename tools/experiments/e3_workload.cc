// E3's cells: the table each one starts from, the long SELECT's calibration and the sessions'
// loops, each session a connection (minnow's SQL session or the MariaDB peer's) on a thread of
// its own.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tools/experiments/e3_concurrent_insert.h"
#include "tools/experiments/experiment_common.h"
#include "tools/experiments/sql_connection.h"

namespace minnow::experiments::e3 {
namespace {

constexpr uint64_t kPointSelectsPerTransaction = 10;  // as sysbench's oltp_read_write
constexpr uint64_t kRangeRows = 100;                  // sysbench's range_size
constexpr uint64_t kRowsPerInsert = 500;              // the load's multi-row INSERTs
constexpr uint64_t kMaxMd5Depth = 2000;
constexpr uint64_t kMd5Chain = 40;

// The number in column `name` of row 0 of `r`; 0 where there is none.
uint64_t Column(const sql::StatementResult& r, std::string_view name) {
  for (size_t i = 0; i < r.columns.size(); ++i) {
    if (r.columns[i] == name) return CellNumber(r, 0, i);
  }
  return 0;
}

struct TableStatus {
  uint64_t rows = 0, data_free = 0;
};

TableStatus StatusOfT(SqlConnection* s) {
  const sql::StatementResult r = s->Run("SHOW TABLE STATUS LIKE 't'");
  return {Column(r, "Rows"), Column(r, "Data_free")};
}

// Creates t afresh with c.rows rows; with holes, deletes c.hole_percent of them, spread evenly
// over the file. Returns the rows deleted.
uint64_t LoadTable(SqlConnection* s, const Config& c, bool holes) {
  s->Run("DROP TABLE IF EXISTS t");
  const sql::StatementResult created = s->Run(
      "CREATE TABLE t (id int NOT NULL AUTO_INCREMENT, v varchar(64), n int, PRIMARY KEY (id)) "
      "ENGINE=MyISAM");
  for (const sql::SqlWarning& w : created.warnings) {
    if (w.code == sql::kErWarnUsingOtherHandler) {
      std::fprintf(stderr, "%s: the table-locking engine is not available: %s\n", kProgram,
                   w.message.c_str());
      std::exit(3);
    }
  }
  for (uint64_t k = 0; k < c.rows;) {
    std::string sql = "INSERT INTO t (v, n) VALUES ";
    for (uint64_t j = 0; j < kRowsPerInsert && k < c.rows; ++j, ++k) {
      sql += fmt::format("{}(md5(rand()), {})", j == 0 ? "" : ",", k % 1000);
    }
    s->Run(sql);
  }
  if (!holes) return 0;
  return s->Run(fmt::format("DELETE FROM t WHERE mod(id, 100) < {}", c.hole_percent)).affected_rows;
}

// (b)'s long SELECT: a scan of every row of t computing `depth` md5s of v per row, so that one
// statement holds its read lock as long as the scenario wants. The md5s are nested in chains of
// at most kMd5Chain (the parser bounds nesting), summed.
std::string LongSelect(uint64_t depth) {
  std::string sum;
  do {
    const uint64_t chain = std::min(depth, kMd5Chain);
    std::string e = "v";
    for (uint64_t i = 0; i < chain; ++i) e = "md5(" + e + ")";
    sum += (sum.empty() ? "length(" : " + length(") + e + ")";
    depth -= chain;
  } while (depth > 0);
  return fmt::format("SELECT count(*), sum({}) FROM t", sum);
}

double TimeOf(SqlConnection* s, const std::string& sql) {
  const auto t0 = std::chrono::steady_clock::now();
  s->Run(sql);
  return SecondsSince(t0);
}

// The md5 nesting at which LongSelect takes about `hold` seconds on t as it is, alone; sets
// *alone to the time it took at that depth.
uint64_t CalibrateDepth(SqlConnection* s, double hold, double* alone) {
  const double base = std::min(TimeOf(s, LongSelect(0)), TimeOf(s, LongSelect(0)));
  auto depth_for = [&](double per_level) {
    const double d = std::round((hold - base) / std::max(per_level, 1e-9));
    return static_cast<uint64_t>(std::clamp(d, 0.0, static_cast<double>(kMaxMd5Depth)));
  };
  uint64_t depth = depth_for((TimeOf(s, LongSelect(2)) - base) / 2);
  double t = TimeOf(s, LongSelect(depth));
  if (depth > 0 && (t < 0.8 * hold || t > 1.25 * hold)) {  // one correction on a noisy machine
    depth = depth_for((t - base) / static_cast<double>(depth));
    t = TimeOf(s, LongSelect(depth));
  }
  *alone = t;
  return depth;
}

enum class Kind { kInsert, kPointSelect, kRangeSelect, kLongSelect };

// What one session's loop counted.
struct Tally {
  uint64_t transactions = 0, inserts = 0, point_selects = 0, range_selects = 0, long_selects = 0;
  uint64_t timeouts = 0, other_errors = 0;
  std::string first_error;
  std::vector<double> insert_ms, long_select_s;
  std::vector<double> insert_end, long_select_end;  // steady clock seconds

  void AddTo(Cell* c) const {
    c->transactions += transactions;
    c->inserts += inserts;
    c->point_selects += point_selects;
    c->range_selects += range_selects;
    c->long_selects += long_selects;
    c->timeouts += timeouts;
    c->other_errors += other_errors;
    if (c->first_error.empty()) c->first_error = first_error;
    c->insert_ms.insert(c->insert_ms.end(), insert_ms.begin(), insert_ms.end());
    c->long_select_s.insert(c->long_select_s.end(), long_select_s.begin(), long_select_s.end());
  }
};

// Runs one statement of a loop. Returns true if it succeeded within the cell's time (and counts
// it); a statement that ends after the cell's time (or was cancelled then) is not counted.
bool Step(SqlConnection* s, const std::string& sql, Kind kind, const std::atomic<bool>& stop,
          Tally* t) {
  const auto t0 = std::chrono::steady_clock::now();
  const RunOutcome r = s->TryRun(sql);
  const auto t1 = std::chrono::steady_clock::now();
  const double secs = std::chrono::duration<double>(t1 - t0).count();
  const double end = std::chrono::duration<double>(t1.time_since_epoch()).count();
  if (stop.load(std::memory_order_relaxed)) return false;
  if (!r.ok()) {
    if (r.code == sql::kErLockWaitTimeout) {
      ++t->timeouts;
    } else {
      ++t->other_errors;
      if (t->first_error.empty()) t->first_error = r.message;
    }
    return false;
  }
  switch (kind) {
    case Kind::kInsert:
      ++t->inserts;
      t->insert_ms.push_back(secs * 1e3);
      t->insert_end.push_back(end);
      break;
    case Kind::kPointSelect:
      ++t->point_selects;
      break;
    case Kind::kRangeSelect:
      ++t->range_selects;
      break;
    case Kind::kLongSelect:
      ++t->long_selects;
      t->long_select_s.push_back(secs);
      t->long_select_end.push_back(end);
      break;
  }
  return true;
}

std::string InsertSql(uint64_t session_no) {
  return fmt::format("INSERT INTO t (v, n) VALUES (md5(rand()), {})", session_no);
}

std::string PointSelect(std::mt19937_64& rng, uint64_t ids) {
  return fmt::format("SELECT v FROM t WHERE id = {}", 1 + rng() % ids);
}

// (a): sysbench-like transactions without their updates and deletes (which would make holes):
// 10 point SELECTs, a range SELECT of 100 rows, an INSERT. Autocommit: MyISAM has no
// transactions, so each statement takes and releases its own table lock.
void OltpLoop(SqlConnection* s, uint64_t ids, uint64_t seed, uint64_t session_no,
              const std::atomic<bool>& stop, Tally* t) {
  std::mt19937_64 rng(seed);
  while (!stop.load(std::memory_order_relaxed)) {
    bool ok = true;
    for (uint64_t k = 0; k < kPointSelectsPerTransaction && ok; ++k) {
      ok = Step(s, PointSelect(rng, ids), Kind::kPointSelect, stop, t);
    }
    if (ok) {
      const uint64_t a = 1 + rng() % (ids - kRangeRows + 1);
      ok = Step(
          s, fmt::format("SELECT sum(n) FROM t WHERE id BETWEEN {} AND {}", a, a + kRangeRows - 1),
          Kind::kRangeSelect, stop, t);
    }
    if (ok) ok = Step(s, InsertSql(session_no), Kind::kInsert, stop, t);
    if (ok) ++t->transactions;
  }
}

// (b)'s writers: a point SELECT and an INSERT, again and again, no think time.
void WriterLoop(SqlConnection* s, uint64_t ids, uint64_t seed, uint64_t session_no,
                const std::atomic<bool>& stop, Tally* t) {
  std::mt19937_64 rng(seed);
  while (!stop.load(std::memory_order_relaxed)) {
    if (Step(s, PointSelect(rng, ids), Kind::kPointSelect, stop, t)) {
      Step(s, InsertSql(session_no), Kind::kInsert, stop, t);
    }
  }
}

// (b)'s reader: the long SELECT, again and again.
void ReaderLoop(SqlConnection* s, uint64_t depth, const std::atomic<bool>& stop, Tally* t) {
  const std::string sql = LongSelect(depth);
  while (!stop.load(std::memory_order_relaxed)) Step(s, sql, Kind::kLongSelect, stop, t);
}

// (b): how many INSERTs ended between each two consecutive ends of the reader's long SELECTs.
std::vector<uint64_t> InsertsPerCycle(const std::vector<Tally>& tallies) {
  std::vector<double> inserts;
  for (const Tally& t : tallies)
    inserts.insert(inserts.end(), t.insert_end.begin(), t.insert_end.end());
  std::sort(inserts.begin(), inserts.end());
  const std::vector<double>& ends = tallies[0].long_select_end;  // session 0 is the reader
  std::vector<uint64_t> counts;
  for (size_t i = 1; i < ends.size(); ++i) {
    auto from = std::lower_bound(inserts.begin(), inserts.end(), ends[i - 1]);
    auto to = std::lower_bound(inserts.begin(), inserts.end(), ends[i]);
    counts.push_back(static_cast<uint64_t>(to - from));
  }
  return counts;
}

// The long SELECT of (b), calibrated once per table shape so that every setting runs the same
// statement.
struct LongSelectChoice {
  bool made = false;
  uint64_t depth = 0;
  double alone = 0;
};

Cell RunCell(const Connect& connect, SqlConnection* admin, const Config& c, Scenario scenario,
             const Setting& setting, bool holes, uint64_t cell_no, LongSelectChoice* choice) {
  Cell cell;
  cell.scenario = scenario;
  cell.setting = setting;
  cell.holes = holes;
  // Before the table exists: MyISAM reads concurrent_insert when it opens a table (mi_open
  // installs the concurrent insert check only if it is not NEVER) and the open table keeps
  // that, so a table made before the SET would run this cell at the previous cell's setting.
  admin->Run(fmt::format("SET GLOBAL concurrent_insert = {}", setting.value));
  cell.rows_deleted = LoadTable(admin, c, holes);
  const bool long_read = scenario == Scenario::kLongRead;
  if (long_read && !choice->made) {
    choice->depth = CalibrateDepth(admin, c.hold, &choice->alone);
    choice->made = true;
  }
  cell.md5_depth = choice->depth;
  cell.hold_alone = choice->alone;
  cell.data_free_before = StatusOfT(admin).data_free;

  // Session 0 of (b) is the reader; the others are writers.
  const uint64_t n = long_read ? c.writers + 1 : c.oltp_sessions;
  std::vector<std::unique_ptr<SqlConnection>> sessions;
  for (uint64_t i = 0; i < n; ++i) {
    sessions.push_back(connect());
    sessions.back()->Run(fmt::format("SET SESSION lock_wait_timeout = {}", c.lock_wait_timeout));
  }
  std::vector<Tally> tallies(n);
  const std::map<std::string, uint64_t> before = GlobalStatus(admin, {"Table_locks%"});

  std::atomic<bool> stop{false};
  std::atomic<size_t> running{n};
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      SqlConnection* s = sessions[i].get();
      const uint64_t seed = cell_no * 1000 + i;
      if (!long_read) {
        OltpLoop(s, c.rows, seed, i, stop, &tallies[i]);
      } else if (i == 0) {
        ReaderLoop(s, cell.md5_depth, stop, &tallies[i]);
      } else {
        WriterLoop(s, c.rows, seed, i, stop, &tallies[i]);
      }
      running.fetch_sub(1);
    });
  }
  std::this_thread::sleep_for(
      std::chrono::duration<double>(long_read ? c.seconds : c.oltp_seconds));
  stop.store(true);
  cell.elapsed = SecondsSince(start);
  CancelUntilStopped(sessions, running);
  for (std::thread& t : threads) t.join();
  const std::map<std::string, uint64_t> after = GlobalStatus(admin, {"Table_locks%"});

  for (const Tally& t : tallies) t.AddTo(&cell);
  if (long_read) cell.inserts_per_long_select = InsertsPerCycle(tallies);
  auto delta = [&](const char* name) {
    const auto b = before.find(name), a = after.find(name);
    return a == after.end() || b == before.end() ? 0 : a->second - b->second;
  };
  cell.table_locks_immediate = delta("Table_locks_immediate");
  cell.table_locks_waited = delta("Table_locks_waited");
  const TableStatus end = StatusOfT(admin);
  cell.data_free_after = end.data_free;
  cell.rows_after = end.rows;
  return cell;
}

const char* ScenarioName(Scenario s) { return s == Scenario::kOltp ? "(a) OLTP" : "(b) long read"; }

}  // namespace

double Cell::PerSecond(uint64_t n) const {
  return elapsed > 0 ? static_cast<double>(n) / elapsed : 0;
}

std::vector<Cell> RunCells(const Connect& connect, SqlConnection* admin, const Config& c) {
  std::vector<Cell> cells;
  uint64_t cell_no = 0;
  for (const Scenario scenario : {Scenario::kOltp, Scenario::kLongRead}) {
    for (const bool holes : {false, true}) {
      LongSelectChoice choice;
      for (const Setting& setting : kSettings) {
        cells.push_back(RunCell(connect, admin, c, scenario, setting, holes, cell_no++, &choice));
        const Cell& x = cells.back();
        std::string what =
            fmt::format("{}: {}, {}, concurrent_insert={}: {:.1f} inserts/s, {} table lock waits",
                        admin->name(), ScenarioName(scenario),
                        holes ? fmt::format("{} holes", Commas(x.rows_deleted)) : "no holes",
                        setting.name, x.PerSecond(x.inserts), Commas(x.table_locks_waited));
        if (scenario == Scenario::kLongRead) {
          what +=
              fmt::format(" (long SELECT: {} md5s per row, {:.2f} s alone, median {:.2f} s here)",
                          x.md5_depth, x.hold_alone, Median(x.long_select_s));
        }
        Progress(what);
      }
    }
  }
  admin->Run("DROP TABLE IF EXISTS t");
  admin->Run("SET GLOBAL concurrent_insert = AUTO");
  return cells;
}

}  // namespace minnow::experiments::e3
