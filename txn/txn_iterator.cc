#include "txn/txn_iterator.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>

namespace minnow {

Status TxnIterator::CheckUsable() const {
  RETURN_IF_ERROR(txn->CheckOpen());
  if (ks->dropped.load(std::memory_order_acquire)) {
    return Status::InvalidArgument(fmt::format("keyspace '{}' was dropped", ks->name));
  }
  return Status::OK();
}

Status TxnIterator::MisuseError(const char* what) const {
  RETURN_IF_ERROR(CheckUsable());
  return Status::InvalidArgument(
      fmt::format("Iterator::{} on an iterator that is not Valid()", what));
}

Status TxnIterator::BoundedBackward(const char* what) {
  valid = false;
  return Status::InvalidArgument(
      fmt::format("Iterator::{} on an iterator with an upper bound (it reads forward)", what));
}

TxnIterator::TxnIterator(TransactionCore* t, KeyspaceState* k, const ReadOptions& ro)
    : txn(t),
      ks(k),
      cursor(k->tree->NewCursor()),
      mode(t->EffectiveMode(ro.lock_mode)),
      locking(mode != LockMode::kNone),
      bounded(ro.upper_bound.has_value()),
      bound(ro.upper_bound.value_or(std::string_view())),
      end_type(ro.range_end_lock == RangeEndLock::kGap ? RecLockType::kGap
                                                       : RecLockType::kOrdinary),
      wait(ro.wait),
      releases_rows(locking && t->ReleasesRejectedRows()),
      semi_consistent(ro.semi_consistent && releases_rows && ro.wait == LockWait::kWait) {
  if (locking) {
    lock_type = t->ScanLockType();
  } else if (t->isolation() == IsolationLevel::kReadCommitted) {
    t->OpenStatementView(&statement_view);
    view = &statement_view;
  } else {
    view = t->TransactionView();
  }
}

TxnIterator::~TxnIterator() {
  if (statement_view.open() && !txn->services()->is_closed()) {
    txn->services()->trx_sys->CloseView(&statement_view);
  }
}

Result<int> TxnIterator::BoundSlot(const LeafImage& leaf) {
  if (!bounded || leaf.n == 0) return leaf.n;
  // Only the leaf where the range ends needs a search.
  RecordView last;
  if (!leaf.Decode(leaf.n - 1, &last)) {
    return Status::Corruption(
        fmt::format("keyspace '{}': leaf page {}: slot {} lies outside the page", ks->name,
                    leaf.page_no, leaf.n - 1));
  }
  if (AsStringView(last.key) < bound) return leaf.n;
  bool found = false;
  ASSIGN_OR_RETURN(size_t first_ge, PageView(leaf.data).LowerBound(AsBytes(bound), &found));
  return static_cast<int>(first_ge);
}

Result<bool> TxnIterator::ShapeForwardBatch(const LeafImage& leaf, int from) {
  ASSIGN_OR_RETURN(int end, BoundSlot(leaf));
  // HeapNos may have stopped early at a damaged slot: never grow the lists.
  const size_t before = static_cast<size_t>(std::max(end - from, 0));
  if (before < heap_nos.size()) {
    const size_t keep = LocksRangeEnd() ? before + 1 : before;
    heap_nos.resize(keep);
    sys8.resize(keep);
    return LocksRangeEnd();
  }
  // The range goes on past this leaf (or its records were cut short by damage: the move onto
  // the damaged slot reports it).
  if (lock_type == RecLockType::kOrdinary && end == leaf.n) heap_nos.push_back(kSupremumHeapNo);
  return false;
}

Status TxnIterator::LockBatchLatched(PageNo page, bool last_ends) {
  // Implicit locks: only a record written by a transaction that may still be active has one
  // (one compare per record; the rest were written before every active transaction began).
  const TrxId min_active = txn->services()->trx_sys->min_active_id();
  for (size_t i = 0; i < sys8.size(); ++i) {
    const TrxId writer = TrxIdOfSys8(sys8[i]);
    if (writer >= min_active) [[unlikely]]
      txn->ConvertImplicit(writer, {page, heap_nos[i]});
  }
  return LockHeapNosLatched(page, last_ends);
}

Status TxnIterator::LockHeapNosLatched(PageNo page, bool last_ends) {
  LockSys* lock_sys = txn->services()->lock_sys;
  // Semi-consistent: a conflict is not waited for (LockCurrent's re-read waits).
  const bool semi_now = semi_consistent && !relock_current;
  const bool may_wait = wait == LockWait::kWait && !semi_now;
  skipped.clear();
  semi_conflict = false;
  std::span<const HeapNo> batch(heap_nos);
  if (last_ends) batch = batch.first(batch.size() - 1);
  if (releases_rows) {
    // What the transaction held before stays locked when a row is rejected.
    lock_sys->HeldAmong(txn->locks(), page, batch, RecordMode(), lock_type, &batch_held);
    batch_heap_nos.assign(batch.begin(), batch.end());
  }
  while (!batch.empty()) {
    size_t granted = 0;
    Status st = lock_sys->LockRecords(txn->locks(), page, batch, RecordMode(), lock_type, &granted,
                                      may_wait);
    if (st.ok()) break;
    if (st.code() == Code::kLockWait) wait_granted = granted;
    if (st.code() == Code::kLockNoWait && semi_now) {
      // The batch is the current record alone (per record, no supremum under READ COMMITTED).
      semi_conflict = granted == 0;
      batch = batch.subspan(granted + 1);
      continue;
    }
    if (st.code() != Code::kLockNoWait || wait != LockWait::kSkipLocked) return st;
    skipped.push_back(batch[granted]);
    batch = batch.subspan(granted + 1);
  }
  if (!last_ends) return Status::OK();
  return LockRangeEndLatched({page, heap_nos.back()});
}

Status TxnIterator::LockRangeEndLatched(RecordId rec) {
  // A GAP request never waits: lock/lock_mode.h rule 2.
  Status st = txn->services()->lock_sys->LockRecord(txn->locks(), rec, RecordMode(), end_type,
                                                    wait == LockWait::kWait);
  if (st.code() == Code::kLockNoWait && wait == LockWait::kSkipLocked) {
    skipped.push_back(rec.heap_no);
    return Status::OK();
  }
  return st;
}

Result<bool> TxnIterator::LockFromCurrent(bool forward) {
  semi_current = false;
  const RecordView& cur = *cursor->current();
  const PageNo page = cursor->location().page_no;
  cursor->RemainingHeapNos(&heap_nos, &sys8);
  bool last_ends = false;
  if (forward) {
    // Up to the leaf's end, where next-key locking also locks the gap after the leaf's last
    // record (InnoDB's scans lock every page's supremum), or to the record that ends the range.
    ASSIGN_OR_RETURN(last_ends, ShapeForwardBatch(cursor->leaf(), cursor->slot()));
    // Record by record: the current one, and the supremum after a leaf's last record.
    const bool last_with_supremum = heap_nos.size() == 2 && heap_nos[1] == kSupremumHeapNo;
    if (PerRecord() && heap_nos.size() > 1 && !last_with_supremum) {
      heap_nos.resize(1);
      sys8.resize(std::min<size_t>(sys8.size(), 1));
      last_ends = false;
    }
  } else {
    // Moving backwards onto a leaf's last record (from the next leaf): the gap after it, where
    // inserts at the end of this leaf go, is inside the range read too.
    const bool last_on_leaf = heap_nos.size() == 1;
    if (!heap_nos.empty()) {
      heap_nos.resize(1);
      sys8.resize(1);
    }
    if (last_on_leaf && lock_type == RecLockType::kOrdinary) heap_nos.push_back(kSupremumHeapNo);
  }
  if (heap_nos.empty()) {
    // READ COMMITTED, standing on the record that ends the range: nothing to lock.
    locked_copy = cursor->leaf_copies();
    return true;
  }
  Result<bool> current = cursor->WithLeafLatched([&] { return LockBatchLatched(page, last_ends); });
  if (current.ok() && *current) {
    locked_copy = cursor->leaf_copies();
    skip_current = !skipped.empty() && skipped.front() == heap_nos.front();
    semi_current = semi_conflict;
    if (!semi_conflict) relock_current = false;
    batch_copy = locked_copy;
    batch_slot = cursor->slot();
    if (!created_before_wait.empty()) ApplyCreatedBeforeWait(cursor->leaf(), batch_slot);
    return true;
  }
  if (!current.ok() && current.status().code() != Code::kLockWait) return current.status();
  reseek_key.assign(AsStringView(cur.key));
  if (!current.ok()) {
    if (releases_rows) RememberCreatedBeforeWait(cursor->leaf(), cursor->slot());
    RETURN_IF_ERROR(txn->WaitForLock());
  }
  // The leaf changed since the copy (or while we waited): copy it again around the same key.
  RETURN_IF_ERROR(forward ? cursor->Seek(AsBytes(reseek_key))
                          : cursor->SeekForPrev(AsBytes(reseek_key)));
  return false;
}

Status TxnIterator::LockEdgeAt(std::string_view key, bool gap) {
  // No record can equal an oversize key; its prefix finds the same edge for the backward
  // fallback (no record <= key, so none <= the prefix). A forward seek past such a key may
  // leave the end gap of its leaf open (keys are at most kMaxKeySize: no real scan does this).
  if (key.size() > kMaxKeySize) {
    if (!gap) return Status::OK();
    key = key.substr(0, kMaxKeySize);
  }
  const TrxLockMode m = mode == LockMode::kExclusive ? TrxLockMode::kX : TrxLockMode::kS;
  for (;;) {
    Result<bool> r = ks->tree->ReadLatched(AsBytes(key), nullptr, [&](const LatchedRead& lr) {
      if (!gap && lr.where.heap_no != kSupremumHeapNo) return Status::OK();
      // GAP locks and locks on the supremum never wait (lock/lock_mode.h rule 2).
      return txn->services()->lock_sys->LockRecord(
          txn->locks(), LockRecordId(lr.where), m,
          gap ? RecLockType::kGap : RecLockType::kOrdinary);
    });
    if (r.ok()) return Status::OK();
    if (r.status().code() != Code::kLockWait) return r.status();
    RETURN_IF_ERROR(txn->WaitForLock());
  }
}

Result<bool> TxnIterator::LockGapAfterCurrent() {
  cursor->RemainingHeapNos(&heap_nos, &sys8);
  const RecordId after{cursor->location().page_no,
                       heap_nos.size() > 1 ? heap_nos[1] : kSupremumHeapNo};
  const TrxLockMode m = mode == LockMode::kExclusive ? TrxLockMode::kX : TrxLockMode::kS;
  Result<bool> locked = cursor->WithLeafLatched([&] {
    return txn->services()->lock_sys->LockRecord(txn->locks(), after, m, RecLockType::kGap);
  });
  if (locked.ok() || locked.status().code() != Code::kLockWait) return locked;
  RETURN_IF_ERROR(txn->WaitForLock());
  return false;
}

Status TxnIterator::SeekBackward(const std::function<Status()>& seek,
                                 std::string_view fallback_key) {
  for (;;) {
    RETURN_IF_ERROR(seek());
    if (cursor->current() == nullptr) return LockEdgeAt(fallback_key, /*gap=*/true);
    ASSIGN_OR_RETURN(bool locked, LockGapAfterCurrent());
    if (locked) return Status::OK();
  }
}

Result<bool> TxnIterator::ReadLatest(std::array<std::byte, kSysFieldsSize>* sys,
                                     bool* delete_marked) {
  sys->fill(std::byte{0});
  return ks->tree->ReadLatched(AsBytes(key), &version, [&](const LatchedRead& lr) {
    std::copy_n(lr.sys.begin(), std::min(lr.sys.size(), kSysFieldsSize), sys->begin());
    *delete_marked = lr.delete_marked;
    return Status::OK();
  });
}

Result<std::string_view> TxnIterator::OverflowValue() {
  std::array<std::byte, kSysFieldsSize> now{};
  bool marked = false;
  ASSIGN_OR_RETURN(bool found, ReadLatest(&now, &marked));
  if (found && now == overflow_sys) return std::string_view(version);  // the copy's version
  // Changed since the copy. A locking read holds the record's lock (only this transaction
  // could have changed it) and READ UNCOMMITTED reads the latest: both show it as it is now.
  if (view == nullptr || locking) {
    if (!found || marked) return Status::NotFound("the row was deleted while it was read");
    return std::string_view(version);
  }
  // The copy's version was the one the view sees, so its undo is kept while the view is open
  // and the chain from the record as it is now leads back to it.
  if (!found) return Status::Internal("a row the read view sees was removed");
  ASSIGN_OR_RETURN(bool visible, txn->BuildVisible(*view, ks, key, now, marked, &version));
  if (!visible) return Status::Internal("a row the read view sees is no longer visible to it");
  return std::string_view(version);
}

Result<bool> TxnIterator::CacheVersionSeenBy(const ReadView& seer, const RecordView& rec) {
  ConstBytes sys = rec.sys;
  bool delete_marked = rec.delete_marked();
  std::array<std::byte, kSysFieldsSize> now{};
  if (rec.overflow()) {
    // The leaf copy lacks the value: start from the record as it is now (it may have changed
    // or gone since the copy; BuildVisible walks back from whatever it is).
    key = AsStringView(rec.key);
    ASSIGN_OR_RETURN(bool found, ReadLatest(&now, &delete_marked));
    if (!found) return false;  // removed (purged or rolled back): invisible to every view
    sys = ConstBytes(now.data(), now.size());
  } else {
    version.assign(AsStringView(rec.value));
  }
  ASSIGN_OR_RETURN(bool visible, txn->BuildVisible(seer, ks, AsStringView(rec.key), sys,
                                                   delete_marked, &version));
  if (!visible) return false;
  key = AsStringView(rec.key);
  overflow = false;
  value = version;
  return true;
}

Result<bool> TxnIterator::CacheLatestCommitted(const RecordView& rec) {
  ReadView latest;  // sees every transaction that has committed
  txn->OpenStatementView(&latest);
  Result<bool> visible = CacheVersionSeenBy(latest, rec);
  txn->services()->trx_sys->CloseView(&latest);
  return visible;
}

Status TxnIterator::ReleaseCurrentIfNew() {
  const RecordView& rec = *cursor->current();
  // A record this transaction changed keeps its lock (InnoDB's row_unlock_for_mysql).
  if (SysTrxId(rec.sys.data()) == txn->id()) return Status::OK();
  // The current record is in the last batch (a record is locked before it is shown): forward
  // batches begin at the slot they were taken at, backward ones are that one record.
  const int slot = cursor->slot();
  if (cursor->leaf_copies() != batch_copy || slot < batch_slot) return Status::OK();
  const size_t i = static_cast<size_t>(slot - batch_slot);
  const RecordLocation where = cursor->location();
  if (i >= batch_heap_nos.size() || batch_held[i] != 0 || batch_heap_nos[i] != where.heap_no) {
    return Status::OK();
  }
  batch_held[i] = 1;  // released once
  LockSys* lock_sys = txn->services()->lock_sys;
  const TrxLockMode m = RecordMode();
  ASSIGN_OR_RETURN(bool done, cursor->WithLeafLatched([&] {
    lock_sys->ReleaseRecord(txn->locks(), LockRecordId(where), m);
    return Status::OK();
  }));
  if (done) return Status::OK();
  // The leaf changed since the copy (the record may have moved): find it by its key.
  return txn->UnlockByKey(ks, AsStringView(rec.key), m);
}

void TxnIterator::RememberCreatedBeforeWait(const LeafImage& leaf, int from) {
  RecordView rec;
  const size_t n = std::min({wait_granted, batch_held.size(), batch_heap_nos.size()});
  for (size_t i = 0; i < n; ++i) {
    if (batch_held[i] != 0 || batch_heap_nos[i] == kSupremumHeapNo) continue;
    if (!leaf.Decode(from + static_cast<int>(i), &rec)) break;  // the move onto it reports it
    created_before_wait.emplace_back(AsStringView(rec.key));
  }
  // A batch may wait more than once before it is granted whole.
  std::sort(created_before_wait.begin(), created_before_wait.end());
  created_before_wait.erase(std::unique(created_before_wait.begin(), created_before_wait.end()),
                            created_before_wait.end());
}

void TxnIterator::ApplyCreatedBeforeWait(const LeafImage& leaf, int from) {
  RecordView rec;
  std::string_view last;
  auto k = created_before_wait.begin();
  for (size_t i = 0; i < batch_heap_nos.size() && i < batch_held.size(); ++i) {
    if (batch_heap_nos[i] == kSupremumHeapNo) break;
    if (!leaf.Decode(from + static_cast<int>(i), &rec)) break;
    last = AsStringView(rec.key);
    while (k != created_before_wait.end() && *k < last) ++k;
    if (k != created_before_wait.end() && *k == last) batch_held[i] = 0;
  }
  // Keys up to the batch's last record are settled (locked again, or gone meanwhile).
  created_before_wait.erase(
      created_before_wait.begin(),
      std::upper_bound(created_before_wait.begin(), created_before_wait.end(), last,
                       [](std::string_view a, const std::string& b) { return a < b; }));
}

Status TxnIterator::UnlockCurrent() {
  if (!valid || !Usable()) [[unlikely]]
    return MisuseError("UnlockCurrent");
  if (!releases_rows || semi_current) return Status::OK();
  return ReleaseCurrentIfNew();
}

Status TxnIterator::LockCurrent() {
  if (!valid || !Usable()) [[unlikely]]
    return MisuseError("LockCurrent");
  if (!semi_current) return Status::OK();
  reseek_key.assign(key);
  semi_current = false;
  relock_current = true;
  locked_copy = ~uint64_t{0};
  Status st = Settled(cursor->Seek(AsBytes(reseek_key)), true);
  relock_current = false;
  return st;
}

Status TxnIterator::Settle(bool forward) {
  semi_current = false;
  for (;;) {
    const RecordView* rec = cursor->current();
    valid = rec != nullptr;
    if (!valid) return Status::OK();
    if (CacheIfLatest(*rec)) [[likely]]
      return Status::OK();
    // Forward at or past the upper bound: the range ends here (once the record is locked).
    const bool past_end = forward && PastBound(*rec);
    bool show = false;
    if (locking) {
      if (cursor->leaf_copies() != locked_copy || !forward) {
        Result<bool> locked = LockFromCurrent(forward);
        if (!locked.ok()) {
          valid = false;
          return locked.status();
        }
        if (!*locked) continue;  // re-seeked: look at the current record again
        // Backwards, and NOWAIT / SKIP LOCKED: lock each record.
        if (!forward || PerRecord()) locked_copy = ~uint64_t{0};
      }
      // Locked (by us, so the copy's hidden fields are the record's): snapshot isolation's check.
      const ReadView* snapshot = txn->snapshot_view();
      if (snapshot != nullptr && !skip_current && !(past_end && end_type == RecLockType::kGap) &&
          !snapshot->Sees(SysTrxId(rec->sys.data()))) {
        valid = false;
        return txn->RollBackChanged(txn->RecordChanged(*ks));
      }
      if (past_end) {
        valid = false;
        return Status::OK();
      }
      if (skip_current) {
        skip_current = false;  // SKIP LOCKED: not shown
      } else if (semi_current) {
        // Another transaction holds it: its latest committed version, if any, unlocked.
        Result<bool> committed = CacheLatestCommitted(*rec);
        if (!committed.ok()) {
          valid = false;
          return committed.status();
        }
        show = *committed;
        if (!show) semi_current = false;
      } else if (!rec->delete_marked()) {
        CacheRow(*rec);
        show = true;
      } else if (releases_rows) {
        // READ COMMITTED: no gap locks, so a delete-marked record needs none (InnoDB's
        // row_search_mvcc releases it).
        Status released = ReleaseCurrentIfNew();
        if (!released.ok()) {
          valid = false;
          return released;
        }
      }
    } else if (past_end) {
      valid = false;
      return Status::OK();
    } else if (view != nullptr) {
      // Too new for the view, or deleted (but perhaps not in the view's version).
      Result<bool> older = CacheOlderVersion(*rec);
      if (!older.ok()) {
        valid = false;
        return older.status();
      }
      show = *older;
    }
    if (show) return Status::OK();
    Status st = forward ? cursor->Next() : cursor->Prev();
    if (!st.ok()) {
      valid = false;
      return st;
    }
  }
}

Status TxnIterator::Seek(std::string_view key) {
  RETURN_IF_ERROR(CheckUsable());
  if (LocksEdges()) RETURN_IF_ERROR(LockEdgeAt(key, /*gap=*/false));
  return Settled(cursor->Seek(AsBytes(key)), true);
}

Status TxnIterator::SeekForPrev(std::string_view key) {
  RETURN_IF_ERROR(CheckUsable());
  if (bounded) return BoundedBackward("SeekForPrev");
  if (LocksEdges()) {
    return Settled(SeekBackward([&] { return cursor->SeekForPrev(AsBytes(key)); }, key), false);
  }
  return Settled(cursor->SeekForPrev(AsBytes(key)), false);
}

Status TxnIterator::SeekToFirst() {
  RETURN_IF_ERROR(CheckUsable());
  Status st = cursor->SeekToFirst();
  // Nothing at all: the keyspace is empty; lock the gap an insert would go into. (Otherwise
  // the first record's next-key lock covers the gap before it.)
  if (st.ok() && cursor->current() == nullptr && LocksEdges()) {
    st = LockEdgeAt("", /*gap=*/false);
  }
  return Settled(st, true);
}

Status TxnIterator::SeekToLast() {
  RETURN_IF_ERROR(CheckUsable());
  if (bounded) return BoundedBackward("SeekToLast");

  if (LocksEdges()) {
    return Settled(SeekBackward([&] { return cursor->SeekToLast(); }, ""), false);
  }
  return Settled(cursor->SeekToLast(), false);
}

}  // namespace minnow
