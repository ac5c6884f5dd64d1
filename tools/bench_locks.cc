// bench_locks: W1's lock-memory experiment (design brief §1 W1) on the key-value API. What do
// locking reads cost in time and lock memory beside a consistent read, on InnoDB's 2006 table?
//
//   bench_locks [--rows N] [--runs R] [--db PATH] [--pool-mib M] [--point-ops P] [--seed S]
//               [--csv FILE] [--only ID]
//
// The data: keyspace `sample` (W1's clustered index), key = i as 4 bytes big-endian (1..N),
// value = j as a compact row would hold it (1 length byte, 32, then 32 hex characters from a
// deterministic PRNG: SplitMix64, bench_kv's Dataset, standing in for md5(rand())); keyspace
// `sample.j` (W1's secondary index j), key = j (32 bytes) + i (4 bytes), empty value. Both are
// built with BulkInsert in key order. Then, once to warm up and R times measured, each in its
// own transaction (committed, locks released, before the next): the full scan as a consistent
// read (REPEATABLE READ), LOCK IN SHARE MODE (kShare), FOR UPDATE (kExclusive), the LIKE '5%'
// scan of `sample.j` in share mode, the share scan under READ COMMITTED (record-only locks),
// point X-lock transactions (one Get(kExclusive) of a random key, then Commit) from 1 and 2
// threads, the same four scans as Transaction::Count (the counting scan SQL's COUNT(*) uses:
// plain, share, update, like), and LMDB's full scan of the same rows (bench_kv's LMDB
// backend). Prints medians.
// --db defaults to ":memory:" (a buffer pool of --pool-mib, 1 GiB, holds it all); a file PATH
// must not exist, and its files (PATH, PATH.redo/, PATH.dblwr) are left for the caller.
// --only ID runs one line (plain, share, update, like, rc, point1, point2, count, count-share,
// count-update, count-like, lmdb), for profiling; --only count runs the four count lines.
#include "tools/bench_locks.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "minnow/db.h"
#include "tools/bench_kv_backend.h"
#include "tools/bench_kv_minnow.h"
#include "tools/bench_kv_table.h"

namespace minnow::bench {
namespace {

struct Config {
  uint64_t rows = 1'638'400;
  int runs = 3;
  std::string db = ":memory:";
  uint64_t pool_mib = 1024;
  uint64_t point_ops = 400'000;  // per point-lock line, over all its threads
  uint64_t seed = 42;
  std::string csv;
  std::string only;  // run only the line with this id
};

constexpr const char* kUsage =
    "usage: bench_locks [--rows N] [--runs R] [--db PATH] [--pool-mib M] [--point-ops P]\n"
    "                   [--seed S] [--csv FILE] [--only ID]\n";

bool ParseArgs(int argc, char** argv, Config* c) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    const char* v = has_value ? argv[i + 1] : "";
    char* end = nullptr;
    const uint64_t n = std::strtoull(v, &end, 10);
    const bool num = has_value && *v != '\0' && *end == '\0';
    if (a == "--db" && has_value) {
      c->db = v;
    } else if (a == "--csv" && has_value) {
      c->csv = v;
    } else if (a == "--only" && has_value) {
      c->only = v;
    } else if (!num) {
      return false;
    } else if (a == "--rows" && n > 0 && n < (1ull << 31)) {
      c->rows = n;
    } else if (a == "--runs" && n > 0 && n < 1000) {
      c->runs = static_cast<int>(n);
    } else if (a == "--pool-mib" && n >= 8 && n < (1ull << 20)) {
      c->pool_mib = n;
    } else if (a == "--point-ops" && n > 0 && n < (1ull << 32)) {
      c->point_ops = n;
    } else if (a == "--seed") {
      c->seed = n;
    } else {
      return false;
    }
    ++i;
  }
  return true;
}

// The database, its two keyspaces and the main thread's session.
struct Bench {
  const Config& c;
  const Dataset& data;
  uint64_t like_rows = 0;  // rows whose j starts with '5'
  std::unique_ptr<Database> db;
  std::unique_ptr<Session> session;
  Keyspace sample, sample_j;
};

