// Waits: wake-up on release, timeouts, deadlocks between two and three transactions (victim
// choice by weight), detection off, shutdown, interrupts. Outcomes and counts are asserted, never
// times.

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <thread>

#include "lock_test_util.h"

namespace minnow {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace)
using std::chrono::milliseconds;

constexpr PageNo kPage = 3;
constexpr auto kLong = milliseconds(20000);

// Polls until cond() holds (the test fails by its meson timeout otherwise).
template <typename F>
void Until(F&& cond) {
  while (!cond()) std::this_thread::sleep_for(milliseconds(1));
}

TEST_CASE("a waiter wakes when the lock is released", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  REQUIRE(Lock(locks, t1, kPage, 4, kX) == Code::kOk);
  REQUIRE(Lock(locks, t2, kPage, 4, kX) == Code::kLockWait);
  auto waiter = std::async(std::launch::async, [&] { return locks.Wait(t2, kLong).code(); });
  Until([&] { return locks.stats().waiting_now == 1; });
  locks.ReleaseAll(t1);
  CHECK(waiter.get() == Code::kOk);
  CHECK(Rows(locks) == std::vector<std::string>{"2 3:4 X"});
  const LockSysStats s = locks.stats();
  CHECK(s.waits == 1);
  CHECK(s.waiting_now == 0);
  CHECK(s.timeouts == 0);
  CHECK(s.wait_micros >= s.max_wait_micros);
  CHECK(locks.Wait(t2, kLong).ok());  // nothing to wait for
}

TEST_CASE("an implicit record lock makes no struct unless it waits; a waiting bit counts",
          "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  // No conflict: granted, nothing recorded (the caller's DB_TRX_ID is the lock).
  CHECK(locks.LockRecordImplicit(t1, {kPage, 4}, kX).ok());
  CHECK(Rows(locks).empty());
  CHECK(t1->stats().structs == 0);
  // ConvertImplicit is how another transaction makes it explicit.
  locks.ConvertImplicit(t1, {kPage, 4});
  CHECK(Rows(locks) == std::vector<std::string>{"1 3:4 X,REC_NOT_GAP"});
  // A conflict: a waiting request, which counts as a row lock while it waits.
  REQUIRE(locks.LockRecordImplicit(t2, {kPage, 4}, kX).code() == Code::kLockWait);
  CHECK(t2->stats().row_locks == 1);
  CHECK(t2->stats().structs == 1);
  CHECK(locks.stats().row_locks == 2);
  LockRow request;
  std::chrono::system_clock::time_point since;
  const auto before = std::chrono::system_clock::now();
  REQUIRE(t2->waiting(&request, &since));
  CHECK(since <= before);
  CHECK(since > before - std::chrono::minutes(1));
  auto waiter = std::async(std::launch::async, [&] { return locks.Wait(t2, kLong).code(); });
  Until([&] { return locks.stats().waiting_now == 1; });
  locks.ReleaseAll(t1);
  CHECK(waiter.get() == Code::kOk);
  // Once granted it is held explicitly, and still counts once.
  CHECK(Rows(locks) == std::vector<std::string>{"2 3:4 X,REC_NOT_GAP"});
  CHECK(t2->stats().row_locks == 1);
  CHECK(!t2->waiting(nullptr));
  // A lock of its own that covers the request: granted, nothing added.
  CHECK(locks.LockRecordImplicit(t2, {kPage, 4}, kX).ok());
  CHECK(t2->stats().structs == 1);
  // A timed-out request leaves no count behind.
  TrxLocks* t3 = trxs.New(3);
  REQUIRE(locks.LockRecordImplicit(t3, {kPage, 4}, kX).code() == Code::kLockWait);
  CHECK(t3->stats().row_locks == 1);
  CHECK(locks.Wait(t3, milliseconds(10)).code() == Code::kLockWaitTimeout);
  CHECK(t3->stats().row_locks == 0);
  CHECK(t3->stats().structs == 0);
}

