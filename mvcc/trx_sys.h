#pragma once
// The transaction system: transaction ids, the set of active (uncommitted) transactions, and
// the open read views (InnoDB's trx_sys). The per-row questions (is this id possibly active?)
// are answered lock-free first.
//
// Sharded: the active set is split over kShards shards, each a latch with its transactions.
// A transaction begins in its thread's shard and stays there; its begin, commit number and
// end take only that shard's latch, so threads beginning and committing do not share a latch.
// Ids come from one atomic counter, drawn only under a shard latch: with every shard latch
// held nothing begins, commits or ends, and the counter stands still. Opening a read view
// (and computing the purge limit) holds every shard latch, so a view is one instant: it sees
// exactly the transactions that had ended before it, in commit order (never a later commit
// without an earlier one).
//
// Ids and commit numbers come from one counter: a transaction's id when it begins writing,
// and its trx_no (commit order, for purge) when it commits. Ids must never go backwards across
// restarts (records on disk carry them): the owner persists an upper bound before handing out
// ids past it (reserve_every / the reserve callback).
//
// Commit in three steps, so that no view ever sees a transaction as committed before its
// trx_no is known to purge:
//   AssignTrxNo(trx) -> trx_no (the transaction is "serialising": still active to views, and
//                       every view opened now has low_limit_no <= trx_no)
//   (the caller's commit mini-transaction puts the undo in the history list with trx_no)
//   Remove(trx)      -> no longer active
//
// Thread safety: all methods are thread-safe. Latch order: page latches, then the shard
// latches (ascending), then the id-reserve latch or the view-list latch, then lock-sys shard
// latches (WithActive's callback may take them).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "common/latch.h"
#include "common/types.h"
#include "minnow/status.h"
#include "mvcc/read_view.h"

namespace minnow {

class TrxSys {
 public:
  static constexpr uint32_t kShards = 4;

  // An active transaction: its id and the shard it lives in (Begin's; pass it back).
  struct Active {
    TrxId id = 0;
    uint32_t shard = 0;
  };

  // `next_id`: the first id to hand out (above every id on disk). `reserve` is called with a
  // new bound B (rarely: every `reserve_every` ids; one call at a time) and must make "every id
  // handed out from now on is < B" durable before returning OK; an error fails Begin.
  TrxSys(TrxId next_id, std::function<Status(TrxId bound)> reserve, uint64_t reserve_every = 1024);

  // A new active transaction with a fresh id, in the calling thread's shard; `owner` is
  // returned by WithActive (the engine's transaction object). REQUIRES: owner != nullptr.
  Result<Active> Begin(void* owner);
  // The commit number of active transaction `trx` (see the header comment).
  TrxId AssignTrxNo(const Active& trx);
  // `trx` is no longer active (committed or rolled back).
  void Remove(const Active& trx);

  // Opens `view` for transaction `creator` (0 for a reader without an id): the active list
  // now. REQUIRES: the view is not open.
  void OpenView(ReadView* view, TrxId creator);
  // Closes it (purge may then free what only it needed). No-op if not open.
  void CloseView(ReadView* view);

  // Lock-free: false means `id` is certainly not active (below every active id); true means
  // "ask IsActive".
  bool MaybeActive(TrxId id) const { return id >= min_active_id(); }
  // The bound MaybeActive compares with (ids below it are not active, and every id handed out
  // later is at or above it), for a loop over many.
  TrxId min_active_id() const {
    // The counter first: an id drawn before this load was announced in its shard before it
    // was drawn (Begin), so the loads below see it or a smaller bound.
    TrxId m = next_id_.load(std::memory_order_acquire);
    for (const Shard& s : shards_) m = std::min(m, s.min_active.load(std::memory_order_acquire));
    return m;
  }
  bool IsActive(TrxId id) const;
  // Calls `f(owner)` under a latch if `id` is active (so it cannot end meanwhile); returns
  // whether it did.
  bool WithActive(TrxId id, const std::function<void(void* owner)>& f) const;

  // Purge may free the undo of transactions with trx_no < PurgeLimit(): the smallest
  // low_limit_no of the open views, or, with none open, the smallest trx_no still serialising,
  // or the next id.
  TrxId PurgeLimit() const;

  TrxId next_id() const { return next_id_.load(std::memory_order_acquire); }  // "Trx id counter"
  uint64_t active_count() const;
  uint64_t open_views() const;
  // Calls `f(id, owner)` for each active transaction, ascending, under the shard latches (so
  // none ends meanwhile). `f` must not call into the TrxSys.
  void ForEachActive(const std::function<void(TrxId id, void* owner)>& f) const;

 private:
  static constexpr TrxId kNoneActive = ~TrxId{0};
  struct Entry {
    TrxId id;
    void* owner;
    TrxId trx_no;  // 0 until AssignTrxNo
  };
  struct alignas(64) Shard {
    mutable Latch latch;
    // Ascending by id: ids are drawn under the latch, so each shard's arrive in order.
    std::vector<Entry> active GUARDED_BY(latch);
    // The smallest active id; kNoneActive when empty, except while Begin draws an id into
    // an empty shard (then the counter's value before the draw).
    std::atomic<TrxId> min_active{kNoneActive};
  };

  // Draws the next id or commit number. REQUIRES: a shard latch (any) held.
  TrxId DrawId();
  Status Reserve(TrxId id);
  static void UpdateMinActive(Shard* shard) REQUIRES(shard->latch);
  void AcquireAll() const;
  void ReleaseAll() const;
  // The smallest trx_no still serialising, or the next id. REQUIRES: every shard latch.
  TrxId OldestSerialising() const;

  Shard shards_[kShards];
  std::atomic<TrxId> next_id_;
  std::atomic<TrxId> reserved_bound_;
  Latch reserve_latch_;
  std::function<Status(TrxId)> reserve_;
  const uint64_t reserve_every_;
  mutable Latch views_latch_;
  ReadView* views_ GUARDED_BY(views_latch_) = nullptr;  // open views, newest first
  uint64_t n_views_ GUARDED_BY(views_latch_) = 0;
};

}  // namespace minnow
