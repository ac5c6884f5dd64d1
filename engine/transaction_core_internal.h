#pragma once
// TransactionCore: what a Transaction is underneath its pimpl handle.
//
// States: active --Commit--> committed; active --Rollback / destructor / Database::Close-->
// rolled back. Only an active transaction answers calls; the others return kClosed.
//
// A transaction holds the writer token (writer_token_internal.h) from its first write or
// locking read until it ends; its undo list (undo_log_internal.h) is applied newest-first on
// rollback, and back to a savepoint when one call fails half-way (statement rollback).
//
// Durability (a file database): before each change reaches a page, its undo record is appended
// to the redo log (BTree's BeforeChange hook; txn/trx_log_record.h), so recovery can roll back a
// transaction the crash interrupted. Commit appends a commit record, releases the writer token
// (the next writer need not wait for our fsync) and then waits for durability as
// Options::flush_log_at_trx_commit says: concurrent committers share one fsync (group commit).
// Rollback undoes in place and appends a rollback-done record.

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "btree/btree.h"
#include "engine/database_core_internal.h"
#include "engine/undo_log_internal.h"
#include "minnow/db.h"
#include "txn/trx_log_record.h"

namespace minnow {

class TransactionCore {
 public:
  TransactionCore(DatabaseCore* db, const TransactionOptions& options);
  ~TransactionCore();  // rolls back if active
  TransactionCore(const TransactionCore&) = delete;
  TransactionCore& operator=(const TransactionCore&) = delete;

  // OK if the transaction and the database are open, else kClosed.
  Status CheckOpen() const {
    if (state_ == State::kActive && !db_->closed()) [[likely]]
      return Status::OK();
    return ClosedStatus();
  }
  // Takes the writer token if not yet held (a write or a locking read is about to happen).
  // Also the log free check (DatabaseCore::LogFreeCheck) of every write.
  Status EnsureWriter() {
    if (has_token_) [[likely]]
      return db_->LogFreeCheck();
    return AcquireToken();
  }

  Result<bool> Get(KeyspaceState* ks, std::string_view key, std::string* value);
  Status Put(KeyspaceState* ks, std::string_view key, std::string_view value);
  Status Insert(KeyspaceState* ks, std::string_view key, std::string_view value);
  Status Erase(KeyspaceState* ks, std::string_view key);
  Status BulkInsert(KeyspaceState* ks,
                    const std::function<bool(std::string_view*, std::string_view*)>& next);
  Status Commit();
  Status Rollback();
  // Database::Close on another thread's (or this thread's) behalf: undo, end, no token release
  // needed (the token is shut down). REQUIRES: the Database's Close() contract.
  void RollbackForClose();

  bool active() const { return state_ == State::kActive && !db_->closed(); }
  DatabaseCore* db() const { return db_; }

 private:
  enum class State : uint8_t { kActive, kCommitted, kRolledBack };

  Status ClosedStatus() const;
  Status AcquireToken();
  Status Undo(size_t savepoint);
  // The BeforeChange notice of every logged write: appends the undo record of the change to
  // (pending_ks_, pending_key_) described by `old` (nullptr: the key was absent).
  Status LogUndo(const RecordData* old);
  Status LogBulkLoaded(uint32_t keyspace_id);
  // Appends `r` as this transaction's record (the first one gives it its id); its end LSN.
  Result<Lsn> AppendTrxRecord(const TrxRecord& r);
  // Appends the end record (commit or rollback-done); returns its end LSN, 0 if nothing logged.
  Result<Lsn> LogEnd(TrxRecordType type);
  // The notice to pass to a BTree write: null for ":memory:".
  const BeforeChange* undo_notice() const {
    return db_->log() != nullptr ? &undo_notice_ : nullptr;
  }
  Status BulkBuild(KeyspaceState* ks,
                   const std::function<bool(std::string_view*, std::string_view*)>& next);
  Status InsertEach(KeyspaceState* ks,
                    const std::function<bool(std::string_view*, std::string_view*)>& next);
  void End(State final_state);
  // Rollback's work: undo everything, log rollback-done, end. Returns the undo's status.
  Status RollBackAll();

  DatabaseCore* const db_;
  TransactionOptions options_;
  State state_ = State::kActive;
  bool has_token_ = false;
  UndoLog undo_;
  RecordData old_;  // scratch for the previous record of Put/Erase (buffer reused)

  // The durable log's view of this transaction.
  TrxId trx_id_ = 0;         // 0 until its first record is logged; then that record's start LSN
  Lsn retain_key_ = 0;       // the LSN given to DurableRedoLog::TrxStarted
  uint32_t pending_ks_ = 0;  // the write LogUndo describes
  std::string_view pending_key_;
  std::string record_buf_;    // encoding buffer, reused
  BeforeChange undo_notice_;  // calls LogUndo; built once
};

// Unwinds `undo` to `savepoint` through the live keyspaces of `db` (a dropped keyspace is
// skipped). Nothing is logged: recovery rolls back again from the undo records if it must.
// `recovering` enables the "recovery.rollback" crash point between records.
Status ApplyUndo(DatabaseCore* db, UndoLog* undo, size_t savepoint, bool recovering = false);

// The public handle's pimpl is the core itself (no second indirection on the per-call path).
struct Transaction::Impl {
  Impl(DatabaseCore* db, const TransactionOptions& options) : core(db, options) {}
  TransactionCore core;
};

// The hidden DB_TRX_ID + DB_ROLL_PTR bytes written with every record: zeros until issue #4.
inline constexpr std::array<std::byte, kSysFieldsSize> kZeroSysFields{};

Status KeyTooLong(size_t size);
Status ValueTooLong(size_t size);
// kInvalidArgument if the key or value is too long.
inline Status CheckKeySize(std::string_view key) {
  if (key.size() > kMaxKeySize) [[unlikely]]
    return KeyTooLong(key.size());
  return Status::OK();
}
inline Status CheckValueSize(std::string_view value) {
  if (value.size() > kMaxValueSize) [[unlikely]]
    return ValueTooLong(value.size());
  return Status::OK();
}

}  // namespace minnow
