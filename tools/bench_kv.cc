// bench_kv: the embedded key-value API on W1's `sample` table shape (key = uint32 1..N, value =
// 32 hex characters), and with --compare the same work on LMDB and SQLite in this process.
//
//   bench_kv [--rows N] [--runs R] [--gets G] [--inserts I] [--csv FILE] [--compare]
//            [--dir DIR] [--seed S] [--durable-commits C] [--durable-only]
//
// Each run starts from fresh files: bulk load, full scan, G random point gets in one read
// transaction and with a transaction each, I random inserts of new keys in one transaction and
// I more with a transaction each (no fsync), file size after a clean close, and a second fresh
// store loaded row by row. Then the durable rows (tools/bench_kv_durable.h): C commits of one
// insert each, with fsync at commit, from 1, 2 and 8 threads, each row on a fresh file in DIR
// (--durable-commits 0 leaves them out, --durable-only runs only them). Prints one table:
// median / min / max over the runs.
#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tools/bench_kv_backend.h"
#include "tools/bench_kv_durable.h"
#include "tools/bench_kv_table.h"

namespace minnow::bench {
namespace {

struct Config {
  uint64_t rows = 1'638'400;
  int runs = 5;
  uint64_t gets = 1'000'000;
  uint64_t inserts = 200'000;
  uint64_t seed = 42;
  uint64_t durable_commits = 8'000;  // per durable row: 1-2 s for LMDB and SQLite here
  bool durable_only = false;
  bool compare = false;
  std::string csv;
  std::string dir;
};

constexpr const char* kUsage =
    "usage: bench_kv [--rows N] [--runs R] [--gets G] [--inserts I] [--csv FILE] [--compare]\n"
    "                [--dir DIR] [--seed S] [--durable-commits C] [--durable-only]\n";

bool ParseArgs(int argc, char** argv, Config* c) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto num = [&](uint64_t* out) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      *out = std::strtoull(argv[++i], &end, 10);
      return end != nullptr && *end == '\0';
    };
    uint64_t n = 0;
    if (a == "--rows" && num(&c->rows) && c->rows > 0 && c->rows < (1ull << 31)) continue;
    if (a == "--runs" && num(&n) && n > 0 && n < 1000) {
      c->runs = static_cast<int>(n);
      continue;
    }
    if (a == "--gets" && num(&c->gets)) continue;
    if (a == "--inserts" && num(&c->inserts) && c->inserts < (1ull << 30)) continue;
    if (a == "--seed" && num(&c->seed)) continue;
    if (a == "--durable-commits" && num(&c->durable_commits) && c->durable_commits < (1ull << 32)) {
      continue;
    }
    if (a == "--durable-only") {
      c->durable_only = true;
      continue;
    }
    if (a == "--compare") {
      c->compare = true;
      continue;
    }
    if (a == "--csv" && i + 1 < argc) {
      c->csv = argv[++i];
      continue;
    }
    if (a == "--dir" && i + 1 < argc) {
      c->dir = argv[++i];
      continue;
    }
    return false;
  }
  return true;
}

struct Engine {
  std::string name;
  BackendFactory factory;
  DurableFactory durable;
  EngineResult result;
};

std::string MakeDir(const std::string& parent, const std::string& name) {
  std::string p = parent + "/" + name;
  std::error_code ec;
  std::filesystem::remove_all(p, ec);
  std::filesystem::create_directories(p, ec);
  return p;
}

