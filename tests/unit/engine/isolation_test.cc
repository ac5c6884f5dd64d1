// Isolation levels, engine level: the anomalies each of the four levels allows or prevents, as
// InnoDB's: dirty reads, non-repeatable reads, phantoms (consistent vs locking reads), lost
// updates (plain reads vs FOR UPDATE), a transaction's own writes, and consistent reads that
// never wait. Blocking is shown by counts (a short lock_wait_timeout_ms gives kLockWaitTimeout,
// or a thread waits while the test polls row_lock_current_waits), never by timings.
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

const char* Name(IsolationLevel l) {
  switch (l) {
    case kRU:
      return "READ UNCOMMITTED";
    case kRC:
      return "READ COMMITTED";
    case kRR:
      return "REPEATABLE READ";
    case kSER:
      return "SERIALIZABLE";
  }
  return "?";
}

// The rows an iterator shows from the first key on; a failed move is returned.
Result<std::vector<std::string>> Scan(Transaction* t, const Keyspace& ks,
                                      const ReadOptions& ro = {}) {
  auto it = t->NewIterator(ks, ro);
  if (!it.ok()) return it.status();
  std::vector<std::string> keys;
  Status st = (*it)->SeekToFirst();
  while (st.ok() && (*it)->Valid()) {
    keys.emplace_back((*it)->key());
    st = (*it)->Next();
  }
  if (!st.ok()) return st;
  return keys;
}

size_t Count(Transaction* t, const Keyspace& ks, const ReadOptions& ro = {}) {
  return Take(Scan(t, ks, ro)).size();
}

IsolationLevel AnyLevel() { return GENERATE(kRU, kRC, kRR, kSER); }

TEST_CASE("dirty read: only READ UNCOMMITTED sees uncommitted data", "[isolation]") {
  const IsolationLevel level = AnyLevel();
  INFO(Name(level));
  Db d;
  d.Load({{"x", "1"}, {"y", "1"}});
  auto writer = d.Begin(0);
  REQUIRE_OK(writer->Put(d.ks, "x", "2"));
  REQUIRE_OK(writer->Insert(d.ks, "z", "new"));
  REQUIRE_OK(writer->Erase(d.ks, "y"));

  auto reader = d.Begin(1, level);
  auto x = reader->Get(d.ks, "x");
  switch (level) {
    case kRU:  // the latest version, committed or not
      CHECK(*x == "2");
      CHECK(*reader->Get(d.ks, "z") == "new");
      CHECK(reader->Get(d.ks, "y").status().IsNotFound());
      CHECK(Take(Scan(reader.get(), d.ks)) == std::vector<std::string>{"x", "z"});
      break;
    case kRC:
    case kRR:  // the committed version, from the undo chain
      CHECK(*x == "1");
      CHECK(reader->Get(d.ks, "z").status().IsNotFound());
      CHECK(*reader->Get(d.ks, "y") == "1");
      CHECK(Take(Scan(reader.get(), d.ks)) == std::vector<std::string>{"x", "y"});
      break;
    case kSER:  // plain reads lock: they wait for the writer's X locks
      REQUIRE_CODE(x.status(), Code::kLockWaitTimeout);
      REQUIRE_CODE(reader->Get(d.ks, "y").status(), Code::kLockWaitTimeout);
      REQUIRE_CODE(Scan(reader.get(), d.ks).status(), Code::kLockWaitTimeout);
      CHECK(reader->active());  // a timeout ends the statement only
      break;
  }
  REQUIRE_OK(writer->Rollback());
  // After the rollback every level reads the committed data (SERIALIZABLE no longer waits).
  CHECK(*reader->Get(d.ks, "x") == "1");
  CHECK(Take(Scan(reader.get(), d.ks)) == std::vector<std::string>{"x", "y"});
  REQUIRE_OK(reader->Commit());
}

