// bench_parse: how a multi-row INSERT ... VALUES scales with its rows, as a mysqldump file
// sends them.
//
//   bench_parse [--max-rows N] [--runs R] [--memory]
//
// For statements of 1,000, 10,000, ... up to N rows (default 100,000) of mysqldump-shaped
// tuples, (k,'name-k',k*0.5,NULL), it measures, R times each (median printed):
//   split    the shell's StatementSplitter finding the statement's end in the text,
//   parse    Parse() building the statement's tree,
//   execute  the whole statement through a SQL session (parse, bind, insert) into an empty
//            InnoDB table of an in-memory database,
// each as ns per row, and the heap the parsed tree holds per byte of SQL (heap_counter.h).
// Target: linear time, i.e. ns per row at the largest size within 2x of the 10,000-row figure
// for each phase (the smallest size is there to show start-up costs, not judged). Sizes are
// compared only with each other, in one run.
//
// --memory instead measures, once per size, the peak heap each phase adds above what was live
// before it, per byte of SQL (the statement's text itself, made before, is not counted), and
// what it leaves live after it: heap_counter.h counts every operator new block at its
// malloc_usable_size from allocation to release. Execute's peak includes the session's copy
// of the statement text (SHOW PROCESSLIST's Info) and the table's pages and undo the rows
// create; its "kept" column is what stays after the statement (the table's data). Target:
// parse and execute peaks at most about 3 bytes per SQL byte. It also prints the statement's
// rows per second through the session (one run, so a rough figure: use the timing mode).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/parse/parser.h"
#include "sql_lite_front/sql_engine.h"
#include "tools/experiments/experiment_common.h"
#include "tools/heap_counter.h"

namespace minnow::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Config {
  uint64_t max_rows = 100'000;
  int runs = 3;
  bool memory = false;
};

bool ParseArgs(int argc, char** argv, Config* c) {
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--memory") {
      c->memory = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) return false;
    char* end = nullptr;
    const uint64_t n = std::strtoull(argv[i + 1], &end, 10);
    if (*argv[i + 1] == '\0' || *end != '\0') return false;
    if (a == "--max-rows" && n >= 1000 && n <= 10'000'000) {
      c->max_rows = n;
    } else if (a == "--runs" && n > 0 && n < 100) {
      c->runs = static_cast<int>(n);
    } else {
      return false;
    }
  }
  return true;
}

std::string InsertOf(uint64_t rows) {
  std::string sql = "INSERT INTO t VALUES ";
  sql.reserve(rows * 32);
  for (uint64_t k = 0; k < rows; ++k) {
    if (k != 0) sql += ',';
    sql += fmt::format("({},'name-{}',{}.5,NULL)", k, k, k / 2);
  }
  return sql + ";\n";
}

using experiments::Median;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// An in-memory database, a SQL engine over it and a session in which the empty table t is made.
struct Target {
  std::unique_ptr<Database> db;
  std::unique_ptr<sql::SqlEngine> engine;
  std::unique_ptr<sql::SqlSession> session;

  ~Target() {
    session.reset();
    engine.reset();
    if (db != nullptr) (void)db->Close();
  }
};

// False (with a message) if the database, the engine or the table cannot be made.
bool OpenTarget(Target* t) {
  auto db = Database::Open({.path = ":memory:"});
  if (!db.ok()) {
    std::fprintf(stderr, "bench_parse: %s\n", db.status().ToString().c_str());
    return false;
  }
  t->db = std::move(*db);
  auto engine = sql::SqlEngine::Open(t->db.get());
  if (!engine.ok()) {
    std::fprintf(stderr, "bench_parse: %s\n", engine.error().ToString().c_str());
    return false;
  }
  t->engine = std::move(*engine);
  t->session = t->engine->NewSession();
  auto made = t->session->Execute(
      "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(40), score DOUBLE, note TEXT)");
  if (!made.ok()) {
    std::fprintf(stderr, "bench_parse: %s\n", made.error().ToString().c_str());
    return false;
  }
  return true;
}

