#pragma once
// The table-locking engine's tables inside the engine (the public side is
// minnow/table_lock_engine.h). HeapTables owns every heap table of a database and their
// catalog: a system B+tree (no hidden fields) whose root is page 0's system root slot
// kHeapCatalogRootSlot, made by the first Create (a file without heap tables is not changed by
// their engine), one record per table:
//
//   key            value
//   <table name>   version:u8 (=1)  heap_header:u32  n:u8  n x (root:u32 unique:u8 len:u8 name)
//
// Crash ordering, as the keyspace catalog's: Create builds the heap and the index trees, then
// adds the record (a crash before leaks the pages); Drop removes the record, then frees the
// pages; Compact and index repair build the new heap or trees, replace the record (one
// mini-transaction), then free the old pages.
//
// A heap row is stored as its index keys then the row: for each index, len:u16 key bytes;
// then the row bytes. Index records: unique, key -> EncodeRowPosition(pos); non-unique,
// key || position -> empty (myisam/row_position.h).
//
// Latches: HeapTables::latch_ (the name map and the catalog tree) is taken with no table lock
// wait in progress and before page latches; HeapTableState::write_latch serializes a table's
// writers (after its table lock is granted, before page latches) and keeps them, Compact's
// swap and Drop's freeing out of HeapTable::stats, which takes no table lock;
// HeapTableState::end_latch is a leaf, taken under the table lock's latch or write_latch.

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "btree/btree.h"
#include "buffer_pool/buffer_pool.h"
#include "common/latch.h"
#include "lock/table_lock.h"
#include "minnow/db.h"
#include "minnow/table_lock_engine.h"
#include "myisam/row_heap.h"
#include "myisam/row_position.h"
#include "txn/txn_services.h"

namespace minnow {

inline constexpr size_t kHeapCatalogRootSlot = 2;  // page 0 system root slot (1: undo)
inline constexpr size_t kMaxHeapIndexes = 64;

struct HeapIndexState {
  HeapIndexSpec spec;
  std::unique_ptr<BTree> tree;
};

class HeapTables;

// One table. Lives until the HeapTables goes (a dropped one stays, marked), so handles and
// locks never dangle while the database is open.
class HeapTableState {
 public:
  std::string name;
  HeapTables* owner = nullptr;
  std::unique_ptr<TableLock> lock;
  std::atomic<bool> dropped{false};
  // The heap's hole count after the latest write (the concurrent insert check reads it under
  // the table lock's latch, where reading the header page is not wanted).
  std::atomic<uint64_t> holes{0};
  // Concurrent inserts granted and not released (several may hold at once, lock/table_lock.h
  // rule (1)). Counted up in on_grant under the table lock's latch before the appender writes
  // anything, down after its last write as it releases: while it is 0 no append is under way.
  std::atomic<uint32_t> appenders{0};
  // While appenders hold, the end of file up to which every appended row is complete (its
  // heap record and all its index entries written): set by the first appender's grant and
  // by each append as it finishes, under write_latch, so it only moves forward and always
  // ends a prefix of complete rows. A reader granted meanwhile takes it as its end of file
  // (MyISAM's save_state, at row granularity), so it never sees a row whose index entries are
  // still being written. Leaf latch: taken under the table lock's latch or write_latch.
  Latch end_latch;
  HeapEnd complete_end GUARDED_BY(end_latch);
  Status complete_end_status GUARDED_BY(end_latch);
  // Serializes writers, row by row (RowHeap allows one writer at a time; WRITE_ALLOW_WRITE
  // and concurrent inserts let several hold the table lock); held by
  // HeapTable::stats while it counts, and by Compact and Drop while they replace or free pages.
  Latch write_latch;
  // The heap and indexes: replaced only under a lock that excludes every other holder
  // (Compact, repair at open), so readers holding a lock see them stable.
  std::unique_ptr<RowHeap> heap;
  std::vector<HeapIndexState> indexes;
  std::vector<HeapIndexSpec> specs;
};

class HeapTables {
 public:
  // Opens (or creates) the heap catalog of `pool`'s file and every table in it. `svc` gives
  // the log, the flush policy and the writable state at call time.
  static Result<std::unique_ptr<HeapTables>> Open(BufferPool* pool, TxnServices* svc,
                                                  std::chrono::milliseconds lock_wait_timeout);
  ~HeapTables();

  Status Create(std::string_view name, const HeapTableSpec& spec) EXCLUDES(latch_);
  Status Drop(std::string_view name) EXCLUDES(latch_);
  Result<HeapTableState*> Find(std::string_view name) EXCLUDES(latch_);
  Result<std::vector<std::string>> List() EXCLUDES(latch_);

  // Checks every live table (under a READ_NO_INSERT lock each) and the catalog tree, adding a
  // report per tree (none if no heap table was ever created): "(heap catalog)", "<table>" (the
  // heap: records = rows, leaf_pages = data pages), "<table>.<index>".
  Status CheckAll(std::vector<KeyspaceCheck>* reports);
  // After crash recovery: each table whose indexes disagree with its heap gets them rebuilt.
  // Returns how many.
  Result<uint64_t> RepairAfterCrash();

  TableLockGlobals* globals() { return &globals_; }
  TxnServices* services() const { return svc_; }
  BufferPool* pool() const { return pool_; }
  std::chrono::milliseconds lock_wait_timeout() const { return lock_wait_timeout_; }
  uint64_t NextOwnerId() { return next_owner_id_.fetch_add(1, std::memory_order_relaxed); }

