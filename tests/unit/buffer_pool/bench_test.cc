// Hidden benchmarks (run with "[bench]"): prints rates, asserts nothing about time.

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/mtr.h"
#include "test_util.h"

namespace minnow {
namespace {

TEST_CASE("hit path: FetchRead of resident pages", "[.bench][buffer_pool]") {
  auto o = testing::SmallOptions(4096);
  auto pool = testing::OpenOrDie(NewMemoryDisk("bench"), o);
  REQUIRE(pool);
  std::vector<PageNo> pages;
  for (int i = 0; i < 2000; ++i) {
    MiniTransaction mtr(pool.get());
    auto p = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(p.ok());
    pages.push_back(p->page_no());
  }
  for (int threads : {1, 2}) {
    constexpr int kLookups = 2'000'000;
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t) {
      ts.emplace_back([&, t] {
        std::mt19937 rng(t);
        uint64_t sink = 0;
        for (int i = 0; i < kLookups; ++i) {
          // A point get: root, two inner levels, a leaf.
          const PageNo leaf = pages[16 + rng() % (pages.size() - 16)];
          for (PageNo p : {pages[0], pages[1 + i % 3], pages[4 + i % 12], leaf}) {
            auto g = pool->FetchRead(p);
            sink += static_cast<uint64_t>(g->data()[40]);
          }
        }
        if (sink == 42) std::printf(".");
      });
    }
    for (auto& t : ts) t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "%d thread(s): %.2f M lookups/s (%.1f M FetchRead/s), %.1f ns per FetchRead per thread\n",
        threads, threads * kLookups / s / 1e6, threads * kLookups * 4 / s / 1e6,
        s * 1e9 / (kLookups * 4.0));
  }
}

TEST_CASE("mtr commit: a small change to one page", "[.bench][buffer_pool]") {
  auto o = testing::SmallOptions(4096);
  o.background_flusher = true;
  auto pool = testing::OpenOrDie(NewMemoryDisk("bench"), o);
  REQUIRE(pool);
  std::vector<PageNo> pages;
  for (int i = 0; i < 64; ++i) {
    MiniTransaction mtr(pool.get());
    auto p = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(p.ok());
    pages.push_back(p->page_no());
  }
  constexpr int kMtrs = 1'000'000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kMtrs; ++i) {
    MiniTransaction mtr(pool.get());
    auto p = mtr.Write(pages[i % pages.size()]);
    p->Write16(64, static_cast<uint16_t>(i));  // a slot
    p->Write64(1000 + (i % 500) * 16, i);      // a record
    p->Write16(40, static_cast<uint16_t>(i));  // the page header
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%.2f M mtrs/s (%.0f ns each)\n", kMtrs / s / 1e6, s * 1e9 / kMtrs);
}

}  // namespace
}  // namespace minnow