TEST_CASE("non-repeatable read: READ COMMITTED and below see a commit between two reads",
          "[isolation]") {
  const IsolationLevel level = AnyLevel();
  INFO(Name(level));
  Db d;
  d.Load({{"x", "1"}, {"gone", "g"}});
  auto reader = d.Begin(1, level);
  CHECK(*reader->Get(d.ks, "x") == "1");
  CHECK(*reader->Get(d.ks, "gone") == "g");
  // A key that is absent at the first read: under REPEATABLE READ that read takes the
  // snapshot as well as any other does.
  CHECK(reader->Get(d.ks, "later").status().IsNotFound());

  auto writer = d.Begin(0);
  Status put = writer->Put(d.ks, "x", "2");
  if (level == kSER) {
    // The reader's plain reads took S locks: the writer cannot change what it read.
    REQUIRE_CODE(put, Code::kLockWaitTimeout);
    REQUIRE_CODE(writer->Erase(d.ks, "gone"), Code::kLockWaitTimeout);
    // ... nor insert into the gap its read of an absent key locked.
    REQUIRE_CODE(writer->Insert(d.ks, "later", "l"), Code::kLockWaitTimeout);
    REQUIRE_OK(writer->Rollback());
  } else {
    REQUIRE_OK(put);
    REQUIRE_OK(writer->Erase(d.ks, "gone"));
    REQUIRE_OK(writer->Insert(d.ks, "later", "l"));
    REQUIRE_OK(writer->Commit());
  }

  const bool repeatable = level == kRR || level == kSER;
  CHECK(*reader->Get(d.ks, "x") == (repeatable ? "1" : "2"));
  CHECK(reader->Get(d.ks, "gone").ok() == repeatable);
  CHECK(reader->Get(d.ks, "later").ok() == !repeatable);
  CHECK(Take(Scan(reader.get(), d.ks)) == (repeatable ? std::vector<std::string>{"gone", "x"}
                                                      : std::vector<std::string>{"later", "x"}));
  REQUIRE_OK(reader->Commit());
  CHECK(d.Committed("x") == (level == kSER ? "1" : "2"));
}

TEST_CASE("READ COMMITTED sees a commit made between two statements; REPEATABLE READ does not",
          "[isolation]") {
  const IsolationLevel level = GENERATE(kRC, kRR);
  INFO(Name(level));
  Db d;
  d.Load({{Key(1), "a"}, {Key(2), "b"}, {Key(3), "c"}});
  auto reader = d.Begin(1, level);
  CHECK(Count(reader.get(), d.ks) == 3);

  // An iterator's rows are the snapshot of its creation (READ COMMITTED) or of the
  // transaction (REPEATABLE READ): a commit while it is open is not seen by it at either level.
  auto it = Take(reader->NewIterator(d.ks));
  REQUIRE_OK(it->SeekToFirst());
  REQUIRE(it->key() == Key(1));
  {
    auto writer = d.Begin(0);
    REQUIRE_OK(writer->Put(d.ks, Key(2), "B"));
    REQUIRE_OK(writer->Insert(d.ks, Key(4), "d"));
    REQUIRE_OK(writer->Erase(d.ks, Key(3)));
    REQUIRE_OK(writer->Commit());
  }
  std::vector<std::string> rows;
  for (; it->Valid(); Step(it.get())) rows.emplace_back(Take(it->value()));
  CHECK(rows == std::vector<std::string>{"a", "b", "c"});

  // The next statement: READ COMMITTED sees the commit, REPEATABLE READ still does not.
  if (level == kRC) {
    CHECK(*reader->Get(d.ks, Key(2)) == "B");
    CHECK(Take(Scan(reader.get(), d.ks)) == std::vector<std::string>{Key(1), Key(2), Key(4)});
  } else {
    CHECK(*reader->Get(d.ks, Key(2)) == "b");
    CHECK(Take(Scan(reader.get(), d.ks)) == std::vector<std::string>{Key(1), Key(2), Key(3)});
  }
  // A locking read reads the latest committed version at every level.
  CHECK(*reader->Get(d.ks, Key(2), kShareRead) == "B");
  CHECK(reader->Get(d.ks, Key(3), kShareRead).status().IsNotFound());
  CHECK(Count(reader.get(), d.ks, kShareRead) == 3);
  REQUIRE_OK(reader->Commit());
}

