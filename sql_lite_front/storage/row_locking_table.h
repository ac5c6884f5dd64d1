#pragma once
// The row-locking table engine (table_engine.h): a table is a clustered keyspace and one
// keyspace per secondary index (a KeyspaceOptions::secondary_of of the clustered one, so its
// table locks are the table's and its writes lock implicitly), read and written in the
// statement's minnow::Transaction with InnoDB's record locks, MVCC and statement rollback.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/storage/row_locking_cursor.h"
#include "sql_lite_front/storage/table_engine.h"

namespace minnow::sql {

class RowLockingTable final : public TableEngine {
 public:
  RowLockingTable(const OpenTable& table, Transaction* txn, IsolationLevel isolation)
      : table_(table), txn_(txn), isolation_(isolation) {}

  SqlStatus Scan(const ScanRequest& request, CursorVisitor& visitor) override;
  SqlResult<bool> Get(std::string_view primary_key, LockMode lock, LockWait wait,
                      Row* row) override;
  SqlStatus UnlockLastGet() override;
  SqlResult<uint64_t> Count(int index, const KeyRange& range, LockMode lock,
                            LockWait wait) override;
  using TableEngine::Insert;
  using TableEngine::Update;
  SqlStatus Insert(const Row& row, const InsertRequest& request) override;
  SqlResult<bool> Read(std::string_view ref, LockMode lock, Row* row) override;
  SqlStatus Update(std::string_view ref, const Row& old_row, const Row& new_row,
                   const InsertRequest& request) override;
  SqlStatus Delete(std::string_view ref, const Row& row) override;
  SqlStatus LockTable(LockMode mode) override;
  SqlStatus LockForDdl() override;
  SqlStatus BulkLoad(const RowSource& next, bool in_key_order) override;
  SqlStatus BuildIndex(size_t index, const RefRowSource& next) override;
  SqlStatus LoadCounters(TableCounters* counters) override;

 private:
  // Inserts `row`'s entry of index i (its clustered key `ckey`), checking a UNIQUE index's
  // part; 1062 telling the conflict as Insert does.
  SqlStatus InsertEntry(size_t i, const Row& row, std::string_view ckey,
                        const InsertRequest& request);
  // `error`, after undoing the row's writes since `savepoint` if it is a 1062.
  SqlStatus UndoRow(uint64_t savepoint, SqlStatus error);
  const Keyspace& KeyspaceOf(int index) const {
    return index == kClusteredIndex ? table_.clustered : table_.indexes[index];
  }
  const OpenTable& table_;
  Transaction* const txn_;
  const IsolationLevel isolation_;
  std::string value_;  // Get's buffer
};

}  // namespace minnow::sql
