#pragma once
// TransactionCore: a transaction (InnoDB's trx_t), what the public Transaction is underneath
// its pimpl handle (engine/transaction.cc). It reaches the lock, transaction and undo systems,
// the log and the keyspaces through TxnServices (txn/txn_services.h), never the database.
//
// States: active --Commit--> committed; active --Rollback / destructor / deadlock victim /
// Database::Close--> rolled back. Only an active transaction answers calls; the others return
// kClosed (saying why).
//
// A transaction gets an id (TrxSys), a lock state (LockSys) and undo logs (UndoStore) at its
// first write or locking read; a transaction that only reads consistently never has an id.
//
// Writes (transaction_write.cc). Under the leaf's X latch, in the B+tree write's hook
// (btree/btree.h WriteHook; each write passes a RecordWriteHook naming its keyspace):
//   1. locks: an update or delete-mark takes X,REC_NOT_GAP on the record (after turning the
//      implicit lock of an active writer of that record into an explicit one); in a secondary
//      index (KeyspaceState::secondary()) it only checks for a conflicting lock, waiting if
//      there is one, and otherwise keeps the lock implicit (the DB_TRX_ID it writes), as
//      InnoDB's lock_sec_rec_modify_check_and_lock; an insert checks INSERT_INTENTION on the
//      record it goes before (waits only for gap locks);
//   2. undo: the change's undo record is appended (mvcc/undo_store.h), write-ahead;
//   3. the record gets DB_TRX_ID = our id and DB_ROLL_PTR = the undo record.
//   A lock that must wait aborts the B+tree write (kLockWait): the latches are released, the
//   transaction waits (LockSys::Wait) and the write is tried again. A timeout (1205) ends only
//   the statement; a deadlock (1213) rolls the whole transaction back.
//   Erase delete-marks; purge removes the record once no read view needs it.
//
// Snapshot isolation (TransactionOptions::snapshot_isolation, MariaDB's innodb_snapshot_isolation):
// under REPEATABLE READ and SERIALIZABLE, with a read view open, each record a locking read or an
// update / delete-mark locks is checked once the lock is granted, under the leaf latch that saw
// it: if the view does not see its DB_TRX_ID (a change, insert or delete committed since the
// view), the call fails with kRecordChanged and the whole transaction is rolled back.
//
// Reads (transaction_read.cc, txn_iterator.cc, count.cc): consistent reads walk the version chain
// from the latest record through the undo records until a version the read view sees
// (mvcc/read_view.h); locking reads lock the latest version, as InnoDB's: a point read locks the
// record (REC_NOT_GAP) or, under REPEATABLE READ, the gap where it would be; scans lock next-key
// under REPEATABLE READ and SERIALIZABLE, REC_NOT_GAP under READ COMMITTED and READ
// UNCOMMITTED. SERIALIZABLE turns plain reads into share-locking reads (not in an autocommit
// transaction, as InnoDB). ReadOptions::wait says what a conflict does: wait (LockSys::Wait),
// fail (kLockNoWait) or skip the record; the last two lock record by record.
//
// Commit: the commit number (TrxSys::AssignTrxNo), the commit mini-transaction (the undo logs
// change state: its redo is the commit record), the transaction leaves the active set, the
// locks are released, and then Commit waits for the log as flush_log_at_trx_commit says.

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "btree/btree.h"
#include "common/latch.h"
#include "lock/lock_sys.h"
#include "lock/metadata_lock.h"
#include "minnow/db.h"
#include "mvcc/read_view.h"
#include "mvcc/undo_store.h"
#include "txn/keyspace_table.h"
#include "txn/txn_services.h"

namespace minnow {

class TransactionCore {
 public:
  TransactionCore(TxnServices* services, const TransactionOptions& options);
  ~TransactionCore();  // rolls back if active
  TransactionCore(const TransactionCore&) = delete;
  TransactionCore& operator=(const TransactionCore&) = delete;

  // OK if the transaction and the database are open, else kClosed.
  Status CheckOpen() const {
    if (state_ == State::kActive && !svc_->is_closed()) [[likely]]
      return Status::OK();
    return ClosedStatus();
  }

