#pragma once
// Shared helpers for the myisam tests: a buffer pool over a MemoryDisk (with a MemoryRedoLog the
// test can replay) that can be closed and reopened, and heap shorthands.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/memory_redo_log.h"
#include "myisam/row_heap.h"

namespace minnow::testing {

class HeapFixture {
 public:
  explicit HeapFixture(size_t frames = 128) : disk_(NewMemoryDisk("heap_test.minnow")) {
    Open(frames);
  }
  ~HeapFixture() {
    heap_.reset();
    if (pool_) (void)pool_->Close();
  }

  void Open(size_t frames) {
    frames_ = frames;
    BufferPoolOptions o;
    o.pool_bytes = frames * kPageSize;
    o.background_flusher = false;
    o.old_blocks_time_ms = 0;
    // A reopened file's log goes on from its checkpoint, so page LSNs keep growing.
    Lsn start = 0;
    if (disk_->size() > 0) {
      auto info = ReadFileHeader(NewMemoryBackend(disk_).get());
      REQUIRE(info.ok());
      start = info->checkpoint_lsn;
    }
    log_ = std::make_unique<MemoryRedoLog>(start);
    auto r = BufferPool::Open(NewMemoryBackend(disk_), o, log_.get());
    REQUIRE(r.ok());
    pool_ = std::move(r).value();
  }
  // Creates a heap and opens it.
  RowHeap* NewHeap() {
    auto h = RowHeap::Create(pool());
    REQUIRE(h.ok());
    OpenHeap(*h);
    return heap_.get();
  }
  RowHeap* OpenHeap(PageNo header) {
    auto heap = RowHeap::Open(pool(), header);
    INFO(heap.status().ToString());
    REQUIRE(heap.ok());
    heap_ = std::move(heap).value();
    return heap_.get();
  }
  // Clean close and reopen of the pool on the same bytes; the heap is reopened from its header.
  RowHeap* Reopen() {
    const PageNo header = heap_->header_page();
    heap_.reset();
    REQUIRE(pool_->Close().ok());
    pool_.reset();
    Open(frames_);
    return OpenHeap(header);
  }
  BufferPool* pool() { return pool_.get(); }
  MemoryDisk* disk() { return disk_.get(); }
  MemoryRedoLog* log() { return log_.get(); }
  RowHeap* heap() { return heap_.get(); }
  void set_heap(std::unique_ptr<RowHeap> heap) { heap_ = std::move(heap); }

 private:
  std::shared_ptr<MemoryDisk> disk_;
  size_t frames_ = 0;
  std::unique_ptr<MemoryRedoLog> log_;
  std::unique_ptr<BufferPool> pool_;
  std::unique_ptr<RowHeap> heap_;
};

inline ConstBytes B(const std::string& s) { return AsBytes(s); }

inline std::string Row(int i, size_t len = 40) {
  std::string s = "row-" + std::to_string(i) + "-";
  while (s.size() < len) s += static_cast<char>('a' + (s.size() + i) % 26);
  s.resize(len);
  return s;
}

inline RowPosition InsertOk(RowHeap* heap, const std::string& row, InsertMode mode) {
  auto r = heap->Insert(B(row), mode);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

inline std::string GetOk(const RowHeap& heap, RowPosition pos) {
  std::string row;
  Status st = heap.Get(pos, &row);
  INFO(st.ToString());
  REQUIRE(st.ok());
  return row;
}

inline HeapCheckReport RequireCheck(const RowHeap& heap) {
  auto r = heap.Check();
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

inline HeapStats StatsOk(const RowHeap& heap) {
  auto r = heap.stats();
  REQUIRE(r.ok());
  return *r;
}

// Every row a scan bounded by `end` returns, in scan order.
inline std::vector<std::pair<RowPosition, std::string>> ScanAll(const RowHeap& heap,
                                                                const HeapEnd* end = nullptr) {
  auto scan = end != nullptr ? heap.NewScan(*end) : heap.NewScan();
  REQUIRE(scan.ok());
  std::vector<std::pair<RowPosition, std::string>> out;
  RowPosition pos;
  std::string row;
  for (;;) {
    auto more = (*scan)->Next(&pos, &row);
    INFO(more.status().ToString());
    REQUIRE(more.ok());
    if (!*more) break;
    out.emplace_back(pos, row);
  }
  return out;
}

}  // namespace minnow::testing