struct Figures {
  uint64_t rows = 0;
  size_t sql_bytes = 0;
  double split_ns = 0, parse_ns = 0, execute_ns = 0;  // per row, medians
  double tree_bytes_per_sql_byte = 0;
};

// Runs one size; false (with a message) if a statement fails.
bool Measure(uint64_t rows, int runs, Figures* f) {
  const std::string sql = InsertOf(rows);
  f->rows = rows;
  f->sql_bytes = sql.size();
  std::vector<double> split, parse, execute;
  for (int run = 0; run < runs; ++run) {
    auto t0 = Clock::now();
    sql::StatementSplitter splitter;
    splitter.Feed(sql);
    std::string stmt;
    sql::StatementSplitter::Terminator term;
    if (!splitter.Next(&stmt, &term)) {
      std::fprintf(stderr, "bench_parse: the splitter found no statement\n");
      return false;
    }
    split.push_back(Seconds(t0));

    const size_t heap_before = heap::LiveBytes();
    t0 = Clock::now();
    sql::SqlResult<sql::Statement> parsed = sql::Parse(stmt);
    parse.push_back(Seconds(t0));
    if (!parsed.ok()) {
      std::fprintf(stderr, "bench_parse: %s\n", parsed.error().ToString().c_str());
      return false;
    }
    const size_t heap_after = heap::LiveBytes();
    f->tree_bytes_per_sql_byte =
        heap_after > heap_before ? static_cast<double>(heap_after - heap_before) / sql.size() : 0;
  }
  for (int run = 0; run < runs; ++run) {
    Target target;
    if (!OpenTarget(&target)) return false;
    const auto t0 = Clock::now();
    auto r = target.session->Execute(sql);
    execute.push_back(Seconds(t0));
    if (!r.ok()) {
      std::fprintf(stderr, "bench_parse: %s\n", r.error().ToString().c_str());
      return false;
    }
  }
  f->split_ns = Median(split) * 1e9 / rows;
  f->parse_ns = Median(parse) * 1e9 / rows;
  f->execute_ns = Median(execute) * 1e9 / rows;
  return true;
}

// --memory: one size's heap figures, per SQL byte.
struct MemoryFigures {
  uint64_t rows = 0;
  size_t sql_bytes = 0;
  double split_peak = 0, parse_peak = 0, tree = 0, execute_peak = 0, execute_kept = 0;
  double rows_per_second = 0;
};

bool MeasureMemory(uint64_t rows, MemoryFigures* f) {
  const std::string sql = InsertOf(rows);
  f->rows = rows;
  f->sql_bytes = sql.size();
  const double bytes = static_cast<double>(sql.size());
  auto growth = [](size_t before, size_t after) {
    return after > before ? static_cast<double>(after - before) : 0.0;
  };
  std::string stmt;
  {
    const size_t before = heap::LiveBytes();
    heap::ResetPeak();
    sql::StatementSplitter splitter;
    splitter.Feed(sql);
    sql::StatementSplitter::Terminator term;
    if (!splitter.Next(&stmt, &term)) {
      std::fprintf(stderr, "bench_parse: the splitter found no statement\n");
      return false;
    }
    f->split_peak = growth(before, heap::PeakBytes()) / bytes;
  }
  {
    const size_t before = heap::LiveBytes();
    heap::ResetPeak();
    sql::SqlResult<sql::Statement> parsed = sql::Parse(stmt);
    if (!parsed.ok()) {
      std::fprintf(stderr, "bench_parse: %s\n", parsed.error().ToString().c_str());
      return false;
    }
    f->parse_peak = growth(before, heap::PeakBytes()) / bytes;
    f->tree = growth(before, heap::LiveBytes()) / bytes;
  }
  stmt.clear();
  stmt.shrink_to_fit();
  Target target;
  if (!OpenTarget(&target)) return false;
  const size_t before = heap::LiveBytes();
  heap::ResetPeak();
  const auto t0 = Clock::now();
  auto r = target.session->Execute(sql);
  const double seconds = Seconds(t0);
  if (!r.ok()) {
    std::fprintf(stderr, "bench_parse: %s\n", r.error().ToString().c_str());
    return false;
  }
  f->execute_peak = growth(before, heap::PeakBytes()) / bytes;
  f->execute_kept = growth(before, heap::LiveBytes()) / bytes;
  f->rows_per_second = static_cast<double>(rows) / seconds;
  return true;
}