  // Point read: consistent (the view's version) or locking (the latest, locked; `wait` as
  // ReadOptions::wait: kSkipLocked returns false for a record locked by another).
  Result<bool> Get(KeyspaceState* ks, std::string_view key, std::string* value, LockMode mode,
                   LockWait wait = LockWait::kWait);
  // Transaction::UnlockLastGet (READ COMMITTED's release of a rejected row).
  Status UnlockLastGet(KeyspaceState* ks);
  // Releases this transaction's REC_NOT_GAP lock of `mode` on the record `key` of `ks` unless
  // the transaction changed the record (its DB_TRX_ID is ours): the release of a rejected row
  // when the caller no longer knows where the record is. REQUIRES: the caller made the lock.
  Status UnlockByKey(KeyspaceState* ks, std::string_view key, TrxLockMode mode);
  // READ COMMITTED and READ UNCOMMITTED: locking reads release the locks of rejected rows.
  bool ReleasesRejectedRows() const { return options_.isolation <= IsolationLevel::kReadCommitted; }
  Status Put(KeyspaceState* ks, std::string_view key, std::string_view value);
  // Transaction::Insert with its InsertOptions (db.h, options.h).
  Status Insert(KeyspaceState* ks, std::string_view key, std::string_view value,
                const InsertOptions& io = {});
  Status Erase(KeyspaceState* ks, std::string_view key);
  Status BulkInsert(KeyspaceState* ks,
                    const std::function<bool(std::string_view*, std::string_view*)>& next);
  Status Commit();
  Status Rollback();
  // Statement rollback on the public API (Transaction::Savepoint, RollbackToSavepoint): the
  // undo number now, and undoing every change numbered from `savepoint` on, keeping the
  // transaction and all its locks.
  uint64_t Savepoint() const { return savepoint(); }
  Status RollbackToSavepoint(uint64_t savepoint);
  // Transaction::Count over [lo, hi) of `ks` (count.cc). REQUIRES: CheckOpen() passed.
  Result<uint64_t> Count(KeyspaceState* ks, std::string_view lo, std::string_view hi,
                         const ReadOptions& ro);
  // LOCK TABLES: a table S (kShare) or X (kExclusive) lock, waited for as record locks are.
  Status LockTable(KeyspaceState* ks, LockMode mode);
  // Transaction::LockMetadata: a metadata lock held until End(). A deadlock victim (kDeadlock)
  // is rolled back here, as WaitForLock does. The lock state is registered under the
  // MdlContext's owner id, which joins the two kinds of wait in deadlock detection.
  Status LockMetadata(std::string_view name, LockMode mode, MdlLabel label = {});
  // Transaction::metadata_lock_owner.
  uint64_t metadata_lock_owner() const { return mdl_.owner_id(); }
  // From any thread: a LockMetadata call waits now.
  bool waiting_for_metadata_lock() const { return mdl_.waiting(); }
  // KILL QUERY (Transaction::Interrupt, ClearInterrupt), from any thread: while set, a lock
  // wait (record, table or metadata) in progress ends (woken now) and every new one ends at
  // once with kAborted.
  void SetInterrupted(bool interrupted);
  // Database::Close on this transaction's behalf: undo, end. REQUIRES: the Close() contract.
  void RollbackForClose();

  bool active() const { return state_ == State::kActive && !svc_->is_closed(); }
  TxnServices* services() const { return svc_; }
  TrxId id() const { return id_; }
  // id() for any thread (Transaction::id()).
  TrxId public_id() const { return public_id_.load(std::memory_order_acquire); }
  IsolationLevel isolation() const { return options_.isolation; }
  TrxLocks* locks() const { return locks_.get(); }
  TransactionLockInfo lock_info() const;
  // information_schema.innodb_trx's row, for another thread. REQUIRES: called under TrxSys's
  // latches (TrxSys::ForEachActive), so the transaction cannot end meanwhile. False if it has
  // not finished getting its id.
  bool Describe(TransactionInfo* out) const;

