// E3's report: the two scenarios' tables of each engine beside W2's and the design brief's
// MariaDB 10.11 figures, the targets, the CSV and the PNG.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/experiments/e3_concurrent_insert.h"
#include "tools/experiments/experiment_common.h"

namespace minnow::experiments::e3 {
namespace {

// MariaDB's run in the design brief: 100,000 rows, 40,000 holes, one reader holding its read
// lock 0.8 s per statement, 4 writers, 20 s.
constexpr uint64_t kMariaRows = 100'000, kMariaHolePercent = 40, kMariaWriters = 4;
constexpr double kMariaHold = 0.8, kMariaSeconds = 20;
// "far fewer waits": concurrent insert's Table_locks_waited at most this share of NEVER's in a
// cell of the same length, as W2 counts them (20 against 390: 0.05).
constexpr double kFewerWaits = 0.25;

// Whether `c` is the design brief's MariaDB run, whose recorded figures are then of the same
// set-up as this run's.
bool BriefsMariaDbSetUp(const Config& c) {
  return c.rows == kMariaRows && c.hole_percent == kMariaHolePercent &&
         c.writers == kMariaWriters && c.hold == kMariaHold && c.seconds == kMariaSeconds;
}

double WaitsPerInsert(const Cell& x) {
  return x.inserts > 0 ? static_cast<double>(x.table_locks_waited) / static_cast<double>(x.inserts)
                       : NAN;
}

// A rate as the tables print it: "5.3", "23,892".
std::string Rate(double v) {
  if (!std::isfinite(v)) return "-";
  return v < 100 ? Fixed(v, 1) : Commas(static_cast<uint64_t>(std::llround(v)));
}

std::string HolesLabel(const Cell& x) {
  return x.holes ? fmt::format("{} holes", Commas(x.rows_deleted)) : "none";
}

std::string SettingLabel(const Cell& x) {
  return fmt::format("{} {}", x.setting.value, x.setting.name);
}

double Selects(const Cell& x) { return x.PerSecond(x.point_selects + x.range_selects); }

const Cell* Find(const std::vector<Cell>& cells, Scenario s, int setting, bool holes) {
  for (const Cell& x : cells) {
    if (x.scenario == s && x.setting.value == setting && x.holes == holes) return &x;
  }
  return nullptr;
}

void PrintOltp(const Config& c, const EngineCells& run) {
  TextTable t({"holes", "concurrent_insert", "tps", "inserts/s", "selects/s", "insert p50 ms",
               "insert p95 ms", "Table_locks_immediate", "Table_locks_waited", "Data_free before",
               "Data_free after", "W2 tps"});
  for (const Cell& x : run.cells) {
    if (x.scenario != Scenario::kOltp) continue;
    const Reference ref = ReferenceFor(x.scenario, x.setting.value, x.holes);
    t.AddRow({HolesLabel(x), SettingLabel(x), Rate(x.PerSecond(x.transactions)),
              Rate(x.PerSecond(x.inserts)), Rate(Selects(x)), Fixed(Percentile(x.insert_ms, 50), 3),
              Fixed(Percentile(x.insert_ms, 95), 3), Commas(x.table_locks_immediate),
              Commas(x.table_locks_waited), Commas(x.data_free_before), Commas(x.data_free_after),
              Fixed(ref.w2, 2)});
  }
  t.Print(stdout,
          fmt::format("\nE3 (a) on {}: short OLTP statements only: {} sessions, each transaction "
                      "10 point SELECTs + a 100-row range SELECT + an INSERT, {} rows, {:g} s per "
                      "cell",
                      run.engine, c.oltp_sessions, Commas(c.rows), c.oltp_seconds));
  fmt::print(
      "W2 (sysbench OLTP): 532.79 tps with concurrent insert off, 473.84 on (its 'on' is set "
      "beside AUTO and ALWAYS\nwithout holes, where the two are one rule). The design brief "
      "has no MyISAM OLTP figures from MariaDB.\n");
}

// "median / max" of the INSERTs per long SELECT cycle ("-" without two long SELECTs).
std::string PerCycle(const Cell& x) {
  const std::vector<uint64_t>& n = x.inserts_per_long_select;
  if (n.empty()) return "-";
  std::vector<double> v(n.begin(), n.end());
  return fmt::format("{:g} / {}", Median(v), Commas(*std::max_element(n.begin(), n.end())));
}

void PrintLongRead(const Config& c, const EngineCells& run) {
  TextTable t({"holes", "concurrent_insert", "inserts/s", "point selects/s", "long SELECTs",
               "median s", "inserts per long SELECT (median / max)", "insert p50 ms",
               "insert p95 ms", "Table_locks_immediate", "Table_locks_waited", "waits/insert",
               "Data_free after", "W2 inserts/s", "W2 waited", "brief's MariaDB inserts/s",
               "its waits/insert"});
  for (const Cell& x : run.cells) {
    if (x.scenario != Scenario::kLongRead) continue;
    const Reference ref = ReferenceFor(x.scenario, x.setting.value, x.holes);
    t.AddRow({HolesLabel(x), SettingLabel(x), Rate(x.PerSecond(x.inserts)),
              Rate(x.PerSecond(x.point_selects)), Commas(x.long_selects),
              Fixed(Median(x.long_select_s), 2), PerCycle(x), Fixed(Percentile(x.insert_ms, 50), 3),
              Fixed(Percentile(x.insert_ms, 95), 3), Commas(x.table_locks_immediate),
              Commas(x.table_locks_waited), Fixed(WaitsPerInsert(x), 2), Commas(x.data_free_after),
              Rate(ref.w2),
              std::isfinite(ref.w2_waited) ? Commas(static_cast<uint64_t>(ref.w2_waited)) : "-",
              Rate(ref.mariadb), Fixed(ref.mariadb_per_insert, 1)});
  }
  t.Print(stdout,
          fmt::format("\nE3 (b) on {}: one session's long SELECTs ({:g} s each alone) against {} "
                      "sessions looping a point SELECT + an INSERT, {} rows, {:g} s per cell",
                      run.engine, c.hold, c.writers, Commas(c.rows), c.seconds));
  fmt::print(
      "long SELECTs: those that ended in the cell, and their median time with the writers "
      "running; inserts per long SELECT: the INSERTs that ended between two consecutive "
      "long SELECTs' ends\n(median and max over those cycles); insert latency: INSERTs that "
      "succeeded. W2: concurrent insert off / on, "
      "about 1 s SELECTs (its 'on' beside AUTO and ALWAYS without holes).\nThe brief's MariaDB "
      "10.11: 100,000 rows, 40,000 holes, 0.8 s reader, 4 writers, 20 s; 1 writer with holes "
      "at 2: 7,265/s.\n");
  for (const Cell& x : run.cells) {
    if (x.timeouts + x.other_errors == 0) continue;
    fmt::print("  {} {} holes={}: {} lock wait timeouts, {} other errors{}{}\n",
               x.scenario == Scenario::kOltp ? "(a)" : "(b)", x.setting.name, x.holes ? 1 : 0,
               x.timeouts, x.other_errors,
               x.first_error.empty() ? "" : "; the first: ", x.first_error);
  }
}

// The targets for scenario (b), judged on minnow's cells: W2's shape (ALWAYS at least
// 1.5x NEVER in inserts/s, far fewer Table_locks_waited), and inserts/s at least MariaDB's at
// each setting: MariaDB's measured in this run (--compare-mariadb), else the design brief's when
// this run is its set-up, else not judged (figures of another set-up are no comparison).
void PrintTargets(const Config& c, const std::vector<EngineCells>& runs) {
  const std::vector<Cell>& cells = runs[0].cells;
  fmt::print("\nTargets (scenario b, {}):\n", runs[0].engine);
  for (const bool holes : {false, true}) {
    const Cell* never = Find(cells, Scenario::kLongRead, 0, holes);
    const Cell* always = Find(cells, Scenario::kLongRead, 2, holes);
    if (never == nullptr || always == nullptr) continue;
    const double ratio = always->PerSecond(always->inserts) / never->PerSecond(never->inserts);
    const double waits = static_cast<double>(always->table_locks_waited) /
                         static_cast<double>(never->table_locks_waited);
    fmt::print(
        "  {}: ALWAYS / NEVER inserts/s = {}x (target >= 1.5x; W2 1.70x): {}\n"
        "    Table_locks_waited {} -> {} in {:g} s ({}x; target <= {:g}x, W2 390 -> 20): {}; "
        "per insert {} -> {}\n",
        holes ? "with holes" : "no holes", Fixed(ratio, 2),
        std::isfinite(ratio) && ratio >= 1.5 ? "met" : "missed", Commas(never->table_locks_waited),
        Commas(always->table_locks_waited), c.seconds, Fixed(waits, 3), kFewerWaits,
        std::isfinite(waits) && waits <= kFewerWaits ? "met" : "missed",
        Fixed(WaitsPerInsert(*never), 2), Fixed(WaitsPerInsert(*always), 2));
  }
  const bool measured = runs.size() > 1;
  if (!measured && !BriefsMariaDbSetUp(c)) {
    fmt::print(
        "  inserts/s at least MariaDB's at each setting: not judged: this run is not the design "
        "brief's MariaDB set-up\n    (--rows 100000 --hole-percent 40 --writers 4 --hold 0.8 "
        "--seconds 20), and --compare-mariadb measures MariaDB in the same run\n");
    return;
  }
  fmt::print("  inserts/s at least MariaDB's at each setting ({}):\n",
             measured ? runs[1].engine + ", measured in this run"
                      : std::string("the design brief's MariaDB 10.11 run, the same set-up"));
  for (const Cell& x : cells) {
    if (x.scenario != Scenario::kLongRead) continue;
    double maria = ReferenceFor(x.scenario, x.setting.value, x.holes).mariadb;
    if (measured) {
      const Cell* y = Find(runs[1].cells, x.scenario, x.setting.value, x.holes);
      maria = y != nullptr ? y->PerSecond(y->inserts) : NAN;
    }
    const double ratio = x.PerSecond(x.inserts) / maria;
    fmt::print("    {:<6} {:<12} minnow {:>9} MariaDB {:>9}  {}x: {}\n", x.setting.name,
               x.holes ? "with holes" : "no holes", Rate(x.PerSecond(x.inserts)), Rate(maria),
               Fixed(ratio, 2), std::isfinite(ratio) && ratio >= 1 ? "met" : "missed");
  }
}

bool WriteCsv(const Config& c, const OutputDir& out, const std::vector<EngineCells>& runs) {
  std::vector<std::vector<std::string>> rows;
  auto real = [](double v, int decimals) { return std::isfinite(v) ? Fixed(v, decimals) : ""; };
  auto median_per_cycle = [](const Cell& x) -> std::string {
    const std::vector<uint64_t>& n = x.inserts_per_long_select;
    if (n.empty()) return "";
    return Fixed(Median(std::vector<double>(n.begin(), n.end())), 1);
  };
  auto max_per_cycle = [](const Cell& x) -> std::string {
    const std::vector<uint64_t>& n = x.inserts_per_long_select;
    return n.empty() ? "" : std::to_string(*std::max_element(n.begin(), n.end()));
  };
  for (const EngineCells& run : runs) {
    for (const Cell& x : run.cells) {
      const bool oltp = x.scenario == Scenario::kOltp;
      const Reference ref = ReferenceFor(x.scenario, x.setting.value, x.holes);
      rows.push_back({run.engine,
                      oltp ? "oltp" : "long_read",
                      x.holes ? "1" : "0",
                      std::to_string(x.setting.value),
                      x.setting.name,
                      std::to_string(c.rows),
                      std::to_string(x.rows_deleted),
                      std::to_string(oltp ? c.oltp_sessions : c.writers + 1),
                      real(x.elapsed, 3),
                      std::to_string(x.transactions),
                      std::to_string(x.inserts),
                      std::to_string(x.point_selects),
                      std::to_string(x.range_selects),
                      std::to_string(x.long_selects),
                      real(x.PerSecond(x.transactions), 2),
                      real(x.PerSecond(x.inserts), 2),
                      real(Selects(x), 2),
                      real(Percentile(x.insert_ms, 50), 4),
                      real(Percentile(x.insert_ms, 95), 4),
                      real(Median(x.long_select_s), 4),
                      median_per_cycle(x),
                      max_per_cycle(x),
                      real(x.hold_alone, 4),
                      std::to_string(x.md5_depth),
                      std::to_string(x.table_locks_immediate),
                      std::to_string(x.table_locks_waited),
                      real(WaitsPerInsert(x), 4),
                      std::to_string(x.timeouts),
                      std::to_string(x.other_errors),
                      std::to_string(x.data_free_before),
                      std::to_string(x.data_free_after),
                      std::to_string(x.rows_after),
                      real(ref.w2, 2),
                      real(ref.w2_waited, 0),
                      real(ref.mariadb, 1),
                      real(ref.mariadb_per_insert, 2)});
    }
  }
  return out.WriteCsv("e3_concurrent_insert.csv",
                      {"engine",
                       "scenario",
                       "holes",
                       "concurrent_insert",
                       "setting",
                       "rows",
                       "rows_deleted",
                       "sessions",
                       "seconds",
                       "transactions",
                       "inserts",
                       "point_selects",
                       "range_selects",
                       "long_selects",
                       "tps",
                       "inserts_per_s",
                       "selects_per_s",
                       "insert_p50_ms",
                       "insert_p95_ms",
                       "long_select_median_s",
                       "inserts_per_long_select_median",
                       "inserts_per_long_select_max",
                       "long_select_alone_s",
                       "md5_depth",
                       "table_locks_immediate",
                       "table_locks_waited",
                       "waits_per_insert",
                       "lock_wait_timeouts",
                       "other_errors",
                       "data_free_before",
                       "data_free_after",
                       "rows_after",
                       "w2",
                       "w2_table_locks_waited",
                       "brief_mariadb_inserts_per_s",
                       "brief_mariadb_waits_per_insert"},
                      rows);
}

// Inserts/s per setting: (b) on a log scale with MariaDB's beside minnow's (measured in this
// run, else the design brief's), (a) linear.
void Plot(const Config& c, const OutputDir& out, const std::vector<EngineCells>& runs) {
  const std::vector<Cell>& cells = runs[0].cells;
  const bool measured = runs.size() > 1;
  std::vector<std::vector<std::string>> b, a;
  for (const Setting& s : kSettings) {
    std::vector<std::string> rb = {fmt::format("{} {}", s.value, s.name)}, ra = rb;
    for (const bool holes : {false, true}) {
      const Cell* x = Find(cells, Scenario::kLongRead, s.value, holes);
      rb.push_back(x != nullptr ? Fixed(x->PerSecond(x->inserts), 2) : "NaN");
      const Cell* y = Find(cells, Scenario::kOltp, s.value, holes);
      ra.push_back(y != nullptr ? Fixed(y->PerSecond(y->inserts), 2) : "NaN");
    }
    for (const bool holes : {false, true}) {
      if (measured) {
        const Cell* m = Find(runs[1].cells, Scenario::kLongRead, s.value, holes);
        rb.push_back(m != nullptr ? Fixed(m->PerSecond(m->inserts), 2) : "NaN");
        const Cell* n = Find(runs[1].cells, Scenario::kOltp, s.value, holes);
        ra.push_back(n != nullptr ? Fixed(n->PerSecond(n->inserts), 2) : "NaN");
      } else {
        rb.push_back(Fixed(ReferenceFor(Scenario::kLongRead, s.value, holes).mariadb, 1, "NaN"));
      }
    }
    b.push_back(rb);
    a.push_back(ra);
  }
  const std::string maria =
      measured ? runs[1].engine + ", this run" : "MariaDB 10.11 as recorded, 100,000 rows";
  const std::string a_maria =
      measured ? fmt::format(
                     ", '' using 4 title '{0}, no holes' noenhanced, '' using 5 title "
                     "'{0}, holes' noenhanced",
                     maria)
               : "";
  const std::string script =
      GnuplotData("b", b) + GnuplotData("a", a) +
      fmt::format(
          "set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.8 border -1\nset boxwidth 0.9\nset grid ytics\n"
          "set key below\nset xlabel 'concurrent_insert' noenhanced\nset ylabel 'inserts/s'\n"
          "set multiplot layout 1,2 title 'E3: concurrent insert on the table-locking engine, "
          "{} rows, holes: {}% deleted'\n"
          "set title '(b) {} writers beside {:g} s SELECTs (log scale)'\n"
          "set logscale y\nset yrange [0.5:*]\n"
          "plot $b using 2:xtic(1) title 'minnow, no holes', '' using 3 title 'minnow, holes', "
          "'' using 4 title '{}, no holes' noenhanced, '' using 5 title '{}, holes' noenhanced\n"
          "unset logscale y\nset yrange [0:*]\n"
          "set title '(a) {} OLTP sessions, short statements only'\n"
          "plot $a using 2:xtic(1) title 'minnow, no holes', '' using 3 title 'minnow, holes'{}\n"
          "unset multiplot\n",
          Commas(c.rows), c.hole_percent, c.writers, c.hold, maria, maria, c.oltp_sessions,
          a_maria);
  out.Plot("e3_concurrent_insert", 1400, 560, script);
}

}  // namespace

Reference ReferenceFor(Scenario scenario, int setting, bool holes) {
  Reference r;
  if (scenario == Scenario::kOltp) {
    if (!holes) r.w2 = setting == 0 ? 532.79 : 473.84;
    return r;
  }
  if (!holes) {
    r.w2 = setting == 0 ? 66.6 : 113.2;
    r.w2_waited = setting == 0 ? 390 : 20;
    r.mariadb_per_insert = setting == 0 ? 1.4 : 0.1;
  }
  constexpr double kMaria[2][3] = {{5.3, 23'892, 29'811}, {4.2, 4.4, 60.2}};
  r.mariadb = kMaria[holes ? 1 : 0][setting];
  return r;
}

bool Report(const Config& c, const std::vector<EngineCells>& runs) {
  for (const EngineCells& run : runs) {
    PrintOltp(c, run);
    PrintLongRead(c, run);
  }
  PrintTargets(c, runs);
  fmt::print("\n");
  const OutputDir out(c.out);
  const bool ok = WriteCsv(c, out, runs);
  Plot(c, out, runs);
  return ok;
}

}  // namespace minnow::experiments::e3
