#pragma once
// minnow's embedded key-value API.
//
//   ASSIGN_OR_RETURN(auto db, minnow::Database::Open({.path = "my.minnow"}));
//   RETURN_IF_ERROR(db->CreateKeyspace("sample"));
//   ASSIGN_OR_RETURN(auto ks, db->OpenKeyspace("sample"));
//   ASSIGN_OR_RETURN(auto session, db->NewSession());
//   ASSIGN_OR_RETURN(auto txn, session->Begin());
//   RETURN_IF_ERROR(txn->Put(ks, "key", "value"));
//   RETURN_IF_ERROR(txn->Commit());
//
// Errors are values (minnow/status.h); nothing throws. Codes a caller should expect:
//   kNotFound          Get/Erase of an absent key, OpenKeyspace/DropKeyspace of an unknown
//                      name, Open of a missing file with create_if_missing = false
//   kDuplicateKey      Insert of a present key, CreateKeyspace of an existing name
//   kInvalidArgument   a key over 2048 bytes or a value over 64 MiB, a bad name, a Keyspace
//                      handle that is empty, dropped or from another Database, bad options
//   kClosed            use of a transaction after Commit/Rollback, or of anything after Close
//   kLockWaitTimeout   a lock wait lasted longer than Options::lock_wait_timeout_ms (MySQL
//                      1205); only the call failed, the transaction stays active
//   kDeadlock          the transaction was chosen as a deadlock victim and rolled back (1213)
//   kRecordChanged     TransactionOptions::snapshot_isolation: a locking read or write met a row
//                      changed since the read view; the transaction was rolled back (1020)
//   kBusy              the file is already open (in this or another process)
//   kCorruption/kIOError  the file or its redo log is damaged or the OS refused I/O; after a
//                      failed log or data-file write or fsync every later write and commit
//                      returns that error until the database is reopened (and recovered)
// A call that returns an error has changed nothing (a failed BulkInsert undoes its own rows).
// The empty key is a valid key.
//
// Concurrency, as InnoDB's: writes lock the records they change (X) until the transaction
// ends; reads are consistent (a snapshot: TransactionOptions::isolation says which) unless
// they ask for a lock (ReadOptions::lock_mode), and never wait for writers. A transaction that
// waits for a lock longer than lock_wait_timeout_ms gets kLockWaitTimeout; one caught in a
// deadlock may be rolled back with kDeadlock. Both are IsRetryable().
//
// Thread safety: a Database is thread-safe. A Session, and the Transactions and Iterators it
// makes, belong to one thread at a time. Objects must be destroyed before the Database that
// made them.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/options.h"
#include "minnow/status.h"

namespace minnow {

class Session;
class Transaction;
class Iterator;
class HeapTable;
class HeapTables;
class TableLockOwner;

inline constexpr size_t kMaxKeyBytes = 2048;         // longest key
inline constexpr size_t kMaxValueBytes = 64u << 20;  // longest value (64 MiB)

// A handle on an open keyspace (a named clustered B+tree). Cheap to copy; valid while the
// Database is open and the keyspace is not dropped.
class Keyspace {
 public:
  Keyspace() = default;
  const std::string& name() const { return name_; }
  uint32_t id() const { return id_; }  // never reused within a database file
  bool valid() const { return id_ != 0; }

