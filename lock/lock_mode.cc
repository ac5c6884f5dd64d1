// The compatibility rules of lock/lock_mode.h (InnoDB lock0priv.h lock_compatibility_matrix,
// lock_strength_matrix; lock0lock.cc lock_rec_has_to_wait).

#include "lock/lock_mode.h"

namespace minnow {
namespace {

constexpr int kTableModes = 5;

// [held][wanted] indexed by TrxLockMode (IS, IX, S, X, AUTO-INC).
constexpr bool kCompatible[kTableModes][kTableModes] = {
    {true, true, true, false, true},      // IS
    {true, true, false, false, true},     // IX
    {true, false, true, false, false},    // S
    {false, false, false, false, false},  // X
    {true, true, false, false, false},    // AUTO-INC
};

constexpr bool kCovers[kTableModes][kTableModes] = {
    {true, false, false, false, false},  // IS covers IS
    {true, true, false, false, false},   // IX covers IS, IX
    {true, false, true, false, false},   // S covers IS, S
    {true, true, true, true, true},      // X covers all
    {false, false, false, false, true},  // AUTO-INC covers AUTO-INC
};

int Index(TrxLockMode m) { return static_cast<int>(m); }

}  // namespace

bool TableLockCompatible(TrxLockMode a, TrxLockMode b) { return kCompatible[Index(a)][Index(b)]; }

bool TableLockCovers(TrxLockMode held, TrxLockMode wanted) {
  return kCovers[Index(held)][Index(wanted)];
}

bool RecordLockConflicts(TrxLockMode req_mode, RecLockType req_type, bool on_supremum,
                         TrxLockMode held_mode, RecLockType held_type) {
  // (1) S and S never conflict.
  if (req_mode == TrxLockMode::kS && held_mode == TrxLockMode::kS) return false;
  // (3) nothing waits for an insert intention.
  if (held_type == RecLockType::kInsertIntention) return false;
  if (req_type == RecLockType::kInsertIntention) {
    // (3) an insert intention waits only for gap-type holders (GAP, ordinary; the supremum's
    // locks are stored as ordinary).
    return held_type == RecLockType::kGap || held_type == RecLockType::kOrdinary;
  }
  // (2) a GAP request, and any other request on the supremum, never waits.
  if (req_type == RecLockType::kGap || on_supremum) return false;
  // (4) an ordinary or REC_NOT_GAP request does not wait for a GAP holder.
  return held_type != RecLockType::kGap;
}

std::string LockModeName(TrxLockMode mode) {
  switch (mode) {
    case TrxLockMode::kIS:
      return "IS";
    case TrxLockMode::kIX:
      return "IX";
    case TrxLockMode::kS:
      return "S";
    case TrxLockMode::kX:
      return "X";
    case TrxLockMode::kAutoInc:
      return "AUTO_INC";
  }
  return "?";
}

std::string LockModeName(TrxLockMode mode, RecLockType type) {
  std::string name = LockModeName(mode);
  switch (type) {
    case RecLockType::kOrdinary:
      break;
    case RecLockType::kGap:
      name += ",GAP";
      break;
    case RecLockType::kRecNotGap:
      name += ",REC_NOT_GAP";
      break;
    case RecLockType::kInsertIntention:
      name += ",GAP,INSERT_INTENTION";  // InnoDB sets LOCK_GAP on it too
      break;
  }
  return name;
}

}  // namespace minnow
