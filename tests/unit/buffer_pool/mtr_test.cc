// Mini-transactions: redo round trip, free list, a pool smaller than the data.

#include "buffer_pool/mtr.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <deque>
#include <map>
#include <random>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/file_header.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/memory_redo_log.h"
#include "buffer_pool/page_codec.h"
#include "test_util.h"

namespace minnow {
namespace {

using testing::OpenOrDie;
using testing::SmallOptions;

TEST_CASE("memory redo log: groups across chunks, checkpoints, reuse", "[buffer_pool]") {
  MemoryRedoLog log(1000);
  std::mt19937 rng(7);
  std::deque<std::pair<Lsn, std::string>> kept;  // what the log should hold
  Lsn lsn = 1000;
  auto check = [&] {
    size_t i = 0;
    REQUIRE(log.ForEach([&](Lsn end, ConstBytes rec) {
                 REQUIRE(i < kept.size());
                 CHECK(end == kept[i].first);
                 CHECK(AsStringView(rec) == kept[i].second);
                 ++i;
                 return Status::OK();
               })
                .ok());
    CHECK(i == kept.size());
    CHECK(log.group_count() == kept.size());
    CHECK(log.current_lsn() == lsn);
    CHECK(log.bytes_since_checkpoint() == lsn - log.checkpoint_lsn());
  };
  for (int round = 0; round < 3000; ++round) {
    // Mostly small groups, some page-sized, a few larger than a chunk (1 MiB).
    const uint32_t r = rng() % 1000;
    const size_t len = r < 990 ? rng() % 40000 : (1 << 20) + rng() % 100000;
    std::string g(len, static_cast<char>('a' + round % 26));
    if (len > 0) g[rng() % len] = 'Z';
    lsn += len;
    if (round % 2 == 0) {
      CHECK(log.Append(AsBytes(g)) == lsn);
    } else if (len > 0) {
      CHECK(log.AppendEncoded(len, [&](Bytes dst) {
        REQUIRE(dst.size() == len);
        std::memcpy(dst.data(), g.data(), len);
      }) == lsn);
    } else {
      CHECK(log.Append(AsBytes(g)) == lsn);
    }
    kept.emplace_back(lsn, std::move(g));
    if (rng() % 50 == 0) {
      // Checkpoint at a random point: in a group, at a group's end, or at the end.
      const Lsn ck =
          rng() % 4 == 0 ? lsn : log.checkpoint_lsn() + rng() % (lsn - log.checkpoint_lsn() + 1);
      log.Checkpoint(ck);
      while (!kept.empty() && kept.front().first <= ck) kept.pop_front();
      CHECK(log.checkpoint_lsn() == ck);
    }
    if (round % 100 == 0) check();
  }
  check();
  log.Checkpoint(lsn);
  kept.clear();
  check();
  CHECK(log.Append(AsBytes(std::string("xyz"))) == lsn + 3);
  lsn += 3;
  kept.emplace_back(lsn, "xyz");
  check();
}

TEST_CASE("mtr redo replayed onto an old copy gives the same pages", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  MemoryRedoLog log;
  auto pool = OpenOrDie(disk, SmallOptions(32), &log);
  REQUIRE(pool);
  std::mt19937 rng(42);
  std::vector<PageNo> pages;
  for (int i = 0; i < 20; ++i) {
    MiniTransaction mtr(pool.get());
    auto p = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(p.ok());
    pages.push_back(p->page_no());
  }
  REQUIRE(pool->FlushAll().ok());
  const std::vector<std::byte> snapshot = disk->Snapshot();
  const Lsn snapshot_lsn = log.current_lsn();
  REQUIRE(log.group_count() == 0);  // checkpointed

  for (int i = 0; i < 400; ++i) {
    MiniTransaction mtr(pool.get());
    const int npages = 1 + rng() % 3;
    for (int k = 0; k < npages; ++k) {
      auto p = mtr.Write(pages[rng() % pages.size()]);
      REQUIRE(p.ok());
      switch (rng() % 10) {
        case 0: {  // whole page
          Bytes all = p->MutateAll();
          std::memset(all.data() + kPageHeaderSize, static_cast<int>(rng() % 256), kPageBodySize);
          break;
        }
        case 2: {  // whole page with a run of zeros: logged as a sparse image
          Bytes all = p->MutateAll();
          for (size_t j = kPageHeaderSize; j < kPageSize; ++j) {
            all[j] = static_cast<std::byte>(1 + rng() % 255);
          }
          const size_t gap = kPageHeaderSize + rng() % kPageBodySize;
          const size_t len = std::min<size_t>(rng() % 12000, kPageSize - gap);
          std::memset(all.data() + gap, 0, len);
          break;
        }
        case 3:
        case 4: {  // moves (logged as moves unless a write of this mtr touched the source)
          const int n = 1 + rng() % 4;
          for (int j = 0; j < n; ++j) {
            const size_t len = rng() % 3000;
            const size_t src = kPageHeaderSize + rng() % (kPageBodySize - len);
            const size_t dst = kPageHeaderSize + rng() % (kPageBodySize - len);
            if (rng() % 2 == 0) p->Write64(kPageHeaderSize + rng() % (kPageBodySize - 8), rng());
            p->Move(dst, src, len);
          }
          break;
        }
        case 1: {  // big ranges: become an image
          Bytes b = p->Mutate(kPageHeaderSize + rng() % 100, 9000);
          std::memset(b.data(), static_cast<int>(rng()), b.size());
          break;
        }
        default: {
          const int n = 1 + rng() % 6;
          for (int j = 0; j < n; ++j) {
            const size_t off = kPageHeaderSize + rng() % (kPageBodySize - 64);
            p->Write64(off, rng());
            p->Write16(off + 4, static_cast<uint16_t>(rng()));  // overlapping
          }
        }
      }
    }
    if (i % 50 == 0) {
      auto fresh = mtr.Allocate(PageType::kOverflow, kFlagCompressLz4);
      REQUIRE(fresh.ok());
      fresh->Write32(kPageHeaderSize, 77);
      pages.push_back(fresh->page_no());
    }
    if (i % 97 == 0) {
      auto victim = mtr.Write(pages.back());
      REQUIRE(victim.ok());
      REQUIRE(mtr.Free(*victim).ok());
      pages.pop_back();
    }
  }
  // Copy the groups before FlushAll checkpoints them away.
  std::vector<std::pair<Lsn, std::string>> groups;
  REQUIRE(log.ForEach([&](Lsn end, ConstBytes rec) {
               groups.emplace_back(end, std::string(AsStringView(rec)));
               return Status::OK();
             })
              .ok());
  REQUIRE(!groups.empty());
  CHECK(groups.front().first > snapshot_lsn);
  REQUIRE(pool->FlushAll().ok());
  const std::vector<std::byte> flushed = disk->Snapshot();
  const size_t npages = pool->stats().pages_in_file;

  // Replay onto decoded pages of the snapshot.
  std::map<PageNo, std::vector<std::byte>> replay;
  auto page_for = [&](PageNo p) -> Result<std::byte*> {
    auto it = replay.find(p);
    if (it == replay.end()) {
      std::vector<std::byte> bytes(kPageSize);
      if ((uint64_t{p} + 1) * kPageSize <= snapshot.size()) {
        std::memcpy(bytes.data(), snapshot.data() + uint64_t{p} * kPageSize, kPageSize);
        RETURN_IF_ERROR(DecodePageImage("snapshot", p, bytes.data()));
      }
      it = replay.emplace(p, std::move(bytes)).first;
    }
    return it->second.data();
  };
  for (const auto& [end, rec] : groups) REQUIRE(ApplyRedo(AsBytes(rec), end, page_for).ok());
  // Replaying again changes nothing (page_lsn >= end).
  auto before = replay;
  for (const auto& [end, rec] : groups) REQUIRE(ApplyRedo(AsBytes(rec), end, page_for).ok());
  CHECK(before == replay);

  for (PageNo p = 0; p < npages; ++p) {
    std::vector<std::byte> want(kPageSize);
    std::memcpy(want.data(), flushed.data() + uint64_t{p} * kPageSize, kPageSize);
    REQUIRE(DecodePageImage("flushed", p, want.data()).ok());
    std::vector<std::byte> got(kPageSize);
    if (replay.count(p) != 0) {
      got = replay[p];
    } else {
      std::memcpy(got.data(), snapshot.data() + uint64_t{p} * kPageSize, kPageSize);
      REQUIRE(DecodePageImage("snapshot", p, got.data()).ok());
    }
    if (p == 0) {  // the checkpoint LSN is written unlogged by FlushAll
      std::memset(want.data() + file_header_offset::kCheckpointLsn, 0, 8);
      std::memset(got.data() + file_header_offset::kCheckpointLsn, 0, 8);
    }
    INFO("page " << p);
    CHECK(std::memcmp(want.data() + 4, got.data() + 4, kPageSize - 4) == 0);
  }
}

TEST_CASE("ApplyRedo rejects a malformed stream without changing anything", "[buffer_pool]") {
  std::vector<std::byte> page(kPageSize);
  auto page_for = [&](PageNo) -> Result<std::byte*> { return page.data(); };
  const std::byte bad[] = {std::byte{1}, std::byte{3}, std::byte{1}, std::byte{40},
                           std::byte{100}};  // 100 bytes promised, none given
  CHECK(ApplyRedo(ConstBytes(bad, sizeof(bad)), 10, page_for).code() == Code::kCorruption);
  // A sparse image whose gap ends past the page (offset 16000, 1000 bytes).
  const std::byte past_end[] = {std::byte{3},    std::byte{3},    std::byte{0x80},
                                std::byte{0x7d}, std::byte{0xe8}, std::byte{0x07}};
  CHECK(ApplyRedo(ConstBytes(past_end, sizeof(past_end)), 10, page_for).code() ==
        Code::kCorruption);
  // A move of 16384 bytes from offset 40.
  const std::byte long_move[] = {std::byte{4},  std::byte{3},    std::byte{1},    std::byte{40},
                                 std::byte{40}, std::byte{0x80}, std::byte{0x80}, std::byte{1}};
  CHECK(ApplyRedo(ConstBytes(long_move, sizeof(long_move)), 10, page_for).code() ==
        Code::kCorruption);
  const std::byte unknown[] = {std::byte{9}, std::byte{3}};
  CHECK(ApplyRedo(ConstBytes(unknown, sizeof(unknown)), 10, page_for).code() == Code::kCorruption);
  CHECK(std::all_of(page.begin(), page.end(), [](std::byte b) { return b == std::byte{0}; }));
}

TEST_CASE("freed pages are reused: churn does not grow the file", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  auto pool = OpenOrDie(disk, SmallOptions(16));
  REQUIRE(pool);
  std::vector<PageNo> live;
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    MiniTransaction mtr(pool.get());
    if (live.size() < 50 && (live.size() < 10 || rng() % 2 == 0)) {
      auto p = mtr.Allocate(PageType::kBtreeLeaf);
      REQUIRE(p.ok());
      live.push_back(p->page_no());
    } else {
      const size_t i = rng() % live.size();
      auto p = mtr.Write(live[i]);
      REQUIRE(p.ok());
      REQUIRE(mtr.Free(*p).ok());
      live.erase(live.begin() + static_cast<ptrdiff_t>(i));
    }
  }
  const auto st = pool->stats();
  CHECK(st.pages_in_file <= 52);
  CHECK(st.free_pages == st.pages_in_file - 1 - live.size());
  REQUIRE(pool->Close().ok());
  // The free list survives a reopen and is still consistent.
  auto again = OpenOrDie(disk, SmallOptions(16));
  REQUIRE(again);
  CHECK(again->stats().free_pages == st.free_pages);
  for (uint64_t i = 0; i < st.free_pages; ++i) {
    MiniTransaction mtr(again.get());
    REQUIRE(mtr.Allocate(PageType::kBtreeLeaf).ok());
  }
  CHECK(again->stats().pages_in_file == st.pages_in_file);
  CHECK(again->stats().free_pages == 0);
  MiniTransaction mtr(again.get());
  REQUIRE(mtr.Allocate(PageType::kBtreeLeaf).ok());
  CHECK(again->stats().pages_in_file == st.pages_in_file + 1);
}

TEST_CASE("free and allocate in an mtr that holds page 0", "[buffer_pool]") {
  auto pool = OpenOrDie(NewMemoryDisk("db"), SmallOptions());
  REQUIRE(pool);
  MiniTransaction mtr(pool.get());
  REQUIRE(pool->SetSystemRoot(&mtr, 1, 5).ok());
  auto a = mtr.Allocate(PageType::kBtreeLeaf);
  REQUIRE(a.ok());
  const PageNo pa = a->page_no();
  REQUIRE(mtr.Free(*a).ok());
  auto b = mtr.Allocate(PageType::kBtreeNode);  // would wait on its own latch if a were held
  REQUIRE(b.ok());
  CHECK(b->page_no() != pa);
  mtr.Commit();
  CHECK(pool->stats().free_pages == 1);
  CHECK(pool->system_root(1) == 5);
  MiniTransaction m2(pool.get());
  auto c = m2.Allocate(PageType::kBtreeLeaf);
  REQUIRE(c.ok());
  CHECK(c->page_no() == pa);
  CHECK(HeaderPageType(c->data()) == PageType::kBtreeLeaf);
}

TEST_CASE("a pool smaller than the data", "[buffer_pool]") {
  auto disk = NewMemoryDisk("db.minnow");
  auto pool = OpenOrDie(disk, SmallOptions(16));
  REQUIRE(pool);
  std::vector<PageNo> pages;
  for (int i = 0; i < 1000; ++i) {
    MiniTransaction mtr(pool.get());
    auto p = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(p.ok());
    std::byte* body = p->Mutate(kPageHeaderSize, 64).data();
    for (int j = 0; j < 64; ++j) body[j] = std::byte(i + j);
    pages.push_back(p->page_no());
  }
  CHECK(pool->stats().evictions > 900);
  CHECK(pool->stats().writes > 900);
  for (int i = 0; i < 1000; ++i) {
    auto g = pool->FetchRead(pages[i]);
    REQUIRE(g.ok());
    for (int j = 0; j < 64; ++j) REQUIRE(g->data()[kPageHeaderSize + j] == std::byte(i + j));
  }
  REQUIRE(pool->Close().ok());
  auto again = OpenOrDie(disk, SmallOptions(16));
  REQUIRE(again);
  for (int i = 999; i >= 0; --i) {
    auto g = again->FetchRead(pages[i]);
    REQUIRE(g.ok());
    REQUIRE(g->data()[kPageHeaderSize + 3] == std::byte(i + 3));
  }
}

TEST_CASE("all frames pinned is an error, not a deadlock", "[buffer_pool]") {
  auto pool = OpenOrDie(NewMemoryDisk("db"), SmallOptions(16));
  REQUIRE(pool);
  std::vector<PageNo> pages;
  for (int i = 0; i < 40; ++i) {
    MiniTransaction mtr(pool.get());
    auto p = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(p.ok());
    pages.push_back(p->page_no());
  }
  std::vector<ReadPageGuard> held;
  Status last;
  for (PageNo p : pages) {
    auto g = pool->FetchRead(p);
    if (!g.ok()) {
      last = g.status();
      break;
    }
    held.push_back(std::move(*g));
  }
  CHECK(held.size() == 15);  // page 0 keeps one frame
  CHECK(last.code() == Code::kNoSpace);
  CHECK(last.message() == "buffer pool full: all 16 frames pinned");
  held.clear();
  CHECK(pool->FetchRead(pages.back()).ok());
}

}  // namespace
}  // namespace minnow

