// Hidden benchmark ([.bench]): the cost per record of LockRecords for a locking full scan of
// 250-record pages (one shard latch and one chain walk per page). Prints, asserts nothing
// about time. Run: lock_tests "[bench]" on a -Dbuildtype=release build.

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>

#include "lock_test_util.h"

namespace minnow {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace)

TEST_CASE("bench: LockRecords of 250-record pages", "[.bench][lock]") {
  constexpr PageNo kPages = 20000;
  std::vector<HeapNo> scan = Range(2, 252);
  scan.push_back(kSupremumHeapNo);
  LockSys locks;
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    auto trx = locks.Register(round + 1);
    REQUIRE(locks.LockTable(trx.get(), 1, kIX).ok());
    const auto start = std::chrono::steady_clock::now();
    for (PageNo p = 0; p < kPages; ++p) {
      size_t granted;
      if (!locks.LockRecords(trx.get(), p, scan, kX, kOrd, &granted).ok()) FAIL();
    }
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, ns / (double(kPages) * scan.size()));
    const TrxLockStats s = trx->stats();
    std::printf("round %d: %.3f ns/record, %llu structs, %llu heap bytes, %.3f bits/row\n", round,
                ns / (double(kPages) * scan.size()), (unsigned long long)s.structs,
                (unsigned long long)s.heap_bytes, s.heap_bytes * 8.0 / double(s.row_locks));
    const auto rel = std::chrono::steady_clock::now();
    locks.ReleaseAll(trx.get());
    std::printf(
        "  release: %.1f ns/struct\n",
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - rel).count() /
            double(s.structs));
  }
  std::printf("best: %.3f ns/record\n", best);
}

}  // namespace
}  // namespace minnow
