// A transaction bigger than the buffer pool: its undo (and the pages it changes) must be
// evicted and read back, for a rollback as for a commit.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::Key;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;

// it->Next(), which must succeed (usable in a for statement's increment).
void Step(Iterator* it) { REQUIRE_OK(it->Next()); }

constexpr int kRows = 20000;
constexpr size_t kValueBytes = 200;

std::string Value(char c, int i) {
  std::string v(kValueBytes, c);
  const std::string n = std::to_string(i);
  v.replace(0, n.size(), n);
  return v;
}

// Every row holds Value(c, i); `erased_every` > 0: rows i % erased_every == 0 are absent.
void ExpectRows(Database* db, const Keyspace& ks, char c, int erased_every = 0) {
  std::vector<int> expected;
  for (int i = 0; i < kRows; ++i) {
    if (erased_every == 0 || i % erased_every != 0) expected.push_back(i);
  }
  auto s = Take(db->NewSession());
  auto t = Take(s->Begin());
  auto it = Take(t->NewIterator(ks));
  REQUIRE_OK(it->SeekToFirst());
  size_t n = 0, mismatches = 0;
  for (; it->Valid(); Step(it.get()), ++n) {
    if (n >= expected.size() || it->key() != Key(expected[n]) ||
        Take(it->value()) != Value(c, expected[n])) {
      ++mismatches;
    }
  }
  CHECK(mismatches == 0);
  CHECK(n == expected.size());
  REQUIRE_OK(t->Commit());
  std::vector<KeyspaceCheck> reports;
  REQUIRE_OK(db->CheckIntegrity(&reports));
  REQUIRE(reports.size() == 2);
  CHECK(reports[1].records - reports[1].delete_marked == expected.size());
}

TEST_CASE("a transaction bigger than the buffer pool rolls back and commits", "[engine][mvcc]") {
  // In memory: the pool evicts to the in-memory file as it would to disk (a file database
  // spends ~10x longer here on the eviction's log and doublewrite fsyncs).
  Options o = SmallOptions(":memory:");
  o.buffer_pool_bytes = 2u << 20;  // 128 pages; the undo alone is ~4.5 MB
  auto db = MustOpen(o);
  Keyspace ks = MustKeyspace(db.get(), "t");
  auto s = Take(db->NewSession());
  {
    auto t = Take(s->Begin());
    for (int i = 0; i < kRows; ++i) REQUIRE_OK(t->Put(ks, Key(i), Value('a', i)));
    REQUIRE_OK(t->Commit());
  }
  ExpectRows(db.get(), ks, 'a');

  const uint64_t evictions = db->stats().pool_evictions;
  {
    auto t = Take(s->Begin());
    for (int i = 0; i < kRows; ++i) REQUIRE_OK(t->Put(ks, Key(i), Value('b', i)));
    for (int i = 0; i < kRows; i += 7) REQUIRE_OK(t->Erase(ks, Key(i)));
    for (int i = 0; i < 2000; ++i) REQUIRE_OK(t->Insert(ks, Key(kRows + i), Value('n', i)));
    CHECK(*t->Get(ks, Key(1)) == Value('b', 1));
    REQUIRE_OK(t->Rollback());
  }
  CHECK(db->stats().pool_evictions - evictions > 2 * (2u << 20) / (16u << 10));
  ExpectRows(db.get(), ks, 'a');

  {
    auto t = Take(s->Begin());
    for (int i = 0; i < kRows; ++i) REQUIRE_OK(t->Put(ks, Key(i), Value('c', i)));
    for (int i = 0; i < kRows; i += 7) REQUIRE_OK(t->Erase(ks, Key(i)));
    REQUIRE_OK(t->Commit());
  }
  ExpectRows(db.get(), ks, 'c', 7);
  // Purge removes the erased rows, reading the big undo log back through the small pool.
  for (int i = 0; i < 10000 && db->stats().history_list_length != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(db->stats().history_list_length == 0);
  std::vector<KeyspaceCheck> reports;
  REQUIRE_OK(db->CheckIntegrity(&reports));
  CHECK(reports[1].delete_marked == 0);
  CHECK(reports[1].records == kRows - (kRows + 6) / 7);
  REQUIRE_OK(db->Close());
}

}  // namespace
}  // namespace minnow