TEST_CASE("REPEATABLE READ: the snapshot is taken at the first consistent read, not at Begin",
          "[isolation]") {
  Db d;
  d.Load({{"x", "1"}});
  auto reader = d.Begin(1, kRR);
  d.Load({{"x", "2"}});  // committed after Begin, before the first read: seen
  CHECK(*reader->Get(d.ks, "x") == "2");
  d.Load({{"x", "3"}});
  CHECK(*reader->Get(d.ks, "x") == "2");
  // Writes and locking reads do not move the snapshot either.
  REQUIRE_OK(reader->Put(d.ks, "own", "o"));
  CHECK(*reader->Get(d.ks, "x", kShareRead) == "3");
  CHECK(*reader->Get(d.ks, "x") == "2");
  REQUIRE_OK(reader->Commit());
}

TEST_CASE("REPEATABLE READ: a first read that finds nothing takes the snapshot too",
          "[isolation]") {
  Db d;
  d.Load({{"x", "1"}});
  auto reader = d.Begin(1, kRR);
  CHECK(reader->Get(d.ks, "later").status().IsNotFound());  // the first consistent read
  d.Load({{"later", "l"}, {"x", "2"}});
  CHECK(reader->Get(d.ks, "later").status().IsNotFound());
  CHECK(*reader->Get(d.ks, "x") == "1");
  CHECK(Count(reader.get(), d.ks) == 1);
  REQUIRE_OK(reader->Commit());
}

TEST_CASE("phantoms: a consistent scan vs a locking scan", "[isolation]") {
  const IsolationLevel level = AnyLevel();
  INFO(Name(level));
  Db d;
  d.Load({{Key(10), "v"}, {Key(20), "v"}, {Key(30), "v"}});
  const bool gap_locking = level == kRR || level == kSER;

  SECTION("consistent read") {
    auto reader = d.Begin(1, level);
    CHECK(Count(reader.get(), d.ks) == 3);
    auto inserter = d.Begin(0);
    Status st = inserter->Insert(d.ks, Key(25), "phantom");
    if (level == kSER) {
      // SERIALIZABLE's plain scan took next-key locks: the insert into the range waits.
      REQUIRE_CODE(st, Code::kLockWaitTimeout);
      REQUIRE_CODE(inserter->Insert(d.ks, Key(40), "after the last"), Code::kLockWaitTimeout);
      REQUIRE_OK(inserter->Rollback());
    } else {
      REQUIRE_OK(st);  // a consistent read locks nothing
      REQUIRE_OK(inserter->Insert(d.ks, Key(40), "after the last"));
      REQUIRE_OK(inserter->Commit());
    }
    // REPEATABLE READ's snapshot has no phantom; READ COMMITTED/UNCOMMITTED see the rows.
    CHECK(Count(reader.get(), d.ks) == (gap_locking ? 3u : 5u));
    REQUIRE_OK(reader->Commit());
  }

  SECTION("locking read") {
    const ReadOptions ro = GENERATE(kShareRead, kForUpdate);
    INFO("lock mode " << static_cast<int>(ro.lock_mode));
    auto reader = d.Begin(1, level);
    CHECK(Count(reader.get(), d.ks, ro) == 3);
    auto inserter = d.Begin(0);
    if (gap_locking) {
      // Next-key locks on 10, 20, 30 and the supremum: every gap of the range is closed.
      REQUIRE_CODE(inserter->Insert(d.ks, Key(25), "phantom"), Code::kLockWaitTimeout);
      REQUIRE_CODE(inserter->Insert(d.ks, Key(5), "before the first"), Code::kLockWaitTimeout);
      REQUIRE_CODE(inserter->Insert(d.ks, Key(40), "after the last"), Code::kLockWaitTimeout);
      CHECK(inserter->active());
      REQUIRE_OK(inserter->Rollback());
      CHECK(Count(reader.get(), d.ks, ro) == 3);
    } else {
      // Record locks only: the gaps are open, so the scan's next run sees phantoms.
      REQUIRE_OK(inserter->Insert(d.ks, Key(25), "phantom"));
      REQUIRE_OK(inserter->Insert(d.ks, Key(5), "before the first"));
      REQUIRE_OK(inserter->Insert(d.ks, Key(40), "after the last"));
      // The records themselves are locked.
      REQUIRE_CODE(inserter->Put(d.ks, Key(20), "changed"), Code::kLockWaitTimeout);
      REQUIRE_OK(inserter->Commit());
      CHECK(Count(reader.get(), d.ks, ro) == 6);
    }
    REQUIRE_OK(reader->Commit());
  }
}

