// B+tree basics: create/open, point operations, splits and merges, cursors, overflow values,
// sys fields, bad input.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "btree_test_util.h"

namespace minnow {
namespace {

using testing::B;
using testing::NewTree;
using testing::PoolFixture;
using testing::RequireCheck;
using testing::S;
using testing::U32Key;

TEST_CASE("an empty tree", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool());
  CHECK(tree->Get(B("x")).status().code() == Code::kNotFound);
  auto c = tree->NewCursor();
  REQUIRE(c->SeekToFirst().ok());
  CHECK(!c->Valid());
  REQUIRE(c->SeekToLast().ok());
  CHECK(!c->Valid());
  REQUIRE(c->Seek(B("a")).ok());
  CHECK(!c->Valid());
  CheckReport rep = RequireCheck(*tree);
  CHECK(rep.records == 0);
  CHECK(rep.height == 1);
}

TEST_CASE("point operations", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool());
  REQUIRE(tree->Insert(B("b"), B("2")).ok());
  REQUIRE(tree->Insert(B("a"), B("1")).ok());
  CHECK(tree->Insert(B("a"), B("x")).code() == Code::kDuplicateKey);
  REQUIRE(tree->Insert(B(""), B("empty key")).ok());
  CHECK(tree->Get(B(""))->value == "empty key");
  CHECK(tree->Get(B("a"))->value == "1");
  RecordData old;
  REQUIRE(tree->Update(B("a"), B("11"), {}, &old).ok());
  CHECK(old.value == "1");
  CHECK(tree->Get(B("a"))->value == "11");
  CHECK(tree->Update(B("zz"), B("1")).code() == Code::kNotFound);
  bool existed = true;
  REQUIRE(tree->Upsert(B("c"), B("3"), {}, nullptr, &existed).ok());
  CHECK(!existed);
  REQUIRE(tree->Upsert(B("c"), B("33"), {}, &old, &existed).ok());
  CHECK(existed);
  CHECK(old.value == "3");
  REQUIRE(tree->SetDeleteMark(B("b"), true).ok());
  CHECK(tree->Get(B("b"))->delete_marked);
  REQUIRE(tree->Update(B("b"), B("22")).ok());
  CHECK(!tree->Get(B("b"))->delete_marked);  // Update clears the mark
  REQUIRE(tree->Remove(B("b"), &old).ok());
  CHECK(old.value == "22");
  CHECK(tree->Remove(B("b")).code() == Code::kNotFound);
  CHECK(tree->Get(B("b")).status().code() == Code::kNotFound);
  RequireCheck(*tree);
}

TEST_CASE("BeforeChange is told once per write, before it, and can veto it", "[btree]") {
  PoolFixture fx(64);
  auto tree = NewTree(fx.pool());
  std::vector<std::string> seen;  // "+" for an insert, else the old value
  Status veto;
  BeforeChange notice = [&](WriteNotice* n) {
    seen.push_back(n->old == nullptr ? "+" : n->old->value);
    return veto;
  };
  // Enough records, with big values, that some writes split and merge (the pessimistic path).
  const std::string big(3000, 'v');
  for (uint32_t i = 0; i < 200; ++i) {
    REQUIRE(tree->Insert(B(U32Key(i)), B(big), {}, &notice).ok());
  }
  CHECK(seen.size() == 200);
  CHECK(std::count(seen.begin(), seen.end(), "+") == 200);
  seen.clear();
  CHECK(tree->Insert(B(U32Key(7)), B("dup"), {}, &notice).code() == Code::kDuplicateKey);
  CHECK(seen.empty());  // a write that finds nothing to do is not announced
  REQUIRE(tree->Upsert(B(U32Key(7)), B("seven"), {}, nullptr, nullptr, &notice).ok());
  REQUIRE(tree->Update(B(U32Key(8)), B(std::string(6000, 'w')), {}, nullptr, &notice).ok());
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == big);
  CHECK(seen[1] == big);
  seen.clear();
  for (uint32_t i = 10; i < 190; ++i) REQUIRE(tree->Remove(B(U32Key(i)), nullptr, &notice).ok());
  CHECK(seen.size() == 180);
  CHECK(std::all_of(seen.begin(), seen.end(), [&](const std::string& v) { return v == big; }));
  // A veto leaves the tree as it was.
  veto = Status(Code::kAborted, "no");
  CHECK(tree->Insert(B(U32Key(500)), B("x"), {}, &notice).code() == Code::kAborted);
  CHECK(tree->Remove(B(U32Key(7)), nullptr, &notice).code() == Code::kAborted);
  CHECK(tree->Upsert(B(U32Key(8)), B("y"), {}, nullptr, nullptr, &notice).code() == Code::kAborted);
  CHECK(tree->Get(B(U32Key(500))).status().code() == Code::kNotFound);
  CHECK(tree->Get(B(U32Key(7)))->value == "seven");
  CHECK(tree->Get(B(U32Key(8)))->value == std::string(6000, 'w'));
  RequireCheck(*tree);
}