 private:
  friend class Database;
  friend class Transaction;
  Keyspace(std::string name, uint32_t id, uint64_t db_tag)
      : name_(std::move(name)), id_(id), db_tag_(db_tag) {}
  std::string name_;
  uint32_t id_ = 0;
  uint64_t db_tag_ = 0;  // which open Database made the handle
};

// What CheckIntegrity found in one tree (btree's CheckReport, per keyspace).
struct KeyspaceCheck {
  std::string name;  // "(catalog)" for the system catalog
  uint32_t id = 0;   // 0 for the catalog
  uint64_t records = 0, delete_marked = 0;
  uint64_t leaf_pages = 0, node_pages = 0, overflow_pages = 0;
  uint32_t height = 0;       // 1: the root is a leaf
  double avg_leaf_fill = 0;  // used bytes / usable bytes over leaves
};

struct DatabaseStats {
  uint64_t pool_hits = 0, pool_misses = 0, pool_reads = 0, pool_writes = 0, pool_evictions = 0;
  uint64_t pool_read_calls = 0;  // read requests to the file for the pages read
  // Of the pages read, those read ahead for scans, and of those, the ones evicted unused
  // (Innodb_buffer_pool_read_ahead, Innodb_buffer_pool_read_ahead_evicted).
  uint64_t pool_read_ahead = 0, pool_read_ahead_evicted = 0;
  uint64_t dirty_pages = 0, pool_frames = 0;
  // Frames holding no page / a page (of which in the LRU's old sublist), as the monitor's "Free
  // buffers", "Database pages", "Old database pages"; pages allocated since open ("created").
  uint64_t pool_free_frames = 0, pool_pages = 0, pool_old_pages = 0, pages_created = 0;
  uint64_t file_pages = 0, free_pages = 0;
  uint64_t logical_bytes = 0, physical_bytes = 0;
  uint64_t redo_lsn = 0;
  uint64_t commits = 0, rollbacks = 0;
  // The durable redo log (zero for ":memory:").
  uint64_t log_durable_lsn = 0, checkpoint_lsn = 0;
  uint64_t log_writes = 0, log_syncs = 0, log_bytes_written = 0;
  uint64_t checkpoints = 0;
  uint64_t durable_commits = 0;  // commits that logged a commit record (read-only ones do not)
  // Locks (lock/lock_sys.h), from live structures.
  uint64_t lock_structs = 0;         // all transactions' lock structs (table + record)
  uint64_t record_lock_structs = 0;  // "lock structs in row lock hash table"
  uint64_t lock_heap_bytes = 0;
  uint64_t row_locks = 0;
  uint64_t row_lock_waits = 0, row_lock_current_waits = 0;  // Innodb_row_lock_waits, ...
  uint64_t row_lock_time_us = 0, row_lock_time_max_us = 0;  // Innodb_row_lock_time(_max), µs
  uint64_t lock_wait_timeouts = 0, deadlocks = 0;
  // Metadata locks (Transaction::LockMetadata; lock/metadata_lock.h).
  uint64_t metadata_lock_waits = 0, metadata_lock_current_waits = 0;
  uint64_t metadata_lock_timeouts = 0;
  uint64_t metadata_locks_held = 0;  // (transaction, name) pairs held now
  // MVCC.
  uint64_t trx_id_counter = 0;       // the next transaction id
  uint64_t active_transactions = 0;  // with an id (writers and locking readers)
  uint64_t read_views = 0;           // open
  uint64_t history_list_length = 0;  // committed update undo logs not yet purged
  uint64_t purged_records = 0;       // delete-marked records removed by purge
  // The table-locking engine's table locks (minnow/table_lock_engine.h): MySQL's
  // Table_locks_immediate (granted without a wait) and Table_locks_waited (had to wait).
  uint64_t table_locks_immediate = 0, table_locks_waited = 0;
};

// One transaction's locks, as SHOW ENGINE INNODB STATUS prints them: "N lock struct(s), heap
// size H, M row lock(s)".
struct TransactionLockInfo {
  uint64_t trx_id = 0;  // 0 until the transaction writes or locks
  uint64_t lock_structs = 0;
  uint64_t heap_bytes = 0;
  // Record locks held (one per record, supremum included) plus the record it waits for, if it
  // waits: InnoDB's lock_number_of_rows_locked counts the waiting request's bit too.
  uint64_t row_locks = 0;
};

// What opening the database did to bring it back to its last committed state. A clean Close
// leaves nothing to recover (recovered == false).
struct RecoveryReport {
  bool recovered = false;            // the log held records past the checkpoint, or pages were torn
  uint64_t checkpoint_lsn = 0;       // redo started here
  uint64_t end_lsn = 0;              // and ended here (where the log resumes)
  uint64_t log_bytes = 0;            // log scanned, undo records of open transactions included
  uint64_t redo_groups_applied = 0;  // mini-transactions replayed
  uint64_t pages_repaired = 0;       // torn pages restored from the doublewrite buffer
  uint64_t transactions_rolled_back = 0;  // left uncommitted by the crash
  bool torn_log_tail = false;             // a half-written log record was cut off at the end
  double millis = 0;                      // time spent recovering
  // Heap tables (minnow/table_lock_engine.h) whose indexes disagreed with their heap after the
  // crash and were rebuilt from it.
  uint64_t heap_tables_repaired = 0;
  // "recovered log 1200..98304 (97104 bytes): 513 redo groups, 2 torn pages repaired,
  //  1 transaction rolled back, in 12.3 ms" or "clean (checkpoint at 98304)".
  std::string ToString() const;
};

// One row of performance_schema.data_locks, from the live lock structs: one per table lock,
// one per locked record, one per waiting request.
struct DataLock {
  uint64_t trx_id = 0;    // ENGINE_TRANSACTION_ID
  std::string keyspace;   // OBJECT_NAME
  bool is_table = false;  // LOCK_TYPE: "TABLE" or "RECORD"
  std::string lock_mode;  // LOCK_MODE as MySQL prints it: "IX", "S,REC_NOT_GAP", "X,GAP", ...
  bool waiting = false;   // LOCK_STATUS: "WAITING" or "GRANTED"
  // LOCK_DATA: the record's key; empty for a table lock or the supremum.
  std::string key;
  bool supremum = false;  // the lock is on a page's "supremum pseudo-record"
  uint32_t page_no = 0;   // where the record is (for tests and debugging)
  uint16_t heap_no = 0;
  const char* lock_type() const { return is_table ? "TABLE" : "RECORD"; }
  const char* lock_status() const { return waiting ? "WAITING" : "GRANTED"; }
};

// What a metadata lock is for, as performance_schema.metadata_locks shows it: MySQL's
// LOCK_TYPE ("SHARED_READ", "SHARED_WRITE", "EXCLUSIVE", ...) and LOCK_DURATION ("TRANSACTION",
// "STATEMENT", "EXPLICIT"). Kept and reported only: compatibility is the LockMode's. Static
// strings; null: "SHARED" or "EXCLUSIVE" by the mode, and "TRANSACTION".
struct MetadataLockLabel {
  const char* type = nullptr;
  const char* duration = nullptr;
};

// One row of performance_schema.metadata_locks: a metadata lock request (Transaction::
// LockMetadata), granted or waiting. A transaction that asked for one name under several labels
// has a granted row for each.
struct MetadataLock {
  std::string name;                  // as given to LockMetadata
  LockMode mode = LockMode::kShare;  // held, or asked for while pending
  std::string type;                  // LOCK_TYPE (the label's, else by the mode)
  std::string duration;              // LOCK_DURATION (the label's, else "TRANSACTION")
  bool pending = false;              // LOCK_STATUS: "PENDING" or "GRANTED"
  uint64_t owner = 0;                // the owner's Transaction::metadata_lock_owner()
  uint64_t ticket = 0;               // OBJECT_INSTANCE_BEGIN: the request's number
  const char* lock_status() const { return pending ? "PENDING" : "GRANTED"; }
};

// One row of performance_schema.data_lock_waits: `requesting` waits for `blocking`.
struct DataLockWait {
  DataLock requesting;
  DataLock blocking;
};

// The latest deadlock the lock system found (SHOW ENGINE INNODB STATUS's LATEST DETECTED
// DEADLOCK): the transactions of the cycle, what each waited for and held, and the victim. A
// cycle may run through metadata-lock waits (Transaction::LockMetadata): such a transaction's
// wait is metadata_wait, and what it waits for is the next one's metadata_holds.
struct DeadlockReport {
  struct Trx {
    uint64_t trx_id = 0;         // 0: a transaction holding only metadata locks (no id)
    uint64_t mdl_owner = 0;      // its Transaction::metadata_lock_owner()
    TransactionLockInfo locks;   // at the time of the deadlock
    uint64_t rows_modified = 0;  // as TransactionInfo::rows_modified ("undo log entries")
    DataLock waiting_for;        // the request it waited on (unless waits_for_metadata)
    // Its granted locks on the record (or table) that the previous transaction of the cycle
    // (cycle[i - 1], the last for the first) waits for: what blocks that one.
    std::vector<DataLock> holds;
    bool waits_for_metadata = false;
    MetadataLock metadata_wait;  // waits_for_metadata: the metadata lock it waited for
    // When the previous transaction waits for a metadata lock: this one's request on that
    // name that blocks it (granted, or a pending exclusive one, which new shared requests
    // queue behind).
    std::vector<MetadataLock> metadata_holds;
  };
  int64_t unix_time = 0;   // when it was found (seconds since the epoch)
  std::vector<Trx> cycle;  // cycle[i] waits for cycle[i + 1] (the last for the first)
  uint64_t victim_trx_id = 0;
  size_t victim_index = 0;  // cycle[victim_index] was rolled back
};

// One row of information_schema.innodb_trx: a transaction that has written or locked.
struct TransactionInfo {
  uint64_t trx_id = 0;
  double active_seconds = 0;  // since it got its id
  IsolationLevel isolation = IsolationLevel::kRepeatableRead;
  bool lock_wait = false;  // trx_state "LOCK WAIT" (else "RUNNING")
  // Undo records written for table keyspaces (InnoDB writes undo for the clustered index
  // only): a change in a secondary-index keyspace (KeyspaceOptions::secondary_of) counts none.
  uint64_t rows_modified = 0;
  TransactionLockInfo locks;
  DataLock waiting_for;  // the request it waits on, if lock_wait
  // If lock_wait: when (wall clock) the current wait began (trx_wait_started).
  std::chrono::system_clock::time_point wait_started{};
};

class Database {
 public:
  // Opens or creates the database. kCorruption for a damaged or foreign file, kNotSupported for
  // a newer format, kInvalidArgument for bad options, kNoSpace for a full disk. A failed Open
  // removes the files it created (a new database's data file, P.redo/, P.dblwr), never a file
  // that existed before. Reopening needs no new disk space while the log's last segment has
  // room, so a database that filled its disk can still be opened to read or drop tables.
  // With Options::read_only (see there) nothing is created or written and every write returns
  // kReadOnly; a database that needs crash recovery is refused with kReadOnly. A file the
  // operating system will not open for writing (EACCES, EROFS) fails with kReadOnly, whose
  // message says to open it read-only.
  static Result<std::unique_ptr<Database>> Open(const Options& options);
  ~Database();  // Close()s if still open, ignoring its error: call Close() to see it.