Status Load(Bench* b) {
  ASSIGN_OR_RETURN(auto txn, b->session->Begin());
  const Dataset& data = b->data;
  uint32_t i = 0;
  char key[4], row[1 + kValueSize];
  row[0] = static_cast<char>(kValueSize);  // a compact row's length byte for j
  RETURN_IF_ERROR(txn->BulkInsert(b->sample, [&](std::string_view* k, std::string_view* v) {
    if (i == data.rows()) return false;
    EncodeKey(++i, key);
    std::memcpy(row + 1, data.value(i).data(), kValueSize);
    *k = std::string_view(key, sizeof key);
    *v = std::string_view(row, sizeof row);
    return true;
  }));
  std::vector<uint32_t> order(data.rows());
  std::iota(order.begin(), order.end(), 1u);
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const int c = data.value(x).compare(data.value(y));
    return c < 0 || (c == 0 && x < y);
  });
  size_t next = 0;
  char jkey[kValueSize + 4];
  RETURN_IF_ERROR(txn->BulkInsert(b->sample_j, [&](std::string_view* k, std::string_view* v) {
    if (next == order.size()) return false;
    const uint32_t id = order[next++];
    std::memcpy(jkey, data.value(id).data(), kValueSize);
    EncodeKey(id, jkey + kValueSize);
    b->like_rows += jkey[0] == '5';
    *k = std::string_view(jkey, sizeof jkey);
    *v = std::string_view();
    return true;
  }));
  return txn->Commit();
}

// After a Commit: nothing may still hold a lock, or the next run would start with it.
Status CheckReleased(const Bench& b) {
  const DatabaseStats s = b.db->stats();
  if (s.lock_structs == 0 && s.row_locks == 0) return Status::OK();
  return Status::Corruption(
      fmt::format("{} lock structs, {} row locks after Commit", s.lock_structs, s.row_locks));
}

// Whether --only lets `id` run.
bool Selected(const Config& c, const std::string& id) {
  return c.only.empty() || c.only == id || (c.only == "count" && id.starts_with("count"));
}

// Scans `ks` (all of it, or the keys starting with '5' of sample.j) in one transaction, with an
// Iterator or (`count`) Transaction::Count, and records the time (Begin to the end of the scan,
// as a statement's time), the rows and the locks held before Commit.
Status TimedScan(Bench* b, const Keyspace& ks, IsolationLevel iso, LockMode mode, bool like,
                 bool count, LockLine* line, bool record) {
  if (!Selected(b->c, line->id)) return Status::OK();
  ASSIGN_OR_RETURN(auto txn, b->session->Begin({.isolation = iso}));
  uint64_t rows = 0, checksum = 0;
  Status st;
  const double secs = Seconds(
      [&]() -> Status {
        if (count) {
          ASSIGN_OR_RETURN(rows,
                           txn->Count(ks, like ? "5" : "", like ? "6" : "", {.lock_mode = mode}));
          return Status::OK();
        }
        if (!like) return ScanKeyspace(txn.get(), ks, {.lock_mode = mode}, &rows, &checksum);
        ASSIGN_OR_RETURN(auto it, txn->NewIterator(ks, {.lock_mode = mode}));
        RETURN_IF_ERROR(it->Seek("5"));
        while (it->Valid() && it->key()[0] == '5') {
          ++rows;
          RETURN_IF_ERROR(it->Next());
        }
        return Status::OK();
      },
      &st);
  RETURN_IF_ERROR(st);
  const TransactionLockInfo locks = txn->lock_info();
  RETURN_IF_ERROR(txn->Commit());
  RETURN_IF_ERROR(CheckReleased(*b));
  const uint64_t want = like ? b->like_rows : b->data.rows();
  if (rows != want) {
    return Status::Corruption(fmt::format("{} saw {} rows, not {}", line->op, rows, want));
  }
  line->count = rows;
  if (!record) return Status::OK();
  line->seconds.push_back(secs);
  if (line->locking) line->locks.push_back(locks);
  return Status::OK();
}

