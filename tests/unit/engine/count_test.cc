// Transaction::Count against the Iterator it stands for: the same number for random ranges of a
// multi-leaf keyspace at every isolation level, with another transaction's uncommitted
// inserts, deletes and updates in the way (consistent reads must not see them, and must still
// see what they deleted), the same locks (Database::DataLocks rows) for locking reads, the same
// waits and timeouts, and the same errors.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <thread>
#include <tuple>

#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;

constexpr uint32_t kKeys = 6000;  // about 40 leaves of 8-byte keys and 40-byte values

std::string Key(uint32_t i) {
  std::string k(8, '\0');
  for (int b = 7; b >= 0; --b, i >>= 8) k[static_cast<size_t>(b)] = static_cast<char>(i & 0xff);
  return k;
}
std::string Value(uint32_t i, char tag) { return std::string(39, tag) + std::to_string(i % 10); }

// What an Iterator from Seek(lo) bounded at hi shows (hi empty: to the end).
uint64_t IteratorCount(Transaction* txn, const Keyspace& ks, const std::string& lo,
                       const std::string& hi, ReadOptions ro = {}) {
  if (!hi.empty()) ro.upper_bound = hi;  // what Count(lo, hi) reads and locks
  auto it = Take(txn->NewIterator(ks, ro));
  REQUIRE_OK(it->Seek(lo));
  uint64_t n = 0;
  while (it->Valid() && (hi.empty() || it->key() < hi)) {
    ++n;
    REQUIRE_OK(it->Next());
  }
  return n;
}

// A random range: bounds are existing keys, keys between them, the ends, or empty (hi: to
// the end); sometimes lo > hi.
std::pair<std::string, std::string> RandomRange(std::mt19937_64& rng) {
  auto bound = [&]() -> std::string {
    switch (rng() % 6) {
      case 0:
        return "";
      case 1:
        return Key(2 * kKeys + 10);  // past the end
      case 2:
        return Key(static_cast<uint32_t>(rng() % (2 * kKeys))) + "x";  // between keys
      default:
        return Key(static_cast<uint32_t>(rng() % (2 * kKeys)));
    }
  };
  return {bound(), bound()};
}

struct Fixture {
  std::unique_ptr<Database> db;
  Keyspace ks;
  std::unique_ptr<Session> s1, s2, s3;
  std::map<std::string, std::string> committed;  // the model of the committed rows

  explicit Fixture(uint32_t lock_wait_timeout_ms = 2000) {
    auto o = SmallOptions(":memory:");
    o.lock_wait_timeout_ms = lock_wait_timeout_ms;
    db = MustOpen(o);
    ks = MustKeyspace(db.get(), "t");
    s1 = Take(db->NewSession());
    s2 = Take(db->NewSession());
    s3 = Take(db->NewSession());
    // Even keys 0, 2, ..., 2 * (kKeys - 1), built in bulk (several leaves).
    auto load = Take(s1->Begin());
    uint32_t i = 0;
    std::string k, v;
    REQUIRE_OK(load->BulkInsert(ks, [&](std::string_view* key, std::string_view* value) {
      if (i == kKeys) return false;
      k = Key(2 * i);
      v = Value(2 * i, 'a');
      committed[k] = v;
      ++i;
      *key = k;
      *value = v;
      return true;
    }));
    REQUIRE_OK(load->Commit());
  }

  // Committed history: deletes (a whole stretch of leaves, so ranges end among delete-marked
  // records, and scattered ones) and updates. `keeper` is opened first and reads, so purge
  // keeps the delete-marked records for the test's length.
  void CommittedChanges(std::unique_ptr<Transaction>* keeper) {
    *keeper = Take(s3->Begin());
    std::string v;
    REQUIRE(Take((*keeper)->Get(ks, Key(0), &v)));
    auto w = Take(s1->Begin());
    std::mt19937_64 rng(7);
    for (uint32_t i = 4000; i < 5400; i += 2) {
      REQUIRE_OK(w->Erase(ks, Key(i)));
      committed.erase(Key(i));
    }
    for (int n = 0; n < 300; ++n) {
      const std::string k = Key(2 * static_cast<uint32_t>(rng() % kKeys));
      if (committed.count(k) == 0) continue;
      if (rng() % 2 == 0) {
        REQUIRE_OK(w->Erase(ks, k));
        committed.erase(k);
      } else {
        REQUIRE_OK(w->Put(ks, k, Value(n, 'b')));
        committed[k] = Value(n, 'b');
      }
    }
    REQUIRE_OK(w->Commit());
  }