  // Stops purge, rolls back every active transaction, flushes everything and closes the file.
  // Afterwards every call (on the Database and on its sessions, transactions and iterators)
  // returns kClosed. REQUIRES: no other thread is inside a call on this database's objects.
  Status Close();

  // Names: 1 to 64 characters of [A-Za-z0-9_$.]. kDuplicateKey if it exists.
  // With options.secondary_of (kInvalidArgument unless it names a live keyspace that is not
  // itself a secondary index) the keyspace is a secondary index of that table, as InnoDB's:
  //  - its table locks are the owner's: the IS/IX a read or write takes, LockTable and
  //    DropKeyspace's X lock the owner's table (one table lock per table; data_locks shows it
  //    under the owner's name);
  //  - Put/Insert/Erase of an existing record lock it implicitly: they wait if another
  //    transaction holds (or waits ahead for) a conflicting lock on the record, and otherwise
  //    create no lock struct; the record's trx id is the lock, which a later locking read or
  //    write of another transaction turns into an explicit X,REC_NOT_GAP lock of the writer
  //    (as an insert's new record is locked in any keyspace). A lock that had to wait is held
  //    explicitly once granted;
  //  - its undo records do not count in TransactionInfo::rows_modified.
  // The ownership is persisted; a file from before owners existed opens with none. Dropping the
  // owner leaves its indexes (their table locks stay on the dropped owner's id).
  Status CreateKeyspace(std::string_view name, const KeyspaceOptions& options = {});
  // Frees the keyspace's pages and forgets its name; its handles become invalid. kNotFound if
  // absent. Takes an X table lock first (a secondary index: its owner's), so it waits
  // (kLockWaitTimeout) until no transaction holds a lock on the table (a transaction of this
  // thread that has written or locked in it must end first). REQUIRES: no transaction reads
  // it consistently meanwhile.
  Status DropKeyspace(std::string_view name);
  // A handle for the per-call API; kNotFound if absent.
  Result<Keyspace> OpenKeyspace(std::string_view name);
  // The names, sorted.
  Result<std::vector<std::string>> ListKeyspaces();
  // thr_lock's max_write_lock_count for every heap table's table lock (lock/table_lock.h rule
  // (4)); ~0 (the default): no limit. Thread-safe.
  void set_max_write_lock_count(uint64_t n);

