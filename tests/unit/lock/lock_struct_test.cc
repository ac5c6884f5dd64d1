// Lock structs: reuse, the run and bitmap forms, exact heap sizes, the scan batch, redundant
// requests, queueing, insert intention, the supremum, implicit locks and data_locks rows.

#include <catch2/catch.hpp>
#include <random>

#include "lock_test_util.h"

namespace minnow {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace)

constexpr PageNo kPage = 7;

TEST_CASE("locks of one page, mode and type share one struct", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  for (HeapNo h = 2; h < 5; ++h) REQUIRE(Lock(locks, t1, kPage, h, kX) == Code::kOk);
  CHECK(t1->stats().structs == 1);
  CHECK(t1->stats().row_locks == 3);
  CHECK(locks.stats().record_structs == 1);
  REQUIRE(Lock(locks, t1, kPage, 5, kX, kRec) == Code::kOk);  // another type
  CHECK(t1->stats().structs == 2);
  REQUIRE(Lock(locks, t1, kPage + 1, 2, kX) == Code::kOk);  // another page
  CHECK(t1->stats().structs == 3);
  REQUIRE(Lock(locks, t1, kPage + 1, 9, kX) == Code::kOk);  // breaks the run: bitmap form
  CHECK(t1->stats().structs == 3);
  CHECK(t1->stats().row_locks == 6);
  CHECK(Rows(locks) == std::vector<std::string>{"1 7:2 X", "1 7:3 X", "1 7:4 X",
                                                "1 7:5 X,REC_NOT_GAP", "1 8:2 X", "1 8:9 X"});
  // Another transaction's S waits for the X, not for records nobody locked.
  TrxLocks* t2 = trxs.New(2);
  CHECK(Lock(locks, t2, kPage + 1, 5, kS) == Code::kOk);
  CHECK(Lock(locks, t2, kPage + 1, 9, kS) == Code::kLockWait);
  CHECK(locks.stats().structs == 5);  // t2: one granted, one waiting
}

TEST_CASE("a scan of every record of 100 pages costs under one bit per row", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  REQUIRE(locks.LockTable(t1, 1, kIX).ok());
  std::vector<HeapNo> scan = Range(2, 252);  // 250 records in heap order, then the supremum
  scan.push_back(kSupremumHeapNo);
  for (PageNo p = 100; p < 200; ++p) {
    size_t granted = 0;
    REQUIRE(locks.LockRecords(t1, p, scan, kX, kOrd, &granted).ok());
    REQUIRE(granted == 251);
  }
  const TrxLockStats s = t1->stats();
  CHECK(s.structs == 101);  // a run-form struct per page, one table lock
  CHECK(s.row_locks == 25100);
  // 101 structs of 24 bytes: a 1 KiB chunk holds (1024 - 16) / 24 = 42, so three of them
  // (chunks stay 1 KiB until the heap is 8 KiB).
  CHECK(s.heap_bytes == 3 * 1024);
  CHECK(s.heap_bytes * 8.0 / s.row_locks < 1.0);  // 0.98 bits per row
  CHECK(locks.stats().heap_bytes == 3072);
  // Locking them again changes nothing.
  size_t granted = 0;
  REQUIRE(locks.LockRecords(t1, 150, scan, kS, kRec, &granted).ok());
  CHECK(granted == 251);
  CHECK(t1->stats().structs == 101);
  CHECK(t1->stats().row_locks == 25100);
  // Another transaction still locks a record the scan did not lock.
  TrxLocks* t2 = trxs.New(2);
  CHECK(Lock(locks, t2, 150, 252, kX, kRec) == Code::kOk);
  CHECK(Lock(locks, t2, 150, 251, kX, kRec) == Code::kLockWait);
  locks.ReleaseAll(t1);
  CHECK(t1->stats().heap_bytes == 0);
  CHECK(t1->stats().structs == 0);
  CHECK(locks.Wait(t2, std::chrono::milliseconds(0)).ok());
}