  // ---- for iterators (txn_iterator.cc)
  // The effective lock mode of a read: SERIALIZABLE turns plain reads into share reads, except
  // in an autocommit transaction (TransactionOptions::autocommit), whose reads stay consistent.
  LockMode EffectiveMode(LockMode asked) const {
    if (asked == LockMode::kNone && options_.isolation == IsolationLevel::kSerializable &&
        !options_.autocommit) {
      return LockMode::kShare;
    }
    return asked;
  }
  // Record lock type for a scan under this isolation level (next-key or record only).
  RecLockType ScanLockType() const;
  // Makes sure the transaction can lock: id, lock state and the table's IS/IX lock (and, for
  // snapshot isolation under SERIALIZABLE, the read view).
  Status PrepareLocking(KeyspaceState* ks, LockMode mode);
  // ---- snapshot isolation (TransactionOptions::snapshot_isolation)
  void set_snapshot_isolation(bool on) { options_.snapshot_isolation = on; }
  // The view whose sight a locking read or a write checks the latest version's DB_TRX_ID
  // against once the record is locked; null when nothing is checked (off, READ COMMITTED and
  // below, or no view yet).
  const ReadView* snapshot_view() const {
    if (!options_.snapshot_isolation) [[likely]]
      return nullptr;
    if (options_.isolation < IsolationLevel::kRepeatableRead || !view_.open()) return nullptr;
    return &view_;
  }
  // kRecordChanged naming `ks`'s table: a locked record's latest version is one snapshot_view()
  // does not see. Rolls nothing back (the caller may hold a latch): see RollBackChanged.
  Status RecordChanged(const KeyspaceState& ks) const;
  // After RecordChanged came out of a latched step (latches released): rolls the whole
  // transaction back, as MariaDB's DB_RECORD_CHANGED, and returns the error to give the caller.
  Status RollBackChanged(const Status& why);
  // Gives the active writer of each record (its DB_TRX_ID) an explicit X lock in place of its
  // implicit one. REQUIRES: the record's page latched.
  void ConvertImplicit(TrxId writer, RecordId rec);
  // After a Lock* call returned kLockWait (latches released): waits. OK when granted; a
  // timeout or deadlock is returned as the error to give the caller (a deadlock has rolled the
  // transaction back).
  Status WaitForLock();
  // The view a consistent read uses now (opened on first use under REPEATABLE READ; a fresh
  // one per statement under READ COMMITTED is given by OpenStatementView). Null for READ
  // UNCOMMITTED (read the latest).
  const ReadView* TransactionView();
  // Opens `view` for one statement (READ COMMITTED). REQUIRES: view not open.
  void OpenStatementView(ReadView* view);
  // Fills *value (in: the latest version of `key` in `ks`, with `sys` and `delete_marked`,
  // perhaps from a leaf copy that is stale by now) with the version `view` sees; false if none
  // (absent or deleted in that version).
  Result<bool> BuildVisible(const ReadView& view, KeyspaceState* ks, std::string_view key,
                            ConstBytes sys, bool delete_marked, std::string* value);

 private:
  enum class State : uint8_t { kActive, kCommitted, kRolledBack };
  // The hook of one B+tree write (transaction_write.cc): the keyspace written and whether the
  // statement refuses a live duplicate travel in it to OnWrite.
  class RecordWriteHook;

