// ReleaseRecord (READ COMMITTED's release of a rejected row, InnoDB's lock_rec_unlock) and
// HeldAmong: the struct's set in each form, the counts, the waiters it grants, what it leaves.

#include <catch2/catch.hpp>

#include "lock_test_util.h"

namespace minnow {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace)

constexpr PageNo kPage = 7;

TEST_CASE("ReleaseRecord clears one bit and keeps the struct, as InnoDB", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  REQUIRE(locks.LockTable(t1, 1, kIX).ok());
  std::vector<HeapNo> scan = Range(2, 7);  // a run: 2..6
  size_t granted = 0;
  REQUIRE(locks.LockRecords(t1, kPage, scan, kX, kRec, &granted).ok());
  REQUIRE(t1->stats().structs == 2);
  REQUIRE(t1->stats().row_locks == 5);

  // The run loses its first record in place.
  CHECK(locks.ReleaseRecord(t1, {kPage, 2}, kX));
  CHECK(t1->stats().structs == 2);
  CHECK(t1->stats().row_locks == 4);
  // One from the middle: the set goes to a bitmap struct (the count of structs stays).
  CHECK(locks.ReleaseRecord(t1, {kPage, 4}, kX));
  CHECK(t1->stats().structs == 2);
  CHECK(t1->stats().row_locks == 3);
  CHECK(Rows(locks) == std::vector<std::string>{"1 7:3 X,REC_NOT_GAP", "1 7:5 X,REC_NOT_GAP",
                                                "1 7:6 X,REC_NOT_GAP", "1 T1 IX"});
  // Twice, or a record not locked, or another mode: nothing.
  CHECK_FALSE(locks.ReleaseRecord(t1, {kPage, 4}, kX));
  CHECK_FALSE(locks.ReleaseRecord(t1, {kPage, 9}, kX));
  CHECK_FALSE(locks.ReleaseRecord(t1, {kPage, 3}, kS));
  CHECK(t1->stats().row_locks == 3);

  // The last ones: the struct stays, empty (trx_lock_structs still counts it, as InnoDB's).
  for (HeapNo h : {3, 5, 6}) CHECK(locks.ReleaseRecord(t1, {kPage, h}, kX));
  CHECK(t1->stats().structs == 2);
  CHECK(t1->stats().row_locks == 0);
  CHECK(locks.stats().record_structs == 1);
  CHECK(Rows(locks) == std::vector<std::string>{"1 T1 IX"});
  // A later lock on the page goes into it.
  CHECK(Lock(locks, t1, kPage, 8, kX, kRec) == Code::kOk);
  CHECK(t1->stats().structs == 2);
  CHECK(t1->stats().row_locks == 1);
  CHECK(Rows(locks) == std::vector<std::string>{"1 7:8 X,REC_NOT_GAP", "1 T1 IX"});
}

TEST_CASE("ReleaseRecord releases REC_NOT_GAP locks only", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  REQUIRE(Lock(locks, t1, kPage, 2, kX, kOrd) == Code::kOk);
  REQUIRE(Lock(locks, t1, kPage, 3, kX, kGap) == Code::kOk);
  CHECK_FALSE(locks.ReleaseRecord(t1, {kPage, 2}, kX));
  CHECK_FALSE(locks.ReleaseRecord(t1, {kPage, 3}, kX));
  CHECK(t1->stats().row_locks == 2);
}

TEST_CASE("ReleaseRecord grants the waiter it blocked", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  REQUIRE(Lock(locks, t1, kPage, 2, kX, kRec) == Code::kOk);
  REQUIRE(Lock(locks, t1, kPage, 3, kX, kRec) == Code::kOk);
  REQUIRE(Lock(locks, t2, kPage, 3, kX, kRec) == Code::kLockWait);
  CHECK(t2->stats().row_locks == 1);  // the waiting request's bit
  CHECK(locks.ReleaseRecord(t1, {kPage, 3}, kX));
  CHECK(locks.Wait(t2, std::chrono::milliseconds(0)).ok());
  CHECK(Rows(locks) == std::vector<std::string>{"1 7:2 X,REC_NOT_GAP", "2 7:3 X,REC_NOT_GAP"});
  CHECK(t1->stats().row_locks == 1);
  CHECK(t2->stats().row_locks == 1);
  CHECK(Waits(locks).empty());
}

