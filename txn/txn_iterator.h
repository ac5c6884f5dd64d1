#pragma once
// TxnIterator: a transaction's scan of one keyspace (InnoDB's row_search_mvcc), what the public
// Iterator is underneath its pimpl handle (engine/iterator.cc forwards each call). A btree
// Cursor (which holds no latch between calls) plus MVCC and locking, and the checks that make a
// stale iterator return errors instead of touching freed state.
//
// What a row is, by the read's mode (TransactionCore::EffectiveMode):
//   consistent   the version the read view sees (REPEATABLE READ: the transaction's view;
//                READ COMMITTED: a view the iterator opens when created; READ UNCOMMITTED:
//                the latest), built from the undo chain when the latest is too new;
//   locking      the latest version, locked. Each leaf the cursor copies is locked in one
//                LockSys::LockRecords batch under the leaf's S latch: the current record and
//                every record after it on the leaf, plus the page's supremum under REPEATABLE
//                READ (next-key locks, as InnoDB's scans take). So an iterator locks up to
//                the end of the leaf it is on, ahead of the rows it has returned (at most one
//                leaf's worth); moving backwards locks record by record. With an upper bound
//                (ReadOptions::upper_bound, Count's hi) the batch stops at the record that
//                ends the range (the first at or after the bound): it is locked as
//                `end_type` says (REPEATABLE READ and up; READ COMMITTED leaves it unlocked)
//                and the leaf's supremum and the records after it are not.
// Snapshot isolation (TransactionCore::snapshot_view): each record a locking scan reaches is
// checked once it is locked (the check of a record locked ahead with its leaf waits until the
// scan reaches it, so a scan that stops early fails for nothing it did not read); a record
// whose version the view does not see fails the move with kRecordChanged, the transaction
// rolled back. A record only gap-locked (the end of a range with RangeEndLock::kGap) or
// skipped (SKIP LOCKED) is not read, so not checked.
// A lock wait releases the latch, waits, and re-seeks to the current key (the records may
// have changed meanwhile). With ReadOptions::wait kNoWait or kSkipLocked nothing waits and
// each record is locked as the scan reaches it (a batch of one record, plus the page's
// supremum after a leaf's last record), as InnoDB's row_search_mvcc: a conflict on it fails
// the move with kLockNoWait (NOWAIT) or steps over the record (SKIP LOCKED: not shown, not
// locked; a skipped record that ends the range ends it).
//
// The scan loop (Valid / key / value / Next per row) is the hottest path of the API, so each
// move settles the cursor once and caches what the row's accessors return.

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "btree/cursor.h"
#include "minnow/db.h"
#include "txn/leaf_lock_pass.h"
#include "txn/transaction_core.h"

namespace minnow {

struct TxnIterator {
  // ro: the lock mode, the upper bound (copied) and what to lock where it ends.
  TxnIterator(TransactionCore* t, KeyspaceState* k, const ReadOptions& ro);
  ~TxnIterator();
  TxnIterator(const TxnIterator&) = delete;
  TxnIterator& operator=(const TxnIterator&) = delete;

  // ---- the public Iterator's calls (minnow/db.h states their contracts)
  Status Seek(std::string_view key);
  Status SeekForPrev(std::string_view key);
  Status SeekToFirst();
  Status SeekToLast();
  Status Next() {
    if (!valid || !Usable()) [[unlikely]]
      return MisuseError("Next");
    if (cursor->NextInLeaf()) [[likely]] {
      // The scan's fast path: the next record of the same leaf is the version to show
      // (visible, or already locked with its leaf): cached without a Status per step.
      if (CacheIfLatest(*cursor->current())) [[likely]]
        return Status::OK();
      return Settle(true);
    }
    return Settled(cursor->Next(), true);
  }
  Status Prev() {
    if (!valid || !Usable()) [[unlikely]]
      return MisuseError("Prev");
    return Settled(cursor->Prev(), false);
  }
  bool Valid() const { return valid && txn->active(); }
  std::string_view Key() const { return valid ? key : std::string_view(); }
  Result<std::string_view> Value() {
    if (!valid || !Usable()) [[unlikely]]
      return MisuseError("value");
    if (!overflow) [[likely]]
      return value;
    return OverflowValue();
  }

