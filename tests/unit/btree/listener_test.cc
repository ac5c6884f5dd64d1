// RecordMoveListener: every reported move is checked by keeping key -> location from cursor
// scans, applying the reported moves and removals, and comparing with a fresh scan.

#include <map>
#include <random>
#include <set>

#include "btree_test_util.h"

namespace minnow {
namespace {

using testing::B;
using testing::PoolFixture;
using testing::RequireCheck;
using testing::S;
using testing::U32Key;

struct LocLess {
  bool operator()(const RecordLocation& a, const RecordLocation& b) const {
    return a.page_no != b.page_no ? a.page_no < b.page_no : a.heap_no < b.heap_no;
  }
};
using LocMap = std::map<RecordLocation, std::string, LocLess>;

// Tracks where each key lives, from the reports alone.
class TrackingListener : public RecordMoveListener {
 public:
  void OnRecordsMoved(std::span<const RecordMove> moves) override {
    std::vector<std::pair<RecordLocation, std::string>> moved;
    for (const RecordMove& m : moves) {
      REQUIRE(m.from.heap_no != kInfimumHeapNo);
      REQUIRE(m.to.heap_no != kInfimumHeapNo);
      if (m.from.heap_no == kSupremumHeapNo) {
        REQUIRE(m.to.heap_no == kSupremumHeapNo);
        ++supremum_moves;
        continue;
      }
      auto it = at.find(m.from);
      REQUIRE(it != at.end());  // a move from a place where no record was known
      moved.emplace_back(m.to, it->second);
      at.erase(it);
      if (m.from.page_no != m.to.page_no) ++cross_page_moves;
    }
    for (auto& [loc, key] : moved) {
      REQUIRE(at.count(loc) == 0);  // two records in one place
      at[loc] = key;
    }
  }
  void OnRecordInserted(RecordLocation inserted, RecordLocation successor) override {
    REQUIRE(!pending_insert.empty());
    REQUIRE(successor.page_no == inserted.page_no);
    if (successor.heap_no != kSupremumHeapNo) {
      auto next = at.find(successor);
      REQUIRE(next != at.end());
      REQUIRE(next->second > pending_insert);  // the successor follows it in key order
    }
    REQUIRE(at.emplace(inserted, pending_insert).second);
    pending_insert.clear();
    ++inserts;
  }
  void OnRecordRemoved(RecordLocation removed, RecordLocation successor) override {
    REQUIRE(at.erase(removed) == 1);
    if (successor.heap_no != kSupremumHeapNo) {
      REQUIRE(successor.page_no == removed.page_no);
      REQUIRE(at.count(successor) == 1);
    }
    ++removals;
  }
  void OnPageFreed(PageNo page_no) override {
    for (auto& [loc, key] : at) REQUIRE(loc.page_no != page_no);
    ++pages_freed;
  }

  LocMap at;
  std::string pending_insert;  // the key the next insert writes
  uint64_t inserts = 0;
  uint64_t cross_page_moves = 0, supremum_moves = 0, removals = 0, pages_freed = 0;
};

LocMap Scan(BTree* tree) {
  LocMap out;
  auto c = tree->NewCursor();
  REQUIRE(c->SeekToFirst().ok());
  while (c->Valid()) {
    REQUIRE(out.emplace(c->location(), S(c->key())).second);
    REQUIRE(c->Next().ok());
  }
  return out;
}

TEST_CASE("every record move is reported", "[btree]") {
  PoolFixture fx;
  TrackingListener listener;
  auto root = BTree::Create(fx.pool(), {});
  REQUIRE(root.ok());
  auto tree = std::move(BTree::Open(fx.pool(), *root, &listener)).value();
  std::mt19937 rng(3);
  std::set<uint32_t> present;
  auto insert = [&](uint32_t k, size_t len) {
    std::string key = U32Key(k);
    listener.pending_insert = key;
    if (!tree->Insert(B(key), B(std::string(len, 'v'))).ok()) return;
    REQUIRE(listener.pending_insert.empty());  // reported, with where it went
    present.insert(k);
  };
  for (int round = 0; round < 30; ++round) {
    for (int i = 0; i < 600; ++i) insert(rng() % 20000, rng() % 300);
    for (int i = 0; i < 300; ++i) {
      uint32_t k = rng() % 20000;
      std::string key = U32Key(k);
      // Growing updates move records (delete + insert) when the page is full.
      if (present.count(k) && rng() % 2 == 0) {
        RecordData before;
        auto r = tree->Get(B(key));
        REQUIRE(r.ok());
        REQUIRE(tree->Update(B(key), B(std::string(rng() % 1500, 'u'))).ok());
      }
    }
    int removes = round % 3 == 2 ? 900 : 200;
    for (int i = 0; i < removes; ++i) {
      uint32_t k = rng() % 20000;
      if (tree->Remove(B(U32Key(k))).ok()) present.erase(k);
    }
    REQUIRE(listener.at == Scan(tree.get()));
  }
  RequireCheck(*tree);
  // Drain the tree: merges down to a single root leaf.
  for (uint32_t k : present) {
    Status st = tree->Remove(B(U32Key(k)));
    INFO(k << " " << st.ToString());
    REQUIRE(st.ok());
  }
  REQUIRE(listener.at.empty());
  TreeStats st = tree->stats();
  CHECK(st.splits > 50);
  CHECK(st.merges > 20);
  CHECK(st.redistributions > 0);
  CHECK(st.root_raises >= 1);
  CHECK(st.root_collapses >= 1);
  CHECK(listener.cross_page_moves > 1000);
  CHECK(listener.inserts == listener.removals);  // the tree is empty again
  CHECK(listener.supremum_moves > 50);
  CHECK(listener.pages_freed > 20);
  CheckReport rep = RequireCheck(*tree);
  CHECK(rep.height == 1);
}

}  // namespace
}  // namespace minnow
