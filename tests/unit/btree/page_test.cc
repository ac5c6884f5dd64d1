// Page-level tests on plain buffers: record heap, slot directory, heap numbers, garbage,
// reorganize, builder, and validation of damaged pages.

#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "btree/page_edit.h"

namespace minnow {
namespace {

struct TestPage {
  TestPage() : buf(kPageSize), ed(buf.data()) {
    Store32(buf.data() + page_offset::kPageNo, 7);
    InitPage(&ed, PageInit{.level = 0, .index_id = 7});
  }
  std::vector<std::byte> buf;
  BufferEditor ed;
  PageView view() const { return PageView(buf.data()); }
};

RecordSpec Spec(const std::string& key, const std::string& value) {
  return RecordSpec{.key = AsBytes(key), .value = AsBytes(value)};
}

void RequireValid(const PageView& v) {
  std::string why;
  INFO(why);
  bool ok = v.Validate(&why);
  INFO("validate: " << why);
  REQUIRE(ok);
}

HeapNo Insert(TestPage* p, const std::string& key, const std::string& value) {
  bool found = false;
  size_t idx = *p->view().LowerBound(AsBytes(key), &found);
  REQUIRE(!found);
  return InsertRecord(&p->ed, idx, Spec(key, value));
}

TEST_CASE("empty page is valid and has the whole usable space", "[btree]") {
  TestPage p;
  RequireValid(p.view());
  CHECK(p.view().n_slots() == 0);
  CHECK(p.view().available() == kUsableSize);
  CHECK(p.view().page_type() == PageType::kBtreeLeaf);
}

TEST_CASE("insert keeps key order and heap numbers start at 2", "[btree]") {
  TestPage p;
  CHECK(Insert(&p, "b", "2") == 2);
  CHECK(Insert(&p, "a", "1") == 3);
  CHECK(Insert(&p, "c", "3") == 4);
  RequireValid(p.view());
  RecordView r;
  REQUIRE(p.view().Record(0, &r));
  CHECK(AsStringView(r.key) == "a");
  CHECK(r.heap_no == 3);
  REQUIRE(p.view().Record(2, &r));
  CHECK(AsStringView(r.value) == "3");
}

TEST_CASE("removed heap numbers are reused and garbage is accounted", "[btree]") {
  TestPage p;
  for (int i = 0; i < 10; ++i) Insert(&p, "k" + std::to_string(i), std::string(20, 'v'));
  bool found = false;
  size_t idx = *p.view().LowerBound(AsBytes(std::string("k3")), &found);
  REQUIRE(found);
  RecordView r;
  REQUIRE(p.view().Record(idx, &r));
  HeapNo freed = r.heap_no;
  RemoveRecord(&p.ed, idx);
  RequireValid(p.view());
  CHECK(p.view().garbage() > 0);
  CHECK(Insert(&p, "zz", "new") == freed);
  RequireValid(p.view());
  size_t before = p.view().available();
  Reorganize(&p.ed);
  RequireValid(p.view());
  CHECK(p.view().garbage() == 0);
  CHECK(p.view().available() == before);
}

TEST_CASE("replace keeps the heap number whether it shrinks or grows", "[btree]") {
  TestPage p;
  Insert(&p, "a", "1");
  HeapNo h = Insert(&p, "b", std::string(50, 'x'));
  Insert(&p, "c", "3");
  ReplaceRecord(&p.ed, 1, Spec("b", "short"));
  RequireValid(p.view());
  RecordView r;
  REQUIRE(p.view().Record(1, &r));
  CHECK(r.heap_no == h);
  CHECK(AsStringView(r.value) == "short");
  ReplaceRecord(&p.ed, 1, Spec("b", std::string(300, 'y')));
  RequireValid(p.view());
  REQUIRE(p.view().Record(1, &r));
  CHECK(r.heap_no == h);
  CHECK(r.value.size() == 300);
}

TEST_CASE("delete mark and sys bytes are set in place", "[btree]") {
  TestPage p;
  std::string sys(kSysLen, '\1');
  InsertRecord(&p.ed, 0,
               RecordSpec{.key = AsBytes(std::string("k")),
                          .sys = AsBytes(sys),
                          .value = AsBytes(std::string("v"))});
  std::string sys2(kSysLen, '\2');
  SetDeleteMark(&p.ed, 0, true, AsBytes(sys2));
  RecordView r;
  REQUIRE(p.view().Record(0, &r));
  CHECK(r.delete_marked());
  CHECK(AsStringView(r.sys) == sys2);
  CHECK(AsStringView(r.value) == "v");
  SetDeleteMark(&p.ed, 0, false);
  REQUIRE(p.view().Record(0, &r));
  CHECK(!r.delete_marked());
  RequireValid(p.view());
}

TEST_CASE("a page always holds four records of the largest size", "[btree]") {
  TestPage p;
  std::string key(kMaxKeyLen, 'k');
  std::string value(kMaxRecordSize - kRecordHeaderSize - kMaxKeyLen, 'v');
  for (int i = 0; i < 4; ++i) {
    key[0] = static_cast<char>('a' + i);
    REQUIRE(p.view().Fits(Spec(key, value).size()));
    Insert(&p, key, value);
  }
  RequireValid(p.view());
  CHECK(!p.view().Fits(Spec(key, value).size()));
}

TEST_CASE("random page operations against a model", "[btree]") {
  std::mt19937_64 rng(42);
  TestPage p;
  std::map<std::string, std::pair<std::string, HeapNo>> model;
  for (int step = 0; step < 20000; ++step) {
    int op = static_cast<int>(rng() % 10);
    std::string key = std::to_string(rng() % 300);
    std::string value(rng() % 80, static_cast<char>('a' + rng() % 26));
    bool found = false;
    size_t idx = *p.view().LowerBound(AsBytes(key), &found);
    REQUIRE(found == (model.count(key) == 1));
    if (op < 5) {
      if (found || !p.view().Fits(Spec(key, value).size())) continue;
      HeapNo h = InsertRecord(&p.ed, idx, Spec(key, value));
      for (auto& [k, vh] : model) REQUIRE(vh.second != h);
      model[key] = {value, h};
    } else if (op < 8) {
      if (!found) continue;
      RemoveRecord(&p.ed, idx);
      model.erase(key);
    } else if (op < 9) {
      if (!found) continue;
      RecordView old;
      REQUIRE(p.view().Record(idx, &old));
      if (Spec(key, value).size() > old.size + p.view().available()) continue;
      ReplaceRecord(&p.ed, idx, Spec(key, value));
      model[key].first = value;
    } else {
      Reorganize(&p.ed);
    }
    if (step % 50 == 0) RequireValid(p.view());
  }
  RequireValid(p.view());
  REQUIRE(p.view().n_slots() == model.size());
  size_t i = 0;
  for (const auto& [k, vh] : model) {
    RecordView r;
    REQUIRE(p.view().Record(i++, &r));
    CHECK(AsStringView(r.key) == k);
    CHECK(AsStringView(r.value) == vh.first);
    CHECK(r.heap_no == vh.second);  // heap numbers are stable across reorganize and replace
  }
}

TEST_CASE("node pages find the child for a key", "[btree]") {
  TestPage p;
  InitPage(&p.ed, PageInit{.level = 1, .index_id = 7});
  std::byte child[4];
  const char* keys[] = {"", "d", "m"};
  for (int i = 0; i < 3; ++i) {
    Store32(child, 100 + i);
    InsertRecord(&p.ed, i,
                 RecordSpec{.key = AsBytes(std::string(keys[i])), .value = ConstBytes(child, 4)});
  }
  RequireValid(p.view());
  CHECK(p.view().page_type() == PageType::kBtreeNode);
  auto child_for = [&](const std::string& k) {
    return *p.view().Child(*p.view().ChildSlot(AsBytes(k)));
  };
  CHECK(child_for("a") == 100);
  CHECK(child_for("d") == 101);
  CHECK(child_for("e") == 101);
  CHECK(child_for("m") == 102);
  CHECK(child_for("zzz") == 102);
}

TEST_CASE("searches after appends at the right edge agree with the full search", "[btree]") {
  // The last insert at the last slot lets a search compare with that record first: equal keys
  // must still be found, and a key before it must still be searched for.
  TestPage p;
  for (int i = 10; i < 60; i += 2) {
    Insert(&p, "k" + std::to_string(i), "v");
    const size_t n = p.view().n_slots();
    bool found = false;
    CHECK(*p.view().LowerBound(AsBytes("k" + std::to_string(i)), &found) == n - 1);
    CHECK(found);
    CHECK(*p.view().LowerBound(AsBytes("k" + std::to_string(i) + "0"), &found) == n);
    CHECK_FALSE(found);
    if (i > 10) {
      CHECK(*p.view().LowerBound(AsBytes("k" + std::to_string(i - 1)), &found) == n - 1);
      CHECK_FALSE(found);
    }
  }
  Insert(&p, "k11", "v");  // the last insert is no longer at the right edge
  bool found = false;
  CHECK(*p.view().LowerBound(AsBytes(std::string("k9")), &found) == p.view().n_slots());
  CHECK(*p.view().LowerBound(AsBytes(std::string("k58")), &found) == p.view().n_slots() - 1);
  CHECK(found);

  TestPage node;
  InitPage(&node.ed, PageInit{.level = 1, .index_id = 7});
  std::byte child[4];
  const std::string keys[] = {"", "d", "m", "t"};
  for (int i = 0; i < 4; ++i) {
    Store32(child, 100 + i);
    InsertRecord(&node.ed, i, RecordSpec{.key = AsBytes(keys[i]), .value = ConstBytes(child, 4)});
    auto child_for = [&](const std::string& k) {
      return *node.view().Child(*node.view().ChildSlot(AsBytes(k)));
    };
    CHECK(child_for(keys[i]) == static_cast<PageNo>(100 + i));
    CHECK(child_for(keys[i] + "z") == static_cast<PageNo>(100 + i));
    if (i > 1) CHECK(child_for(keys[i - 1] + "z") == static_cast<PageNo>(99 + i));
  }
}

TEST_CASE("builder lays out pages with fresh or given heap numbers", "[btree]") {
  PageBuilder b;
  b.Reset(PageInit{.level = 0, .index_id = 7});
  b.Append(Spec("a", "1"), 5);
  b.Append(Spec("b", "2"), 9);
  TestPage p;
  b.CopyTo(&p.ed);
  RequireValid(p.view());
  CHECK(p.view().n_heap() == 10);
  CHECK(p.view().n_free_heap() == 6);
  HeapNo h = Insert(&p, "c", "3");
  CHECK(h >= 2);
  CHECK(h < 10);
  RequireValid(p.view());
}

TEST_CASE("damaged pages are reported, never read out of bounds", "[btree]") {
  TestPage p;
  Insert(&p, "a", "1");
  Insert(&p, "b", "2");
  std::string why;
  SECTION("slot offset beyond the page") {
    Store16(p.buf.data() + btree_offset::kSlots, 0xfff0);
    CHECK(!p.view().Validate(&why));
    CHECK(!p.view().ValidateSlots());
    bool found;
    CHECK(p.view().LowerBound(AsBytes(std::string("a")), &found).status().code() ==
          Code::kCorruption);
  }
  SECTION("key length beyond the page") {
    Store16(p.buf.data() + p.view().slot(0) + record_offset::kKeyLen, 60000);
    CHECK(!p.view().Validate(&why));
    CHECK(!p.view().ValidateSlots());
  }
  SECTION("bad page type") {
    Store16(p.buf.data() + page_offset::kPageType, 99);
    CHECK(p.view().CheckHeader().code() == Code::kCorruption);
  }
  SECTION("too many slots") {
    Store16(p.buf.data() + btree_offset::kNSlots, 9000);
    CHECK(p.view().CheckHeader().code() == Code::kCorruption);
  }
  SECTION("wrong garbage") {
    Store16(p.buf.data() + btree_offset::kGarbage, 3);
    CHECK(!p.view().Validate(&why));
    CHECK(why.find("garbage") != std::string::npos);
  }
}

TEST_CASE("search orders keys with zero bytes and mixed lengths like memcmp", "[btree]") {
  // The search compares 8-byte big-endian prefixes first: keys that differ only past byte 8,
  // by trailing zero bytes, or by length must still sort as CompareKeys says.
  std::mt19937_64 rng(7);
  const char alphabet[] = {'\0', '\x01', 'a', '\x7f', '\x80', '\xff'};
  auto random_key = [&] {
    std::string k(rng() % 13, '\0');
    for (char& c : k) c = alphabet[rng() % sizeof(alphabet)];
    return k;
  };
  for (int round = 0; round < 20; ++round) {
    TestPage p;
    std::set<std::string> model;
    for (int i = 0; i < 200; ++i) {
      std::string key = random_key();
      std::string value(rng() % 3, 'v');  // short records also sit at the very end of the page
      bool found = false;
      size_t idx = *p.view().LowerBound(AsBytes(key), &found);
      REQUIRE(found == (model.count(key) == 1));
      REQUIRE(idx == static_cast<size_t>(std::distance(model.begin(), model.lower_bound(key))));
      if (found || !p.view().Fits(Spec(key, value).size())) continue;
      InsertRecord(&p.ed, idx, Spec(key, value));
      model.insert(key);
    }
    RequireValid(p.view());
    for (int i = 0; i < 500; ++i) {
      std::string key = random_key();
      bool found = false;
      size_t idx = *p.view().LowerBound(AsBytes(key), &found);
      CHECK(found == (model.count(key) == 1));
      CHECK(idx == static_cast<size_t>(std::distance(model.begin(), model.lower_bound(key))));
    }
  }
}

TEST_CASE("KeyPrefix8 agrees with CompareKeys whenever the prefixes differ", "[btree]") {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 100000; ++i) {
    std::byte a[16] = {}, b[16] = {};
    size_t la = rng() % 11, lb = rng() % 11;
    for (size_t j = 0; j < 16; ++j) {  // garbage past the key must not matter
      a[j] = static_cast<std::byte>(j < la ? rng() % 3 : rng());
      b[j] = static_cast<std::byte>(j < lb ? rng() % 3 : rng());
    }
    uint64_t pa = KeyPrefix8(a, la), pb = KeyPrefix8(b, lb);
    int c = CompareKeys(ConstBytes(a, la), ConstBytes(b, lb));
    if (pa < pb) CHECK(c < 0);
    if (pa > pb) CHECK(c > 0);
    if (c == 0) CHECK(pa == pb);
  }
}

}  // namespace
}  // namespace minnow
