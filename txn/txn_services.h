#pragma once
// TxnServices: everything a transaction, an iterator, purge and the undo rollback reach outside
// txn/, named one by one. The engine builds one per open database (DatabaseCore), fills it as
// it opens the parts, and hands its address to every transaction and to purge; txn/ never sees
// the database itself.
//
// Lifetime: the services outlive every transaction's use of them. After Database::Close
// (`closed` set) a transaction touches none of the pointers except `mdl` (a transaction keeps
// its metadata locks until its handle goes), so the engine may tear the others down.
//
// Thread safety: the pointers and options are set before the first transaction begins and
// never change; `closed` and the counters are atomics, read and bumped from any thread.

#include <atomic>
#include <chrono>
#include <cstdint>

#include "buffer_pool/buffer_pool.h"
#include "common/striped_counter.h"
#include "lock/lock_sys.h"
#include "lock/metadata_lock.h"
#include "log/durable_redo_log.h"
#include "minnow/status.h"
#include "mvcc/trx_sys.h"
#include "mvcc/undo_store.h"
#include "txn/keyspace_table.h"

namespace minnow {

class Purge;

// What transactions and purge count for DatabaseStats.
struct TxnCounters {
  StripedCounter commits;  // by thread: every transaction's end bumps one
  StripedCounter rollbacks;
  StripedCounter durable_commits;           // commits whose log write was waited for
  std::atomic<uint64_t> purged_records{0};  // delete-marked records purge removed

  void CountCommit() { commits.Add(); }
  void CountRollback() { rollbacks.Add(); }
  void CountDurableCommit() { durable_commits.Add(); }
  void CountPurged(uint64_t n) { purged_records.fetch_add(n, std::memory_order_relaxed); }
};

struct TxnServices {
  LockSys* lock_sys = nullptr;
  MetadataLockSys* mdl = nullptr;
  TrxSys* trx_sys = nullptr;
  UndoStore* undo_store = nullptr;
  DurableRedoLog* log = nullptr;  // nullptr for ":memory:" (nothing to log for a crash to find)
  BufferPool* pool = nullptr;     // its failure state (WritableStatus) and LogFreeCheck's flush
  // The keyspace an undo record names (rollback, purge): KeyspaceTable::FindLive.
  const KeyspaceTable* keyspaces = nullptr;
  Purge* purge = nullptr;  // woken by a commit whose update undo joins the history

  // Options::lock_wait_timeout_ms and metadata_lock_wait_timeout_ms: a transaction's own
  // TransactionOptions value, when not 0, wins.
  std::chrono::milliseconds lock_wait_timeout{0};
  std::chrono::milliseconds metadata_lock_wait_timeout{0};
  // Options::flush_log_at_trx_commit: what Commit waits for.
  FlushPolicy flush_policy = FlushPolicy::kSyncAtCommit;
  // How much log since the last checkpoint makes a writer flush pages itself (LogFreeCheck).
  uint64_t log_free_check_bytes = UINT64_MAX;

  // Set (release) by Database::Close once every transaction is rolled back; checked on every
  // call of a transaction or iterator.
  std::atomic<bool> closed{false};
  TxnCounters counters;
  // Options::read_only: every write is refused (kReadOnly); no log, no purge.
  bool read_only = false;

  bool is_closed() const { return closed.load(std::memory_order_acquire); }
  // kReadOnly for a read-only database; otherwise OK unless a failed log or data-file write or
  // fsync made the database refuse writes until it is reopened (then that failure, explained).
  Status WritableStatus() const;
  // The failure part of WritableStatus alone: OK for a read-only database that did not fail
  // (what the commit of a transaction that wrote nothing checks).
  Status FailureStatus() const;
  // InnoDB's log_free_check, called by a writer holding no latch: when the log holds more than
  // allowed since the last checkpoint (the background flusher is off or falling behind), the
  // writer itself flushes pages and checkpoints, so the log stays bounded under any load.
  Status LogFreeCheck() const {
    if (log == nullptr || log->bytes_since_checkpoint() <= log_free_check_bytes) [[likely]]
      return Status::OK();
    return pool->FlushAll();
  }
  // Wakes purge (a transaction that delete-marked or updated records committed).
  void WakePurge() const;
};

}  // namespace minnow