  Result<std::unique_ptr<Session>> NewSession();

  // Runs every tree's Check() (key order, links, free space, ...). kCorruption names the page.
  Status CheckIntegrity();
  // The same, also reporting each tree (the catalog first). On an error, `reports` holds the
  // trees checked before the damaged one.
  Status CheckIntegrity(std::vector<KeyspaceCheck>* reports);
  DatabaseStats stats() const;
  // Lock introspection from the live lock structs (a consistent picture of each lock-sys shard;
  // keys are read from the pages afterwards, so a record that moved meanwhile may show its new
  // neighbour's key or none).
  Result<std::vector<DataLock>> DataLocks();
  Result<std::vector<DataLockWait>> DataLockWaits();
  // The metadata locks held and waited for, by name (holders first, then waiters in arrival
  // order): one consistent picture.
  Result<std::vector<MetadataLock>> MetadataLocks();
  // The transactions that have an id (they wrote or locked), oldest first.
  Result<std::vector<TransactionInfo>> Transactions();
  // What Open had to recover.
  const RecoveryReport& recovery_report() const;
  // The options the database was opened with.
  const Options& options() const;
  // The latest deadlock found since Open, if any.
  std::optional<DeadlockReport> LatestDeadlock() const;
  // The keyspace's tree now, counted by walking it under page latches (no locks, no MVCC:
  // `records` counts every record, delete-marked ones too, which `delete_marked` also counts).
  // For SHOW TABLE STATUS. kInvalidArgument for a bad handle. (The walk is CheckKeyspace's.)
  Result<KeyspaceCheck> InspectKeyspace(const Keyspace& ks);
  // One keyspace's integrity check (CHECK TABLE): the tree's Check(), as CheckIntegrity runs it
  // on every tree; kCorruption names the keyspace, the page and what is wrong, else the tree's
  // counts as InspectKeyspace reports them. What it holds, and so who waits for it:
  //  - no lock and no catalog latch: DDL of other keyspaces, and transactions' reads and
  //    writes, go on;
  //  - the drop latch, shared, for the walk: a DropKeyspace (of any keyspace) waits until it
  //    ends before it frees pages, so no page it walks is freed under it;
  //  - S latches on the path it walks, root to the page it is on (parents before children):
  //    a write waits only while the walk is on the leaf it writes, but one that splits or
  //    merges pages of this tree (it X-latches from the root) waits for the whole walk.
  // So the caller should check one tree at a time and hold nothing a writer needs meanwhile.
  // It sees the tree as it is, uncommitted and delete-marked records included (no MVCC).
  // kInvalidArgument for a bad handle.
  Result<KeyspaceCheck> CheckKeyspace(const Keyspace& ks);

