// READ COMMITTED's release of rejected rows (Iterator::UnlockCurrent, Transaction::
// UnlockLastGet) and the semi-consistent read (ReadOptions::semi_consistent,
// Iterator::LockCurrent), engine level. Blocking is shown by kLockNoWait / counts, never by
// timings.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "txn_test_util.h"

namespace minnow {
namespace {

using testing::Db;
using testing::kForUpdate;
using testing::kRC;
using testing::kRR;
using testing::kShareRead;
using testing::Take;

constexpr ReadOptions kNoWaitUpdate{.lock_mode = LockMode::kExclusive, .wait = LockWait::kNoWait};

void LoadFive(Db& d) { d.Load({{"k1", "1"}, {"k2", "2"}, {"k3", "3"}, {"k4", "4"}, {"k5", "5"}}); }

// Scans every key with `ro`, keeping the lock only of the keys in `keep` (UnlockCurrent on the
// rest).
void ScanKeeping(Transaction* t, const Keyspace& ks, const ReadOptions& ro,
                 const std::vector<std::string>& keep) {
  auto it = Take(t->NewIterator(ks, ro));
  REQUIRE_OK(it->SeekToFirst());
  for (; it->Valid(); testing::Step(it.get())) {
    if (std::find(keep.begin(), keep.end(), std::string(it->key())) == keep.end()) {
      REQUIRE_OK(it->UnlockCurrent());
    }
  }
}

TEST_CASE("READ COMMITTED: UnlockCurrent releases a scan's new lock; the struct stays",
          "[rc_unlock]") {
  Db d;
  LoadFive(d);
  auto t = d.Begin(0, kRC);
  ScanKeeping(t.get(), d.ks, kForUpdate, {"k3"});
  TransactionLockInfo info = t->lock_info();
  CHECK(info.row_locks == 1);
  CHECK(info.lock_structs == 2);  // the table's IX and the page's struct
  // Others lock the released rows at once, not the kept one.
  auto other = d.Begin(1, kRC);
  for (const char* k : {"k1", "k2", "k4", "k5"})
    CHECK(Take(other->Get(d.ks, k, kNoWaitUpdate)) != "");
  CHECK(other->Get(d.ks, "k3", kNoWaitUpdate).status().code() == Code::kLockNoWait);
}

TEST_CASE("REPEATABLE READ: UnlockCurrent keeps every lock", "[rc_unlock]") {
  Db d;
  LoadFive(d);
  auto t = d.Begin(0, kRR);
  ScanKeeping(t.get(), d.ks, kForUpdate, {"k3"});
  CHECK(t->lock_info().row_locks == 6);  // five records and the supremum
}

TEST_CASE("UnlockCurrent keeps a lock held before, and a record the transaction changed",
          "[rc_unlock]") {
  Db d;
  LoadFive(d);
  auto t = d.Begin(0, kRC);
  REQUIRE(Take(t->Get(d.ks, "k2", kForUpdate)) == "2");  // held before the scan
  REQUIRE(Take(t->Get(d.ks, "k4", kShareRead)) == "4");  // S only: the scan's X is new
  REQUIRE_OK(t->Put(d.ks, "k5", "50"));                  // changed: implicitly locked
  ScanKeeping(t.get(), d.ks, kForUpdate, {});
  auto other = d.Begin(1, kRC);
  CHECK(Take(other->Get(d.ks, "k1", kNoWaitUpdate)) == "1");
  CHECK(Take(other->Get(d.ks, "k3", kNoWaitUpdate)) == "3");
  CHECK(other->Get(d.ks, "k2", kNoWaitUpdate).status().code() == Code::kLockNoWait);
  CHECK(other->Get(d.ks, "k4", kNoWaitUpdate).status().code() == Code::kLockNoWait);  // its S
  CHECK(Take(other->Get(d.ks, "k4", ReadOptions{.lock_mode = LockMode::kShare})) == "4");
  CHECK(other->Get(d.ks, "k5", kNoWaitUpdate).status().code() == Code::kLockNoWait);
}

TEST_CASE("UnlockLastGet releases the latest locking Get's new lock", "[rc_unlock]") {
  Db d;
  LoadFive(d);
  auto t = d.Begin(0, kRC);
  REQUIRE(Take(t->Get(d.ks, "k1", kForUpdate)) == "1");
  REQUIRE_OK(t->UnlockLastGet(d.ks));
  CHECK(t->lock_info().row_locks == 0);
  // Twice: nothing more. A lock held before stays.
  REQUIRE_OK(t->UnlockLastGet(d.ks));
  REQUIRE(Take(t->Get(d.ks, "k2", kForUpdate)) == "2");
  REQUIRE(Take(t->Get(d.ks, "k2", kForUpdate)) == "2");
  REQUIRE_OK(t->UnlockLastGet(d.ks));
  CHECK(t->lock_info().row_locks == 1);
  auto rr = d.Begin(1, kRR);
  REQUIRE(Take(rr->Get(d.ks, "k3", kForUpdate)) == "3");
  REQUIRE_OK(rr->UnlockLastGet(d.ks));
  CHECK(rr->lock_info().row_locks == 1);
}

// Commits `holder` from another thread once a lock wait has begun (no assertions there).
std::thread CommitOnceWaited(Db& d, Transaction* holder, Status* committed) {
  return std::thread([&d, holder, committed] {
    for (int i = 0; i < 50000 && d.db->stats().row_lock_current_waits == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    *committed = holder->Commit();
  });
}

TEST_CASE("UnlockCurrent after a wait: the batch's locks taken before it go, the waited one stays",
          "[rc_unlock]") {
  Db d(60'000);
  d.Load(
      {{"k1", "1"}, {"k2", "2"}, {"k3", "3"}, {"k4", "4"}, {"k5", "5"}, {"k6", "6"}, {"k7", "7"}});
  auto holder = d.Begin(0, kRR);
  REQUIRE_OK(holder->Put(d.ks, "k5", "50"));  // uncommitted: the scan's leaf batch waits at k5
  auto t = d.Begin(1, kRC);
  Status committed;
  std::thread commit = CommitOnceWaited(d, holder.get(), &committed);
  // k1..k4 were locked before the wait, k5 by it, k6 and k7 after it.
  ScanKeeping(t.get(), d.ks, kForUpdate, {"k1", "k3"});
  commit.join();
  REQUIRE_OK(committed);
  CHECK(d.db->stats().row_lock_waits == 1);
  // As InnoDB, which locks a row at a time: k2 and k4 were released before it reached k5, and
  // a row that was part of a conflict keeps its lock.
  CHECK(t->lock_info().row_locks == 3);
  auto other = d.Begin(2, kRC);
  for (const char* k : {"k2", "k4", "k6", "k7"}) {
    CHECK(Take(other->Get(d.ks, k, kNoWaitUpdate)) != "");
  }
  for (const char* k : {"k1", "k3", "k5"}) {
    CHECK(other->Get(d.ks, k, kNoWaitUpdate).status().code() == Code::kLockNoWait);
  }
}

TEST_CASE("semi-consistent: a record another holds shows its committed version, unlocked",
          "[rc_unlock]") {
  Db d(50);
  LoadFive(d);
  auto holder = d.Begin(0, kRR);
  REQUIRE_OK(holder->Put(d.ks, "k2", "20"));  // uncommitted
  ReadOptions semi = kForUpdate;
  semi.semi_consistent = true;
  auto t = d.Begin(1, kRC);
  auto it = Take(t->NewIterator(d.ks, semi));
  REQUIRE_OK(it->SeekToFirst());
  std::vector<std::string> seen;
  for (; it->Valid(); testing::Step(it.get())) {
    seen.push_back(std::string(it->key()) + "=" + std::string(Take(it->value())) +
                   (it->semi_consistent() ? " semi" : ""));
  }
  CHECK(seen == std::vector<std::string>{"k1=1", "k2=2 semi", "k3=3", "k4=4", "k5=5"});
  CHECK(d.db->stats().row_lock_waits == 0);
  CHECK(t->lock_info().row_locks == 4);  // not k2
  // LockCurrent waits for the lock: here it times out (the holder stays).
  REQUIRE_OK(it->Seek("k2"));
  REQUIRE(it->semi_consistent());
  CHECK(it->LockCurrent().code() == Code::kLockWaitTimeout);
  // Once the holder commits, LockCurrent locks and shows the latest version.
  REQUIRE_OK(it->Seek("k2"));
  REQUIRE(it->semi_consistent());
  REQUIRE_OK(holder->Commit());
  REQUIRE_OK(it->LockCurrent());
  REQUIRE(it->Valid());
  CHECK(it->key() == "k2");
  CHECK(Take(it->value()) == "20");
  CHECK(!it->semi_consistent());
  CHECK(t->lock_info().row_locks == 5);
}

TEST_CASE("semi-consistent: an uncommitted insert is passed over; REPEATABLE READ ignores it",
          "[rc_unlock]") {
  Db d(50);
  d.Load({{"k1", "1"}, {"k3", "3"}});
  auto holder = d.Begin(0, kRR);
  REQUIRE_OK(holder->Insert(d.ks, "k2", "2"));
  ReadOptions semi = kForUpdate;
  semi.semi_consistent = true;
  auto t = d.Begin(1, kRC);
  auto it = Take(t->NewIterator(d.ks, semi));
  REQUIRE_OK(it->SeekToFirst());
  std::vector<std::string> keys;
  for (; it->Valid(); testing::Step(it.get())) keys.emplace_back(it->key());
  CHECK(keys == std::vector<std::string>{"k1", "k3"});
  auto rr = d.Begin(2, kRR);
  auto rit = Take(rr->NewIterator(d.ks, semi));
  CHECK(rit->SeekToFirst().code() == Code::kLockWaitTimeout);  // its leaf batch waits for k2
}

}  // namespace
}  // namespace minnow