  // Another transaction's uncommitted inserts (odd keys), deletes and updates, spread over
  // every leaf. Returns how many rows it adds in its own (uncommitted) view.
  int64_t UncommittedChanges(Transaction* w, uint64_t seed) {
    std::mt19937_64 rng(seed);
    int64_t delta = 0;
    std::string v;
    for (int n = 0; n < 400; ++n) {
      const uint32_t i = static_cast<uint32_t>(rng() % (2 * kKeys));
      const std::string k = Key(i);
      const bool exists = committed.count(k) != 0;
      switch (rng() % 3) {
        case 0:
          if (i % 2 == 1) {
            Status st = w->Insert(ks, k, Value(i, 'c'));
            if (st.ok()) ++delta;
          }
          break;
        case 1:
          if (exists && Take(w->Get(ks, k, &v)) && w->Erase(ks, k).ok()) --delta;
          break;
        default:
          if (exists && Take(w->Get(ks, k, &v))) REQUIRE_OK(w->Put(ks, k, Value(i, 'd')));
          break;
      }
    }
    return delta;
  }

  uint64_t CommittedIn(const std::string& lo, const std::string& hi) const {
    uint64_t n = 0;
    for (auto it = committed.lower_bound(lo);
         it != committed.end() && (hi.empty() || it->first < hi); ++it) {
      ++n;
    }
    return n;
  }

