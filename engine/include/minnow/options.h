#pragma once
// Options of the embedded key-value API. Plain structs with defaults; every field is optional.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace minnow {

struct Options {
  std::string path;               // the database file; ":memory:" for a private in-memory one
  bool create_if_missing = true;  // create the file when it does not exist
  bool error_if_exists = false;   // kInvalidArgument if the file exists
  size_t buffer_pool_bytes = 256u << 20;
  bool background_flusher = true;
  // Read-ahead for scans: a forward scan's next leaves are read into the buffer pool, on a
  // thread of their own and close pages with one read request, before the scan reaches them
  // (Innodb_buffer_pool_read_ahead counts them). Off (the default): each page is read when
  // first fetched, which bench_cold_scan measures as faster today (one read in flight, the
  // scan overtakes the read-ahead thread).
  bool read_ahead = false;
  uint32_t lock_wait_timeout_ms = 50'000;  // innodb_lock_wait_timeout: how long a lock wait lasts
  // lock_wait_timeout: how long a metadata lock wait lasts (MySQL's default, one year).
  uint64_t metadata_lock_wait_timeout_ms = 31'536'000'000;
  bool deadlock_detect = true;      // innodb_deadlock_detect: off leaves deadlocks to the timeout
  uint32_t purge_interval_ms = 10;  // how often the purge thread looks for work when idle
  // Opens an existing file database for reading only (innodb_read_only): nothing is created
  // or written (not the data file, the log or the doublewrite file), the data file is opened
  // O_RDONLY (so a read-only file or mount works) and shared-locked (other read-only opens may
  // share it, a writer may not). Every write (Put, Insert, Erase, CreateKeyspace,
  // DropKeyspace, table writes) fails with kReadOnly; reads and the commit of a transaction
  // that wrote nothing work. A database that needs crash recovery (log records past its
  // checkpoint, torn pages, transactions left active) is refused with kReadOnly: recovery
  // writes, so it needs one writable open first. kNotFound if the file does not exist or is
  // empty; kInvalidArgument with ":memory:" or error_if_exists.
  bool read_only = false;

  // Durability (a file database; ":memory:" has no log). The redo log lives in the directory
  // path + ".redo/", the doublewrite buffer in path + ".dblwr".
  //   innodb_flush_log_at_trx_commit: 1 = write and fsync the log at every commit (a commit
  //   that returned OK survives any crash); 2 = write at commit, fsync once a second (survives
  //   a crash of the process, not of the machine); 0 = write and fsync once a second.
  uint8_t flush_log_at_trx_commit = 1;
  // The largest redo log segment file (>= 64 KiB): a new log starts with a 1 MiB segment
  // and each next one doubles, up to this.
  uint64_t log_file_bytes = 64ull << 20;
  uint64_t log_capacity_bytes = 256ull << 20;  // innodb_redo_log_capacity: checkpoint beyond it
  uint32_t log_flush_interval_ms = 1000;       // the once-a-second flush of policies 0 and 2
};

enum class Compression : uint8_t { kNone, kLz4 };

struct KeyspaceOptions {
  Compression compression = Compression::kNone;  // MySQL's COMPRESSION='lz4' for the tree's pages
  // Empty: the keyspace is a table of its own. Otherwise the name of a live keyspace (itself a
  // table, not a secondary) whose secondary index this keyspace is, as InnoDB's secondary
  // indexes belong to their table (Database::CreateKeyspace says what changes). Persisted.
  std::string secondary_of;
};

// Lock mode of a read: kNone is a consistent read (no locks, except under SERIALIZABLE outside
// an autocommit transaction, TransactionOptions::autocommit);
// kShare and kExclusive read the latest committed version and lock it, as InnoDB's LOCK IN
// SHARE MODE and FOR UPDATE do (see Transaction::Get and Transaction::NewIterator).
enum class LockMode : uint8_t { kNone, kShare, kExclusive };

// What a locking read with an end (ReadOptions::upper_bound, Transaction::Count's hi) locks on
// the record that ends its range: the first record at or after the end, delete-marked or not
// (or, if none, the supremum of the last leaf, locked next-key as always).
enum class RangeEndLock : uint8_t {
  kNextKey,  // S / X: the record and the gap before it (InnoDB's range scans: <, <=, BETWEEN)
  kGap,      // S,GAP / X,GAP: the gap before it only (InnoDB's equality scan on a non-unique
             // index, ref access: `k = 30` gap-locks the next record)
};

// What a locking read does about a record another transaction holds a conflicting lock on
// (MySQL's NOWAIT and SKIP LOCKED; they apply to record locks only: GAP locks and locks on a
// page's supremum never conflict, so they are taken as always).
enum class LockWait : uint8_t {
  kWait,        // wait for it (kLockWaitTimeout, kDeadlock)
  kNoWait,      // fail at once with kLockNoWait; nothing is enqueued
  kSkipLocked,  // pass over the record: an Iterator does not show it, Get returns false, Count
                // does not count it; nothing is locked on it
};

