// e2_copy_alter: experiment E2, W3's copy-ALTER with and without source row locks, through the
// SQL front.
//
//   e2_copy_alter [--rows N] [--runs R] [--pool-mib M] [--sample-ms S] [--out DIR]
//                 [--compare-mariadb]
//
// Builds sysbench's sbtest1 (W3's shape: id, k with KEY k_1, c char(120), pad char(60)) at N
// rows (default 200,000; --rows 1000000 for MariaDB's comparison, W3's own run had 10 M), then
// runs W3's two copy-ALTERs, `MODIFY COLUMN pad text` and back to char(60), R times each with
// alter_copy_lock_rows ON (MySQL 8.0's behaviour: the copy S-locks every source row it reads)
// and OFF (no row locks: the exclusive metadata lock keeps DML out). While an ALTER runs, a
// second session samples information_schema.innodb_trx every S ms (the row locks and lock
// memory of every transaction: the copy's is the only one) and the copy's progress
// (performance_schema.events_stages_current's WORK_COMPLETED / WORK_ESTIMATED for the stage
// "copy to tmp table"; stderr gets "copy to tmp table NN%" lines every 10%, as MariaDB's client
// prints its progress), and a third session issues an INSERT once the sampler has seen the
// copy stage, which waits on the metadata lock until the ALTER is done.
//
// --compare-mariadb then does the same on a private MariaDB server (mariadb_peer.h): the same
// load statements and row count, the same ALTERs (both run with ALGORITHM=COPY), sampler and
// INSERT. MariaDB 10.11 has no alter_copy_lock_rows (its copy always locks the source rows it
// reads), so it runs in one mode, shown as ON, and its OFF cells are "-"; its
// innodb_alter_copy_bulk is left at the server's default and printed. Its progress comes from
// information_schema.PROCESSLIST (STAGE, MAX_STAGE, PROGRESS: the percent of the whole
// statement, turned into the percent of the copy stage). InnoDB refreshes the innodb_trx copy
// it serves at most every 100 ms, so MariaDB's samples of row locks lag by up to that.
//
// What is compared with what: W3's times are of 10 M rows on MySQL 8.0 (250 s with the locks,
// 213 s without) and MariaDB's of 1 M rows (2.6-3.8 s), so times are set beside minnow's only
// at the same row count; at any size the program prints rows copied per second and the ratio
// ON / OFF measured in the same run beside W3's (250 / 213).
//
// Output: the tables on stdout, DIR/e2_copy_alter.csv (one row per engine, mode and ALTER),
// DIR/e2_timeseries.csv (row locks, lock memory and progress over each first measured copy)
// and DIR/e2_copy_alter.png (time per mode and ALTER, MariaDB's beside minnow's when measured;
// row locks held over the copy).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/sql_engine.h"
#include "tools/experiments/experiment_common.h"
#include "tools/experiments/mariadb_peer.h"
#include "tools/experiments/sql_connection.h"