TEST_CASE("BeforeChange names the record, or an insert's successor, and sets the sys bytes",
          "[btree]") {
  PoolFixture fx(64);
  auto tree = NewTree(fx.pool(), TreeOptions{.sys_fields = true});
  std::byte stamp{0};
  std::vector<WriteNotice> seen;    // `old` and `sys` are valid only during the call
  std::vector<std::byte> old_sys0;  // each notice's old->sys[0], or 0xff for an insert
  BeforeChange notice = [&](WriteNotice* n) {
    seen.push_back(*n);
    old_sys0.push_back(n->old != nullptr ? n->old->sys[0] : std::byte{0xff});
    if (n->sys != nullptr) std::fill(n->sys, n->sys + kSysFieldsSize, stamp);
    return Status::OK();
  };
  stamp = std::byte{1};
  REQUIRE(tree->Insert(B("b"), B("1"), {}, &notice).ok());
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].where.heap_no == kSupremumHeapNo);  // the first record goes before the supremum
  RecordLocation b_loc = tree->Get(B("b"))->location;
  stamp = std::byte{2};
  REQUIRE(tree->Insert(B("a"), B("2"), {}, &notice).ok());
  CHECK(seen[1].where == b_loc);  // "a" goes before "b"
  CHECK(tree->Get(B("a"))->sys[0] == std::byte{2});
  CHECK(tree->Get(B("b"))->sys[12] == std::byte{1});
  stamp = std::byte{3};
  REQUIRE(tree->Update(B("b"), B("11"), {}, nullptr, &notice).ok());
  CHECK(seen[2].where == b_loc);
  CHECK(old_sys0[2] == std::byte{1});
  CHECK(tree->Get(B("b"))->sys[0] == std::byte{3});
  stamp = std::byte{4};
  REQUIRE(tree->SetDeleteMark(B("b"), true, {}, &notice).ok());
  CHECK(seen[3].where == b_loc);
  auto b = tree->Get(B("b"));
  CHECK(b->delete_marked);
  CHECK(b->sys[0] == std::byte{4});
  CHECK(b->value == "11");
  REQUIRE(tree->Remove(B("b"), nullptr, &notice).ok());
  CHECK(seen[4].sys == nullptr);  // nothing is stored
}

TEST_CASE("Get into a caller's string reuses it and reports the delete mark", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool());
  REQUIRE(tree->Insert(B("a"), B("1")).ok());
  std::string big(100000, 'x');  // an overflow chain
  REQUIRE(tree->Insert(B("big"), AsBytes(big)).ok());
  std::string value = "stale";
  bool marked = true;
  REQUIRE(*tree->Get(B("a"), &value, &marked));
  CHECK(value == "1");
  CHECK(!marked);
  REQUIRE(*tree->Get(B("big"), &value));
  CHECK(value == big);
  CHECK(!*tree->Get(B("b"), &value));
  REQUIRE(tree->SetDeleteMark(B("a"), true).ok());
  REQUIRE(*tree->Get(B("a"), &value, &marked));
  CHECK(value == "1");
  CHECK(marked);
  CHECK(tree->Get(B(std::string(kMaxKeySize + 1, 'k')), &value).status().code() ==
        Code::kInvalidArgument);
}