  // Iterator::UnlockCurrent, Iterator::LockCurrent (minnow/db.h).
  Status UnlockCurrent();
  Status LockCurrent();

  // ---- the machinery

  // False after the transaction ended, the database closed or the keyspace was dropped; then
  // CheckUsable() says which (kClosed, kInvalidArgument). Usable() builds no Status: it runs
  // once per row.
  bool Usable() const { return txn->active() && !ks->dropped.load(std::memory_order_acquire); }
  Status CheckUsable() const;
  // The error of a move or read on an unusable or not-Valid() iterator.
  Status MisuseError(const char* what) const;
  // The error of a backward positioning of a bounded iterator (it leaves it not Valid()).
  Status BoundedBackward(const char* what);

  // After a successful cursor move: locks (locking reads), finds the version to show, steps
  // over records this read does not see in the direction of travel, and caches the row. Not
  // valid after an error.
  Status Settle(bool forward);
  // Settle() after a move that returned `st`.
  Status Settled(const Status& st, bool forward) {
    if (st.ok()) [[likely]]
      return Settle(forward);
    valid = false;
    return st;
  }
  // The row's fast path: the latest version is the one to show (visible to the view, or
  // locked). Caches it and returns true; false means "take the slow path" (Settle).
  bool CacheIfLatest(const RecordView& rec) {
    if (rec.delete_marked() || PastBound(rec)) return false;
    if (locking) {
      if (cursor->leaf_copies() != locked_copy) return false;
      // Snapshot isolation: a version the view does not see fails the read (Settle).
      const ReadView* snapshot = txn->snapshot_view();
      if (snapshot != nullptr && !snapshot->Sees(SysTrxId(rec.sys.data()))) return false;
    } else if (view != nullptr && !view->Sees(SysTrxId(rec.sys.data()))) {
      return false;
    }
    CacheRow(rec);
    return true;
  }
  // True if `rec` is at or after the upper bound (then a forward scan ends there).
  bool PastBound(const RecordView& rec) const { return bounded && AsStringView(rec.key) >= bound; }
  void CacheRow(const RecordView& rec) {
    key = AsStringView(rec.key);
    overflow = rec.overflow();
    if (!overflow) [[likely]] {
      value = AsStringView(rec.value);
    } else {
      overflow_sys.fill(std::byte{0});
      std::copy_n(rec.sys.begin(), std::min(rec.sys.size(), kSysFieldsSize), overflow_sys.begin());
    }
  }
  // Locks the current record (and, moving forward and waiting allowed, the rest of the leaf).
  // False if the cursor had to re-seek (the leaf changed, or a lock wait ended): settle again.
  // True with skip_current set: SKIP LOCKED passed over the current record.
  Result<bool> LockFromCurrent(bool forward);
  // Record by record (NOWAIT, SKIP LOCKED, semi-consistent) rather than a leaf ahead.
  bool PerRecord() const { return wait != LockWait::kWait || semi_consistent; }
  // Releases the lock on the current record if its batch created it (UnlockCurrent's work,
  // also for a delete-marked record passed over under READ COMMITTED).
  Status ReleaseCurrentIfNew();
  // A forward batch that waited: the keys of its records (slots from `from` of `leaf`, the
  // copy it was taken from) whose locks it created before the conflict go into
  // created_before_wait. REQUIRES: releases_rows.
  void RememberCreatedBeforeWait(const LeafImage& leaf, int from);
  // The batch locked again after a wait (slots from `from` of `leaf`): its records in
  // created_before_wait count as new in batch_held, and the keys up to its last record leave
  // the list.
  void ApplyCreatedBeforeWait(const LeafImage& leaf, int from);
  // Semi-consistent: caches the latest committed version of the current record (a view
  // opened now); false if it has none.
  Result<bool> CacheLatestCommitted(const RecordView& rec);
  // A forward batch: heap_nos and sys8 hold slots [from, leaf.n) of `leaf` (HeapNos). Cuts
  // them where the range ends: after the record that ends it (the first slot at or after the
  // bound) when LocksRangeEnd(), else before it; with no such record on the leaf, appends the
  // supremum under next-key locking. Returns true if the batch's last entry is the record
  // that ends the range (to be locked as end_type).
  Result<bool> ShapeForwardBatch(const LeafImage& leaf, int from);
  // The first slot of `leaf` whose key is >= bound (leaf.n if none, or unbounded).
  Result<int> BoundSlot(const LeafImage& leaf);
  // Whether the record that ends a bounded range is locked: next-key locking only (READ
  // COMMITTED takes no gap locks and would release the non-matching record).
  bool LocksRangeEnd() const { return locking && lock_type == RecLockType::kOrdinary; }
  // The lock batch of LockFromCurrent and of a counting scan's latched leaves: turns the
  // implicit locks of active writers of the batch's records (sys8: their DB_TRX_IDs) into
  // explicit ones, then locks heap_nos of `page` in one LockRecords call (with `last_ends`,
  // all but the last, which is locked as end_type). SKIP LOCKED: a record another holds is
  // left unlocked and its heap number put in `skipped` (cleared first); NOWAIT: kLockNoWait.
  // REQUIRES: `page` S-latched, unchanged since heap_nos and sys8 were read from it.
  Status LockBatchLatched(PageNo page, bool last_ends = false);
  // LockBatchLatched's locking, after the implicit locks: heap_nos of `page` as it says.
  Status LockHeapNosLatched(PageNo page, bool last_ends);
  // The record that ends a bounded range, locked as end_type (SKIP LOCKED: put in `skipped`
  // if another holds it). REQUIRES: its page S-latched.
  Status LockRangeEndLatched(RecordId rec);
  // A locking count's batch of a latched leaf read by one pass (count.cc, leaf_lock_pass.h):
  // slots [0, n_records) of `leaf`, plus its supremum with `supremum`, with the last record
  // locked as end_type with `last_ends`. Turns the implicit locks of active writers into
  // explicit ones (looking at each record again only if pass.max_writer may be active), then
  // locks a run with LockSys::LockRunIfAlone when it can, else the list (heap_nos) as
  // LockHeapNosLatched. The same locks as LockBatchLatched on the same batch.
  // REQUIRES: `leaf` S-latched; pass read n_records slots from slot 0.
  Status LockPassLatched(const LeafImage& leaf, const LeafLockPass& pass, int n_records,
                         bool supremum, bool last_ends);
  // The record locks' mode: X for FOR UPDATE, else S.
  TrxLockMode RecordMode() const {
    return mode == LockMode::kExclusive ? TrxLockMode::kX : TrxLockMode::kS;
  }
  // Next-key locking scans (REPEATABLE READ, SERIALIZABLE) also close the gap at the edge
  // where they start, as InnoDB's row_search_mvcc does; otherwise an insert there is a phantom
  // the scan's next run would see (inserts check the record they go before, or the supremum of
  // the leaf they go into):
  //   forward from `key` (Seek, SeekToFirst): if no record >= key is on the leaf `key` belongs
  //     to, that leaf's supremum (the cursor lands on the next leaf or on nothing: an empty
  //     keyspace, a seek past the last key or into the gap after a leaf's last record);
  //   backward (SeekForPrev, SeekToLast): GAP on the record after the one the cursor lands on
  //     (or its leaf's supremum); when it lands on nothing, on the first record >= `key`.
  bool LocksEdges() const { return locking && lock_type == RecLockType::kOrdinary; }
  // Forward: the supremum of the leaf `key` belongs to, if no record >= key is on it. With
  // `gap`, backward's fallback: GAP on the first record >= key (or the supremum).
  Status LockEdgeAt(std::string_view key, bool gap);
  // Backward: GAP on the current record's successor on its leaf (or the supremum). False if
  // the leaf changed since the cursor copied it (or a lock wait ended): re-seek and retry.
  Result<bool> LockGapAfterCurrent();
  // Backward positioning of a next-key locking scan: `seek`, then the gap after where it
  // landed (LockGapAfterCurrent, re-seeking while the leaf changes; on nothing, LockEdgeAt
  // `fallback_key`).
  Status SeekBackward(const std::function<Status()>& seek, std::string_view fallback_key);
  // Transaction::Count (count.cc): counts what Next would show from the current position
  // to the upper bound (Count's hi; unbounded: to the end), locking as Next would (see
  // count.cc).
  Result<uint64_t> CountTo();
  // CountTo's per-leaf step: counts slots [from, n) of `leaf` below the bound into *count. Returns
  // kLeafDone if the scan ends on this leaf, kLeafNext if it goes on to the next leaf, or the
  // slot of the first record whose visible version needs the undo log while `latched` (the
  // caller copies the leaf and counts on from there, unlatched).
  static constexpr int kLeafNext = -1;
  static constexpr int kLeafDone = -2;
  Result<int> CountLeaf(const LeafImage& leaf, int from, bool latched, uint64_t* count);
  // The version the view sees of the current record, cached; false if it sees none.
  Result<bool> CacheOlderVersion(const RecordView& rec) { return CacheVersionSeenBy(*view, rec); }
  Result<bool> CacheVersionSeenBy(const ReadView& seer, const RecordView& rec);
  // The cached row's value when it is an overflow value, which the leaf copy does not hold:
  // read from the tree under the leaf's latch. If the record changed since the copy (a
  // writer updated it, or purge removed it), a consistent read builds the version its view
  // sees from the record as it is now, never showing the newer value.
  Result<std::string_view> OverflowValue();
  // The current record's latest version read under its leaf's latch into `version`, with its
  // hidden fields and delete mark; false if the record is gone.
  Result<bool> ReadLatest(std::array<std::byte, kSysFieldsSize>* sys, bool* delete_marked);