  // Before a write: closed / writable checks, log free check.
  Status BeforeWrite() const;
  // After a DDL write: the redo log made as durable as the flush policy says.
  Status AfterWrite() const { return WaitDurable(WrittenLsn()); }
  // The redo log's end now (0 without a log): after a row write, what its lock waits for.
  Lsn WrittenLsn() const;
  // The redo log made durable up to `lsn` as the flush policy says for a commit. OK for 0.
  Status WaitDurable(Lsn lsn) const;

  // Writes `t`'s catalog record as it is now (after Compact or a rebuild).
  Status Persist(HeapTableState* t) EXCLUDES(latch_);
  // Replaces (or adds) the catalog record of `name` with `value` (EncodeEntry's).
  Status PersistRaw(std::string_view name, std::string_view value) EXCLUDES(latch_);
  // Builds new index trees for `t` from its heap, records them, frees the old ones.
  // REQUIRES: no other user of `t` (an exclusive lock, or open time).
  Status RebuildIndexes(HeapTableState* t) EXCLUDES(latch_);
  // Compares the indexes with the heap: kCorruption on the first difference.
  // REQUIRES: no writer of `t` meanwhile.
  Status CrossCheck(HeapTableState* t, std::vector<KeyspaceCheck>* reports);

 private:
  HeapTables(BufferPool* pool, TxnServices* svc, std::chrono::milliseconds timeout)
      : pool_(pool), svc_(svc), lock_wait_timeout_(timeout) {}
  HeapTableState* AddState(std::string name, std::unique_ptr<RowHeap> heap,
                           std::vector<HeapIndexState> indexes) REQUIRES(latch_);

  BufferPool* const pool_;
  TxnServices* const svc_;
  const std::chrono::milliseconds lock_wait_timeout_;
  TableLockGlobals globals_;  // before the tables: outlives their TableLocks
  std::atomic<uint64_t> next_owner_id_{1};
  mutable Latch latch_;
  std::unique_ptr<BTree> catalog_ PT_GUARDED_BY(latch_);  // nullptr until the first Create
  std::vector<std::unique_ptr<HeapTableState>> all_ GUARDED_BY(latch_);
  std::map<std::string, HeapTableState*, std::less<>> by_name_ GUARDED_BY(latch_);
};

// The helpers shared by HeapTables (engine/heap_tables.cc) and the public handles
// (engine/heap_table.cc), defined in engine/heap_table_codec.cc.
namespace heap_internal {

inline RowPosition ToPos(HeapRowId id) { return RowPosition{id.page, id.slot}; }
inline HeapRowId ToId(RowPosition p) { return HeapRowId{p.page, p.slot}; }

// The catalog record's value (the format above).
std::string EncodeEntry(PageNo heap_header, const std::vector<HeapIndexSpec>& specs,
                        const std::vector<PageNo>& roots);

struct DecodedEntry {
  PageNo heap_header = kInvalidPageNo;
  std::vector<HeapIndexSpec> specs;
  std::vector<PageNo> roots;
};

// kCorruption (naming table `name`) if `value` is not a well-formed catalog record.
Result<DecodedEntry> DecodeEntry(std::string_view name, ConstBytes value);

// kInvalidArgument unless `spec` has at most kMaxHeapIndexes indexes with distinct names of 1
// to 64 characters.
Status ValidateSpec(const HeapTableSpec& spec);

// A stored heap record: the index keys, then the row. kInvalidArgument unless `keys` has one
// key per index (`n`), each fits an index record, and the record fits kMaxHeapRowSize.
Status EncodeRecord(std::string_view row, const std::vector<std::string>& keys, size_t n,
                    std::string* out);
// Splits a stored record of a table with `n` indexes; the views point into `rec`.
Status DecodeRecord(std::string_view rec, size_t n, std::vector<std::string_view>* keys,
                    std::string_view* row);

// The index record of (key, pos).
struct IndexRecord {
  std::string key;
  std::string value;
};

IndexRecord MakeIndexRecord(const HeapIndexState& idx, std::string_view key, RowPosition pos);
// Adds the entry of (key, pos) to `idx`: kDuplicateKey naming the index if a unique one has it.
Status InsertEntry(const HeapIndexState& idx, std::string_view key, RowPosition pos);
Status RemoveEntry(const HeapIndexState& idx, std::string_view key, RowPosition pos);
// kDuplicateKey if a unique index holds `key` for a row other than `self`.
Status CheckUnique(const HeapIndexState& idx, std::string_view key, RowPosition self);

// Whether a lock of type `t` keeps every writer of other owners out (READ_NO_INSERT,
// WRITE_LOW_PRIORITY, WRITE, WRITE_ONLY): what Check needs. Of these, the write locks also keep
// every reader of other owners out: what Compact needs.
bool ExcludesWriters(TableLockType t);

// New, empty index trees for `specs`; on failure none are left.
Result<std::vector<HeapIndexState>> NewIndexTrees(BufferPool* pool,
                                                  const std::vector<HeapIndexSpec>& specs);
// Adds to `indexes` the entries of the stored record `rec` as the row at `to`.
Status AddEntries(std::vector<HeapIndexState>* indexes, std::string_view rec, RowPosition to);

}  // namespace heap_internal

}  // namespace minnow
