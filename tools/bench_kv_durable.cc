// bench_kv's durable-commit rows: the runner (threads, timing, rows). The engines' stores are in
// bench_kv_durable_stores.cc.
#include "tools/bench_kv_durable.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

namespace minnow::bench {
namespace {

struct DurableRowSpec {
  int threads;
  int flush;
};
constexpr DurableRowSpec kDurableRows[] = {{1, 1}, {2, 1}, {8, 1}, {1, 2}, {8, 2}};

constexpr int64_t kTmpfsMagic = 0x01021994;
constexpr size_t kValuePool = 1024;

std::string RowName(const DurableRowSpec& r) {
  return fmt::format("durable commits, {} thread{} (flush={})", r.threads,
                     r.threads == 1 ? "" : "s", r.flush);
}

std::string SyncRowName(const DurableRowSpec& r) {
  return fmt::format("  commits per log fsync, {}t (f={})", r.threads, r.flush);
}

// kValuePool values of 100 hex characters from a fixed-seed PRNG (the same on every engine).
std::vector<std::string> MakeValues() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::vector<std::string> values(kValuePool, std::string(kDurableValueSize, ' '));
  uint64_t state = 0x5eed;
  for (std::string& v : values) {
    for (char& ch : v) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      ch = kHex[(state >> 59) & 15];
    }
  }
  return values;
}

void AddNote(EngineResult* r, const std::string& note) {
  for (const std::string& n : r->notes) {
    if (n == note) return;
  }
  r->notes.push_back(note);
}

struct Timed {
  double seconds = 0;
  uint64_t commits = 0, syncs = 0;  // engine counter deltas over the timed part
  bool counted = false;
};

// One row on a fresh store in `dir`: `threads` writers, `commits` commits in all.
Status RunRow(DurableStore* store, const DurableRowSpec& spec, uint64_t commits,
              const std::vector<std::string>& values, Timed* out) {
  std::vector<std::unique_ptr<DurableWriter>> writers;
  for (int t = 0; t < spec.threads; ++t) {
    ASSIGN_OR_RETURN(auto w, store->NewWriter());
    writers.push_back(std::move(w));
  }
  uint64_t commits0 = 0, syncs0 = 0;
  out->counted = store->SyncCounters(&commits0, &syncs0);

  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<Status> errors(writers.size());
  std::vector<std::thread> threads;
  const auto n = static_cast<uint64_t>(spec.threads);
  for (uint64_t t = 0; t < n; ++t) {
    const uint64_t mine = commits / n + (t < commits % n ? 1 : 0);
    threads.emplace_back([&, t, mine] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      for (uint64_t i = 0; i < mine; ++i) {
        Status st = writers[t]->CommitOne(t << 32 | i, values[(t * 131 + i) % kValuePool]);
        if (!st.ok()) {
          errors[t] = std::move(st);
          return;
        }
      }
    });
  }
  while (ready.load() < spec.threads) std::this_thread::yield();
  const auto t0 = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread& th : threads) th.join();
  out->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  uint64_t commits1 = 0, syncs1 = 0;
  if (out->counted && store->SyncCounters(&commits1, &syncs1)) {
    out->commits = commits1 - commits0;
    out->syncs = syncs1 - syncs0;
  }
  writers.clear();
  for (Status& st : errors) RETURN_IF_ERROR(st);
  return Status::OK();
}

std::string DurableSection(uint64_t commits) {
  return fmt::format(
      "-- durable commits: a fresh file per row; {} transactions of one insert (8-byte key, "
      "{}-byte value) split over the threads\n"
      "-- flush=1: minnow flush_log_at_trx_commit=1, SQLite WAL synchronous=FULL, LMDB default "
      "(sync at commit); flush=2: minnow flush_log_at_trx_commit=2",
      Commas(commits), kDurableValueSize);
}

}  // namespace

Status RunDurableRows(DurableFactory factory, uint64_t commits, const std::string& base,
                      const std::string& engine, int run, EngineResult* result) {
  static const std::vector<std::string> values = MakeValues();
  const std::string section = DurableSection(commits);
  for (const DurableRowSpec& spec : kDurableRows) {
    const std::string dir =
        fmt::format("{}/{}-{}-durable-{}t-f{}", base, engine, run, spec.threads, spec.flush);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir, ec);
    if (ec) return Status::IOError(fmt::format("mkdir {}: {}", dir, ec.message()));
    auto store = factory();
    Status st = store->Create(dir, spec.flush);
    if (st.code() == Code::kNotSupported) {
      AddNote(result,
              fmt::format("{}, flush={} rows: none (\"-\"): {}", engine, spec.flush, st.message()));
      std::filesystem::remove_all(dir, ec);
      continue;
    }
    RETURN_IF_ERROR(st);
    Timed timed;
    st = RunRow(store.get(), spec, commits, values, &timed);
    Status closed = store->Close();
    RETURN_IF_ERROR(st);
    RETURN_IF_ERROR(closed);

    const std::string setting = store->Setting();
    const std::string analogy = store->Analogy();
    Row& row = AddRate(result, RowName(spec), Unit::kCommitsPerSec, static_cast<double>(commits),
                       timed.seconds);
    row.section = section;
    row.setting = setting;
    if (!analogy.empty()) {
      row.mark.assign(1, '*');
      AddNote(result, fmt::format("* {}, flush={} rows: {}", engine, spec.flush, analogy));
    }
    if (timed.counted) {
      AddNote(result, fmt::format("commits per log fsync: {}'s own counters (durable commits / "
                                  "log fsyncs during the row; \"-\" if it counted no fsync)",
                                  engine));
      // No value while the engine does not count syncs yet (or none fell in the timed part).
      // (`row` may move here: a new row is appended.)
      Row& sync_row = RowFor(result, SyncRowName(spec), Unit::kCommitsPerSync);
      sync_row.section = section;
      sync_row.setting = setting;
      if (timed.syncs > 0) {
        sync_row.values.push_back(static_cast<double>(timed.commits) /
                                  static_cast<double>(timed.syncs));
      }
    }
    store.reset();
    std::filesystem::remove_all(dir, ec);
  }
  return Status::OK();
}

Status AddFsyncProbe(const std::string& dir, uint64_t commits, EngineResult* result) {
  constexpr int kCount = 100;
  const std::string path = dir + "/fsync-probe";
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) return Status::IOError(fmt::format("{}: {}", path, std::strerror(errno)));
  char block[512] = {1};
  Status st;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kCount && st.ok(); ++i) {
    if (::write(fd, block, sizeof block) != static_cast<ssize_t>(sizeof block) ||
        ::fdatasync(fd) != 0) {
      st = Status::IOError(fmt::format("{}: {}", path, std::strerror(errno)));
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::close(fd);
  ::unlink(path.c_str());
  RETURN_IF_ERROR(st);
  Row& row = RowFor(result, "reference: fdatasync, 512 B append", Unit::kMicros);
  row.section = DurableSection(commits);
  row.values.push_back(secs * 1e6 / kCount);
  return Status::OK();
}

std::string DurableDirWarning(const std::string& dir) {
  struct statfs fs;
  if (::statfs(dir.c_str(), &fs) != 0) return {};
  if (static_cast<int64_t>(fs.f_type) != kTmpfsMagic) return {};
  return fmt::format(
      "bench_kv: warning: {} is on tmpfs, where fsync costs nothing: the durable rows measure "
      "no disk; pass --dir on a real file system",
      dir);
}

}  // namespace minnow::bench
