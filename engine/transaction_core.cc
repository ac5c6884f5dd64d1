#include <fmt/format.h>

#include <array>
#include <cstring>
#include <vector>

#include "btree/cursor.h"
#include "common/crash_point.h"
#include "engine/transaction_core_internal.h"

namespace minnow {

static_assert(kMaxKeyBytes == kMaxKeySize && kMaxValueBytes == kMaxValueSize);

namespace {

ConstBytes Sys() { return kZeroSysFields; }

// Removes every record of `tree` (the undo of a bulk build into an empty tree). Collects keys
// a batch at a time: the cursor holds no latch, so removing behind it is allowed.
Status EmptyTree(BTree* tree) {
  auto cur = tree->NewCursor();
  std::vector<std::string> batch;
  for (;;) {
    RETURN_IF_ERROR(cur->SeekToFirst());
    if (!cur->Valid()) return Status::OK();
    batch.clear();
    while (cur->Valid() && batch.size() < 4096) {
      batch.emplace_back(AsStringView(cur->key()));
      RETURN_IF_ERROR(cur->Next());
    }
    for (const std::string& k : batch) RETURN_IF_ERROR(tree->Remove(AsBytes(k)));
  }
}

}  // namespace

Status KeyTooLong(size_t size) {
  return Status::InvalidArgument(
      fmt::format("key of {} bytes is longer than the limit of {}", size, kMaxKeySize));
}
Status ValueTooLong(size_t size) {
  return Status::InvalidArgument(
      fmt::format("value of {} bytes is longer than the limit of {}", size, kMaxValueSize));
}

TransactionCore::TransactionCore(DatabaseCore* db, const TransactionOptions& options)
    : db_(db),
      options_(options),
      undo_notice_([this](WriteNotice* n) { return LogUndo(n->old); }) {}

TransactionCore::~TransactionCore() {
  if (state_ == State::kActive && !db_->closed()) (void)Rollback();
}

Status TransactionCore::ClosedStatus() const {
  if (db_->closed()) return Status::Closed("the database is closed");
  return Status::Closed(state_ == State::kCommitted ? "the transaction has committed"
                                                    : "the transaction has rolled back");
}

Status TransactionCore::AcquireToken() {
  RETURN_IF_ERROR(db_->WritableStatus());
  RETURN_IF_ERROR(db_->writer_token().Acquire(this, db_->lock_wait_timeout()));
  has_token_ = true;
  return db_->LogFreeCheck();
}

Result<bool> TransactionCore::Get(KeyspaceState* ks, std::string_view key, std::string* value) {
  bool delete_marked = false;
  ASSIGN_OR_RETURN(bool found, ks->tree->Get(AsBytes(key), value, &delete_marked));
  // TODO(#4): build the visible version instead of hiding a delete-marked record.
  return found && !delete_marked;
}

Status TransactionCore::Put(KeyspaceState* ks, std::string_view key, std::string_view value) {
  RETURN_IF_ERROR(EnsureWriter());
  bool existed = false;
  pending_ks_ = ks->id;
  pending_key_ = key;
  RETURN_IF_ERROR(
      ks->tree->Upsert(AsBytes(key), AsBytes(value), Sys(), &old_, &existed, undo_notice()));
  if (existed) {
    undo_.AddOverwritten(ks->id, key, old_.value);
  } else {
    undo_.AddInserted(ks->id, key);
  }
  return Status::OK();
}

Status TransactionCore::Insert(KeyspaceState* ks, std::string_view key, std::string_view value) {
  RETURN_IF_ERROR(EnsureWriter());
  pending_ks_ = ks->id;
  pending_key_ = key;
  Status st = ks->tree->Insert(AsBytes(key), AsBytes(value), Sys(), undo_notice());
  if (!st.ok()) [[unlikely]] {
    if (st.code() == Code::kDuplicateKey) {
      return Status::DuplicateKey(
          fmt::format("duplicate key ({} bytes) in keyspace '{}'", key.size(), ks->name));
    }
    return st;
  }
  undo_.AddInserted(ks->id, key);
  return Status::OK();
}

Status TransactionCore::Erase(KeyspaceState* ks, std::string_view key) {
  RETURN_IF_ERROR(EnsureWriter());
  pending_ks_ = ks->id;
  pending_key_ = key;
  Status st = ks->tree->Remove(AsBytes(key), &old_, undo_notice());
  if (!st.ok()) {
    if (st.IsNotFound()) {
      return Status::NotFound(
          fmt::format("key ({} bytes) not found in keyspace '{}'", key.size(), ks->name));
    }
    return st;
  }
  undo_.AddOverwritten(ks->id, key, old_.value);
  return Status::OK();
}

Status TransactionCore::BulkInsert(
    KeyspaceState* ks, const std::function<bool(std::string_view*, std::string_view*)>& next) {
  RETURN_IF_ERROR(EnsureWriter());
  const size_t savepoint = undo_.savepoint();
  // The writer token keeps other writers out, so "empty" stays true until the build is done.
  auto cur = ks->tree->NewCursor();
  Status st = cur->SeekToFirst();
  if (st.ok()) st = cur->Valid() ? InsertEach(ks, next) : BulkBuild(ks, next);
  if (!st.ok()) {
    Status undo_st = Undo(savepoint);
    if (!undo_st.ok()) {
      return Status(st.code(), st.message() + "; undoing it failed too: " + undo_st.ToString());
    }
  }
  return st;
}

namespace {

// The previous key of a sorted load, kept in a fixed buffer (the caller's views die at its next
// call): a per-row check without allocation or a Status.
class SortedCheck {
 public:
  // True if `key`/`value` fit and `key` is above the previous one; remembers `key`.
  bool Accept(std::string_view key, std::string_view value) {
    if (key.size() > kMaxKeySize || value.size() > kMaxValueSize) [[unlikely]]
      return false;
    if (len_ != kNone && !(std::string_view(prev_.data(), len_) < key)) [[unlikely]]
      return false;
    std::memcpy(prev_.data(), key.data(), key.size());
    len_ = key.size();
    return true;
  }
  // Why Accept() said no.
  static Status Why(std::string_view key, std::string_view value) {
    RETURN_IF_ERROR(CheckKeySize(key));
    RETURN_IF_ERROR(CheckValueSize(value));
    return Status::InvalidArgument("BulkInsert keys are not in strictly ascending order");
  }