// One thread's point-lock transactions: Get(kExclusive) of each key, then Commit.
Status PointLocks(Session* session, const Keyspace& ks, const std::vector<uint32_t>& keys) {
  std::string value;
  char key[4];
  for (uint32_t k : keys) {
    ASSIGN_OR_RETURN(auto txn, session->Begin());
    EncodeKey(k, key);
    ASSIGN_OR_RETURN(bool found, txn->Get(ks, std::string_view(key, 4), &value,
                                          {.lock_mode = LockMode::kExclusive}));
    if (!found) return Status::Corruption(fmt::format("key {} not found", k));
    RETURN_IF_ERROR(txn->Commit());
  }
  return Status::OK();
}

// `threads` threads, each with its own session, do point_ops / threads transactions on random
// keys of their own slice of 1..N (disjoint slices: no thread waits for another's lock).
Status TimedPointLocks(Bench* b, int threads, uint64_t seed, LockLine* line, bool record) {
  if (!Selected(b->c, line->id)) return Status::OK();
  const uint64_t per_thread = b->c.point_ops / static_cast<uint64_t>(threads);
  const uint64_t slice = b->data.rows() / static_cast<uint64_t>(threads);
  if (per_thread == 0 || slice == 0) return Status::InvalidArgument("too few ops or rows");
  std::vector<std::vector<uint32_t>> keys(static_cast<size_t>(threads));
  std::vector<std::unique_ptr<Session>> sessions;
  std::mt19937_64 rng(seed);
  for (int t = 0; t < threads; ++t) {
    std::uniform_int_distribution<uint64_t> pick(t * slice + 1, (t + 1) * slice);
    for (uint64_t i = 0; i < per_thread; ++i) keys[t].push_back(static_cast<uint32_t>(pick(rng)));
    ASSIGN_OR_RETURN(auto s, b->db->NewSession());
    sessions.push_back(std::move(s));
  }
  std::vector<Status> results(static_cast<size_t>(threads));
  Status st;
  const double secs = Seconds(
      [&] {
        std::vector<std::thread> workers;
        for (int t = 1; t < threads; ++t) {
          workers.emplace_back(
              [&, t] { results[t] = PointLocks(sessions[t].get(), b->sample, keys[t]); });
        }
        results[0] = PointLocks(sessions[0].get(), b->sample, keys[0]);
        for (std::thread& w : workers) w.join();
        return Status::OK();
      },
      &st);
  for (const Status& r : results) RETURN_IF_ERROR(r);
  RETURN_IF_ERROR(CheckReleased(*b));
  line->count = per_thread * static_cast<uint64_t>(threads);
  if (record) line->seconds.push_back(secs);
  return Status::OK();
}

enum Line {
  kPlain,
  kShare,
  kUpdate,
  kLike,
  kRc,
  kPoint1,
  kPoint2,
  kCount,
  kCountShare,
  kCountUpdate,
  kCountLike,
  kLmdb,  // last: dropped when LMDB is not built
  kLines
};

std::vector<LockLine> NewLines() {
  std::vector<LockLine> l(kLines);
  auto set = [&](Line i, const char* source, const char* id, const char* op, bool locking) {
    l[i].source = source;
    l[i].id = id;
    l[i].op = op;
    l[i].locking = locking;
    l[i].x_plain = i != kPlain && i != kPoint1 && i != kPoint2;
  };
  set(kPlain, "minnow", "plain", "full scan, plain (RR)", false);
  set(kShare, "minnow", "share", "full scan, LOCK IN SHARE MODE", true);
  set(kUpdate, "minnow", "update", "full scan, FOR UPDATE", true);
  set(kLike, "minnow", "like", "sample.j LIKE '5%', share", true);
  set(kRc, "minnow", "rc", "full scan, share, READ COMMITTED", true);
  set(kPoint1, "minnow", "point1", "X point lock + commit, 1 thread", false);
  set(kPoint2, "minnow", "point2", "X point lock + commit, 2 threads", false);
  set(kCount, "minnow", "count", "Count, plain (RR)", false);
  set(kCountShare, "minnow", "count-share", "Count, LOCK IN SHARE MODE", true);
  set(kCountUpdate, "minnow", "count-update", "Count, FOR UPDATE", true);
  set(kCountLike, "minnow", "count-like", "Count sample.j LIKE '5%', share", true);
  set(kLmdb, "LMDB", "lmdb", "full scan (mdb_cursor_get)", false);
  l[kPoint1].unit = l[kPoint2].unit = "ops/s";
  return l;
}

