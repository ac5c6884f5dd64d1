// Many threads fetching and changing pages through mtrs while pages are evicted, flushed,
// checkpointed, allocated and freed. Invariants: every page's stored crc matches its data, and
// the sum of the pages' counters equals the number of increments made. Bounded in time.

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/memory_redo_log.h"
#include "buffer_pool/mtr.h"
#include "common/crc32c.h"
#include "test_util.h"

namespace minnow {
namespace {

constexpr size_t kCrc = kPageHeaderSize;  // crc32c of the data area
constexpr size_t kCount = kCrc + 4;       // increments of this page
constexpr size_t kData = kCount + 4;
constexpr size_t kDataLen = 512;

uint32_t DataCrc(const std::byte* page) {
  return crc32c::Value(ConstBytes(page + kData, kDataLen));
}

struct Workload {
  int threads;
  int seconds_ms;
  size_t frames;
  int pages;
};

void Run(const Workload& w) {
  auto disk = NewMemoryDisk("stress.minnow");
  MemoryRedoLog log;
  BufferPoolOptions o = testing::SmallOptions(w.frames);
  o.background_flusher = true;
  o.flusher_interval_ms = 1;
  o.max_dirty_fraction = 0.3;
  o.log_capacity_bytes = 256 * 1024;
  o.old_blocks_time_ms = 5;
  auto pool = testing::OpenOrDie(disk, o, &log);
  REQUIRE(pool);
  std::vector<PageNo> pages;
  for (int i = 0; i < w.pages; ++i) {
    MiniTransaction mtr(pool.get());
    auto p = mtr.Allocate(PageType::kBtreeLeaf);
    REQUIRE(p.ok());
    p->Write32(kCrc, DataCrc(p->data()));
    pages.push_back(p->page_no());
  }

  std::atomic<uint64_t> increments{0};
  std::atomic<uint64_t> failures{0};
  std::atomic<uint64_t> reads{0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(w.seconds_ms);
  auto worker = [&](int id) {
    std::mt19937 rng(id * 7919 + 1);
    auto fail = [&](const Status& st) {
      if (failures.fetch_add(1) < 5) UNSCOPED_INFO("thread " << id << ": " << st.ToString());
    };
    uint64_t ops = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      ++ops;
      const int dice = static_cast<int>(rng() % 100);
      if (dice < 55) {
        auto g = (rng() % 8 == 0) ? pool->TryFetchRead(pages[rng() % pages.size()])
                                  : pool->FetchRead(pages[rng() % pages.size()]);
        if (!g.ok()) {
          if (g.status().code() != Code::kBusy) fail(g.status());
          continue;
        }
        if (Load32(g->data() + kCrc) != DataCrc(g->data())) fail(Status::Corruption("bad crc"));
        reads.fetch_add(1, std::memory_order_relaxed);
      } else if (dice < 95) {
        // 1-3 distinct pages in ascending order (the latch order).
        std::vector<PageNo> mine;
        const int n = 1 + static_cast<int>(rng() % 3);
        while (static_cast<int>(mine.size()) < n) {
          PageNo p = pages[rng() % pages.size()];
          if (std::find(mine.begin(), mine.end(), p) == mine.end()) mine.push_back(p);
        }
        std::sort(mine.begin(), mine.end());
        MiniTransaction mtr(pool.get());
        std::vector<MtrPage> held;
        for (PageNo p : mine) {
          auto page = mtr.Write(p);
          if (!page.ok()) {
            fail(page.status());
            break;
          }
          held.push_back(*page);
        }
        if (held.size() != mine.size()) continue;
        for (MtrPage& page : held) {
          if (Load32(page.data() + kCrc) != DataCrc(page.data())) fail(Status::Corruption("crc"));
          page.Write32(kCount, Load32(page.data() + kCount) + 1);
          const size_t off = rng() % (kDataLen - 8);
          page.Write64(kData + off, rng());
          page.Write32(kCrc, DataCrc(page.data()));
          increments.fetch_add(1, std::memory_order_relaxed);
        }
        if (rng() % 16 == 0) {
          // Allocate a scratch page in the same mtr and free it in the next one.
          auto scratch = mtr.Allocate(PageType::kOverflow, rng() % 2 ? kFlagCompressLz4 : 0);
          if (!scratch.ok()) {
            fail(scratch.status());
            continue;
          }
          const PageNo sp = scratch->page_no();
          scratch->Write32(kPageHeaderSize, 1234);
          mtr.Commit();
          MiniTransaction m2(pool.get());
          auto again = m2.Write(sp);
          if (!again.ok()) {
            fail(again.status());
            continue;
          }
          if (Load32(again->data() + kPageHeaderSize) != 1234) fail(Status::Corruption("scratch"));
          Status st = m2.Free(*again);
          if (!st.ok()) fail(st);
        }
      } else if (id == 0 && dice < 97) {
        Status st = pool->FlushAll();
        if (!st.ok()) fail(st);
      }
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < w.threads; ++i) threads.emplace_back(worker, i);
  for (auto& t : threads) t.join();
  CHECK(failures.load() == 0);
  CHECK(pool->background_error().ok());

  auto verify = [&](BufferPool* p) {
    uint64_t sum = 0;
    for (PageNo pg : pages) {
      auto g = p->FetchRead(pg);
      REQUIRE(g.ok());
      CHECK(Load32(g->data() + kCrc) == DataCrc(g->data()));
      sum += Load32(g->data() + kCount);
    }
    CHECK(sum == increments.load());
  };
  verify(pool.get());
  const auto st = pool->stats();
  INFO("reads " << reads.load() << " increments " << increments.load() << " evictions "
                << st.evictions << " writes " << st.writes);
  CHECK(increments.load() > 100);
  WARN("reads " << reads.load() << " increments " << increments.load() << " evictions "
                << st.evictions << " writes " << st.writes);
  CHECK(st.pages_in_file < static_cast<uint64_t>(w.pages) + 1 + 2 * w.threads + 8);
  REQUIRE(pool->Close().ok());
  pool.reset();
  auto again = testing::OpenOrDie(disk, testing::SmallOptions(w.frames));
  REQUIRE(again);
  verify(again.get());
}

TEST_CASE("concurrent fetches and mtrs keep every page consistent", "[buffer_pool]") {
  Run(Workload{.threads = 4, .seconds_ms = 1500, .frames = 24, .pages = 64});
}

TEST_CASE("concurrency stress: more threads, a tiny pool", "[.stress][buffer_pool]") {
  Run(Workload{.threads = 8, .seconds_ms = 4000, .frames = 32, .pages = 200});
}

}  // namespace
}  // namespace minnow