 private:
  friend class Session;
  friend class Transaction;
  friend class Iterator;
  friend class HeapTable;
  struct Impl;
  explicit Database(std::unique_ptr<Impl> impl);
  HeapTables* heap_tables_internal() const;
  std::unique_ptr<Impl> impl_;
};

class Session {
 public:
  ~Session();
  Result<std::unique_ptr<Transaction>> Begin(const TransactionOptions& options = {});

  // Autocommit (MySQL's autocommit=1 outside BEGIN): each call is a transaction of its own,
  // with these options (and TransactionOptions::autocommit set), committed before it returns; a
  // call that fails (kLockWaitTimeout, kDeadlock, kDuplicateKey, ...) is rolled back and has
  // changed nothing.
  void set_autocommit_options(const TransactionOptions& options);
  Result<bool> Get(const Keyspace& ks, std::string_view key, std::string* value,
                   const ReadOptions& ro = {});
  Status Put(const Keyspace& ks, std::string_view key, std::string_view value);
  Status Insert(const Keyspace& ks, std::string_view key, std::string_view value);
  Status Erase(const Keyspace& ks, std::string_view key);

  // From any thread (KILL QUERY): while set, a table-locking engine's table lock wait of this
  // session (HeapTable::Lock) in progress ends with kAborted, and so does every such request
  // that would have to wait.
  void InterruptTableLockWait(bool interrupted);
  // From any thread: true while this session waits for a table-locking engine's table lock
  // (SHOW PROCESSLIST's "Waiting for table level lock").
  bool waiting_for_table_lock();