// One pass over every line: the warm-up (record = false) or a measured run.
Status RunOnce(Bench* b, KvBackend* lmdb, int run, bool record, std::vector<LockLine>* lines) {
  auto& l = *lines;
  const auto rr = IsolationLevel::kRepeatableRead;
  const auto none = LockMode::kNone, share = LockMode::kShare, x = LockMode::kExclusive;
  RETURN_IF_ERROR(TimedScan(b, b->sample, rr, none, false, false, &l[kPlain], record));
  RETURN_IF_ERROR(TimedScan(b, b->sample, rr, share, false, false, &l[kShare], record));
  RETURN_IF_ERROR(TimedScan(b, b->sample, rr, x, false, false, &l[kUpdate], record));
  RETURN_IF_ERROR(TimedScan(b, b->sample_j, rr, share, true, false, &l[kLike], record));
  RETURN_IF_ERROR(TimedScan(b, b->sample, IsolationLevel::kReadCommitted, share, false, false,
                            &l[kRc], record));
  RETURN_IF_ERROR(TimedScan(b, b->sample, rr, none, false, true, &l[kCount], record));
  RETURN_IF_ERROR(TimedScan(b, b->sample, rr, share, false, true, &l[kCountShare], record));
  RETURN_IF_ERROR(TimedScan(b, b->sample, rr, x, false, true, &l[kCountUpdate], record));
  RETURN_IF_ERROR(TimedScan(b, b->sample_j, rr, share, true, true, &l[kCountLike], record));
  RETURN_IF_ERROR(TimedPointLocks(b, 1, b->c.seed + 2 * run, &l[kPoint1], record));
  RETURN_IF_ERROR(TimedPointLocks(b, 2, b->c.seed + 2 * run + 1, &l[kPoint2], record));
  if (lmdb == nullptr || !Selected(b->c, "lmdb")) return Status::OK();
  uint64_t rows = 0, checksum = 0;
  Status st;
  const double secs = Seconds([&] { return lmdb->Scan(&rows, &checksum); }, &st);
  RETURN_IF_ERROR(st);
  if (rows != b->data.rows()) return Status::Corruption(fmt::format("LMDB saw {} rows", rows));
  l[kLmdb].count = rows;
  if (record) l[kLmdb].seconds.push_back(secs);
  return Status::OK();
}

