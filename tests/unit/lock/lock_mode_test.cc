// The compatibility rules of lock/lock_mode.h, one by one.

#include "lock/lock_mode.h"

#include <catch2/catch.hpp>

namespace minnow {
namespace {

constexpr TrxLockMode IS = TrxLockMode::kIS;
constexpr TrxLockMode IX = TrxLockMode::kIX;
constexpr TrxLockMode S = TrxLockMode::kS;
constexpr TrxLockMode X = TrxLockMode::kX;
constexpr TrxLockMode AI = TrxLockMode::kAutoInc;
constexpr RecLockType kOrd = RecLockType::kOrdinary;
constexpr RecLockType kGap = RecLockType::kGap;
constexpr RecLockType kRec = RecLockType::kRecNotGap;
constexpr RecLockType kII = RecLockType::kInsertIntention;

TEST_CASE("table lock matrix is MySQL's", "[lock]") {
  const TrxLockMode modes[] = {IS, IX, S, X, AI};
  // Rows and columns IS, IX, S, X, AUTO-INC as in lock_mode.h.
  const bool expected[5][5] = {
      {true, true, true, false, true},   {true, true, false, false, true},
      {true, false, true, false, false}, {false, false, false, false, false},
      {true, true, false, false, false},
  };
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 5; ++b) {
      INFO(LockModeName(modes[a]) << " vs " << LockModeName(modes[b]));
      CHECK(TableLockCompatible(modes[a], modes[b]) == expected[a][b]);
      CHECK(TableLockCompatible(modes[a], modes[b]) == TableLockCompatible(modes[b], modes[a]));
    }
  }
}

TEST_CASE("table lock coverage", "[lock]") {
  for (TrxLockMode m : {IS, IX, S, X, AI}) {
    CHECK(TableLockCovers(m, m));
    CHECK(TableLockCovers(X, m));
  }
  CHECK(TableLockCovers(IX, IS));
  CHECK(TableLockCovers(S, IS));
  CHECK_FALSE(TableLockCovers(IS, IX));
  CHECK_FALSE(TableLockCovers(S, IX));
  CHECK_FALSE(TableLockCovers(IX, S));
  CHECK_FALSE(TableLockCovers(AI, IX));
}

TEST_CASE("record rule (1): S-S never conflicts, X conflicts with S and X", "[lock]") {
  for (RecLockType t : {kOrd, kRec}) {
    for (RecLockType h : {kOrd, kRec}) {
      CHECK_FALSE(RecordLockConflicts(S, t, false, S, h));
      CHECK(RecordLockConflicts(X, t, false, S, h));
      CHECK(RecordLockConflicts(S, t, false, X, h));
      CHECK(RecordLockConflicts(X, t, false, X, h));
    }
  }
  CHECK_FALSE(RecordLockConflicts(S, kII, false, S, kGap));
}

TEST_CASE("record rule (2): a GAP request and requests on the supremum never wait", "[lock]") {
  for (RecLockType h : {kOrd, kGap, kRec, kII}) {
    CHECK_FALSE(RecordLockConflicts(X, kGap, false, X, h));
    for (RecLockType t : {kOrd, kGap, kRec}) CHECK_FALSE(RecordLockConflicts(X, t, true, X, h));
  }
  // An ordinary request does wait for the record part of another's lock.
  CHECK(RecordLockConflicts(X, kOrd, false, X, kOrd));
}

TEST_CASE("record rule (3): insert intention", "[lock]") {
  // Waits for GAP and ordinary holders, also on the supremum...
  CHECK(RecordLockConflicts(X, kII, false, X, kGap));
  CHECK(RecordLockConflicts(X, kII, false, S, kOrd));
  CHECK(RecordLockConflicts(X, kII, true, X, kOrd));
  // ...not for REC_NOT_GAP holders nor other insert intentions.
  CHECK_FALSE(RecordLockConflicts(X, kII, false, X, kRec));
  CHECK_FALSE(RecordLockConflicts(X, kII, false, X, kII));
  // Nothing waits for an insert intention holder.
  for (RecLockType t : {kOrd, kGap, kRec, kII}) {
    CHECK_FALSE(RecordLockConflicts(X, t, false, X, kII));
  }
}

TEST_CASE("record rule (4): REC_NOT_GAP and ordinary requests ignore GAP holders", "[lock]") {
  CHECK_FALSE(RecordLockConflicts(X, kRec, false, X, kGap));
  CHECK_FALSE(RecordLockConflicts(X, kOrd, false, X, kGap));
  CHECK(RecordLockConflicts(X, kRec, false, S, kOrd));
  CHECK(RecordLockConflicts(S, kRec, false, X, kRec));
}

TEST_CASE("lock mode names as data_locks prints them", "[lock]") {
  CHECK(LockModeName(IS) == "IS");
  CHECK(LockModeName(IX) == "IX");
  CHECK(LockModeName(AI) == "AUTO_INC");
  CHECK(LockModeName(X, kOrd) == "X");
  CHECK(LockModeName(S, kRec) == "S,REC_NOT_GAP");
  CHECK(LockModeName(X, kGap) == "X,GAP");
  CHECK(LockModeName(X, kII) == "X,GAP,INSERT_INTENTION");
}

}  // namespace
}  // namespace minnow