 private:
  friend class Database;
  friend class HeapTable;
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  // The session as a table lock owner (one per session, thr_lock's THR_LOCK_INFO).
  TableLockOwner* table_lock_owner_internal();
  std::unique_ptr<Impl> impl_;
};

class Transaction {
 public:
  ~Transaction();  // rolls back if still active

  // Returns the value, kNotFound if absent.
  Result<std::string> Get(const Keyspace& ks, std::string_view key, const ReadOptions& ro = {});
  // Like Get into `*value` (reusing its buffer); returns false if absent.
  Result<bool> Get(const Keyspace& ks, std::string_view key, std::string* value,
                   const ReadOptions& ro = {});
  // Inserts or replaces.
  Status Put(const Keyspace& ks, std::string_view key, std::string_view value);
  // Inserts; kDuplicateKey if the key is present (InsertOptions{} locks it S,REC_NOT_GAP).
  Status Insert(const Keyspace& ks, std::string_view key, std::string_view value);
  // Inserts as `options` say: the duplicate's lock, a unique part of a secondary key
  // (kDuplicateKey if a live record shares it), the duplicate's key. The locks taken to find
  // a duplicate stay (as InnoDB's) when the insert fails.
  Status Insert(const Keyspace& ks, std::string_view key, std::string_view value,
                const InsertOptions& options);
  // Removes; kNotFound if absent.
  Status Erase(const Keyspace& ks, std::string_view key);
  // Inserts the records `next` yields (it returns false at the end) in strictly ascending key
  // order. Into an empty keyspace the tree is built bottom-up (a sorted bulk build, leaves
  // filled to 15/16 as InnoDB's) instead of record by record. The views `next` sets must stay
  // valid until its next call. kInvalidArgument if keys do not ascend or are oversize,
  // kDuplicateKey if a key is present; on an error every row of this call is undone.
  Status BulkInsert(
      const Keyspace& ks,
      const std::function<bool(std::string_view* key, std::string_view* value)>& next);
  // A cursor over the keyspace in key order.
  Result<std::unique_ptr<Iterator>> NewIterator(const Keyspace& ks, const ReadOptions& ro = {});
  // Counts the records with lo <= key < hi (hi empty: to the end) that an Iterator with the
  // same ReadOptions and upper_bound hi would return from Seek(lo), and locks what that
  // Iterator would lock (for a non-empty hi: up to and including the record that ends the
  // range, as ro.range_end_lock says), without handing out each record (SQL's COUNT(*) over a
  // key range, as MySQL 8's handler::records()). Consistent reads build old versions only for
  // records whose writer the view may not see. kInvalidArgument if ro.upper_bound is set.
  Result<uint64_t> Count(const Keyspace& ks, std::string_view lo, std::string_view hi,
                         const ReadOptions& ro = {});

