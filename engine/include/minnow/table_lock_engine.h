#pragma once
// The table-locking engine's API (MyISAM's way; ENGINE=MyISAM): heap tables.
//
//   RETURN_IF_ERROR(HeapTable::Create(db, "t", {.indexes = {{"PRIMARY", true}, {"v", false}}}));
//   ASSIGN_OR_RETURN(HeapTable t, HeapTable::Open(db, "t"));
//   ASSIGN_OR_RETURN(HeapTableLock w, t.Lock(session, {.type = HeapLockType::kWrite}));
//   ASSIGN_OR_RETURN(HeapRowId id, t.Insert(w, row_bytes, {pk_key, v_key}));
//   RETURN_IF_ERROR(w.Release());  // lets the lock go, then waits until the insert is durable
//
// A heap table is a heap of rows with holes (myisam/row_heap.h) plus zero or more indexes,
// each a B+tree of key -> row position (MyISAM's .MYD and .MYI). The engine does not parse
// rows: the caller gives each row's index keys with the row (one key per index, in the order
// of HeapTableSpec::indexes) and the engine keeps them beside the row in the heap, so that
// Delete, Compact, Check and crash repair need no row format. Data_length counts them.
//
// Table locks only (thr_lock's rules, HeapLockType below; lock/table_lock.h states them in
// full): every row operation takes the HeapTableLock it runs under. Reads need any lock;
// Insert a write lock; Update and Delete a write lock that is not a granted concurrent insert
// (which only appends beside readers); Check a lock that keeps other owners' writers out
// (READ_NO_INSERT, WRITE_LOW_PRIORITY, WRITE, WRITE_ONLY); Compact one that keeps every other
// owner out (WRITE_LOW_PRIORITY, WRITE, WRITE_ONLY). kInvalidArgument otherwise, or for a lock
// of another table or one released. Locks are the only concurrency control: there
// are no transactions and no rollback. A write is in the redo log when it returns and
// durable, as Options::flush_log_at_trx_commit says for a commit (1: the log fsynced), once
// its lock's WaitDurable or Release has returned OK: one log flush for a statement's many rows.
// Release lets the lock go before it waits, as InnoDB releases a transaction's locks before
// its commit's log flush, so other holders may read a write before it is durable; a crash in
// between can lose it only while its own caller has not been told it succeeded. A
// statement's rows stay if a later call fails.
//
// Concurrent insert (MySQL's concurrent_insert, HeapLockOptions::concurrent_insert): a
// kWriteConcurrentInsert request is granted beside readers if the table has no holes (kAuto)
// or always (kAlways; with holes only while readers hold, else it is a plain WRITE that fills
// holes), never with kNever. Several concurrent inserts may hold at once (each asked the
// same check when it comes; lock/table_lock.h rule (1)): their rows are appended one at a
// time under a short latch, each row's heap record and index entries together. Rows inserted
// under a granted concurrent insert are appended at the end of the heap; under any other
// write lock they fill holes first. A reader sees the table as it was when its lock was
// granted: every row complete by then and none after it (Scan stops at the end of file taken
// at the grant, Get of a row appended later returns kNotFound; index lookups may return such
// positions, Get filters them). Beside concurrent inserts that view is the prefix of the heap
// whose rows were complete at the grant: a row being appended is not in it, nor any after it.
// So a reader granted beside a multi-row INSERT sees the rows that INSERT had stored so far;
// MyISAM, with one appender at a time, shows a reader none of them before the INSERT ends.
//
// Durability and crashes: every heap and index change is a redo-logged mini-transaction, each
// atomic. A crash between the heap change of a row and its index entries leaves them apart;
// the next Open, if it had to recover, checks every heap table against its indexes and
// rebuilds the indexes of any that disagree (MyISAM's automatic repair);
// RecoveryReport::heap_tables_repaired counts them. Create, Drop and Compact are ordered so
// that a crash leaks pages at worst, as keyspace DDL does.
//
// Names: as keyspace names (1 to 64 of [A-Za-z0-9_$.]), a namespace of their own. Index names
// 1 to 64 characters, unique within the table; at most 64 indexes.
//
// Thread safety: HeapTable handles may be used from any thread (the table locks order the
// work); a HeapTableLock and a HeapTableScan by one thread at a time. Handles, locks and scans
// must be released before the Database is closed or destroyed.

#include <chrono>
#include <compare>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/db.h"
#include "minnow/status.h"