// Where a locking scan starts or ends at an edge: an empty keyspace, a seek past the last key,
// a seek into the gap at the end of a leaf, and descending scans. Under REPEATABLE READ and
// SERIALIZABLE the range it read must stay closed to inserts (InnoDB locks the supremum it
// lands on, and a descending scan gap-locks the record after its start).
TEST_CASE("locking scans close the gaps at their edges under REPEATABLE READ", "[isolation]") {
  const IsolationLevel level = GENERATE(kRR, kSER);
  INFO(Name(level));
  Db d;
  auto reader = d.Begin(1, level);
  auto inserter = d.Begin(0);

  SECTION("an empty keyspace") {
    CHECK(Count(reader.get(), d.ks, kShareRead) == 0);
    REQUIRE_CODE(inserter->Insert(d.ks, Key(1), "phantom"), Code::kLockWaitTimeout);
  }
  SECTION("a seek past the last key") {
    d.Load({{Key(10), "v"}, {Key(20), "v"}});
    auto it = Take(reader->NewIterator(d.ks, kShareRead));
    REQUIRE_OK(it->Seek(Key(25)));
    CHECK_FALSE(it->Valid());
    REQUIRE_CODE(inserter->Insert(d.ks, Key(30), "phantom"), Code::kLockWaitTimeout);
    REQUIRE_CODE(inserter->Insert(d.ks, Key(25), "phantom"), Code::kLockWaitTimeout);
  }
  SECTION("a seek into the gap after a leaf's last record") {
    // Many rows: several leaves. A full locking scan shows where each leaf starts.
    std::vector<std::pair<std::string, std::string>> rows;
    for (int i = 0; i < 3000; ++i) rows.emplace_back(Key(2 * i), std::string(40, 'v'));
    d.Load(rows);
    uint64_t second_leaf_first = 0;
    {
      auto probe = d.Begin(2, kRC);
      CHECK(Count(probe.get(), d.ks, kShareRead) == 3000);
      auto locks = Take(d.db->DataLocks());
      uint32_t first_page = 0;
      for (const DataLock& l : locks) {  // in key order within a page; pages in any order
        if (l.is_table || l.supremum) continue;
        if (first_page == 0 && l.key == Key(0)) first_page = l.page_no;
      }
      REQUIRE(first_page != 0);
      std::string min_other;
      for (const DataLock& l : locks) {
        if (l.is_table || l.supremum || l.page_no == first_page) continue;
        if (min_other.empty() || l.key < min_other) min_other = l.key;
      }
      REQUIRE(!min_other.empty());
      for (int b = 0; b < 8; ++b) {
        second_leaf_first = (second_leaf_first << 8) | static_cast<uint8_t>(min_other[b]);
      }
      REQUIRE_OK(probe->Rollback());
    }
    INFO("the second leaf starts at " << second_leaf_first);
    auto it = Take(reader->NewIterator(d.ks, kShareRead));
    const bool forward = GENERATE(true, false);
    if (forward) {
      REQUIRE_OK(it->Seek(Key(second_leaf_first - 1)));  // after the first leaf's last record
      REQUIRE(it->key() == Key(second_leaf_first));
    } else {
      // Descending from the second leaf's first record onto the first leaf's last one.
      REQUIRE_OK(it->SeekForPrev(Key(second_leaf_first)));
      REQUIRE_OK(it->Prev());
      REQUIRE(it->key() == Key(second_leaf_first - 2));
    }
    REQUIRE_CODE(inserter->Insert(d.ks, Key(second_leaf_first - 1), "phantom"),
                 Code::kLockWaitTimeout);
  }
  SECTION("descending from the last key") {
    d.Load({{Key(10), "v"}, {Key(20), "v"}});
    auto it = Take(reader->NewIterator(d.ks, kShareRead));
    REQUIRE_OK(it->SeekToLast());
    REQUIRE(it->key() == Key(20));
    REQUIRE_CODE(inserter->Insert(d.ks, Key(30), "phantom"), Code::kLockWaitTimeout);
    REQUIRE_OK(it->Prev());
    REQUIRE(it->key() == Key(10));
    REQUIRE_CODE(inserter->Insert(d.ks, Key(15), "phantom"), Code::kLockWaitTimeout);
  }
  SECTION("descending from a key between two others") {
    d.Load({{Key(10), "v"}, {Key(20), "v"}, {Key(30), "v"}});
    auto it = Take(reader->NewIterator(d.ks, kShareRead));
    REQUIRE_OK(it->SeekForPrev(Key(25)));
    REQUIRE(it->key() == Key(20));
    REQUIRE_CODE(inserter->Insert(d.ks, Key(25), "phantom"), Code::kLockWaitTimeout);
    REQUIRE_CODE(inserter->Insert(d.ks, Key(21), "phantom"), Code::kLockWaitTimeout);
    REQUIRE_OK(inserter->Insert(d.ks, Key(35), "outside the range"));  // (20, 30) was read
  }
  CHECK(inserter->active());
  REQUIRE_OK(inserter->Rollback());
  REQUIRE_OK(reader->Commit());
}

