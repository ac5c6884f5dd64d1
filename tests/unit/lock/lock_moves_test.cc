// Locks follow records: splits, merges, supremum moves, waiting requests that move, inserts
// that split a gap, removed records whose locks pass to the successor.

#include <catch2/catch.hpp>

#include "lock_test_util.h"

namespace minnow {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace)
using std::chrono::milliseconds;

constexpr PageNo kLeft = 10;
constexpr PageNo kRight = 20;

std::vector<RecordIdMove> MoveRange(PageNo from_page, HeapNo from_lo, HeapNo from_hi,
                                    PageNo to_page, HeapNo to_lo) {
  std::vector<RecordIdMove> moves;
  for (HeapNo h = from_lo; h < from_hi; ++h) {
    moves.push_back({{from_page, h}, {to_page, static_cast<HeapNo>(to_lo + (h - from_lo))}});
  }
  return moves;
}

TEST_CASE("a split moves the locks with the records, a merge moves them back", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  std::vector<HeapNo> scan = Range(2, 12);
  scan.push_back(kSupremumHeapNo);
  size_t granted;
  REQUIRE(locks.LockRecords(t1, kLeft, scan, kX, kOrd, &granted).ok());
  // Split: records 7..11 of the left page become 2..6 of the right page.
  locks.OnRecordsMoved(MoveRange(kLeft, 7, 12, kRight, 2));
  CHECK(t1->stats().structs == 2);
  CHECK(t1->stats().row_locks == 11);
  CHECK(t1->stats().heap_bytes == 1024);  // the left run shrank in place; one new struct
  CHECK(Rows(locks) == std::vector<std::string>{"1 10:1 X", "1 10:2 X", "1 10:3 X", "1 10:4 X",
                                                "1 10:5 X", "1 10:6 X", "1 20:2 X", "1 20:3 X",
                                                "1 20:4 X", "1 20:5 X", "1 20:6 X"});
  CHECK(Lock(locks, t2, kRight, 3, kX, kRec) == Code::kLockWait);  // same logical record
  REQUIRE(locks.Wait(t2, milliseconds(0)).code() == Code::kLockWaitTimeout);
  CHECK(Lock(locks, t2, kLeft, 7, kX, kRec) == Code::kOk);  // no record there any more
  locks.ReleaseAll(t2);
  // Merge: the right page's records go back after the left page's.
  locks.OnRecordsMoved(MoveRange(kRight, 2, 7, kLeft, 7));
  CHECK(t1->stats().structs == 1);
  CHECK(t1->stats().row_locks == 11);
  locks.OnPageFreed(kRight);
  CHECK(Rows(locks).size() == 11);
  CHECK(Lock(locks, t2, kLeft, 9, kS) == Code::kLockWait);
}

TEST_CASE("a move from the middle of a run makes a bitmap", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  size_t granted;
  REQUIRE(locks.LockRecords(t1, kLeft, Range(2, 12), kX, kRec, &granted).ok());
  locks.OnRecordsMoved(MoveRange(kLeft, 5, 7, kRight, 2));
  CHECK(t1->stats().structs == 2);
  CHECK(t1->stats().row_locks == 10);
  CHECK(Rows(locks) == std::vector<std::string>{"1 10:10 X,REC_NOT_GAP", "1 10:11 X,REC_NOT_GAP",
                                                "1 10:2 X,REC_NOT_GAP", "1 10:3 X,REC_NOT_GAP",
                                                "1 10:4 X,REC_NOT_GAP", "1 10:7 X,REC_NOT_GAP",
                                                "1 10:8 X,REC_NOT_GAP", "1 10:9 X,REC_NOT_GAP",
                                                "1 20:2 X,REC_NOT_GAP", "1 20:3 X,REC_NOT_GAP"});
}

TEST_CASE("moves within a page are applied at once", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  REQUIRE(Lock(locks, t1, kLeft, 2, kX) == Code::kOk);
  REQUIRE(Lock(locks, t2, kLeft, 3, kS) == Code::kOk);
  const std::vector<RecordIdMove> swap{{{kLeft, 2}, {kLeft, 3}}, {{kLeft, 3}, {kLeft, 2}}};
  locks.OnRecordsMoved(swap);
  CHECK(Rows(locks) == std::vector<std::string>{"1 10:3 X", "2 10:2 S"});
}