TEST_CASE("a timeout removes the request, keeps other locks and wakes those behind", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  TrxLocks* t3 = trxs.New(3);
  REQUIRE(Lock(locks, t1, kPage, 4, kS, kRec) == Code::kOk);
  REQUIRE(Lock(locks, t2, kPage, 5, kX) == Code::kOk);
  REQUIRE(Lock(locks, t2, kPage, 4, kX, kRec) == Code::kLockWait);
  REQUIRE(Lock(locks, t3, kPage, 4, kS, kRec) == Code::kLockWait);  // behind t2's X
  auto waiter = std::async(std::launch::async, [&] { return locks.Wait(t3, kLong).code(); });
  CHECK(locks.Wait(t2, milliseconds(20)).code() == Code::kLockWaitTimeout);
  CHECK(waiter.get() == Code::kOk);
  CHECK(Rows(locks) ==
        std::vector<std::string>{"1 3:4 S,REC_NOT_GAP", "2 3:5 X", "3 3:4 S,REC_NOT_GAP"});
  CHECK(locks.stats().timeouts == 1);
  CHECK(locks.stats().waiting_now == 0);
  CHECK(t2->stats().structs == 1);
}

// t1 and t2 each hold one record and want the other's.
void CrossWait(LockSys& locks, TrxLocks* t1, TrxLocks* t2) {
  REQUIRE(Lock(locks, t1, kPage, 10, kX) == Code::kOk);
  REQUIRE(Lock(locks, t2, kPage, 20, kX) == Code::kOk);
  REQUIRE(Lock(locks, t1, kPage, 20, kX) == Code::kLockWait);
  REQUIRE(Lock(locks, t2, kPage, 10, kX) == Code::kLockWait);
}

TEST_CASE("deadlock: the requester is the lighter one", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  t1->set_weight(10);
  CrossWait(locks, t1, t2);
  CHECK(locks.Wait(t2, kLong).code() == Code::kDeadlock);
  CHECK_FALSE(t2->waiting(nullptr));
  CHECK(t1->waiting(nullptr));
  CHECK(locks.stats().deadlocks == 1);
  locks.ReleaseAll(t2);  // the caller rolls t2 back
  CHECK(locks.Wait(t1, kLong).ok());
  CHECK(Rows(locks) == std::vector<std::string>{"1 3:10 X", "1 3:20 X"});
}

TEST_CASE("deadlock: a tie goes to the requester", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  CrossWait(locks, t1, t2);  // both hold 2 structs, weight 0
  CHECK(locks.Wait(t2, kLong).code() == Code::kDeadlock);
  CHECK(t1->waiting(nullptr));
}

TEST_CASE("deadlock: another, lighter transaction is the victim", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  t2->set_weight(10);
  CrossWait(locks, t1, t2);
  auto waiter = std::async(std::launch::async, [&] { return locks.Wait(t2, kLong).code(); });
  Until([&] { return locks.stats().deadlocks == 1; });  // t2's check cancelled t1's wait
  CHECK_FALSE(t1->waiting(nullptr));
  CHECK(locks.Wait(t1, kLong).code() == Code::kDeadlock);
  locks.ReleaseAll(t1);
  CHECK(waiter.get() == Code::kOk);
  CHECK(Rows(locks) == std::vector<std::string>{"2 3:10 X", "2 3:20 X"});
}

TEST_CASE("deadlock between three transactions", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  TrxLocks* t3 = trxs.New(3);
  t1->set_weight(5);
  t2->set_weight(1);
  t3->set_weight(9);
  REQUIRE(Lock(locks, t1, kPage, 10, kX) == Code::kOk);
  REQUIRE(Lock(locks, t2, kPage, 20, kX) == Code::kOk);
  REQUIRE(Lock(locks, t3, kPage, 30, kX) == Code::kOk);
  REQUIRE(Lock(locks, t1, kPage, 20, kX) == Code::kLockWait);
  REQUIRE(Lock(locks, t2, kPage, 30, kX) == Code::kLockWait);
  CHECK(locks.stats().deadlocks == 0);
  REQUIRE(Lock(locks, t3, kPage, 10, kX) == Code::kLockWait);
  CHECK(Waits(locks).size() == 3);
  auto w3 = std::async(std::launch::async, [&] { return locks.Wait(t3, kLong).code(); });
  Until([&] { return locks.stats().deadlocks == 1; });  // t2, the lightest, is the victim
  CHECK(locks.Wait(t2, kLong).code() == Code::kDeadlock);
  locks.ReleaseAll(t2);
  CHECK(locks.Wait(t1, kLong).ok());
  locks.ReleaseAll(t1);
  CHECK(w3.get() == Code::kOk);
  CHECK(locks.stats().deadlocks == 1);
  CHECK(locks.stats().waiting_now == 0);
}