// Two transactions read-modify-write one counter. With plain reads both read 0 and the second
// writer, once the first commits, overwrites its update (InnoDB does the same at REPEATABLE
// READ); SERIALIZABLE's share-locking reads turn it into a deadlock instead. With FOR UPDATE
// the second waits at its read and sees the first's update.
TEST_CASE("lost update: plain reads lose it, FOR UPDATE does not", "[isolation]") {
  const IsolationLevel level = AnyLevel();
  INFO(Name(level));
  Db d(/*lock_wait_timeout_ms=*/10000);  // waits end by commits, not by timeouts
  d.Load({{"counter", "0"}});
  const uint64_t deadlocks_before = d.db->stats().deadlocks;

  SECTION("plain reads") {
    auto a = d.Begin(0, level);
    auto b = d.Begin(1, level);
    const int read_a = std::stoi(*a->Get(d.ks, "counter"));
    const int read_b = std::stoi(*b->Get(d.ks, "counter"));
    CHECK(read_a == 0);
    CHECK(read_b == 0);
    if (level != kSER) {
      REQUIRE_OK(a->Put(d.ks, "counter", std::to_string(read_a + 1)));
      Status b_put, b_commit;
      std::thread tb([&] {
        b_put = b->Put(d.ks, "counter", std::to_string(read_b + 1));  // waits for a's X
        if (b_put.ok()) b_commit = b->Commit();
      });
      d.AwaitWaiters(1);
      REQUIRE_OK(a->Commit());
      tb.join();
      REQUIRE_OK(b_put);
      REQUIRE_OK(b_commit);
      CHECK(d.Committed("counter") == "1");  // two increments committed, one lost
    } else {
      // Both hold S on the counter: each one's X request waits for the other's S.
      Status a_put;
      std::thread ta([&] { a_put = a->Put(d.ks, "counter", std::to_string(read_a + 1)); });
      d.AwaitWaiters(1);
      Status b_put = b->Put(d.ks, "counter", std::to_string(read_b + 1));
      ta.join();
      // Exactly one is the deadlock victim (rolled back); the other's write goes through.
      CHECK(d.db->stats().deadlocks == deadlocks_before + 1);
      const bool a_victim = a_put.code() == Code::kDeadlock;
      const bool b_victim = b_put.code() == Code::kDeadlock;
      REQUIRE(a_victim != b_victim);
      Transaction* survivor = a_victim ? b.get() : a.get();
      Transaction* victim = a_victim ? a.get() : b.get();
      REQUIRE_OK(a_victim ? b_put : a_put);
      CHECK_FALSE(victim->active());
      REQUIRE_OK(survivor->Commit());
      CHECK(d.Committed("counter") == "1");  // one increment committed, one refused
    }
  }

  SECTION("FOR UPDATE") {
    auto a = d.Begin(0, level);
    auto b = d.Begin(1, level);
    const int read_a = std::stoi(*a->Get(d.ks, "counter", kForUpdate));
    CHECK(read_a == 0);
    Status b_st;
    std::string b_read;
    std::thread tb([&] {
      auto v = b->Get(d.ks, "counter", kForUpdate);  // waits for a's X
      b_st = v.status();
      if (!v.ok()) return;
      b_read = *v;
      b_st = b->Put(d.ks, "counter", std::to_string(std::stoi(*v) + 1));
      if (b_st.ok()) b_st = b->Commit();
    });
    d.AwaitWaiters(1);
    REQUIRE_OK(a->Put(d.ks, "counter", std::to_string(read_a + 1)));
    REQUIRE_OK(a->Commit());
    tb.join();
    REQUIRE_OK(b_st);
    CHECK(b_read == "1");  // the latest committed version, whatever b's snapshot
    CHECK(d.Committed("counter") == "2");
    CHECK(d.db->stats().deadlocks == deadlocks_before);
  }
}