TEST_CASE("LockRunIfAlone takes the locks LockRecords takes on the listed run, or refuses",
          "[lock]") {
  // The same batches through both calls, in two lock systems: the same rows, structs, bits
  // and heap bytes.
  LockSys listed, run;
  Trxs listed_trxs(listed), run_trxs(run);
  TrxLocks* a = listed_trxs.New(1);
  TrxLocks* b = run_trxs.New(1);
  struct Batch {
    PageNo page;
    HeapNo lo;
    size_t n;
    bool supremum;
    TrxLockMode mode;
    RecLockType type;
  };
  for (const Batch& batch : {Batch{10, 2, 250, true, kS, kOrd}, Batch{11, 2, 1, false, kX, kOrd},
                             Batch{12, 40, 17, true, kX, kOrd}, Batch{13, 2, 30, false, kS, kRec},
                             Batch{14, 2, 0xFFFF - 2, false, kS, kOrd}}) {
    CAPTURE(batch.page);
    std::vector<HeapNo> list = Range(batch.lo, static_cast<HeapNo>(batch.lo + batch.n));
    if (batch.supremum) list.push_back(kSupremumHeapNo);
    size_t granted = 0;
    REQUIRE(listed.LockRecords(a, batch.page, list, batch.mode, batch.type, &granted).ok());
    REQUIRE(granted == list.size());
    REQUIRE(run.LockRunIfAlone(b, batch.page, batch.lo, batch.n, batch.supremum, batch.mode,
                               batch.type));
  }
  CHECK(Rows(run) == Rows(listed));
  CHECK(b->stats().structs == a->stats().structs);
  CHECK(b->stats().structs == 5);  // one run-form struct per page
  CHECK(b->stats().row_locks == a->stats().row_locks);
  CHECK(b->stats().heap_bytes == a->stats().heap_bytes);

  // Refused, changing nothing: a struct on the page (its own or another's), not a run it can
  // make in one struct.
  const TrxLockStats before = b->stats();
  TrxLocks* other = run_trxs.New(2);
  REQUIRE(Lock(run, other, 20, 5, kS) == Code::kOk);
  CHECK_FALSE(run.LockRunIfAlone(b, 20, 2, 10, true, kX, kOrd));       // another's lock is there
  CHECK_FALSE(run.LockRunIfAlone(b, 10, 2, 10, true, kS, kOrd));       // its own struct is there
  CHECK_FALSE(run.LockRunIfAlone(b, 21, 2, 0, true, kS, kOrd));        // no records
  CHECK_FALSE(run.LockRunIfAlone(b, 21, 1, 5, false, kS, kOrd));       // not user records
  CHECK_FALSE(run.LockRunIfAlone(b, 21, 2, 0xFFFF, false, kS, kOrd));  // past the last heap no
  CHECK_FALSE(run.LockRunIfAlone(b, 21, 2, 5, true, kS, kRec));        // supremum of another type
  CHECK_FALSE(run.LockRunIfAlone(b, 21, 2, 5, false, kX, kII));
  CHECK(b->stats().structs == before.structs);
  CHECK(b->stats().row_locks == before.row_locks);
  // The page another transaction locked: the list's path waits for its S lock, as it must.
  std::vector<HeapNo> list = Range(2, 12);
  size_t granted = 0;
  CHECK(run.LockRecords(b, 20, list, kX, kOrd, &granted).code() == Code::kLockWait);
  CHECK(granted == 3);
}

TEST_CASE("a scan in random heap order of a run takes the run form", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  REQUIRE(locks.LockTable(t1, 1, kIX).ok());
  std::mt19937 rng(42);
  for (PageNo p = 100; p < 200; ++p) {
    // 251 first, then 2: no run in the order they come, but the set is the run [2, 252).
    std::vector<HeapNo> rest = Range(3, 251);
    rest.push_back(kSupremumHeapNo);
    std::shuffle(rest.begin(), rest.end(), rng);
    std::vector<HeapNo> order{251, 2};
    order.insert(order.end(), rest.begin(), rest.end());
    size_t granted = 0;
    REQUIRE(locks.LockRecords(t1, p, order, kX, kOrd, &granted).ok());
  }
  const TrxLockStats s = t1->stats();
  CHECK(s.structs == 101);
  CHECK(s.row_locks == 25100);
  // The batch is gathered first, so each page makes one 24-byte run struct and none dies:
  // 101 x 24 bytes fit three 1 KiB chunks, as for the scan in heap order.
  CHECK(s.heap_bytes == 3 * 1024);
  // Every row is still exact: heap 252 is free for another transaction.
  TrxLocks* t2 = trxs.New(2);
  CHECK(Lock(locks, t2, 100, 252, kX, kRec) == Code::kOk);
  CHECK(Lock(locks, t2, 100, 17, kS, kRec) == Code::kLockWait);
}

