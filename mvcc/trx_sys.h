#pragma once
// The transaction system: transaction ids, the set of active (uncommitted) transactions, and
// the open read views (InnoDB's trx_sys). One latch, held briefly by begin, commit and view
// creation; the per-row questions (is this id possibly active?) are answered lock-free first.
//
// Ids and commit numbers come from one counter: a transaction's id when it begins writing,
// and its trx_no (commit order, for purge) when it commits. Ids must never go backwards across
// restarts (records on disk carry them): the owner persists an upper bound before handing out
// ids past it (reserve_every / the reserve callback).
//
// Commit in three steps, so that no view ever sees a transaction as committed before its
// trx_no is known to purge:
//   AssignTrxNo(id)  -> trx_no (the transaction is "serialising": still active to views, and
//                       every view opened now has low_limit_no <= trx_no)
//   (the caller's commit mini-transaction puts the undo in the history list with trx_no)
//   Remove(id)       -> no longer active
//
// Thread safety: all methods are thread-safe. Latch order: page latches, then trx_sys's latch,
// then lock-sys shard latches (WithActive's callback may take them).

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "common/latch.h"
#include "common/types.h"
#include "minnow/status.h"
#include "mvcc/read_view.h"

namespace minnow {

class TrxSys {
 public:
  // `next_id`: the first id to hand out (above every id on disk). `reserve` is called with a
  // new bound B (under the latch, rarely: every `reserve_every` ids) and must make "every id
  // handed out from now on is < B" durable before returning OK; an error fails Begin.
  TrxSys(TrxId next_id, std::function<Status(TrxId bound)> reserve, uint64_t reserve_every = 1024);

  // A new active transaction with a fresh id; `owner` is returned by WithActive (the engine's
  // transaction object). REQUIRES: owner != nullptr.
  Result<TrxId> Begin(void* owner);
  // The commit number of active transaction `id` (see the header comment).
  TrxId AssignTrxNo(TrxId id);
  // `id` is no longer active (committed or rolled back).
  void Remove(TrxId id);

  // Opens `view` for transaction `creator` (0 for a reader without an id): the active list
  // now. REQUIRES: the view is not open.
  void OpenView(ReadView* view, TrxId creator);
  // Closes it (purge may then free what only it needed). No-op if not open.
  void CloseView(ReadView* view);

  // Lock-free: false means `id` is certainly not active (below every active id); true means
  // "ask IsActive".
  bool MaybeActive(TrxId id) const { return id >= min_active_id_.load(std::memory_order_acquire); }
  // The bound MaybeActive compares with (ids below it are not active), for a loop over many.
  TrxId min_active_id() const { return min_active_id_.load(std::memory_order_acquire); }
  bool IsActive(TrxId id) const;
  // Calls `f(owner)` under the latch if `id` is active (so it cannot end meanwhile); returns
  // whether it did.
  bool WithActive(TrxId id, const std::function<void(void* owner)>& f) const;

  // Purge may free the undo of transactions with trx_no < PurgeLimit(): the smallest
  // low_limit_no of the open views, or, with none open, the smallest trx_no still serialising,
  // or the next id.
  TrxId PurgeLimit() const;

  TrxId next_id() const;  // InnoDB's "Trx id counter"
  uint64_t active_count() const;
  uint64_t open_views() const;
  // Calls `f(id, owner)` for each active transaction, ascending, under the latch (so none ends
  // meanwhile). `f` must not call into the TrxSys.
  void ForEachActive(const std::function<void(TrxId id, void* owner)>& f) const;

 private:
  Status ReserveLocked(TrxId id) REQUIRES(latch_);
  void UpdateMinActive() REQUIRES(latch_);

  mutable Latch latch_;
  TrxId next_id_ GUARDED_BY(latch_);
  TrxId reserved_bound_ GUARDED_BY(latch_);
  std::function<Status(TrxId)> reserve_;
  const uint64_t reserve_every_;
  std::map<TrxId, void*> active_ GUARDED_BY(latch_);
  std::set<TrxId> serialising_ GUARDED_BY(latch_);       // trx_nos assigned, not yet removed
  std::map<TrxId, TrxId> trx_no_of_ GUARDED_BY(latch_);  // id -> its trx_no while serialising
  ReadView* views_ GUARDED_BY(latch_) = nullptr;         // open views, newest first
  uint64_t n_views_ GUARDED_BY(latch_) = 0;
  std::atomic<TrxId> min_active_id_{0};
};

}  // namespace minnow