TEST_CASE("without deadlock detection both wait until the timeout", "[lock]") {
  LockSysOptions options;
  options.deadlock_detect = false;
  LockSys locks(options);
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  CrossWait(locks, t1, t2);
  auto w1 = std::async(std::launch::async, [&] { return locks.Wait(t1, milliseconds(50)).code(); });
  CHECK(locks.Wait(t2, milliseconds(50)).code() == Code::kLockWaitTimeout);
  CHECK(w1.get() == Code::kLockWaitTimeout);
  CHECK(locks.stats().deadlocks == 0);
  CHECK(locks.stats().timeouts == 2);
  CHECK(t1->stats().row_locks == 1);
  CHECK(t2->stats().row_locks == 1);
}

TEST_CASE("shutdown wakes waiters with kClosed", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  REQUIRE(locks.LockTable(t1, 1, kX).ok());
  REQUIRE(locks.LockTable(t2, 1, kIX).code() == Code::kLockWait);
  auto waiter = std::async(std::launch::async, [&] { return locks.Wait(t2, kLong).code(); });
  Until([&] { return locks.stats().waiting_now == 1; });
  locks.Shutdown();
  CHECK(waiter.get() == Code::kClosed);
  CHECK_FALSE(t2->waiting(nullptr));
  CHECK(locks.Wait(t2, kLong).code() == Code::kClosed);
}

TEST_CASE("an interrupt ends a wait with kAborted, removes the request, keeps the locks",
          "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  TrxLocks* t3 = trxs.New(3);
  REQUIRE(Lock(locks, t1, kPage, 4, kS, kRec) == Code::kOk);
  REQUIRE(Lock(locks, t2, kPage, 5, kX) == Code::kOk);
  REQUIRE(Lock(locks, t2, kPage, 4, kX, kRec) == Code::kLockWait);
  REQUIRE(Lock(locks, t3, kPage, 4, kS, kRec) == Code::kLockWait);  // behind t2's X
  auto waiter = std::async(std::launch::async, [&] { return locks.Wait(t2, kLong); });
  std::this_thread::sleep_for(milliseconds(20));  // most likely asleep by now; either way:
  locks.SetInterrupted(t2, true);
  const Status st = waiter.get();
  CHECK(st.code() == Code::kAborted);
  CHECK(st.message() == "Query execution was interrupted");
  CHECK(locks.Wait(t3, kLong).ok());  // t2's request left the queue
  CHECK(Rows(locks) ==
        std::vector<std::string>{"1 3:4 S,REC_NOT_GAP", "2 3:5 X", "3 3:4 S,REC_NOT_GAP"});
  CHECK(locks.stats().timeouts == 0);
  CHECK(locks.stats().waiting_now == 0);

  // While the flag is set, a new wait ends at once.
  REQUIRE(Lock(locks, t2, kPage, 4, kX, kRec) == Code::kLockWait);
  CHECK(locks.Wait(t2, kLong).code() == Code::kAborted);
  CHECK_FALSE(t2->waiting(nullptr));
  // Cleared: waits as usual again.
  locks.SetInterrupted(t2, false);
  REQUIRE(Lock(locks, t2, kPage, 4, kX, kRec) == Code::kLockWait);
  CHECK(locks.Wait(t2, milliseconds(20)).code() == Code::kLockWaitTimeout);
  CHECK(Rows(locks) ==
        std::vector<std::string>{"1 3:4 S,REC_NOT_GAP", "2 3:5 X", "3 3:4 S,REC_NOT_GAP"});
  // A flag set while nothing waits is harmless to locks granted at once.
  locks.SetInterrupted(t2, true);
  CHECK(Lock(locks, t2, kPage, 6, kX) == Code::kOk);
  CHECK(locks.Wait(t2, kLong).ok());  // nothing to wait for
}

TEST_CASE("on_deadlock describes the cycle: waits, holds and the victim", "[lock]") {
  std::vector<DeadlockInfo> found;
  LockSysOptions options;
  options.on_deadlock = [&found](const DeadlockInfo& info) { found.push_back(info); };
  LockSys locks(options);
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  t1->set_weight(7);
  CrossWait(locks, t1, t2);  // t1 waits for 3:20 (t2's), t2 for 3:10 (t1's)
  CHECK(locks.Wait(t2, kLong).code() == Code::kDeadlock);  // the lighter requester
  REQUIRE(found.size() == 1);
  const DeadlockInfo& d = found[0];
  CHECK(d.victim == 2);
  REQUIRE(d.cycle.size() == 2);
  CHECK(d.cycle[0].trx_id == 2);
  CHECK(Describe(d.cycle[0].waiting_for) == "2 3:10 X WAITING");
  REQUIRE(d.cycle[0].holds.size() == 1);
  CHECK(Describe(d.cycle[0].holds[0]) == "2 3:20 X");  // what t1 waits for
  CHECK(d.cycle[0].locks.structs == 2);
  CHECK(d.cycle[0].undo_records == 0);
  CHECK(d.cycle[1].trx_id == 1);
  CHECK(Describe(d.cycle[1].waiting_for) == "1 3:20 X WAITING");
  REQUIRE(d.cycle[1].holds.size() == 1);
  CHECK(Describe(d.cycle[1].holds[0]) == "1 3:10 X");
  CHECK(d.cycle[1].undo_records == 7);
  CHECK(d.cycle[1].locks.row_locks == 2);  // 3:10 held and 3:20 waited for (InnoDB counts it)
  locks.ReleaseAll(t2);
  CHECK(locks.Wait(t1, kLong).ok());
  CHECK(found.size() == 1);
}