TEST_CASE("a scan in random heap order of a scattered set takes the bitmap form", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  REQUIRE(locks.LockTable(t1, 1, kIX).ok());
  std::mt19937 rng(42);
  for (PageNo p = 100; p < 200; ++p) {
    // Every other heap number of [2, 252): 125 holes would code in 64 bytes, the bitmap of
    // heap numbers 0 .. 255 takes 32.
    std::vector<HeapNo> order;
    for (HeapNo h = 2; h < 252; h += 2) order.push_back(h);
    order.push_back(kSupremumHeapNo);
    std::shuffle(order.begin(), order.end(), rng);
    size_t granted = 0;
    REQUIRE(locks.LockRecords(t1, p, order, kX, kOrd, &granted).ok());
  }
  const TrxLockStats s = t1->stats();
  CHECK(s.structs == 101);
  CHECK(s.row_locks == 12600);
  // 24 (table) + 100 x (24 + 32): the first 1 KiB chunk holds 17 pages, each next one 18.
  CHECK(s.heap_bytes == 6 * 1024);
  TrxLocks* t2 = trxs.New(2);
  CHECK(Lock(locks, t2, 100, 3, kX, kRec) == Code::kOk);
  CHECK(Lock(locks, t2, 100, 251, kX, kRec) == Code::kOk);
  CHECK(Lock(locks, t2, 100, 250, kS, kRec) == Code::kLockWait);
}

TEST_CASE("a leaf refilled after its splits takes the holes form, exact", "[lock]") {
  // Heap numbers 2 .. 251 less every seventh: the holes a split leaves and inserts refill,
  // in key order (random in heap order).
  std::vector<HeapNo> set;
  for (HeapNo h = 2; h < 252; ++h) {
    if (h % 7 != 0) set.push_back(h);
  }
  std::vector<HeapNo> order = set;
  order.push_back(kSupremumHeapNo);
  std::mt19937 rng(7);
  std::shuffle(order.begin(), order.end(), rng);
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  size_t granted = 0;
  REQUIRE(locks.LockRecords(t1, kPage, order, kS, kOrd, &granted).ok());
  REQUIRE(granted == order.size());
  CHECK(t1->stats().structs == 1);
  CHECK(t1->stats().row_locks == set.size() + 1);
  // 35 holes at most 7 apart: a nibble each, 24 bytes with the padding, against the 32 of a
  // bitmap. Locking them again finds every one covered.
  REQUIRE(locks.LockRecords(t1, kPage, order, kS, kOrd, &granted).ok());
  CHECK(t1->stats().structs == 1);
  CHECK(t1->stats().row_locks == set.size() + 1);
  std::vector<std::string> want;
  for (HeapNo h : set) want.push_back(fmt::format("1 7:{} S", h));
  want.push_back("1 7:1 S");
  std::sort(want.begin(), want.end());
  CHECK(Rows(locks) == want);
  // Another transaction takes each hole and waits for each locked record.
  TrxLocks* t2 = trxs.New(2);
  for (HeapNo h = 7; h < 252; h += 7) CHECK(Lock(locks, t2, kPage, h, kX, kRec) == Code::kOk);
  CHECK(Lock(locks, t2, kPage, 252, kX, kRec) == Code::kOk);
  CHECK(Lock(locks, t2, kPage, 250, kX, kRec) == Code::kLockWait);
  locks.ReleaseAll(t2);
  // t1 locking a hole itself outgrows the code: a new struct, again in the holes form (34
  // holes), replaces it.
  REQUIRE(Lock(locks, t1, kPage, 14, kS) == Code::kOk);
  CHECK(t1->stats().structs == 1);
  CHECK(t1->stats().row_locks == set.size() + 2);
  CHECK(t1->stats().heap_bytes == 1024);  // the dead struct and the live one: 2 x 48 bytes
  TrxLocks* t3 = trxs.New(3);
  CHECK(Lock(locks, t3, kPage, 14, kX, kRec) == Code::kLockWait);
  CHECK(Lock(locks, t3, kPage + 1, 14, kX, kRec) == Code::kOk);
}

