// e1_lock_memory: experiment E1, W1's lock memory and scan modes through the SQL front.
//
//   e1_lock_memory [--rows N] [--runs R] [--pool-mib M] [--out DIR] [--compare-mariadb]
//
// Builds W1's table with W1's own statements (tools/experiments/w1_table.h) at N rows (default
// 200,000; W1's own size is 1,638,400), then runs W1's four queries, each in its own BEGIN ...
// ROLLBACK in one session, once to warm up and R times measured. After the warm-up run of each
// query the same transaction reads its locks from information_schema.innodb_trx (trx_lock_structs,
// trx_lock_memory_bytes, trx_rows_locked); while the share-mode scan's transaction is open it
// also reads SHOW ENGINE INNODB STATUS, whose TRANSACTIONS section is printed.
//
// What is compared with what: W1's 2006 figures and MariaDB 10.11's are of 1,638,400 rows, so
// times, lock structs and heap bytes are set beside minnow's only in a run of that size. At any
// size the program prints the figures that do not depend on it: the cost per row (bits of lock
// memory per locked row, ns per row) and each locking query's time over the plain scan's, both
// measured in one run, beside the same ratios of W1 and MariaDB.
//
// --compare-mariadb starts a private MariaDB server (mariadb_peer.h; Debian's mariadb-server) and
// runs the same load and queries there, the same way, after minnow's: its figures are then of
// the same row count and set beside minnow's at any size, in place of the recorded ones.
//
// Output: the tables on stdout, DIR/e1_lock_memory.csv (one row per query) and
// DIR/e1_lock_memory.png (bits per locked row, time and time over plain per mode).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/sql_engine.h"
#include "tools/experiments/experiment_common.h"
#include "tools/experiments/mariadb_peer.h"
#include "tools/experiments/sql_connection.h"
#include "tools/experiments/w1_table.h"

namespace minnow::experiments {
namespace {

constexpr const char* kProgram = "e1_lock_memory";

// A figure from a write-up (design brief, W1); NaN where the write-up gives none.
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
struct Reference {
  double seconds = kNone, structs = kNone, heap_bytes = kNone, bits_per_row = kNone;
};

struct QuerySpec {
  std::string id, sql;
  Reference w1;       // Percona 2006, 1,638,400 rows
  Reference mariadb;  // MariaDB 10.11 on a 2-core machine, 1,638,400 rows in memory
};

struct Query : QuerySpec {
  explicit Query(QuerySpec spec) : QuerySpec(std::move(spec)) {}
  // Measured.
  std::vector<double> seconds;
  uint64_t count = 0, lock_structs = 0, heap_bytes = 0, row_locks = 0;

