// Hidden speed checks (run with "[bench]"): bulk load and full scan of W1-shaped data
// (uint32 big-endian keys, 32-byte values), insert and point-get rates. Prints rates; asserts
// nothing about time.

#include <chrono>
#include <random>

#include "btree_test_util.h"

namespace minnow {
namespace {

using testing::B;
using testing::U32Key;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

TEST_CASE("bulk load, full scan, gets and inserts of 1.6 M small records", "[.bench][btree]") {
  const uint32_t n = 1638400;
  testing::PoolFixture fx(16384, /*flusher=*/true);  // 256 MiB: everything in memory
  auto root = BTree::Create(fx.pool(), {});
  REQUIRE(root.ok());
  auto tree = std::move(BTree::Open(fx.pool(), *root)).value();
  std::string value(32, 'x');
  std::string key;
  uint32_t i = 0;
  auto t0 = std::chrono::steady_clock::now();
  REQUIRE(tree->BulkLoad([&](BTree::BulkRecord* r) {
                if (i == n) return false;
                key = U32Key(++i);
                r->key = B(key);
                r->value = B(value);
                return true;
              })
              .ok());
  double load = Seconds(t0);
  WARN("bulk load: " << n / load / 1e6 << " M records/s");

  auto c = tree->NewCursor();
  double best = 1e9;
  for (int run = 0; run < 5; ++run) {
    t0 = std::chrono::steady_clock::now();
    uint64_t count = 0, bytes = 0;
    REQUIRE(c->SeekToFirst().ok());
    while (c->Valid()) {
      ++count;
      bytes += c->inline_value().size();
      (void)c->Next();
    }
    best = std::min(best, Seconds(t0));
    REQUIRE(count == n);
    REQUIRE(bytes == 32ull * n);
  }
  WARN("full scan: " << n / best / 1e6 << " M rows/s (best of 5)");

  std::mt19937 rng(1);
  t0 = std::chrono::steady_clock::now();
  const int gets = 1000000;
  for (int g = 0; g < gets; ++g) {
    auto r = tree->Get(B(U32Key(1 + rng() % n)));
    REQUIRE(r.ok());
  }
  WARN("point gets: " << gets / Seconds(t0) / 1e6 << " M/s");

  t0 = std::chrono::steady_clock::now();
  const int inserts = 200000;
  for (int k = 0; k < inserts; ++k) {
    (void)tree->Insert(B(U32Key(n + 1 + rng() % (4 * n))), B(value));
  }
  WARN("random inserts: " << inserts / Seconds(t0) / 1e6 << " M/s (" << tree->stats().splits
                          << " splits, " << tree->stats().pessimistic << " pessimistic)");
  REQUIRE(tree->Check().ok());
}

}  // namespace
}  // namespace minnow

namespace minnow {
namespace {

TEST_CASE("bulk load of 1.6 M small records", "[.bench_bulk][btree]") {
  const uint32_t n = 1638400;
  testing::PoolFixture fx(16384, /*flusher=*/true);
  std::string value(32, 'x');
  std::string key;
  for (int run = 0; run < 3; ++run) {
    auto r = BTree::Create(fx.pool(), {});
    auto t = std::move(BTree::Open(fx.pool(), *r)).value();
    uint32_t i = 0;
    auto t0 = std::chrono::steady_clock::now();
    REQUIRE(t->BulkLoad([&](BTree::BulkRecord* rec) {
               if (i == n) return false;
               key = testing::U32Key(++i);
               rec->key = testing::B(key);
               rec->value = testing::B(value);
               return true;
             }).ok());
    WARN("bulk load: " << n / Seconds(t0) / 1e6 << " M records/s");
  }
}

}  // namespace
}  // namespace minnow

namespace minnow {
namespace {

TEST_CASE("random inserts into 1.6 M records", "[.bench_insert][btree]") {
  const uint32_t n = 1638400;
  testing::PoolFixture fx(16384, /*flusher=*/true);
  auto root = BTree::Create(fx.pool(), {});
  auto tree = std::move(BTree::Open(fx.pool(), *root)).value();
  std::string value(32, 'x');
  std::string key;
  uint32_t i = 0;
  REQUIRE(tree->BulkLoad(
                  [&](BTree::BulkRecord* rec) {
                    if (i == n) return false;
                    key = testing::U32Key(2 * ++i);
                    rec->key = testing::B(key);
                    rec->value = testing::B(value);
                    return true;
                  },
                  15.0 / 16)
              .ok());
  std::mt19937 rng(7);
  auto t0 = std::chrono::steady_clock::now();
  const int inserts = 400000;
  for (int k = 0; k < inserts; ++k) {
    (void)tree->Insert(testing::B(testing::U32Key(2 * (rng() % n) + 1)), testing::B(value));
  }
  WARN("random inserts: " << inserts / Seconds(t0) / 1e6 << " M/s (" << tree->stats().splits
                          << " splits)");
}

}  // namespace
}  // namespace minnow
