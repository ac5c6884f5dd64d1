// e4_contention: experiment E4, locking and non-locking reads under contention, through the SQL
// front on the row-locking engine.
//
//   e4_contention [--rows N] [--readers R] [--writers W] [--seconds S] [--range K]
//                 [--lock-wait-timeout T] [--out DIR] [--compare-mariadb]
//
// One table, CREATE TABLE t (id int PRIMARY KEY, v int, pad varchar(64)), of N rows (default
// 20,000). Then, for each isolation level (READ UNCOMMITTED, READ COMMITTED, REPEATABLE READ,
// SERIALIZABLE) and each read mode (plain, LOCK IN SHARE MODE, FOR UPDATE), for S seconds
// (default 2): R reader sessions each loop
//   BEGIN; SELECT count(*), sum(v) FROM t WHERE id BETWEEN a AND a+K-1 <mode>; COMMIT
// over random ranges of K rows (default 1,000), and W writer sessions each loop short
// transactions of two single-row updates,
//   BEGIN; UPDATE t SET v = v + 1 WHERE id = x; UPDATE t SET v = v + 1 WHERE id = y; COMMIT
// with x and y random, so the two may come in either order. Every session runs on its own
// thread with innodb_lock_wait_timeout = T (default 1 s). A deadlock (1213) has rolled the
// transaction back; a lock wait timeout (1205) rolled back the statement and the session rolls
// back the rest; both are counted and the loop goes on. A monitor session samples, every
// 100 ms, the lock memory of all transactions (sum of information_schema.innodb_trx's
// trx_lock_memory_bytes) and SHOW ENGINE INNODB STATUS's "History list length". SHOW GLOBAL
// STATUS's Innodb_row_lock_waits, Innodb_row_lock_time and Innodb_deadlocks are read before
// and after each cell.
//
// Throughput counts statements that succeeded within the S seconds; latency (p95) is of every
// statement that ended within them, failed ones included (a timeout takes T seconds of its
// client's time).
//
// --compare-mariadb runs the same grid, the same statements from the same number of client
// threads, on a private MariaDB server (mariadb_peer.h) after minnow's, and prints its table and
// minnow's throughput over MariaDB's per cell; the CSV files then hold both (column `engine`).
//
// Output: the table on stdout; DIR/e4_contention.csv (one row per isolation level x mode),
// DIR/e4_timeseries.csv (the monitor's samples), DIR/e4_throughput.png (statements/s per read
// mode and isolation level) and DIR/e4_lock_memory.png (lock memory over time).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/sql_engine.h"
#include "tools/experiments/experiment_common.h"
#include "tools/experiments/mariadb_peer.h"
#include "tools/experiments/sql_connection.h"
#include "tools/experiments/w1_table.h"

namespace minnow::experiments {
namespace {

constexpr const char* kProgram = "e4_contention";

struct Config {
  uint64_t rows = 20'000;
  uint64_t readers = 2, writers = 2;
  double seconds = 2;
  uint64_t range = 1000;
  uint64_t lock_wait_timeout = 1;
  uint64_t sample_ms = 100;
  uint64_t pool_mib = 256;
  std::string out = "out";
  bool compare_mariadb = false;
};

struct Isolation {
  const char* name;  // as SET SESSION TRANSACTION ISOLATION LEVEL takes it (MariaDB 10.11 has
                     // no transaction_isolation variable)
};
constexpr Isolation kIsolations[] = {
    {"READ UNCOMMITTED"},
    {"READ COMMITTED"},
    {"REPEATABLE READ"},
    {"SERIALIZABLE"},
};

struct ReadMode {
  const char* name;
  const char* suffix;
};
constexpr ReadMode kModes[] = {
    {"plain", ""},
    {"share", " LOCK IN SHARE MODE"},
    {"update", " FOR UPDATE"},
};

// What one session's loop counted.
struct LoopStats {
  uint64_t statements = 0;  // succeeded within the cell's time
  uint64_t transactions = 0;
  uint64_t deadlocks = 0;  // 1213
  uint64_t timeouts = 0;   // 1205
  uint64_t other_errors = 0;
  std::string first_other_error;
  std::vector<double> latency_ms;