TEST_CASE("a cursor's current() and NextInLeaf() walk every record", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool());
  for (int i = 0; i < 3000; ++i) {
    std::string k = fmt::format("{:06}", i);
    REQUIRE(tree->Insert(AsBytes(k), AsBytes(k + "v")).ok());
  }
  auto c = tree->NewCursor();
  REQUIRE(c->SeekToFirst().ok());
  int n = 0, in_leaf = 0;
  while (const RecordView* rec = c->current()) {
    std::string k = fmt::format("{:06}", n++);
    REQUIRE(AsStringView(rec->key) == k);
    REQUIRE(AsStringView(rec->value) == k + "v");
    REQUIRE(!rec->delete_marked());
    REQUIRE(!rec->overflow());
    if (c->NextInLeaf()) {
      ++in_leaf;
    } else {
      REQUIRE(c->Next().ok());
    }
  }
  CHECK(n == 3000);
  CHECK(in_leaf > 0);
  CHECK(in_leaf < n - 1);  // some steps left a leaf
  CHECK(!c->NextInLeaf());
  CHECK(c->Next().code() == Code::kInvalidArgument);
}

TEST_CASE("bad arguments are refused", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool());
  std::string long_key(kMaxKeySize + 1, 'k');
  CHECK(tree->Insert(B(long_key), B("v")).code() == Code::kInvalidArgument);
  CHECK(tree->Get(B(long_key)).status().code() == Code::kInvalidArgument);
  std::string sys(kSysFieldsSize, 's');
  CHECK(tree->Insert(B("k"), B("v"), B(sys)).code() == Code::kInvalidArgument);  // no sys fields
  std::string max_key(kMaxKeySize, 'k');
  REQUIRE(tree->Insert(B(max_key), B("v")).ok());
  CHECK(tree->BulkLoad([](BTree::BulkRecord*) { return false; }, 0.3).code() ==
        Code::kInvalidArgument);
  CHECK(BTree::Open(fx.pool(), 0).status().code() == Code::kInvalidArgument);
  RequireCheck(*tree);
}

TEST_CASE("opening a page that is not a root fails", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool());
  for (uint32_t i = 0; i < 2000; ++i) REQUIRE(tree->Insert(B(U32Key(i)), B("value")).ok());
  CheckReport rep = RequireCheck(*tree);
  REQUIRE(rep.height == 2);
  // Page root+1 is some child page of this tree.
  auto other = BTree::Open(fx.pool(), tree->root() + 1);
  CHECK(other.status().code() == Code::kCorruption);
}

TEST_CASE("ascending and random inserts split, removes merge", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool());
  const uint32_t n = 20000;
  for (uint32_t i = 0; i < n; ++i)
    REQUIRE(tree->Insert(B(U32Key(i)), B(std::string(32, 'v'))).ok());
  CheckReport rep = RequireCheck(*tree);
  CHECK(rep.records == n);
  CHECK(rep.height >= 2);
  CHECK(rep.avg_leaf_fill > 0.9);  // ascending inserts keep left pages full
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937 rng(1);
  std::shuffle(order.begin(), order.end(), rng);
  for (uint32_t i = 0; i < n; ++i) {
    auto r = tree->Get(B(U32Key(order[i])));
    REQUIRE(r.ok());
  }
  for (uint32_t i = 0; i < n; i += 2) REQUIRE(tree->Remove(B(U32Key(order[i]))).ok());
  rep = RequireCheck(*tree);
  CHECK(rep.records == n / 2);
  for (uint32_t i = 1; i < n; i += 2) REQUIRE(tree->Remove(B(U32Key(order[i]))).ok());
  rep = RequireCheck(*tree);
  CHECK(rep.records == 0);
  CHECK(rep.height == 1);
  CHECK(rep.leaf_pages == 1);
}

