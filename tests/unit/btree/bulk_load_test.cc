// Sorted bulk build: contents, fill factor, node levels, overflow values, bad input.

#include <random>

#include "btree_test_util.h"

namespace minnow {
namespace {

using testing::B;
using testing::NewTree;
using testing::PoolFixture;
using testing::RequireCheck;
using testing::S;
using testing::U32Key;

// Feeds keys 0..n-1 (big-endian u32) with values derived from the key.
struct Feed {
  uint32_t n;
  uint32_t i = 0;
  std::string key, value;
  size_t big_every = 0;  // every k-th value is an overflow value
  bool operator()(BTree::BulkRecord* r) {
    if (i == n) return false;
    key = U32Key(i);
    size_t len = big_every != 0 && i % big_every == 0 ? 30000 + i % 1000 : 32;
    value.assign(len, static_cast<char>('a' + i % 26));
    r->key = B(key);
    r->value = B(value);
    ++i;
    return true;
  }
};

TEST_CASE("bulk load builds a valid tree with the requested fill", "[btree]") {
  for (double fill : {1.0, 0.7, 0.5}) {
    PoolFixture fx(128);
    auto tree = NewTree(fx.pool());
    Feed feed{100000};
    REQUIRE(tree->BulkLoad(std::ref(feed), fill).ok());
    CheckReport rep = RequireCheck(*tree);
    CHECK(rep.records == 100000);
    CHECK(rep.height >= 2);
    CHECK(rep.avg_leaf_fill > fill - 0.05);
    CHECK(rep.avg_leaf_fill <= fill + 0.01);
    auto c = tree->NewCursor();
    REQUIRE(c->SeekToFirst().ok());
    for (uint32_t i = 0; i < 100000; ++i) {
      REQUIRE(c->Valid());
      REQUIRE(S(c->key()) == U32Key(i));
      REQUIRE(c->inline_value().size() == 32);
      REQUIRE(c->Next().ok());
    }
    CHECK(!c->Valid());
    // The tree takes ordinary writes afterwards.
    for (uint32_t i = 0; i < 100000; i += 7) REQUIRE(tree->Remove(B(U32Key(i))).ok());
    for (uint32_t i = 0; i < 2000; ++i) {
      REQUIRE(tree->Insert(B(U32Key(200000 + i)), B(std::string(50, 'x'))).ok());
    }
    RequireCheck(*tree);
  }
}

TEST_CASE("bulk load of tiny, single-leaf and overflow inputs", "[btree]") {
  PoolFixture fx(64);
  SECTION("nothing") {
    auto tree = NewTree(fx.pool());
    Feed feed{0};
    REQUIRE(tree->BulkLoad(std::ref(feed)).ok());
    CHECK(RequireCheck(*tree).records == 0);
  }
  SECTION("one leaf") {
    auto tree = NewTree(fx.pool());
    Feed feed{10};
    REQUIRE(tree->BulkLoad(std::ref(feed)).ok());
    CheckReport rep = RequireCheck(*tree);
    CHECK(rep.records == 10);
    CHECK(rep.height == 1);
  }
  SECTION("overflow values") {
    auto tree = NewTree(fx.pool());
    Feed feed{3000};
    feed.big_every = 50;
    REQUIRE(tree->BulkLoad(std::ref(feed)).ok());
    CheckReport rep = RequireCheck(*tree);
    CHECK(rep.overflow_pages >= 60 * 2);
    auto r = tree->Get(B(U32Key(100)));
    REQUIRE(r.ok());
    CHECK(r->value.size() == 30000 + 100);
  }
  SECTION("long keys build several node levels") {
    auto tree = NewTree(fx.pool());
    uint32_t i = 0;
    std::string key, value = "v";
    REQUIRE(tree->BulkLoad([&](BTree::BulkRecord* r) {
                  if (i == 20000) return false;
                  key = std::string(1500, 'k') + U32Key(i++);
                  r->key = B(key);
                  r->value = B(value);
                  return true;
                })
                .ok());
    CheckReport rep = RequireCheck(*tree);
    CHECK(rep.records == 20000);
    CHECK(rep.height >= 4);
  }
}

TEST_CASE("bulk load leaves no node with a single child, whatever the count", "[btree]") {
  // 1000-byte keys: about 15 records per leaf and 15 children per node, so the counts below
  // end levels with every possible remainder, one child included.
  PoolFixture fx(256);
  std::string value = "v";
  for (uint32_t count = 1; count < 700; count += 13) {
    auto tree = NewTree(fx.pool());
    uint32_t i = 0;
    std::string key;
    REQUIRE(tree->BulkLoad([&](BTree::BulkRecord* r) {
                  if (i == count) return false;
                  key = std::string(996, 'k') + U32Key(i++);
                  r->key = B(key);
                  r->value = B(value);
                  return true;
                })
                .ok());
    INFO("count " << count);
    CHECK(RequireCheck(*tree).records == count);
    REQUIRE(tree->Drop().ok());
  }
}

TEST_CASE("bulk load refuses unsorted input and non-empty trees", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool());
  std::vector<std::string> keys = {"a", "c", "b"};
  size_t i = 0;
  CHECK(tree->BulkLoad([&](BTree::BulkRecord* r) {
              if (i == keys.size()) return false;
              r->key = B(keys[i++]);
              return true;
            })
            .code() == Code::kInvalidArgument);
  CHECK(RequireCheck(*tree).records == 0);  // nothing changed
  REQUIRE(tree->Insert(B("x"), B("y")).ok());
  Feed feed{10};
  CHECK(tree->BulkLoad(std::ref(feed)).code() == Code::kInvalidArgument);
}

TEST_CASE("bulk load with sys fields on a compressed tree", "[btree]") {
  PoolFixture fx;
  auto tree = NewTree(fx.pool(), TreeOptions{.sys_fields = true, .compress_lz4 = true});
  std::string sys(kSysFieldsSize, '\x07');
  uint32_t i = 0;
  std::string key;
  REQUIRE(tree->BulkLoad(
                  [&](BTree::BulkRecord* r) {
                    if (i == 5000) return false;
                    key = U32Key(i++);
                    r->key = B(key);
                    r->value = B(key);
                    r->sys = B(sys);
                    return true;
                  },
                  0.9)
              .ok());
  CHECK(RequireCheck(*tree).records == 5000);
  auto r = tree->Get(B(U32Key(77)));
  REQUIRE(r.ok());
  CHECK(std::memcmp(r->sys.data(), sys.data(), kSysFieldsSize) == 0);
}

}  // namespace
}  // namespace minnow
