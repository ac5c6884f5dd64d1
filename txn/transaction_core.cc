// TransactionCore's life: ids and lock state on first need, commit, rollback, and undo.
#include "txn/transaction_core.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/crash_point.h"

namespace minnow {

static_assert(kMaxKeyBytes == kMaxKeySize && kMaxValueBytes == kMaxValueSize);
static_assert(kSysBytes == kSysFieldsSize);

Status KeyTooLong(size_t size) {
  return Status::InvalidArgument(
      fmt::format("key of {} bytes is longer than the limit of {}", size, kMaxKeySize));
}
Status ValueTooLong(size_t size) {
  return Status::InvalidArgument(
      fmt::format("value of {} bytes is longer than the limit of {}", size, kMaxValueSize));
}

TransactionCore::TransactionCore(TxnServices* services, const TransactionOptions& options)
    : svc_(services), options_(options), mdl_(services->mdl) {}

TransactionCore::~TransactionCore() {
  if (state_ == State::kActive && !svc_->is_closed()) (void)Rollback();
}

Status TransactionCore::ClosedStatus() const {
  if (svc_->is_closed()) return Status::Closed("the database is closed");
  if (!end_reason_.empty()) return Status::Closed(end_reason_);
  return Status::Closed(state_ == State::kCommitted ? "the transaction has committed"
                                                    : "the transaction has rolled back");
}

TransactionLockInfo TransactionCore::lock_info() const {
  TransactionLockInfo info;
  info.trx_id = id_;
  if (locks_ != nullptr) {
    TrxLockStats s = locks_->stats();
    info.lock_structs = s.structs;
    info.heap_bytes = s.heap_bytes;
    info.row_locks = s.row_locks;
  }
  return info;
}

bool TransactionCore::Describe(TransactionInfo* out) const {
  if (!published_.load(std::memory_order_acquire)) return false;
  out->trx_id = id_;
  out->active_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  out->isolation = options_.isolation;
  out->rows_modified = rows_modified_.load(std::memory_order_relaxed);
  TrxLockStats s = locks_->stats();
  out->locks = TransactionLockInfo{.trx_id = id_,
                                   .lock_structs = s.structs,
                                   .heap_bytes = s.heap_bytes,
                                   .row_locks = s.row_locks};
  LockRow wait;
  out->lock_wait = locks_->waiting(&wait, &out->wait_started);
  if (out->lock_wait) {
    out->waiting_for.trx_id = id_;
    out->waiting_for.is_table = wait.is_table;
    out->waiting_for.waiting = true;
    out->waiting_for.page_no = wait.rec.page_no;
    out->waiting_for.heap_no = wait.rec.heap_no;
    out->waiting_for.lock_mode =
        wait.is_table ? LockModeName(wait.mode) : LockModeName(wait.mode, wait.type);
  }
  return true;
}

Status TransactionCore::EnsureId() {
  if (id_ != 0) [[likely]]
    return Status::OK();
  RETURN_IF_ERROR(svc_->WritableStatus());
  ASSIGN_OR_RETURN(TrxSys::Active active, svc_->trx_sys->Begin(this));
  const TrxId id = active.id;
  trx_sys_shard_ = active.shard;
  // Nothing carries the id yet, so no one looks for our lock state before it exists.
  {
    LatchGuard guard(interrupt_latch_);
    locks_ = svc_->lock_sys->Register(id, mdl_.owner_id());
    if (interrupted_) svc_->lock_sys->SetInterrupted(locks_.get(), true);
  }
  undo_ = svc_->undo_store->NewTrxUndo(id);
  id_ = id;
  public_id_.store(id, std::memory_order_release);
  started_ = std::chrono::steady_clock::now();
  published_.store(true, std::memory_order_release);
  if (view_.open()) view_.set_creator_id(id);
  return Status::OK();
}

Status TransactionCore::EnsureTableLock(KeyspaceState* ks, TrxLockMode mode) {
  const uint32_t table = ks->table_id;  // a secondary index's is its owner's: one per table
  for (auto& [held_table, held] : table_locks_) {
    if (held_table == table && TableLockCovers(held, mode)) [[likely]]
      return Status::OK();
  }
  for (;;) {
    Status st = svc_->lock_sys->LockTable(locks_.get(), table, mode);
    if (st.code() == Code::kLockWait) st = WaitForLock();
    if (!st.ok()) return st;
    break;
  }
  auto it = std::find_if(table_locks_.begin(), table_locks_.end(),
                         [&](const auto& e) { return e.first == table; });
  if (it == table_locks_.end()) {
    table_locks_.emplace_back(table, mode);
  } else if (TableLockCovers(mode, it->second)) {
    it->second = mode;
  }
  return Status::OK();
}

Status TransactionCore::LockTable(KeyspaceState* ks, LockMode mode) {
  RETURN_IF_ERROR(CheckOpen());
  if (mode == LockMode::kNone) {
    return Status::InvalidArgument("a table lock must be kShare or kExclusive");
  }
  RETURN_IF_ERROR(EnsureId());
  return EnsureTableLock(ks, mode == LockMode::kExclusive ? TrxLockMode::kX : TrxLockMode::kS);
}

void TransactionCore::SetInterrupted(bool interrupted) {
  LatchGuard guard(interrupt_latch_);
  interrupted_ = interrupted;
  if (locks_ != nullptr) svc_->lock_sys->SetInterrupted(locks_.get(), interrupted);
  mdl_.SetInterrupted(interrupted);
}

Status TransactionCore::LockMetadata(std::string_view name, LockMode mode, MdlLabel label) {
  RETURN_IF_ERROR(CheckOpen());
  if (mode == LockMode::kNone) {
    return Status::InvalidArgument("a metadata lock must be kShare or kExclusive");
  }
  if (name.empty()) return Status::InvalidArgument("a metadata lock needs a name");
  const std::chrono::milliseconds timeout =
      options_.metadata_lock_wait_timeout_ms != 0
          ? std::chrono::milliseconds(options_.metadata_lock_wait_timeout_ms)
          : svc_->metadata_lock_wait_timeout;
  // The deadlock victim weight, should this wait close a cycle (as WaitForLock).
  if (locks_ != nullptr) locks_->set_weight(rows_modified_.load(std::memory_order_relaxed));
  Status st = mdl_.Acquire(
      name, mode == LockMode::kExclusive ? MdlMode::kExclusive : MdlMode::kShared, timeout, label);
  if (st.code() == Code::kDeadlock) return RollBackAsVictim(st);
  if (st.code() == Code::kLockWaitTimeout) {
    return Status(Code::kLockWaitTimeout,
                  "Lock wait timeout exceeded; try restarting transaction (waiting for the "
                  "metadata lock on '" +
                      std::string(name) + "'; the transaction is still active)");
  }
  return st;
}

Status TransactionCore::PrepareLocking(KeyspaceState* ks, LockMode mode) {
  RETURN_IF_ERROR(EnsureId());
  RETURN_IF_ERROR(svc_->LogFreeCheck());
  // SERIALIZABLE's reads are locking reads, so nothing else would open the view the locks are
  // checked against: its first read or write does (an autocommit statement's stays unchecked).
  if (options_.snapshot_isolation && options_.isolation == IsolationLevel::kSerializable &&
      !options_.autocommit && !view_.open()) {
    (void)TransactionView();
  }
  return EnsureTableLock(ks, mode == LockMode::kExclusive ? TrxLockMode::kIX : TrxLockMode::kIS);
}

RecLockType TransactionCore::ScanLockType() const {
  return options_.isolation >= IsolationLevel::kRepeatableRead ? RecLockType::kOrdinary
                                                               : RecLockType::kRecNotGap;
}

void TransactionCore::ConvertImplicit(TrxId writer, RecordId rec) {
  if (writer == id_ || !svc_->trx_sys->MaybeActive(writer)) [[likely]]
    return;
  svc_->trx_sys->WithActive(writer, [&](void* owner) {
    svc_->lock_sys->ConvertImplicit(static_cast<TransactionCore*>(owner)->locks(), rec);
  });
}

Status TransactionCore::WaitForLock() {
  // InnoDB's weight counts undo_no: clustered changes only, as rows_modified_ does.
  locks_->set_weight(rows_modified_.load(std::memory_order_relaxed));
  const std::chrono::milliseconds timeout =
      options_.lock_wait_timeout_ms != 0 ? std::chrono::milliseconds(options_.lock_wait_timeout_ms)
                                         : svc_->lock_wait_timeout;
  Status st = svc_->lock_sys->Wait(locks_.get(), timeout);
  if (st.ok()) return st;
  if (st.code() == Code::kDeadlock) return RollBackAsVictim(st);
  if (st.code() == Code::kLockWaitTimeout) {
    return Status(Code::kLockWaitTimeout,
                  "Lock wait timeout exceeded; try restarting transaction (the statement was "
                  "rolled back, the transaction is still active)");
  }
  return st;
}

Status TransactionCore::RollBackAsVictim(const Status& why) {
  Status st = RollBackAll();
  end_reason_ = "the transaction was rolled back as a deadlock victim";
  std::string msg =
      "Deadlock found when trying to get lock; try restarting transaction (" + why.message() + ")";
  if (!st.ok()) msg += "; rolling back failed: " + st.ToString();
  return Status(Code::kDeadlock, msg);
}

Status TransactionCore::RecordChanged(const KeyspaceState& ks) const {
  // A secondary index's row is its table's (the SQL front names the table itself).
  const KeyspaceState* table = ks.secondary() ? svc_->keyspaces->Find(ks.table_id) : &ks;
  return Status(Code::kRecordChanged,
                fmt::format("Record has changed since last read in table '{}'",
                            table != nullptr ? table->name : ks.name));
}

Status TransactionCore::RollBackChanged(const Status& why) {
  Status st = RollBackAll();
  end_reason_ =
      "the transaction was rolled back: a record it locked had changed since its read view";
  if (!st.ok())
    return Status(why.code(), why.message() + "; rolling back failed: " + st.ToString());
  return why;
}

const ReadView* TransactionCore::TransactionView() {
  if (options_.isolation == IsolationLevel::kReadUncommitted) return nullptr;
  if (!view_.open()) svc_->trx_sys->OpenView(&view_, id_);
  return &view_;
}

void TransactionCore::OpenStatementView(ReadView* view) { svc_->trx_sys->OpenView(view, id_); }

Result<bool> TransactionCore::BuildVisible(const ReadView& view, KeyspaceState* ks,
                                           std::string_view key, ConstBytes sys, bool delete_marked,
                                           std::string* value) {
  std::array<std::byte, kSysFieldsSize> latest{};
  std::copy(sys.begin(), sys.end(), latest.begin());
  for (int attempt = 0;; ++attempt) {
    TrxId trx_id = SysTrxId(latest.data());
    RollPtr roll_ptr = SysRollPtr(latest.data());
    if (view.Sees(trx_id)) return !delete_marked;
    // An insert (or a record with no undo: a bulk build, a recovered rollback) has no older
    // version: the view does not see the record at all.
    if (roll_ptr == 0 || RollPtrIsInsert(roll_ptr)) return false;
    UndoRecord r;
    Status read = svc_->undo_store->Read(roll_ptr, &undo_buf_, &r);
    // The latest version may come from a copy of the leaf taken before its writer rolled back
    // and freed that undo. A rollback restores the record before it frees the undo, so if the
    // record is unchanged now, what we read was still there (InnoDB holds the leaf latch
    // instead). Otherwise start again from the record as it is now.
    std::array<std::byte, kSysFieldsSize> now{};
    bool marked = false;
    ASSIGN_OR_RETURN(bool found,
                     ks->tree->ReadLatched(AsBytes(key), &current_, [&](const LatchedRead& lr) {
                       std::copy(lr.sys.begin(), lr.sys.end(), now.begin());
                       marked = lr.delete_marked;
                       return Status::OK();
                     }));
    if (!found) return false;  // removed (purged or rolled back): invisible to every view
    if (now != latest) {
      if (attempt > 1000) return Status::Busy("a record kept changing while reading it");
      latest = now;
      value->swap(current_);
      delete_marked = marked;
      continue;
    }
    RETURN_IF_ERROR(read);
    // From here on the chain runs through committed transactions' undo, which purge keeps
    // while this view is open.
    for (;;) {
      trx_id = r.old_trx_id;
      roll_ptr = r.old_roll_ptr;
      delete_marked = r.old_delete_marked;
      value->assign(reinterpret_cast<const char*>(r.old_value.data()), r.old_value.size());
      if (view.Sees(trx_id)) return !delete_marked;
      if (roll_ptr == 0 || RollPtrIsInsert(roll_ptr)) return false;
      RETURN_IF_ERROR(svc_->undo_store->Read(roll_ptr, &undo_buf_, &r));
    }
  }
}

Status TransactionCore::UndoTo(uint64_t savepoint) {
  if (undo_ == nullptr) return Status::OK();
  return RollBackUndo(*svc_->keyspaces, undo_.get(), savepoint, /*recovering=*/false);
}

Status TransactionCore::RollbackToSavepoint(uint64_t savepoint) {
  RETURN_IF_ERROR(CheckOpen());
  const uint64_t now = this->savepoint();
  if (savepoint > now) {
    return Status::InvalidArgument(
        fmt::format("savepoint {} is beyond the transaction's last change ({})", savepoint, now));
  }
  Status st = UndoTo(savepoint);
  if (!st.ok()) {
    return Status(st.code(), "rolling back to the savepoint failed: " + st.message());
  }
  return Status::OK();
}

void TransactionCore::End(State final_state) {
  state_ = final_state;
  if (view_.open()) svc_->trx_sys->CloseView(&view_);
  if (id_ != 0) {
    // Out of the active set first: nobody converts an implicit lock of ours once we release.
    svc_->trx_sys->Remove({id_, trx_sys_shard_});
    svc_->lock_sys->ReleaseAll(locks_.get());
    // A finished transaction keeps nothing of the lock system or the undo store (its handle
    // may outlive them).
    published_.store(false, std::memory_order_relaxed);
    std::unique_ptr<TrxLocks> ended;
    {
      LatchGuard guard(interrupt_latch_);
      ended = std::move(locks_);
    }
    ended.reset();
    undo_.reset();
  }
  table_locks_.clear();
  mdl_.ReleaseAll();
}

Status TransactionCore::Commit() {
  RETURN_IF_ERROR(CheckOpen());
  if (id_ == 0 || undo_->empty()) {  // read-only (perhaps with locks): nothing to make durable
    Status st = svc_->FailureStatus();
    End(st.ok() ? State::kCommitted : State::kRolledBack);
    if (!st.ok()) {
      svc_->counters.CountRollback();
      return st;  // after an I/O failure nothing commits
    }
    svc_->counters.CountCommit();
    return Status::OK();
  }
  Status st = svc_->WritableStatus();
  MINNOW_CRASH_POINT("txn.before_commit");
  Lsn commit_end = 0;
  const bool wakes_purge = undo_->has_update_log();  // its update undo joins the history
  if (st.ok()) {
    const TrxId trx_no = svc_->trx_sys->AssignTrxNo({id_, trx_sys_shard_});
    Result<Lsn> end = undo_->Commit(trx_no);  // the commit mini-transaction
    if (end.ok()) {
      commit_end = *end;
    } else {
      st = end.status();
    }
  }
  MINNOW_CRASH_POINT("txn.after_commit_record");
  if (!st.ok()) {
    (void)RollBackAll();
    return Status(st.code(), "commit failed, the transaction is rolled back: " + st.message());
  }
  // Others may go on (our locks are released) while we wait for the fsync: their commits come
  // after ours in the log, so none becomes durable before ours.
  End(State::kCommitted);
  if (wakes_purge) svc_->WakePurge();
  DurableRedoLog* log = svc_->log;
  if (log != nullptr) {
    if (commit_end == 0) {
      // The log refused the commit mini-transaction (it failed earlier): nothing was logged.
      st = log->failed_status();
      if (st.ok()) st = Status::IOError("the redo log refused the commit record");
    } else {
      st = log->CommitUpTo(commit_end, svc_->flush_policy);
    }
    if (!st.ok()) {
      // The commit record may be lost: as far as anyone can know, the commit did not happen.
      state_ = State::kRolledBack;
      svc_->counters.CountRollback();
      return Status(st.code(), "commit failed, the transaction is not committed: " + st.message());
    }
    svc_->counters.CountDurableCommit();
  }
  svc_->counters.CountCommit();
  return Status::OK();
}

Status TransactionCore::Rollback() {
  RETURN_IF_ERROR(CheckOpen());
  Status st = RollBackAll();
  if (!st.ok()) return Status(st.code(), "rollback could not undo every change: " + st.message());
  return Status::OK();
}

void TransactionCore::RollbackForClose() {
  if (state_ == State::kActive) (void)RollBackAll();
}

Status TransactionCore::RollBackAll() {
  Status st = UndoTo(0);
  if (st.ok() && undo_ != nullptr) {
    // A failure to free the logs is harmless: recovery finds them and rolls back (nothing).
    (void)undo_->Discard();
  }
  End(State::kRolledBack);
  svc_->counters.CountRollback();
  return st;
}

}  // namespace minnow