TEST_CASE("cursor forward, backward and seeks", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool());
  const uint32_t n = 5000;
  for (uint32_t i = 0; i < n; ++i) REQUIRE(tree->Insert(B(U32Key(i * 2)), B(U32Key(i))).ok());
  auto c = tree->NewCursor();
  REQUIRE(c->SeekToFirst().ok());
  uint32_t count = 0;
  while (c->Valid()) {
    REQUIRE(S(c->key()) == U32Key(count * 2));
    ++count;
    REQUIRE(c->Next().ok());
  }
  CHECK(count == n);
  REQUIRE(c->SeekToLast().ok());
  for (count = n; c->Valid();) {
    --count;
    REQUIRE(S(c->key()) == U32Key(count * 2));
    REQUIRE(c->Prev().ok());
  }
  CHECK(count == 0);
  REQUIRE(c->Seek(B(U32Key(101))).ok());
  REQUIRE(c->Valid());
  CHECK(S(c->key()) == U32Key(102));
  REQUIRE(c->SeekForPrev(B(U32Key(101))).ok());
  REQUIRE(c->Valid());
  CHECK(S(c->key()) == U32Key(100));
  REQUIRE(c->SeekForPrev(B(U32Key(100))).ok());
  CHECK(S(c->key()) == U32Key(100));
  REQUIRE(c->Seek(B(U32Key(2 * n))).ok());
  CHECK(!c->Valid());
  REQUIRE(c->SeekForPrev(B(std::string())).ok());
  CHECK(!c->Valid());
  CHECK(c->Next().code() == Code::kInvalidArgument);
}

TEST_CASE("overflow values up to 1 MiB", "[btree]") {
  PoolFixture fx(64);
  auto tree = NewTree(fx.pool());
  std::mt19937 rng(5);
  std::map<std::string, std::string> model;
  for (int i = 0; i < 40; ++i) {
    size_t len = (i % 4 == 0) ? (1u << 20) : rng() % 100000;
    std::string v(len, '\0');
    for (auto& ch : v) ch = static_cast<char>(rng());
    std::string k = U32Key(i);
    REQUIRE(tree->Insert(B(k), B(v)).ok());
    model[k] = v;
  }
  CheckReport rep = RequireCheck(*tree);
  CHECK(rep.overflow_pages > 0);
  for (auto& [k, v] : model) REQUIRE(tree->Get(B(k))->value == v);
  auto c = tree->NewCursor();
  REQUIRE(c->SeekToFirst().ok());
  for (auto& [k, v] : model) {
    REQUIRE(c->Valid());
    auto val = c->value();
    REQUIRE(val.ok());
    REQUIRE(S(*val) == v);
    REQUIRE(c->Next().ok());
  }
  // Shrink some to inline, grow some, remove the rest: chains are freed.
  uint64_t free_before = fx.pool()->stats().free_pages;
  int i = 0;
  for (auto& [k, v] : model) {
    if (i % 3 == 0) REQUIRE(tree->Update(B(k), B(std::string("small"))).ok());
    if (i % 3 == 1) REQUIRE(tree->Remove(B(k)).ok());
    ++i;
  }
  rep = RequireCheck(*tree);
  CHECK(fx.pool()->stats().free_pages > free_before);
}

