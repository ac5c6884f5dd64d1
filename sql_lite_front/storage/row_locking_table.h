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
  SqlResult<uint64_t> Count(int index, const KeyRange& range, LockMode lock,
                            LockWait wait) override;
  SqlStatus Insert(const Row& row) override;
  SqlStatus Update(std::string_view ref, const Row& old_row, const Row& new_row) override;
  SqlStatus Delete(std::string_view ref, const Row& row) override;
  SqlStatus LockTable(LockMode mode) override;
  SqlStatus LockForDdl() override;
  SqlStatus BulkLoad(const RowSource& next, bool in_key_order) override;
  SqlStatus BuildIndex(size_t index, const RefRowSource& next) override;
  SqlStatus LoadCounters(TableCounters* counters) override;

 private:
  const Keyspace& KeyspaceOf(int index) const {
    return index == kClusteredIndex ? table_.clustered : table_.indexes[index];
  }
  const OpenTable& table_;
  Transaction* const txn_;
  const IsolationLevel isolation_;
  std::string value_;  // Get's buffer
};

}  // namespace minnow::sql
