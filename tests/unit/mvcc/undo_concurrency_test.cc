// Concurrency (run under TSan): writer threads append to their own TrxUndo and commit while
// a reader reads update records of active and committed transactions by roll pointer and a
// purger frees history logs no reader can still want.

#include <atomic>
#include <catch2/catch.hpp>
#include <random>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "common/latch.h"
#include "undo_test_util.h"

namespace minnow {
namespace {

using testing::InsertRecord;
using testing::RecordData;
using testing::UndoFixture;
using testing::UpdateRecord;

struct Published {
  TrxId trx_no;  // 0 while its transaction is active
  RollPtr ptr;
  uint64_t i;
  size_t len;
  uint64_t undo_no;
};

size_t LenOf(uint64_t i) { return i % 37 == 0 ? 20000 : 20 + i % 150; }

TEST_CASE("appends and commits race with reads and purge", "[mvcc]") {
  UndoFixture fx(64);
  constexpr int kWriters = 4;
  constexpr int kTrxPerWriter = 25;
  constexpr uint64_t kRecords = 40;
  std::atomic<TrxId> next_no{1000};
  // Readers hold `floor_latch` shared while reading; purge raises the floor under it
  // exclusively, then frees only logs below the floor.
  std::shared_mutex floor_latch;
  std::atomic<TrxId> floor{0};
  SharedLatch pub_latch;
  std::vector<Published> pub;
  std::atomic<int> writers_done{0};
  std::atomic<uint64_t> reads{0};
  std::atomic<uint64_t> errors{0};

  auto writer = [&](int w) {
    for (int n = 0; n < kTrxPerWriter; ++n) {
      const TrxId id = static_cast<TrxId>(w * 1000 + n + 1);
      auto t = fx.store()->NewTrxUndo(id);
      std::vector<size_t> mine;
      for (uint64_t i = 0; i < kRecords; ++i) {
        RecordData d;
        const uint64_t key = id * 100 + i;
        auto p = i % 3 == 0 ? t->Append(InsertRecord(key, &d))
                            : t->Append(UpdateRecord(key, LenOf(key), &d));
        if (!p.ok()) {
          errors.fetch_add(1);
          return;
        }
        if (i % 3 != 0) {
          pub_latch.Acquire();
          mine.push_back(pub.size());
          pub.push_back({0, *p, key, LenOf(key), i});
          pub_latch.Release();
        }
      }
      const TrxId no = next_no.fetch_add(1);
      if (!t->Commit(no).ok()) errors.fetch_add(1);
      pub_latch.Acquire();
      for (size_t k : mine) pub[k].trx_no = no;
      pub_latch.Release();
    }
    writers_done.fetch_add(1);
  };

  auto reader = [&] {
    std::mt19937_64 rng(42);
    std::string buf;
    // Also after the writers are done, until it has read some (on a loaded machine it may not
    // run before they finish); the newest logs stay above the purge floor, so reads succeed.
    while (writers_done.load() < kWriters || reads.load() < 100) {
      pub_latch.AcquireShared();
      if (pub.empty()) {
        pub_latch.ReleaseShared();
        std::this_thread::yield();
        continue;
      }
      const Published p = pub[rng() % pub.size()];
      pub_latch.ReleaseShared();
      std::shared_lock<std::shared_mutex> g(floor_latch);
      if (p.trx_no != 0 && p.trx_no < floor.load()) continue;  // may be purged
      UndoRecord r;
      Status st = fx.store()->Read(p.ptr, &buf, &r);
      RecordData d;
      UpdateRecord(p.i, p.len, &d);
      if (!st.ok() || r.undo_no != p.undo_no || testing::S(r.old_value) != d.old_value) {
        errors.fetch_add(1);
      }
      reads.fetch_add(1);
    }
  };

  auto purger = [&] {
    uint64_t purged = 0;
    while (writers_done.load() < kWriters) {
      const TrxId limit = next_no.load() - 5;
      {
        std::unique_lock<std::shared_mutex> g(floor_latch);
        if (limit > floor.load()) floor.store(limit);
      }
      auto done = fx.store()->PurgeOldest(floor.load(),
                                          [](const UndoRecord&, TrxId) { return Status::OK(); });
      if (!done.ok()) errors.fetch_add(1);
      if (done.ok() && *done) ++purged;
      if (!done.ok() || !*done) std::this_thread::yield();
    }
  };

  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) threads.emplace_back(writer, w);
  threads.emplace_back(reader);
  threads.emplace_back(purger);
  for (auto& th : threads) th.join();
  INFO("reads " << reads.load() << ", purged while writing " << fx.store()->stats().logs_purged);
  CHECK(errors.load() == 0);
  CHECK(reads.load() > 0);
  CHECK(fx.store()->stats().active_logs == 0);
  while (
      *fx.store()->PurgeOldest(~TrxId{0}, [](const UndoRecord&, TrxId) { return Status::OK(); })) {
  }
  CHECK(fx.store()->stats().history_length == 0);
  CHECK(fx.store()->stats().undo_pages == 0);
}

}  // namespace
}  // namespace minnow