namespace minnow {
namespace {

TEST_CASE("mtr bookkeeping", "[buffer_pool]") {
  auto pool = testing::OpenOrDie(NewMemoryDisk("db"), testing::SmallOptions());
  REQUIRE(pool);
  PageNo a;
  PageNo b;
  {
    MiniTransaction mtr(pool.get());
    auto pa = mtr.Allocate(PageType::kBtreeLeaf);
    auto pb = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE((pa.ok() && pb.ok()));
    a = pa->page_no();
    b = pb->page_no();
  }
  const Lsn before = pool->log()->current_lsn();
  {
    MiniTransaction mtr(pool.get());
    auto pa = mtr.Write(a);
    REQUIRE(pa.ok());
    CHECK(mtr.holds(a));
    CHECK(!mtr.changed(*pa));
    auto again = mtr.Write(a);  // the same page, not a second latch
    REQUIRE(again.ok());
    CHECK(again->data() == pa->data());
    mtr.ReleaseUnchanged(*pa);
    CHECK(!mtr.holds(a));
    CHECK(mtr.Commit() == 0);  // nothing changed: nothing logged
    CHECK(mtr.Commit() == 0);
  }
  CHECK(pool->log()->current_lsn() == before);
  {
    auto guard = pool->FetchWrite(b);
    REQUIRE(guard.ok());
    MiniTransaction mtr(pool.get());
    MtrPage pb = mtr.Adopt(std::move(*guard));
    pb.Write16(200, 7);
    CHECK(mtr.changed(pb));
    const Lsn end = mtr.Commit();
    CHECK(end > before);
    CHECK(mtr.Commit() == end);  // idempotent
    auto g = pool->FetchRead(b);
    REQUIRE(g.ok());
    CHECK(HeaderPageLsn(g->data()) == end);
    CHECK(Load16(g->data() + 200) == 7);
  }
  {
    MiniTransaction mtr(pool.get());
    auto p0 = mtr.Write(0);
    REQUIRE(p0.ok());
    CHECK(mtr.Free(*p0).code() == Code::kInvalidArgument);
    MiniTransaction other(pool.get());
    CHECK(other.Free(*p0).code() == Code::kInvalidArgument);
  }
  CHECK(pool->stats().dirty_pages > 0);
  REQUIRE(pool->FlushAll().ok());
  CHECK(pool->stats().dirty_pages == 0);
}

}  // namespace
}  // namespace minnow
