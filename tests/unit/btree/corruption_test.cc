// Damaged pages give kCorruption naming the page, never a crash: pages are changed behind the
// tree's back through a mini-transaction (valid checksums, bad contents), or on disk.

#include <functional>

#include "btree/page_edit.h"
#include "btree_test_util.h"
#include "buffer_pool/mtr.h"

namespace minnow {
namespace {

using testing::B;
using testing::PoolFixture;
using testing::U32Key;

void Tamper(BufferPool* pool, PageNo page_no, const std::function<void(MtrPage*)>& fn) {
  MiniTransaction mtr(pool);
  auto page = mtr.Write(page_no);
  REQUIRE(page.ok());
  fn(&*page);
  mtr.Commit();
}

// Every read path either works or reports kCorruption; returns how many reported it.
int ReadEverything(BTree* tree, uint32_t n) {
  int corrupt = 0;
  auto tally = [&](const Status& st) {
    if (st.code() == Code::kCorruption) {
      ++corrupt;
    } else {
      REQUIRE((st.ok() || st.code() == Code::kNotFound));
    }
  };
  for (uint32_t i = 0; i < n; i += 7) tally(tree->Get(B(U32Key(i))).status());
  auto c = tree->NewCursor();
  Status st = c->SeekToFirst();
  while (st.ok() && c->Valid()) {
    (void)c->value();
    st = c->Next();
  }
  tally(st);
  st = c->SeekToLast();
  while (st.ok() && c->Valid()) st = c->Prev();
  tally(st);
  auto rep = tree->Check();
  tally(rep.status());
  if (!rep.ok()) CHECK(rep.status().message().find("page") != std::string::npos);
  for (uint32_t i = 0; i < n; i += 13) {
    Status w = tree->Insert(B(U32Key(i) + "x"), B(std::string(300, 'w')));
    if (!w.ok()) tally(w);
    w = tree->Remove(B(U32Key(i)));
    tally(w);
  }
  return corrupt;
}

struct Damaged {
  PoolFixture fx;
  std::unique_ptr<BTree> tree;
  PageNo leaf = kInvalidPageNo;  // the leaf holding key 3000
  const uint32_t n = 6000;
  Damaged() {
    auto root = BTree::Create(fx.pool(), {});
    REQUIRE(root.ok());
    tree = std::move(BTree::Open(fx.pool(), *root)).value();
    for (uint32_t i = 0; i < n; ++i)
      REQUIRE(tree->Insert(B(U32Key(i)), B(std::string(40, 'v'))).ok());
    REQUIRE(tree->Insert(B("zbig"), B(std::string(50000, 'b'))).ok());
    leaf = tree->Get(B(U32Key(3000)))->location.page_no;
  }
};

TEST_CASE("a slot pointing outside the page", "[btree]") {
  Damaged d;
  Tamper(d.fx.pool(), d.leaf, [](MtrPage* p) { p->Write16(btree_offset::kSlots + 4, 0xfff0); });
  CHECK(ReadEverything(d.tree.get(), d.n) > 0);
}

TEST_CASE("a key length running off the page", "[btree]") {
  Damaged d;
  Tamper(d.fx.pool(), d.leaf, [](MtrPage* p) {
    size_t off = Load16(p->data() + btree_offset::kSlots + 6);
    p->Write16(off + record_offset::kKeyLen, 0x7fff);
  });
  CHECK(ReadEverything(d.tree.get(), d.n) > 0);
}

TEST_CASE("a leaf whose page type is wrong", "[btree]") {
  Damaged d;
  Tamper(d.fx.pool(), d.leaf, [](MtrPage* p) { p->SetType(PageType::kOverflow); });
  CHECK(ReadEverything(d.tree.get(), d.n) > 0);
}

TEST_CASE("a node whose child pointer leaves the tree", "[btree]") {
  Damaged d;
  Tamper(d.fx.pool(), d.tree->root(), [](MtrPage* p) {
    PageView v(p->data());
    RecordView rec;
    REQUIRE(v.Record(1, &rec));
    p->Write32(static_cast<size_t>(rec.value.data() - p->data()), 0);  // page 0
  });
  CHECK(ReadEverything(d.tree.get(), d.n) > 0);
}

TEST_CASE("broken header counters", "[btree]") {
  Damaged d;
  SECTION("garbage") {
    Tamper(d.fx.pool(), d.leaf, [](MtrPage* p) { p->Write16(btree_offset::kGarbage, 9000); });
  }
  SECTION("heap top") {
    Tamper(d.fx.pool(), d.leaf, [](MtrPage* p) { p->Write16(btree_offset::kHeapTop, 70); });
  }
  SECTION("free heap numbers") {
    Tamper(d.fx.pool(), d.leaf, [](MtrPage* p) { p->Write16(btree_offset::kNFreeHeap, 3); });
  }
  SECTION("duplicate heap number") {
    Tamper(d.fx.pool(), d.leaf, [](MtrPage* p) {
      size_t off = Load16(p->data() + btree_offset::kSlots + 2);
      p->Write16(
          off + record_offset::kHeapNo,
          Load16(p->data() + Load16(p->data() + btree_offset::kSlots) + record_offset::kHeapNo));
    });
  }
  CHECK(ReadEverything(d.tree.get(), d.n) > 0);
}

TEST_CASE("Check finds broken links, order and separators", "[btree]") {
  Damaged d;
  std::string what;
  SECTION("sibling link") {
    Tamper(d.fx.pool(), d.leaf, [](MtrPage* p) { p->Write32(btree_offset::kNext, 1); });
    what = "link";
  }
  SECTION("key order") {
    Tamper(d.fx.pool(), d.leaf, [](MtrPage* p) {
      uint16_t a = Load16(p->data() + btree_offset::kSlots);
      uint16_t b = Load16(p->data() + btree_offset::kSlots + 2);
      p->Write16(btree_offset::kSlots, b);
      p->Write16(btree_offset::kSlots + 2, a);
    });
    what = "key";
  }
  SECTION("separator") {
    Tamper(d.fx.pool(), d.tree->root(), [](MtrPage* p) {
      PageView v(p->data());
      RecordView rec;
      REQUIRE(v.Record(1, &rec));
      REQUIRE(rec.key.size() >= 1);
      size_t off = static_cast<size_t>(rec.key.data() - p->data()) + rec.key.size() - 1;
      p->Mutate(off, 1)[0] = std::byte{0};  // a smaller separator: the left child's keys cross it
    });
    what = "separator";
  }
  auto rep = d.tree->Check();
  REQUIRE(rep.status().code() == Code::kCorruption);
  CHECK(rep.status().message().find(what) != std::string::npos);
}

TEST_CASE("a broken overflow chain", "[btree]") {
  Damaged d;
  auto c = d.tree->NewCursor();
  REQUIRE(c->Seek(B("zbig")).ok());
  REQUIRE(c->has_overflow());
  PageNo first = OverflowFirst(c->inline_value());
  Tamper(d.fx.pool(), first, [](MtrPage* p) { p->Write32(overflow_offset::kNext, 0); });
  CHECK(d.tree->Get(B("zbig")).status().code() == Code::kCorruption);
  CHECK(d.tree->Check().status().code() == Code::kCorruption);
  CHECK(c->value().status().code() == Code::kCorruption);
}

TEST_CASE("a flipped byte on disk is caught by the pool's checksum", "[btree]") {
  Damaged d;
  PageNo root = d.tree->root();
  d.tree.reset();
  d.fx.Reopen(64);
  d.fx.disk()->FlipByte(uint64_t{d.leaf} * kPageSize + 5000);
  d.fx.Reopen(64);
  auto tree = BTree::Open(d.fx.pool(), root);
  REQUIRE(tree.ok());
  CHECK((*tree)->Get(B(U32Key(3000))).status().code() == Code::kCorruption);
  CHECK((*tree)->Check().status().code() == Code::kCorruption);
}

}  // namespace
}  // namespace minnow
