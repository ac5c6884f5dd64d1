// Point reads: consistent (a read view's version, built from the undo chain) or locking (the
// latest version, locked as InnoDB's unique-key lookups lock).
#include "txn/transaction_core.h"

namespace minnow {

Result<bool> TransactionCore::Get(KeyspaceState* ks, std::string_view key, std::string* value,
                                  LockMode mode, LockWait wait) {
  mode = EffectiveMode(mode);
  if (mode != LockMode::kNone) return LockingGet(ks, key, value, mode, wait);
  return ConsistentGet(ks, key, value);
}

Result<bool> TransactionCore::ConsistentGet(KeyspaceState* ks, std::string_view key,
                                            std::string* value) {
  // REPEATABLE READ's snapshot is taken at the first consistent read, whatever it finds: open
  // it before the lookup, or a first read of an absent key would leave it to a later read and
  // that one would see rows committed in between (InnoDB assigns the view before the search).
  // (READ COMMITTED opens a view per read below; READ UNCOMMITTED has none.)
  const bool read_committed = options_.isolation == IsolationLevel::kReadCommitted;
  const ReadView* view = read_committed ? nullptr : TransactionView();
  std::array<std::byte, kSysFieldsSize> sys{};
  bool delete_marked = false;
  ASSIGN_OR_RETURN(bool found,
                   ks->tree->ReadLatched(AsBytes(key), value, [&](const LatchedRead& r) {
                     if (r.found) {
                       std::copy(r.sys.begin(), r.sys.end(), sys.begin());
                       delete_marked = r.delete_marked;
                     }
                     return Status::OK();
                   }));
  if (!found) return false;
  if (read_committed) {
    ReadView statement;  // READ COMMITTED: what had committed when this read began
    OpenStatementView(&statement);
    Result<bool> visible = BuildVisible(statement, ks, key, sys, delete_marked, value);
    svc_->trx_sys->CloseView(&statement);
    return visible;
  }
  if (view == nullptr) return !delete_marked;  // READ UNCOMMITTED: the latest version
  return BuildVisible(*view, ks, key, sys, delete_marked, value);
}

Result<bool> TransactionCore::LockingGet(KeyspaceState* ks, std::string_view key,
                                         std::string* value, LockMode mode, LockWait wait) {
  RETURN_IF_ERROR(PrepareLocking(ks, mode));
  const TrxLockMode lock_mode = mode == LockMode::kExclusive ? TrxLockMode::kX : TrxLockMode::kS;
  const bool gaps = options_.isolation >= IsolationLevel::kRepeatableRead;
  const ReadView* snapshot = snapshot_view();
  for (;;) {
    // Each pass reads the record afresh: after a wait, what it locked then is what counts.
    last_get_ks_ = nullptr;
    bool visible = false;
    Result<bool> found = ks->tree->ReadLatched(AsBytes(key), value, [&](const LatchedRead& r) {
      const RecordId rec = LockRecordId(r.where);
      if (!r.found) {
        // Not there: REPEATABLE READ locks the gap it would be in, so it cannot appear.
        if (!gaps) return Status::OK();
        return svc_->lock_sys->LockRecord(locks_.get(), rec, lock_mode, RecLockType::kGap);
      }
      ConvertImplicit(SysTrxId(r.sys.data()), rec);
      // A unique lookup locks the record only; a delete-marked one under REPEATABLE READ
      // also the gap before it (InnoDB's row_search_mvcc).
      RecLockType type = gaps && r.delete_marked ? RecLockType::kOrdinary : RecLockType::kRecNotGap;
      visible = !r.delete_marked;
      if (ReleasesRejectedRows()) {
        // UnlockLastGet may release this lock later if it is new.
        std::vector<uint8_t> held;
        svc_->lock_sys->HeldAmong(locks_.get(), rec.page_no,
                                  std::span<const HeapNo>(&rec.heap_no, 1), lock_mode, type, &held);
        last_get_ks_ = held[0] != 0 ? nullptr : ks;
        last_get_key_.assign(key);
        last_get_mode_ = lock_mode;
      }
      Status locked =
          svc_->lock_sys->LockRecord(locks_.get(), rec, lock_mode, type, wait == LockWait::kWait);
      if (!locked.ok() || snapshot == nullptr || snapshot->Sees(SysTrxId(r.sys.data()))) {
        return locked;
      }
      return RecordChanged(*ks);
    });
    if (found.ok()) {
      // READ COMMITTED takes no gap locks, so a delete-marked record needs no lock: a new one
      // is released at once (InnoDB's row_search_mvcc).
      if (*found && !visible && last_get_ks_ == ks) RETURN_IF_ERROR(UnlockLastGet(ks));
      return *found && visible;
    }
    if (found.status().code() == Code::kRecordChanged) return RollBackChanged(found.status());
    // SKIP LOCKED: the record is another's; NOWAIT: kLockNoWait is the answer.
    if (found.status().code() == Code::kLockNoWait && wait == LockWait::kSkipLocked) return false;
    if (found.status().code() != Code::kLockWait) return found.status();
    RETURN_IF_ERROR(WaitForLock());  // then read again: the record may have changed
  }
}

Status TransactionCore::UnlockLastGet(KeyspaceState* ks) {
  if (last_get_ks_ != ks || ks == nullptr) return Status::OK();
  last_get_ks_ = nullptr;
  return UnlockByKey(ks, last_get_key_, last_get_mode_);
}

Status TransactionCore::UnlockByKey(KeyspaceState* ks, std::string_view key, TrxLockMode mode) {
  Result<bool> found = ks->tree->ReadLatched(AsBytes(key), nullptr, [&](const LatchedRead& r) {
    // A record this transaction changed stays locked (InnoDB's row_unlock_for_mysql).
    if (r.found && SysTrxId(r.sys.data()) != id_) {
      svc_->lock_sys->ReleaseRecord(locks_.get(), LockRecordId(r.where), mode);
    }
    return Status::OK();
  });
  return found.status();
}

}  // namespace minnow