  void Add(const LoopStats& o) {
    statements += o.statements;
    transactions += o.transactions;
    deadlocks += o.deadlocks;
    timeouts += o.timeouts;
    other_errors += o.other_errors;
    if (first_other_error.empty()) first_other_error = o.first_other_error;
    latency_ms.insert(latency_ms.end(), o.latency_ms.begin(), o.latency_ms.end());
  }
};

struct Sample {
  double t = 0;  // seconds since the cell started
  uint64_t transactions = 0, lock_bytes = 0, row_locks = 0, history = 0;
};

struct Cell {
  const Isolation* iso = nullptr;
  const ReadMode* mode = nullptr;
  double elapsed = 0;
  LoopStats readers, writers;
  uint64_t lock_waits = 0, lock_time_ms = 0, engine_deadlocks = 0;
  std::vector<Sample> samples;

  uint64_t peak_lock_bytes() const {
    uint64_t m = 0;
    for (const Sample& s : samples) m = std::max(m, s.lock_bytes);
    return m;
  }
  double mean_lock_bytes() const {
    double sum = 0;
    for (const Sample& s : samples) sum += static_cast<double>(s.lock_bytes);
    return samples.empty() ? 0 : sum / static_cast<double>(samples.size());
  }
  uint64_t peak_row_locks() const {
    uint64_t m = 0;
    for (const Sample& s : samples) m = std::max(m, s.row_locks);
    return m;
  }
  uint64_t max_history() const {
    uint64_t m = 0;
    for (const Sample& s : samples) m = std::max(m, s.history);
    return m;
  }
};

// The cell's shared run state.
struct Run {
  std::atomic<bool> stop{false};
  std::chrono::steady_clock::time_point start;
};

// Runs one statement of a loop and accounts for it. Returns true if it succeeded; on a failure
// leaves the session outside any transaction.
bool Step(SqlConnection* s, const std::string& sql, const Run& run, LoopStats* st, bool measured) {
  const auto t0 = std::chrono::steady_clock::now();
  const RunOutcome r = s->TryRun(sql);
  const double ms = SecondsSince(t0) * 1e3;
  const bool in_window = !run.stop.load(std::memory_order_relaxed);
  if (measured && in_window) st->latency_ms.push_back(ms);
  if (r.ok()) {
    if (measured && in_window) ++st->statements;
    return true;
  }
  const uint16_t code = r.code;
  if (in_window) {
    if (code == sql::kErLockDeadlock) {
      ++st->deadlocks;
    } else if (code == sql::kErLockWaitTimeout) {
      ++st->timeouts;
    } else if (code != sql::kErQueryInterrupted) {
      ++st->other_errors;
      if (st->first_other_error.empty()) st->first_other_error = r.message;
    }
  }
  // A deadlock rolled the whole transaction back; anything else only the statement.
  (void)s->TryRun("ROLLBACK");
  return false;
}

void ReaderLoop(SqlConnection* s, const Config& c, const ReadMode& mode, uint64_t seed,
                const Run& run, LoopStats* st) {
  std::mt19937_64 rng(seed);
  const uint64_t span = c.rows - c.range + 1;
  while (!run.stop.load(std::memory_order_relaxed)) {
    const uint64_t a = 1 + rng() % span;
    if (!Step(s, "BEGIN", run, st, false)) continue;
    const std::string sql =
        fmt::format("SELECT count(*), sum(v) FROM t WHERE id BETWEEN {} AND {}{}", a,
                    a + c.range - 1, mode.suffix);
    if (!Step(s, sql, run, st, true)) continue;
    if (Step(s, "COMMIT", run, st, false) && !run.stop.load(std::memory_order_relaxed)) {
      ++st->transactions;
    }
  }
}

void WriterLoop(SqlConnection* s, const Config& c, uint64_t seed, const Run& run, LoopStats* st) {
  std::mt19937_64 rng(seed);
  while (!run.stop.load(std::memory_order_relaxed)) {
    if (!Step(s, "BEGIN", run, st, false)) continue;
    bool ok = true;
    for (int k = 0; k < 2 && ok; ++k) {
      ok = Step(s, fmt::format("UPDATE t SET v = v + 1 WHERE id = {}", 1 + rng() % c.rows), run, st,
                true);
    }
    if (ok && Step(s, "COMMIT", run, st, false) && !run.stop.load(std::memory_order_relaxed)) {
      ++st->transactions;
    }
  }
}

uint64_t HistoryListLength(SqlConnection* s) {
  const sql::StatementResult r = s->Run("SHOW ENGINE INNODB STATUS");
  if (r.rows.empty() || r.rows[0].size() < 3 || !r.rows[0][2]) return 0;
  const std::string& text = *r.rows[0][2];
  const std::string key = "History list length ";
  const size_t at = text.find(key);
  return at == std::string::npos ? 0 : std::strtoull(text.c_str() + at + key.size(), nullptr, 10);
}

void MonitorLoop(SqlConnection* s, const Config& c, const Run& run, std::vector<Sample>* out) {
  auto next = run.start;
  while (!run.stop.load(std::memory_order_relaxed)) {
    Sample smp;
    smp.t = SecondsSince(run.start);
    const sql::StatementResult r = s->Run(
        "SELECT count(*), sum(trx_lock_memory_bytes), sum(trx_rows_locked) FROM "
        "information_schema.innodb_trx");
    smp.transactions = CellNumber(r, 0, 0);
    smp.lock_bytes = CellNumber(r, 0, 1);
    smp.row_locks = CellNumber(r, 0, 2);
    smp.history = HistoryListLength(s);
    out->push_back(smp);
    next += std::chrono::milliseconds(c.sample_ms);
    while (!run.stop.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < next) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

// The row lock counters read before and after each cell.
std::map<std::string, uint64_t> RowLockStatus(SqlConnection* s) {
  return GlobalStatus(s, {"Innodb_row_lock%", "Innodb_deadlocks"});
}

std::unique_ptr<SqlConnection> NewSession(const Connect& connect, const Config& c,
                                          const Isolation& iso) {
  std::unique_ptr<SqlConnection> s = connect();
  s->Run(fmt::format("SET SESSION TRANSACTION ISOLATION LEVEL {}", iso.name));
  s->Run(fmt::format("SET SESSION innodb_lock_wait_timeout = {}", c.lock_wait_timeout));
  return s;
}

Cell RunCell(const Connect& connect, SqlConnection* admin, const Config& c, const Isolation& iso,
             const ReadMode& mode, uint64_t cell_no) {
  Cell cell;
  cell.iso = &iso;
  cell.mode = &mode;
  std::vector<std::unique_ptr<SqlConnection>> sessions;
  for (uint64_t i = 0; i < c.readers + c.writers; ++i)
    sessions.push_back(NewSession(connect, c, iso));
  std::unique_ptr<SqlConnection> monitor = connect();
  std::vector<LoopStats> stats(sessions.size());

  const std::map<std::string, uint64_t> before = RowLockStatus(admin);
  Run run;
  run.start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  std::atomic<size_t> running{sessions.size()};
  for (size_t i = 0; i < sessions.size(); ++i) {
    const uint64_t seed = cell_no * 1000 + i;
    threads.emplace_back([&, i, seed] {
      if (i < c.readers) {
        ReaderLoop(sessions[i].get(), c, mode, seed, run, &stats[i]);
      } else {
        WriterLoop(sessions[i].get(), c, seed, run, &stats[i]);
      }
      running.fetch_sub(1);
    });
  }
  std::thread monitor_thread([&] { MonitorLoop(monitor.get(), c, run, &cell.samples); });

  std::this_thread::sleep_for(std::chrono::duration<double>(c.seconds));
  run.stop.store(true);
  cell.elapsed = SecondsSince(run.start);
  CancelUntilStopped(sessions, running);
  for (std::thread& t : threads) t.join();
  monitor_thread.join();
  const std::map<std::string, uint64_t> after = RowLockStatus(admin);

  for (size_t i = 0; i < stats.size(); ++i)
    (i < c.readers ? cell.readers : cell.writers).Add(stats[i]);
  auto delta = [&](const char* name) {
    const auto b = before.find(name), a = after.find(name);
    return a == after.end() || b == before.end() ? 0 : a->second - b->second;
  };
  cell.lock_waits = delta("Innodb_row_lock_waits");
  cell.lock_time_ms = delta("Innodb_row_lock_time");
  cell.engine_deadlocks = delta("Innodb_deadlocks");
  return cell;
}

void Load(SqlConnection* s, const Config& c) {
  s->Run("CREATE TABLE t (id int PRIMARY KEY, v int, pad varchar(64)) ENGINE=InnoDB");
  const std::string pad(60, 'p');
  for (uint64_t id = 1; id <= c.rows;) {
    std::string sql = "INSERT INTO t VALUES ";
    for (uint64_t k = 0; k < 500 && id <= c.rows; ++k, ++id) {
      sql += fmt::format("{}({}, 0, '{}')", k == 0 ? "" : ",", id, pad);
    }
    s->Run(sql);
  }
}

double PerSecond(uint64_t n, double secs) { return secs > 0 ? static_cast<double>(n) / secs : 0; }

void PrintTable(const Config& c, const std::vector<Cell>& cells, const std::string& who) {
  TextTable t({"isolation", "mode", "reads/s", "writes/s", "read p95 ms", "write p95 ms",
               "lock waits", "deadlocks", "timeouts", "peak lock KiB", "mean lock KiB",
               "peak row locks", "max history"});
  for (const Cell& x : cells) {
    t.AddRow({x.iso->name, x.mode->name, Fixed(PerSecond(x.readers.statements, x.elapsed), 0),
              Fixed(PerSecond(x.writers.statements, x.elapsed), 0),
              Fixed(Percentile(x.readers.latency_ms, 95), 2),
              Fixed(Percentile(x.writers.latency_ms, 95), 2), Commas(x.lock_waits),
              Commas(x.readers.deadlocks + x.writers.deadlocks),
              Commas(x.readers.timeouts + x.writers.timeouts),
              Fixed(static_cast<double>(x.peak_lock_bytes()) / 1024, 1),
              Fixed(x.mean_lock_bytes() / 1024, 1), Commas(x.peak_row_locks()),
              Commas(x.max_history())});
  }
  t.Print(stdout,
          fmt::format("\nE4 on {}: {} readers (range scans of {} rows) against {} writers (2 "
                      "random single-row updates per transaction), {} rows, {:g} s per cell, "
                      "innodb_lock_wait_timeout {}",
                      who, c.readers, Commas(c.range), c.writers, Commas(c.rows), c.seconds,
                      c.lock_wait_timeout));
  fmt::print(
      "reads/s, writes/s: SELECTs and UPDATEs that succeeded; p95 over every statement that "
      "ended (failed ones too);\nlock waits: Innodb_row_lock_waits; deadlocks (1213) and "
      "timeouts (1205) as the clients saw them; lock memory and row locks: sums of\n"
      "trx_lock_memory_bytes and trx_rows_locked over innodb_trx, sampled every {} ms; history: "
      "SHOW ENGINE INNODB STATUS's History list length.\n",
      c.sample_ms);
  for (const Cell& x : cells) {
    const uint64_t other = x.readers.other_errors + x.writers.other_errors;
    if (other > 0) {
      fmt::print("  {} {}: {} other errors, the first: {}\n", x.iso->name, x.mode->name, other,
                 x.readers.first_other_error.empty() ? x.writers.first_other_error
                                                     : x.readers.first_other_error);
    }
  }
}

// minnow's throughput over MariaDB's, cell by cell (same machine, same run, same statements).
void PrintComparison(const std::vector<Cell>& mine, const std::vector<Cell>& theirs,
                     const std::string& who) {
  TextTable t({"isolation", "mode", "minnow reads/s", "MariaDB reads/s", "x", "minnow writes/s",
               "MariaDB writes/s", "x", "minnow lock waits", "MariaDB lock waits"});
  for (size_t i = 0; i < mine.size() && i < theirs.size(); ++i) {
    const Cell& a = mine[i];
    const Cell& b = theirs[i];
    const double ar = PerSecond(a.readers.statements, a.elapsed);
    const double br = PerSecond(b.readers.statements, b.elapsed);
    const double aw = PerSecond(a.writers.statements, a.elapsed);
    const double bw = PerSecond(b.writers.statements, b.elapsed);
    t.AddRow({a.iso->name, a.mode->name, Fixed(ar, 0), Fixed(br, 0), Fixed(ar / br, 2),
              Fixed(aw, 0), Fixed(bw, 0), Fixed(aw / bw, 2), Commas(a.lock_waits),
              Commas(b.lock_waits)});
  }
  t.Print(stdout, fmt::format("\nminnow beside {} (this run; x = minnow / MariaDB)", who));
  fmt::print(
      "MariaDB's lock memory samples come from innodb_trx, which InnoDB refreshes at most every "
      "100 ms.\n");
}

// One engine's cells with its name, for the CSV files.
struct Grid {
  std::string engine;
  std::vector<Cell> cells;
};

bool WriteOutputs(const Config& c, const std::vector<Grid>& grids) {
  const OutputDir out(c.out);
  const std::vector<Cell>& cells = grids.front().cells;  // the plots are minnow's
  std::vector<std::vector<std::string>> rows, series;
  for (const Grid& g : grids) {
    for (const Cell& x : g.cells) {
      rows.push_back({g.engine,
                      x.iso->name,
                      x.mode->name,
                      std::to_string(c.rows),
                      std::to_string(c.readers),
                      std::to_string(c.writers),
                      fmt::format("{:.3f}", x.elapsed),
                      std::to_string(x.readers.statements),
                      std::to_string(x.writers.statements),
                      fmt::format("{:.1f}", PerSecond(x.readers.statements, x.elapsed)),
                      fmt::format("{:.1f}", PerSecond(x.writers.statements, x.elapsed)),
                      std::to_string(x.readers.transactions),
                      std::to_string(x.writers.transactions),
                      fmt::format("{:.3f}", Percentile(x.readers.latency_ms, 95)),
                      fmt::format("{:.3f}", Percentile(x.writers.latency_ms, 95)),
                      std::to_string(x.lock_waits),
                      std::to_string(x.lock_time_ms),
                      std::to_string(x.readers.deadlocks),
                      std::to_string(x.writers.deadlocks),
                      std::to_string(x.engine_deadlocks),
                      std::to_string(x.readers.timeouts),
                      std::to_string(x.writers.timeouts),
                      std::to_string(x.readers.other_errors + x.writers.other_errors),
                      std::to_string(x.peak_lock_bytes()),
                      fmt::format("{:.0f}", x.mean_lock_bytes()),
                      std::to_string(x.peak_row_locks()),
                      std::to_string(x.max_history())});
      for (const Sample& s : x.samples) {
        series.push_back({g.engine, x.iso->name, x.mode->name, fmt::format("{:.3f}", s.t),
                          std::to_string(s.transactions), std::to_string(s.lock_bytes),
                          std::to_string(s.row_locks), std::to_string(s.history)});
      }
    }
  }
  bool ok = out.WriteCsv("e4_contention.csv",
                         {"engine",
                          "isolation",
                          "mode",
                          "rows",
                          "readers",
                          "writers",
                          "seconds",
                          "read_statements",
                          "write_statements",
                          "reads_per_s",
                          "writes_per_s",
                          "read_transactions",
                          "write_transactions",
                          "read_p95_ms",
                          "write_p95_ms",
                          "innodb_row_lock_waits",
                          "innodb_row_lock_time_ms",
                          "reader_deadlocks",
                          "writer_deadlocks",
                          "innodb_deadlocks",
                          "reader_timeouts",
                          "writer_timeouts",
                          "other_errors",
                          "peak_lock_memory_bytes",
                          "mean_lock_memory_bytes",
                          "peak_row_locks",
                          "max_history_list_length"},
                         rows);
  ok = out.WriteCsv("e4_timeseries.csv",
                    {"engine", "isolation", "mode", "t_seconds", "transactions",
                     "lock_memory_bytes", "row_locks", "history_list_length"},
                    series) &&
       ok;

  // Throughput: x = read mode, one bar per isolation level; readers and writers side by side.
  std::vector<std::vector<std::string>> tp;
  for (size_t m = 0; m < std::size(kModes); ++m) {
    std::vector<std::string> row = {kModes[m].name};
    for (const bool reads : {true, false}) {
      for (size_t i = 0; i < std::size(kIsolations); ++i) {
        const Cell& x = cells[i * std::size(kModes) + m];
        const uint64_t n = reads ? x.readers.statements : x.writers.statements;
        row.push_back(fmt::format("{:.1f}", PerSecond(n, x.elapsed)));
      }
    }
    tp.push_back(row);
  }
  const std::string script =
      GnuplotData("tp", tp) +
      fmt::format(
          "set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.8 border -1\nset boxwidth 0.9\nset grid ytics\n"
          "set yrange [0:*]\nset key top right\nset xlabel 'read mode'\n"
          "array iso[4] = ['READ UNCOMMITTED', 'READ COMMITTED', 'REPEATABLE READ', "
          "'SERIALIZABLE']\n"
          "set multiplot layout 1,2 title 'E4: {} readers vs {} writers, {} rows, {:g} s "
          "per cell'\n"
          "set title 'readers: range SELECTs ({} rows) per second'\n"
          "set ylabel 'statements/s'\n"
          "plot for [i=1:4] $tp using (column(i+1)):xtic(1) title iso[i]\n"
          "set title 'writers: single-row UPDATEs per second'\n"
          "plot for [i=1:4] $tp using (column(i+5)):xtic(1) title iso[i]\n"
          "unset multiplot\n",
          c.readers, c.writers, Commas(c.rows), c.seconds, Commas(c.range));
  out.Plot("e4_throughput", 1400, 520, script);

  // Lock memory over time: one panel per isolation level, one line per read mode.
  std::string mem;
  for (size_t i = 0; i < cells.size(); ++i) {
    std::vector<std::vector<std::string>> pts;
    for (const Sample& s : cells[i].samples) {
      pts.push_back({fmt::format("{:.3f}", s.t),
                     fmt::format("{:.2f}", static_cast<double>(s.lock_bytes) / 1024),
                     std::to_string(s.history)});
    }
    if (pts.empty()) pts.push_back({"0", "0", "0"});
    mem += GnuplotData(fmt::format("m{}", i), pts);
  }
  mem += fmt::format(
      "set grid\nset key top right\nset xlabel 'seconds into the cell'\n"
      "set ylabel 'lock memory, KiB (all transactions)'\nset yrange [0:*]\n"
      "set xrange [0:{:g}]\n"
      "set multiplot layout 2,2 title 'E4: lock memory over time (sampled every {} ms)'\n",
      c.seconds, c.sample_ms);
  for (size_t i = 0; i < std::size(kIsolations); ++i) {
    mem += fmt::format("set title '{}'\nplot ", kIsolations[i].name);
    for (size_t m = 0; m < std::size(kModes); ++m) {
      mem += fmt::format("{}$m{} using 1:2 with linespoints lw 2 pt 7 ps 0.6 title '{}'",
                         m == 0 ? "" : ", ", i * std::size(kModes) + m, kModes[m].name);
    }
    mem += "\n";
  }
  mem += "unset multiplot\n";
  out.Plot("e4_lock_memory", 1400, 900, mem);
  return ok;
}

// Loads table t through `admin` and runs every isolation level x read mode.
std::vector<Cell> RunGrid(const Connect& connect, SqlConnection* admin, const Config& c) {
  Progress(fmt::format("loading t on {}, {} rows", admin->name(), Commas(c.rows)));
  Load(admin, c);
  std::vector<Cell> cells;
  uint64_t cell_no = 0;
  for (const Isolation& iso : kIsolations) {
    for (const ReadMode& mode : kModes) {
      cells.push_back(RunCell(connect, admin, c, iso, mode, cell_no++));
      const Cell& x = cells.back();
      Progress(fmt::format("{} {}: {:.0f} reads/s, {:.0f} writes/s", iso.name, mode.name,
                           PerSecond(x.readers.statements, x.elapsed),
                           PerSecond(x.writers.statements, x.elapsed)));
    }
  }
  return cells;
}

int Main(const Config& c) {
  MemoryEngine m;
  if (!OpenMemoryEngine(c.pool_mib, kProgram, &m)) return 1;
  sql::SqlEngine* engine = m.engine.get();
  const Connect minnow = [engine]() -> std::unique_ptr<SqlConnection> {
    return std::make_unique<MinnowConnection>(engine->NewSession(), kProgram);
  };
  std::vector<Grid> grids;
  {
    std::unique_ptr<SqlConnection> admin = minnow();
    grids.push_back({"minnow", RunGrid(minnow, admin.get(), c)});
  }
  PrintTable(c, grids[0].cells, "minnow");
  if (c.compare_mariadb) {
    std::unique_ptr<MariaDbPeer> peer = MariaDbPeer::Start(kProgram, c.pool_mib);
    if (peer == nullptr) return 1;
    const Connect maria = [&peer]() -> std::unique_ptr<SqlConnection> { return peer->Connect(); };
    std::unique_ptr<SqlConnection> admin = maria();
    const std::string who = admin->name();
    grids.push_back({who, RunGrid(maria, admin.get(), c)});
    PrintTable(c, grids[1].cells, who);
    PrintComparison(grids[0].cells, grids[1].cells, who);
  }
  fmt::print("\n");
  return WriteOutputs(c, grids) ? 0 : 1;
}

}  // namespace
}  // namespace minnow::experiments

int main(int argc, char** argv) {
  minnow::experiments::Config c;
  using minnow::experiments::Flag;
  const std::vector<Flag> flags = {
      {.name = "rows", .u64 = &c.rows, .min = 10, .max = 1u << 30, .help = "rows of table t"},
      {.name = "readers", .u64 = &c.readers, .min = 0, .max = 256, .help = "reader sessions"},
      {.name = "writers", .u64 = &c.writers, .min = 0, .max = 256, .help = "writer sessions"},
      {.name = "seconds",
       .real = &c.seconds,
       .min = 0.05,
       .max = 3600,
       .help = "seconds per isolation level x read mode"},
      {.name = "range",
       .u64 = &c.range,
       .min = 1,
       .max = 1u << 30,
       .help = "rows per reader's range scan"},
      {.name = "lock-wait-timeout",
       .u64 = &c.lock_wait_timeout,
       .min = 1,
       .max = 3600,
       .help = "innodb_lock_wait_timeout, seconds"},
      {.name = "sample-ms",
       .u64 = &c.sample_ms,
       .min = 10,
       .max = 60000,
       .help = "monitor's sampling interval"},
      minnow::experiments::PoolMibFlag(&c.pool_mib),
      minnow::experiments::OutFlag(&c.out),
      minnow::experiments::CompareMariaDbFlag(&c.compare_mariadb),
  };
  if (!minnow::experiments::ParseFlags(argc, argv, "e4_contention", flags)) return 2;
  if (c.range > c.rows) {
    std::fprintf(stderr, "e4_contention: --range (%llu) must not exceed --rows (%llu)\n",
                 static_cast<unsigned long long>(c.range), static_cast<unsigned long long>(c.rows));
    return 2;
  }
  return minnow::experiments::Main(c);
}