namespace minnow::experiments {
namespace {

constexpr const char* kProgram = "e2_copy_alter";
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// W3 (design brief): MySQL 8.0, 10 M rows, MODIFY pad text: 250 s with the source S locks,
// 213 s without (305,844 row locks seen mid-copy); MariaDB 10.11 here: 1 M rows in 2.6-3.8 s,
// S next-key locks on ~1 M PRIMARY records.
constexpr uint64_t kW3Rows = 10'000'000;
constexpr double kW3OnSeconds = 250, kW3OffSeconds = 213;
constexpr uint64_t kMariaRows = 1'000'000;
constexpr double kMariaLow = 2.6, kMariaHigh = 3.8;

constexpr const char* kCreate =
    "CREATE TABLE sbtest1 (id int NOT NULL AUTO_INCREMENT, k int NOT NULL DEFAULT 0, c "
    "char(120) NOT NULL DEFAULT '', pad char(60) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 "
    "(k))";

struct AlterSpec {
  std::string id, sql;
};
// ALGORITHM=COPY: MariaDB would otherwise pick its own algorithm; minnow copies either way.
const AlterSpec kAlters[] = {
    {"to text", "ALTER TABLE sbtest1 MODIFY COLUMN pad text, ALGORITHM=COPY"},
    {"to char(60)",
     "ALTER TABLE sbtest1 MODIFY COLUMN pad char(60) NOT NULL DEFAULT '', ALGORITHM=COPY"},
};
constexpr size_t kAlterCount = std::size(kAlters);

struct Config {
  uint64_t rows = 200'000;
  uint64_t runs = 3;
  uint64_t pool_mib = 1024;
  uint64_t sample_ms = 5;
  std::string out = "out";
  bool compare_mariadb = false;
};

struct Sample {
  double ms;
  uint64_t row_locks, lock_bytes;
  double percent;  // of the copy stage; NaN when the ALTER was not in it
};

// One engine, mode and ALTER over the runs.
struct Cell {
  std::string engine, mode, alter;
  std::vector<double> seconds, cpu_seconds, insert_wait_ms;
  uint64_t rows = 0;
  uint64_t max_row_locks = 0, max_lock_bytes = 0;  // over all runs' samples
  uint64_t samples = 0, inserts_waited = 0;
  std::vector<Sample> series;  // the first measured run's
  double median() const { return Median(seconds); }
  double median_cpu() const { return Median(cpu_seconds); }
};

struct Sessions {
  std::unique_ptr<SqlConnection> alter, sampler, writer;
  bool mariadb = false;
};

// One engine's cells: for minnow ON then OFF, each mode's ALTERs in kAlters' order; for
// MariaDB the ON ones only.
struct EngineCells {
  std::string engine;
  bool mariadb = false;
  std::vector<Cell> cells;
  std::string copy_bulk;  // MariaDB's innodb_alter_copy_bulk ("" where it has none)
  const Cell* Find(std::string_view mode, size_t alter) const {
    for (const Cell& x : cells) {
      if (x.mode == mode && x.alter == kAlters[alter].id) return &x;
    }
    return nullptr;
  }
};

double CellReal(const sql::StatementResult& r, size_t row, size_t col) {
  if (row >= r.rows.size() || col >= r.rows[row].size() || !r.rows[row][col]) return kNone;
  return std::strtod(r.rows[row][col]->c_str(), nullptr);
}

// The copy stage's percent done, or NaN when no session is in it. minnow:
// events_stages_current's rows done of rows estimated. MariaDB: PROGRESS is the percent of the
// whole statement over MAX_STAGE stages, the copy being stage STAGE.
double CopyPercent(const Sessions& ss) {
  if (ss.mariadb) {
    const sql::StatementResult r = ss.sampler->Run(
        "SELECT STAGE, MAX_STAGE, PROGRESS FROM information_schema.PROCESSLIST WHERE STATE = "
        "'copy to tmp table'");
    if (r.rows.empty()) return kNone;
    const double stage = CellReal(r, 0, 0), max_stage = CellReal(r, 0, 1);
    const double total = CellReal(r, 0, 2);
    if (!(stage >= 1) || !(max_stage >= 1)) return total;
    return std::clamp((total / 100 * max_stage - (stage - 1)) * 100, 0.0, 100.0);
  }
  const sql::StatementResult r = ss.sampler->Run(
      "SELECT WORK_COMPLETED, WORK_ESTIMATED FROM performance_schema.events_stages_current "
      "WHERE EVENT_NAME = 'stage/sql/copy to tmp table'");
  if (r.rows.empty()) return kNone;
  const double done = CellReal(r, 0, 0), estimated = CellReal(r, 0, 1);
  return estimated > 0 ? 100 * done / estimated : 0;
}

// sysbench's prepare, shaped: k random in 1..N, c 119 and pad 59 characters of md5 hex and
// digit groups (sysbench's are 11-digit groups), as many bytes per row as sysbench's.
constexpr const char* kC =
    "concat(md5(rand()), '-', md5(rand()), '-', md5(rand()), '-', 1000000000 + floor(rand() * "
    "8999999999), '-', 100000000 + floor(rand() * 899999999))";
constexpr const char* kPad =
    "concat(md5(rand()), '-', 1000000000 + floor(rand() * 8999999999), '-', 100000000000000 + "
    "floor(rand() * 899999999999999))";

void Load(SqlConnection* s, uint64_t rows) {
  s->Run(kCreate);
  const std::string k = fmt::format("floor(1 + rand() * {})", rows);
  std::string values;
  const uint64_t first = std::min<uint64_t>(rows, 100);
  for (uint64_t i = 0; i < first; ++i) {
    values += fmt::format("{}({}, {}, {})", i ? ", " : "", k, kC, kPad);
  }
  s->Run("INSERT INTO sbtest1 (k, c, pad) VALUES " + values);
  uint64_t have = first;
  auto last = std::chrono::steady_clock::now();
  while (have < rows) {
    // Doubling, as E1's load: c copied, k and pad drawn afresh.
    const uint64_t add = std::min(have, rows - have);
    s->Run(fmt::format("INSERT INTO sbtest1 (k, c, pad) SELECT {}, c, {} FROM sbtest1 LIMIT {}", k,
                       kPad, add));
    have += add;
    if (SecondsSince(last) >= 2) {
      last = std::chrono::steady_clock::now();
      Progress(fmt::format("  {} of {} rows", Commas(have), Commas(rows)));
    }
  }
}

// One ALTER with the sampler and the writer beside it.
void RunOnce(Sessions& ss, const Config& c, Cell* cell, const AlterSpec& a, bool record) {
  // The first measured run of a cell prints its progress, every 10%.
  const bool print_progress = record && cell->series.empty();
  double next_print = 10;
  std::atomic<bool> done{false};
  std::atomic<bool> copying{false};  // the sampler has seen the copy stage
  const auto start = std::chrono::steady_clock::now();
  double alter_secs = 0, alter_cpu = 0;
  uint64_t copied = 0;
  std::thread alter([&] {
    const double cpu0 = ThreadCpuSeconds();
    const sql::StatementResult r = ss.alter->Run(a.sql);
    alter_secs = SecondsSince(start);
    alter_cpu = ThreadCpuSeconds() - cpu0;
    copied = r.affected_rows;
    done = true;
  });
  // The writer: one INSERT once the sampler has seen the copy stage (the ALTER then holds its
  // metadata lock: an INSERT sent at a fixed delay could reach MariaDB before the ALTER took
  // it); it waits for the ALTER to finish.
  double insert_ms = kNone;
  std::thread writer([&] {
    while (!copying.load() && !done.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (done.load()) return;  // too small a table to catch mid-copy
    const auto t0 = std::chrono::steady_clock::now();
    ss.writer->Run("INSERT INTO sbtest1 (k, c, pad) VALUES (1, 'e2', 'e2')");
    insert_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  });
  // The sampler also reads the processlist: the INSERT seen "Waiting for table metadata lock"
  // shows that DML waits for the ALTER, in either mode.
  bool insert_waited = false;
  std::vector<Sample> series;
  do {  // at least one sample, however short the copy
    const sql::StatementResult r = ss.sampler->Run(
        "SELECT coalesce(sum(trx_rows_locked), 0), coalesce(sum(trx_lock_memory_bytes), 0) FROM "
        "information_schema.innodb_trx");
    const double percent = CopyPercent(ss);
    if (std::isfinite(percent)) copying = true;
    const Sample smp{SecondsSince(start) * 1e3, CellNumber(r, 0, 0), CellNumber(r, 0, 1), percent};
    if (print_progress && percent >= next_print) {
      std::fprintf(stderr, "%s %s, %s: copy to tmp table %.0f%%\n", ss.alter->name().c_str(),
                   cell->mode.c_str(), a.id.c_str(), percent);
      while (next_print <= percent) next_print += 10;
    }
    const sql::StatementResult w = ss.sampler->Run(
        "SELECT count(*) FROM information_schema.processlist WHERE STATE = 'Waiting for table "
        "metadata lock' AND INFO LIKE 'INSERT%'");
    if (CellNumber(w, 0, 0) > 0) insert_waited = true;
    series.push_back(smp);
    cell->max_row_locks = std::max(cell->max_row_locks, smp.row_locks);
    cell->max_lock_bytes = std::max(cell->max_lock_bytes, smp.lock_bytes);
    std::this_thread::sleep_for(std::chrono::milliseconds(c.sample_ms));
  } while (!done.load());
  alter.join();
  writer.join();
  cell->samples += series.size();
  cell->rows = copied;
  if (!record) return;
  cell->seconds.push_back(alter_secs);
  cell->cpu_seconds.push_back(alter_cpu);
  if (std::isfinite(insert_ms)) {
    cell->insert_wait_ms.push_back(insert_ms);
    if (insert_waited) cell->inserts_waited++;
  }
  if (cell->series.empty()) cell->series = std::move(series);
}

std::string Rate(double rows, double secs) {
  return secs > 0 ? Commas(static_cast<uint64_t>(rows / secs)) : "-";
}

void PrintTables(const Config& c, const std::vector<EngineCells>& engines) {
  TextTable mine({"engine", "mode", "alter", "rows", "time s", "cpu s", "rows/s", "max row locks",
                  "max lock bytes", "INSERT wait ms", "INSERTs waited", "samples"});
  for (const EngineCells& e : engines) {
    for (const Cell& x : e.cells) {
      mine.AddRow(
          {x.engine, x.mode, x.alter, Commas(x.rows), Fixed(x.median(), 3),
           e.mariadb ? "-" : Fixed(x.median_cpu(), 3), Rate(x.rows, x.median()),
           Commas(x.max_row_locks), Commas(x.max_lock_bytes), Fixed(Median(x.insert_wait_ms), 1),
           fmt::format("{} of {}", x.inserts_waited, x.insert_wait_ms.size()), Commas(x.samples)});
    }
  }
  mine.Print(stdout,
             fmt::format("\nE2: W3's copy-ALTERs on sbtest1, {} rows, median of {} runs "
                         "(cpu s: the ALTER thread's own CPU time, which a busy machine "
                         "inflates less than the wall time; minnow's only, MariaDB's copy runs "
                         "in its server; row locks and lock memory: the most innodb_trx showed, "
                         "sampled every {} ms; the INSERT: a third session's, issued mid-ALTER)",
                         Commas(c.rows), c.runs, c.sample_ms));
  const EngineCells* maria = engines.size() > 1 ? &engines[1] : nullptr;
  if (maria != nullptr) {
    fmt::print(
        "{}: innodb_alter_copy_bulk = {}; no alter_copy_lock_rows (its copy locks the "
        "source rows it reads: shown as ON)\n",
        maria->engine, maria->copy_bulk.empty() ? "(none)" : maria->copy_bulk);
  }

  const std::vector<Cell>& cells = engines[0].cells;
  TextTable ratio({"alter", "minnow ON s", "minnow OFF s", "MariaDB ON s", "MariaDB OFF s",
                   "minnow ON/OFF", "ON/OFF cpu", "W3 ON/OFF", "minnow ON rows/s",
                   "minnow OFF rows/s", "MariaDB ON rows/s", "W3 ON rows/s", "W3 OFF rows/s"});
  for (size_t i = 0; i < kAlterCount; ++i) {
    const Cell& on = cells[i];
    const Cell& off = cells[kAlterCount + i];
    const Cell* m = maria != nullptr ? maria->Find("ON", i) : nullptr;
    std::string maria_s = "-", maria_rate = "-";
    if (m != nullptr) {
      maria_s = Fixed(m->median(), 3);
      maria_rate = Rate(m->rows, m->median());
    } else if (i == 0) {
      maria_s = fmt::format("{:.1f}-{:.1f} (recorded)", kMariaLow, kMariaHigh);
      maria_rate = Rate(kMariaRows, kMariaHigh) + "-" + Rate(kMariaRows, kMariaLow);
    }
    ratio.AddRow(
        {on.alter, Fixed(on.median(), 3), Fixed(off.median(), 3), maria_s, "-",
         Fixed(on.median() / off.median(), 3), Fixed(on.median_cpu() / off.median_cpu(), 3),
         i == 0 ? Fixed(kW3OnSeconds / kW3OffSeconds, 3) : "-", Rate(on.rows, on.median()),
         Rate(off.rows, off.median()), maria_rate, i == 0 ? Rate(kW3Rows, kW3OnSeconds) : "-",
         i == 0 ? Rate(kW3Rows, kW3OffSeconds) : "-"});
  }
  ratio.Print(stdout,
              fmt::format("\nFigures comparable at any row count: ON over OFF in the same run, "
                          "rows copied per second (minnow at {} rows; MariaDB: {}; W3: MySQL "
                          "8.0, 10 M rows, MODIFY pad text)",
                          Commas(c.rows),
                          maria != nullptr ? fmt::format("{} in this run at {} rows", maria->engine,
                                                         Commas(c.rows))
                                           : std::string("10.11 recorded at 1 M rows, ON")));
  const Cell& on = cells[0];
  const Cell& off = cells[kAlterCount];
  if (c.rows == kW3Rows) {
    fmt::print(
        "\nAt W3's 10 M rows, MODIFY pad text: minnow {:.2f} s ON, {:.2f} s OFF; W3's "
        "MySQL 8.0: {:.0f} s ON, {:.0f} s OFF\n",
        on.median(), off.median(), kW3OnSeconds, kW3OffSeconds);
  }
  if (maria != nullptr && maria->Find("ON", 0) != nullptr) {
    const Cell& m = *maria->Find("ON", 0);
    fmt::print(
        "\nAt {} rows, MODIFY pad text: minnow {:.2f} s ON, {:.2f} s OFF; {} {:.2f} s "
        "(this run; minnow ON / MariaDB {:.2f})\n",
        Commas(c.rows), on.median(), off.median(), m.engine, m.median(), on.median() / m.median());
  } else if (c.rows == kMariaRows) {
    fmt::print(
        "\nAt 1 M rows, MODIFY pad text: minnow {:.2f} s ON, {:.2f} s OFF; MariaDB "
        "10.11 here: {:.1f}-{:.1f} s (locks ON, recorded)\n",
        on.median(), off.median(), kMariaLow, kMariaHigh);
  }
  fmt::print(
      "W3 mid-copy: performance_schema.data_locks showed 305,844 S,REC_NOT_GAP rows (MySQL 8.0, "
      "10 M rows); MariaDB: S next-key locks on ~1 M PRIMARY records. minnow ON: S next-key "
      "locks on every source row read so far, all held until the copy commits.\n");
}

bool WriteOutputs(const Config& c, const std::vector<EngineCells>& engines) {
  const OutputDir out(c.out);
  std::vector<std::vector<std::string>> rows, series;
  const auto pct = [](double p) { return std::isfinite(p) ? fmt::format("{:.1f}", p) : ""; };
  for (const EngineCells& e : engines) {
    for (const Cell& x : e.cells) {
      const double m = x.median();
      rows.push_back(
          {x.engine, x.mode, x.alter, std::to_string(x.rows), std::to_string(x.seconds.size()),
           fmt::format("{:.6f}", m), e.mariadb ? "" : fmt::format("{:.6f}", x.median_cpu()),
           fmt::format("{:.0f}", m > 0 ? x.rows / m : 0), std::to_string(x.max_row_locks),
           std::to_string(x.max_lock_bytes), fmt::format("{:.3f}", Median(x.insert_wait_ms)),
           std::to_string(x.inserts_waited), std::to_string(x.insert_wait_ms.size())});
      for (const Sample& s : x.series) {
        series.push_back({x.engine, x.mode, x.alter, fmt::format("{:.3f}", s.ms),
                          std::to_string(s.row_locks), std::to_string(s.lock_bytes),
                          pct(s.percent)});
      }
    }
  }
  bool ok = out.WriteCsv("e2_copy_alter.csv",
                         {"engine", "lock_rows", "alter", "rows", "runs", "median_seconds",
                          "median_cpu_seconds", "rows_per_s", "max_row_locks", "max_lock_bytes",
                          "median_insert_wait_ms", "inserts_waited", "inserts"},
                         rows);
  ok = out.WriteCsv(
           "e2_timeseries.csv",
           {"engine", "lock_rows", "alter", "ms", "row_locks", "lock_bytes", "copy_percent"},
           series) &&
       ok;

  const EngineCells* maria = engines.size() > 1 ? &engines[1] : nullptr;
  const std::vector<Cell>& cells = engines[0].cells;
  std::vector<std::vector<std::string>> bars;
  for (size_t i = 0; i < kAlterCount; ++i) {
    std::vector<std::string> bar = {kAlters[i].id, fmt::format("{:.4g}", cells[i].median()),
                                    fmt::format("{:.4g}", cells[kAlterCount + i].median())};
    if (maria != nullptr) {
      const Cell* m = maria->Find("ON", i);
      bar.push_back(fmt::format("{:.4g}", m != nullptr ? m->median() : 0.0));
    }
    bars.push_back(std::move(bar));
  }
  std::string script = GnuplotData("times", bars);
  std::string plots;
  int n = 0;
  for (const EngineCells& e : engines) {
    for (const Cell& x : e.cells) {
      std::vector<std::vector<std::string>> pts;
      for (const Sample& s : x.series) {
        pts.push_back({fmt::format("{:.3f}", s.ms), std::to_string(s.row_locks)});
      }
      if (pts.empty()) pts.push_back({"0", "0"});
      const std::string name = fmt::format("s{}", n++);
      script += GnuplotData(name, pts);
      plots +=
          fmt::format("{}${} using 1:2 with lines lw 2 title '{}{}, {}'", plots.empty() ? "" : ", ",
                      name, e.mariadb ? "MariaDB " : "", x.mode, x.alter);
    }
  }
  const std::string maria_bar =
      maria != nullptr ? ", '' using 4 title 'MariaDB, its one mode'" : std::string();
  script += fmt::format(
      "set multiplot layout 1,2 title 'E2: W3''s copy-ALTERs, sbtest1 at {} rows{}'\n"
      "set style data histograms\nset style histogram clustered gap 1\n"
      "set style fill solid 0.8 border -1\nset boxwidth 0.9\nset grid ytics\nset key top left\n"
      "set yrange [0:*]\nset title 'time per ALTER (median of {})'\nset ylabel 's'\n"
      "plot $times using 2:xtic(1) title 'minnow alter\\_copy\\_lock\\_rows=ON', '' using 3 "
      "title 'minnow OFF'{}\n"
      "set style data lines\nset title 'row locks held over the copy (innodb\\_trx)'\n"
      "set xlabel 'ms since the ALTER began'\nset ylabel 'row locks'\nset xrange [0:*]\n"
      "plot {}\nunset multiplot\n",
      Commas(c.rows), maria != nullptr ? ", minnow and " + maria->engine : std::string(), c.runs,
      maria_bar, plots);
  out.Plot("e2_copy_alter", 1400, 500, script);
  return ok;
}

// Loads sbtest1 through `ss.alter`, warms up with one pair of ALTERs, then runs the measured
// ALTERs in `modes` (minnow: ON and OFF taking turns to go first, so that neither mode always
// gets the state the other leaves; MariaDB: its one mode).
EngineCells Measure(Sessions& ss, const Config& c, const std::vector<std::string>& modes) {
  EngineCells e;
  e.engine = ss.alter->name();
  e.mariadb = ss.mariadb;
  Progress(fmt::format("{}: loading sbtest1, {} rows", e.engine, Commas(c.rows)));
  const auto load_start = std::chrono::steady_clock::now();
  Load(ss.alter.get(), c.rows);
  Progress(fmt::format("{}: loaded {} rows in {:.2f} s", e.engine, Commas(c.rows),
                       SecondsSince(load_start)));
  if (ss.mariadb) {
    const sql::StatementResult r = ss.alter->Run("SHOW VARIABLES LIKE 'innodb_alter_copy_bulk'");
    if (!r.rows.empty() && r.rows[0].size() > 1 && r.rows[0][1]) e.copy_bulk = *r.rows[0][1];
  }
  for (const std::string& mode : modes) {
    for (const AlterSpec& a : kAlters) {
      e.cells.push_back(Cell{.engine = e.engine, .mode = mode, .alter = a.id});
    }
  }
  const auto set_mode = [&](const std::string& mode) {
    if (!ss.mariadb) ss.alter->Run("SET alter_copy_lock_rows = " + mode);
  };
  set_mode(modes[0]);
  Cell warm;
  for (const AlterSpec& a : kAlters) RunOnce(ss, c, &warm, a, /*record=*/false);
  for (uint64_t run = 0; run < c.runs; ++run) {
    Progress(fmt::format("{}: run {} of {}", e.engine, run + 1, c.runs));
    for (size_t step = 0; step < modes.size(); ++step) {
      const size_t m = (step + run) % modes.size();
      set_mode(modes[m]);
      for (size_t i = 0; i < kAlterCount; ++i) {
        RunOnce(ss, c, &e.cells[m * kAlterCount + i], kAlters[i], /*record=*/true);
      }
    }
  }
  return e;
}

int Main(const Config& c) {
  std::vector<EngineCells> engines;
  {
    MemoryEngine m;
    if (!OpenMemoryEngine(c.pool_mib, kProgram, &m)) return 1;
    sql::SqlEngine* engine = m.engine.get();
    Sessions ss{std::make_unique<MinnowConnection>(engine->NewSession(), kProgram),
                std::make_unique<MinnowConnection>(engine->NewSession(), kProgram),
                std::make_unique<MinnowConnection>(engine->NewSession(), kProgram)};
    engines.push_back(Measure(ss, c, {"ON", "OFF"}));
  }
  if (c.compare_mariadb) {
    std::unique_ptr<MariaDbPeer> peer = MariaDbPeer::Start(kProgram, c.pool_mib);
    if (peer == nullptr) return 1;
    Sessions ss{peer->Connect(), peer->Connect(), peer->Connect(), /*mariadb=*/true};
    engines.push_back(Measure(ss, c, {"ON"}));
  }
  PrintTables(c, engines);
  fmt::print("\n");
  return WriteOutputs(c, engines) ? 0 : 1;
}

}  // namespace
}  // namespace minnow::experiments

int main(int argc, char** argv) {
  minnow::experiments::Config c;
  using minnow::experiments::Flag;
  const std::vector<Flag> flags = {
      {.name = "rows",
       .u64 = &c.rows,
       .min = 100,
       .max = 1u << 31,
       .help = "rows of sbtest1 (W3: 10000000; MariaDB's comparison: 1000000)"},
      {.name = "runs", .u64 = &c.runs, .min = 1, .max = 999, .help = "measured runs per ALTER"},
      minnow::experiments::PoolMibFlag(&c.pool_mib),
      {.name = "sample-ms",
       .u64 = &c.sample_ms,
       .min = 1,
       .max = 1000,
       .help = "ms between innodb_trx samples"},
      minnow::experiments::OutFlag(&c.out),
      minnow::experiments::CompareMariaDbFlag(&c.compare_mariadb),
  };
  if (!minnow::experiments::ParseFlags(argc, argv, "e2_copy_alter", flags)) return 2;
  return minnow::experiments::Main(c);
}
