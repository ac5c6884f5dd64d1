// bench_cold_scan: a cold process's first full scan of W1's table against its second (warm) one.
//
//   bench_cold_scan [--rows N] [--runs R] [--pool-mib M] [--dir DIR] [--keep]
//
// Builds W1's table (bench_sql's load: W1's own statements, tools/experiments/w1_table.h) in the
// file DIR/bench_cold_scan.db (default DIR /tmp), closes the database, and then R times, with
// read-ahead off (before) and on (after, Options::read_ahead) and for each way of finding the
// file: opens it in a fresh Database (an empty buffer pool: the process is cold) and runs SELECT
// count(i) FROM sample twice, timing each and counting the pages the buffer pool read for it,
// the read requests it made to the file and the pages read ahead. The ways:
//   os-cached   the file is read once beforehand, so its pages sit in the OS page cache;
//   os-dropped  posix_fadvise(POSIX_FADV_DONTNEED) on the data file first, so they do not (the
//               tool checks with mincore() how many pages stayed resident and prints it: a
//               filesystem may ignore the advice).
// Prints the median of each, and cold / warm. The file is removed at the end (kept with --keep).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/sql_engine.h"
#include "tools/experiments/experiment_common.h"
#include "tools/experiments/w1_table.h"

namespace minnow::bench {
namespace {

struct Config {
  uint64_t rows = experiments::kW1Rows;
  uint64_t runs = 3;
  uint64_t pool_mib = 256;
  std::string dir = "/tmp";
  bool keep = false;
};

bool ParseArgs(int argc, char** argv, Config* c) {
  using experiments::Flag;
  return experiments::ParseFlags(
      argc, argv, "bench_cold_scan",
      {Flag{.name = "rows",
            .u64 = &c->rows,
            .min = 100,
            .max = (1ull << 31) - 1,
            .help = "rows of W1's table"},
       Flag{.name = "runs", .u64 = &c->runs, .min = 1, .max = 999, .help = "runs of each case"},
       experiments::PoolMibFlag(&c->pool_mib),
       Flag{.name = "dir", .text = &c->dir, .help = "directory of the database file"},
       Flag{.name = "keep", .toggle = &c->keep, .help = "keep the database file"}});
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_cold_scan: %s\n", what.c_str());
  std::exit(1);
}

using experiments::Commas;
using experiments::Median;

void RemoveDatabase(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", ".dblwr", ".redo"}) std::filesystem::remove_all(path + suffix, ec);
}

// Pages of the file resident in the OS page cache, and the file's pages (mincore).
std::pair<uint64_t, uint64_t> Resident(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Die(path + ": open failed");
  struct stat st;
  if (::fstat(fd, &st) != 0) Die(path + ": fstat failed");
  const size_t len = static_cast<size_t>(st.st_size);
  const size_t os_page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t pages = (len + os_page - 1) / os_page;
  uint64_t resident = 0;
  void* map = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
  if (map != MAP_FAILED) {
    std::vector<unsigned char> vec(pages);
    if (::mincore(map, len, vec.data()) == 0) {
      for (unsigned char b : vec) resident += b & 1;
    }
    ::munmap(map, len);
  }
  ::close(fd);
  return {resident, pages};
}

// Puts the whole file in the OS page cache (read it) or drops it from there (DONTNEED).
void SetOsCache(const std::string& path, bool cached) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Die(path + ": open failed");
  if (cached) {
    std::vector<char> buf(1 << 20);
    off_t off = 0;
    for (ssize_t n; (n = ::pread(fd, buf.data(), buf.size(), off)) > 0;) off += n;
  } else {
    ::fdatasync(fd);
    if (::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) Die(path + ": posix_fadvise failed");
  }
  ::close(fd);
}

struct ScanFigures {
  double seconds = 0;
  uint64_t pages_read = 0, read_calls = 0, read_ahead = 0, read_ahead_evicted = 0, rows = 0;
};

struct Case {
  std::string name;
  bool read_ahead = false;
  bool os_cached = true;
  std::vector<double> cold, warm;
  ScanFigures cold_last, warm_last;  // counters of the last run (the same in every run)
  uint64_t resident = 0, file_pages = 0;
};

ScanFigures TimedCount(Database* db, sql::SqlSession* s) {
  const DatabaseStats before = db->stats();
  const auto t0 = std::chrono::steady_clock::now();
  const sql::StatementResult r =
      experiments::MustRun(s, "SELECT count(i) FROM sample", "bench_cold_scan");
  const auto t1 = std::chrono::steady_clock::now();
  const DatabaseStats after = db->stats();
  ScanFigures f;
  f.seconds = std::chrono::duration<double>(t1 - t0).count();
  f.pages_read = after.pool_reads - before.pool_reads;
  f.read_calls = after.pool_read_calls - before.pool_read_calls;
  f.read_ahead = after.pool_read_ahead - before.pool_read_ahead;
  f.read_ahead_evicted = after.pool_read_ahead_evicted - before.pool_read_ahead_evicted;
  f.rows = r.rows.empty() || !r.rows[0][0] ? 0 : std::strtoull(r.rows[0][0]->c_str(), nullptr, 10);
  return f;
}

Options DbOptions(const Config& c, const std::string& path, bool read_ahead) {
  Options o{.path = path};
  o.buffer_pool_bytes = c.pool_mib << 20;
  o.read_ahead = read_ahead;
  return o;
}

// One cold open and its two scans.
void RunCase(const Config& c, const std::string& path, Case* k) {
  SetOsCache(path, k->os_cached);
  std::tie(k->resident, k->file_pages) = Resident(path);
  Result<std::unique_ptr<Database>> db = Database::Open(DbOptions(c, path, k->read_ahead));
  if (!db.ok()) Die(db.status().ToString());
  {
    sql::SqlResult<std::unique_ptr<sql::SqlEngine>> engine = sql::SqlEngine::Open(db->get());
    if (!engine.ok()) Die(engine.error().ToString());
    std::unique_ptr<sql::SqlSession> s = (*engine)->NewSession();
    k->cold_last = TimedCount(db->get(), s.get());
    k->warm_last = TimedCount(db->get(), s.get());
    if (k->cold_last.rows != c.rows || k->warm_last.rows != c.rows) {
      Die(fmt::format("count(i) returned {} and {}, not {}", k->cold_last.rows, k->warm_last.rows,
                      c.rows));
    }
    k->cold.push_back(k->cold_last.seconds);
    k->warm.push_back(k->warm_last.seconds);
  }
  if (Status st = (*db)->Close(); !st.ok()) Die(st.ToString());
}

int Main(const Config& c) {
  const std::string path = c.dir + "/bench_cold_scan.db";
  RemoveDatabase(path);
  {
    Result<std::unique_ptr<Database>> db = Database::Open(DbOptions(c, path, true));
    if (!db.ok()) Die(db.status().ToString());
    {
      sql::SqlResult<std::unique_ptr<sql::SqlEngine>> engine = sql::SqlEngine::Open(db->get());
      if (!engine.ok()) Die(engine.error().ToString());
      std::unique_ptr<sql::SqlSession> s = (*engine)->NewSession();
      const auto t0 = std::chrono::steady_clock::now();
      experiments::LoadW1Table(s.get(), c.rows, "bench_cold_scan");
      fmt::print("loaded {} rows into {} in {:.2f} s\n", Commas(c.rows), path,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    if (Status st = (*db)->Close(); !st.ok()) Die(st.ToString());
  }
  std::vector<Case> cases = {
      {.name = "os-cached", .read_ahead = false, .os_cached = true},
      {.name = "os-cached", .read_ahead = true, .os_cached = true},
      {.name = "os-dropped", .read_ahead = false, .os_cached = false},
      {.name = "os-dropped", .read_ahead = true, .os_cached = false},
  };
  for (uint64_t run = 0; run < c.runs; ++run) {
    for (Case& k : cases) RunCase(c, path, &k);
  }
  fmt::print(
      "\nSELECT count(i) FROM sample, {} rows, first scan of a fresh process (cold) and second "
      "(warm), median of {} runs\n",
      Commas(c.rows), c.runs);
  fmt::print("{:<11} {:<10} {:>17} {:>8} {:>8} {:>9} {:>10} {:>10} {:>10} {:>9} {:>10}\n", "file",
             "read-ahead", "OS-resident pages", "cold s", "warm s", "cold/warm", "pages read",
             "read calls", "read ahead", "evicted", "warm reads");
  for (const Case& k : cases) {
    const double cold = Median(k.cold), warm = Median(k.warm);
    fmt::print(
        "{:<11} {:<10} {:>17} {:>8.4f} {:>8.4f} {:>8.2f}x {:>10} {:>10} {:>10} {:>9} {:>10}\n",
        k.name, k.read_ahead ? "on" : "off",
        fmt::format("{}/{}", Commas(k.resident), Commas(k.file_pages)), cold, warm, cold / warm,
        Commas(k.cold_last.pages_read), Commas(k.cold_last.read_calls),
        Commas(k.cold_last.read_ahead), Commas(k.cold_last.read_ahead_evicted),
        Commas(k.warm_last.pages_read));
  }
  if (!c.keep) RemoveDatabase(path);
  return 0;
}

}  // namespace
}  // namespace minnow::bench

int main(int argc, char** argv) {
  minnow::bench::Config c;
  if (!minnow::bench::ParseArgs(argc, argv, &c)) return 2;
  return minnow::bench::Main(c);
}
