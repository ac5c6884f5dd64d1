#pragma once
// The table-engine seam: how the SQL executor and DDL read and write a table's rows, whatever
// stores them (MySQL's handler interface, cut down to what minnow's statements need).
//
// Rows. The executor hands an engine decoded rows (Row: one Value per column, row_codec.h) and
// gets decoded rows back; how a row is stored is the engine's business:
//   - the row-locking engine (row_locking_table.h: minnow::Transaction and Keyspaces, InnoDB's
//     semantics) stores a row as its clustered record (key: the encoded primary key, or a
//     hidden DB_ROW_ID it assigns; value: EncodeRowValue) plus one entry per secondary index
//     (EncodeIndexKey: the index's columns, then the clustered key; value: EncodeIndexValue,
//     the texts of columns whose key does not hold them, usually empty), all written
//     in the statement's transaction;
//   - the table-locking engine (table_locking_table.h: minnow::HeapTable, MyISAM's semantics:
//     no transactions, table locks only, a heap of rows and index B+trees of key -> row
//     position, concurrent insert) stores the row's bytes in the heap and one key per index.
// So secondary-index maintenance lives behind the seam: Insert, Update and Delete change the
// row and every index entry it has.
//
// Row references. Every row a scan hands out comes with a `ref` (MySQL's handler::ref): bytes
// that name the row for an Update or Delete later in the same statement. Row-locking: the
// clustered key. Table-locking: the row's position.
//
// Indexes and ranges. A scan or count walks one index (kClusteredIndex, or a position in
// TableDef::indexes) over KeyRanges of that index's encoded keys (key_range.h): the planner
// encodes them with row_codec's key encoding, which every engine's indexes use.
//
// Lock modes are requests the engine interprets. Row-locking: LockMode::kNone is a consistent
// read (a snapshot; under SERIALIZABLE the engine makes it a share read), kShare and kExclusive
// lock what InnoDB's LOCK IN SHARE MODE and FOR UPDATE lock (record, next-key or gap locks as
// the isolation level says; each call below says which records). Writes take X locks. The
// table-locking engine ignores them: it runs under the table lock its statement holds
// (TableLockAccess), taken before the statement by the session as thr_lock would.
//
// Cost. A TableEngine is opened per statement and table (one allocation); its calls are
// virtual, one per statement, range or written row. A scan hands a cursor, a concrete class
// per engine, to a CursorVisitor, whose row loop is a template instantiated per cursor type:
// no row read pays for a virtual call.
//
// Errors are SQL errors (sql_error.h); the engine's through FromStatus (1205, 1213, 1317 ...).
// A call that fails leaves statement rollback to the session.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "minnow/db.h"
#include "minnow/table_lock_engine.h"
#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/storage/key_range.h"

namespace minnow::sql {

inline constexpr int kClusteredIndex = -1;

// What a scan reads of each entry it walks.
enum class RowFetch : uint8_t {
  kNone,  // nothing: the caller only counts entries (the row is left as it was)
  kKey,   // the walked index's key columns only (a covering walk: no row lookup)
  kRow,   // every column; a secondary walk looks each row up by its ref, locked as the scan
};

struct ScanRequest {
  int index = kClusteredIndex;      // the walked index
  LockMode lock = LockMode::kNone;  // what the walk locks (see Scan)
  LockWait wait = LockWait::kWait;  // ... and what a record locked by another does (NOWAIT, SKIP
                                    // LOCKED: minnow/options.h; the table-locking engine has no
                                    // row locks and ignores it, as MySQL's thr_lock does)
  bool reverse = false;             // walk each range from its end to its start
  RowFetch fetch = RowFetch::kRow;
  // InnoDB's semi-consistent read, for a single-table UPDATE: under READ COMMITTED and READ
  // UNCOMMITTED a forward locking walk of the clustered index does not wait for a row another
  // transaction holds; it hands out the row's latest committed version (SemiConsistent() on
  // the cursor), and the visitor calls LockCurrent() for one the WHERE matches
  // (ReadOptions::semi_consistent). Ignored otherwise.
  bool semi_consistent = false;
  // The visitor stops at the first row it reads that is present (MIN/MAX at an index end):
  // the table-locking cursor then reads a range's positions a few at a time (1, 2, 4, ...)
  // rather than all at once. It may hand out an absent entry (Read: *present false) again.
  bool first_row = false;
};

class RowLockingCursor;    // row_locking_cursor.h
class TableLockingCursor;  // table_locking_cursor.h

// What walks a scan's cursor. One Visit overload per engine's cursor type (a table-locking
// engine adds its own), so implementations write the row loop once as a template over the
// cursor and forward each overload to it. Every cursor type offers (see RowLockingCursor):
//   Status Seek(const KeyRange& range, StatusCounters* counts);  // start a range
//   bool InRange();                                             // on an entry of the range
//   SqlStatus Read(Row* row, bool* present);                    // the entry's row
//   std::string_view ref() const;                               // ... and its reference
//   Status Next();                                              // on to the next entry
//   Status Unlock();          // READ COMMITTED: give back the rejected entry's new row locks
//   bool SemiConsistent() const;  Status LockCurrent();  // ScanRequest::semi_consistent
class CursorVisitor {
 public:
  virtual SqlStatus Visit(RowLockingCursor& cursor) = 0;
  virtual SqlStatus Visit(TableLockingCursor& cursor) = 0;