TEST_CASE("supremum to supremum moves the gap locks", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  REQUIRE(Lock(locks, t1, kLeft, kSupremumHeapNo, kX) == Code::kOk);
  const std::vector<RecordIdMove> moves{{{kLeft, kSupremumHeapNo}, {kRight, kSupremumHeapNo}}};
  locks.OnRecordsMoved(moves);
  CHECK(Rows(locks) == std::vector<std::string>{"1 20:1 X"});
  CHECK(Lock(locks, t2, kLeft, kSupremumHeapNo, kX, kII) == Code::kOk);
  CHECK(Lock(locks, t2, kRight, kSupremumHeapNo, kX, kII) == Code::kLockWait);
}

TEST_CASE("a waiting request moves with its record", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  REQUIRE(Lock(locks, t1, kLeft, 5, kX) == Code::kOk);
  REQUIRE(Lock(locks, t2, kLeft, 5, kS) == Code::kLockWait);
  const std::vector<RecordIdMove> moves{{{kLeft, 5}, {kRight, 2}}};
  locks.OnRecordsMoved(moves);
  LockRow row;
  REQUIRE(t2->waiting(&row));
  CHECK(Describe(row) == "2 20:2 S WAITING");
  CHECK(Waits(locks) == std::vector<std::string>{"2 20:2 S WAITING <- 1 20:2 X"});
  CHECK(t2->stats().structs == 1);
  locks.ReleaseAll(t1);
  CHECK(locks.Wait(t2, milliseconds(0)).ok());
  CHECK(Rows(locks) == std::vector<std::string>{"2 20:2 S"});
}

TEST_CASE("an insert splits the gap lock of its successor", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  TrxLocks* t3 = trxs.New(3);
  REQUIRE(Lock(locks, t1, kLeft, 5, kX) == Code::kOk);        // next-key: gap before 5 too
  REQUIRE(Lock(locks, t3, kLeft, 5, kS, kGap) == Code::kOk);  // gap only
  REQUIRE(Lock(locks, t2, kLeft, 4, kS, kRec) == Code::kOk);  // REC_NOT_GAP: not inherited
  // Record 9 is inserted before 5 (the inserter held an insert intention that did not wait).
  locks.OnRecordInserted({kLeft, 9}, {kLeft, 5});
  CHECK(Rows(locks) == std::vector<std::string>{"1 10:5 X", "1 10:9 X,GAP", "2 10:4 S,REC_NOT_GAP",
                                                "3 10:5 S,GAP", "3 10:9 S,GAP"});
  // Inserts on both sides of 9 wait.
  CHECK(Lock(locks, t2, kLeft, 9, kX, kII) == Code::kLockWait);
  locks.ReleaseAll(t2);
  TrxLocks* t4 = trxs.New(4);
  CHECK(Lock(locks, t4, kLeft, 5, kX, kII) == Code::kLockWait);
  // The supremum's locks are inherited as GAP locks too.
  REQUIRE(Lock(locks, t3, kRight, kSupremumHeapNo, kS) == Code::kOk);
  locks.OnRecordInserted({kRight, 2}, {kRight, kSupremumHeapNo});
  CHECK(t3->stats().row_locks == 4);
}

TEST_CASE("a removed record's locks pass to its successor as gap locks", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  TrxLocks* t3 = trxs.New(3);
  size_t granted;
  REQUIRE(locks.LockRecords(t1, kLeft, Range(4, 8), kX, kOrd, &granted).ok());
  REQUIRE(Lock(locks, t2, kLeft, 5, kS, kRec) == Code::kLockWait);
  locks.OnRecordRemoved({kLeft, 5}, {kLeft, 6});
  // t2's record is gone: its wait ends as granted, and its request, like a granted lock,
  // leaves a gap lock on the successor (InnoDB's lock_rec_inherit_to_gap); it re-reads.
  CHECK(locks.Wait(t2, milliseconds(0)).ok());
  CHECK(t2->stats().structs == 1);
  CHECK(Rows(locks) == std::vector<std::string>{"1 10:4 X", "1 10:6 X", "1 10:6 X,GAP", "1 10:7 X",
                                                "2 10:6 S,GAP"});
  CHECK(t1->stats().row_locks == 4);
  CHECK(Lock(locks, t3, kLeft, 6, kX, kII) == Code::kLockWait);
  locks.ReleaseAll(t3);
  CHECK(Lock(locks, t3, kLeft, 5, kX, kRec) == Code::kOk);  // heap 5 is free
  // Removing the page's last record before the supremum: the supremum inherits (ordinary).
  locks.OnRecordRemoved({kLeft, 7}, {kLeft, kSupremumHeapNo});
  CHECK(Rows(locks) == std::vector<std::string>{"1 10:1 X", "1 10:4 X", "1 10:6 X", "1 10:6 X,GAP",
                                                "2 10:6 S,GAP", "3 10:5 X,REC_NOT_GAP"});
}

}  // namespace
}  // namespace minnow