TEST_CASE("a 16 MiB value", "[btree]") {
  PoolFixture fx(64);
  auto tree = NewTree(fx.pool());
  std::string v(16u << 20, '\0');
  std::mt19937_64 rng(9);
  for (size_t i = 0; i < v.size(); i += 8) {
    uint64_t x = rng();
    std::memcpy(v.data() + i, &x, 8);
  }
  REQUIRE(tree->Insert(B("big"), B(v)).ok());
  REQUIRE(tree->Insert(B("a"), B("small")).ok());
  fx.Reopen(64);
  auto reopened = BTree::Open(fx.pool(), tree->root());
  REQUIRE(reopened.ok());
  auto r = (*reopened)->Get(B("big"));
  REQUIRE(r.ok());
  CHECK(r->value == v);
  CheckReport rep = RequireCheck(**reopened);
  CHECK(rep.overflow_pages == (v.size() + 16335) / 16336);
  REQUIRE((*reopened)->Remove(B("big")).ok());
  RequireCheck(**reopened);
}

TEST_CASE("clustered trees keep sys bytes", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool(), TreeOptions{.sys_fields = true});
  std::string sys1(kSysFieldsSize, '\x01'), sys2(kSysFieldsSize, '\x02');
  REQUIRE(tree->Insert(B("k"), B("v"), B(sys1)).ok());
  REQUIRE(tree->Insert(B("nosys"), B("v")).ok());
  auto r = tree->Get(B("k"));
  CHECK(std::memcmp(r->sys.data(), sys1.data(), kSysFieldsSize) == 0);
  REQUIRE(tree->Update(B("k"), B("v2")).ok());  // sys kept
  r = tree->Get(B("k"));
  CHECK(std::memcmp(r->sys.data(), sys1.data(), kSysFieldsSize) == 0);
  REQUIRE(tree->SetDeleteMark(B("k"), true, B(sys2)).ok());
  r = tree->Get(B("k"));
  CHECK(r->delete_marked);
  CHECK(std::memcmp(r->sys.data(), sys2.data(), kSysFieldsSize) == 0);
  auto c = tree->NewCursor();
  REQUIRE(c->Seek(B("k")).ok());
  CHECK(S(c->sys()) == sys2);
  CHECK(c->delete_marked());
  CHECK(tree->Insert(B("x"), B("v"), B(std::string(3, 's'))).code() == Code::kInvalidArgument);
  // The options survive a reopen: they live in the root page.
  fx.Reopen(256);
  auto reopened = BTree::Open(fx.pool(), tree->root());
  REQUIRE(reopened.ok());
  CHECK((*reopened)->options().sys_fields);
  CHECK(!(*reopened)->options().compress_lz4);
  RequireCheck(**reopened);
}

TEST_CASE("lz4 trees allocate compressed pages", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool(), TreeOptions{.compress_lz4 = true});
  for (uint32_t i = 0; i < 3000; ++i) {
    REQUIRE(tree->Insert(B(U32Key(i)), B(std::string(100, 'z'))).ok());
  }
  REQUIRE(tree->Insert(B("big"), B(std::string(100000, 'q'))).ok());
  RequireCheck(*tree);
  fx.Reopen(256);
  auto reopened = BTree::Open(fx.pool(), tree->root());
  REQUIRE(reopened.ok());
  CHECK((*reopened)->options().compress_lz4);
  CheckReport rep = RequireCheck(**reopened);
  CHECK(rep.records == 3001);
  CHECK(fx.pool()->stats().compressed_writes == 0);  // nothing dirty yet after reopen
  REQUIRE((*reopened)->Insert(B("x"), B("y")).ok());
  REQUIRE(fx.pool()->FlushAll().ok());
  CHECK(fx.pool()->stats().compressed_writes > 0);
}

TEST_CASE("drop frees every page", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool());
  for (uint32_t i = 0; i < 5000; ++i)
    REQUIRE(tree->Insert(B(U32Key(i)), B(std::string(40, 'v'))).ok());
  REQUIRE(tree->Insert(B("big"), B(std::string(200000, 'q'))).ok());
  uint64_t pages = fx.pool()->stats().pages_in_file;
  uint64_t free_before = fx.pool()->stats().free_pages;
  REQUIRE(tree->Drop().ok());
  CHECK(fx.pool()->stats().free_pages - free_before == pages - 1 - free_before);
}

}  // namespace
}  // namespace minnow