 protected:
  ~CursorVisitor() = default;
};

// What an Insert does about a duplicate key, and tells of it.
struct InsertRequest {
  // REPLACE and INSERT ... ON DUPLICATE KEY UPDATE, which go on to change the row holding the
  // key: row-locking, the possible duplicates are locked exclusive (InnoDB's X), not shared.
  bool overwrite = false;
  // Set on 1062: the key taken (kClusteredIndex or a TableDef::indexes position) and the ref
  // of the row that holds it (for Read, Update, Delete).
  struct Conflict {
    int index = kClusteredIndex;
    std::string ref;
  };
  Conflict* conflict = nullptr;
};

// Yields the rows of a bulk load, one per call into `*row`; false at the end.
using RowSource = std::function<SqlResult<bool>(Row* row)>;
// Yields the rows of an index build with their refs; false at the end. The views must stay
// valid until the next call.
using RefRowSource = std::function<SqlResult<bool>(const Row** row, std::string_view* ref)>;

// One table, as one statement (or one DDL transaction) sees it. Not thread-safe; must not
// outlive the transaction or the OpenTable it was opened on.
class TableEngine {
 public:
  virtual ~TableEngine() = default;

  // Walks `request.index` with `request.lock`: makes a cursor and calls visitor.Visit with it
  // (the visitor Seeks each range it wants, in the order it wants). Row-locking: a forward
  // walk that locks (a lock mode, or SERIALIZABLE) reads each range through its own engine
  // iterator bounded at the range's end, locking what MySQL 8.0 locks there: the first record
  // past an equality range or a clustered range gap-locked, past another secondary range
  // next-key locked, to the supremum when unbounded; other walks share one iterator (one read
  // view for the statement). A kRow walk of a secondary index reads each row by a point read
  // with the same lock mode (REC_NOT_GAP), as InnoDB's clustered lookup does.
  virtual SqlStatus Scan(const ScanRequest& request, CursorVisitor& visitor) = 0;

  // A point read by the whole primary key (the encoded clustered key): fills every column of
  // `*row` (sized to the columns) and returns true, or false if absent. Row-locking: with a
  // lock mode it locks the record (REC_NOT_GAP) or, under REPEATABLE READ and SERIALIZABLE,
  // the gap where the absent key would go, as InnoDB's unique search.
  // `wait` as ScanRequest::wait (SKIP LOCKED: false for a row another transaction holds).
  virtual SqlResult<bool> Get(std::string_view primary_key, LockMode lock, LockWait wait,
                              Row* row) = 0;

  // READ COMMITTED and READ UNCOMMITTED: releases the row lock that the latest locking Get
  // created, for a row the WHERE rejected (InnoDB's unlock_row). Row-locking only (the
  // table-locking engine has no row locks); nothing under REPEATABLE READ and SERIALIZABLE.
  virtual SqlStatus UnlockLastGet() = 0;

  // The number of entries of `index` in `range`, without handing them out (count(*)'s fast
  // path), locking what Scan's walk of the range with `lock` locks.
  virtual SqlResult<uint64_t> Count(int index, const KeyRange& range, LockMode lock,
                                    LockWait wait) = 0;

