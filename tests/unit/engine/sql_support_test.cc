// The engine API the SQL front end needs: the options the database was opened with, a
// per-transaction lock wait timeout, a transaction's id from any thread, statement savepoints,
// table locks (LOCK TABLES), interrupting a lock wait (KILL QUERY), the latest deadlock report
// and one keyspace's tree counts (SHOW TABLE STATUS).
#include <algorithm>
#include <atomic>
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
using testing::kShareRead;
using testing::MustKeyspace;
using testing::Step;
using testing::Take;
using testing::TestOptions;

using Clock = std::chrono::steady_clock;

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

TEST_CASE("options() returns the options Open was given, normalized", "[sql_support]") {
  Options o = TestOptions(1234);
  o.purge_interval_ms = 0;
  o.deadlock_detect = false;
  Db d(o);
  const Options& got = d.db->options();
  CHECK(got.path == ":memory:");
  CHECK(got.lock_wait_timeout_ms == 1234);
  CHECK_FALSE(got.deadlock_detect);
  CHECK(got.buffer_pool_bytes == o.buffer_pool_bytes);
  CHECK(got.purge_interval_ms == 1);  // 0 means "as often as possible": 1 ms
}

TEST_CASE("a transaction's lock_wait_timeout_ms overrides the database's", "[sql_support]") {
  Db d(/*lock_wait_timeout_ms=*/60000);
  d.Load({{"a", "0"}});
  auto holder = d.Begin(0);
  REQUIRE_OK(holder->Put(d.ks, "a", "1"));

  auto waiter = Take(d.sessions[1]->Begin({.lock_wait_timeout_ms = 50}));
  const auto start = Clock::now();
  REQUIRE_CODE(waiter->Get(d.ks, "a", kForUpdate).status(), Code::kLockWaitTimeout);
  const int64_t waited = MillisSince(start);
  CHECK(waited >= 45);
  CHECK(waited < 5000);     // not the database's 60 s
  CHECK(waiter->active());  // a timeout ends only the statement
  CHECK(d.db->stats().lock_wait_timeouts == 1);

  // 0 means the database's timeout: this one is still waiting when the holder commits.
  auto patient = Take(d.sessions[2]->Begin({.lock_wait_timeout_ms = 0}));
  Status patient_st;
  std::thread th([&] { patient_st = patient->Get(d.ks, "a", kForUpdate).status(); });
  d.AwaitWaiters(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(d.db->stats().row_lock_current_waits == 1);
  REQUIRE_OK(holder->Commit());
  th.join();
  REQUIRE_OK(patient_st);
}

TEST_CASE("id() is 0 until the first write or lock, then the id, from any thread",
          "[sql_support]") {
  Db d;
  d.Load({{"a", "0"}});
  auto reader = d.Begin(0);
  REQUIRE(Take(reader->Get(d.ks, "a")) == "0");
  CHECK(reader->id() == 0);  // a consistent read needs no id

  auto writer = d.Begin(1);
  CHECK(writer->id() == 0);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> seen{0};
  std::thread watcher([&] {
    while (!stop.load()) {
      const uint64_t id = writer->id();
      if (id != 0) seen.store(id);
    }
  });
  REQUIRE_OK(writer->Put(d.ks, "b", "1"));
  const uint64_t id = writer->id();
  CHECK(id != 0);
  CHECK(writer->lock_info().trx_id == id);
  for (int i = 0; i < 10000 && seen.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  stop.store(true);
  watcher.join();
  CHECK(seen.load() == id);

  auto locker = d.Begin(2);
  REQUIRE(Take(locker->Get(d.ks, "a", kShareRead)) == "0");
  CHECK(locker->id() != 0);
  CHECK(locker->id() != id);
  REQUIRE_OK(writer->Commit());
  CHECK(writer->id() == id);  // kept after the end
}

// Every key of `ks` as `t` sees it, with values: "k=v,k=v".
std::string Dump(Transaction* t, const Keyspace& ks) {
  auto it = Take(t->NewIterator(ks));
  std::string out;
  REQUIRE_OK(it->SeekToFirst());
  for (; it->Valid(); Step(it.get())) {
    if (!out.empty()) out += ",";
    out += std::string(it->key()) + "=" + std::string(Take(it->value()));
  }
  return out;
}

TEST_CASE("RollbackToSavepoint undoes the later changes and keeps the transaction and its locks",
          "[sql_support]") {
  Db d(/*lock_wait_timeout_ms=*/50);
  const Keyspace idx = MustKeyspace(d.db.get(), "t_idx");  // a secondary-index-like keyspace
  d.Load({{"a", "0"}, {"b", "0"}, {"c", "0"}});
  {
    auto t = d.Begin(3);
    REQUIRE_OK(t->Put(idx, "0|a", ""));
    REQUIRE_OK(t->Commit());
  }
  auto t = d.Begin(0);
  CHECK(t->Savepoint() == 0);
  REQUIRE_OK(t->Put(d.ks, "a", "1"));  // the earlier statement
  REQUIRE_OK(t->Erase(idx, "0|a"));
  REQUIRE_OK(t->Insert(idx, "1|a", ""));
  const uint64_t sp = t->Savepoint();
  CHECK(sp == 3);

  REQUIRE_OK(t->Insert(d.ks, "d", "new"));  // the statement to roll back
  REQUIRE_OK(t->Put(d.ks, "b", "2"));
  REQUIRE_OK(t->Erase(d.ks, "c"));
  REQUIRE_OK(t->Put(d.ks, "a", "3"));
  REQUIRE_OK(t->Insert(idx, "new|d", ""));
  REQUIRE_OK(t->Erase(idx, "1|a"));
  CHECK(Dump(t.get(), d.ks) == "a=3,b=2,d=new");
  const TransactionLockInfo before = t->lock_info();

  REQUIRE_CODE(t->RollbackToSavepoint(t->Savepoint() + 1), Code::kInvalidArgument);
  REQUIRE_OK(t->RollbackToSavepoint(sp));
  CHECK(t->active());
  CHECK(Dump(t.get(), d.ks) == "a=1,b=0,c=0");
  CHECK(Dump(t.get(), idx) == "1|a=");
  const TransactionLockInfo after = t->lock_info();
  CHECK(after.trx_id == before.trx_id);
  CHECK(after.lock_structs == before.lock_structs);
  CHECK(after.row_locks == before.row_locks);
  CHECK(after.heap_bytes == before.heap_bytes);
  // The locks of the rolled-back statement stay: others still wait for b and c.
  auto other = d.Begin(1);
  REQUIRE_CODE(other->Get(d.ks, "b", kForUpdate).status(), Code::kLockWaitTimeout);
  REQUIRE_CODE(other->Get(d.ks, "c", kForUpdate).status(), Code::kLockWaitTimeout);
  REQUIRE_OK(other->Rollback());

  // Rolling back to the same mark again changes nothing; then the transaction goes on.
  REQUIRE_OK(t->RollbackToSavepoint(sp));
  REQUIRE_OK(t->Put(d.ks, "e", "5"));
  REQUIRE_OK(t->Commit());
  CHECK(d.Committed("a") == "1");
  CHECK(d.Committed("b") == "0");
  CHECK(d.Committed("c") == "0");
  CHECK(d.Committed("d") == "<absent>");
  CHECK(d.Committed("e") == "5");
  auto r = d.Begin(2);
  CHECK(Dump(r.get(), idx) == "1|a=");
  REQUIRE_CODE(t->RollbackToSavepoint(0), Code::kClosed);
  REQUIRE_OK(d.db->CheckIntegrity());
}

TEST_CASE("RollbackToSavepoint(0) undoes everything but keeps the transaction open",
          "[sql_support]") {
  Db d;
  auto t = d.Begin(0);
  REQUIRE_OK(t->RollbackToSavepoint(0));  // nothing to undo
  REQUIRE_OK(t->Put(d.ks, "a", "1"));
  REQUIRE_OK(t->Put(d.ks, "b", "1"));
  REQUIRE_OK(t->RollbackToSavepoint(0));
  CHECK(t->active());
  CHECK(Dump(t.get(), d.ks).empty());
  REQUIRE_OK(t->Commit());
  CHECK(d.Committed("a") == "<absent>");
}

// The DataLocks rows of keyspace `ks` that are table locks, as "trx:MODE:STATUS".
std::vector<std::string> TableLocks(Database* db, const std::string& ks) {
  std::vector<std::string> out;
  for (const DataLock& l : Take(db->DataLocks())) {
    if (l.is_table && l.keyspace == ks) {
      out.push_back(std::to_string(l.trx_id) + ":" + l.lock_mode + ":" + l.lock_status());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE("LockTable takes S or X table locks that conflict as InnoDB's do", "[sql_support]") {
  Db d(/*lock_wait_timeout_ms=*/50);
  d.Load({{"a", "0"}});
  auto s1 = d.Begin(0);
  auto s2 = d.Begin(1);
  REQUIRE_CODE(s1->LockTable(d.ks, LockMode::kNone), Code::kInvalidArgument);
  REQUIRE_OK(s1->LockTable(d.ks, LockMode::kShare));
  REQUIRE_OK(s2->LockTable(d.ks, LockMode::kShare));  // S and S are compatible
  REQUIRE_OK(s1->LockTable(d.ks, LockMode::kShare));  // held already
  CHECK(s1->id() != 0);
  CHECK(TableLocks(d.db.get(), "t") ==
        std::vector<std::string>{std::to_string(s1->id()) + ":S:GRANTED",
                                 std::to_string(s2->id()) + ":S:GRANTED"});
  // A plain read needs no lock; a locking read (IS) is compatible with S; a write (IX) waits.
  auto w = d.Begin(2);
  CHECK(Take(w->Get(d.ks, "a")) == "0");
  CHECK(Take(w->Get(d.ks, "a", kShareRead)) == "0");
  const auto start = Clock::now();
  REQUIRE_CODE(w->Put(d.ks, "a", "1"), Code::kLockWaitTimeout);
  CHECK(MillisSince(start) >= 45);
  CHECK(w->active());

  // X waits for the S holders; when they end it is granted.
  Status x_st;
  auto x = Take(d.sessions[3]->Begin({.lock_wait_timeout_ms = 10000}));
  auto t = Take(d.sessions[3]->Begin());
  std::thread th([&] {  // no Catch assertions off the main thread
    x_st = x->LockTable(d.ks, LockMode::kExclusive);
    if (!x_st.ok()) return;
    // While X is held, any other lock on the table waits: S, a locking read, a write.
    x_st = t->LockTable(d.ks, LockMode::kShare).code() == Code::kLockWaitTimeout &&
                   t->Get(d.ks, "a", kShareRead).status().code() == Code::kLockWaitTimeout &&
                   t->Put(d.ks, "b", "1").code() == Code::kLockWaitTimeout
               ? x->Commit()
               : Status(Code::kAborted, "a lock on the table did not wait for X");
  });
  d.AwaitWaiters(1);
  const std::vector<std::string> rows = TableLocks(d.db.get(), "t");
  CHECK(std::count_if(rows.begin(), rows.end(),
                      [](const std::string& r) { return r.ends_with(":X:WAITING"); }) == 1);
  REQUIRE_OK(s1->Commit());
  REQUIRE_OK(w->Rollback());  // it held IS
  CHECK(d.db->stats().row_lock_current_waits == 1);
  REQUIRE_OK(s2->Rollback());  // releases S: X is granted
  th.join();
  REQUIRE_OK(x_st);
  CHECK(TableLocks(d.db.get(), "t").empty());
}

TEST_CASE("LockTable(X) shows in DataLocks and waits for another's IX", "[sql_support]") {
  Db d(/*lock_wait_timeout_ms=*/10000);
  auto writer = d.Begin(0);
  REQUIRE_OK(writer->Put(d.ks, "a", "1"));
  auto x = Take(d.sessions[1]->Begin({.lock_wait_timeout_ms = 50}));
  REQUIRE_CODE(x->LockTable(d.ks, LockMode::kExclusive), Code::kLockWaitTimeout);
  CHECK(x->active());
  REQUIRE_OK(writer->Commit());
  REQUIRE_OK(x->LockTable(d.ks, LockMode::kExclusive));
  CHECK(TableLocks(d.db.get(), "t") ==
        std::vector<std::string>{std::to_string(x->id()) + ":X:GRANTED"});
  REQUIRE_OK(x->Put(d.ks, "b", "2"));  // its own IX is covered by X
  REQUIRE_OK(x->Commit());
  CHECK(TableLocks(d.db.get(), "t").empty());
  REQUIRE_CODE(x->LockTable(d.ks, LockMode::kShare), Code::kClosed);
}

TEST_CASE("Interrupt ends a lock wait with kAborted; the transaction and its locks stay",
          "[sql_support]") {
  Db d(/*lock_wait_timeout_ms=*/60000);
  d.Load({{"a", "0"}, {"b", "0"}});
  auto blocker = d.Begin(0);
  REQUIRE_OK(blocker->Put(d.ks, "a", "1"));
  auto t = d.Begin(1);
  REQUIRE_OK(t->Put(d.ks, "b", "1"));  // a lock of its own, to keep

  Status st;
  std::thread th([&] { st = t->Get(d.ks, "a", kForUpdate).status(); });
  d.AwaitWaiters(1);
  const auto start = Clock::now();
  t->Interrupt();
  th.join();
  CHECK(MillisSince(start) < 5000);  // not the 60 s timeout
  CHECK(st.code() == Code::kAborted);
  CHECK(st.message() == "Query execution was interrupted");
  CHECK(d.db->stats().row_lock_current_waits == 0);
  CHECK(d.db->stats().lock_wait_timeouts == 0);
  CHECK(t->active());
  CHECK(blocker->active());
  // Both keep their locks: the blocker's on a, t's on b.
  auto probe = Take(d.sessions[2]->Begin({.lock_wait_timeout_ms = 20}));
  REQUIRE_CODE(probe->Get(d.ks, "a", kForUpdate).status(), Code::kLockWaitTimeout);
  REQUIRE_CODE(probe->Get(d.ks, "b", kForUpdate).status(), Code::kLockWaitTimeout);
  REQUIRE_OK(probe->Rollback());

  // While the flag is set, a new wait ends at once (no sleep until a timeout).
  REQUIRE_CODE(t->Put(d.ks, "a", "2"), Code::kAborted);
  // Locks granted at once are not affected.
  REQUIRE_OK(t->Put(d.ks, "c", "1"));

  // Cleared: the same transaction waits as usual and gets the lock when the blocker commits.
  t->ClearInterrupt();
  std::thread th2([&] { st = t->Put(d.ks, "a", "2"); });
  d.AwaitWaiters(1);
  REQUIRE_OK(blocker->Commit());
  th2.join();
  REQUIRE_OK(st);
  REQUIRE_OK(t->Commit());
  CHECK(d.Committed("a") == "2");
  CHECK(d.Committed("b") == "1");
  t->Interrupt();  // harmless on a finished transaction
}

TEST_CASE("Interrupt before the first lock applies to the first wait", "[sql_support]") {
  Db d(/*lock_wait_timeout_ms=*/60000);
  auto blocker = d.Begin(0);
  REQUIRE_OK(blocker->Put(d.ks, "a", "1"));
  auto t = d.Begin(1);
  t->Interrupt();
  CHECK(t->id() == 0);
  REQUIRE_CODE(t->Get(d.ks, "a", kForUpdate).status(), Code::kAborted);
  CHECK(t->id() != 0);
  t->ClearInterrupt();
  REQUIRE_OK(t->Put(d.ks, "b", "1"));
  REQUIRE_OK(t->Commit());
}

TEST_CASE("Interrupt from many threads while the transaction waits and works", "[sql_support]") {
  // For ThreadSanitizer: Interrupt and ClearInterrupt race with the transaction getting its
  // lock state, waiting, and ending.
  Db d(/*lock_wait_timeout_ms=*/60000);
  d.Load({{"a", "0"}});
  for (int round = 0; round < 20; ++round) {
    auto blocker = d.Begin(0);
    REQUIRE_OK(blocker->Put(d.ks, "a", "1"));
    auto t = d.Begin(1);
    std::atomic<bool> stop{false};
    std::thread killer([&] {
      while (!stop.load()) {
        t->Interrupt();
        std::this_thread::yield();
      }
    });
    Status st = t->Get(d.ks, "a", kForUpdate).status();
    CHECK(st.code() == Code::kAborted);
    REQUIRE_OK(t->Commit());
    stop.store(true);
    killer.join();
    REQUIRE_OK(blocker->Rollback());
  }
}

TEST_CASE("LatestDeadlock reports the cycle, what each waited for and held, and the victim",
          "[sql_support]") {
  Db d(/*lock_wait_timeout_ms=*/10000);
  d.Load({{"a", "0"}, {"b", "0"}});
  CHECK_FALSE(d.db->LatestDeadlock().has_value());
  auto heavy = d.Begin(0);
  auto light = d.Begin(1);
  for (int i = 0; i < 5; ++i) REQUIRE_OK(heavy->Put(d.ks, Key(i), "heavy"));
  REQUIRE_OK(heavy->Put(d.ks, "a", "heavy"));
  REQUIRE_OK(light->Put(d.ks, "b", "light"));
  const uint64_t heavy_id = heavy->id();
  const uint64_t light_id = light->id();
  const int64_t before = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();

  Status heavy_st;
  std::thread th([&] { heavy_st = heavy->Put(d.ks, "b", "heavy"); });  // waits for light
  d.AwaitWaiters(1);
  REQUIRE_CODE(light->Put(d.ks, "a", "light"), Code::kDeadlock);  // closes the cycle, lighter
  th.join();
  REQUIRE_OK(heavy_st);
  CHECK_FALSE(light->active());

  const std::optional<DeadlockReport> r = d.db->LatestDeadlock();
  REQUIRE(r.has_value());
  CHECK(r->victim_trx_id == light_id);
  CHECK(r->unix_time >= before);
  REQUIRE(r->cycle.size() == 2);
  const DeadlockReport::Trx& l = r->cycle[0];  // the one that found it: light
  const DeadlockReport::Trx& h = r->cycle[1];
  CHECK(l.trx_id == light_id);
  CHECK(h.trx_id == heavy_id);
  CHECK(l.rows_modified == 1);
  CHECK(h.rows_modified == 6);
  CHECK(l.locks.trx_id == light_id);
  CHECK(l.locks.lock_structs >= 2);  // IX, X on b, the waiting request
  CHECK(h.locks.row_locks >= 1);

  CHECK(l.waiting_for.trx_id == light_id);
  CHECK(l.waiting_for.keyspace == "t");
  CHECK(l.waiting_for.key == "a");
  CHECK(l.waiting_for.lock_mode == "X,REC_NOT_GAP");
  CHECK(l.waiting_for.waiting);
  CHECK_FALSE(l.waiting_for.is_table);
  REQUIRE(l.holds.size() == 1);  // what heavy waits for
  CHECK(l.holds[0].trx_id == light_id);
  CHECK(l.holds[0].key == "b");
  CHECK(l.holds[0].keyspace == "t");
  CHECK(l.holds[0].lock_mode == "X,REC_NOT_GAP");
  CHECK_FALSE(l.holds[0].waiting);

  CHECK(h.waiting_for.key == "b");
  CHECK(h.waiting_for.lock_mode == "X,REC_NOT_GAP");
  REQUIRE(h.holds.size() == 1);  // what light waits for
  CHECK(h.holds[0].trx_id == heavy_id);
  CHECK(h.holds[0].key == "a");
  CHECK_FALSE(h.holds[0].waiting);
  REQUIRE_OK(heavy->Commit());

  // A later deadlock replaces it.
  auto t1 = d.Begin(0);
  auto t2 = d.Begin(1);
  REQUIRE_OK(t1->LockTable(d.ks, LockMode::kShare));
  REQUIRE_OK(t2->LockTable(d.ks, LockMode::kShare));
  Status t1_st;
  std::thread th2([&] { t1_st = t1->LockTable(d.ks, LockMode::kExclusive); });
  d.AwaitWaiters(1);
  const Status t2_st = t2->LockTable(d.ks, LockMode::kExclusive);
  th2.join();
  CHECK((t1_st.code() == Code::kDeadlock) != (t2_st.code() == Code::kDeadlock));
  const std::optional<DeadlockReport> r2 = d.db->LatestDeadlock();
  REQUIRE(r2.has_value());
  CHECK(r2->victim_trx_id == (t1_st.ok() ? t2->id() : t1->id()));
  REQUIRE(r2->cycle.size() == 2);
  for (const DeadlockReport::Trx& t : r2->cycle) {
    CHECK(t.waiting_for.is_table);
    CHECK(t.waiting_for.keyspace == "t");
    CHECK(t.waiting_for.lock_mode == "X");
    REQUIRE(t.holds.size() == 1);
    CHECK(t.holds[0].lock_mode == "S");
    CHECK(t.holds[0].keyspace == "t");
  }
}

TEST_CASE("InspectKeyspace counts one tree's records, delete marks and pages", "[sql_support]") {
  Db d;
  KeyspaceCheck k = Take(d.db->InspectKeyspace(d.ks));
  CHECK(k.name == "t");
  CHECK(k.id == d.ks.id());
  CHECK(k.records == 0);
  CHECK(k.leaf_pages == 1);
  CHECK(k.height == 1);

  {
    auto t = d.Begin(0);
    for (int i = 0; i < 600; ++i) REQUIRE_OK(t->Put(d.ks, Key(i), std::string(100, 'v')));
    REQUIRE_OK(t->Put(d.ks, "big", std::string(40000, 'b')));  // an overflow chain
    REQUIRE_OK(t->Commit());
  }
  k = Take(d.db->InspectKeyspace(d.ks));
  CHECK(k.records == 601);
  CHECK(k.delete_marked == 0);
  CHECK(k.leaf_pages >= 4);
  CHECK(k.node_pages >= 1);
  CHECK(k.height >= 2);
  CHECK(k.overflow_pages >= 2);
  CHECK(k.avg_leaf_fill > 0.3);
  CHECK(k.avg_leaf_fill <= 1.0);

  auto eraser = d.Begin(0);
  for (int i = 0; i < 100; ++i) REQUIRE_OK(eraser->Erase(d.ks, Key(i)));
  k = Take(d.db->InspectKeyspace(d.ks));
  CHECK(k.records == 601);  // delete-marked, not yet purged
  CHECK(k.delete_marked == 100);
  // The same as CheckIntegrity's report of the tree.
  const KeyspaceCheck full = d.Check();
  CHECK(full.records == k.records);
  CHECK(full.delete_marked == k.delete_marked);
  CHECK(full.leaf_pages == k.leaf_pages);
  CHECK(full.node_pages == k.node_pages);
  CHECK(full.overflow_pages == k.overflow_pages);
  CHECK(full.height == k.height);
  CHECK(full.avg_leaf_fill == k.avg_leaf_fill);
  REQUIRE_OK(eraser->Commit());
  d.AwaitPurge();
  k = Take(d.db->InspectKeyspace(d.ks));
  CHECK(k.records == 501);
  CHECK(k.delete_marked == 0);

  REQUIRE_CODE(d.db->InspectKeyspace(Keyspace()).status(), Code::kInvalidArgument);
  const Keyspace other = MustKeyspace(d.db.get(), "other");
  REQUIRE_OK(d.db->DropKeyspace("other"));
  REQUIRE_CODE(d.db->InspectKeyspace(other).status(), Code::kInvalidArgument);
}

TEST_CASE("InspectKeyspace runs while another thread writes", "[sql_support]") {
  Db d;
  std::atomic<bool> stop{false};
  Status writer_st;
  std::thread writer([&] {
    // Grows and shrinks the tree (splits, merges once purged, overflow values) until told.
    for (int round = 0; !stop.load() && writer_st.ok(); ++round) {
      auto t = d.sessions[0]->Begin();
      if (!t.ok()) {
        writer_st = t.status();
        break;
      }
      for (int i = 0; i < 200 && writer_st.ok(); ++i) {
        const uint64_t k = static_cast<uint64_t>((round * 200 + i) % 3000);
        writer_st = round % 3 == 2 ? (*t)->Erase(d.ks, Key(k))
                                   : (*t)->Put(d.ks, Key(k),
                                               std::string(i % 7 == 0 ? 5000 : 80,
                                                           static_cast<char>('a' + round % 26)));
        if (writer_st.IsNotFound()) writer_st = Status::OK();
      }
      if (writer_st.ok()) writer_st = (*t)->Commit();
    }
  });
  uint64_t inspections = 0;
  const auto start = Clock::now();
  while (MillisSince(start) < 400 || inspections < 20) {
    Result<KeyspaceCheck> k = d.db->InspectKeyspace(d.ks);
    INFO(k.status().ToString());
    REQUIRE(k.ok());
    CHECK(k->height >= 1);
    CHECK(k->records >= k->delete_marked);
    ++inspections;
  }
  stop.store(true);
  writer.join();
  REQUIRE_OK(writer_st);
  REQUIRE_OK(d.db->CheckIntegrity());
}

}  // namespace
}  // namespace minnow