struct ReadOptions {
  LockMode lock_mode = LockMode::kNone;
  // With a lock mode other than kNone (ignored otherwise). kNoWait and kSkipLocked lock each
  // record as the read reaches it (an Iterator does not lock the rest of its leaf ahead, so a
  // scan that stops early leaves the records after it alone), as InnoDB does.
  LockWait wait = LockWait::kWait;
  // Iterators (Transaction::NewIterator): the exclusive end of a forward scan. The iterator
  // shows keys < *upper_bound only: a forward move (Seek, SeekToFirst, Next) that reaches a
  // key at or after it leaves the iterator not Valid(). A locking read then has locked what
  // InnoDB locks for a range that ends there: the records before the end as usual, and under
  // REPEATABLE READ / SERIALIZABLE the record that ends the range as range_end_lock says (the
  // supremum if none); under READ COMMITTED / READ UNCOMMITTED that record is not locked (no
  // gap locks; InnoDB would lock it and release it as not matching). Nothing after it is
  // locked. A view: its bytes must stay valid until NewIterator returns (the iterator copies
  // them). A bounded iterator reads forward: SeekForPrev and SeekToLast return
  // kInvalidArgument (Prev from a Valid position is allowed). Get ignores the bound; Count
  // takes its end as `hi` (kInvalidArgument if upper_bound is set).
  std::optional<std::string_view> upper_bound;
  RangeEndLock range_end_lock = RangeEndLock::kNextKey;
  // InnoDB's semi-consistent read (an UPDATE's scan of the clustered index under READ
  // COMMITTED and READ UNCOMMITTED; ignored otherwise, and by Get and Count): a locking
  // iterator moving forward that meets a record another transaction holds a conflicting lock
  // on does not wait for it. It shows the record's latest committed version instead (and
  // passes over a record with none: an insert not yet committed), locked by nothing, and
  // Iterator::semi_consistent() is true; a caller that wants that row calls
  // Iterator::LockCurrent(), which waits for the lock and reads the row again. Records are
  // then locked one at a time as the scan reaches them (no leaf ahead).
  bool semi_consistent = false;
};

// How Transaction::Insert checks that a key is free, as InnoDB's duplicate checks do.
struct InsertOptions {
  // What a record that may be a duplicate gets locked with before the insert refuses or goes
  // on: kShare for INSERT, kExclusive for REPLACE and INSERT ... ON DUPLICATE KEY UPDATE
  // (InnoDB's trx->duplicates). kNone is taken as kShare.
  LockMode duplicate_lock = LockMode::kShare;
  // 0: the key itself must be free (a primary key); the record with the key, live or
  // delete-marked, is locked duplicate_lock REC_NOT_GAP. Otherwise the keyspace is a unique
  // secondary index whose keys start with a unique part of this many bytes (the index's
  // columns; the rest names the row): no live record may share it. Checked under the leaf's
  // latch as the record goes in; only when a record sharing the part (delete-marked or not)
  // sits next to the new one, or the new one goes at the edge of a leaf with a sibling there,
  // every record sharing it and the first record after them (and each leaf's supremum passed)
  // is locked next-key with duplicate_lock, at every isolation level (InnoDB's
  // row_ins_scan_sec_index_for_duplicate), stopping at the first live one.
  size_t unique_prefix = 0;
  // If set, receives the key of the live record that made Insert return kDuplicateKey.
  std::string* duplicate = nullptr;
};

enum class IsolationLevel : uint8_t {
  kReadUncommitted,
  kReadCommitted,
  kRepeatableRead,  // MySQL's default
  kSerializable,
};

struct TransactionOptions {
  IsolationLevel isolation = IsolationLevel::kRepeatableRead;
  // innodb_lock_wait_timeout for this transaction's lock waits; 0: Options::lock_wait_timeout_ms.
  uint32_t lock_wait_timeout_ms = 0;
  // lock_wait_timeout for this transaction's metadata lock waits (Transaction::LockMetadata);
  // 0: Options::metadata_lock_wait_timeout_ms.
  uint64_t metadata_lock_wait_timeout_ms = 0;
  // A transaction of one autocommit statement (MySQL's autocommit=1 outside BEGIN): under
  // SERIALIZABLE its plain reads stay consistent reads, as InnoDB's (ha_innobase::store_lock
  // makes them share-locking only in a transaction begun by BEGIN or under autocommit=0).
  bool autocommit = false;
  // innodb_snapshot_isolation (MariaDB's): under REPEATABLE READ and SERIALIZABLE, once the
  // transaction has a read view, a locking read, an update or a delete that meets a row whose
  // latest committed version the view does not see (changed, inserted or deleted since the view
  // was taken) fails with kRecordChanged and rolls the whole transaction back. The check is made
  // once the row's lock is granted, so a row an active transaction changed is waited for first.
  // SERIALIZABLE's reads lock, so there the view is taken at the transaction's first read or
  // write. Transaction::SetSnapshotIsolation changes it for the calls that follow.
  bool snapshot_isolation = false;
};

}  // namespace minnow
