#pragma once
// Metadata locks (MySQL's MDL): transactional locks on named objects (a SQL table is
// "schema.table"), so that DDL cannot change a table under a statement or transaction that
// uses it. They are a separate thing from the lock system's table and record locks
// (lock/lock_sys.h): those protect rows, these protect definitions.
//
// Modes and compatibility, as MySQL's for the two modes minnow needs:
//
//                  held S    held X
//     request S      ok      wait
//     request X     wait     wait
//
// DML and reads take S on each table they use, held until their transaction ends; DDL takes X
// for the whole statement. An owner (an MdlContext, one per transaction) holds an object once,
// in the strongest mode it asked for: asking again for a mode it holds, or for S while it holds
// X, is granted at once (reentrant); asking X while it holds S upgrades (waits until it is the
// only holder).
//
// Priority: a waiting X request blocks every new S request on the object (MySQL's
// pending-exclusive priority), so a stream of readers cannot starve DDL; a statement that
// arrives while DDL waits therefore waits too, and sees the new definition once the DDL is
// done. Owners that already hold S are not blocked by the waiting X (reentrant grants).
//
// Waits end when granted (OK), after `timeout` (kLockWaitTimeout, MySQL's lock_wait_timeout:
// 1205), when the owner is interrupted (kAborted, "Query execution was interrupted": 1317), when
// the deadlock detector picks the owner as a victim (kDeadlock: 1213), or at Shutdown()
// (kClosed). A wait that ends without a grant leaves nothing queued and wakes the requests its
// pending X was blocking.
//
// Deadlocks. With a deadlock check installed (SetDeadlockCheck; the lock system's
// LockSys::AttachMetadataLocks installs its detector, which walks metadata-lock and row-lock
// waits as one graph) every wait, once queued, runs the check before it sleeps, with no latch
// held. The detector reads a waiting owner's out-edges with WaitOf, as MySQL's MDL deadlock
// detector sees them: a waiting S request waits for the holder of X and for every pending X
// request on the object (the priority rule); a waiting X request waits for the holder of X and
// every other holder of S. A cycle of such edges alone (two owners upgrading S to X on one
// object; two DDL statements each waiting behind the other's reader) or through row-lock waits
// ends in kDeadlock for the victim (CancelWaitAsVictim), not in a timeout. Without a check
// installed such cycles end in a timeout.
//
// Latches: one leaf latch (latch_) guards every object and every context's grant state;
// waiters sleep on one condition variable and recheck. No other latch is taken while holding
// it, and none may be held by a caller of Acquire (it may sleep). A wait releases it while the
// deadlock check runs; the detector takes it again for each WaitOf, alone (the lock system's
// latches are never held with it).
//
// Thread safety: every method of MetadataLockSys is thread-safe. An MdlContext's Acquire and
// ReleaseAll calls come from its owner's thread; SetInterrupted and waiting() from any thread.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/latch.h"
#include "minnow/status.h"

namespace minnow {

enum class MdlMode : uint8_t { kShared, kExclusive };

// What a request is for, as performance_schema.metadata_locks shows it: MySQL's LOCK_TYPE and
// LOCK_DURATION words. Kept and reported only (compatibility is the MdlMode's). Static strings;
// null: "SHARED" or "EXCLUSIVE" by the mode, and "TRANSACTION".
struct MdlLabel {
  const char* type = nullptr;
  const char* duration = nullptr;
};

// One request, granted or waiting (MetadataLockSys::ForEachLock). An owner that asked for one
// object under several labels (a SELECT, then an UPDATE of the same table) has a granted row for
// each, as MySQL has a ticket for each.
struct MdlLockRow {
  std::string name;
  MdlMode mode = MdlMode::kShared;  // the mode held (or asked for, when waiting)
  MdlLabel label;
  bool granted = true;
  uint64_t owner = 0;   // MdlContext::owner_id()
  uint64_t ticket = 0;  // the request's number, the same while it waits and once granted
};

// A waiting request and what blocks it now (MetadataLockSys::WaitOf, for the deadlock
// detector): the holders' granted rows and, for an S request, the pending X requests.
struct MdlWaitEdges {
  MdlLockRow request;
  std::vector<MdlLockRow> blockers;
};

struct MdlStats {
  uint64_t granted = 0;      // requests granted (at once or after a wait), reentrant ones too
  uint64_t waits = 0;        // requests that had to wait
  uint64_t waiting_now = 0;  // requests waiting now
  uint64_t timeouts = 0;     // waits that ended with kLockWaitTimeout
  uint64_t interrupts = 0;   // waits that ended with kAborted
  uint64_t deadlocks = 0;    // waits that ended with kDeadlock (deadlock victims)
  uint64_t held = 0;         // (owner, object) pairs held now
};

class MetadataLockSys;

// One owner's metadata locks (a transaction's). Releases what it holds when destroyed.
// REQUIRES: destroyed before its MetadataLockSys.
class MdlContext {
 public:
  explicit MdlContext(MetadataLockSys* sys);
  ~MdlContext();
  MdlContext(const MdlContext&) = delete;
  MdlContext& operator=(const MdlContext&) = delete;

  // Waits for `name` in `mode` (see MetadataLockSys::Acquire).
  Status Acquire(std::string_view name, MdlMode mode, std::chrono::milliseconds timeout,
                 MdlLabel label = {});
  // A number naming this owner in MdlLockRow::owner, unique in the process.
  uint64_t owner_id() const { return owner_id_; }
  // Releases every lock held (transaction end) and wakes the requests they blocked.
  void ReleaseAll();
  // From any thread (KILL QUERY): while set, a wait in progress ends with kAborted, and so does
  // every wait that starts; requests that need no wait are still granted.
  void SetInterrupted(bool interrupted);
  // From any thread: true while a request of this owner waits.
  bool waiting() const { return waiting_.load(std::memory_order_acquire); }
  // The mode held on `name`, if any (the owner's thread).
  bool Holds(std::string_view name, MdlMode mode) const;
  size_t held_count() const;  // objects held (the owner's thread)