  double median() const { return Median(seconds); }
  double bits_per_locked_row() const {
    return row_locks == 0 ? kNone : heap_bytes * 8.0 / static_cast<double>(row_locks);
  }
};

std::vector<Query> W1Queries() {
  // W1 divides heap bytes by the rows the query reads (1,638,400; 102,216 for LIKE); MariaDB's
  // share/update figure is over its 1,644,492 row locks, its LIKE figure over 102,467 rows.
  const QuerySpec specs[] = {
      {"plain", "SELECT count(i) FROM sample", {4.50, 0, 0, kNone}, {0.096, 0, 0, kNone}},
      {"share",
       "SELECT count(i) FROM sample LOCK IN SHARE MODE",
       {7.02, 6093, 503104, 2.46},
       {0.217, 6093, 843896, 843896 * 8.0 / 1644492}},
      {"update",
       "SELECT count(i) FROM sample FOR UPDATE",
       {8.60, 6093, 503104, 2.46},
       {0.226, 6093, 843896, 843896 * 8.0 / 1644492}},
      {"like",
       "SELECT count(*) FROM sample WHERE j LIKE \"5%\" LOCK IN SHARE MODE",
       {4.44, 441, 44352, 3.47},
       {0.025, 440, 73848, 73848 * 8.0 / 102467}},
  };
  return {specs, specs + std::size(specs)};
}

struct Config {
  uint64_t rows = 200'000;
  uint64_t runs = 25;
  uint64_t pool_mib = 1024;
  std::string out = "out";
  bool compare_mariadb = false;
};

// Where the MariaDB column's figures come from.
struct MariaDbSource {
  bool measured = false;  // in this run (--compare-mariadb), at Config::rows
  std::string version;    // the measured server's
  double load_seconds = 0;
  std::string label() const {
    return measured ? fmt::format("MariaDB {} (this run)", version)
                    : "MariaDB 10.11 (recorded: 2-core machine, 1,638,400 rows in memory)";
  }
};

// The TRANSACTIONS section of SHOW ENGINE INNODB STATUS, without its title lines.
std::string TransactionsSection(const std::string& status) {
  const std::string title = "\nTRANSACTIONS\n";
  size_t start = status.find(title);
  if (start == std::string::npos) return {};
  start = status.find('\n', start + title.size());  // past the rule under the title
  if (start == std::string::npos) return {};
  size_t end = status.find("\nFILE I/O\n", start);
  if (end == std::string::npos) return status.substr(start + 1);
  end = status.rfind('\n', end - 1);  // before the rule above the next title
  return status.substr(start + 1, end - start - 1);
}

// One run of `q` in its own transaction, rolled back. With `read_locks`, the same transaction
// then reads its locks from information_schema.innodb_trx (they are the same in every run:
// tests/sql/w1 asserts minnow's); with `status`, also SHOW ENGINE INNODB STATUS's TRANSACTIONS
// section. `record`: keep the time.
void RunQuery(SqlConnection* s, Query* q, bool record, bool read_locks, std::string* status) {
  s->Run("BEGIN");
  const auto start = std::chrono::steady_clock::now();
  const sql::StatementResult r = s->Run(q->sql);
  const double secs = SecondsSince(start);
  if (read_locks) {
    s->SettleStatusViews();
    const sql::StatementResult locks = s->Run(
        "SELECT trx_lock_structs, trx_lock_memory_bytes, trx_rows_locked FROM "
        "information_schema.innodb_trx WHERE trx_mysql_thread_id = CONNECTION_ID()");
    q->lock_structs = CellNumber(locks, 0, 0);
    q->heap_bytes = CellNumber(locks, 0, 1);
    q->row_locks = CellNumber(locks, 0, 2);
  }
  if (status != nullptr) {
    const sql::StatementResult st = s->Run("SHOW ENGINE INNODB STATUS");
    if (!st.rows.empty() && st.rows[0].size() >= 3 && st.rows[0][2]) {
      *status = TransactionsSection(*st.rows[0][2]);
    }
  }
  s->Run("ROLLBACK");
  q->count = CellNumber(r, 0, 0);
  if (record) q->seconds.push_back(secs);
}

std::string Num(double v) { return std::isfinite(v) ? Commas(static_cast<uint64_t>(v)) : "-"; }

void PrintTables(const Config& c, const std::vector<Query>& qs, const std::string& status,
                 const MariaDbSource& maria, double load_seconds) {
  const bool w1_scale = c.rows == kW1Rows;
  const double plain = qs[0].median();

  TextTable mine({"query", "rows", "time ms", "ns/row", "x plain", "lock structs", "heap bytes",
                  "row locks", "bits/locked row"});
  for (const Query& q : qs) {
    const double t = q.median();
    mine.AddRow({q.id, Commas(q.count), Fixed(t * 1e3, 3),
                 Fixed(t * 1e9 / std::max<uint64_t>(q.count, 1), 1), Fixed(t / plain, 2),
                 Commas(q.lock_structs), Commas(q.heap_bytes), Commas(q.row_locks),
                 Fixed(q.bits_per_locked_row(), 2)});
  }
  mine.Print(stdout, fmt::format("\nE1: W1's queries on minnow, {} rows, median of {} runs, each "
                                 "in BEGIN ... ROLLBACK (warm)",
                                 Commas(c.rows), c.runs));
  for (const Query& q : qs) fmt::print("  {:<7} {}\n", q.id, q.sql);

  if (w1_scale) {
    TextTable w1({"query", "minnow s", "W1 s", "MariaDB s", "minnow structs", "W1 structs",
                  "MariaDB structs", "minnow heap B", "W1 heap B", "MariaDB heap B", "minnow bits",
                  "W1 bits", "MariaDB bits"});
    for (const Query& q : qs) {
      w1.AddRow({q.id, Fixed(q.median(), 4), Fixed(q.w1.seconds, 2), Fixed(q.mariadb.seconds, 3),
                 Commas(q.lock_structs), Num(q.w1.structs), Num(q.mariadb.structs),
                 Commas(q.heap_bytes), Num(q.w1.heap_bytes), Num(q.mariadb.heap_bytes),
                 Fixed(q.bits_per_locked_row(), 2), Fixed(q.w1.bits_per_row, 2),
                 Fixed(q.mariadb.bits_per_row, 2)});
    }
    w1.Print(stdout, fmt::format("\nW1's table at its own 1,638,400 rows: minnow beside W1 (2006 "
                                 "box, SHOW INNODB STATUS) and {}",
                                 maria.label()));
  } else if (maria.measured) {
    TextTable both({"query", "minnow s", "MariaDB s", "minnow/MariaDB", "minnow structs",
                    "MariaDB structs", "minnow heap B", "MariaDB heap B", "minnow bits",
                    "MariaDB bits"});
    for (const Query& q : qs) {
      both.AddRow({q.id, Fixed(q.median(), 4), Fixed(q.mariadb.seconds, 4),
                   Fixed(q.median() / q.mariadb.seconds, 2), Commas(q.lock_structs),
                   Num(q.mariadb.structs), Commas(q.heap_bytes), Num(q.mariadb.heap_bytes),
                   Fixed(q.bits_per_locked_row(), 2), Fixed(q.mariadb.bits_per_row, 2)});
    }
    both.Print(stdout, fmt::format("\nminnow beside {}, both at {} rows, medians of {} runs",
                                   maria.label(), Commas(c.rows), c.runs));
  }
  if (maria.measured) {
    fmt::print("W1's load (its own statements): minnow {:.2f} s, MariaDB {:.2f} s ({} rows)\n",
               load_seconds, maria.load_seconds, Commas(c.rows));
  }

  TextTable ratios({"query", "minnow x plain", "W1 x plain", "MariaDB x plain",
                    "minnow bits/locked row", "W1 bits/row", "MariaDB bits/row"});
  for (const Query& q : qs) {
    ratios.AddRow({q.id, Fixed(q.median() / plain, 2), Fixed(q.w1.seconds / qs[0].w1.seconds, 2),
                   Fixed(q.mariadb.seconds / qs[0].mariadb.seconds, 2),
                   Fixed(q.bits_per_locked_row(), 2), Fixed(q.w1.bits_per_row, 2),
                   Fixed(q.mariadb.bits_per_row, 2)});
  }
  ratios.Print(stdout,
               fmt::format("\nFigures comparable at any row count: time over the plain "
                           "scan's in the same run, lock memory per locked row (minnow at {} "
                           "rows; W1 at 1,638,400; MariaDB at {})",
                           Commas(c.rows), maria.measured ? Commas(c.rows) : "1,638,400"));

  fmt::print(
      "bits per locked row: heap bytes x 8 / row locks (W1's figures: / rows read; MariaDB's "
      "LIKE figure: / rows counted)\n");

  fmt::print(
      "\nSHOW ENGINE INNODB STATUS, TRANSACTIONS, read while the share-mode scan's transaction "
      "is open ({} rows):\n",
      Commas(c.rows));
  if (status.empty()) {
    fmt::print("  (no TRANSACTIONS section found)\n");
  } else {
    size_t pos = 0;
    while (pos < status.size()) {
      const size_t nl = status.find('\n', pos);
      const size_t end = nl == std::string::npos ? status.size() : nl;
      fmt::print("  | {}\n", status.substr(pos, end - pos));
      pos = end + 1;
    }
  }
  fmt::print(
      "W1's SHOW INNODB STATUS (1,638,400 rows): \"Total number of lock structs in row lock hash "
      "table 6092\", \"6093 lock struct(s), heap size 503104\"\n");
}

bool WriteOutputs(const Config& c, const std::vector<Query>& qs, const MariaDbSource& maria) {
  const OutputDir out(c.out);
  const double plain = qs[0].median();
  std::vector<std::vector<std::string>> rows;
  for (const Query& q : qs) {
    auto g = [](double v) { return std::isfinite(v) ? fmt::format("{:g}", v) : std::string(); };
    rows.push_back({q.id,
                    q.sql,
                    std::to_string(c.rows),
                    std::to_string(q.count),
                    std::to_string(q.seconds.size()),
                    fmt::format("{:.6f}", q.median()),
                    fmt::format("{:.2f}", q.median() * 1e9 / std::max<uint64_t>(q.count, 1)),
                    fmt::format("{:.3f}", q.median() / plain),
                    std::to_string(q.lock_structs),
                    std::to_string(q.heap_bytes),
                    std::to_string(q.row_locks),
                    g(q.bits_per_locked_row()),
                    g(q.w1.seconds),
                    g(q.w1.structs),
                    g(q.w1.heap_bytes),
                    g(q.w1.bits_per_row),
                    g(q.mariadb.seconds),
                    g(q.mariadb.structs),
                    g(q.mariadb.heap_bytes),
                    g(q.mariadb.bits_per_row),
                    maria.measured ? std::to_string(c.rows) : std::to_string(kW1Rows),
                    maria.measured ? "this run" : "recorded"});
  }
  const bool csv = out.WriteCsv("e1_lock_memory.csv",
                                {"query",
                                 "sql",
                                 "table_rows",
                                 "rows_counted",
                                 "runs",
                                 "median_seconds",
                                 "ns_per_row",
                                 "x_plain",
                                 "lock_structs",
                                 "heap_bytes",
                                 "row_locks",
                                 "bits_per_locked_row",
                                 "w1_seconds",
                                 "w1_lock_structs",
                                 "w1_heap_bytes",
                                 "w1_bits_per_row",
                                 "mariadb_seconds",
                                 "mariadb_lock_structs",
                                 "mariadb_heap_bytes",
                                 "mariadb_bits_per_row",
                                 "mariadb_rows",
                                 "mariadb_source"},
                                rows);

  // The plot: three bar charts over the four queries.
  std::vector<std::vector<std::string>> data;
  for (const Query& q : qs) {
    auto v = [](double x) { return std::isfinite(x) ? fmt::format("{:.4g}", x) : "NaN"; };
    data.push_back({q.id, v(q.bits_per_locked_row()), v(q.w1.bits_per_row),
                    v(q.mariadb.bits_per_row), v(q.median() * 1e3), v(q.median() / plain),
                    v(q.w1.seconds / qs[0].w1.seconds),
                    v(q.mariadb.seconds / qs[0].mariadb.seconds)});
  }
  std::string script = GnuplotData("e1", data);
  script += fmt::format(
      "set style data histograms\nset style histogram clustered gap 1\n"
      "set style fill solid 0.8 border -1\nset boxwidth 0.9\nset grid ytics\n"
      "set key top left\nset yrange [0:*]\n"
      "set multiplot layout 1,3 title 'E1: W1''s queries, minnow at {} rows (W1 at 1,638,400, "
      "{})'\n"
      "set title 'lock memory per locked row'\nset ylabel 'bits'\n"
      "plot $e1 using 2:xtic(1) title 'minnow', '' using 3 title 'W1 2006', "
      "'' using 4 title 'MariaDB 10.11'\n"
      "set title 'time per query (minnow, median of {})'\nset ylabel 'ms'\n"
      "plot $e1 using 5:xtic(1) title 'minnow'\n"
      "set title 'time over the plain scan (same run)'\nset ylabel 'x plain'\n"
      "plot $e1 using 6:xtic(1) title 'minnow', '' using 7 title 'W1 2006', "
      "'' using 8 title 'MariaDB 10.11'\n"
      "unset multiplot\n",
      Commas(c.rows),
      maria.measured ? fmt::format("MariaDB {} in this run at {}", maria.version, Commas(c.rows))
                     : std::string("MariaDB recorded at 1,638,400"),
      c.runs);
  out.Plot("e1_lock_memory", 1500, 500, script);
  return csv;
}

// Loads W1's table through `conn` with W1's statements; the seconds it took.
double LoadTable(SqlConnection* conn, uint64_t rows) {
  Progress(fmt::format("loading W1's table on {}, {} rows, with W1's statements", conn->name(),
                       Commas(rows)));
  const auto load_start = std::chrono::steady_clock::now();
  auto last = load_start;
  LoadW1Table(conn, rows, [&](uint64_t have) {
    if (SecondsSince(last) < 2) return;
    last = std::chrono::steady_clock::now();
    Progress(fmt::format("  {} of {} rows", Commas(have), Commas(rows)));
  });
  const double secs = SecondsSince(load_start);
  Progress(
      fmt::format("loaded {} rows in {:.2f} s ({:.0f} rows/s)", Commas(rows), secs, rows / secs));
  return secs;
}

// Runs each query once to warm up (reading its locks), then `runs` times measured, the queries
// interleaved.
void TimeQueries(SqlConnection* conn, uint64_t runs, std::vector<Query>* qs,
                 std::string* share_status) {
  for (Query& q : *qs) {
    RunQuery(conn, &q, /*record=*/false, /*read_locks=*/true,
             q.id == "share" ? share_status : nullptr);
  }
  Progress(fmt::format("warm; timing {} runs of each query on {}", runs, conn->name()));
  for (uint64_t run = 0; run < runs; ++run) {
    for (Query& q : *qs) RunQuery(conn, &q, /*record=*/true, /*read_locks=*/false, nullptr);
  }
}

// The same load and queries on a private MariaDB server; its figures replace the recorded ones.
bool MeasureMariaDb(const Config& c, std::vector<Query>* qs, MariaDbSource* maria) {
  std::unique_ptr<MariaDbPeer> peer = MariaDbPeer::Start(kProgram, c.pool_mib);
  if (peer == nullptr) return false;
  std::unique_ptr<MariaDbConnection> conn = peer->Connect();
  maria->load_seconds = LoadTable(conn.get(), c.rows);
  std::vector<Query> theirs = W1Queries();
  TimeQueries(conn.get(), c.runs, &theirs, nullptr);
  for (size_t k = 0; k < qs->size(); ++k) {
    const Query& t = theirs[k];
    (*qs)[k].mariadb = {t.median(), static_cast<double>(t.lock_structs),
                        static_cast<double>(t.heap_bytes), t.bits_per_locked_row()};
  }
  maria->measured = true;
  maria->version = peer->version();
  return true;
}

int Main(const Config& c) {
  MemoryEngine m;
  if (!OpenMemoryEngine(c.pool_mib, kProgram, &m)) return 1;
  std::unique_ptr<sql::SqlSession> s = m.engine->NewSession();
  MinnowConnection conn(s.get(), kProgram);
  const double load_seconds = LoadTable(&conn, c.rows);

  std::vector<Query> qs = W1Queries();
  std::string status;
  TimeQueries(&conn, c.runs, &qs, &status);
  MariaDbSource maria;
  if (c.compare_mariadb && !MeasureMariaDb(c, &qs, &maria)) return 1;
  PrintTables(c, qs, status, maria, load_seconds);
  fmt::print("\n");
  return WriteOutputs(c, qs, maria) ? 0 : 1;
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
       .help = "rows of W1's table (W1: 1638400)"},
      {.name = "runs", .u64 = &c.runs, .min = 1, .max = 999, .help = "measured runs per query"},
      minnow::experiments::PoolMibFlag(&c.pool_mib),
      minnow::experiments::OutFlag(&c.out),
      minnow::experiments::CompareMariaDbFlag(&c.compare_mariadb),
  };
  if (!minnow::experiments::ParseFlags(argc, argv, "e1_lock_memory", flags)) return 2;
  return minnow::experiments::Main(c);
}
