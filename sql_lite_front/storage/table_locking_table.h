#pragma once
// The table-locking table engine (table_engine.h) over the table-locking engine's heap tables
// (minnow/table_lock_engine.h: MyISAM's way, ENGINE=MyISAM). A table is one HeapTable: a heap
// of rows with holes and one heap index per key, each a B+tree of key -> row position:
//   - "PRIMARY" (unique) on EncodePrimaryKey, when the table has a primary key (a table
//     without one has no hidden row id: its rows are named by position only);
//   - one per secondary index, named as it, on EncodeIndexKey(def, index, row, primary key),
//     so its keys and ranges are the row-locking engine's.
// A row is stored as its primary key's length (2 bytes, big-endian) + EncodePrimaryKey +
// EncodeRowValue (the primary key empty without one). A row's ref is its position: page (4
// bytes) and slot (2 bytes), big-endian.
//
// No transactions: every write is durable when it returns and is never undone (a failed
// statement keeps what it wrote before the error). Locks: thr_lock's table locks only. An
// engine opened with a held lock (the statement's, or LOCK TABLES') reads and writes under it
// and lets lock modes be (a table lock already covers the whole table). An engine opened with
// none (DDL and the catalog) takes a lock per call for the session given: READ_NO_INSERT for
// Scan, Get, Count and LoadCounters, WRITE for the writes and LockForDdl, each released as the
// call returns; the DDL's exclusive metadata lock keeps statements out meanwhile.

#include <memory>
#include <string>
#include <string_view>

#include "minnow/table_lock_engine.h"
#include "sql_lite_front/storage/table_engine.h"

namespace minnow::sql {

class TableLockingTable final : public TableEngine {
 public:
  TableLockingTable(const OpenTable& table, const TableLockAccess& access)
      : table_(table), access_(access) {}

  SqlStatus Scan(const ScanRequest& request, CursorVisitor& visitor) override;
  SqlResult<bool> Get(std::string_view primary_key, LockMode lock, LockWait wait,
                      Row* row) override;
  SqlStatus UnlockLastGet() override { return SqlStatus::OK(); }  // no row locks
  SqlResult<uint64_t> Count(int index, const KeyRange& range, LockMode lock,
                            LockWait wait) override;
  using TableEngine::Insert;
  using TableEngine::Update;
  SqlStatus Insert(const Row& row, const InsertRequest& request) override;
  SqlResult<bool> Read(std::string_view ref, LockMode lock, Row* row) override;
  SqlStatus Update(std::string_view ref, const Row& old_row, const Row& new_row,
                   const InsertRequest& request) override;
  SqlStatus Delete(std::string_view ref, const Row& row) override;
  // LOCK TABLES takes heap table locks itself (the session holds them): 1105 here.
  SqlStatus LockTable(LockMode mode) override;
  SqlStatus LockForDdl() override;
  SqlStatus BulkLoad(const RowSource& next, bool in_key_order) override;
  // A heap table's indexes are made with it: CREATE INDEX rebuilds the table (1105 here).
  SqlStatus BuildIndex(size_t index, const RefRowSource& next) override;
  SqlStatus LoadCounters(TableCounters* counters) override;

 private:
  // The lock the call runs under: the held one, or one taken into `own` (of `type`).
  SqlResult<const HeapTableLock*> LockFor(HeapLockType type, HeapTableLock* own) const;
  // After a write under `own`: releases it and waits until the write is durable (a lock of
  // the statement's waits as the statement ends; `own` is then empty and this is OK).
  static SqlStatus ReleaseOwn(HeapTableLock* own);
  // 1062 if a row other than `self` holds `row`'s primary key or a UNIQUE index's values
  // (telling request.conflict), checked under `lock`, which keeps other writers out.
  SqlStatus CheckKeysFree(const HeapTableLock& lock, const Row& row, const HeapRowId* self,
                          const InsertRequest& request) const;
  // The heap index keys of `row`, one per heap index in order.
  std::vector<std::string> KeysOf(const Row& row) const;

  const OpenTable& table_;
  const TableLockAccess access_;
};

// The heap table's index specs for `def` ("PRIMARY" unique when it has a primary key, then
// one per secondary index).
HeapTableSpec HeapSpecOf(const TableDef& def);
// The heap index walked for `index` (kClusteredIndex or a TableDef::indexes position); -1 for
// the clustered index of a table without a primary key (the heap itself, in position order).
int HeapIndexOf(const TableDef& def, int index);

// A row's bytes in the heap and back (see above).
void EncodeHeapRow(const TableDef& def, const Row& row, std::string* out);
SqlStatus DecodeHeapRow(const TableDef& def, std::string_view bytes, Row* row);
// A position as a ref and back (false for bytes that are not one).
std::string EncodeHeapRef(HeapRowId id);
bool DecodeHeapRef(std::string_view ref, HeapRowId* id);

}  // namespace minnow::sql
