#pragma once
// bench_kv's results and their one table (and CSV). A Row is one operation measured on one
// engine over several runs; the table shows minnow's median / min / max and median time, and
// beside it each other engine's median and the ratio minnow / other.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "minnow/status.h"

namespace minnow::bench {

enum class Unit { kRowsPerSec, kOpsPerSec, kMiB };

struct Row {
  std::string op;
  Unit unit = Unit::kRowsPerSec;
  std::vector<double> values;   // per run: a rate, or MiB
  std::vector<double> seconds;  // per run, rates only
};

struct EngineResult {
  std::string engine;  // "minnow", "LMDB", "SQLite"
  std::vector<Row> rows;
  std::string bulk_note;
};

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
// One line per (engine, operation): engine,operation,unit,median,min,max,median_seconds,runs.
Status WriteCsv(const std::string& path, const std::vector<EngineResult>& engines);

}  // namespace minnow::bench
