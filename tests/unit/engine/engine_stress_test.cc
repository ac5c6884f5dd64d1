// Bounded concurrency (~3 s): reader threads scan and point-read while writer threads commit and
// roll back, each on its own session. Run under ThreadSanitizer in CI (suite 'stress').
//
// Every writer transaction moves one unit between two accounts and then commits or rolls back,
// so the total is conserved once all are done (checked after the join). Plain reads see
// uncommitted data (READ UNCOMMITTED until issue #4), so readers check only what holds at any
// moment: keys ascend, every account is there, values are readable.
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

constexpr int kAccounts = 2000;

TEST_CASE("readers and writers on many sessions", "[.stress][stress][engine]") {
  auto opts = SmallOptions(":memory:");
  opts.buffer_pool_bytes = 4u << 20;  // smaller than the data: eviction under load
  opts.lock_wait_timeout_ms = 10'000;
  auto db = MustOpen(opts);
  Keyspace ks = MustKeyspace(db.get(), "accounts");
  {
    auto s = Take(db->NewSession());
    auto txn = MustBegin(s.get());
    for (int i = 0; i < kAccounts; ++i) REQUIRE_OK(txn->Put(ks, Key(i), "100"));
    REQUIRE_OK(txn->Commit());
  }
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> commits{0}, rollbacks{0}, scans{0}, errors{0};
  std::atomic<int64_t> committed_delta{0};  // stays 0: transfers conserve the total

  // Catch2's assertions are not thread-safe: the threads count errors instead.
  auto writer = [&](int seed) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    auto sr = db->NewSession();
    if (!sr.ok()) return (void)++errors;
    auto s = std::move(sr).value();
    while (!stop.load()) {
      auto tr = s->Begin();
      if (!tr.ok()) return (void)++errors;
      auto txn = std::move(tr).value();
      const int from = static_cast<int>(rng() % kAccounts);
      const int to = static_cast<int>(rng() % kAccounts);
      std::string v;
      auto a = txn->Get(ks, Key(from), &v, {.lock_mode = LockMode::kExclusive});
      if (!a.ok() || !*a) {
        ++errors;
        continue;
      }
      const long fv = std::stol(v);
      Status st = txn->Put(ks, Key(from), std::to_string(fv - 1) + std::string(rng() % 300, ' '));
      auto b = txn->Get(ks, Key(to), &v);
      if (!st.ok() || !b.ok() || !*b) {
        ++errors;
        continue;
      }
      st = txn->Put(ks, Key(to), std::to_string(std::stol(v) + 1) + std::string(rng() % 300, ' '));
      if (!st.ok()) ++errors;
      if (rng() % 4 == 0) {
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
    auto sr = db->NewSession();
    if (!sr.ok()) return (void)++errors;
    auto s = std::move(sr).value();
    while (!stop.load()) {
      auto tr = s->Begin();
      if (!tr.ok()) return (void)++errors;
      auto txn = std::move(tr).value();
      auto ir = txn->NewIterator(ks);
      if (!ir.ok()) return (void)++errors;
      auto it = std::move(ir).value();
      std::string prev;
      int n = 0;
      Status st = it->SeekToFirst();
      while (st.ok() && it->Valid()) {
        if (n > 0 && !(prev < it->key())) ++errors;
        prev = std::string(it->key());
        if (!it->value().ok()) ++errors;
        ++n;
        st = it->Next();
      }
      if (!st.ok()) ++errors;
      std::string v;
      for (int i = 0; i < 100; ++i) {
        auto r = txn->Get(ks, Key(rng() % kAccounts), &v);
        if (!r.ok() || !*r) ++errors;
      }
      ++scans;
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.emplace_back(writer, i);
  for (int i = 0; i < 3; ++i) threads.emplace_back(reader, 100 + i);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  stop = true;
  for (auto& t : threads) t.join();

  CHECK(errors.load() == 0);
  CHECK(commits.load() > 0);
  CHECK(scans.load() > 0);
  INFO("commits " << commits.load() << " rollbacks " << rollbacks.load() << " scans "
                  << scans.load());
  auto s = Take(db->NewSession());
  auto txn = MustBegin(s.get());
  auto it = Take(txn->NewIterator(ks));
  REQUIRE_OK(it->SeekToFirst());
  long total = 0;
  int n = 0;
  while (it->Valid()) {
    total += std::stol(std::string(*it->value()));
    ++n;
    REQUIRE_OK(it->Next());
  }
  CHECK(n == kAccounts);
  CHECK(total == 100L * kAccounts);
  CHECK(db->stats().commits >= commits.load());
  REQUIRE_OK(db->CheckIntegrity());
}

}  // namespace
}  // namespace minnow