// LMDB in a fresh directory under the temp directory, loaded with the same keys and j values
// (without the length byte), or null when bench_locks was built without LMDB.
Result<std::unique_ptr<KvBackend>> OpenLmdb(const Dataset& data, std::string* dir) {
#if MINNOW_HAVE_LMDB
  std::string tmpl = (std::filesystem::temp_directory_path() / "bench_locks.XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return Status::IOError("mkdtemp " + tmpl);
  *dir = tmpl;
  auto lmdb = NewLmdbBackend();
  RETURN_IF_ERROR(lmdb->Create(*dir));
  RETURN_IF_ERROR(lmdb->BulkLoad(data));
  return lmdb;
#else
  (void)data;
  (void)dir;
  return std::unique_ptr<KvBackend>();
#endif
}

Status Open(const Config& c, Bench* b) {
  Options o{.path = c.db, .error_if_exists = true, .buffer_pool_bytes = c.pool_mib << 20};
  o.flush_log_at_trx_commit = 0;  // a file database: no fsync per commit (the point-lock lines)
  ASSIGN_OR_RETURN(b->db, Database::Open(o));
  RETURN_IF_ERROR(b->db->CreateKeyspace("sample"));
  RETURN_IF_ERROR(
      b->db->CreateKeyspace("sample.j", {.secondary_of = "sample"}));  // as SQL makes it
  ASSIGN_OR_RETURN(b->sample, b->db->OpenKeyspace("sample"));
  ASSIGN_OR_RETURN(b->sample_j, b->db->OpenKeyspace("sample.j"));
  ASSIGN_OR_RETURN(b->session, b->db->NewSession());
  return Status::OK();
}

Status Run(const Config& c, LockReport* report) {
  std::vector<LockLine> lines = NewLines();
  if (!c.only.empty() && std::none_of(lines.begin(), lines.end(),
                                      [&](const LockLine& l) { return Selected(c, l.id); })) {
    return Status::InvalidArgument("--only " + c.only + ": no such line");
  }
  fmt::print("bench_locks: generating {} rows...\n", Commas(c.rows));
  const Dataset data(c.rows, 0, 0, c.seed);
  Bench b{.c = c, .data = data};
  RETURN_IF_ERROR(Open(c, &b));
  Status st;
  const double load = Seconds([&] { return Load(&b); }, &st);
  RETURN_IF_ERROR(st);
  std::string lmdb_dir;
  ASSIGN_OR_RETURN(auto lmdb, OpenLmdb(data, &lmdb_dir));
  fmt::print("  loaded in {:.2f} s; warm-up pass\n", load);
  std::fflush(stdout);
  st = RunOnce(&b, lmdb.get(), 0, false, &lines);
  const uint64_t misses = b.db->stats().pool_misses;
  for (int run = 0; run < c.runs && st.ok(); ++run) {
    fmt::print("  run {}/{}\n", run + 1, c.runs);
    std::fflush(stdout);
    st = RunOnce(&b, lmdb.get(), run, true, &lines);
  }
  const DatabaseStats s = b.db->stats();
  if (lmdb != nullptr) {
    lmdb.reset();
    std::error_code ec;
    std::filesystem::remove_all(lmdb_dir, ec);
  } else {
    lines.pop_back();
    report->notes.push_back(
        "LMDB: not built; apt-get install liblmdb-dev, meson setup "
        "--reconfigure <build dir>");
  }
  RETURN_IF_ERROR(st);
  std::erase_if(lines, [](const LockLine& l) { return l.seconds.empty(); });  // --only
  b.session.reset();
  RETURN_IF_ERROR(b.db->Close());
  report->measured = std::move(lines);
  report->title = fmt::format(
      "bench_locks: W1's sample table as keyspaces sample (i -> j) and sample.j (j+i), {} rows, "
      "{} like '5%'; {} runs after a warm-up: median time [min, max]; {} hardware threads\n"
      "database {}, buffer pool {} MiB ({} frames, {} pages in the file); pool misses during "
      "the runs: {}; bulk load of both {:.2f} s",
      Commas(c.rows), Commas(b.like_rows), c.runs, std::thread::hardware_concurrency(), c.db,
      c.pool_mib, Commas(s.pool_frames), Commas(s.file_pages), s.pool_misses - misses, load);
  report->notes.push_back(fmt::format(
      "scans: time from Begin to the end of the scan (Commit after lock_info(), not timed); "
      "point locks: {} transactions per line, Begin + Get(kExclusive) of a random key + Commit; "
      "2 threads: a session each, random keys in disjoint halves of 1..N (no waits).",
      Commas(c.point_ops)));
  report->notes.push_back(
      "LMDB: bench_kv's backend (MDB_NOSYNC, file in the temp directory, page cache), same keys, "
      "j without the length byte (32 bytes, not 33).");
  return Status::OK();
}

int Main(int argc, char** argv) {
  Config c;
  if (!ParseArgs(argc, argv, &c)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  LockReport report;
  report.rows = c.rows;
  Status st = Run(c, &report);
  if (st.ok()) {
    fmt::print("\n");
    PrintLockReport(stdout, report);
    if (!c.csv.empty()) st = WriteLockCsv(c.csv, report);
  }
  if (st.ok()) return 0;
  fmt::print(stderr, "bench_locks: {}\n", st.ToString());
  return 1;
}

}  // namespace
}  // namespace minnow::bench

int main(int argc, char** argv) { return minnow::bench::Main(argc, argv); }