namespace minnow {

class HeapTableState;
class TableLockTicket;

// thr_lock's lock types, weakest first (lock/table_lock.h has the grant matrix and rules).
enum class HeapLockType : uint8_t {
  kRead,                   // SELECT
  kReadWithSharedLocks,    // SELECT ... LOCK IN SHARE MODE
  kReadHighPriority,       // SELECT HIGH_PRIORITY
  kReadNoInsert,           // INSERT ... SELECT's source, LOCK TABLES ... READ
  kWriteAllowWrite,        // a writer others may read and write beside
  kWriteConcurrentInsert,  // INSERT: appends beside readers when allowed
  kWriteLowPriority,       // INSERT/UPDATE LOW_PRIORITY
  kWrite,                  // UPDATE, DELETE, LOCK TABLES ... WRITE
  kWriteOnly,              // as kWrite; other owners' new requests fail at once
};

enum class ConcurrentInsert : uint8_t {
  kNever = 0,   // concurrent_insert=0 (NEVER)
  kAuto = 1,    // concurrent_insert=1 (AUTO): only while the table has no holes
  kAlways = 2,  // concurrent_insert=2 (ALWAYS): also with holes, appending
};

struct HeapIndexSpec {
  std::string name;
  // Unique: a second row with an equal key is refused (kDuplicateKey). A non-unique index
  // REQUIRES keys of which none is a proper prefix of another (a memcomparable encoding with
  // terminators is), so that key ranges come out in key order.
  bool unique = false;
};

struct HeapTableSpec {
  std::vector<HeapIndexSpec> indexes;
};

// A row's position (data page, slot): fixed while the row lives; a deleted row's position may
// be taken by a later insert; Update may move the row, Compact moves every row.
struct HeapRowId {
  uint32_t page = 0;
  uint16_t slot = 0;
  bool valid() const { return page != 0; }
  friend bool operator==(const HeapRowId&, const HeapRowId&) = default;
  friend auto operator<=>(const HeapRowId&, const HeapRowId&) = default;
};

struct HeapLockOptions {
  HeapLockType type = HeapLockType::kRead;
  // 0: Options::lock_wait_timeout_ms. A wait that lasts longer ends with kLockWaitTimeout.
  std::chrono::milliseconds timeout{0};
  ConcurrentInsert concurrent_insert = ConcurrentInsert::kAuto;
};

// SHOW TABLE STATUS's figures, exact (the index trees are walked).
struct HeapTableStats {
  uint64_t rows = 0;
  uint64_t data_length = 0;  // bytes live rows and holes take (keys stored with rows included)
  uint64_t data_free = 0;    // bytes of the holes
  uint64_t holes = 0;
  uint64_t data_pages = 0;
  uint64_t index_length = 0;  // pages of all index trees * 16 KiB
  // The most data_length can reach: the data pages a row position can name (its page number
  // is 32 bits) times the row bytes one page holds. MyISAM's Max_data_length is the same kind
  // of bound (its row pointer's reach).
  uint64_t max_data_length = 0;
};

// A granted table lock (thr_lock's THR_LOCK_DATA); releases it when destroyed. Move-only.
class HeapTableLock {
 public:
  HeapTableLock();
  HeapTableLock(HeapTableLock&&) noexcept;
  HeapTableLock& operator=(HeapTableLock&&) noexcept;
  ~HeapTableLock();

  bool held() const;
  // The granted type: the requested one, or kWrite for a refused concurrent insert.
  HeapLockType type() const;
  // True for a granted concurrent insert (inserts append).
  bool concurrent_insert() const;
  // Releases the lock and starts the requests it held back, then waits as WaitDurable does
  // and returns its error. The destructor releases too and drops that error (a failed log
  // flush leaves the log failed, so later writes report it); call Release to see it. OK and no
  // effect when not held.
  Status Release();
  // Waits until every write made under this lock is durable (flush_log_at_trx_commit); the
  // lock stays held. OK at once when there is nothing to wait for. A failure is the redo log's.
  Status WaitDurable();

  struct Impl;  // engine-internal

 private:
  friend class HeapTable;
  friend class HeapTableScan;
  std::unique_ptr<Impl> impl_;
};

// Rows in position order, up to the end of file of the lock it was made under (a write lock:
// the end as it is when each page is read). REQUIRES: that HeapTableLock object outlives the
// scan; once it is released, Next returns kInvalidArgument.
class HeapTableScan {
 public:
  ~HeapTableScan();
  // The next row; false at the end.
  Result<bool> Next(HeapRowId* id, std::string* row);

