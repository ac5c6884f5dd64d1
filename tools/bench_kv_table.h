#pragma once
// bench_kv's results and their one table (and CSV). A Row is one operation measured on one
// engine over several runs; the table shows minnow's median / min / max and median time, and
// beside it each other engine's median and the ratio minnow / other. Rows may open a section
// (a heading line in the table); a row's setting (the engine's durability setting) goes to the
// CSV, and a marked row's values carry the mark, explained in the engine's notes. Seconds() and
// Summarize() serve bench_locks too.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "minnow/status.h"

namespace minnow::bench {

// Runs `f`, stores its status in `*st` and returns the wall-clock seconds it took.
double Seconds(const std::function<Status()>& f, Status* st);

enum class Unit { kRowsPerSec, kOpsPerSec, kMiB, kCommitsPerSec, kCommitsPerSync, kMicros };

struct Row {
  std::string op;
  Unit unit = Unit::kRowsPerSec;
  std::vector<double> values;   // per run: a rate, or MiB, or commits per fsync
  std::vector<double> seconds;  // per run, rates only
  std::string section;          // printed as a heading before the first row of a section
  std::string setting;          // e.g. "synchronous=FULL"; empty where nothing is synced
  std::string mark;             // appended to the values in the table ("*"), see the notes
};

struct EngineResult {
  std::string engine;  // "minnow", "LMDB", "SQLite"
  std::vector<Row> rows;
  std::string bulk_note;
  std::vector<std::string> notes;  // printed under the table
};

// The row named `op`, added at the end (with `unit`) if absent.
Row& RowFor(EngineResult* r, const std::string& op, Unit unit);
// Adds one run's rate, count / secs, to the row named `op`.
Row& AddRate(EngineResult* r, const std::string& op, Unit unit, double count, double secs);

struct Summary {
  double median = 0, min = 0, max = 0;
};
Summary Summarize(std::vector<double> v);

// "1,638,400".
std::string Commas(uint64_t n);
// "1M", "200k", or Commas(n): for operation names.
std::string CountName(uint64_t n);

// Prints the table; engines[0] is minnow, the others are compared with it.
void PrintTable(std::FILE* out, const std::string& title, const std::vector<EngineResult>& engines);
// One line per (engine, operation):
//   engine,operation,unit,median,min,max,median_seconds,runs,setting
Status WriteCsv(const std::string& path, const std::vector<EngineResult>& engines);

}  // namespace minnow::bench
