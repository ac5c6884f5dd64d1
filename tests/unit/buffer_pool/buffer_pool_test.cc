// Opening, formatting, validation of page 0, damaged files.

#include "buffer_pool/buffer_pool.h"

#include <catch2/catch.hpp>

#include "buffer_pool/file_header.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/mtr.h"
#include "test_util.h"

namespace minnow {
namespace {

using testing::OpenOrDie;
using testing::SmallOptions;

// Creates a database with `n` leaf pages holding their page number at offset 100; closes it.
std::vector<PageNo> MakeDb(const std::shared_ptr<MemoryDisk>& disk, int n) {
  auto pool = OpenOrDie(disk, SmallOptions());
  REQUIRE(pool);
  std::vector<PageNo> pages;
  for (int i = 0; i < n; ++i) {
    MiniTransaction mtr(pool.get());
    auto page = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(page.ok());
    page->Write32(100, page->page_no());
    pages.push_back(page->page_no());
  }
  REQUIRE(pool->Close().ok());
  return pages;
}

TEST_CASE("format, write through an mtr, reopen", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  PageNo p;
  uint64_t id;
  {
    auto pool = OpenOrDie(disk, SmallOptions());
    REQUIRE(pool);
    CHECK(pool->stats().pages_in_file == 1);
    CHECK(pool->system_root(kCatalogRootSlot) == kInvalidPageNo);
    id = pool->database_id_hash();
    MiniTransaction mtr(pool.get());
    auto page = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(page.ok());
    p = page->page_no();
    CHECK(p == 1);
    page->Write32(100, 0xdeadbeef);
    REQUIRE(pool->SetSystemRoot(&mtr, kCatalogRootSlot, p).ok());
    CHECK(mtr.Commit() > 0);
    REQUIRE(pool->Close().ok());
    CHECK(pool->FetchRead(p).status().code() == Code::kClosed);
  }
  auto pool = OpenOrDie(disk, SmallOptions());
  REQUIRE(pool);
  CHECK(pool->database_id_hash() == id);
  CHECK(pool->stats().pages_in_file == 2);
  CHECK(pool->logical_size() == 2 * kPageSize);
  CHECK(pool->system_root(kCatalogRootSlot) == p);
  auto g = pool->FetchRead(p);
  REQUIRE(g.ok());
  CHECK(Load32(g->data() + 100) == 0xdeadbeef);
  CHECK(HeaderPageType(g->data()) == PageType::kBtreeLeaf);
  CHECK(HeaderPageNo(g->data()) == p);
}

TEST_CASE("fetch arguments", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  auto pool = OpenOrDie(disk, SmallOptions());
  REQUIRE(pool);
  CHECK(pool->FetchRead(kInvalidPageNo).status().code() == Code::kInvalidArgument);
  auto past = pool->FetchRead(5);
  CHECK(past.status().code() == Code::kCorruption);
  CHECK_THAT(past.status().message(), Catch::Contains("page 5"));
  auto busy_holder = pool->FetchWrite(0);
  REQUIRE(busy_holder.ok());
  CHECK(pool->TryFetchRead(0).status().code() == Code::kBusy);
  busy_holder->Release();
  CHECK(pool->TryFetchRead(0).ok());
}

TEST_CASE("an empty backend is not formatted without create_if_missing", "[buffer_pool]") {
  auto o = SmallOptions();
  o.create_if_missing = false;
  auto r = BufferPool::Open(NewMemoryBackend(NewMemoryDisk("x")), o);
  CHECK(r.status().code() == Code::kNotFound);
}

TEST_CASE("page 0 validation", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  MakeDb(disk, 3);
  const auto good = disk->Snapshot();

  SECTION("foreign file") {
    std::vector<std::byte> junk(3 * kPageSize, std::byte{'x'});
    disk->Restore(junk);
    auto r = BufferPool::Open(NewMemoryBackend(disk), SmallOptions());
    CHECK(r.status().code() == Code::kCorruption);
    CHECK(r.status().ToString() == "Corruption: db.minnow: not a minnow database (bad magic)");
  }
  SECTION("tiny file") {
    disk->Truncate(10);
    auto r = BufferPool::Open(NewMemoryBackend(disk), SmallOptions());
    CHECK(r.status().code() == Code::kCorruption);
    CHECK_THAT(r.status().message(), Catch::Contains("not a minnow database"));
  }
  SECTION("newer format version") {
    disk->FlipByte(file_header_offset::kFormatVersion + 1, 0x01);  // version 257
    auto r = BufferPool::Open(NewMemoryBackend(disk), SmallOptions());
    CHECK(r.status().code() == Code::kNotSupported);
    CHECK_THAT(r.status().message(), Catch::Contains("newer"));
  }
  SECTION("truncated file") {
    disk->Truncate(2 * kPageSize + 100);
    auto r = BufferPool::Open(NewMemoryBackend(disk), SmallOptions());
    CHECK(r.status().code() == Code::kCorruption);
    CHECK_THAT(r.status().message(), Catch::Contains("truncated"));
  }
  SECTION("page 0 checksum") {
    disk->FlipByte(file_header_offset::kSystemRoots + 7);
    auto r = BufferPool::Open(NewMemoryBackend(disk), SmallOptions());
    CHECK(r.status().code() == Code::kCorruption);
    CHECK_THAT(r.status().message(), Catch::StartsWith("db.minnow: page 0: checksum mismatch"));
  }
  SECTION("flipped byte in a data page") {
    disk->FlipByte(2 * kPageSize + 5000, 0x10);
    auto pool = OpenOrDie(disk, SmallOptions());
    REQUIRE(pool);
    auto r = pool->FetchRead(2);
    CHECK(r.status().code() == Code::kCorruption);
    CHECK_THAT(r.status().ToString(),
               Catch::StartsWith("Corruption: db.minnow: page 2: checksum mismatch (stored 0x"));
    CHECK(pool->FetchRead(2).status().code() == Code::kCorruption);  // again, no crash
    CHECK(pool->FetchRead(1).ok());
    CHECK(pool->FetchRead(3).ok());
  }
  SECTION("a page in the wrong place") {
    auto bytes = good;
    std::copy(good.begin() + 3 * kPageSize, good.begin() + 4 * kPageSize,
              bytes.begin() + 2 * kPageSize);
    disk->Restore(bytes);
    auto pool = OpenOrDie(disk, SmallOptions());
    REQUIRE(pool);
    auto r = pool->FetchRead(2);
    CHECK(r.status().code() == Code::kCorruption);
    CHECK_THAT(r.status().message(), Catch::Contains("page 2: page number mismatch"));
  }
  SECTION("every single-byte flip is caught or harmless") {
    for (uint64_t off = 0; off < 4 * kPageSize; off += 997) {
      disk->Restore(good);
      disk->FlipByte(off, 0x40);
      auto r = BufferPool::Open(NewMemoryBackend(disk), SmallOptions());
      if (!r.ok()) continue;
      for (PageNo p = 1; p < 4; ++p) {
        auto g = (*r)->FetchRead(p);
        if (off / kPageSize == p) CHECK(!g.ok());
      }
    }
  }
}

}  // namespace
}  // namespace minnow
