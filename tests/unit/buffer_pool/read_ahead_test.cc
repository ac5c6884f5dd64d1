// Read-ahead (BufferPool::ReadAhead): the pages it reads are the file's, checked and counted,
// adjacent ones in one request; it leaves resident and damaged pages alone; pages it read that
// are evicted before use are counted and safe; fetches racing the read-ahead thread see whole
// pages.

#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/mtr.h"
#include "test_util.h"

namespace minnow {
namespace {

using testing::OpenOrDie;
using testing::SmallOptions;

constexpr size_t kStamp = kPageHeaderSize + 100;

// Allocates `n` pages, each with its page number written at kStamp, and closes the pool.
std::vector<PageNo> MakePages(const std::shared_ptr<MemoryDisk>& disk, int n) {
  std::vector<PageNo> pages;
  auto pool = OpenOrDie(disk, SmallOptions(64));
  REQUIRE(pool);
  for (int i = 0; i < n; ++i) {
    MiniTransaction mtr(pool.get());
    auto p = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(p.ok());
    p->Write32(kStamp, p->page_no() * 7 + 1);
    pages.push_back(p->page_no());
  }
  REQUIRE(pool->Close().ok());
  return pages;
}

BufferPoolOptions Inline(size_t frames) {
  BufferPoolOptions o = SmallOptions(frames);
  o.background_read_ahead = false;  // read before ReadAhead returns: exact counts
  return o;
}

// Fetches `p` and checks it is the page written by MakePages.
void RequirePage(BufferPool* pool, PageNo p) {
  auto g = pool->FetchRead(p);
  REQUIRE(g.ok());
  CHECK(Load32(g->data() + kStamp) == p * 7 + 1);
}

TEST_CASE("read-ahead reads the pages given, one request per span of close pages",
          "[buffer_pool][read_ahead]") {
  auto disk = NewMemoryDisk("db");
  const std::vector<PageNo> pages = MakePages(disk, 40);
  REQUIRE(pages.front() == 1);
  REQUIRE(pages.back() == 40);
  auto pool = OpenOrDie(disk, Inline(64));
  REQUIRE(pool);
  const BufferPoolStats before = pool->stats();
  // Two spans (3..12 and 30..34, given out of order and with a repeat: 17 pages apart, more than
  // a read spans) and page 0 (resident).
  std::vector<PageNo> want = {30, 31, 32, 33, 34, 0, 12, 3, 4, 5, 6, 7, 8, 9, 10, 11, 32};
  pool->ReadAhead(want);
  const BufferPoolStats after = pool->stats();
  CHECK(after.reads - before.reads == 15);
  CHECK(after.read_ahead - before.read_ahead == 15);
  CHECK(after.read_calls - before.read_calls == 2);
  CHECK(after.misses == before.misses);
  for (PageNo p = 3; p <= 12; ++p) RequirePage(pool.get(), p);
  for (PageNo p = 30; p <= 34; ++p) RequirePage(pool.get(), p);
  const BufferPoolStats used = pool->stats();
  CHECK(used.reads == after.reads);  // every fetch was a hit
  CHECK(used.misses == after.misses);
  CHECK(used.hits - after.hits == 15);
  // Already resident: nothing is read again.
  pool->ReadAhead(want);
  CHECK(pool->stats().reads == after.reads);
  // Past the end of the file and kInvalidPageNo: ignored.
  const std::vector<PageNo> beyond = {41, 1000, kInvalidPageNo};
  pool->ReadAhead(beyond);
  CHECK(pool->stats().reads == after.reads);
  // A fetch of a page not read ahead still reads it alone.
  RequirePage(pool.get(), 20);
  CHECK(pool->stats().read_calls == after.read_calls + 1);
  // Pages a few apart: one request, and the pages between are read past, not kept.
  const std::vector<PageNo> close = {36, 40};
  pool->ReadAhead(close);
  const BufferPoolStats spanned = pool->stats();
  CHECK(spanned.read_calls == after.read_calls + 2);
  CHECK(spanned.read_ahead == after.read_ahead + 2);
  RequirePage(pool.get(), 36);
  RequirePage(pool.get(), 40);
  CHECK(pool->stats().read_calls == spanned.read_calls);
  RequirePage(pool.get(), 38);  // between them: not in the pool, read now
  CHECK(pool->stats().read_calls == spanned.read_calls + 1);
  CHECK(pool->stats().read_ahead == spanned.read_ahead);
}

TEST_CASE("read-ahead skips a damaged page and its fetch reports it", "[buffer_pool][read_ahead]") {
  auto disk = NewMemoryDisk("db");
  MakePages(disk, 10);
  disk->FlipByte(uint64_t{5} * kPageSize + kStamp);
  auto pool = OpenOrDie(disk, Inline(64));
  REQUIRE(pool);
  const BufferPoolStats before = pool->stats();  // page 0 was read at open
  const std::vector<PageNo> want = {4, 5, 6};
  pool->ReadAhead(want);
  const BufferPoolStats st = pool->stats();
  CHECK(st.read_ahead == 2);
  CHECK(st.reads - before.reads == 2);
  CHECK(st.read_calls - before.read_calls == 1);  // one for the run; page 5 failed its checksum
  RequirePage(pool.get(), 4);
  RequirePage(pool.get(), 6);
  auto g = pool->FetchRead(5);
  REQUIRE(!g.ok());
  CHECK(g.status().code() == Code::kCorruption);
  CHECK(g.status().message().find("page 5") != std::string::npos);
}

TEST_CASE("read-ahead of a page changed in the pool keeps the change",
          "[buffer_pool][read_ahead]") {
  auto disk = NewMemoryDisk("db");
  MakePages(disk, 10);
  auto pool = OpenOrDie(disk, Inline(64));
  REQUIRE(pool);
  {
    MiniTransaction mtr(pool.get());
    auto p = mtr.Write(7);
    REQUIRE(p.ok());
    p->Write32(kStamp, 12345);
  }
  const uint64_t reads = pool->stats().reads;
  const std::vector<PageNo> want = {7};
  pool->ReadAhead(want);
  CHECK(pool->stats().reads == reads);
  auto g = pool->FetchRead(7);
  REQUIRE(g.ok());
  CHECK(Load32(g->data() + kStamp) == 12345);
}

TEST_CASE("read-ahead pages evicted before use are counted, and later fetches read them again",
          "[buffer_pool][read_ahead]") {
  auto disk = NewMemoryDisk("db");
  const std::vector<PageNo> pages = MakePages(disk, 80);
  auto pool = OpenOrDie(disk, Inline(16));  // 16 frames: at most 4 pages a call
  REQUIRE(pool);
  for (size_t i = 0; i < pages.size(); i += 8) {
    const std::vector<PageNo> batch(pages.begin() + i, pages.begin() + i + 8);
    pool->ReadAhead(batch);
  }
  BufferPoolStats st = pool->stats();
  CHECK(st.read_ahead == 40);  // a quarter of the pool per call
  CHECK(st.read_ahead_evicted >= 40 - 15);
  CHECK(st.read_ahead_evicted <= 40);
  for (PageNo p : pages) RequirePage(pool.get(), p);
  // The pages read ahead and then used are not counted as evicted when they go later.
  const uint64_t evicted = pool->stats().read_ahead_evicted;
  for (PageNo p : pages) RequirePage(pool.get(), p);
  CHECK(pool->stats().read_ahead_evicted == evicted);
}

TEST_CASE("background read-ahead: fetches racing it see whole pages, each read once",
          "[buffer_pool][read_ahead]") {
  auto disk = NewMemoryDisk("db");
  const std::vector<PageNo> pages = MakePages(disk, 200);
  BufferPoolOptions o = SmallOptions(1024);
  o.background_read_ahead = true;
  auto pool = OpenOrDie(disk, o);
  REQUIRE(pool);
  const uint64_t reads_at_open = pool->stats().reads;  // page 0
  std::thread other([&] {
    for (PageNo p : pages) RequirePage(pool.get(), p);
  });
  for (size_t i = 0; i < pages.size(); i += 50) {
    const std::vector<PageNo> batch(pages.begin() + i, pages.begin() + i + 50);
    pool->ReadAhead(batch);
  }
  for (PageNo p : pages) RequirePage(pool.get(), p);
  other.join();
  pool->WaitForReadAhead();
  const BufferPoolStats st = pool->stats();
  CHECK(st.reads - reads_at_open == pages.size());  // never twice, whoever read it
  CHECK(st.read_ahead + st.misses >= pages.size());
  CHECK(st.read_ahead_evicted == 0);
  REQUIRE(pool->Close().ok());
}

TEST_CASE("read-ahead off reads nothing", "[buffer_pool][read_ahead]") {
  auto disk = NewMemoryDisk("db");
  const std::vector<PageNo> pages = MakePages(disk, 10);
  BufferPoolOptions o = SmallOptions(64);
  o.read_ahead = false;
  auto pool = OpenOrDie(disk, o);
  REQUIRE(pool);
  CHECK(!pool->read_ahead_enabled());
  const uint64_t reads_at_open = pool->stats().reads;  // page 0
  pool->ReadAhead(pages);
  pool->WaitForReadAhead();
  CHECK(pool->stats().reads == reads_at_open);
  CHECK(pool->stats().read_ahead == 0);
}

}  // namespace
}  // namespace minnow
