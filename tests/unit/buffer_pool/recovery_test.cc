// Recovery mode: redo groups applied through the pool (ApplyLogRecords) onto an old copy of the
// file, possibly shorter than its page count, give the pages the log describes.

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/file_header.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/memory_redo_log.h"
#include "buffer_pool/mtr.h"
#include "buffer_pool/page_codec.h"
#include "test_util.h"

namespace minnow {
namespace {

using testing::OpenOrDie;
using testing::SmallOptions;

struct History {
  std::vector<std::byte> snapshot;                  // the file after the first FlushAll
  std::vector<std::byte> final;                     // the file after the last one
  std::vector<std::pair<Lsn, std::string>> groups;  // every mtr since LSN 0: (end, records)
  uint32_t pages = 0;
  PageNo root1 = kInvalidPageNo;
  Lsn end_lsn = 0;
};

// Runs random mtrs (allocations, frees, small and whole-page changes, a system root) with a log
// that keeps everything, and returns the file before and after and the log.
History MakeHistory(size_t frames) {
  History h;
  auto disk = NewMemoryDisk("db.minnow");
  MemoryRedoLog log;
  log.SetRetainAll(true);
  auto pool = OpenOrDie(disk, SmallOptions(frames), &log);
  REQUIRE(pool);
  std::mt19937 rng(7);
  std::vector<PageNo> pages;
  for (int i = 0; i < 20; ++i) {
    MiniTransaction mtr(pool.get());
    auto p = mtr.Allocate(PageType::kBtreeLeaf, i % 3 == 0 ? kFlagCompressLz4 : 0);
    REQUIRE(p.ok());
    p->Write32(kPageHeaderSize, 1000 + i);
    pages.push_back(p->page_no());
  }
  REQUIRE(pool->FlushAll().ok());
  h.snapshot = disk->Snapshot();

  for (int i = 0; i < 300; ++i) {
    MiniTransaction mtr(pool.get());
    const int npages = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < npages; ++k) {
      auto p = mtr.Write(pages[rng() % pages.size()]);
      REQUIRE(p.ok());
      if (rng() % 8 == 0) {
        Bytes all = p->MutateAll();
        std::memset(all.data() + kPageHeaderSize, static_cast<int>(rng() % 256), kPageBodySize);
      } else {
        for (int j = 0; j < 4; ++j) {
          p->Write64(kPageHeaderSize + rng() % (kPageBodySize - 8), rng());
        }
      }
    }
    if (i % 20 == 0) {
      auto fresh = mtr.Allocate(PageType::kOverflow);
      REQUIRE(fresh.ok());
      fresh->Write32(kPageHeaderSize, 77 + i);
      pages.push_back(fresh->page_no());
    }
    if (i % 45 == 0) {
      auto victim = mtr.Write(pages.back());
      REQUIRE(victim.ok());
      REQUIRE(mtr.Free(*victim).ok());
      pages.pop_back();
    }
  }
  {
    MiniTransaction mtr(pool.get());
    REQUIRE(pool->SetSystemRoot(&mtr, 1, pages[5]).ok());
    h.root1 = pages[5];
  }
  REQUIRE(log.ForEach([&](Lsn end, ConstBytes rec) {
               h.groups.emplace_back(end, std::string(AsStringView(rec)));
               return Status::OK();
             })
              .ok());
  REQUIRE(pool->FlushAll().ok());
  h.final = disk->Snapshot();
  h.pages = static_cast<uint32_t>(pool->stats().pages_in_file);
  h.end_lsn = log.current_lsn();
  return h;
}

// Page p of a file image, decoded, with page 0's unlogged fields cleared.
std::vector<std::byte> Decoded(const std::vector<std::byte>& file, PageNo p) {
  std::vector<std::byte> page(kPageSize);
  std::memcpy(page.data(), file.data() + uint64_t{p} * kPageSize, kPageSize);
  REQUIRE(DecodePageImage("file", p, page.data()).ok());
  return page;
}

void ClearUnlogged(std::byte* page, PageNo p) {
  std::memset(page, 0, 4);  // the checksum is stale in a frame
  if (p != 0) return;
  std::memset(page + file_header_offset::kCheckpointLsn, 0, 8);
}

void CheckSamePages(BufferPool* pool, const History& h) {
  for (PageNo p = 0; p < h.pages; ++p) {
    std::vector<std::byte> want = Decoded(h.final, p);
    auto g = pool->FetchRead(p);
    REQUIRE(g.ok());
    std::vector<std::byte> got(g->data(), g->data() + kPageSize);
    ClearUnlogged(want.data(), p);
    ClearUnlogged(got.data(), p);
    INFO("page " << p);
    CHECK(std::memcmp(want.data(), got.data(), kPageSize) == 0);
  }
}

Status ApplyAll(BufferPool* pool, const History& h, size_t* changed) {
  *changed = 0;
  for (const auto& [end, rec] : h.groups) {
    ASSIGN_OR_RETURN(size_t n, pool->ApplyLogRecords(AsBytes(rec), end - rec.size(), end));
    *changed += n;
  }
  return Status::OK();
}

TEST_CASE("recovery applies the log onto an old copy of the file", "[buffer_pool]") {
  const size_t frames = GENERATE(size_t{16}, size_t{64});
  const bool truncate = GENERATE(false, true);
  INFO("frames " << frames << " truncate " << truncate);
  const History h = MakeHistory(frames);
  REQUIRE(h.groups.front().first - h.groups.front().second.size() == 0);  // from the start

  auto disk = NewMemoryDisk("db.minnow");
  disk->Restore(h.snapshot);
  if (truncate) disk->Truncate(10 * kPageSize);  // shorter than page 0's count (21)
  // Not in recovery mode, a short file is refused.
  if (truncate) {
    CHECK(BufferPool::Open(NewMemoryBackend(disk), SmallOptions(frames)).status().code() ==
          Code::kCorruption);
  }
  MemoryRedoLog log(h.end_lsn);
  auto o = SmallOptions(frames);
  o.recovery = true;
  auto r = BufferPool::Open(NewMemoryBackend(disk), o, &log);
  REQUIRE(r.ok());
  BufferPool* pool = r->get();
  size_t changed = 0;
  REQUIRE(ApplyAll(pool, h, &changed).ok());
  CHECK(changed > 300);
  CHECK(pool->stats().dirty_pages > 0);
  // Again: every page already has every mtr.
  REQUIRE(ApplyAll(pool, h, &changed).ok());
  CHECK(changed == 0);
  REQUIRE(pool->EndRecovery().ok());
  CHECK(pool->stats().pages_in_file == h.pages);
  CHECK(pool->system_root(1) == h.root1);
  CHECK(pool->logical_size() == uint64_t{h.pages} * kPageSize);
  CheckSamePages(pool, h);
  CHECK(pool->ApplyLogRecords(AsBytes(h.groups[0].second), 0, h.groups[0].first).status().code() ==
        Code::kInvalidArgument);

  // Written back and reopened normally: the same pages, and the file is usable again.
  REQUIRE(pool->Close().ok());
  auto again = OpenOrDie(disk, SmallOptions(frames));
  REQUIRE(again);
  CheckSamePages(again.get(), h);
  MiniTransaction mtr(again.get());
  auto p = mtr.Allocate(PageType::kBtreeLeaf);
  REQUIRE(p.ok());
  CHECK(p->page_no() < h.pages + 1);
}

TEST_CASE("recovery reports a damaged page that redo needs", "[buffer_pool]") {
  const History h = MakeHistory(64);
  auto disk = NewMemoryDisk("db.minnow");
  disk->Restore(h.snapshot);
  disk->FlipByte(3 * kPageSize + 5000, 0x10);  // page 3 is changed by the random mtrs
  MemoryRedoLog log(h.end_lsn);
  auto o = SmallOptions(64);
  o.recovery = true;
  auto r = BufferPool::Open(NewMemoryBackend(disk), o, &log);
  REQUIRE(r.ok());
  size_t changed = 0;
  Status st = ApplyAll(r->get(), h, &changed);
  CHECK(st.code() == Code::kCorruption);
  CHECK_THAT(st.message(), Catch::Contains("page 3: checksum mismatch"));
  CHECK_THAT(st.message(), Catch::Contains("no doublewrite copy repaired it"));
}

}  // namespace
}  // namespace minnow