TEST_CASE("bitmap form grows and stays exact", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  REQUIRE(Lock(locks, t1, kPage, 10, kX) == Code::kOk);   // run [10, 11): 24 bytes
  REQUIRE(Lock(locks, t1, kPage, 5, kX) == Code::kOk);    // bitmap of 64 bits: 32 bytes
  REQUIRE(Lock(locks, t1, kPage, 300, kX) == Code::kOk);  // bitmap of 320 bits: 64 bytes
  CHECK(t1->stats().structs == 1);
  CHECK(t1->stats().row_locks == 3);
  CHECK(t1->stats().heap_bytes == 1024);
  CHECK(Rows(locks) == std::vector<std::string>{"1 7:10 X", "1 7:300 X", "1 7:5 X"});
  TrxLocks* t2 = trxs.New(2);
  for (HeapNo h : {HeapNo{2}, HeapNo{6}, HeapNo{299}, HeapNo{301}}) {
    CHECK(Lock(locks, t2, kPage, h, kX, kRec) == Code::kOk);
  }
}

TEST_CASE("a batch grants the conflict-free prefix and waits at the first conflict", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  REQUIRE(Lock(locks, t1, kPage, 5, kX, kRec) == Code::kOk);
  size_t granted = 99;
  const std::vector<HeapNo> scan = Range(2, 11);
  CHECK(locks.LockRecords(t2, kPage, scan, kS, kOrd, &granted).code() == Code::kLockWait);
  CHECK(granted == 3);
  LockRow row;
  REQUIRE(t2->waiting(&row));
  CHECK(Describe(row) == "2 7:5 S WAITING");
  CHECK(t2->stats().row_locks == 4);  // 2, 3, 4 granted and 5 waited for (InnoDB counts it)
  CHECK(t2->stats().structs == 2);
  CHECK(locks.stats().waits == 1);
  CHECK(locks.stats().waiting_now == 1);
  CHECK(Waits(locks) == std::vector<std::string>{"2 7:5 S WAITING <- 1 7:5 X,REC_NOT_GAP"});
  locks.ReleaseAll(t1);
  CHECK(locks.stats().waiting_now == 0);
  REQUIRE(locks.Wait(t2, std::chrono::milliseconds(0)).ok());
  CHECK_FALSE(t2->waiting(nullptr));
  // The granted bit extended t2's run [2, 5) in place; the request's struct is dead.
  CHECK(t2->stats().structs == 1);
  CHECK(t2->stats().row_locks == 4);
  // The scan resumes at the record it waited for.
  CHECK(locks.LockRecords(t2, kPage, std::span(scan).subspan(3), kS, kOrd, &granted).ok());
  CHECK(granted == 6);
  CHECK(t2->stats().row_locks == 9);
  CHECK(t2->stats().structs == 1);
  CHECK(t2->stats().heap_bytes == 1024);
}

TEST_CASE("a granted request keeps its struct when its bit does not fit in place", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  REQUIRE(Lock(locks, t1, kPage, 9, kX) == Code::kOk);
  REQUIRE(Lock(locks, t2, kPage, 2, kX) == Code::kOk);
  REQUIRE(Lock(locks, t2, kPage, 9, kX) == Code::kLockWait);
  locks.ReleaseAll(t1);
  REQUIRE(locks.Wait(t2, std::chrono::milliseconds(0)).ok());
  CHECK(t2->stats().structs == 2);
  CHECK(t2->stats().row_locks == 2);
  REQUIRE(Lock(locks, t2, kPage, 3, kX) == Code::kOk);  // extends the first struct
  CHECK(t2->stats().structs == 2);
  CHECK(Rows(locks) == std::vector<std::string>{"2 7:2 X", "2 7:3 X", "2 7:9 X"});
}