  // This transaction's record and table locks, as comparable rows.
  using LockRow = std::tuple<std::string, bool, std::string, std::string, bool, uint32_t, uint16_t>;
  std::vector<LockRow> Locks() {
    std::vector<LockRow> rows;
    for (const DataLock& l : Take(db->DataLocks())) {
      REQUIRE_FALSE(l.waiting);
      rows.emplace_back(l.keyspace, l.is_table, l.lock_mode, l.key, l.supremum, l.page_no,
                        l.heap_no);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }
};

constexpr IsolationLevel kLevels[] = {
    IsolationLevel::kReadUncommitted, IsolationLevel::kReadCommitted,
    IsolationLevel::kRepeatableRead, IsolationLevel::kSerializable};

TEST_CASE(
    "Count equals an Iterator's count over random ranges, with another transaction's "
    "uncommitted changes in the way",
    "[engine][count]") {
  Fixture f;
  std::unique_ptr<Transaction> keeper;
  f.CommittedChanges(&keeper);
  std::mt19937_64 rng(11);
  for (IsolationLevel iso : kLevels) {
    CAPTURE(static_cast<int>(iso));
    auto reader = Take(f.s2->Begin({.isolation = iso}));
    // REPEATABLE READ and SERIALIZABLE-as-RR: the view opens before the writer's changes.
    const uint64_t before = Take(reader->Count(f.ks, "", ""));
    CHECK(before == f.committed.size());
    // SERIALIZABLE reads lock: another transaction's changes would only make it wait.
    auto writer = Take(f.s1->Begin());
    const int64_t delta =
        iso == IsolationLevel::kSerializable ? 0 : f.UncommittedChanges(writer.get(), 100 + rng());
    for (int n = 0; n < 60; ++n) {
      const auto [lo, hi] = RandomRange(rng);
      CAPTURE(n);
      const uint64_t counted = Take(reader->Count(f.ks, lo, hi));
      CHECK(counted == IteratorCount(reader.get(), f.ks, lo, hi));
      if (iso != IsolationLevel::kReadUncommitted) CHECK(counted == f.CommittedIn(lo, hi));
    }
    const uint64_t all = Take(reader->Count(f.ks, "", ""));
    if (iso == IsolationLevel::kReadUncommitted) {
      CHECK(static_cast<int64_t>(all) == static_cast<int64_t>(f.committed.size()) + delta);
    } else {
      CHECK(all == f.committed.size());
    }
    // The writer sees its own changes through Count too.
    CHECK(static_cast<int64_t>(Take(writer->Count(f.ks, "", ""))) ==
          static_cast<int64_t>(f.committed.size()) + delta);
    REQUIRE_OK(writer->Rollback());
    REQUIRE_OK(reader->Commit());
  }
}

TEST_CASE("a REPEATABLE READ Count keeps its view across another transaction's commit",
          "[engine][count]") {
  Fixture f;
  auto reader = Take(f.s2->Begin());
  REQUIRE(Take(reader->Count(f.ks, "", "")) == kKeys);
  auto writer = Take(f.s1->Begin());
  f.UncommittedChanges(writer.get(), 5);
  REQUIRE_OK(writer->Commit());
  std::mt19937_64 rng(3);
  for (int n = 0; n < 40; ++n) {
    const auto [lo, hi] = RandomRange(rng);
    CHECK(Take(reader->Count(f.ks, lo, hi)) == f.CommittedIn(lo, hi));  // the load's rows
    CHECK(Take(reader->Count(f.ks, lo, hi)) == IteratorCount(reader.get(), f.ks, lo, hi));
  }
}

TEST_CASE("a locking Count takes exactly the locks an Iterator scan of the range takes",
          "[engine][count]") {
  Fixture f;
  std::unique_ptr<Transaction> keeper;
  f.CommittedChanges(&keeper);  // delete-marked records stay while keeper is open
  std::mt19937_64 rng(19);
  std::vector<std::pair<std::string, std::string>> ranges = {
      {"", ""},
      {Key(100), Key(3000)},
      {Key(3990), Key(4000)},   // hi at the start of the delete-marked stretch
      {Key(3990), Key(4001)},   // between keys
      {Key(5000), Key(5398)},   // inside it: nothing shown, locked to the ending record
      {Key(5400), Key(5390)},   // lo > hi
      {Key(2 * kKeys), ""},     // past the end
      {Key(11990), Key(20000)}  // the last leaf
  };
  for (int n = 0; n < 12; ++n) ranges.push_back(RandomRange(rng));
  for (IsolationLevel iso : {IsolationLevel::kReadUncommitted, IsolationLevel::kReadCommitted,
                             IsolationLevel::kRepeatableRead, IsolationLevel::kSerializable}) {
    for (LockMode mode : {LockMode::kNone, LockMode::kShare, LockMode::kExclusive}) {
      if (mode == LockMode::kNone && iso != IsolationLevel::kSerializable) continue;
      for (const auto& [lo, hi] : ranges) {
        CAPTURE(static_cast<int>(iso), static_cast<int>(mode), lo, hi);
        const ReadOptions ro{.lock_mode = mode};
        auto a = Take(f.s1->Begin({.isolation = iso}));
        const uint64_t counted = Take(a->Count(f.ks, lo, hi, ro));
        const auto count_locks = f.Locks();
        REQUIRE_OK(a->Rollback());
        auto b = Take(f.s1->Begin({.isolation = iso}));
        const uint64_t iterated = IteratorCount(b.get(), f.ks, lo, hi, ro);
        const auto iterator_locks = f.Locks();
        REQUIRE_OK(b->Rollback());
        CHECK(counted == iterated);
        CHECK(counted == f.CommittedIn(lo, hi));
        CHECK(count_locks.size() == iterator_locks.size());
        CHECK(count_locks == iterator_locks);
      }
    }
  }
}

TEST_CASE("a locking Count over leaves filled by random inserts takes the Iterator's locks",
          "[engine][count]") {
  // Half the odd keys inserted in random order and committed: the leaves split, and their heap
  // numbers are no longer one run in key order (the count's list path, not the run's).
  Fixture f;
  std::mt19937_64 rng(23);
  std::vector<uint32_t> odd;
  for (uint32_t i = 0; i < kKeys; ++i) odd.push_back(2 * i + 1);
  std::shuffle(odd.begin(), odd.end(), rng);
  odd.resize(kKeys / 2);
  auto w = Take(f.s1->Begin());
  for (uint32_t i : odd) {
    REQUIRE_OK(w->Insert(f.ks, Key(i), Value(i, 'o')));
    f.committed[Key(i)] = Value(i, 'o');
  }
  REQUIRE_OK(w->Commit());
  std::vector<std::pair<std::string, std::string>> ranges = {
      {"", ""}, {Key(101), Key(3001)}, {Key(3990), Key(4001)}, {Key(11990), ""}};
  for (int n = 0; n < 10; ++n) ranges.push_back(RandomRange(rng));
  for (IsolationLevel iso : {IsolationLevel::kReadCommitted, IsolationLevel::kRepeatableRead}) {
    for (LockMode mode : {LockMode::kShare, LockMode::kExclusive}) {
      for (const auto& [lo, hi] : ranges) {
        CAPTURE(static_cast<int>(iso), static_cast<int>(mode), lo, hi);
        const ReadOptions ro{.lock_mode = mode};
        auto a = Take(f.s1->Begin({.isolation = iso}));
        const uint64_t counted = Take(a->Count(f.ks, lo, hi, ro));
        const auto count_locks = f.Locks();
        REQUIRE_OK(a->Rollback());
        auto b = Take(f.s1->Begin({.isolation = iso}));
        const uint64_t iterated = IteratorCount(b.get(), f.ks, lo, hi, ro);
        const auto iterator_locks = f.Locks();
        REQUIRE_OK(b->Rollback());
        CHECK(counted == iterated);
        CHECK(counted == f.CommittedIn(lo, hi));
        CHECK(count_locks == iterator_locks);
      }
    }
  }
}

TEST_CASE("a locking Count waits for an X lock in its range and times out like the Iterator",
          "[engine][count]") {
  Fixture f(/*lock_wait_timeout_ms=*/150);
  // One conflict on the first leaf (read from the cursor's copy), one far into the range
  // (read in place).
  for (uint32_t blocked : {2u, 9000u}) {
    CAPTURE(blocked);
    auto writer = Take(f.s1->Begin());
    REQUIRE_OK(writer->Put(f.ks, Key(blocked), "new"));  // implicit X lock
    for (LockMode mode : {LockMode::kShare, LockMode::kExclusive}) {
      auto reader = Take(f.s2->Begin());
      REQUIRE_CODE(reader->Count(f.ks, "", "", {.lock_mode = mode}).status(),
                   Code::kLockWaitTimeout);
      auto it = Take(reader->NewIterator(f.ks, {.lock_mode = mode}));
      Status st = it->Seek("");
      while (st.ok() && it->Valid()) st = it->Next();
      REQUIRE_CODE(st, Code::kLockWaitTimeout);
      CHECK(reader->active());  // a timeout ends the statement only
      // A range that ends before the locked record does not wait.
      CHECK(Take(reader->Count(f.ks, Key(blocked + 2), Key(blocked + 100), {.lock_mode = mode})) ==
            49);
      REQUIRE_OK(reader->Rollback());
    }
    // The writer commits while a Count waits: the Count then goes on and counts everything.
    // (A long timeout of its own: on a loaded machine the commit may come well after 150 ms.)
    auto reader = Take(f.s2->Begin({.lock_wait_timeout_ms = 60'000}));
    Status committed;
    std::thread commit([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(40));
      committed = writer->Commit();
    });
    Result<uint64_t> waited = reader->Count(f.ks, "", "", {.lock_mode = LockMode::kShare});
    commit.join();
    REQUIRE_OK(committed);
    CHECK(Take(std::move(waited)) == kKeys);
    REQUIRE_OK(reader->Commit());
  }
  CHECK(f.db->stats().lock_wait_timeouts == 8);  // 2 conflicts x 2 modes x (Count, Iterator)
}

// The record keys `trx_id` holds locks on in keyspace `ks` (sorted), each with its mode.
std::vector<std::pair<std::string, std::string>> RecordLocks(Database* db, uint64_t trx_id,
                                                             const std::string& ks) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const DataLock& l : Take(db->DataLocks())) {
    if (l.trx_id == trx_id && l.keyspace == ks && !l.is_table)
      rows.emplace_back(l.key, l.lock_mode);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST_CASE("READ COMMITTED: a locking Count keeps the locks of the rows it counts only",
          "[engine][count]") {
  Fixture f;
  std::unique_ptr<Transaction> keeper;
  f.CommittedChanges(&keeper);  // delete-marked records stay while keeper is open
  const std::vector<std::pair<std::string, std::string>> ranges = {
      {"", ""},                // every leaf, the delete-marked stretch and the scattered ones
      {Key(3900), Key(4100)},  // ends inside the stretch
      {Key(4200), Key(4300)},  // delete-marked records only
  };
  for (IsolationLevel iso : {IsolationLevel::kReadUncommitted, IsolationLevel::kReadCommitted}) {
    for (LockMode mode : {LockMode::kShare, LockMode::kExclusive}) {
      for (const auto& [lo, hi] : ranges) {
        CAPTURE(static_cast<int>(iso), static_cast<int>(mode), lo, hi);
        auto a = Take(f.s1->Begin({.isolation = iso}));
        const uint64_t counted = Take(a->Count(f.ks, lo, hi, {.lock_mode = mode}));
        CHECK(counted == f.CommittedIn(lo, hi));
        // Exactly the counted rows, REC_NOT_GAP: no delete-marked record, nothing at the end.
        std::vector<std::pair<std::string, std::string>> expected;
        const std::string mode_name = mode == LockMode::kShare ? "S,REC_NOT_GAP" : "X,REC_NOT_GAP";
        for (auto it = f.committed.lower_bound(lo);
             it != f.committed.end() && (hi.empty() || it->first < hi); ++it) {
          expected.emplace_back(it->first, mode_name);
        }
        CHECK(RecordLocks(f.db.get(), a->id(), "t") == expected);
        CHECK(a->lock_info().row_locks == counted);
        REQUIRE_OK(a->Rollback());
      }
    }
  }
}

TEST_CASE("READ COMMITTED: a locking Count that waits keeps the row it waited for",
          "[engine][count]") {
  Fixture f(/*lock_wait_timeout_ms=*/60'000);
  // A keyspace of one leaf: the count's batch locks u1..u5 and waits at u6.
  Keyspace u = MustKeyspace(f.db.get(), "u");
  auto load = Take(f.s1->Begin());
  for (char c = '1'; c <= '8'; ++c) REQUIRE_OK(load->Put(u, std::string("u") + c, "v"));
  REQUIRE_OK(load->Commit());
  auto keeper = Take(f.s3->Begin());
  std::string v;
  REQUIRE(Take(keeper->Get(u, "u1", &v)));  // its view keeps the delete-marked u3
  auto eraser = Take(f.s1->Begin());
  REQUIRE_OK(eraser->Erase(u, "u3"));
  REQUIRE_OK(eraser->Commit());
  auto holder = Take(f.s1->Begin());
  REQUIRE_OK(holder->Erase(u, "u6"));  // uncommitted
  auto reader = Take(f.s2->Begin({.isolation = IsolationLevel::kReadCommitted}));
  Status committed;
  std::thread commit([&] {
    for (int i = 0; i < 50000 && f.db->stats().row_lock_current_waits == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    committed = holder->Commit();
  });
  Result<uint64_t> counted = reader->Count(u, "", "", {.lock_mode = LockMode::kExclusive});
  commit.join();
  REQUIRE_OK(committed);
  REQUIRE(f.db->stats().row_lock_waits == 1);
  CHECK(Take(std::move(counted)) == 6);
  // u3's lock, taken before the wait, is released as a record-at-a-time scan would have
  // released it on reaching it; u6, delete-marked by the commit it waited for, keeps its lock
  // (InnoDB never unlocks a row that was part of a conflict).
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"u1", "X,REC_NOT_GAP"}, {"u2", "X,REC_NOT_GAP"}, {"u4", "X,REC_NOT_GAP"},
      {"u5", "X,REC_NOT_GAP"}, {"u6", "X,REC_NOT_GAP"}, {"u7", "X,REC_NOT_GAP"},
      {"u8", "X,REC_NOT_GAP"}};
  CHECK(RecordLocks(f.db.get(), reader->id(), "u") == expected);
  CHECK(reader->lock_info().row_locks == 7);
  REQUIRE_OK(reader->Commit());
}

TEST_CASE("Count under concurrent splits: a REPEATABLE READ view counts the same rows every time",
          "[engine][count]") {
  Fixture f;
  auto reader = Take(f.s2->Begin());
  REQUIRE(Take(reader->Count(f.ks, "", "")) == kKeys);
  // A writer inserts the odd keys in random order (leaves split under the counts), committing
  // in batches of 50; each key once, so the reader's undo walks stay one step long.
  std::vector<uint32_t> odd;
  for (uint32_t i = 0; i < kKeys; ++i) odd.push_back(2 * i + 1);
  std::shuffle(odd.begin(), odd.end(), std::mt19937_64(23));
  std::atomic<bool> stop{false};
  std::atomic<bool> done{false};
  Status written;
  std::thread writer([&] {
    for (size_t next = 0; next < odd.size() && !stop.load() && written.ok();) {
      auto w = f.s1->Begin();
      if (!w.ok()) {
        written = w.status();
        break;
      }
      for (size_t end = std::min(next + 50, odd.size()); next < end && written.ok(); ++next) {
        written = (*w)->Insert(f.ks, Key(odd[next]), Value(odd[next], 'w'));
      }
      if (written.ok()) written = (*w)->Commit();
    }
    done = true;
  });
  // Counts until the writer is done (at least 100), so every count races splits however the
  // threads are scheduled.
  std::mt19937_64 rng(29);
  for (int n = 0; n < 100 || !done.load(); ++n) {
    const auto [lo, hi] = RandomRange(rng);
    const Result<uint64_t> counted = reader->Count(f.ks, lo, hi);
    if (!counted.ok() || *counted != f.CommittedIn(lo, hi)) {
      stop = true;
      writer.join();
      REQUIRE_OK(counted.status());
      REQUIRE(*counted == f.CommittedIn(lo, hi));
    }
  }
  writer.join();
  REQUIRE_OK(written);
  // A new transaction sees the writer's rows, through Count and an Iterator alike.
  auto later = Take(f.s2->Begin());
  const uint64_t all = Take(later->Count(f.ks, "", ""));
  CHECK(all == 2 * kKeys);
  CHECK(all == IteratorCount(later.get(), f.ks, "", ""));
  CHECK(Take(later->Count(f.ks, "", "", {.lock_mode = LockMode::kShare})) == all);
}

TEST_CASE("Count: a bad handle, a dropped keyspace and a finished transaction are errors",
          "[engine][count]") {
  Fixture f;
  auto txn = Take(f.s1->Begin());
  REQUIRE_CODE(txn->Count(Keyspace(), "", "").status(), Code::kInvalidArgument);
  CHECK(Take(txn->Count(f.ks, Key(10), Key(20))) == 5);
  CHECK(Take(txn->Count(f.ks, Key(20), Key(10))) == 0);
  CHECK(Take(txn->Count(f.ks, Key(2 * kKeys), "")) == 0);
  REQUIRE_OK(txn->Commit());
  REQUIRE_CODE(txn->Count(f.ks, "", "").status(), Code::kClosed);
  // An empty keyspace.
  Keyspace empty = MustKeyspace(f.db.get(), "empty");
  auto t2 = Take(f.s1->Begin());
  CHECK(Take(t2->Count(empty, "", "")) == 0);
  CHECK(Take(t2->Count(empty, "", "", {.lock_mode = LockMode::kShare})) == 0);
  REQUIRE_OK(t2->Commit());
  REQUIRE_OK(f.db->DropKeyspace("empty"));
  auto t3 = Take(f.s1->Begin());
  REQUIRE_CODE(t3->Count(empty, "", "").status(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace minnow
