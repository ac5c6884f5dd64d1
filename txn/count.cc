// Transaction::Count: the records of a key range counted a leaf at a time (SQL's COUNT(*) over
// a range, as MySQL 8's handler::records()). It returns what an Iterator from Seek(lo)
// stepping with Next while key < hi would show, and locks what that Iterator would lock,
// because it is that Iterator (a TxnIterator: the same effective mode, read view, lock
// type, edge lock and lock batches) with a counting loop in place of the per-row hand-out:
//
//   the leaf Seek copies, and any leaf the walk below copies, is read from the cursor's copy:
//     a locking read first locks the rest of it with LockFromCurrent (the Iterator's own
//     step); a consistent read builds the visible version (BuildVisible) of each record whose
//     writer the view may not see;
//   the leaves after it are read in place under their S latch (Cursor::WalkRightLatched), with
//     no copy: per record, the delete mark and DB_TRX_ID against the view's up_limit_id. A
//     locking read locks the same batch LockFromCurrent would (LockPassLatched: the same locks
//     as LockBatchLatched) under the same latch, from one pass over the records that also
//     counts them (ReadLeafForLocks, leaf_lock_pass.h; a damaged leaf takes LockFromCurrent's
//     lists, then CountLeaf reports the damage). A consistent
//     read that meets a record whose version the view may not see has the cursor copy the leaf
//     there and goes on from the copy, so undo pages are read with no page latch held (BuildVisible
//     re-reads the record through the tree).
//
// Where it stops: at the first record with key >= hi, delete-marked or not (the record that
// ends the range, which a locking read locks as ReadOptions::range_end_lock says, and only
// under next-key locking), or at the end (the last leaf's supremum locked, as every leaf's
// supremum the scan passes). Nothing after the range's end is locked. NOWAIT and SKIP LOCKED
// (ReadOptions::wait) lock record by record, so they count through the Iterator's own steps;
// so does a locking count under READ COMMITTED and READ UNCOMMITTED, which gives back the lock
// of each delete-marked record as the Iterator's step does (and, like it, keeps a lock it
// waited for).
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "mvcc/undo_record.h"
#include "txn/txn_iterator.h"