  TransactionCore* txn;
  KeyspaceState* ks;
  std::unique_ptr<Cursor> cursor;
  const LockMode mode;  // effective
  const bool locking;
  RecLockType lock_type = RecLockType::kOrdinary;
  // The upper bound: forward moves show keys < bound only (see ReadOptions::upper_bound).
  const bool bounded;
  const std::string bound;
  const RecLockType end_type;   // kOrdinary or kGap: the lock on the record that ends the range
  const LockWait wait;          // ReadOptions::wait (locking reads)
  std::vector<HeapNo> skipped;  // LockBatchLatched's records passed over (SKIP LOCKED)
  bool skip_current = false;    // LockFromCurrent passed over the current record
  // READ COMMITTED / READ UNCOMMITTED locking reads: rejected rows' locks may be released
  // (UnlockCurrent). The last lock batch: the leaf copy and slot it began at, its heap
  // numbers, and which of them the transaction held before (those stay locked).
  const bool releases_rows;
  uint64_t batch_copy = ~uint64_t{0};
  int batch_slot = 0;
  std::vector<HeapNo> batch_heap_nos;
  std::vector<uint8_t> batch_held;
  // A batch that waits has locked the records before the conflict; locked again after the
  // wait they are found held, yet the read created those locks (a scan that locked record by
  // record would have released a rejected one before it waited): their keys, ascending, until
  // the batch after the wait covers them. The record waited for is not among them and keeps
  // its lock, as InnoDB never unlocks a row that was part of a conflict.
  std::vector<std::string> created_before_wait;
  size_t wait_granted = 0;  // LockHeapNosLatched: the batch's records granted before a wait
  // ReadOptions::semi_consistent (READ COMMITTED and below, forward, locking); semi_current:
  // the current row is a semi-consistent one (not locked); relock_current: LockCurrent's
  // re-read, which waits instead.
  const bool semi_consistent;
  bool semi_current = false;
  bool semi_conflict = false;  // LockHeapNosLatched: the current record is another's
  bool relock_current = false;
  const ReadView* view = nullptr;       // consistent reads; null: the latest (READ UNCOMMITTED)
  ReadView statement_view;              // READ COMMITTED's, owned here
  uint64_t locked_copy = ~uint64_t{0};  // the leaf copy whose records are locked
  std::vector<uint64_t> sys8;           // the batch's records' first 8 hidden bytes (DB_TRX_ID)
  std::vector<HeapNo> heap_nos;
  std::vector<uint8_t> live;  // a locking count's: 1 per batch record not delete-marked
  std::string version;        // an older version's value
  std::string reseek_key;
  // The cached row; meaningful while `valid`.
  bool valid = false;
  bool overflow = false;  // value not cached: read by OverflowValue()
  std::array<std::byte, kSysFieldsSize> overflow_sys{};  // overflow: the copy's hidden fields
  std::string_view key;
  std::string_view value;
};

}  // namespace minnow
