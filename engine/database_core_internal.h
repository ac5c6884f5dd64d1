#pragma once
// DatabaseCore: what a Database is underneath its pimpl handle. Owns the file (backend + advisory
// file lock), the durable redo log, the buffer pool, the catalog, the keyspace table, the lock
// system, the transaction system, the undo logs and purge, and builds the TxnServices
// (txn/txn_services.h) through which transactions and purge reach them. Opening a file
// database runs crash recovery (database_recovery.cc).
//
// Lock and latch order: locks (lock/) are waited for with no latch held; then catalog_latch_
// (DDL, CheckIntegrity, Close); then page latches (B+tree, then undo pages); then trx_sys's
// latch; then lock-sys shard latches.
//
// Thread safety: every method is thread-safe except Close(), whose REQUIRES is the public one.

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "buffer_pool/buffer_pool.h"
#include "common/latch.h"
#include "engine/catalog_internal.h"
#include "engine/heap_table_internal.h"
#include "engine/lock_listener_internal.h"
#include "lock/lock_sys.h"
#include "lock/metadata_lock.h"
#include "log/durable_redo_log.h"
#include "minnow/db.h"
#include "mvcc/trx_sys.h"
#include "mvcc/undo_store.h"
#include "txn/keyspace_table.h"
#include "txn/purge.h"
#include "txn/txn_services.h"

namespace minnow {

class DatabaseCore {
 public:
  // Opens (or creates) the database. A failed Open removes the files it made (the data file,
  // P.redo/, P.dblwr); it never removes one that existed before.
  static Result<std::unique_ptr<DatabaseCore>> Open(const Options& options);
  ~DatabaseCore();  // closes if still open, ignoring errors

  Status Close();
  bool closed() const { return services_.is_closed(); }

  Status CreateKeyspace(std::string_view name, const KeyspaceOptions& options);
  Status DropKeyspace(std::string_view name);
  // The live keyspace called `name`: its id; kNotFound if none.
  Result<uint32_t> FindKeyspace(std::string_view name);
  Result<std::vector<std::string>> ListKeyspaces();

  // The per-call path: a Keyspace handle's (id, db_tag) → its live state, without a latch.
  // kInvalidArgument for an empty, foreign or dropped handle.
  Result<KeyspaceState*> Resolve(uint32_t id, uint64_t db_tag) const {
    if (db_tag == tag_) [[likely]] {
      KeyspaceState* s = keyspaces_.Find(id);
      if (s != nullptr && !s->dropped.load(std::memory_order_acquire)) [[likely]]
        return s;
    }
    return BadHandle(id, db_tag);
  }

  // The keyspaces' trees, then the heap tables (each under a READ_NO_INSERT table lock).
  Status CheckIntegrity(std::vector<KeyspaceCheck>* reports);
  // One keyspace's tree Check() (Database::CheckKeyspace and InspectKeyspace, whose contract
  // says what it latches); safe while others read and write.
  Result<KeyspaceCheck> CheckKeyspace(uint32_t id, uint64_t db_tag);
  DatabaseStats stats() const;
  const RecoveryReport& recovery_report() const { return report_; }
  // The options Open was given, normalized (purge_interval_ms at least 1).
  const Options& options() const { return options_; }
  // Introspection (introspection.cc).
  Result<std::vector<DataLock>> DataLocks();
  Result<std::vector<MetadataLock>> MetadataLocks();
  Result<std::vector<DataLockWait>> DataLockWaits();
  Result<std::vector<TransactionInfo>> Transactions();
  // The latest deadlock (SHOW ENGINE INNODB STATUS), recorded by RecordDeadlock.
  std::optional<DeadlockReport> LatestDeadlock() const;
  // The lock system's on_deadlock: resolves the rows' keyspaces and keys (page latches, no
  // lock-sys latch held) and keeps the report as the latest.
  void RecordDeadlock(const DeadlockInfo& info) EXCLUDES(catalog_latch_, deadlock_latch_);

  // OK unless a failed log or data-file write or fsync made the database refuse writes until
  // it is reopened (then that failure, explained).
  Status WritableStatus() const { return services_.WritableStatus(); }

  uint64_t tag() const { return tag_; }
  // The table-locking engine's tables (set by Open).
  HeapTables* heap_tables() const { return heap_tables_.get(); }
  // What every transaction of this database is given (TransactionCore's constructor).
  TxnServices* txn_services() { return &services_; }