namespace minnow {
namespace {
// How many records ahead the counting loops prefetch: each record's first touch is a cache
// miss otherwise (the loop does little else).
constexpr int kPrefetchAhead = 8;
}  // namespace

Result<int> TxnIterator::CountLeaf(const LeafImage& leaf, int from, bool latched, uint64_t* count) {
  RecordView rec;
  auto corrupt = [&](int slot) {
    return Status::Corruption(
        fmt::format("keyspace '{}': leaf page {}: slot {} lies outside the page", ks->name,
                    leaf.page_no, slot));
  };
  // [from, end): the slots below the bound (hi).
  ASSIGN_OR_RETURN(int end, BoundSlot(leaf));
  end = std::max(from, end);
  uint64_t n = 0;
  uint8_t flags = 0;
  uint64_t sys8 = 0;
  if (locking || view == nullptr) {
    // The latest version (locked, or READ UNCOMMITTED's): shown unless delete-marked.
    for (int i = from; i < end; ++i) {
      if (i + kPrefetchAhead < end) leaf.Prefetch(i + kPrefetchAhead);
      if (!leaf.Peek(i, &flags, &sys8)) [[unlikely]]
        return corrupt(i);
      n += (flags & kRecDeleteMark) == 0;
    }
    *count += n;
    return end == leaf.n ? kLeafNext : kLeafDone;
  }
  // Consistent: a writer below up_limit_id committed before the view opened (the common case:
  // one compare); others go through the view, and those it does not see through the undo log.
  const TrxId up_limit = view->up_limit_id();
  for (int i = from; i < end; ++i) {
    if (i + kPrefetchAhead < end) leaf.Prefetch(i + kPrefetchAhead);
    if (!leaf.Peek(i, &flags, &sys8)) [[unlikely]]
      return corrupt(i);
    const TrxId writer = TrxIdOfSys8(sys8);
    if (writer < up_limit || view->Sees(writer)) [[likely]] {
      n += (flags & kRecDeleteMark) == 0;
      continue;
    }
    if (latched) {
      *count += n;
      return i;
    }
    if (!leaf.Decode(i, &rec)) return corrupt(i);
    version.clear();  // BuildVisible's value; only its verdict is needed
    ASSIGN_OR_RETURN(bool visible, txn->BuildVisible(*view, ks, AsStringView(rec.key), rec.sys,
                                                     rec.delete_marked(), &version));
    n += visible;
  }
  *count += n;
  return end == leaf.n ? kLeafNext : kLeafDone;
}

Status TxnIterator::LockPassLatched(const LeafImage& leaf, const LeafLockPass& pass, int n_records,
                                    bool supremum, bool last_ends) {
  auto heap_no_of = [&](int slot) -> HeapNo {
    return pass.run ? static_cast<HeapNo>(pass.first + slot) : heap_nos[static_cast<size_t>(slot)];
  };
  // Implicit locks, as LockBatchLatched: one compare per leaf unless an active transaction may
  // have written one of its records.
  const TrxId min_active = txn->services()->trx_sys->min_active_id();
  if (n_records > 0 && pass.max_writer >= min_active) [[unlikely]] {
    uint8_t flags = 0;
    uint64_t sys8_word = 0;
    for (int i = 0; i < n_records; ++i) {
      if (!leaf.Peek(i, &flags, &sys8_word)) break;  // the pass read it: cannot happen
      const TrxId writer = TrxIdOfSys8(sys8_word);
      if (writer >= min_active) txn->ConvertImplicit(writer, {leaf.page_no, heap_no_of(i)});
    }
  }
  // The records before the one that ends the range (if it is in the batch).
  const int before_end = last_ends ? n_records - 1 : n_records;
  if (pass.run && txn->services()->lock_sys->LockRunIfAlone(txn->locks(), leaf.page_no, pass.first,
                                                            static_cast<size_t>(before_end),
                                                            supremum, RecordMode(), lock_type)) {
    if (!last_ends) return Status::OK();
    skipped.clear();
    return LockRangeEndLatched({leaf.page_no, heap_no_of(n_records - 1)});
  }
  // The general path takes the list.
  if (pass.run) {
    heap_nos.resize(static_cast<size_t>(n_records));
    std::iota(heap_nos.begin(), heap_nos.end(), pass.first);
  }
  if (supremum) heap_nos.push_back(kSupremumHeapNo);
  return LockHeapNosLatched(leaf.page_no, last_ends);
}

Result<uint64_t> TxnIterator::CountTo() {
  uint64_t count = 0;
  for (;;) {
    // From the cursor's current record, on its copy.
    if (!cursor->Valid()) return count;
    if (locking) {
      ASSIGN_OR_RETURN(bool locked, LockFromCurrent(/*forward=*/true));
      if (!locked) continue;  // re-seeked (the leaf changed, or a lock wait ended)
    }
    ASSIGN_OR_RETURN(int step, CountLeaf(cursor->leaf(), cursor->slot(), false, &count));
    if (step == kLeafDone) return count;
    // The leaves after it, in place.
    Result<Cursor::Walk> walk = cursor->WalkRightLatched([&](const LeafImage& leaf) -> Result<int> {
      auto count_leaf = [&]() -> Result<int> {
        ASSIGN_OR_RETURN(int r, CountLeaf(leaf, 0, /*latched=*/true, &count));
        if (r == kLeafNext) return Cursor::kNextLeaf;
        if (r == kLeafDone) return Cursor::kStopWalk;
        return r;  // copy the leaf and go on from slot r unlatched
      };
      // After a lock wait, re-seek to this leaf's first record and lock it from the copy.
      auto reseek_after = [&](const Status& locked) -> Result<int> {
        RecordView first;
        if (!leaf.Decode(0, &first)) {
          return Status::Corruption(fmt::format(
              "keyspace '{}': leaf page {}: slot 0 lies outside the page", ks->name, leaf.page_no));
        }
        reseek_key.assign(AsStringView(first.key));
        return locked;
      };
      // The batch of a leaf with a damaged slot, as LockFromCurrent's lists shape it; then
      // CountLeaf reports the damage (or counts, if it lies past the range's end).
      auto lock_damaged_leaf = [&](int end) -> Result<int> {
        leaf.HeapNos(0, &heap_nos, &sys8, &live);
        ASSIGN_OR_RETURN(bool last_ends, ShapeForwardBatch(leaf, 0));
        Status locked = heap_nos.empty() ? Status::OK() : LockBatchLatched(leaf.page_no, last_ends);
        if (!locked.ok()) return reseek_after(locked);
        if (live.size() < static_cast<size_t>(end)) return count_leaf();
        uint64_t n = 0;
        for (int i = 0; i < end; ++i) n += live[static_cast<size_t>(i)];
        count += n;
        return end == leaf.n ? Cursor::kNextLeaf : Cursor::kStopWalk;
      };
      if (!locking) return count_leaf();
      // One pass over the records reads what the locks need and what the count needs.
      ASSIGN_OR_RETURN(int end, BoundSlot(leaf));
      const bool ends_here = end < leaf.n;
      const bool last_ends = ends_here && LocksRangeEnd();
      const int n_records = last_ends ? end + 1 : end;
      const LeafLockPass pass = ReadLeafForLocks(leaf, 0, n_records, end, &heap_nos);
      // A damaged slot ended the pass: the batch as LockFromCurrent shapes it, then CountLeaf's
      // walk reports the corruption.
      if (pass.read < n_records) return lock_damaged_leaf(end);
      const bool supremum = !ends_here && lock_type == RecLockType::kOrdinary;
      if (n_records > 0 || supremum) {
        Status locked = LockPassLatched(leaf, pass, n_records, supremum, last_ends);
        if (!locked.ok()) return reseek_after(locked);
      }
      count += pass.live;
      return ends_here ? Cursor::kStopWalk : Cursor::kNextLeaf;
    });
    if (walk.ok()) {
      if (*walk != Cursor::Walk::kCopied) return count;
      continue;
    }
    if (walk.status().code() != Code::kLockWait) return walk.status();
    RETURN_IF_ERROR(txn->WaitForLock());
    RETURN_IF_ERROR(cursor->Seek(AsBytes(reseek_key)));
  }
}

Result<uint64_t> TransactionCore::Count(KeyspaceState* s, std::string_view lo, std::string_view hi,
                                        const ReadOptions& ro) {
  if (ro.upper_bound.has_value()) {
    return Status::InvalidArgument("Transaction::Count: the range's end is hi, not upper_bound");
  }
  const LockMode mode = EffectiveMode(ro.lock_mode);
  if (mode != LockMode::kNone) RETURN_IF_ERROR(PrepareLocking(s, mode));
  // Iterator::Seek(lo) with upper bound hi, then the counting loop in place of Next.
  ReadOptions bounded = ro;
  if (!hi.empty()) bounded.upper_bound = hi;
  bounded.semi_consistent = false;  // a count waits for what it counts
  TxnIterator it(this, s, bounded);
  if (mode != LockMode::kNone &&
      (ro.wait != LockWait::kWait || snapshot_view() != nullptr || it.releases_rows)) {
    // NOWAIT and SKIP LOCKED lock record by record, snapshot isolation checks each record the
    // Iterator reaches, and READ COMMITTED releases the new lock of each delete-marked record
    // it passes over: count what the Iterator shows.
    uint64_t n = 0;
    RETURN_IF_ERROR(it.Seek(lo));
    while (it.Valid()) {
      ++n;
      RETURN_IF_ERROR(it.Next());
    }
    return n;
  }
  if (it.LocksEdges()) RETURN_IF_ERROR(it.LockEdgeAt(lo, /*gap=*/false));
  RETURN_IF_ERROR(it.cursor->Seek(AsBytes(lo)));
  return it.CountTo();
}

}  // namespace minnow