 private:
  friend class MetadataLockSys;
  // One held object: the strongest mode, and a ticket per label it was asked under.
  struct Held {
    MdlMode mode = MdlMode::kShared;
    std::vector<std::pair<MdlLabel, uint64_t>> tickets;
  };
  MetadataLockSys* const sys_;
  const uint64_t owner_id_;
  // Guarded by sys_->latch_ (written under it by the owner's thread, which may read it alone).
  std::map<std::string, Held, std::less<>> held_;
  bool interrupted_ = false;  // guarded by sys_->latch_
  // The ticket of the wait the deadlock detector chose as a victim (0: none); guarded by
  // sys_->latch_.
  uint64_t victim_ticket_ = 0;
  std::atomic<bool> waiting_{false};
};

class MetadataLockSys {
 public:
  MetadataLockSys() = default;
  ~MetadataLockSys();  // REQUIRES: every MdlContext destroyed (or released)
  MetadataLockSys(const MetadataLockSys&) = delete;
  MetadataLockSys& operator=(const MetadataLockSys&) = delete;

  // Grants `name` in `mode` to `ctx`: at once if compatible (see the table above and the
  // priority rule), else after waiting up to `timeout`. OK when held; kLockWaitTimeout,
  // kAborted (interrupted) or kClosed (shut down) with nothing changed. REQUIRES: the caller
  // holds no latch and is ctx's owner.
  Status Acquire(MdlContext* ctx, std::string_view name, MdlMode mode,
                 std::chrono::milliseconds timeout, MdlLabel label = {});
  // Calls `fn` for every request, granted or waiting, objects in name order (holders first),
  // under the leaf latch: `fn` must not call into the metadata lock system.
  void ForEachLock(const std::function<void(const MdlLockRow&)>& fn) const;
  void ReleaseAll(MdlContext* ctx);
  void SetInterrupted(MdlContext* ctx, bool interrupted);
  // Wakes every waiter with kClosed; later waits fail with kClosed (grants that need no wait
  // still succeed, so a closing database can roll back).
  void Shutdown();
  MdlStats stats() const;

  // The deadlock check every wait runs once queued, before it sleeps, with no latch held,
  // given the waiting owner's owner_id(); it ends the waits it picks as victims with
  // CancelWaitAsVictim. Null: none (cycles end in a timeout). REQUIRES: no Acquire runs
  // meanwhile, and whatever `check` uses outlives the waits that call it.
  void SetDeadlockCheck(std::function<void(uint64_t owner)> check);
  // For the deadlock detector: the request that owner `owner` waits for now and what blocks
  // it (see the header comment), under the leaf latch. False if it waits for none.
  bool WaitOf(uint64_t owner, MdlWaitEdges* out) const;
  // Ends the wait of `owner` for the request `ticket` with kDeadlock (woken now). False if that
  // wait is over (granted, timed out) or is another one.
  bool CancelWaitAsVictim(uint64_t owner, uint64_t ticket);

 private:
  friend class MdlContext;
  struct Waiter {
    MdlContext* ctx;
    MdlMode mode;
    MdlLabel label;
    uint64_t ticket;
  };
  struct Object {
    std::vector<const MdlContext*> shared;  // holders of S
    const MdlContext* exclusive = nullptr;  // holder of X
    uint32_t pending_exclusive = 0;         // waiting X requests
    uint32_t waiters = 0;                   // waiting requests of either mode
    std::vector<Waiter> waiting;            // ... for ForEachLock, in arrival order
  };
  bool Grantable(const Object& o, const MdlContext* ctx, MdlMode mode) const REQUIRES(latch_);
  void Grant(Object* o, MdlContext* ctx, std::string_view name, MdlMode mode, MdlLabel label,
             uint64_t ticket) REQUIRES(latch_);
  // Waits for a grant (the Acquire slow path).
  Status WaitFor(Object* o, MdlContext* ctx, std::string_view name, MdlMode mode,
                 std::chrono::milliseconds timeout, MdlLabel label) REQUIRES(latch_);
  // A ticket of `ctx` on `name` under `label`, if it holds one.
  static const uint64_t* TicketOf(const MdlContext::Held& h, MdlLabel label);
  void EraseIfUnused(std::string_view name) REQUIRES(latch_);
  // Runs the deadlock check for a queued wait of ctx, releasing the latch meanwhile.
  void CheckDeadlock(MdlContext* ctx) REQUIRES(latch_);
  // Where a waiting owner's request is queued (WaitOf, CancelWaitAsVictim).
  struct WaitingAt {
    const std::string* name;
    const Object* object;
    MdlContext* ctx;
    MdlMode mode;
    MdlLabel label;
    uint64_t ticket;
  };

  mutable Latch latch_;  // leaf latch: objects_, stats, every context's held_ and interrupted_
  std::condition_variable_any cv_;  // waiters sleep here; notified when grants may change
  std::map<std::string, Object, std::less<>> objects_ GUARDED_BY(latch_);  // held or waited
  std::map<uint64_t, WaitingAt> waiting_owners_ GUARDED_BY(latch_);        // by owner_id
  std::function<void(uint64_t)> deadlock_check_ GUARDED_BY(latch_);
  bool closed_ GUARDED_BY(latch_) = false;
  MdlStats stats_ GUARDED_BY(latch_);
  uint64_t next_ticket_ GUARDED_BY(latch_) = 1;
};

}  // namespace minnow
