#include <fmt/format.h>

#include "engine/iterator_internal.h"

namespace minnow {

Status Iterator::Impl::CheckUsable() const {
  RETURN_IF_ERROR(txn->CheckOpen());
  if (ks->dropped.load(std::memory_order_acquire)) {
    return Status::InvalidArgument(fmt::format("keyspace '{}' was dropped", ks->name));
  }
  return Status::OK();
}

Status Iterator::Impl::MisuseError(const char* what) const {
  RETURN_IF_ERROR(CheckUsable());
  return Status::InvalidArgument(
      fmt::format("Iterator::{} on an iterator that is not Valid()", what));
}

Iterator::Impl::Impl(TransactionCore* t, KeyspaceState* k, LockMode m)
    : txn(t),
      ks(k),
      cursor(k->tree->NewCursor()),
      mode(t->EffectiveMode(m)),
      locking(mode != LockMode::kNone) {
  if (locking) {
    lock_type = t->ScanLockType();
  } else if (t->isolation() == IsolationLevel::kReadCommitted) {
    t->OpenStatementView(&statement_view);
    view = &statement_view;
  } else {
    view = t->TransactionView();
  }
}

Iterator::Impl::~Impl() {
  if (statement_view.open() && !txn->db()->closed()) {
    txn->db()->trx_sys()->CloseView(&statement_view);
  }
}

Result<bool> Iterator::Impl::LockFromCurrent(bool forward) {
  const RecordView& cur = *cursor->current();
  const PageNo page = cursor->location().page_no;
  batch.clear();
  if (forward) {
    cursor->RemainingRecords(&batch);
  } else {
    batch.push_back(cur);
  }
  heap_nos.clear();
  for (const RecordView& r : batch) heap_nos.push_back(r.heap_no);
  // Next-key locking also locks the gap after the leaf's last record (InnoDB's scans lock
  // every page's supremum).
  if (forward && lock_type == RecLockType::kOrdinary) heap_nos.push_back(kSupremumHeapNo);
  const TrxLockMode m = mode == LockMode::kExclusive ? TrxLockMode::kX : TrxLockMode::kS;
  size_t granted = 0;
  Result<bool> current = cursor->WithLeafLatched([&] {
    for (const RecordView& r : batch)
      txn->ConvertImplicit(SysTrxId(r.sys.data()), {page, r.heap_no});
    return txn->db()->lock_sys()->LockRecords(txn->locks(), page, heap_nos, m, lock_type, &granted);
  });
  if (current.ok() && *current) {
    locked_copy = cursor->leaf_copies();
    return true;
  }
  if (!current.ok() && current.status().code() != Code::kLockWait) return current.status();
  reseek_key.assign(AsStringView(cur.key));
  if (!current.ok()) RETURN_IF_ERROR(txn->WaitForLock());
  // The leaf changed since the copy (or while we waited): copy it again around the same key.
  RETURN_IF_ERROR(forward ? cursor->Seek(AsBytes(reseek_key))
                          : cursor->SeekForPrev(AsBytes(reseek_key)));
  return false;
}

Result<bool> Iterator::Impl::CacheOlderVersion(const RecordView& rec) {
  if (rec.overflow()) {
    ASSIGN_OR_RETURN(ConstBytes v, cursor->value());
    version.assign(AsStringView(v));
  } else {
    version.assign(AsStringView(rec.value));
  }
  ASSIGN_OR_RETURN(bool visible, txn->BuildVisible(*view, ks, AsStringView(rec.key), rec.sys,
                                                   rec.delete_marked(), &version));
  if (!visible) return false;
  key = AsStringView(rec.key);
  overflow = false;
  value = version;
  return true;
}

Status Iterator::Impl::Settle(bool forward) {
  for (;;) {
    const RecordView* rec = cursor->current();
    valid = rec != nullptr;
    if (!valid) return Status::OK();
    if (CacheIfLatest(*rec)) [[likely]]
      return Status::OK();
    bool show = false;
    if (locking) {
      if (cursor->leaf_copies() != locked_copy || !forward) {
        Result<bool> locked = LockFromCurrent(forward);
        if (!locked.ok()) {
          valid = false;
          return locked.status();
        }
        if (!*locked) continue;                    // re-seeked: look at the current record again
        if (!forward) locked_copy = ~uint64_t{0};  // backwards: lock each record
      }
      if (!rec->delete_marked()) {
        CacheRow(*rec);
        show = true;
      }
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

Iterator::Iterator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Iterator::~Iterator() = default;

Status Iterator::Seek(std::string_view key) {
  RETURN_IF_ERROR(impl_->CheckUsable());
  return impl_->Settled(impl_->cursor->Seek(AsBytes(key)), true);
}

Status Iterator::SeekForPrev(std::string_view key) {
  RETURN_IF_ERROR(impl_->CheckUsable());
  return impl_->Settled(impl_->cursor->SeekForPrev(AsBytes(key)), false);
}

Status Iterator::SeekToFirst() {
  RETURN_IF_ERROR(impl_->CheckUsable());
  return impl_->Settled(impl_->cursor->SeekToFirst(), true);
}

Status Iterator::SeekToLast() {
  RETURN_IF_ERROR(impl_->CheckUsable());
  return impl_->Settled(impl_->cursor->SeekToLast(), false);
}

Status Iterator::Next() {
  Impl& i = *impl_;
  if (!i.valid || !i.Usable()) [[unlikely]]
    return i.MisuseError("Next");
  if (i.cursor->NextInLeaf()) [[likely]] {
    // The scan's fast path: the next record of the same leaf is the version to show (visible,
    // or already locked with its leaf): cached without a Status per step.
    if (i.CacheIfLatest(*i.cursor->current())) [[likely]]
      return Status::OK();
    return i.Settle(true);
  }
  return i.Settled(i.cursor->Next(), true);
}

Status Iterator::Prev() {
  Impl& i = *impl_;
  if (!i.valid || !i.Usable()) [[unlikely]]
    return i.MisuseError("Prev");
  return i.Settled(i.cursor->Prev(), false);
}

bool Iterator::Valid() const { return impl_->valid && impl_->txn->active(); }

std::string_view Iterator::key() const { return impl_->valid ? impl_->key : std::string_view(); }

Result<std::string_view> Iterator::value() {
  Impl& i = *impl_;
  if (!i.valid || !i.Usable()) [[unlikely]]
    return i.MisuseError("value");
  if (!i.overflow) [[likely]]
    return i.value;
  ASSIGN_OR_RETURN(ConstBytes v, i.cursor->value());
  return AsStringView(v);
}

}  // namespace minnow