 private:
  static constexpr size_t kNone = SIZE_MAX;
  std::array<char, kMaxKeySize> prev_;
  size_t len_ = kNone;
};

}  // namespace

Status TransactionCore::BulkBuild(
    KeyspaceState* ks, const std::function<bool(std::string_view*, std::string_view*)>& next) {
  RETURN_IF_ERROR(LogBulkLoaded(ks->id));
  undo_.AddBulkLoaded(ks->id);
  SortedCheck check;
  Status feed_st;
  auto feed = [&](BTree::BulkRecord* r) {
    std::string_view key, value;
    if (!next(&key, &value)) return false;
    if (!check.Accept(key, value)) [[unlikely]] {
      // Stop feeding: the build ends with what it has, and the caller's undo empties it.
      feed_st = SortedCheck::Why(key, value);
      return false;
    }
    r->key = AsBytes(key);
    r->value = AsBytes(value);
    r->sys = Sys();
    return true;
  };
  Status st = ks->tree->BulkLoad(feed, 15.0 / 16.0);
  return st.ok() ? feed_st : st;
}

Status TransactionCore::InsertEach(
    KeyspaceState* ks, const std::function<bool(std::string_view*, std::string_view*)>& next) {
  SortedCheck check;
  std::string_view key, value;
  while (next(&key, &value)) {
    if (!check.Accept(key, value)) [[unlikely]]
      return SortedCheck::Why(key, value);
    RETURN_IF_ERROR(Insert(ks, key, value));
  }
  return Status::OK();
}

Status ApplyUndo(DatabaseCore* db, UndoLog* undo, size_t savepoint, bool recovering) {
  return undo->UnwindTo(savepoint, [db, recovering](const UndoLog::Entry& e) -> Status {
    if (recovering) MINNOW_CRASH_POINT("recovery.rollback");
    KeyspaceState* ks = db->FindLive(e.keyspace_id);
    if (ks == nullptr) return Status::OK();  // dropped meanwhile: nothing left to restore
    switch (e.kind) {
      case UndoLog::Kind::kInserted: {
        // Recovery may undo an insert that never reached the page, or that it undid already.
        Status st = ks->tree->Remove(AsBytes(e.key));
        return st.IsNotFound() && recovering ? Status::OK() : st;
      }
      case UndoLog::Kind::kOverwritten:
        return ks->tree->Upsert(AsBytes(e.key), AsBytes(e.value), Sys());
      case UndoLog::Kind::kBulkLoaded:
        return EmptyTree(ks->tree.get());
    }
    return Status::Internal("unknown undo record kind");
  });
}

Status TransactionCore::Undo(size_t savepoint) { return ApplyUndo(db_, &undo_, savepoint); }

Result<Lsn> TransactionCore::AppendTrxRecord(const TrxRecord& r) {
  DurableRedoLog* log = db_->log();
  TrxRecord rec = r;
  rec.trx = trx_id_;
  EncodeTrxRecord(rec, &record_buf_);
  if (trx_id_ == 0) {
    // Registered before the append, so that no checkpoint can drop the record: the LSN it gets
    // is at least this one.
    retain_key_ = log->current_lsn();
    log->TrxStarted(retain_key_);
  }
  const Lsn end = log->AppendTrx(AsBytes(record_buf_));
  if (end == 0) [[unlikely]] {
    Status st = log->failed_status();
    return st.ok() ? Status::IOError("the redo log refused a record") : st;
  }
  if (trx_id_ == 0) trx_id_ = end - kFrameHeaderSize - record_buf_.size();  // its start LSN
  return end;
}

Status TransactionCore::LogUndo(const RecordData* old) {
  TrxRecord r;
  r.keyspace_id = pending_ks_;
  r.key = pending_key_;
  if (old == nullptr) {
    r.type = TrxRecordType::kUndoInserted;
  } else {
    r.type = TrxRecordType::kUndoOverwritten;
    r.value = old->value;
  }
  return AppendTrxRecord(r).status();
}

Status TransactionCore::LogBulkLoaded(uint32_t keyspace_id) {
  if (db_->log() == nullptr) return Status::OK();
  return AppendTrxRecord(
             TrxRecord{.type = TrxRecordType::kUndoBulkLoaded, .keyspace_id = keyspace_id})
      .status();
}

Result<Lsn> TransactionCore::LogEnd(TrxRecordType type) {
  if (db_->log() == nullptr || trx_id_ == 0) return Lsn{0};
  return AppendTrxRecord(TrxRecord{.type = type});
}

void TransactionCore::End(State final_state) {
  state_ = final_state;
  undo_.Clear();
  if (has_token_) {
    db_->writer_token().Release(this);
    has_token_ = false;
  }
}

Status TransactionCore::Commit() {
  RETURN_IF_ERROR(CheckOpen());
  if (trx_id_ == 0) {  // nothing logged: read-only, or ":memory:"
    if (Status st = db_->WritableStatus(); !st.ok()) {
      // After an I/O failure nothing commits, not even a transaction whose writes all failed.
      End(State::kRolledBack);
      db_->CountRollback();
      return st;
    }
    End(State::kCommitted);
    db_->CountCommit();
    return Status::OK();
  }
  DurableRedoLog* log = db_->log();
  Status st = db_->WritableStatus();
  MINNOW_CRASH_POINT("txn.before_commit");
  Lsn commit_end = 0;
  if (st.ok()) {
    Result<Lsn> end = LogEnd(TrxRecordType::kCommit);
    if (end.ok()) {
      commit_end = *end;
    } else {
      st = end.status();
    }
  }
  MINNOW_CRASH_POINT("txn.after_commit_record");
  // The next writer may go on while we wait for the fsync: its commit record comes after ours,
  // so it cannot become durable before ours.
  End(State::kCommitted);
  if (st.ok()) st = log->CommitUpTo(commit_end, db_->flush_policy());
  if (commit_end != 0) log->TrxEnded(retain_key_, commit_end);
  if (!st.ok()) {
    // The commit record may be lost: as far as anyone can know, the commit did not happen.
    state_ = State::kRolledBack;
    db_->CountRollback();
    return Status(st.code(), "commit failed, the transaction is not committed: " + st.message());
  }
  db_->CountCommit();
  db_->CountDurableCommit();
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
  Status st = Undo(0);
  if (st.ok()) {
    // A rollback-done record that cannot be logged is harmless: recovery rolls back again.
    Result<Lsn> end = LogEnd(TrxRecordType::kRollbackDone);
    if (end.ok() && *end != 0) db_->log()->TrxEnded(retain_key_, *end);
  }
  End(State::kRolledBack);
  db_->CountRollback();
  return st;
}

}  // namespace minnow
