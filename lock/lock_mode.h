#pragma once
// Lock modes and types, with MySQL's compatibility rules (InnoDB lock0lock.cc, lock0priv.h).
//
// Table locks (one per transaction and table, the strongest it asked for):
//
//              IS    IX    S     X     AUTO-INC      + compatible, - conflicts
//   IS         +     +     +     -     +
//   IX         +     +     -     -     +
//   S          +     -     +     -     -
//   X          -     -     -     -     -
//   AUTO-INC   +     +     -     -     -
//
// Record locks are S or X, of one of four types:
//   ordinary (next-key)  the record and the gap before it
//   GAP                  only the gap before the record
//   REC_NOT_GAP          only the record
//   INSERT_INTENTION     a waiting insert's claim on the gap before the record
// Rules (a "request" asks, a "holder" holds or waits ahead in the queue):
//   (1) S and S never conflict; X conflicts with S and X, unless (2)-(4) say otherwise.
//   (2) A GAP request, and any request on the supremum other than an INSERT_INTENTION, never
//       waits: gap locks (and locks on the supremum, which are gap locks) only keep inserts
//       out. (An ordinary request does wait: its record part conflicts as (1) and (4) say.)
//   (3) An INSERT_INTENTION request conflicts only with GAP and ordinary holders (rule (1)
//       applies to their modes); nothing waits for an INSERT_INTENTION holder.
//   (4) An ordinary or REC_NOT_GAP request does not conflict with a GAP holder (its record
//       part is not a gap), nor a GAP request with anything (rule (2)).
// These are InnoDB's lock_rec_has_to_wait, where INSERT_INTENTION carries the GAP bit.
// A request also queues behind a conflicting *waiting* request of another transaction that
// is ahead of it (no starvation of a waiting X by a stream of S).

#include <cstdint>
#include <string>

namespace minnow {

enum class TrxLockMode : uint8_t { kIS, kIX, kS, kX, kAutoInc };  // records: kS or kX only

enum class RecLockType : uint8_t { kOrdinary, kGap, kRecNotGap, kInsertIntention };

// The table matrix above.
bool TableLockCompatible(TrxLockMode a, TrxLockMode b);
// True if holding `held` makes a request for `wanted` redundant (X covers all; S covers IS;
// IX covers IS).
bool TableLockCovers(TrxLockMode held, TrxLockMode wanted);

// Rules (1)-(4): does a request (mode, type) for a record conflict with a holder's lock on the
// same record (or, on_supremum, the supremum)? Both belong to different transactions.
bool RecordLockConflicts(TrxLockMode req_mode, RecLockType req_type, bool on_supremum,
                         TrxLockMode held_mode, RecLockType held_type);

// As performance_schema.data_locks prints LOCK_MODE: "IS", "IX", "S", "X", "AUTO_INC" for
// tables; "S", "X" (ordinary), "S,GAP", "X,REC_NOT_GAP", "X,INSERT_INTENTION", ... for records.
std::string LockModeName(TrxLockMode mode);
std::string LockModeName(TrxLockMode mode, RecLockType type);

}  // namespace minnow
