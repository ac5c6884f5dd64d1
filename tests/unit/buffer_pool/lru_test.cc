// Replacement: the LRU midpoint keeps a hot set through a scan; hits on young pages are cheap.

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/mtr.h"
#include "test_util.h"

namespace minnow {
namespace {

using testing::OpenOrDie;
using testing::SmallOptions;

std::vector<PageNo> Fill(BufferPool* pool, int n) {
  std::vector<PageNo> pages;
  for (int i = 0; i < n; ++i) {
    MiniTransaction mtr(pool);
    auto p = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(p.ok());
    pages.push_back(p->page_no());
  }
  return pages;
}

bool Touch(BufferPool* pool, PageNo p) { return pool->FetchRead(p).ok(); }

TEST_CASE("a hot set survives a full scan of cold pages", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db");
  std::vector<PageNo> pages;
  {
    auto pool = OpenOrDie(disk, SmallOptions(64));
    REQUIRE(pool);
    pages = Fill(pool.get(), 600);
    REQUIRE(pool->Close().ok());
  }
  auto o = SmallOptions(64);
  o.old_blocks_time_ms = 100;
  auto pool = OpenOrDie(disk, o);
  REQUIRE(pool);
  const std::vector<PageNo> hot(pages.begin(), pages.begin() + 16);
  for (PageNo p : hot) REQUIRE(Touch(pool.get(), p));
  for (PageNo p : hot) REQUIRE(Touch(pool.get(), p));  // too soon: still old
  CHECK(pool->stats().young_moves == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  for (PageNo p : hot) REQUIRE(Touch(pool.get(), p));  // later: made young
  CHECK(pool->stats().young_moves > 0);

  // A scan touches every cold page a few times in quick succession (as a cursor does).
  for (size_t i = 16; i < pages.size(); ++i) {
    for (int k = 0; k < 3; ++k) REQUIRE(Touch(pool.get(), pages[i]));
  }
  const uint64_t reads_after_scan = pool->stats().reads;
  CHECK(reads_after_scan >= 16 + pages.size() - 16);
  CHECK(pool->stats().evictions > 500);
  for (PageNo p : hot) REQUIRE(Touch(pool.get(), p));
  CHECK(pool->stats().reads == reads_after_scan);  // the hot set was not evicted

  // Without the midpoint rule (old_blocks_time 0: the scan's second touch promotes), the same
  // scan flushes the hot set.
  auto plain_o = SmallOptions(64);
  plain_o.old_blocks_time_ms = 0;
  REQUIRE(pool->Close().ok());
  pool.reset();
  auto plain = OpenOrDie(disk, plain_o);
  REQUIRE(plain);
  for (int k = 0; k < 2; ++k) {
    for (PageNo p : hot) REQUIRE(Touch(plain.get(), p));
  }
  for (size_t i = 16; i < pages.size(); ++i) {
    for (int k = 0; k < 3; ++k) REQUIRE(Touch(plain.get(), pages[i]));
  }
  const uint64_t before = plain->stats().reads;
  for (PageNo p : hot) REQUIRE(Touch(plain.get(), p));
  CHECK(plain->stats().reads > before);
}

TEST_CASE("hits and misses are counted", "[buffer_pool]") {
  auto pool = OpenOrDie(NewMemoryDisk("db"), SmallOptions(32));
  REQUIRE(pool);
  auto pages = Fill(pool.get(), 8);
  const auto s0 = pool->stats();
  for (int k = 0; k < 10; ++k) {
    for (PageNo p : pages) REQUIRE(Touch(pool.get(), p));
  }
  const auto s1 = pool->stats();
  CHECK(s1.hits - s0.hits == 80);
  CHECK(s1.misses == s0.misses);
  CHECK(s1.frames == 32);
}

TEST_CASE("stats count free frames, frames holding pages and pages created", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db");
  auto pool = OpenOrDie(disk, SmallOptions(64));
  REQUIRE(pool);
  const BufferPoolStats fresh = pool->stats();
  CHECK(fresh.frames == 64);
  CHECK(fresh.free_frames + fresh.lru_pages == 64);
  CHECK(fresh.pages_created == 0);
  Fill(pool.get(), 10);
  const BufferPoolStats ten = pool->stats();
  CHECK(ten.pages_created == 10);
  CHECK(ten.lru_pages == fresh.lru_pages + 10);  // each new page took a free frame
  CHECK(ten.free_frames == fresh.free_frames - 10);
  Fill(pool.get(), 100);  // more pages than frames: every frame holds one
  const BufferPoolStats full = pool->stats();
  CHECK(full.pages_created == 110);
  CHECK(full.free_frames == 0);
  CHECK(full.lru_pages == 64);
  CHECK(full.old_lru_pages > 0);
  CHECK(full.old_lru_pages < full.lru_pages);
  REQUIRE(pool->Close().ok());
}

}  // namespace
}  // namespace minnow