 private:
  DatabaseCore() = default;
  // What an Open made, to be removed again if it fails.
  struct NewFiles {
    bool data_file = false;        // the data file did not exist and this Open created it
    int lock_fd = -1;              // a dup of the locked descriptor, once this Open has the lock
    bool log_dir_existed = false;  // before this Open
    bool dblwr_existed = false;
    NewFiles() = default;
    NewFiles(const NewFiles&) = delete;
    NewFiles& operator=(const NewFiles&) = delete;
    ~NewFiles();
    void RemoveAfterFailure(const std::string& path) const;
  };
  // Open's work; fills *made as it goes.
  static Result<std::unique_ptr<DatabaseCore>> OpenFiles(const Options& options, NewFiles* made);
  // Open for a file database: torn-page repair, redo, the trees, rollback of transactions the
  // crash left open, a checkpoint; fills report_ (database_recovery.cc).
  Status OpenDurable(const Options& options, std::unique_ptr<DiskBackend> backend,
                     BufferPoolOptions bpo);
  // OpenDurable for Options::read_only: no file is written or created; refused (kReadOnly) if
  // the database needs recovery.
  Status OpenReadOnly(std::unique_ptr<DiskBackend> backend, BufferPoolOptions bpo);
  // After the pool and the trees are open: the undo logs, the transaction and lock systems;
  // rolls back the transactions a crash left active (report_ counts them); starts purge.
  // Completes services_.
  Status OpenTransactions();
  Status OpenKeyspaces();
  // Drops a keyspace once no transaction holds a lock on it (a table X lock).
  Status DropWithTableLock(std::string_view name);
  void StopPurge() {
    if (purge_ != nullptr) purge_->Stop();
  }
  KeyspaceState* AddState(CatalogEntry entry, std::unique_ptr<BTree> tree) REQUIRES(catalog_latch_);
  Status BadHandle(uint32_t id, uint64_t db_tag) const;
  // Keyspace names and record keys for lock rows (introspection.cc).
  Status ResolveLockRows(std::vector<DataLock*> rows) EXCLUDES(catalog_latch_);
  // DropKeyspace's work. REQUIRES: the caller holds the table's X lock.
  Status DropLocked(std::string_view name) EXCLUDES(catalog_latch_);
  DatabaseStats LiveStats() const;
  Status CheckKeyspaces(std::vector<KeyspaceCheck>* reports) EXCLUDES(catalog_latch_);

  // Destruction order matters: trees (in keyspaces_ and catalog_) go before the pool, and the
  // pool before the log it writes to; the lock system outlives the trees that report to it.
  std::unique_ptr<DurableRedoLog> log_;
  std::unique_ptr<BufferPool> pool_;
  std::unique_ptr<LockSys> lock_sys_;
  std::unique_ptr<LockListener> lock_listener_;
  // Metadata locks; outlives every transaction (a transaction without an id keeps its
  // metadata locks past Close, until its handle goes).
  std::unique_ptr<MetadataLockSys> mdl_ = std::make_unique<MetadataLockSys>();
  std::unique_ptr<TrxSys> trx_sys_;
  std::unique_ptr<UndoStore> undo_store_;
  bool deadlock_detect_ = true;
  std::chrono::milliseconds purge_interval_{10};
  // The parts above (and keyspaces_) as transactions and purge see them, the open state and
  // the transaction counters. Filled by Open and OpenTransactions.
  TxnServices services_;
  std::unique_ptr<Purge> purge_;  // started by OpenTransactions
  RecoveryReport report_;
  Options options_;
  int lock_fd_ = -1;  // holds flock(LOCK_EX) on the file while open
  std::string path_;
  uint64_t tag_ = 0;                                // unique per open Database in this process
  std::chrono::milliseconds lock_wait_timeout_{0};  // DropKeyspace's wait (services_ has it too)

  // Purge holds it shared while it changes trees; a drop holds it exclusive while it frees a
  // tree's pages (transactions keep drops out with table locks; purge takes none). Before
  // catalog_latch_ and page latches.
  SharedLatch drop_latch_;
  mutable Latch catalog_latch_;  // serializes DDL and CheckIntegrity
  std::unique_ptr<Catalog> catalog_ PT_GUARDED_BY(catalog_latch_);
  // The heap tables and their catalog (own latch); opened with the keyspaces, gone before the
  // pool.
  std::unique_ptr<HeapTables> heap_tables_;
  KeyspaceTable keyspaces_;  // Add() under catalog_latch_; Find() lock-free
  std::map<std::string, KeyspaceState*, std::less<>> by_name_ GUARDED_BY(catalog_latch_);  // live

  mutable Latch deadlock_latch_;  // a leaf latch
  std::optional<DeadlockReport> latest_deadlock_ GUARDED_BY(deadlock_latch_);

  DatabaseStats final_stats_;  // taken by Close(); stats() returns it afterwards
};

}  // namespace minnow