TEST_CASE("redundant requests add nothing", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  REQUIRE(Lock(locks, t1, kPage, 5, kX) == Code::kOk);
  REQUIRE(Lock(locks, t1, kPage, kSupremumHeapNo, kX) == Code::kOk);
  CHECK(Lock(locks, t1, kPage, 5, kS, kRec) == Code::kOk);  // X covers S, ordinary covers
  CHECK(Lock(locks, t1, kPage, 5, kX, kGap) == Code::kOk);
  CHECK(Lock(locks, t1, kPage, 5, kS) == Code::kOk);
  CHECK(Lock(locks, t1, kPage, kSupremumHeapNo, kS, kGap) == Code::kOk);
  CHECK(Lock(locks, t1, kPage, kSupremumHeapNo, kX, kRec) == Code::kOk);
  CHECK(t1->stats().structs == 1);
  CHECK(t1->stats().row_locks == 2);
  // REC_NOT_GAP does not cover ordinary, S does not cover X.
  REQUIRE(Lock(locks, t1, kPage, 9, kS, kRec) == Code::kOk);
  REQUIRE(Lock(locks, t1, kPage, 9, kS) == Code::kOk);
  REQUIRE(Lock(locks, t1, kPage, 9, kX) == Code::kOk);
  CHECK(t1->stats().structs == 3);  // S,REC_NOT_GAP; S; X (9 joins the X struct of 5)
  CHECK(t1->stats().row_locks == 5);
}

TEST_CASE("a request queues behind a conflicting waiting request", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  TrxLocks* t3 = trxs.New(3);
  REQUIRE(Lock(locks, t1, kPage, 5, kS, kRec) == Code::kOk);
  REQUIRE(Lock(locks, t2, kPage, 5, kX, kRec) == Code::kLockWait);
  CHECK(Lock(locks, t3, kPage, 5, kS, kRec) == Code::kLockWait);  // compatible with t1 only
  CHECK(locks.HasConflict(t3, {kPage, 5}, kS, kRec));
  CHECK_FALSE(locks.HasConflict(t1, {kPage, 6}, kX, kRec));
  CHECK(Waits(locks) ==
        std::vector<std::string>{"2 7:5 X,REC_NOT_GAP WAITING <- 1 7:5 S,REC_NOT_GAP",
                                 "3 7:5 S,REC_NOT_GAP WAITING <- 2 7:5 X,REC_NOT_GAP WAITING"});
  locks.ReleaseAll(t1);  // t2 first, then t3 behind it
  CHECK(locks.Wait(t2, std::chrono::milliseconds(0)).ok());
  CHECK(t3->waiting(nullptr));
  locks.ReleaseAll(t2);
  CHECK(locks.Wait(t3, std::chrono::milliseconds(0)).ok());
  CHECK(Rows(locks) == std::vector<std::string>{"3 7:5 S,REC_NOT_GAP"});
}

TEST_CASE("gap locks keep only inserts out; insert intention makes no struct", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  TrxLocks* t3 = trxs.New(3);
  REQUIRE(Lock(locks, t1, kPage, 5, kX, kGap) == Code::kOk);
  REQUIRE(Lock(locks, t1, kPage, 6, kX, kRec) == Code::kOk);
  CHECK(Lock(locks, t2, kPage, 5, kX, kGap) == Code::kOk);  // (2) gap never waits
  CHECK(Lock(locks, t2, kPage, 5, kX, kRec) == Code::kOk);  // (4) REC_NOT_GAP ignores GAP
  CHECK(Lock(locks, t3, kPage, 6, kX, kII) == Code::kOk);   // (3) not for REC_NOT_GAP
  CHECK(t3->stats().structs == 0);                          // and no struct
  CHECK(Lock(locks, t3, kPage, 5, kX, kII) == Code::kLockWait);
  CHECK(t3->stats().structs == 1);                                // the waiting request
  CHECK(Lock(locks, t1, kPage, 5, kX, kOrd) == Code::kLockWait);  // t2's REC_NOT_GAP
  locks.ReleaseAll(t2);
  CHECK(locks.Wait(t1, std::chrono::milliseconds(0)).ok());
  CHECK(t3->waiting(nullptr));  // t1 still holds the gap
  locks.ReleaseAll(t1);
  CHECK(locks.Wait(t3, std::chrono::milliseconds(0)).ok());
  CHECK(Rows(locks) == std::vector<std::string>{"3 7:5 X,GAP,INSERT_INTENTION"});
  // Nothing waits for a granted insert intention.
  TrxLocks* t4 = trxs.New(4);
  CHECK(Lock(locks, t4, kPage, 5, kX) == Code::kOk);
}