  // READ COMMITTED and READ UNCOMMITTED release the lock of a row that a locking read, UPDATE
  // or DELETE read but the WHERE rejected (InnoDB's unlock_row): releases the REC_NOT_GAP
  // lock that this transaction's latest locking Get of `ks` took, if that Get created it (the
  // transaction did not hold it before) and the transaction has not changed the record. Does
  // nothing otherwise, and under REPEATABLE READ and SERIALIZABLE.
  Status UnlockLastGet(const Keyspace& ks);

  // Makes the changes permanent, as durable as Options::flush_log_at_trx_commit says (1: the
  // log is fsynced before Commit returns; concurrent commits share one fsync). An error means
  // the commit did not happen and the database refuses writes until reopened. Afterwards every
  // call but the destructor returns kClosed.
  Status Commit();
  // Undoes every change of the transaction. Afterwards every call returns kClosed.
  Status Rollback();
  // False after Commit/Rollback, after a deadlock rolled it back, and after Database::Close
  // (which rolls active transactions back).
  bool active() const;
  // Its locks now (all zero for a transaction that has not locked anything).
  TransactionLockInfo lock_info() const;
  // Its id, 0 until it first writes or locks. Thread-safe (any thread may ask).
  uint64_t id() const;

  // Statement rollback. Savepoint() marks the changes made so far; RollbackToSavepoint undoes
  // every change made after the mark (newest first) and keeps the transaction, its earlier
  // changes and all its locks, as InnoDB's statement rollback does. kInvalidArgument for a
  // mark from the future.
  uint64_t Savepoint() const;
  Status RollbackToSavepoint(uint64_t savepoint);

  // A table lock for LOCK TABLES: kShare takes S, kExclusive X on the keyspace (a secondary
  // index: on its owner), waiting as record locks do (kLockWaitTimeout, kDeadlock).
  // kInvalidArgument for kNone.
  Status LockTable(const Keyspace& ks, LockMode mode);

  // START TRANSACTION WITH CONSISTENT SNAPSHOT (InnoDB's trx_assign_read_view): under
  // REPEATABLE READ and SERIALIZABLE, opens the transaction's read view now if it has none
  // yet (otherwise its first consistent read does), so its reads see what was committed
  // before this call. Under READ COMMITTED and READ UNCOMMITTED it does nothing (their reads
  // take a view per statement, or none). Takes no lock and gives the transaction no id.
  Status AssignReadView();
  // TransactionOptions::snapshot_isolation for the calls from now on (MariaDB reads
  // innodb_snapshot_isolation at each statement).
  void SetSnapshotIsolation(bool on);

