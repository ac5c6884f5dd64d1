// Record locks and purge, engine level: deadlocks (the lighter transaction is the victim, or the
// timeout when detection is off), lock wait timeouts, gap locks of locking reads, insert
// intention, lock counts through Transaction::lock_info(), locks following their records
// through splits and merges, and purge (history list, delete-marked records, long readers).
// Blocking is shown by counts and error codes, never by timings.
#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "txn_test_util.h"

namespace minnow {
namespace {

using testing::Db;
using testing::Key;
using testing::kForUpdate;
using testing::kRC;
using testing::kRR;
using testing::kRU;
using testing::kSER;
using testing::kShareRead;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Step;
using testing::Take;
using testing::TestOptions;

size_t Count(Transaction* t, const Keyspace& ks, const ReadOptions& ro = {}) {
  auto it = Take(t->NewIterator(ks, ro));
  size_t n = 0;
  REQUIRE_OK(it->SeekToFirst());
  for (; it->Valid(); Step(it.get())) ++n;
  return n;
}

TEST_CASE("a deadlock rolls the lighter transaction back; the other proceeds", "[lock]") {
  // Which of the two closes the cycle (asks last): the victim is the lighter one either way.
  const bool light_asks_last = GENERATE(true, false);
  INFO((light_asks_last ? "the light transaction closes the cycle" : "the heavy one does"));
  Db d(/*lock_wait_timeout_ms=*/10000);
  d.Load({{"a", "0"}, {"b", "0"}});
  auto heavy = d.Begin(0);
  auto light = d.Begin(1);
  for (int i = 0; i < 50; ++i) REQUIRE_OK(heavy->Put(d.ks, Key(i), "heavy"));
  REQUIRE_OK(heavy->Put(d.ks, "a", "heavy"));
  REQUIRE_OK(light->Put(d.ks, "b", "light"));
  REQUIRE_OK(light->Put(d.ks, "c", "light"));

  Status heavy_st, light_st;
  if (light_asks_last) {
    std::thread th([&] { heavy_st = heavy->Put(d.ks, "b", "heavy"); });  // waits for light
    d.AwaitWaiters(1);
    light_st = light->Put(d.ks, "a", "light");  // closes the cycle
    th.join();
  } else {
    std::thread tl([&] { light_st = light->Put(d.ks, "a", "light"); });  // waits for heavy
    d.AwaitWaiters(1);
    heavy_st = heavy->Put(d.ks, "b", "heavy");  // closes the cycle: the waiter is the victim
    tl.join();
  }
  REQUIRE_CODE(light_st, Code::kDeadlock);
  CHECK(light_st.IsRetryable());
  REQUIRE_OK(heavy_st);
  CHECK_FALSE(light->active());  // rolled back whole
  REQUIRE_CODE(light->Put(d.ks, "d", "x"), Code::kClosed);
  CHECK(heavy->active());
  const DatabaseStats s = d.db->stats();
  CHECK(s.deadlocks == 1);
  CHECK(s.lock_wait_timeouts == 0);
  CHECK(s.row_lock_current_waits == 0);
  REQUIRE_OK(heavy->Commit());
  CHECK(d.Committed("a") == "heavy");
  CHECK(d.Committed("b") == "heavy");
  CHECK(d.Committed("c") == "<absent>");  // the victim's earlier write is undone
  CHECK(d.Committed(Key(49)) == "heavy");
  REQUIRE_OK(d.db->CheckIntegrity());
}

// InnoDB's classic: two transactions lock the same gap (gap locks never conflict), then both
// insert into it; each insert intention waits for the other's gap lock.
TEST_CASE("two gap lockers inserting into their gap deadlock", "[lock]") {
  Db d(/*lock_wait_timeout_ms=*/10000);
  d.Load({{Key(10), "v"}, {Key(20), "v"}});
  auto a = d.Begin(0, kRR);
  auto b = d.Begin(1, kRR);
  CHECK(a->Get(d.ks, Key(15), kForUpdate).status().IsNotFound());  // X,GAP on Key(20)
  CHECK(b->Get(d.ks, Key(15), kForUpdate).status().IsNotFound());  // compatible
  Status a_st;
  std::thread ta([&] { a_st = a->Insert(d.ks, Key(15), "a"); });
  d.AwaitWaiters(1);
  Status b_st = b->Insert(d.ks, Key(16), "b");
  ta.join();
  // Equal weights: the requester (b) is the victim; a's insert goes through.
  REQUIRE_CODE(b_st, Code::kDeadlock);
  REQUIRE_OK(a_st);
  CHECK_FALSE(b->active());
  CHECK(d.db->stats().deadlocks == 1);
  REQUIRE_OK(a->Commit());
  CHECK(d.Committed(Key(15)) == "a");
  CHECK(d.Committed(Key(16)) == "<absent>");
}

TEST_CASE("deadlock_detect = false leaves a deadlock to the lock wait timeout", "[lock]") {
  Options o = TestOptions(200);
  o.deadlock_detect = false;
  Db d(o);
  d.Load({{"a", "0"}, {"b", "0"}});
  auto t1 = d.Begin(0);
  auto t2 = d.Begin(1);
  REQUIRE_OK(t1->Put(d.ks, "a", "1"));
  REQUIRE_OK(t2->Put(d.ks, "b", "2"));
  Status t1_st;
  std::thread th([&] { t1_st = t1->Put(d.ks, "b", "1"); });
  d.AwaitWaiters(1);
  Status t2_st = t2->Put(d.ks, "a", "2");  // a cycle nobody breaks: both time out
  th.join();
  REQUIRE_CODE(t1_st, Code::kLockWaitTimeout);
  REQUIRE_CODE(t2_st, Code::kLockWaitTimeout);
  CHECK(t1->active());
  CHECK(t2->active());
  const DatabaseStats s = d.db->stats();
  CHECK(s.deadlocks == 0);
  CHECK(s.lock_wait_timeouts == 2);
  REQUIRE_OK(t1->Commit());
  REQUIRE_OK(t2->Commit());
  CHECK(d.Committed("a") == "1");
  CHECK(d.Committed("b") == "2");
}

TEST_CASE("a lock wait timeout ends the statement; the transaction keeps its earlier writes",
          "[lock]") {
  Db d(100);
  d.Load({{"a", "0"}, {"b", "0"}});
  auto holder = d.Begin(0);
  REQUIRE_OK(holder->Put(d.ks, "a", "holder"));
  auto t = d.Begin(1);
  REQUIRE_OK(t->Put(d.ks, "b", "t"));
  REQUIRE_OK(t->Insert(d.ks, "c", "t"));
  REQUIRE_OK(t->Erase(d.ks, "b"));
  REQUIRE_OK(t->Put(d.ks, "b", "t again"));
  const TransactionLockInfo locks_before = t->lock_info();
  REQUIRE_CODE(t->Put(d.ks, "a", "t"), Code::kLockWaitTimeout);
  REQUIRE_CODE(t->Erase(d.ks, "a"), Code::kLockWaitTimeout);
  REQUIRE_CODE(t->Get(d.ks, "a", kForUpdate).status(), Code::kLockWaitTimeout);
  CHECK(t->active());
  CHECK(t->lock_info().row_locks == locks_before.row_locks);  // its locks are kept
  CHECK(*t->Get(d.ks, "b") == "t again");
  CHECK(*t->Get(d.ks, "c") == "t");
  REQUIRE_OK(t->Commit());
  REQUIRE_OK(holder->Commit());
  CHECK(d.Committed("a") == "holder");
  CHECK(d.Committed("b") == "t again");
  CHECK(d.Committed("c") == "t");
  CHECK(d.db->stats().lock_wait_timeouts == 3);
}

TEST_CASE("gap locks: a locking read of an absent key keeps it out under REPEATABLE READ",
          "[lock]") {
  const IsolationLevel level = GENERATE(kRU, kRC, kRR, kSER);
  const ReadOptions ro = GENERATE(kShareRead, kForUpdate);
  INFO("isolation " << static_cast<int>(level) << ", lock mode " << static_cast<int>(ro.lock_mode));
  const bool gaps = level == kRR || level == kSER;
  Db d;
  d.Load({{Key(10), "v"}, {Key(20), "v"}, {Key(30), "v"}});
  auto locker = d.Begin(1, level);
  CHECK(locker->Get(d.ks, Key(15), ro).status().IsNotFound());  // the gap (10, 20)
  CHECK(locker->Get(d.ks, Key(35), ro).status().IsNotFound());  // the gap after 30
  CHECK(locker->lock_info().row_locks == (gaps ? 2u : 0u));
  auto inserter = d.Begin(0);
  if (gaps) {
    REQUIRE_CODE(inserter->Insert(d.ks, Key(15), "v"), Code::kLockWaitTimeout);
    REQUIRE_CODE(inserter->Insert(d.ks, Key(11), "v"), Code::kLockWaitTimeout);  // same gap
    REQUIRE_CODE(inserter->Put(d.ks, Key(35), "v"), Code::kLockWaitTimeout);
  } else {
    REQUIRE_OK(inserter->Insert(d.ks, Key(15), "v"));
    REQUIRE_OK(inserter->Insert(d.ks, Key(11), "v"));
    REQUIRE_OK(inserter->Put(d.ks, Key(35), "v"));
  }
  // Other gaps, and the records around the locked gap, are free at every level.
  REQUIRE_OK(inserter->Insert(d.ks, Key(25), "v"));
  REQUIRE_OK(inserter->Insert(d.ks, Key(5), "v"));
  REQUIRE_OK(inserter->Put(d.ks, Key(20), "changed"));
  REQUIRE_OK(inserter->Erase(d.ks, Key(10)));
  REQUIRE_OK(inserter->Commit());
  REQUIRE_OK(locker->Commit());
  REQUIRE_OK(d.db->CheckIntegrity());
}

TEST_CASE("an insert does not wait for a REC_NOT_GAP lock on its successor", "[lock]") {
  const IsolationLevel level = GENERATE(kRC, kRR);
  INFO("isolation " << static_cast<int>(level));
  Db d;
  d.Load({{Key(10), "v"}, {Key(20), "v"}, {Key(30), "v"}});
  auto locker = d.Begin(1, level);
  CHECK(*locker->Get(d.ks, Key(20), kForUpdate) == "v");  // X,REC_NOT_GAP: a unique lookup
  CHECK(*locker->Get(d.ks, Key(30), kShareRead) == "v");  // S,REC_NOT_GAP
  REQUIRE_OK(locker->Put(d.ks, Key(10), "w"));            // X,REC_NOT_GAP of a write
  const uint64_t waits = d.db->stats().row_lock_waits;
  auto inserter = d.Begin(0);
  REQUIRE_OK(inserter->Insert(d.ks, Key(15), "v"));  // goes before Key(20)
  REQUIRE_OK(inserter->Insert(d.ks, Key(25), "v"));  // before Key(30)
  REQUIRE_OK(inserter->Insert(d.ks, Key(5), "v"));   // before Key(10)
  CHECK(d.db->stats().row_lock_waits == waits);
  // The records themselves are locked.
  REQUIRE_CODE(inserter->Put(d.ks, Key(20), "x"), Code::kLockWaitTimeout);
  REQUIRE_CODE(inserter->Erase(d.ks, Key(30)), Code::kLockWaitTimeout);
  // An insert of a present key checks the duplicate under a lock: it waits too (InnoDB).
  REQUIRE_CODE(inserter->Insert(d.ks, Key(10), "x"), Code::kLockWaitTimeout);
  REQUIRE_OK(inserter->Commit());
  REQUIRE_OK(locker->Commit());
  CHECK(d.Committed(Key(15)) == "v");
  CHECK(d.Committed(Key(10)) == "w");
}

// A keyspace bulk-built with n small rows (many rows per leaf).
void BulkLoad(Db* d, uint64_t n) {
  auto t = d->Begin(3);
  uint64_t i = 0;
  std::string key;
  REQUIRE_OK(t->BulkInsert(d->ks, [&](std::string_view* k, std::string_view* v) {
    if (i == n) return false;
    key = Key(i++);
    *k = key;
    *v = "v";
    return true;
  }));
  REQUIRE_OK(t->Commit());
}

TEST_CASE("lock counts of a locking scan: one struct per leaf, a bit per row", "[lock]") {
  const IsolationLevel level = GENERATE(kRC, kRR, kSER);
  const ReadOptions ro = GENERATE(kShareRead, kForUpdate);
  INFO("isolation " << static_cast<int>(level) << ", lock mode " << static_cast<int>(ro.lock_mode));
  // Enough rows for under a bit per row: the lock heap's first chunk alone is 1 KiB (8,192
  // bits), and at ~480 rows per leaf 30,000 rows take 64 structs in the 1 + 2 KiB chunks.
  constexpr uint64_t kRows = 30000;
  Db d;
  BulkLoad(&d, kRows);
  const KeyspaceCheck check = d.Check();
  REQUIRE(check.records == kRows);
  const uint64_t leaves = check.leaf_pages;
  REQUIRE(leaves > 10);
  INFO("leaves " << leaves);

  auto t = d.Begin(1, level);
  CHECK(t->lock_info().lock_structs == 0);
  CHECK(Count(t.get(), d.ks, ro) == kRows);
  const TransactionLockInfo info = t->lock_info();
  CHECK(info.trx_id != 0);
  // One table lock (IS or IX) and one record struct per leaf (its records in heap order: one
  // run); under REPEATABLE READ and SERIALIZABLE every leaf's supremum too.
  CHECK(info.lock_structs == 1 + leaves);
  CHECK(info.row_locks == kRows + (level == kRC ? 0 : leaves));
  CHECK(info.heap_bytes > 0);
  CHECK(static_cast<double>(info.heap_bytes) * 8 / kRows < 1.0);
  const DatabaseStats s = d.db->stats();
  CHECK(s.lock_structs == info.lock_structs);
  CHECK(s.record_lock_structs == leaves);
  CHECK(s.row_locks == info.row_locks);
  // SERIALIZABLE's plain scan is a share-locking scan.
  if (level == kSER && ro.lock_mode == LockMode::kShare) {
    auto plain = d.Begin(2, kSER);
    CHECK(Count(plain.get(), d.ks) == kRows);
    CHECK(plain->lock_info().lock_structs == 1 + leaves);
    CHECK(plain->lock_info().row_locks == kRows + leaves);
  }
  REQUIRE_OK(t->Commit());
  CHECK(t->lock_info().lock_structs == 0);
  CHECK(d.db->stats().lock_structs == 0);
}

// Locks are on (page, heap number): they must move with their records when B+tree pages split
// and merge.
TEST_CASE("record locks follow their records through splits and merges", "[lock]") {
  Db d(50);
  constexpr int kSpacing = 1000, kBase = 100;
  std::vector<std::pair<std::string, std::string>> rows;
  for (int i = 0; i < kBase; ++i) rows.emplace_back(Key(i * kSpacing), std::string(100, 'b'));
  d.Load(rows);
  const uint64_t leaves_at_start = d.Check().leaf_pages;

  const std::vector<uint64_t> locked = {0, 37 * kSpacing, 50 * kSpacing, 99 * kSpacing};
  auto a = d.Begin(0, kRR);
  for (uint64_t k : locked) CHECK(*a->Get(d.ks, Key(k), kForUpdate) == std::string(100, 'b'));
  REQUIRE(a->lock_info().row_locks == locked.size());

  // Checks that exactly A's keys are locked, through a third transaction's locking reads.
  auto expect_locked = [&](const std::vector<uint64_t>& free_keys) {
    auto c = d.Begin(2, kRC);
    for (uint64_t k : locked) {
      INFO("key " << k);
      REQUIRE_CODE(c->Get(d.ks, Key(k), kShareRead).status(), Code::kLockWaitTimeout);
    }
    for (uint64_t k : free_keys) {
      INFO("key " << k);
      REQUIRE(c->Get(d.ks, Key(k), kForUpdate).ok());
    }
    REQUIRE_OK(c->Rollback());
  };
  expect_locked({kSpacing, 38 * kSpacing, 98 * kSpacing});

  // B fills the gaps around every key, splitting the pages that hold A's locked records.
  {
    auto b = d.Begin(1);
    for (int i = 0; i < kBase; ++i) {
      for (int j = 1; j <= 60; ++j) REQUIRE_OK(b->Insert(d.ks, Key(i * kSpacing + j), "filler"));
      REQUIRE_OK(b->Put(d.ks, Key(i * kSpacing + 500), std::string(400, 'f')));
    }
    REQUIRE_OK(b->Commit());
  }
  const uint64_t leaves_split = d.Check().leaf_pages;
  CHECK(leaves_split > 4 * leaves_at_start);
  CHECK(a->lock_info().row_locks == locked.size());
  expect_locked({1, 37 * kSpacing + 1, 37 * kSpacing + 500, 98 * kSpacing});

  // B erases nearly everything; purge removes the records and merges the pages.
  {
    auto b = d.Begin(1);
    for (int i = 0; i < kBase; ++i) {
      for (int j = 1; j <= 60; ++j) REQUIRE_OK(b->Erase(d.ks, Key(i * kSpacing + j)));
      REQUIRE_OK(b->Erase(d.ks, Key(i * kSpacing + 500)));
      if (i % 10 != 1) {
        const uint64_t k = static_cast<uint64_t>(i) * kSpacing;
        if (std::find(locked.begin(), locked.end(), k) == locked.end()) {
          REQUIRE_OK(b->Erase(d.ks, Key(k)));
        }
      }
    }
    REQUIRE_OK(b->Commit());
  }
  d.AwaitPurge();
  const KeyspaceCheck merged = d.Check();
  CHECK(merged.delete_marked == 0);
  CHECK(merged.records == locked.size() + 10);
  CHECK(merged.leaf_pages < leaves_split / 4);
  CHECK(a->lock_info().row_locks == locked.size());
  expect_locked({1 * kSpacing, 51 * kSpacing, 91 * kSpacing});

  REQUIRE_OK(a->Commit());
  auto c = d.Begin(2);
  for (uint64_t k : locked) REQUIRE(c->Get(d.ks, Key(k), kForUpdate).ok());
  REQUIRE_OK(c->Commit());
  REQUIRE_OK(d.db->CheckIntegrity());
}

TEST_CASE("purge removes erased records once no read view needs them", "[lock][purge]") {
  Db d;
  constexpr int kRows = 2000;
  std::vector<std::pair<std::string, std::string>> rows;
  for (int i = 0; i < kRows; ++i) rows.emplace_back(Key(i), std::string(50, 'p'));
  d.Load(rows);
  const uint64_t purged_before = d.db->stats().purged_records;
  {
    auto t = d.Begin(0);
    for (int i = 0; i < kRows; i += 2) REQUIRE_OK(t->Erase(d.ks, Key(i)));
    REQUIRE_OK(t->Commit());
  }
  d.AwaitPurge();
  CHECK(d.db->stats().purged_records - purged_before == kRows / 2);
  const KeyspaceCheck check = d.Check();
  CHECK(check.delete_marked == 0);
  CHECK(check.records == kRows / 2);
  auto t = d.Begin(0);
  CHECK(Count(t.get(), d.ks) == kRows / 2);
  CHECK(t->Get(d.ks, Key(0)).status().IsNotFound());
  CHECK(*t->Get(d.ks, Key(1)) == std::string(50, 'p'));
}

TEST_CASE("a long REPEATABLE READ reader keeps the history purge would remove", "[lock][purge]") {
  Db d;
  constexpr int kRows = 1000;
  std::vector<std::pair<std::string, std::string>> rows;
  for (int i = 0; i < kRows; ++i) rows.emplace_back(Key(i), "v1");
  d.Load(rows);
  d.AwaitPurge();
  auto reader = d.Begin(1, kRR);
  CHECK(Count(reader.get(), d.ks) == kRows);  // the snapshot is taken
  {
    auto w = d.Begin(0);
    for (int i = 0; i < kRows; i += 2) REQUIRE_OK(w->Erase(d.ks, Key(i)));
    for (int i = 1; i < kRows; i += 2) REQUIRE_OK(w->Put(d.ks, Key(i), "v2"));
    REQUIRE_OK(w->Commit());
  }
  // Purge runs every millisecond here: give it a few passes in which it must do nothing.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const uint64_t purged = d.db->stats().purged_records;
  CHECK(d.db->stats().history_list_length > 0);
  CHECK(d.Check().delete_marked == kRows / 2);
  CHECK(Count(reader.get(), d.ks) == kRows);
  CHECK(*reader->Get(d.ks, Key(0)) == "v1");
  CHECK(*reader->Get(d.ks, Key(1)) == "v1");
  CHECK(d.db->stats().purged_records == purged);
  REQUIRE_OK(reader->Commit());
  d.AwaitPurge();
  CHECK(d.db->stats().purged_records - purged == kRows / 2);
  const KeyspaceCheck check = d.Check();
  CHECK(check.delete_marked == 0);
  CHECK(check.records == kRows / 2);
}

}  // namespace
}  // namespace minnow