TEST_CASE("a transaction sees its own writes at every level", "[isolation]") {
  const IsolationLevel level = AnyLevel();
  INFO(Name(level));
  Db d;
  d.Load({{Key(1), "old"}, {Key(2), "doomed"}, {Key(3), "kept"}});
  auto t = d.Begin(0, level);
  CHECK(*t->Get(d.ks, Key(1)) == "old");  // (RR: the snapshot is open now)
  REQUIRE_OK(t->Put(d.ks, Key(1), "new"));
  REQUIRE_OK(t->Erase(d.ks, Key(2)));
  REQUIRE_OK(t->Insert(d.ks, Key(4), "mine"));
  REQUIRE_OK(t->Put(d.ks, Key(5), std::string(100000, 'o')));  // an overflow value
  REQUIRE_OK(t->Erase(d.ks, Key(5)));
  REQUIRE_OK(t->Put(d.ks, Key(5), "back"));

  for (const ReadOptions& ro : {ReadOptions{}, kShareRead, kForUpdate}) {
    INFO("lock mode " << static_cast<int>(ro.lock_mode));
    CHECK(*t->Get(d.ks, Key(1), ro) == "new");
    CHECK(t->Get(d.ks, Key(2), ro).status().IsNotFound());
    CHECK(*t->Get(d.ks, Key(4), ro) == "mine");
    CHECK(*t->Get(d.ks, Key(5), ro) == "back");
    auto it = Take(t->NewIterator(d.ks, ro));
    std::vector<std::pair<std::string, std::string>> rows;
    REQUIRE_OK(it->SeekToFirst());
    for (; it->Valid(); Step(it.get())) {
      rows.emplace_back(std::string(it->key()), std::string(Take(it->value())));
    }
    CHECK(rows == std::vector<std::pair<std::string, std::string>>{
                      {Key(1), "new"}, {Key(3), "kept"}, {Key(4), "mine"}, {Key(5), "back"}});
  }
  // Others do not see them (READ UNCOMMITTED would; SERIALIZABLE would wait).
  auto other = d.Begin(1, kRC);
  CHECK(*other->Get(d.ks, Key(1)) == "old");
  CHECK(other->Get(d.ks, Key(4)).status().IsNotFound());
  REQUIRE_OK(other->Commit());
  REQUIRE_OK(t->Commit());
  CHECK(d.Committed(Key(1)) == "new");
  CHECK(d.Committed(Key(2)) == "<absent>");
}