  // Writes a new row (REQUIRES: coerced to the columns) and its index entries. 1062
  // "Duplicate entry '<pk>' for key '<table>.PRIMARY'" if its primary key is taken, "...
  // for key '<table>.<index>'" with the index's values if a UNIQUE index holds them (a NULL
  // among them never conflicts); a 1062 leaves the table as it was (row-locking: the row's
  // writes are rolled back, the locks its duplicate checks took stay, as InnoDB's).
  // Row-locking: a hidden primary key gets the table's next DB_ROW_ID; a duplicate check
  // locks as InnoDB's (minnow/options.h InsertOptions): S (request.overwrite: X) on the
  // primary key's duplicate, next-key S (X) on a UNIQUE index's possible duplicates.
  virtual SqlStatus Insert(const Row& row, const InsertRequest& request) = 0;
  SqlStatus Insert(const Row& row) { return Insert(row, InsertRequest{}); }
  // Reads the row `ref` names (a Conflict's), every column, locked as Get locks; false if
  // it is gone.
  virtual SqlResult<bool> Read(std::string_view ref, LockMode lock, Row* row) = 0;
  // Replaces the row `ref` (read in this statement, as `old_row`) by `new_row`, and every
  // index entry that changes. 1062 if a changed primary key or UNIQUE index's values are
  // taken (as Insert, `request` saying how to lock and telling the conflict; the table left
  // as it was).
  virtual SqlStatus Update(std::string_view ref, const Row& old_row, const Row& new_row,
                           const InsertRequest& request) = 0;
  SqlStatus Update(std::string_view ref, const Row& old_row, const Row& new_row) {
    return Update(ref, old_row, new_row, InsertRequest{});
  }
  // Removes the row `ref` (read in this statement, as `row`) and its index entries.
  virtual SqlStatus Delete(std::string_view ref, const Row& row) = 0;

  // LOCK TABLES' table lock: kShare for READ, kExclusive for WRITE, held until the transaction
  // ends; waits as record locks do (1205, 1213). Row-locking: an S or X table lock.
  virtual SqlStatus LockTable(LockMode mode) = 0;
  // DROP's and TRUNCATE's lock: waits out (1205) every transaction holding a lock in the
  // table. Row-locking: an X table lock on the table and on each index's tree (a file from
  // before indexes shared their table's lock has a table lock per tree).
  virtual SqlStatus LockForDdl() = 0;

  // DDL on a new, empty table. Loads the rows `next` yields, with their index entries, in
  // the order they come (a hidden primary key numbers them 1, 2, ...). `in_key_order`: they
  // come in primary key order (streamed into the bulk build); else they are gathered and
  // sorted first, 1062 for two with the same primary key. An error of `next` is returned
  // first.
  virtual SqlStatus BulkLoad(const RowSource& next, bool in_key_order) = 0;
  // Fills the new, empty index `index` from the table's rows as `next` yields them.
  virtual SqlStatus BuildIndex(size_t index, const RefRowSource& next) = 0;

  // Sets `*counters` from the data by consistent reads: next_auto_inc past the largest
  // AUTO_INCREMENT value (kept if bigger), next_row_id past the last hidden row id.
  virtual SqlStatus LoadCounters(TableCounters* counters) = 0;
};

// How a table-locking (MyISAM) table is locked for the engine opened on it; the row-locking
// engine ignores it.
struct TableLockAccess {
  // The table lock the statement holds (taken by the session before the statement, or by
  // LOCK TABLES); must outlive the engine. Null: the engine takes a lock per call itself.
  const HeapTableLock* held = nullptr;
  Session* session = nullptr;            // the owner of the locks the engine takes itself
  std::chrono::milliseconds timeout{0};  // their wait limit (lock_wait_timeout)
};

// Opens the engine that stores `table` (TableDef::table_locking() says which) for a statement
// of `txn` (its isolation level is `isolation`). The table-locking engine keeps no rows in
// `txn` (it has no transactions) and runs under `access`.
std::unique_ptr<TableEngine> OpenTableEngine(const OpenTable& table, Transaction* txn,
                                             IsolationLevel isolation,
                                             const TableLockAccess& access = {});

// "Duplicate entry '5' for key 'sample.PRIMARY'" for the row's primary key: the 1062 an
// engine's Insert and Update return.
SqlError DuplicateEntry(const TableDef& def, const Row& row);
// "Duplicate entry 'a-1' for key 't.k'" for the row's values of UNIQUE index `index`.
SqlError DuplicateUniqueEntry(const TableDef& def, const IndexDef& index, const Row& row);

}  // namespace minnow::sql
