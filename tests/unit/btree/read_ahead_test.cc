// Scans read ahead (btree/leaf_read_ahead.h): a forward walk over a tree larger than the pool
// reads its leaves ahead, in few requests, and still sees every record once, in order, also
// while the tree changes under it.

#include <catch2/catch.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "btree/btree.h"
#include "btree/cursor.h"
#include "btree_test_util.h"
#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/memory_disk.h"

namespace minnow {
namespace {

using testing::B;
using testing::NewTree;
using testing::RequireCheck;
using testing::S;

constexpr uint32_t kRecords = 40000;

std::string Key(uint32_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%010u", i);
  return buf;
}

struct Fixture {
  std::shared_ptr<MemoryDisk> disk = NewMemoryDisk("read_ahead_test");
  std::unique_ptr<BufferPool> pool;
  PageNo root = kInvalidPageNo;
  CheckReport shape;

  // A tree of kRecords records with keys Key(2 * i) (room between them), 16 MiB or so.
  Fixture() {
    Open(2048, true, false);
    auto tree = NewTree(pool.get());
    const std::string value(400, 'v');
    for (uint32_t i = 0; i < kRecords; ++i) REQUIRE(tree->Insert(B(Key(2 * i)), B(value)).ok());
    shape = RequireCheck(*tree);
    REQUIRE(shape.height >= 3);  // several level-1 nodes
    root = tree->root();
  }
  ~Fixture() {
    if (pool) (void)pool->Close();
  }
  void Open(size_t frames, bool read_ahead, bool background) {
    if (pool) REQUIRE(pool->Close().ok());
    pool.reset();
    BufferPoolOptions o;
    o.pool_bytes = frames * kPageSize;
    o.background_flusher = false;
    o.read_ahead = read_ahead;
    o.background_read_ahead = background;
    auto r = BufferPool::Open(NewMemoryBackend(disk), o);
    REQUIRE(r.ok());
    pool = std::move(r).value();
  }
  std::unique_ptr<BTree> Tree() {
    auto t = BTree::Open(pool.get(), root);
    REQUIRE(t.ok());
    return std::move(t).value();
  }
};

// Scans with Next and checks every record is there once, in order.
void ScanAll(BTree* tree) {
  auto c = tree->NewCursor();
  REQUIRE(c->SeekToFirst().ok());
  uint32_t i = 0;
  for (; c->Valid(); ++i) {
    REQUIRE(i < kRecords);
    REQUIRE(S(c->key()) == Key(2 * i));
    REQUIRE(c->Next().ok());
  }
  CHECK(i == kRecords);
}

// Counts with WalkRightLatched (as Transaction::Count does).
uint64_t CountAll(BTree* tree) {
  auto c = tree->NewCursor();
  REQUIRE(c->SeekToFirst().ok());
  REQUIRE(c->Valid());
  uint64_t n = static_cast<uint64_t>(c->leaf().n);
  auto walk = c->WalkRightLatched([&](const LeafImage& leaf) -> Result<int> {
    n += static_cast<uint64_t>(leaf.n);
    return Cursor::kNextLeaf;
  });
  REQUIRE(walk.ok());
  CHECK(*walk == Cursor::Walk::kEnd);
  return n;
}

TEST_CASE("a scan reads its leaves ahead, in few requests", "[btree][read_ahead]") {
  Fixture fx;
  const uint64_t leaves = fx.shape.leaf_pages;
  for (const bool walk : {false, true}) {
    DYNAMIC_SECTION((walk ? "WalkRightLatched" : "Next")) {
      fx.Open(512, true, false);  // a quarter of the tree; read ahead inline: exact counts
      auto tree = fx.Tree();
      if (walk) {
        CHECK(CountAll(tree.get()) == kRecords);
      } else {
        ScanAll(tree.get());
      }
      const BufferPoolStats st = fx.pool->stats();
      INFO("leaves " << leaves << " reads " << st.reads << " read ahead " << st.read_ahead
                     << " calls " << st.read_calls << " misses " << st.misses);
      CHECK(st.read_ahead >= leaves - 16);  // all but the first few leaves
      CHECK(st.read_ahead_evicted == 0);
      CHECK(st.reads <= 1 + leaves + fx.shape.node_pages);  // page 0 and the tree, once each
      CHECK(st.read_calls * 4 < st.reads);                  // adjacent leaves in one request
    }
  }
}

TEST_CASE("a scan with read-ahead off reads page by page", "[btree][read_ahead]") {
  Fixture fx;
  fx.Open(512, false, false);
  auto tree = fx.Tree();
  ScanAll(tree.get());
  const BufferPoolStats st = fx.pool->stats();
  CHECK(st.read_ahead == 0);
  CHECK(st.read_calls == st.reads);
  CHECK(st.reads >= fx.shape.leaf_pages);
}

TEST_CASE("background read-ahead: a scan and a count racing it see every record",
          "[btree][read_ahead]") {
  Fixture fx;
  fx.Open(512, true, true);
  auto tree = fx.Tree();
  ScanAll(tree.get());
  CHECK(CountAll(tree.get()) == kRecords);
  fx.pool->WaitForReadAhead();
  CHECK(fx.pool->stats().read_ahead > 0);
  RequireCheck(*tree);
}

TEST_CASE("a scan whose leaves split and merge ahead of it sees every record once",
          "[btree][read_ahead]") {
  Fixture fx;
  fx.Open(256, true, false);  // small: read-ahead pages are evicted too
  auto tree = fx.Tree();
  auto c = tree->NewCursor();
  REQUIRE(c->SeekToFirst().ok());
  uint32_t i = 0;
  int64_t added = 0;
  const std::string big(800, 'n');
  for (; c->Valid(); ++i) {
    REQUIRE(i < kRecords);
    REQUIRE(S(c->key()) == Key(2 * i));
    if (i % 200 == 0) {
      // Big records with odd keys (the scan skips them) split the leaves ahead of the scan;
      // removing those of the step before, still ahead too, merges them again: the child lists
      // read ahead go stale.
      for (uint32_t k = i + 300; k < i + 340 && k < kRecords; ++k) {
        REQUIRE(tree->Insert(B(Key(2 * k + 1)), B(big)).ok());
        ++added;
      }
      for (uint32_t k = i + 100; i >= 200 && k < i + 140 && k < kRecords; ++k) {
        REQUIRE(tree->Remove(B(Key(2 * k + 1))).ok());
        --added;
      }
    }
    do {
      REQUIRE(c->Next().ok());
    } while (c->Valid() && (S(c->key()).back() - '0') % 2 == 1);  // an odd key
  }
  CHECK(i == kRecords);
  CHECK(fx.pool->stats().read_ahead > 0);
  CHECK(tree->stats().splits > 0);
  CHECK(tree->stats().merges + tree->stats().redistributions > 0);
  CHECK(RequireCheck(*tree).records == static_cast<uint64_t>(kRecords + added));
}

}  // namespace
}  // namespace minnow