 private:
  friend class HeapTable;
  struct Impl;
  explicit HeapTableScan(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class HeapTable {
 public:
  // kDuplicateKey if the table exists; kInvalidArgument for a bad name or index spec.
  static Status Create(Database* db, std::string_view name, const HeapTableSpec& spec);
  // Waits for a WRITE lock (owner: the dropping call; kLockWaitTimeout after
  // Options::lock_wait_timeout_ms), then forgets the name and frees the pages. Handles become
  // invalid (kInvalidArgument). kNotFound if absent.
  static Status Drop(Database* db, std::string_view name);
  static Result<HeapTable> Open(Database* db, std::string_view name);
  static Result<std::vector<std::string>> List(Database* db);

  HeapTable() = default;
  const std::string& name() const;
  const std::vector<HeapIndexSpec>& indexes() const;

  // Takes a table lock for the session (its TableLockOwner: one per Session). Errors, with
  // nothing held: kLockWaitTimeout, kAborted (Session::InterruptTableLockWait, or another
  // owner holds kWriteOnly), kInvalidArgument (a lock the owner cannot take beside its own:
  // lock/table_lock.h rule (5), or a dropped table).
  Result<HeapTableLock> Lock(Session* session, const HeapLockOptions& options) const;

  // True if the heap has holes (the concurrent_insert=AUTO check).
  Result<bool> has_holes() const;

  // Stores the row and its index entries (keys[i] for index i, at most kMaxKeyBytes - 6
  // bytes). kDuplicateKey (nothing changed) if a unique index has the key; kInvalidArgument
  // for a wrong key count, oversize row or key, or a lock that is not a write lock.
  // `check_first`, if given, runs first under the latch that serializes the table's writers,
  // so that no other writer's row comes between it and the insert (a caller's own uniqueness
  // checks beside other appenders); its error is returned with nothing changed. It may read
  // the table under `lock` but not write it.
  Result<HeapRowId> Insert(const HeapTableLock& lock, std::string_view row,
                           const std::vector<std::string>& keys,
                           const std::function<Status()>& check_first = {}) const;
  // The row at `id`; kNotFound if none (or, under a read lock, appended after its grant).
  Status Get(const HeapTableLock& lock, HeapRowId id, std::string* row) const;
  // The index keys stored with the row (as Insert or Update was given them).
  Result<std::vector<std::string>> GetKeys(const HeapTableLock& lock, HeapRowId id) const;
  Result<std::unique_ptr<HeapTableScan>> Scan(const HeapTableLock& lock) const;
  // Positions whose key in `index` equals `key` (at most one for a unique index), in position
  // order for a non-unique one.
  Result<std::vector<HeapRowId>> Lookup(const HeapTableLock& lock, size_t index,
                                        std::string_view key) const;
  // Positions of keys lo <= key < hi (hi empty: to the end) in key order, at most `limit`.
  Result<std::vector<HeapRowId>> Range(const HeapTableLock& lock, size_t index, std::string_view lo,
                                       std::string_view hi, size_t limit = SIZE_MAX) const;
  // The same positions in descending key order (for a non-unique index, equal keys in
  // descending position order), at most `limit`: the last ones first.
  Result<std::vector<HeapRowId>> RangeDescending(const HeapTableLock& lock, size_t index,
                                                 std::string_view lo, std::string_view hi,
                                                 size_t limit = SIZE_MAX) const;
  // Replaces the row and its keys. In place when it fits, else the row moves (the new
  // position is returned). kNotFound if `id` holds no row; kDuplicateKey (nothing changed).
  Result<HeapRowId> Update(const HeapTableLock& lock, HeapRowId id, std::string_view row,
                           const std::vector<std::string>& keys) const;
  // Removes the row and its index entries; its slot becomes a hole. kNotFound if none.
  Status Delete(const HeapTableLock& lock, HeapRowId id) const;

  // The figures now, taking no table lock (MyISAM's info(): SHOW TABLE STATUS neither waits
  // for a table lock nor counts as one). Latches the table's writers out while it counts (a
  // writer waits for the count, the count for one row operation), so the figures are those
  // between two row operations. kInvalidArgument for a dropped table.
  Result<HeapTableStats> stats() const;
  // OPTIMIZE TABLE: rewrites the heap without holes and rebuilds every index. Every row moves.
  Status Compact(const HeapTableLock& lock) const;
  // The heap's Check and each index tree's Check, and that the indexes hold exactly the rows'
  // keys. kCorruption says what is wrong.
  Status Check(const HeapTableLock& lock) const;

 private:
  explicit HeapTable(HeapTableState* state) : state_(state) {}
  // The record at `id` into `rec`, split into its index keys and row bytes (views into `rec`),
  // as a holder of `lock` may see it. What Get and GetKeys share.
  Status ReadRecord(const HeapTableLock& lock, HeapRowId id, std::string* rec,
                    std::vector<std::string_view>* keys, std::string_view* row) const;
  HeapTableState* state_ = nullptr;
};

}  // namespace minnow