TEST_CASE("ReleaseRecord from the holes and bitmap forms", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  // 2..200 less 10 and 20: the holes form (8 bytes of code against a 32-byte bitmap).
  std::vector<HeapNo> batch;
  for (HeapNo h = 2; h < 201; ++h) {
    if (h != 10 && h != 20) batch.push_back(h);
  }
  size_t granted = 0;
  REQUIRE(locks.LockRecords(t1, kPage, batch, kS, kRec, &granted).ok());
  REQUIRE(t1->stats().row_locks == batch.size());
  REQUIRE(t1->stats().heap_bytes == 1024);
  CHECK(locks.ReleaseRecord(t1, {kPage, 30}, kS));
  CHECK(t1->stats().row_locks == batch.size() - 1);
  CHECK(t1->stats().structs == 1);
  // Now a bitmap: clear in place.
  CHECK(locks.ReleaseRecord(t1, {kPage, 2}, kS));
  CHECK(locks.ReleaseRecord(t1, {kPage, 200}, kS));
  CHECK(t1->stats().row_locks == batch.size() - 3);
  CHECK(t1->stats().structs == 1);
  std::vector<std::string> want;
  for (HeapNo h : batch) {
    if (h != 2 && h != 30 && h != 200) want.push_back(fmt::format("1 7:{} S,REC_NOT_GAP", h));
  }
  std::sort(want.begin(), want.end());
  CHECK(Rows(locks) == want);
  // Another transaction can take the released records and no other.
  TrxLocks* t2 = trxs.New(2);
  CHECK(Lock(locks, t2, kPage, 30, kX, kRec) == Code::kOk);
  CHECK(Lock(locks, t2, kPage, 31, kX, kRec) == Code::kLockWait);
}

TEST_CASE("a page whose only struct ReleaseRecord emptied can be freed", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  REQUIRE(Lock(locks, t1, kPage, 2, kX, kRec) == Code::kOk);
  REQUIRE(locks.ReleaseRecord(t1, {kPage, 2}, kX));
  locks.OnPageFreed(kPage);  // no debug check fires: the struct holds nothing
  CHECK(t1->stats().structs == 0);
  CHECK(locks.stats().record_structs == 0);
}

TEST_CASE("HeldAmong tells which records a granted lock already covers", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  REQUIRE(Lock(locks, t1, kPage, 3, kX, kOrd) == Code::kOk);        // covers X,REC_NOT_GAP
  REQUIRE(Lock(locks, t1, kPage, 4, kS, kRec) == Code::kOk);        // S covers no X
  REQUIRE(Lock(locks, t1, kPage, 5, kX, kGap) == Code::kOk);        // a gap covers no record
  REQUIRE(Lock(locks, t2, kPage, 6, kX, kRec) == Code::kOk);        // another's
  REQUIRE(Lock(locks, t1, kPage, 6, kX, kRec) == Code::kLockWait);  // waiting: not held
  std::vector<uint8_t> held;
  const std::vector<HeapNo> batch{2, 3, 4, 5, 6};
  locks.HeldAmong(t1, kPage, batch, kX, kRec, &held);
  CHECK(held == std::vector<uint8_t>{0, 1, 0, 0, 0});
  locks.HeldAmong(t1, kPage, batch, kS, kRec, &held);
  CHECK(held == std::vector<uint8_t>{0, 1, 1, 0, 0});
  locks.HeldAmong(t1, kPage + 1, batch, kS, kRec, &held);
  CHECK(held == std::vector<uint8_t>{0, 0, 0, 0, 0});
}

}  // namespace
}  // namespace minnow