  // A metadata lock (MySQL's MDL) on `name`, any string naming an object (the SQL front uses
  // "schema.table"): kShare for a statement that uses the object, kExclusive for one that
  // changes its definition. Held until the transaction ends (Commit, Rollback, a deadlock
  // rollback, its destructor), never released earlier. Shared locks share; exclusive
  // excludes both; a waiting kExclusive request makes new kShare requests of other
  // transactions wait behind it. Asking again for a mode held, or kShare while holding
  // kExclusive, returns OK at once; kExclusive while holding kShare upgrades (waits to be the
  // only holder). Metadata locks are not the lock system's: they do not conflict with table or
  // record locks, take no transaction id, and are not in DataLocks(). A wait lasts up to
  // TransactionOptions::metadata_lock_wait_timeout_ms (kLockWaitTimeout, the transaction
  // stays active), ends with kAborted on Interrupt(). Deadlock detection covers these waits
  // together with record and table lock waits: a cycle through metadata locks alone or through
  // metadata and row locks ends in kDeadlock for its victim (a transaction waiting for
  // kExclusive only if all of the cycle do), whose whole transaction is rolled back, whichever
  // call of it was waiting. kInvalidArgument for kNone or an empty name.
  Status LockMetadata(std::string_view name, LockMode mode, const MetadataLockLabel& label = {});
  // The number that names this transaction as MetadataLockRow::owner. Thread-safe.
  uint64_t metadata_lock_owner() const;
  // From any thread: true while LockMetadata waits.
  bool waiting_for_metadata_lock() const;

  // From any thread (KILL QUERY): a lock wait (record, table or metadata lock) of this
  // transaction in progress ends now with kAborted ("Query execution was interrupted"), and so
  // does any wait it starts until ClearInterrupt(). Its locks and changes stay; only the
  // waiting call fails.
  void Interrupt();
  void ClearInterrupt();

 private:
  friend class Session;
  friend class Iterator;
  struct Impl;
  explicit Transaction(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A cursor over one keyspace. key()/value() stay valid until the next move. An Iterator must
// not outlive its Transaction. Without a lock mode it reads a snapshot (the transaction's read
// view; under READ COMMITTED one taken when the iterator was made); with one it reads the
// latest committed rows and locks them, a leaf at a time: moving forward it may lock up to the
// end of the leaf it is on (or, with ReadOptions::upper_bound, up to the record that ends the
// range, if that comes first) before returning those rows (InnoDB locks each row as it reads
// it). Under REPEATABLE READ and SERIALIZABLE the locks are next-key locks, and each leaf's
// supremum is locked when the scan passes the leaf's end.
// Once its transaction ends or the database closes, Valid() is false and moves and value()
// return kClosed; once its keyspace is dropped they return kInvalidArgument.
class Iterator {
 public:
  ~Iterator();
  Status Seek(std::string_view key);         // first key >= key
  Status SeekForPrev(std::string_view key);  // last key <= key
  Status SeekToFirst();
  Status SeekToLast();
  // kInvalidArgument unless Valid(); stepping off either end leaves it not Valid().
  Status Next();
  Status Prev();
  bool Valid() const;
  std::string_view key() const;  // empty unless Valid()
  // The value; may read overflow pages, so it can fail. kInvalidArgument unless Valid().
  Result<std::string_view> value();

  // READ COMMITTED and READ UNCOMMITTED (InnoDB's unlock_row, for a row the WHERE rejected):
  // a locking iterator releases its REC_NOT_GAP lock on the current record if its move
  // created it (the transaction did not hold it before) and the transaction has not changed
  // the record; the iterator stays where it is. Does nothing otherwise (and under REPEATABLE
  // READ and SERIALIZABLE, whose locks stay). kInvalidArgument unless Valid().
  Status UnlockCurrent();
  // ReadOptions::semi_consistent: true when the current row is the latest committed version
  // of a record another transaction holds (not locked by this one).
  bool semi_consistent() const;
  // After a semi-consistent row: waits for the lock on its record (kLockWaitTimeout,
  // kDeadlock as any lock wait) and reads again from its key, as a locking read that waits:
  // the iterator then shows the record's latest version, or the next record if it is gone.
  // Does nothing unless semi_consistent(). kInvalidArgument unless Valid().
  Status LockCurrent();

 private:
  friend class Transaction;
  struct Impl;
  explicit Iterator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace minnow
