// The bank-transfer stress test (bounded, ~3 s; run under ThreadSanitizer in CI, suite
// 'stress'). Writer threads move money between random accounts with FOR UPDATE reads
// (exclusive locks), in random order so that they deadlock now and then, and retry on
// deadlock (1213) and lock wait timeout (1205); some roll back on purpose. Reader threads take
// consistent snapshots (REPEATABLE READ scans and point reads, READ COMMITTED scans): every
// snapshot must add up to the same total, since every transfer conserves it. At the end the
// total is checked once more, and the file's integrity.
#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::Key;
using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;

constexpr int kAccounts = 500;
constexpr long kStart = 100;

// Sums a snapshot: the total, or -1 on an error. `n` receives the rows seen.
long SumScan(Transaction* txn, const Keyspace& ks, int* n) {
  auto ir = txn->NewIterator(ks);
  if (!ir.ok()) return -1;
  auto it = std::move(ir).value();
  long total = 0;
  *n = 0;
  Status st = it->SeekToFirst();
  while (st.ok() && it->Valid()) {
    auto v = it->value();
    if (!v.ok()) return -1;
    total += std::stol(std::string(*v));
    ++*n;
    st = it->Next();
  }
  return st.ok() ? total : -1;
}

TEST_CASE("bank transfers with FOR UPDATE conserve the total in every snapshot",
          "[.stress][stress][engine]") {
  auto opts = SmallOptions(":memory:");
  opts.buffer_pool_bytes = 4u << 20;
  opts.lock_wait_timeout_ms = 500;
  auto db = MustOpen(opts);
  Keyspace ks = MustKeyspace(db.get(), "accounts");
  {
    auto s = Take(db->NewSession());
    auto txn = MustBegin(s.get());
    for (int i = 0; i < kAccounts; ++i) REQUIRE_OK(txn->Put(ks, Key(i), std::to_string(kStart)));
    REQUIRE_OK(txn->Commit());
  }
  const long total = kStart * kAccounts;
  const auto seconds = std::chrono::seconds(
      getenv("MINNOW_STRESS_SECONDS") ? std::atoi(getenv("MINNOW_STRESS_SECONDS")) : 3);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> commits{0}, rollbacks{0}, deadlocks{0}, timeouts{0}, snapshots{0};
  std::atomic<uint64_t> errors{0}, bad_snapshots{0};

  // Catch2's assertions are not thread-safe: the threads count errors instead.
  auto writer = [&](int seed) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    auto s = db->NewSession();
    if (!s.ok()) return (void)++errors;
    while (!stop.load()) {
      auto tr = (*s)->Begin();
      if (!tr.ok()) return (void)++errors;
      auto txn = std::move(tr).value();
      const int a = static_cast<int>(rng() % kAccounts);
      int b = static_cast<int>(rng() % (kAccounts - 1));
      if (b >= a) ++b;
      const long amount = static_cast<long>(rng() % 10);
      Status st;
      std::string va, vb;
      // Lock a, then b: two writers taking the same pair in opposite orders deadlock.
      auto ra = txn->Get(ks, Key(a), &va, {.lock_mode = LockMode::kExclusive});
      st = ra.status();
      if (st.ok()) {
        auto rb = txn->Get(ks, Key(b), &vb, {.lock_mode = LockMode::kExclusive});
        st = rb.status();
        if (st.ok() && (!*ra || !*rb)) st = Status::Internal("an account vanished");
      }
      if (st.ok()) st = txn->Put(ks, Key(a), std::to_string(std::stol(va) - amount));
      if (st.ok()) st = txn->Put(ks, Key(b), std::to_string(std::stol(vb) + amount));
      if (st.code() == Code::kDeadlock) {
        ++deadlocks;  // rolled back already
        continue;
      }
      if (st.code() == Code::kLockWaitTimeout) {
        ++timeouts;
        if (!txn->Rollback().ok()) ++errors;
        continue;
      }
      if (!st.ok()) {
        ++errors;
        continue;
      }
      if (rng() % 8 == 0) {
        if (!txn->Rollback().ok()) ++errors;
        ++rollbacks;
      } else {
        if (!txn->Commit().ok()) ++errors;
        ++commits;
      }
    }
  };
  auto reader = [&](int seed) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    auto s = db->NewSession();
    if (!s.ok()) return (void)++errors;
    while (!stop.load()) {
      const bool rc = rng() % 2 == 0;
      auto tr = (*s)->Begin(
          {.isolation = rc ? IsolationLevel::kReadCommitted : IsolationLevel::kRepeatableRead});
      if (!tr.ok()) return (void)++errors;
      auto txn = std::move(tr).value();
      int n = 0;
      const long sum = SumScan(txn.get(), ks, &n);
      if (sum < 0) ++errors;
      if (sum != total || n != kAccounts) ++bad_snapshots;
      if (!rc) {
        // REPEATABLE READ: point reads agree with the snapshot, however long it lasts.
        long by_get = 0;
        std::string v;
        for (int i = 0; i < kAccounts; ++i) {
          auto r = txn->Get(ks, Key(i), &v);
          if (!r.ok() || !*r) {
            ++errors;
            break;
          }
          by_get += std::stol(v);
        }
        if (by_get != total) ++bad_snapshots;
      }
      if (!txn->Commit().ok()) ++errors;
      ++snapshots;
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back(writer, i);
  for (int i = 0; i < 2; ++i) threads.emplace_back(reader, 100 + i);
  std::this_thread::sleep_for(seconds);
  stop = true;
  for (auto& t : threads) t.join();

  INFO("commits " << commits.load() << " rollbacks " << rollbacks.load() << " deadlocks "
                  << deadlocks.load() << " timeouts " << timeouts.load() << " snapshots "
                  << snapshots.load());
  CHECK(errors.load() == 0);
  CHECK(bad_snapshots.load() == 0);
  CHECK(commits.load() > 0);
  CHECK(snapshots.load() > 0);
  auto s = Take(db->NewSession());
  auto txn = MustBegin(s.get());
  int n = 0;
  CHECK(SumScan(txn.get(), ks, &n) == total);
  CHECK(n == kAccounts);
  DatabaseStats st = db->stats();
  CHECK(st.deadlocks == deadlocks.load());
  CHECK(st.lock_structs == 0);  // every lock released (this reader holds none)
  REQUIRE_OK(db->CheckIntegrity());
}

}  // namespace
}  // namespace minnow