  Status ClosedStatus() const;
  // Id, lock state and undo logs, on first need.
  Status EnsureId();
  Status EnsureTableLock(KeyspaceState* ks, TrxLockMode mode);
  // The hook of every write (see the header comment): locks, undo, hidden fields.
  // `dup_lock`: the lock an Insert's duplicate gets (InsertOptions::duplicate_lock).
  Status OnWrite(const KeyspaceState& ks, bool refuse_duplicate, TrxLockMode dup_lock,
                 WriteNotice* n);
  // InnoDB's row_ins_scan_sec_index_for_duplicate: locks (next-key, `mode`) the records of
  // `ks` from the first >= `prefix` on, with each leaf's supremum passed, until the first that
  // does not start with `prefix` or is not delete-marked; returns true with its key in
  // *duplicate (if set) for a live one that does.
  Result<bool> ScanForDuplicate(KeyspaceState* ks, std::string_view prefix, TrxLockMode mode,
                                std::string* duplicate);
  // Runs one B+tree write (its hook passed by `write`), waiting for locks and retrying. A
  // template (defined in transaction_write.cc, its only user): a std::function of the write's
  // captures would allocate on every row.
  template <typename Write>
  Status RunWrite(KeyspaceState* ks, const Write& write);
  Result<bool> LockingGet(KeyspaceState* ks, std::string_view key, std::string* value,
                          LockMode mode, LockWait wait);
  Result<bool> ConsistentGet(KeyspaceState* ks, std::string_view key, std::string* value);
  Status BulkBuild(KeyspaceState* ks,
                   const std::function<bool(std::string_view*, std::string_view*)>& next);
  Status InsertEach(KeyspaceState* ks,
                    const std::function<bool(std::string_view*, std::string_view*)>& next);
  // Undoes the changes with undo_no >= savepoint (statement rollback: the undo_no at its start).
  Status UndoTo(uint64_t savepoint);
  uint64_t savepoint() const { return undo_ != nullptr ? undo_->next_undo_no() : 0; }
  // Rollback's work: undo everything, end. Returns the undo's status.
  Status RollBackAll();
  // Leaves the active set, releases locks and views.
  void End(State final_state);
  // A deadlock victim: roll back, remember why.
  Status RollBackAsVictim(const Status& why);

  TxnServices* const svc_;
  TransactionOptions options_;
  State state_ = State::kActive;
  std::string end_reason_;  // why a transaction ended without Commit/Rollback (deadlock)

  TrxId id_ = 0;                     // 0 until the first write or locking read
  uint32_t trx_sys_shard_ = 0;       // where TrxSys keeps id_ (TrxSys::Active)
  std::atomic<TrxId> public_id_{0};  // id_'s mirror, read by other threads
  // For Describe() on other threads: set (release) once id_, locks_ and undo_ are.
  std::atomic<bool> published_{false};
  std::chrono::steady_clock::time_point started_;
  // Undo records written for tables (not secondary indexes): trx_rows_modified, and the
  // deadlock victim weight besides the locks, as InnoDB's undo_no.
  std::atomic<uint64_t> rows_modified_{0};
  // Written by the transaction's thread under interrupt_latch_ (set at the first lock, reset
  // at the end), so that SetInterrupted on another thread can reach it; the transaction's own
  // thread reads it without the latch.
  std::unique_ptr<TrxLocks> locks_;
  Latch interrupt_latch_;  // before the lock system's latches
  bool interrupted_ GUARDED_BY(interrupt_latch_) = false;
  std::unique_ptr<TrxUndo> undo_;
  ReadView view_;  // REPEATABLE READ / SERIALIZABLE: the transaction's view, once opened
  std::vector<std::pair<uint32_t, TrxLockMode>> table_locks_;  // taken, strongest per table
  MdlContext mdl_;  // metadata locks, released by End() (or the destructor after Close)

  // The latest locking Get under READ COMMITTED / READ UNCOMMITTED, for UnlockLastGet: its
  // keyspace (null: none, or its lock was not new), key and lock mode.
  const KeyspaceState* last_get_ks_ = nullptr;
  std::string last_get_key_;
  TrxLockMode last_get_mode_ = TrxLockMode::kS;

  std::string undo_buf_;  // scratch
  std::string current_;   // scratch: BuildVisible's re-read of the latest version
};

// Applies one undo record to the tree it names in `keyspaces` (rollback and recovery): removes
// an inserted record, restores an updated or delete-marked one. Idempotent: a record already
// restored (its DB_TRX_ID is not `trx_id`) or already removed is left alone. `recovering`
// enables the "recovery.rollback" crash point.
Status ApplyUndoRecord(const KeyspaceTable& keyspaces, TrxId trx_id, const UndoRecord& r,
                       bool recovering);
// Rolls `undo` back to `savepoint` (newest first), popping each record once applied.
Status RollBackUndo(const KeyspaceTable& keyspaces, TrxUndo* undo, uint64_t savepoint,
                    bool recovering);

// The lock system's name for a record the B+tree located.
inline RecordId LockRecordId(RecordLocation l) { return RecordId{l.page_no, l.heap_no}; }

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