int MainMemory(const Config& c) {
  std::vector<MemoryFigures> all;
  for (uint64_t rows = 1000;; rows = std::min(rows * 10, c.max_rows)) {
    MemoryFigures f;
    if (!MeasureMemory(rows, &f)) return 1;
    all.push_back(f);
    if (rows == c.max_rows) break;
  }
  fmt::print("multi-row INSERT ... VALUES, heap bytes per SQL byte (peak above the start; kept)\n");
  fmt::print("{:>10} {:>12} {:>11} {:>11} {:>11} {:>13} {:>13} {:>12}\n", "rows", "SQL bytes",
             "split peak", "parse peak", "tree kept", "execute peak", "execute kept",
             "exec rows/s");
  for (const MemoryFigures& f : all) {
    fmt::print("{:>10} {:>12} {:>11.2f} {:>11.2f} {:>11.2f} {:>13.2f} {:>13.2f} {:>12.0f}\n",
               f.rows, f.sql_bytes, f.split_peak, f.parse_peak, f.tree, f.execute_peak,
               f.execute_kept, f.rows_per_second);
  }
  return 0;
}

int Main(const Config& c) {
  if (c.memory) return MainMemory(c);
  std::vector<Figures> all;
  for (uint64_t rows = 1000; rows <= c.max_rows; rows *= 10) {
    Figures f;
    if (!Measure(rows, c.runs, &f)) return 1;
    all.push_back(f);
  }
  if (all.back().rows != c.max_rows) {
    Figures f;
    if (!Measure(c.max_rows, c.runs, &f)) return 1;
    all.push_back(f);
  }
  fmt::print("multi-row INSERT ... VALUES, ns per row (median of {} runs)\n", c.runs);
  fmt::print("{:>10} {:>12} {:>10} {:>10} {:>10} {:>16}\n", "rows", "SQL bytes", "split", "parse",
             "execute", "tree B/SQL B");
  for (const Figures& f : all) {
    fmt::print("{:>10} {:>12} {:>10.1f} {:>10.1f} {:>10.1f} {:>16.1f}\n", f.rows, f.sql_bytes,
               f.split_ns, f.parse_ns, f.execute_ns, f.tree_bytes_per_sql_byte);
  }
  if (all.size() < 3) {
    fmt::print("(linearity is judged from 10,000 rows to a larger size: use --max-rows 100000)\n");
    return 0;
  }
  const Figures& base = all[1];
  const Figures& top = all.back();
  bool met = true;
  for (auto [name, b, t] : {std::tuple{"split", base.split_ns, top.split_ns},
                            std::tuple{"parse", base.parse_ns, top.parse_ns},
                            std::tuple{"execute", base.execute_ns, top.execute_ns}}) {
    const double ratio = t / b;
    met = met && ratio <= 2.0;
    fmt::print("{:<8} ns/row at {} rows / at {} rows: {:.2f}x (target <= 2x: {})\n", name, top.rows,
               base.rows, ratio, ratio <= 2.0 ? "met" : "NOT met");
  }
  fmt::print("linear in the rows: {}\n", met ? "yes" : "no");
  return 0;
}

}  // namespace
}  // namespace minnow::bench

int main(int argc, char** argv) {
  minnow::bench::Config c;
  if (!minnow::bench::ParseArgs(argc, argv, &c)) {
    std::fprintf(stderr, "usage: bench_parse [--max-rows N] [--runs R] [--memory]\n");
    return 2;
  }
  return minnow::bench::Main(c);
}