TEST_CASE("locks on the supremum are gap locks", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  REQUIRE(Lock(locks, t1, kPage, kSupremumHeapNo, kX) == Code::kOk);
  CHECK(Lock(locks, t2, kPage, kSupremumHeapNo, kX) == Code::kOk);
  CHECK(Lock(locks, t2, kPage, kSupremumHeapNo, kX, kRec) == Code::kOk);  // stored ordinary
  CHECK(t2->stats().structs == 1);
  TrxLocks* t3 = trxs.New(3);
  CHECK(Lock(locks, t3, kPage, kSupremumHeapNo, kX, kII) == Code::kLockWait);
  CHECK(Rows(locks) ==
        std::vector<std::string>{"1 7:1 X", "2 7:1 X", "3 7:1 X,GAP,INSERT_INTENTION WAITING"});
}

TEST_CASE("table locks", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  TrxLocks* t3 = trxs.New(3);
  REQUIRE(locks.LockTable(t1, 5, kIS).ok());
  REQUIRE(locks.LockTable(t1, 5, kIX).ok());
  REQUIRE(locks.LockTable(t1, 5, kIS).ok());  // IX covers IS
  CHECK(t1->stats().structs == 2);
  CHECK(locks.LockTable(t2, 5, kIX).ok());
  CHECK(locks.LockTable(t2, 5, TrxLockMode::kAutoInc).ok());
  CHECK(locks.LockTable(t3, 5, TrxLockMode::kAutoInc).code() == Code::kLockWait);
  CHECK(locks.stats().record_structs == 0);
  CHECK(Rows(locks) == std::vector<std::string>{"1 T5 IS", "1 T5 IX", "2 T5 AUTO_INC", "2 T5 IX",
                                                "3 T5 AUTO_INC WAITING"});
  locks.ReleaseAll(t2);
  REQUIRE(locks.Wait(t3, std::chrono::milliseconds(0)).ok());
  CHECK(locks.LockTable(t3, 5, kS).code() == Code::kLockWait);  // t1's IX
  locks.ReleaseAll(t1);
  CHECK(locks.Wait(t3, std::chrono::milliseconds(0)).ok());
  CHECK(locks.LockTable(t2, 6, kX).ok());  // another table
}

TEST_CASE("an implicit lock becomes a granted X,REC_NOT_GAP", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  TrxLocks* t2 = trxs.New(2);
  TrxLocks* t3 = trxs.New(3);
  locks.ConvertImplicit(t1, {kPage, 5});
  locks.ConvertImplicit(t1, {kPage, 5});
  CHECK(t1->stats().structs == 1);
  CHECK(Lock(locks, t2, kPage, 5, kS) == Code::kLockWait);
  // Granted although t2 waits.
  locks.ConvertImplicit(t3, {kPage, 6});
  REQUIRE(Lock(locks, t3, kPage, 7, kX) == Code::kOk);
  locks.ConvertImplicit(t3, {kPage, 7});  // already covered by X ordinary
  CHECK(t3->stats().structs == 2);
  CHECK(Rows(locks) == std::vector<std::string>{"1 7:5 X,REC_NOT_GAP", "2 7:5 S WAITING",
                                                "3 7:6 X,REC_NOT_GAP", "3 7:7 X"});
}

TEST_CASE("a transaction's heap starts at its first lock and grows by an eighth", "[lock]") {
  LockSys locks;
  Trxs trxs(locks);
  TrxLocks* t1 = trxs.New(1);
  CHECK(t1->stats().heap_bytes == 0);
  // 6093 structs of 24 bytes, as InnoDB's "6093 lock struct(s), heap size 503104".
  for (PageNo p = 0; p < 6093; ++p) REQUIRE(Lock(locks, t1, p, 2, kX) == Code::kOk);
  CHECK(t1->stats().structs == 6093);
  // A chunk holds (size - 16) / 24 structs and is an eighth of the heap before it (whole KiB,
  // 1 KiB at least): 16 of 1 KiB, 4 of 2, 3 of 3, 2 of 4, 2 of 5, then 6, 7, 8, 9, 10, 11, 12,
  // 14 and 16 KiB (InnoDB: 503104 bytes).
  CHECK(t1->stats().heap_bytes ==
        (16 + 4 * 2 + 3 * 3 + 2 * 4 + 2 * 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 14 + 16) * 1024);
}

}  // namespace
}  // namespace minnow
