// lz4 page compression: compressed images in their 16 KiB slot, the rest punched out.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/mtr.h"
#include "test_util.h"
#include "tests/test_temp_dir.h"

namespace minnow {
namespace {

using testing::SmallOptions;
using testing::TempDir;

// Fills the body with text-like bytes (compressible) or random bytes.
void FillBody(MtrPage& page, uint32_t seed, bool compressible) {
  Bytes body = page.Mutate(kPageHeaderSize, kPageBodySize);
  std::mt19937 rng(seed);
  for (size_t i = 0; i < body.size(); ++i) {
    body[i] = compressible ? std::byte("minnow stores rows "[(i + seed) % 19]) : std::byte(rng());
  }
}

void CheckBody(const std::byte* page, uint32_t seed, bool compressible) {
  std::mt19937 rng(seed);
  for (size_t i = 0; i < kPageBodySize; ++i) {
    const std::byte want =
        compressible ? std::byte("minnow stores rows "[(i + seed) % 19]) : std::byte(rng());
    if (page[kPageHeaderSize + i] != want) FAIL("byte " << i << " differs");
  }
}

TEST_CASE("lz4 pages make the file sparse and read back identical", "[buffer_pool]") {
  TempDir dir("minnow_bp");
  const std::string path = dir.file("db.minnow");
  constexpr int kPages = 200;
  std::vector<PageNo> pages;
  {
    auto disk = OpenFileBackend(path, true);
    REQUIRE(disk.ok());
    auto pool = BufferPool::Open(std::move(*disk), SmallOptions(32));
    REQUIRE(pool.ok());
    for (int i = 0; i < kPages; ++i) {
      MiniTransaction mtr(pool->get());
      const bool compress = i % 4 != 3;
      auto p = mtr.Allocate(PageType::kBtreeLeaf, compress ? kFlagCompressLz4 : 0);
      REQUIRE(p.ok());
      FillBody(*p, i, i % 8 != 5);  // some compress-flagged pages are incompressible
      pages.push_back(p->page_no());
    }
    REQUIRE((*pool)->Close().ok());
    const auto st = (*pool)->stats();
    CHECK(st.compressed_writes > 100);
    auto phys = (*pool)->physical_size();
    REQUIRE(phys.ok());
    const uint64_t logical = (*pool)->logical_size();
    INFO("physical " << *phys << " logical " << logical);
    CHECK(logical == uint64_t{kPages + 1} * kPageSize);
    // 125 pages compress to one 4 KiB block each: at least 12 KiB saved per page.
    CHECK(*phys + 125 * 12 * 1024 <= logical + 64 * 1024);
  }
  auto disk = OpenFileBackend(path, false);
  REQUIRE(disk.ok());
  auto pool = BufferPool::Open(std::move(*disk), SmallOptions(16));
  REQUIRE(pool.ok());
  for (int i = 0; i < kPages; ++i) {
    auto g = (*pool)->FetchRead(pages[i]);
    REQUIRE(g.ok());
    const uint16_t flags = HeaderFlags(g->data());
    CHECK((flags & kFlagStoredCompressed) == 0);  // on-disk only
    CHECK(((flags & kFlagCompressLz4) != 0) == (i % 4 != 3));
    CheckBody(g->data(), i, i % 8 != 5);
  }
}

TEST_CASE("a damaged compressed page is an error, not a crash", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  PageNo p;
  {
    auto pool = testing::OpenOrDie(disk, SmallOptions());
    REQUIRE(pool);
    MiniTransaction mtr(pool.get());
    auto page = mtr.Allocate(PageType::kOverflow, kFlagCompressLz4);
    REQUIRE(page.ok());
    FillBody(*page, 1, true);
    p = page->page_no();
    mtr.Commit();
    REQUIRE(pool->Close().ok());
    CHECK(pool->stats().compressed_writes >= 1);
  }
  CHECK(disk->PhysicalSize() < disk->size());
  const auto good = disk->Snapshot();
  // Bytes past stored_len (the zero padding of the last 4 KiB block) are not part of the
  // page; every byte before it is checked.
  for (size_t off : {size_t{4}, size_t{17}, size_t{20}, size_t{40}, size_t{60}}) {
    disk->Restore(good);
    disk->FlipByte(uint64_t{p} * kPageSize + off, 0x21);
    auto pool = testing::OpenOrDie(disk, SmallOptions());
    REQUIRE(pool);
    auto g = pool->FetchRead(p);
    INFO("offset " << off);
    CHECK(g.status().code() == Code::kCorruption);
    CHECK_THAT(g.status().message(), Catch::Contains("page " + std::to_string(p)));
  }
}

}  // namespace
}  // namespace minnow
