#pragma once
// What the experiment programs share: their flags, an aligned text table, CSV files and PNG plots
// in one output directory, progress lines for long steps, medians and percentiles.
//
// Plots are drawn by gnuplot (Debian package `gnuplot`), run as a child process on a script the
// experiment writes beside the PNG. Where gnuplot is missing or fails, the PNG is not written and
// the program says so; a plot is never made up some other way.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::experiments {

// ---- Flags -------------------------------------------------------------------------------

// One `--name VALUE` flag, or a `--name` switch (`toggle`); exactly one of the targets is set.
struct Flag {
  std::string name;  // without the leading "--"
  uint64_t* u64 = nullptr;
  double* real = nullptr;
  std::string* text = nullptr;
  bool* toggle = nullptr;   // set to true by `--name`, which takes no value
  double min = 0, max = 0;  // accepted range of a number (inclusive)
  std::string help;         // e.g. "rows of W1's table"
};

// The flags the experiments share.
Flag PoolMibFlag(uint64_t* mib);    // --pool-mib M: the buffer pool in MiB (8 to 1 Mi)
Flag OutFlag(std::string* dir);     // --out DIR: the directory for the CSV and PNG files
Flag CompareMariaDbFlag(bool* on);  // --compare-mariadb: also run on a private MariaDB server

// Parses argv as `--name VALUE` pairs and `--name` switches. On an unknown flag, a missing value or
// a number out of its range prints the usage (built from `flags`) to stderr and returns false.
bool ParseFlags(int argc, char** argv, const char* program, const std::vector<Flag>& flags);

// ---- Numbers -----------------------------------------------------------------------------

// The median of `v` (the mean of the middle two for an even count); 0 for none.
double Median(std::vector<double> v);
// The p-th percentile (0..100) of `v`, nearest rank; 0 for none.
double Percentile(std::vector<double> v, double p);
// "1,638,400".
std::string Commas(uint64_t n);
// `v` with `decimals` decimals, or `dash` where `v` is not a number (a ratio over zero).
std::string Fixed(double v, int decimals, std::string_view dash = "-");

// Seconds since `start` on the steady clock.
double SecondsSince(std::chrono::steady_clock::time_point start);
// The calling thread's CPU time so far (user + system), in seconds.
double ThreadCpuSeconds();

// ---- Output ------------------------------------------------------------------------------

// A text table with one header line; the first column is left-aligned, the others right-aligned
// (numbers). Rows shorter than the header are padded with empty cells.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Prints `title` (if not empty), the header, a rule and the rows.
  void Print(std::FILE* out, std::string_view title = {}) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// The directory CSV and PNG files go to, created on first use.
class OutputDir {
 public:
  explicit OutputDir(std::string dir) : dir_(std::move(dir)) {}
  // dir/name; creates dir. Returns an empty string (after printing why) if it cannot be made.
  std::string Path(std::string_view name) const;
  // Writes a CSV file dir/name: `header`, then `rows` (fields holding a comma, a quote or a
  // newline are quoted, RFC 4180). Prints what it wrote, or why it could not; false on failure.
  bool WriteCsv(std::string_view name, const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows) const;
  // Draws dir/<name>.png with gnuplot from `script` (data and plot commands; the terminal and
  // output lines are prepended here), keeping the script as dir/<name>.gp. Prints the PNG's
  // path, or that gnuplot is missing or failed and the PNG was skipped. True iff it was written.
  bool Plot(std::string_view name, int width, int height, const std::string& script) const;

 private:
  std::string dir_;
};

// A gnuplot datablock `$name << EOD ... EOD` of whitespace-separated `rows`; cells are quoted
// when they are not numbers, so labels may hold spaces.
std::string GnuplotData(std::string_view name, const std::vector<std::vector<std::string>>& rows);

// Progress of a long step, one line at a time on stdout (flushed), with the seconds since the
// program started: "  [  3.2 s] loading: 409,600 of 1,638,400 rows".
void Progress(std::string_view what);

// The embedded default database every experiment runs on: ":memory:" with a pool of
// `pool_mib` MiB, and the SQL front over it. Members in destruction order: the engine goes
// before the database.
struct MemoryEngine {
  std::unique_ptr<Database> db;
  std::unique_ptr<sql::SqlEngine> engine;
};
// Opens one; on failure prints the error after `program`'s name and returns false.
bool OpenMemoryEngine(uint64_t pool_mib, const char* program, MemoryEngine* out);

}  // namespace minnow::experiments
