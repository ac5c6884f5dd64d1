// Bounded concurrency stress (hidden tag [.stress]; MINNOW_STRESS_SECONDS, default 3): worker
// transactions lock random records of a few pages in random modes and types (single locks and
// batches), wait with short timeouts under deadlock detection, and release; a mover thread
// moves records to fresh heap numbers of other pages; a checker reads data_locks meanwhile.
// Invariant: no two transactions hold granted record locks on one record that conflict in
// their record parts (ordinary / REC_NOT_GAP, not both S). A page's rows are read under its
// shard latch, so each record's rows are one consistent snapshot. At the end nothing remains.

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <random>
#include <thread>

#include "lock_test_util.h"

namespace minnow {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace)
using std::chrono::milliseconds;

double StressSeconds() {
  const char* s = std::getenv("MINNOW_STRESS_SECONDS");
  return s != nullptr ? std::atof(s) : 3.0;
}

constexpr PageNo kPages = 6;
constexpr HeapNo kMaxHeap = 24;  // workers lock 1 .. kMaxHeap-1; moves go to 100 and up

bool RecordPart(RecLockType t) { return t == kOrd || t == kRec; }

// Returns a description of a violation, or "".
std::string CheckSnapshot(const LockSys& locks) {
  std::map<std::pair<PageNo, HeapNo>, std::vector<LockRow>> granted;
  locks.ForEachLock([&](const LockRow& r) {
    if (!r.is_table && !r.waiting) granted[{r.rec.page_no, r.rec.heap_no}].push_back(r);
  });
  for (const auto& [rec, rows] : granted) {
    if (rec.second == kSupremumHeapNo) continue;
    for (size_t i = 0; i < rows.size(); ++i) {
      for (size_t j = i + 1; j < rows.size(); ++j) {
        const LockRow& a = rows[i];
        const LockRow& b = rows[j];
        if (a.trx_id != b.trx_id && RecordPart(a.type) && RecordPart(b.type) &&
            (a.mode == kX || b.mode == kX)) {
          return Describe(a) + " and " + Describe(b);
        }
      }
    }
  }
  return "";
}

TEST_CASE("lock stress: random locks, waits, deadlocks, moves", "[.stress][lock]") {
  LockSysOptions options;
  options.shards = 4;  // pages share shards and cells
  LockSys locks(options);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(StressSeconds());
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> next_id{1};
  std::atomic<uint64_t> commits{0}, aborts{0}, grants{0};
  std::atomic<int> violations{0};
  std::string first_violation;
  std::vector<std::thread> threads;
  for (int w = 0; w < 6; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937 rng(w);
      while (!stop.load(std::memory_order_relaxed)) {
        auto trx = locks.Register(next_id++);
        trx->set_weight(rng() % 4);
        bool ok = locks.LockTable(trx.get(), 1, rng() % 2 ? kIX : kIS).ok();
        for (int op = 0; ok && op < 1 + static_cast<int>(rng() % 6); ++op) {
          const PageNo page = rng() % kPages;
          const TrxLockMode mode = rng() % 2 ? kX : kS;
          const RecLockType type = static_cast<RecLockType>(rng() % 4);
          std::vector<HeapNo> heaps;
          const HeapNo first = static_cast<HeapNo>(1 + rng() % (kMaxHeap - 1));
          for (HeapNo h = first; h < kMaxHeap && heaps.size() < 1 + rng() % 8; ++h) {
            heaps.push_back(h);
          }
          size_t done = 0;
          Status st = locks.LockRecords(trx.get(), page, heaps, mode, type, &done);
          if (st.code() == Code::kLockWait)
            st = locks.Wait(trx.get(), milliseconds(1 + rng() % 20));
          ok = st.ok();
          if (ok) grants += heaps.size();
        }
        locks.ReleaseAll(trx.get());
        ++(ok ? commits : aborts);
      }
    });
  }
  threads.emplace_back([&] {  // mover: records leave for fresh heap numbers of another page
    std::mt19937 rng(99);
    HeapNo fresh = 100;
    while (!stop.load(std::memory_order_relaxed)) {
      const PageNo from = rng() % kPages;
      const PageNo to = rng() % kPages;
      const HeapNo h = static_cast<HeapNo>(2 + rng() % (kMaxHeap - 2));
      const std::vector<RecordIdMove> moves{{{from, h}, {to, fresh}}};
      locks.OnRecordsMoved(moves);
      fresh = fresh >= 4000 ? 100 : fresh + 1;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  threads.emplace_back([&] {  // checker
    while (!stop.load(std::memory_order_relaxed)) {
      const std::string v = CheckSnapshot(locks);
      if (!v.empty() && violations++ == 0) first_violation = v;
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  });
  while (std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(milliseconds(10));
  stop = true;
  for (auto& t : threads) t.join();
  INFO(first_violation);
  CHECK(violations.load() == 0);
  CHECK(commits.load() > 0);
  CHECK(grants.load() > 0);
  const LockSysStats s = locks.stats();
  CHECK(s.structs == 0);
  CHECK(s.row_locks == 0);
  CHECK(s.heap_bytes == 0);
  CHECK(s.waiting_now == 0);
  UNSCOPED_INFO("commits " << commits << " aborts " << aborts << " waits " << s.waits
                           << " timeouts " << s.timeouts << " deadlocks " << s.deadlocks);
  CHECK(s.waits > 0);
}

}  // namespace
}  // namespace minnow
