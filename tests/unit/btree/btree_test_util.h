#pragma once
// Shared helpers for the btree tests: a buffer pool over a MemoryDisk that can be closed and
// reopened, and key/value makers.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "btree/btree.h"
#include "btree/cursor.h"
#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/disk_backend.h"
#include "buffer_pool/memory_disk.h"

namespace minnow::testing {

class PoolFixture {
 public:
  // `flusher`: run the background flusher (which also checkpoints the in-memory redo log, so
  // long runs do not keep all of it).
  explicit PoolFixture(size_t frames = 256, bool flusher = false)
      : disk_(NewMemoryDisk("btree_test")), flusher_(flusher) {
    Open(frames);
  }
  ~PoolFixture() {
    if (pool_) (void)pool_->Close();
  }

  void Open(size_t frames) {
    BufferPoolOptions o;
    o.pool_bytes = frames * kPageSize;
    o.background_flusher = flusher_;
    o.log_capacity_bytes = 64u << 20;
    auto r = BufferPool::Open(NewMemoryBackend(disk_), o);
    REQUIRE(r.ok());
    pool_ = std::move(r).value();
  }
  // Clean close and reopen on the same bytes (optionally with another pool size).
  void Reopen(size_t frames) {
    REQUIRE(pool_->Close().ok());
    pool_.reset();
    Open(frames);
  }
  BufferPool* pool() { return pool_.get(); }
  MemoryDisk* disk() { return disk_.get(); }

 private:
  std::shared_ptr<MemoryDisk> disk_;
  bool flusher_ = false;
  std::unique_ptr<BufferPool> pool_;
};

inline std::string U32Key(uint32_t v) {
  std::string k(4, '\0');
  StoreBE32(reinterpret_cast<std::byte*>(k.data()), v);
  return k;
}

inline ConstBytes B(const std::string& s) { return AsBytes(s); }

inline std::string S(ConstBytes b) { return std::string(AsStringView(b)); }

// Runs Check() and REQUIREs it passes; returns the report.
inline CheckReport RequireCheck(const BTree& tree) {
  auto r = tree.Check();
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

// Creates an empty tree in `pool` and opens it; REQUIREs both succeed.
inline std::unique_ptr<BTree> NewTree(BufferPool* pool, TreeOptions options = {}) {
  auto root = BTree::Create(pool, options);
  REQUIRE(root.ok());
  auto tree = BTree::Open(pool, *root);
  REQUIRE(tree.ok());
  return std::move(tree).value();
}

}  // namespace minnow::testing
