#pragma once
// The table-locking engine's cursor (table_engine.h, CursorVisitor): a walk of one heap index
// of a heap table (table_locking_table.h), or of the heap itself in position order for the
// clustered index of a table without a primary key. Each Seek reads the range's positions from
// the index (HeapTable::Range, or RangeDescending backwards; a first_row walk reads them a few
// at a time, more as it goes), then Read fetches each row by position under the walk's table
// lock: a row appended after a read lock's grant is absent (Read says *present = false), so a
// reader sees the table as it was when its lock was granted.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/table_lock_engine.h"
#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/status/status_counters.h"
#include "sql_lite_front/storage/key_range.h"
#include "sql_lite_front/storage/table_engine.h"

namespace minnow::sql {

class TableLockingCursor {
 public:
  // Made by TableLockingTable::Scan; `lock` must outlive the cursor.
  TableLockingCursor(const OpenTable& table, const HeapTableLock& lock, const ScanRequest& request);
  TableLockingCursor(const TableLockingCursor&) = delete;
  TableLockingCursor& operator=(const TableLockingCursor&) = delete;

  // Positions on the first entry of `range` in the walk's direction, counting the handler
  // call into `counts` (may be null): one Handler_read_first (forward from the start),
  // Handler_read_last (backward from the end) or Handler_read_key, as MyISAM's. A heap walk takes
  // only the whole range (the clustered index of a table without a primary key has no keys).
  Status Seek(const KeyRange& range, StatusCounters* counts);
  bool InRange() const { return at_ < ids_.size(); }
  // The current entry's row (every column for kKey and kRow); *present false if its row was
  // appended after the read lock's grant. REQUIRES: InRange().
  SqlStatus Read(Row* row, bool* present);
  std::string_view ref() const { return ref_; }
  // No row locks (RowLockingCursor's row-lock calls do nothing here).
  Status Unlock() { return Status::OK(); }
  bool SemiConsistent() const { return false; }
  Status LockCurrent() { return Status::OK(); }
  Status Next() {
    ++at_;
    // A first_row walk read only some of the range's positions: read more.
    if (at_ == ids_.size() && ids_.size() == limit_ && heap_index_ >= 0) return FetchMoreIds();
    return Status::OK();
  }

 private:
  Status FetchIds();      // ids_ from range_, at most limit_
  Status FetchMoreIds();  // ... at most twice as many as before

  const OpenTable& table_;
  const HeapTableLock& lock_;
  const int heap_index_;  // HeapIndexOf; -1: the heap
  const RowFetch fetch_;
  const bool reverse_;
  const bool first_row_;
  const KeyRange* range_ = nullptr;
  size_t limit_ = SIZE_MAX;  // positions read per fetch
  std::vector<HeapRowId> ids_;
  size_t at_ = 0;
  std::string ref_, bytes_;
};

}  // namespace minnow::sql