// One run of the key-value workload (no fsync) on one engine.
Status RunKv(const Config& c, const Dataset& data, Engine* e, const std::string& base, int run) {
  EngineResult* r = &e->result;
  const auto rows = static_cast<double>(c.rows);
  Status st;
  {
    const std::string dir = MakeDir(base, fmt::format("{}-{}", e->name, run));
    auto b = e->factory();
    RETURN_IF_ERROR(b->Create(dir));
    r->bulk_note = b->BulkLoadNote();
    double t = Seconds([&] { return b->BulkLoad(data); }, &st);
    RETURN_IF_ERROR(st);
    AddRate(r, "bulk load (sorted, 1 txn)", Unit::kRowsPerSec, rows, t);

    uint64_t n = 0, sum = 0;
    t = Seconds([&] { return b->Scan(&n, &sum); }, &st);
    RETURN_IF_ERROR(st);
    if (n != c.rows) return Status::Corruption(fmt::format("scan saw {} rows", n));
    AddRate(r, "full scan", Unit::kRowsPerSec, rows, t);

    const auto& gk = data.get_keys();
    uint64_t sum1 = 0, sum2 = 0;
    t = Seconds([&] { return b->GetsOneTxn(gk, &sum1); }, &st);
    RETURN_IF_ERROR(st);
    AddRate(r, fmt::format("{} random gets, 1 txn", CountName(gk.size())), Unit::kOpsPerSec,
            static_cast<double>(gk.size()), t);
    t = Seconds([&] { return b->GetsTxnEach(gk, &sum2); }, &st);
    RETURN_IF_ERROR(st);
    if (sum1 != sum2) return Status::Corruption("the two get passes read different values");
    AddRate(r, fmt::format("{} random gets, txn each", CountName(gk.size())), Unit::kOpsPerSec,
            static_cast<double>(gk.size()), t);

    const auto& i1 = data.insert_keys_one_txn();
    const auto& i2 = data.insert_keys_txn_each();
    t = Seconds([&] { return b->InsertsOneTxn(i1, data); }, &st);
    RETURN_IF_ERROR(st);
    AddRate(r, fmt::format("{} random inserts, 1 txn", CountName(i1.size())), Unit::kOpsPerSec,
            static_cast<double>(i1.size()), t);
    t = Seconds([&] { return b->InsertsTxnEach(i2, data); }, &st);
    RETURN_IF_ERROR(st);
    AddRate(r, fmt::format("{} random inserts, txn each", CountName(i2.size())), Unit::kOpsPerSec,
            static_cast<double>(i2.size()), t);

    RETURN_IF_ERROR(b->Close());
    uint64_t logical = 0, physical = 0;
    for (const std::string& f : b->Files()) {
      struct stat sb;
      if (::stat(f.c_str(), &sb) != 0) continue;
      logical += static_cast<uint64_t>(sb.st_size);
      physical += static_cast<uint64_t>(sb.st_blocks) * 512;
    }
    RowFor(r, "file size, logical", Unit::kMiB).values.push_back(logical / 1048576.0);
    RowFor(r, "file size, physical", Unit::kMiB).values.push_back(physical / 1048576.0);
    b.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  {
    const std::string dir = MakeDir(base, fmt::format("{}-{}-rows", e->name, run));
    auto b = e->factory();
    RETURN_IF_ERROR(b->Create(dir));
    double t = Seconds([&] { return b->LoadRowByRow(data); }, &st);
    RETURN_IF_ERROR(st);
    AddRate(r, "sorted load, insert per row, 1 txn", Unit::kRowsPerSec, rows, t);
    RETURN_IF_ERROR(b->Close());
    b.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return Status::OK();
}

// One run of the whole workload on one engine; `data` is null with --durable-only. minnow's
// result (engines[0]) also gets the run's fsync probe, before its durable rows.
Status RunOnce(const Config& c, const Dataset* data, Engine* e, const std::string& base, int run,
               bool probe) {
  if (data != nullptr) RETURN_IF_ERROR(RunKv(c, *data, e, base, run));
  if (c.durable_commits == 0) return Status::OK();
  if (probe) RETURN_IF_ERROR(AddFsyncProbe(base, c.durable_commits, &e->result));
  return RunDurableRows(e->durable, c.durable_commits, base, e->name, run, &e->result);
}

std::vector<Engine> ChooseEngines(const Config& c) {
  std::vector<Engine> engines;
  engines.push_back({"minnow", &NewMinnowBackend, &NewMinnowDurable, {}});
  if (!c.compare) return engines;
#if MINNOW_HAVE_LMDB
  engines.push_back({"LMDB", &NewLmdbBackend, &NewLmdbDurable, {}});
#endif
#if MINNOW_HAVE_SQLITE
  engines.push_back({"SQLite", &NewSqliteBackend, &NewSqliteDurable, {}});
#endif
#if !MINNOW_HAVE_LMDB || !MINNOW_HAVE_SQLITE
  fmt::print(stderr,
             "bench_kv --compare: built without {}{}{}; running minnow alone where missing.\n"
             "  To compare, install them and reconfigure:\n"
             "    apt-get install -y liblmdb-dev libsqlite3-dev && meson setup --reconfigure "
             "<build dir>\n",
             MINNOW_HAVE_LMDB ? "" : "LMDB",
             !MINNOW_HAVE_LMDB && !MINNOW_HAVE_SQLITE ? " and " : "",
             MINNOW_HAVE_SQLITE ? "" : "SQLite");
#endif
  return engines;
}

int Main(int argc, char** argv) {
  Config c;
  if (!ParseArgs(argc, argv, &c) || (c.durable_only && c.durable_commits == 0)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string parent = c.dir.empty() ? std::filesystem::temp_directory_path().string() : c.dir;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  std::string tmpl = parent + "/bench_kv.XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    fmt::print(stderr, "bench_kv: cannot make a directory under {}: {}\n", parent,
               std::strerror(errno));
    return 1;
  }
  const std::string base = tmpl;
  const std::string warning = c.durable_commits > 0 ? DurableDirWarning(base) : std::string();
  if (!warning.empty()) fmt::print(stderr, "{}\n", warning);

  std::vector<Engine> engines = ChooseEngines(c);
  std::unique_ptr<Dataset> data;
  if (!c.durable_only) {
    fmt::print("bench_kv: generating {} rows...\n", Commas(c.rows));
    data = std::make_unique<Dataset>(c.rows, c.gets, c.inserts, c.seed);
  }
  Status st;
  for (int run = 0; run < c.runs && st.ok(); ++run) {
    for (Engine& e : engines) {
      fmt::print("  run {}/{}: {}\n", run + 1, c.runs, e.name);
      std::fflush(stdout);
      st = RunOnce(c, data.get(), &e, base, run, &e == &engines[0]);
      if (!st.ok()) {
        fmt::print(stderr, "bench_kv: {} run {} failed: {}\n", e.name, run + 1, st.ToString());
        break;
      }
    }
  }
  std::filesystem::remove_all(base, ec);
  if (!st.ok()) return 1;

  std::vector<EngineResult> results;
  for (Engine& e : engines) {
    e.result.engine = e.name;
    results.push_back(e.result);
  }
  fmt::print("\n");
  std::string title =
      c.durable_only
          ? fmt::format(
                "bench_kv: durable commits only, {} runs: median [min, max]; {} hardware "
                "threads; files in {}",
                c.runs, std::thread::hardware_concurrency(), parent)
          : fmt::format(
                "bench_kv: {} rows (key uint32 big-endian, value 32 hex chars), {} "
                "runs: median [min, max]; {} hardware threads; no fsync{}",
                Commas(c.rows), c.runs, std::thread::hardware_concurrency(),
                c.durable_commits > 0 ? " but in the durable rows; files in " + parent
                                      : std::string());
  if (!warning.empty()) title += "\n" + warning;
  PrintTable(stdout, title, results);
  if (!c.csv.empty()) {
    Status w = WriteCsv(c.csv, results);
    if (!w.ok()) {
      fmt::print(stderr, "bench_kv: {}\n", w.ToString());
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace minnow::bench

int main(int argc, char** argv) { return minnow::bench::Main(argc, argv); }
