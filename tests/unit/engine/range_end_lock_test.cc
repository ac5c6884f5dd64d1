// Locking reads with an end (ReadOptions::upper_bound, Transaction::Count's hi): they lock the
// records of the range, the record that ends it (next-key or gap-only, as asked; the supremum
// if none) and nothing after it, as InnoDB's range and equality scans do. Each case asserts
// the exact data_locks rows. Blocking is shown by error codes, never by timings.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "txn_test_util.h"

namespace minnow {
namespace {

using testing::Db;
using testing::kRC;
using testing::kRR;
using testing::kRU;
using testing::kSER;
using testing::Step;
using testing::Take;

constexpr int kRows = 2000;  // bulk-built: several leaves of a few hundred records

std::string K(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "k%05d", i);
  return buf;
}

void Load(Db* d) {
  auto t = d->Begin(3);
  int i = 0;
  std::string key;
  REQUIRE_OK(t->BulkInsert(d->ks, [&](std::string_view* k, std::string_view* v) {
    if (i == kRows) return false;
    key = K(i++);
    *k = key;
    *v = "v";
    return true;
  }));
  REQUIRE_OK(t->Commit());
}

// The leaves in key order: each one's page and keys, learnt from the locks of a full locking
// scan.
struct Leaves {
  std::vector<uint32_t> pages;
  std::vector<std::vector<std::string>> keys;
  size_t size() const { return keys.size(); }
  const std::vector<std::string>& operator[](size_t i) const { return keys[i]; }
  const std::vector<std::string>& back() const { return keys.back(); }
};

Leaves LearnLeaves(Db* d) {
  auto t = d->Begin(2, kRC);
  auto it = Take(t->NewIterator(d->ks, testing::kShareRead));
  REQUIRE_OK(it->SeekToFirst());
  int n = 0;
  for (; it->Valid(); Step(it.get())) ++n;
  REQUIRE(n == kRows);
  std::map<std::string, uint32_t> page_of;  // key -> leaf
  for (const DataLock& l : Take(d->db->DataLocks())) {
    if (!l.is_table) page_of[l.key] = l.page_no;
  }
  REQUIRE_OK(t->Rollback());
  Leaves leaves;
  for (const auto& [key, p] : page_of) {
    if (leaves.pages.empty() || p != leaves.pages.back()) {
      leaves.pages.push_back(p);
      leaves.keys.emplace_back();
    }
    leaves.keys.back().push_back(key);
  }
  return leaves;
}

// The record locks of transaction `t`, sorted: "<key> <mode>", or "supremum@<i> <mode>" for
// the supremum of leaves[i].
std::vector<std::string> RecordLocks(Db* d, const Transaction& t, const Leaves& leaves) {
  std::vector<std::string> out;
  for (const DataLock& l : Take(d->db->DataLocks())) {
    if (l.is_table || l.trx_id != t.id()) continue;
    CHECK(!l.waiting);
    if (!l.supremum) {
      out.push_back(l.key + " " + l.lock_mode);
      continue;
    }
    const auto leaf = std::find(leaves.pages.begin(), leaves.pages.end(), l.page_no);
    REQUIRE(leaf != leaves.pages.end());
    out.push_back("supremum@" + std::to_string(leaf - leaves.pages.begin()) + " " + l.lock_mode);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// `mode` on each of K(from) .. K(to_excl - 1).
void Expect(std::vector<std::string>* want, int from, int to_excl, const std::string& mode) {
  for (int i = from; i < to_excl; ++i) want->push_back(K(i) + " " + mode);
}

int IndexOf(const std::string& key) { return std::stoi(key.substr(1)); }

// Reads forward from `lo` with the bound; returns the keys shown.
std::vector<std::string> ReadRange(Transaction* t, Db* d, const std::string& lo,
                                   const ReadOptions& ro) {
  auto it = Take(t->NewIterator(d->ks, ro));
  REQUIRE_OK(it->Seek(lo));
  std::vector<std::string> keys;
  for (; it->Valid(); Step(it.get())) keys.emplace_back(it->key());
  return keys;
}

TEST_CASE("a bounded locking read locks the range and the record that ends it", "[lock][range]") {
  const LockMode mode = GENERATE(LockMode::kShare, LockMode::kExclusive);
  const RangeEndLock end = GENERATE(RangeEndLock::kNextKey, RangeEndLock::kGap);
  const bool count = GENERATE(false, true);
  const std::string m = mode == LockMode::kShare ? "S" : "X";
  const std::string end_mode = end == RangeEndLock::kGap ? m + ",GAP" : m;
  INFO("mode " << m << ", end " << end_mode << (count ? ", Count" : ", Iterator"));
  Db d;
  Load(&d);
  const Leaves leaves = LearnLeaves(&d);
  REQUIRE(leaves.size() >= 3);
  const int first1 = IndexOf(leaves[1].front());  // the first key of the second leaf
  const int last1 = IndexOf(leaves[1].back());
  ReadOptions ro{.lock_mode = mode, .range_end_lock = end};

  // Runs the read of [lo, hi) and returns what it shows (the count for Count).
  auto read = [&](Transaction* t, const std::string& lo, const std::string& hi) -> size_t {
    if (count) return Take(t->Count(d.ks, lo, hi, ro));
    ReadOptions bounded = ro;
    bounded.upper_bound = hi;
    return ReadRange(t, &d, lo, bounded).size();
  };

  SECTION("the bound in the middle of a leaf") {
    auto t = d.Begin(1, kRR);
    const int lo = first1 + 3, hi = first1 + 10;
    CHECK(read(t.get(), K(lo), K(hi)) == 7u);
    std::vector<std::string> want;
    Expect(&want, lo, hi, m);
    want.push_back(K(hi) + " " + end_mode);
    std::sort(want.begin(), want.end());
    CHECK(RecordLocks(&d, *t, leaves) == want);
  }
  SECTION("a bound that is not a key: the next record ends the range") {
    auto t = d.Begin(1, kRR);
    const int lo = first1 + 3, hi = first1 + 10;
    CHECK(read(t.get(), K(lo), K(hi - 1) + "x") == 7u);
    std::vector<std::string> want;
    Expect(&want, lo, hi, m);
    want.push_back(K(hi) + " " + end_mode);
    std::sort(want.begin(), want.end());
    CHECK(RecordLocks(&d, *t, leaves) == want);
  }
  SECTION("the bound at a leaf boundary: the leaf's supremum, then the next leaf's first") {
    auto t = d.Begin(1, kRR);
    const int lo = last1 - 2;
    const int hi = last1 + 1;  // the third leaf's first key
    REQUIRE(K(hi) == leaves[2].front());
    CHECK(read(t.get(), K(lo), K(hi)) == 3u);
    std::vector<std::string> want;
    Expect(&want, lo, hi, m);
    want.push_back("supremum@1 " + m);
    want.push_back(K(hi) + " " + end_mode);
    std::sort(want.begin(), want.end());
    CHECK(RecordLocks(&d, *t, leaves) == want);
  }
  SECTION("the bound after the last key: every leaf's supremum to the end") {
    auto t = d.Begin(1, kRR);
    const int lo = IndexOf(leaves.back().front()) - 2;  // two records on the leaf before
    CHECK(read(t.get(), K(lo), K(kRows + 5)) == static_cast<size_t>(kRows - lo));
    std::vector<std::string> want;
    Expect(&want, lo, kRows, m);
    want.push_back("supremum@" + std::to_string(leaves.size() - 2) + " " + m);
    want.push_back("supremum@" + std::to_string(leaves.size() - 1) + " " + m);
    std::sort(want.begin(), want.end());
    CHECK(RecordLocks(&d, *t, leaves) == want);
  }
  SECTION("an empty range locks only the record that ends it") {
    auto t = d.Begin(1, kRR);
    CHECK(read(t.get(), K(first1 + 4) + "x", K(first1 + 5)) == 0u);
    CHECK(RecordLocks(&d, *t, leaves) == std::vector<std::string>{K(first1 + 5) + " " + end_mode});
  }
  SECTION("READ COMMITTED and READ UNCOMMITTED: the records, no gap, the end not locked") {
    for (const IsolationLevel level : {kRC, kRU}) {
      INFO("isolation " << static_cast<int>(level));
      auto t = d.Begin(1, level);
      const int lo = last1 - 2, hi = last1 + 3;  // across the leaf boundary
      CHECK(read(t.get(), K(lo), K(hi)) == 5u);
      std::vector<std::string> want;
      Expect(&want, lo, hi, m + ",REC_NOT_GAP");
      std::sort(want.begin(), want.end());
      CHECK(RecordLocks(&d, *t, leaves) == want);
      REQUIRE_OK(t->Commit());
    }
  }
  SECTION("SERIALIZABLE: a plain read locks as a share read does") {
    auto t = d.Begin(1, kSER);
    ro.lock_mode = LockMode::kNone;
    const int lo = first1 + 3, hi = first1 + 10;
    CHECK(read(t.get(), K(lo), K(hi)) == 7u);
    std::vector<std::string> want;
    Expect(&want, lo, hi, "S");
    want.push_back(K(hi) + (end == RangeEndLock::kGap ? " S,GAP" : " S"));
    std::sort(want.begin(), want.end());
    CHECK(RecordLocks(&d, *t, leaves) == want);
  }
}

TEST_CASE("a bounded consistent read stops at the bound and locks nothing", "[lock][range]") {
  Db d;
  Load(&d);
  auto t = d.Begin(1, kRR);
  const std::string bound = K(12);  // a view: must live until NewIterator returns
  ReadOptions ro;
  ro.upper_bound = bound;
  CHECK(ReadRange(t.get(), &d, K(10), ro) == std::vector<std::string>{K(10), K(11)});
  CHECK(t->lock_info().row_locks == 0);
  auto it = Take(t->NewIterator(d.ks, ro));
  REQUIRE_CODE(it->SeekToLast(), Code::kInvalidArgument);
  REQUIRE_CODE(it->SeekForPrev(K(5)), Code::kInvalidArgument);
  CHECK(!it->Valid());
  // A Valid iterator may step back.
  REQUIRE_OK(it->Seek(K(11)));
  REQUIRE_OK(it->Prev());
  CHECK(it->key() == K(10));
  REQUIRE_CODE(t->Count(d.ks, K(1), K(3), ro).status(), Code::kInvalidArgument);
}

TEST_CASE("a bounded range keeps inserts out of its gaps, not out of the gap after its end",
          "[lock][range]") {
  const RangeEndLock end = GENERATE(RangeEndLock::kNextKey, RangeEndLock::kGap);
  const bool count = GENERATE(false, true);
  INFO((end == RangeEndLock::kGap ? "gap" : "next-key") << (count ? ", Count" : ", Iterator"));
  Db d;
  d.Load({{"b", "v"}, {"d", "v"}, {"f", "v"}, {"h", "v"}});
  auto locker = d.Begin(1, kRR);
  ReadOptions ro{.lock_mode = LockMode::kShare, .range_end_lock = end};
  // [b, e): b and d; f ends the range.
  if (count) {
    CHECK(Take(locker->Count(d.ks, "b", "e", ro)) == 2u);
  } else {
    ro.upper_bound = "e";
    CHECK(ReadRange(locker.get(), &d, "b", ro) == std::vector<std::string>{"b", "d"});
  }
  auto other = d.Begin(0);
  REQUIRE_CODE(other->Insert(d.ks, "c", "v"), Code::kLockWaitTimeout);  // inside the range
  REQUIRE_CODE(other->Insert(d.ks, "e", "v"), Code::kLockWaitTimeout);  // the gap before f
  REQUIRE_OK(other->Insert(d.ks, "g", "v"));                            // after f: free
  REQUIRE_OK(other->Insert(d.ks, "i", "v"));                            // the last gap: free
  // f itself: locked next-key (S), or only the gap before it.
  if (end == RangeEndLock::kGap) {
    REQUIRE_OK(other->Put(d.ks, "f", "w"));
  } else {
    REQUIRE_CODE(other->Put(d.ks, "f", "w"), Code::kLockWaitTimeout);
  }
  REQUIRE_CODE(other->Put(d.ks, "d", "w"), Code::kLockWaitTimeout);  // a record of the range
  REQUIRE_OK(other->Commit());
  REQUIRE_OK(locker->Commit());
  REQUIRE_OK(d.db->CheckIntegrity());
}

}  // namespace
}  // namespace minnow