namespace minnow {
namespace {

TEST_CASE("insert/remove churn reuses freed pages", "[btree]") {
  testing::PoolFixture fx(128);
  auto root = BTree::Create(fx.pool(), {});
  REQUIRE(root.ok());
  auto tree = std::move(BTree::Open(fx.pool(), *root)).value();
  uint64_t pages_after_first = 0;
  for (int round = 0; round < 5; ++round) {
    for (uint32_t i = 0; i < 20000; ++i) {
      std::string v = i % 500 == 0 ? std::string(40000, 'o') : std::string(60, 'v');
      REQUIRE(tree->Insert(testing::B(testing::U32Key(i * 7919 % 20000)), testing::B(v)).ok());
    }
    for (uint32_t i = 0; i < 20000; ++i) REQUIRE(tree->Remove(testing::B(testing::U32Key(i))).ok());
    CheckReport rep = testing::RequireCheck(*tree);
    CHECK(rep.records == 0);
    CHECK(rep.height == 1);
    if (round == 0) pages_after_first = fx.pool()->stats().pages_in_file;
  }
  CHECK(fx.pool()->stats().pages_in_file <= pages_after_first + 8);
}

}  // namespace
}  // namespace minnow

namespace minnow {
namespace {

TEST_CASE("ReadLatched shows the record or its successor under the latch", "[btree]") {
  testing::PoolFixture fx(64);
  auto tree = testing::NewTree(fx.pool(), TreeOptions{.sys_fields = true});
  REQUIRE(tree->Insert(testing::B("b"), testing::B("1")).ok());
  REQUIRE(tree->Insert(testing::B("d"), testing::B("2")).ok());
  RecordLocation d = tree->Get(testing::B("d"))->location;
  std::string value;
  LatchedRead seen;
  auto visit = [&](const LatchedRead& r) {
    seen = r;
    return Status::OK();
  };
  CHECK(*tree->ReadLatched(testing::B("d"), &value, visit));
  CHECK(seen.found);
  CHECK(seen.where == d);
  CHECK(value == "2");
  CHECK(!*tree->ReadLatched(testing::B("c"), &value, visit));
  CHECK(seen.where == d);  // "c" would precede "d"
  CHECK(!*tree->ReadLatched(testing::B("e"), nullptr, visit));
  CHECK(seen.where.heap_no == kSupremumHeapNo);
  CHECK(tree->ReadLatched(testing::B("b"), nullptr,
                          [](const LatchedRead&) { return Status(Code::kLockWait, "wait"); })
            .status()
            .code() == Code::kLockWait);
}

TEST_CASE("a cursor latches its leaf only while the copy is current", "[btree]") {
  testing::PoolFixture fx(64);
  auto tree = testing::NewTree(fx.pool());
  for (uint32_t i = 0; i < 10; ++i) {
    REQUIRE(tree->Insert(testing::B(testing::U32Key(i)), testing::B("v")).ok());
  }
  auto cur = tree->NewCursor();
  REQUIRE(cur->Seek(testing::B(testing::U32Key(7))).ok());
  std::vector<HeapNo> heap;
  std::vector<uint64_t> sys8;
  cur->RemainingHeapNos(&heap, &sys8);
  CHECK(heap == std::vector<HeapNo>{9, 10, 11});  // inserted in order: heap numbers 2..11
  CHECK(sys8 == std::vector<uint64_t>{0, 0, 0});  // a tree without hidden fields
  int calls = 0;
  CHECK(*cur->WithLeafLatched([&] {
    ++calls;
    return Status::OK();
  }));
  REQUIRE(tree->Insert(testing::B(testing::U32Key(100)), testing::B("w")).ok());
  CHECK(!*cur->WithLeafLatched([&] {
    ++calls;
    return Status::OK();
  }));
  CHECK(calls == 1);
}

}  // namespace
}  // namespace minnow
