// Lock memory for W1's layout (design brief §1) at a small scale, asserted exactly: a table of
// (i: 4-byte key, j: a 33-byte compact varchar) built by a sorted bulk load, locked whole by a
// share scan and by an exclusive scan. Every leaf's records are locked in heap order, so each
// leaf costs one 24-byte struct in run form (supremum included); the lock heap is chunks of
// 1 KiB, then each an eighth of the heap so far (whole KiB, 1 KiB to 64 KiB), each with a
// 16-byte header (lock/lock_sys_internal.h).
#include <algorithm>
#include <random>

#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;

constexpr uint64_t kStructBytes = 24;
constexpr uint64_t kChunkHeader = 16;

// The heap bytes of a lock heap holding `structs` run-form structs.
uint64_t HeapBytesFor(uint64_t structs) {
  uint64_t bytes = 0, chunk = 1024, room = 0;
  for (uint64_t placed = 0; placed < structs;) {
    if (room < kStructBytes) {
      bytes += chunk;
      room = chunk - kChunkHeader;
      chunk = std::clamp<uint64_t>(bytes / 8 / 1024 * 1024, 1024, 64 * 1024);
    }
    room -= kStructBytes;
    ++placed;
  }
  return bytes;
}

std::string W1Key(uint32_t i) {
  std::string k(4, '\0');
  for (int b = 3; b >= 0; --b, i >>= 8) k[static_cast<size_t>(b)] = static_cast<char>(i & 0xff);
  return k;
}

TEST_CASE("locking every row of W1's table: one struct per leaf, under a bit per row",
          "[engine][lock_memory]") {
  auto opts = SmallOptions(":memory:");
  opts.buffer_pool_bytes = 64u << 20;
  auto db = MustOpen(opts);
  Keyspace ks = MustKeyspace(db.get(), "sample");
  constexpr uint32_t kRows = 65536;  // 1/25 of W1: big enough that chunk headers stop mattering
  {
    auto s = Take(db->NewSession());
    auto load = MustBegin(s.get());
    std::mt19937_64 rng(1);
    uint32_t i = 0;
    std::string key, value;
    REQUIRE_OK(load->BulkInsert(ks, [&](std::string_view* k, std::string_view* v) {
      if (i == kRows) return false;
      key = W1Key(++i);
      value = std::string(1, '\x20');  // compact varchar: length byte, 32 hex digits
      for (int d = 0; d < 32; ++d) value += "0123456789abcdef"[rng() % 16];
      *k = key;
      *v = value;
      return true;
    }));
    REQUIRE_OK(load->Commit());
  }
  std::vector<KeyspaceCheck> reports;
  REQUIRE_OK(db->CheckIntegrity(&reports));
  REQUIRE(reports.size() == 2);
  const uint64_t leaves = reports[1].leaf_pages;
  REQUIRE(leaves > 50);

  for (LockMode mode : {LockMode::kShare, LockMode::kExclusive}) {
    for (IsolationLevel iso : {IsolationLevel::kRepeatableRead, IsolationLevel::kReadCommitted}) {
      auto s = Take(db->NewSession());
      auto txn = Take(s->Begin({.isolation = iso}));
      auto it = Take(txn->NewIterator(ks, {.lock_mode = mode}));
      uint64_t rows = 0;
      REQUIRE_OK(it->SeekToFirst());
      while (it->Valid()) {
        ++rows;
        REQUIRE_OK(it->Next());
      }
      REQUIRE(rows == kRows);
      const TransactionLockInfo info = txn->lock_info();
      const bool next_key = iso == IsolationLevel::kRepeatableRead;
      INFO("mode " << static_cast<int>(mode) << " next-key " << next_key << " leaves " << leaves);
      CHECK(info.lock_structs == 1 + leaves);                    // the table's IS/IX + one per leaf
      CHECK(info.row_locks == kRows + (next_key ? leaves : 0));  // + each leaf's supremum
      CHECK(info.heap_bytes == HeapBytesFor(1 + leaves));
      const double bits_per_row =
          8.0 * static_cast<double>(info.heap_bytes) / static_cast<double>(info.row_locks);
      CHECK(bits_per_row < 1.0);
      CHECK(db->stats().lock_structs == info.lock_structs);
      REQUIRE_OK(txn->Commit());
      CHECK(db->stats().lock_structs == 0);
    }
  }
}

}  // namespace
}  // namespace minnow