TEST_CASE("on_deadlock describes a deadlock on a table lock", "[lock]") {
  std::vector<DeadlockInfo> found;
  LockSysOptions options;
  options.on_deadlock = [&found](const DeadlockInfo& info) { found.push_back(info); };
  LockSys locks(options);
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  t2->set_weight(3);
  REQUIRE(locks.LockTable(t1, 9, kS).ok());
  REQUIRE(locks.LockTable(t2, 9, kS).ok());
  REQUIRE(locks.LockTable(t1, 9, kX).code() == Code::kLockWait);
  REQUIRE(locks.LockTable(t2, 9, kX).code() == Code::kLockWait);
  CHECK(locks.Wait(t1, kLong).code() == Code::kDeadlock);  // the lighter requester
  locks.ReleaseAll(t1);
  CHECK(locks.Wait(t2, kLong).ok());
  REQUIRE(found.size() == 1);
  const DeadlockInfo& d = found[0];
  CHECK(d.victim == 1);
  REQUIRE(d.cycle.size() == 2);
  CHECK(d.cycle[0].trx_id == 1);
  CHECK(Describe(d.cycle[0].waiting_for) == "1 T9 X WAITING");
  REQUIRE(d.cycle[0].holds.size() == 1);
  CHECK(Describe(d.cycle[0].holds[0]) == "1 T9 S");
  CHECK(Describe(d.cycle[1].waiting_for) == "2 T9 X WAITING");
  REQUIRE(d.cycle[1].holds.size() == 1);
  CHECK(Describe(d.cycle[1].holds[0]) == "2 T9 S");
  CHECK(d.cycle[1].undo_records == 3);
}

}  // namespace
}  // namespace minnow

namespace minnow {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace)

TEST_CASE("a request that may not wait gets kLockNoWait and leaves nothing behind", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  constexpr PageNo kPg = 3;
  REQUIRE(Lock(locks, t1, kPg, 5, TrxLockMode::kX, RecLockType::kRecNotGap) == Code::kOk);
  // The record itself: refused at once, no waiting request, no wait counted.
  CHECK(locks.LockRecord(t2, {kPg, 5}, TrxLockMode::kS, RecLockType::kOrdinary, false).code() ==
        Code::kLockNoWait);
  CHECK(!t2->waiting(nullptr));
  CHECK(locks.stats().waits == 0);
  CHECK(t2->stats().structs == 0);
  // A batch: the records before the conflict are granted, nothing after it is touched.
  const std::vector<HeapNo> batch{3, 4, 5, 6};
  size_t granted = 99;
  CHECK(locks.LockRecords(t2, kPg, batch, TrxLockMode::kX, RecLockType::kOrdinary, &granted, false)
            .code() == Code::kLockNoWait);
  CHECK(granted == 2);
  CHECK(Rows(locks) == std::vector<std::string>{"1 3:5 X,REC_NOT_GAP", "2 3:3 X", "2 3:4 X"});
  // A gap lock never conflicts, so it is granted without waiting.
  CHECK(locks.LockRecord(t2, {kPg, 5}, TrxLockMode::kX, RecLockType::kGap, false).ok());
  // The same request that may wait enqueues as before.
  CHECK(locks.LockRecord(t2, {kPg, 5}, TrxLockMode::kX, RecLockType::kRecNotGap).code() ==
        Code::kLockWait);
  CHECK(t2->waiting(nullptr));
  locks.ReleaseAll(t1);
  CHECK(locks.Wait(t2, std::chrono::milliseconds(20000)).ok());
}

}  // namespace
}  // namespace minnow
