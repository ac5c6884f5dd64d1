// Fault injection: failed, short and torn writes, failed syncs and reads, the WAL rule.

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <thread>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/memory_redo_log.h"
#include "buffer_pool/mtr.h"
#include "test_util.h"

namespace minnow {
namespace {

using testing::OpenOrDie;
using testing::SmallOptions;

// Allocates `n` pages, each holding `tag` at body offset 0.
std::vector<PageNo> Write(BufferPool* pool, int n, uint32_t tag) {
  std::vector<PageNo> pages;
  for (int i = 0; i < n; ++i) {
    MiniTransaction mtr(pool);
    auto p = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(p.ok());
    p->Write32(kPageHeaderSize, tag);
    pages.push_back(p->page_no());
  }
  return pages;
}

TEST_CASE("a failed write surfaces from FlushAll and is fatal", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  auto pool = OpenOrDie(disk, SmallOptions());
  REQUIRE(pool);
  auto pages = Write(pool.get(), 5, 11);
  SECTION("error") { disk->FailWrite(2); }
  SECTION("short write") { disk->FailWrite(1, WriteFault::kShort); }
  Status st = pool->FlushAll();
  CHECK(st.code() == Code::kIOError);
  CHECK_THAT(st.message(), Catch::Contains("db.minnow: injected write fault"));
  CHECK_THAT(st.message(), Catch::Contains("writing page"));
  const uint64_t dirty = pool->stats().dirty_pages;
  CHECK(dirty >= 1);  // the failed page stays dirty
  CHECK(pool->fatal_error().code() == Code::kIOError);
  // The fault was one-shot, but the pool writes nothing more (fatal_error() says why).
  const uint64_t writes = disk->write_count();
  CHECK(pool->FlushAll().code() == Code::kIOError);
  CHECK(pool->stats().dirty_pages == dirty);
  CHECK(disk->write_count() == writes);
  CHECK(pool->Close().code() == Code::kIOError);
  // Pages still read from the pool.
}

TEST_CASE("a torn page left by a crash is caught by its checksum", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  std::vector<PageNo> pages;
  {
    auto pool = OpenOrDie(disk, SmallOptions());
    REQUIRE(pool);
    pages = Write(pool.get(), 3, 1);
    REQUIRE(pool->FlushAll().ok());
    MiniTransaction mtr(pool.get());
    auto p = mtr.Write(pages[1]);
    REQUIRE(p.ok());
    std::memset(p->Mutate(kPageHeaderSize, kPageBodySize).data(), 0x5a, kPageBodySize);
    mtr.Commit();
    disk->FailWrite(0, WriteFault::kShort, /*sticky=*/true);
    CHECK(!pool->FlushAll().ok());
    disk->ClearFaults();
    // "Crash": the pool is dropped without Close().
  }
  auto pool = OpenOrDie(disk, SmallOptions());
  REQUIRE(pool);
  auto g = pool->FetchRead(pages[1]);
  CHECK(g.status().code() == Code::kCorruption);
  CHECK_THAT(g.status().message(), Catch::Contains("page " + std::to_string(pages[1])));
  CHECK(pool->FetchRead(pages[0]).ok());
}

TEST_CASE("a failed sync surfaces from FlushAll and Close", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  MemoryRedoLog log;
  auto pool = OpenOrDie(disk, SmallOptions(), &log);
  REQUIRE(pool);
  Write(pool.get(), 2, 1);
  disk->FailSync(true);
  CHECK(pool->FlushAll().code() == Code::kIOError);
  disk->FailSync(false);
  // Fatal: even with the fault gone nothing is written and nothing is checkpointed.
  CHECK(pool->FlushAll().code() == Code::kIOError);
  CHECK(log.checkpoint_lsn() == 0);
  CHECK(pool->Close().code() == Code::kIOError);
}

TEST_CASE("a failed read is an error and the page can be read later", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  std::vector<PageNo> pages;
  {
    auto pool = OpenOrDie(disk, SmallOptions());
    REQUIRE(pool);
    pages = Write(pool.get(), 2, 9);
    REQUIRE(pool->Close().ok());
  }
  auto pool = OpenOrDie(disk, SmallOptions());
  REQUIRE(pool);
  disk->FailRead(0);
  auto g = pool->FetchRead(pages[0]);
  CHECK(g.status().code() == Code::kIOError);
  CHECK_THAT(g.status().message(), Catch::Contains("reading page"));
  auto again = pool->FetchRead(pages[0]);
  REQUIRE(again.ok());
  CHECK(Load32(again->data() + kPageHeaderSize) == 9);
}

TEST_CASE("eviction write failure surfaces from the fetch that needed the frame", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  auto pool = OpenOrDie(disk, SmallOptions(16));
  REQUIRE(pool);
  auto pages = Write(pool.get(), 15, 3);  // every frame dirty
  disk->FailWrite(0, WriteFault::kError, /*sticky=*/true);
  MiniTransaction mtr(pool.get());
  auto p = mtr.Allocate(PageType::kBtreeLeaf);
  CHECK(p.status().code() == Code::kIOError);
  mtr.Commit();
  disk->ClearFaults();
  // Fatal: no dirty page is written any more, clean and resident pages still read.
  CHECK(pool->FlushAll().code() == Code::kIOError);
  CHECK(pool->fatal_error().code() == Code::kIOError);
  for (PageNo pg : pages) REQUIRE(pool->FetchRead(pg).ok());
}

TEST_CASE("the WAL rule: no page is written before its redo is durable", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  MemoryRedoLog log;
  auto pool = OpenOrDie(disk, SmallOptions(16), &log);
  REQUIRE(pool);
  int violations = 0;
  int checked = 0;
  disk->SetWriteHook([&](uint64_t offset, ConstBytes src) {
    if (offset % kPageSize != 0 || src.size() < kPageHeaderSize) return;
    ++checked;
    if (HeaderPageLsn(src.data()) > log.flushed_lsn()) ++violations;
  });
  Write(pool.get(), 100, 5);  // evictions write pages
  REQUIRE(pool->FlushAll().ok());
  CHECK(checked > 100);
  CHECK(violations == 0);

  // With the log unable to flush, no dirty page may reach the disk.
  MiniTransaction mtr(pool.get());
  auto p = mtr.Write(1);
  REQUIRE(p.ok());
  p->Write32(kPageHeaderSize, 99);
  mtr.Commit();
  log.FailFlush(true);
  const uint64_t writes = disk->write_count();
  Status st = pool->FlushAll();
  CHECK(st.code() == Code::kIOError);
  CHECK_THAT(st.message(), Catch::Contains("redo log flush"));
  CHECK(disk->write_count() == writes);
  log.FailFlush(false);
  CHECK(pool->FlushAll().ok());
  disk->SetWriteHook(nullptr);
}

TEST_CASE("the flusher checkpoints when the log passes its capacity", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  MemoryRedoLog log;
  auto o = SmallOptions(64);
  o.background_flusher = true;
  o.flusher_interval_ms = 5;
  o.log_capacity_bytes = 64 * 1024;
  auto pool = OpenOrDie(disk, o, &log);
  REQUIRE(pool);
  for (int i = 0; i < 40; ++i) {  // each logs a page image of ~16 KiB (no zero run to leave out)
    MiniTransaction mtr(pool.get());
    auto p = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(p.ok());
    Bytes body = p->Mutate(kPageHeaderSize, kPageBodySize);
    std::memset(body.data(), 0x5a, body.size());
  }
  for (int i = 0; i < 200 && log.checkpoint_lsn() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(log.checkpoint_lsn() > 0);
  CHECK(pool->background_error().ok());
  REQUIRE(pool->Close().ok());
  CHECK(log.bytes_since_checkpoint() == 0);
  // The checkpoint is recorded in page 0: a reopened pool's own log continues from it.
  auto again = OpenOrDie(disk, SmallOptions());
  REQUIRE(again);
  CHECK(again->log()->current_lsn() == log.current_lsn());
}

TEST_CASE("the flusher keeps the dirty fraction down", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  auto o = SmallOptions(64);
  o.background_flusher = true;
  o.flusher_interval_ms = 5;
  o.max_dirty_fraction = 0.25;
  auto pool = OpenOrDie(disk, o);
  REQUIRE(pool);
  Write(pool.get(), 40, 1);
  for (int i = 0; i < 200 && pool->stats().dirty_pages > 16; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(pool->stats().dirty_pages <= 16);
}

}  // namespace
}  // namespace minnow