TEST_CASE("a consistent read never waits for a writer's lock", "[isolation]") {
  const IsolationLevel level = GENERATE(kRU, kRC, kRR);
  INFO(Name(level));
  Db d;
  std::vector<std::pair<std::string, std::string>> rows;
  for (int i = 0; i < 200; ++i) rows.emplace_back(Key(2 * i), "committed");
  d.Load(rows);
  // A writer holding X locks on records (explicit and implicit), an inserted record and a
  // delete-marked one, and a locking reader holding next-key X locks on another range.
  auto writer = d.Begin(0);
  REQUIRE_OK(writer->Put(d.ks, Key(14), "uncommitted"));
  REQUIRE_OK(writer->Erase(d.ks, Key(16)));
  REQUIRE_OK(writer->Insert(d.ks, Key(15), "uncommitted"));
  auto locker = d.Begin(2, kRR);
  auto it = Take(locker->NewIterator(d.ks, kForUpdate));
  REQUIRE_OK(it->Seek(Key(200)));
  CHECK(locker->lock_info().row_locks > 0);

  const DatabaseStats before = d.db->stats();
  auto reader = d.Begin(1, level);
  for (int i = 0; i < 200; ++i) {
    INFO("key " << 2 * i);
    REQUIRE(reader->Get(d.ks, Key(2 * i)).ok() == (level != kRU || 2 * i != 16));
  }
  CHECK(reader->Get(d.ks, Key(15)).ok() == (level == kRU));
  // READ UNCOMMITTED: without Key(16), with Key(15); the others: the 200 committed rows.
  CHECK(Count(reader.get(), d.ks) == 200);
  const DatabaseStats after = d.db->stats();
  CHECK(after.row_lock_waits == before.row_lock_waits);
  CHECK(after.lock_wait_timeouts == before.lock_wait_timeouts);
  CHECK(reader->lock_info().trx_id == 0);  // it never locked (nor got an id)
  CHECK(reader->lock_info().row_locks == 0);
  REQUIRE_OK(reader->Commit());
}

TEST_CASE("SERIALIZABLE plain reads are share-locking reads", "[isolation]") {
  Db d;
  d.Load({{Key(1), "a"}, {Key(2), "b"}});
  auto reader = d.Begin(1, kSER);
  CHECK(*reader->Get(d.ks, Key(1)) == "a");
  CHECK(reader->lock_info().row_locks == 1);  // S,REC_NOT_GAP on Key(1)
  // S is compatible with S: another share-locking reader goes on; a writer waits.
  auto other = d.Begin(0, kSER);
  CHECK(*other->Get(d.ks, Key(1)) == "a");
  REQUIRE_CODE(other->Put(d.ks, Key(1), "A"), Code::kLockWaitTimeout);
  REQUIRE_OK(other->Put(d.ks, Key(2), "B"));  // not read by the reader: free
  REQUIRE_OK(other->Commit());
  REQUIRE_OK(reader->Commit());
  CHECK(d.Committed(Key(2)) == "B");
}

}  // namespace
}  // namespace minnow
