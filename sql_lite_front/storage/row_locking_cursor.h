#pragma once
// The row-locking engine's cursor (table_engine.h, CursorVisitor): a walk of one index of a
// table through minnow::Iterator, one or one per range. Its per-row calls are inline so that
// a visitor's templated row loop pays no virtual call per row.

#include <memory>
#include <string>
#include <string_view>

#include "minnow/db.h"
#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/status/status_counters.h"
#include "sql_lite_front/storage/key_range.h"
#include "sql_lite_front/storage/table_engine.h"

namespace minnow::sql {

class RowLockingCursor {
 public:
  // Made by RowLockingTable::Scan. `per_range`: Seek makes an iterator for each range
  // (bounded at its end, with its range-end lock); else Open() makes the one all ranges share.
  RowLockingCursor(Transaction* txn, const OpenTable& table, const ScanRequest& request,
                   bool per_range);
  RowLockingCursor(const RowLockingCursor&) = delete;
  RowLockingCursor& operator=(const RowLockingCursor&) = delete;

  // Makes the shared iterator. REQUIRES: not per_range.
  Status Open();

  // Positions on the first entry of `range` in the walk's direction (its last below the end
  // when walking backwards), counting the handler call into `counts` (may be null): one
  // Handler_read_key, and Handler_read_first for a forward walk from the index's start or
  // Handler_read_last for a backward one from its end (InnoDB's index_first and index_last
  // count both). The
  // range must outlive the walk of it.
  Status Seek(const KeyRange& range, StatusCounters* counts);

  // True while on an entry inside the range Seek started.
  bool InRange() {
    if (!it_->Valid()) return false;
    key_ = it_->key();
    return !(reverse_ ? key_ < std::string_view(range_->start) : range_->AfterEnd(key_));
  }

  // Decodes the current entry as the request's fetch says into `*row` (sized to the columns).
  // *present is false if a secondary entry's row is gone (a locking lookup found it deleted).
  // REQUIRES: InRange().
  SqlStatus Read(Row* row, bool* present) {
    *present = true;
    ref_ = key_;
    if (fetch_ == RowFetch::kNone) return SqlStatus::OK();
    const TableDef& def = table_.def;
    if (index_ == nullptr) {
      uint64_t row_id = 0;
      SQL_RETURN_IF_ERROR(DecodePrimaryKey(def, key_, row, &row_id));
      if (fetch_ != RowFetch::kRow) return SqlStatus::OK();
      Result<std::string_view> v = it_->value();
      if (!v.ok()) return FromStatus(v.status(), table_.def.name);
      return DecodeRowValue(def, *v, row);
    }
    std::string_view entry_value;
    if (index_value_) {
      Result<std::string_view> v = it_->value();
      if (!v.ok()) return FromStatus(v.status(), table_.def.name);
      entry_value = *v;
    }
    SQL_RETURN_IF_ERROR(DecodeIndexKey(def, *index_, key_, entry_value, row, &clustered_key_));
    ref_ = clustered_key_;
    if (fetch_ != RowFetch::kRow) return SqlStatus::OK();
    // The row itself, locked REC_NOT_GAP when the walk locks (InnoDB's clustered lookup from
    // a secondary index).
    Result<bool> got = txn_->Get(table_.clustered, clustered_key_, &value_, row_read_);
    if (!got.ok()) return FromStatus(got.status(), table_.def.name);
    *present = *got;
    if (*present) return DecodeRowValue(def, value_, row);
    return SqlStatus::OK();
  }

  // The current entry's stored value (a secondary entry's texts, EncodeIndexValue), read
  // without decoding anything: for a check on the entry alone. Valid until the next move.
  // REQUIRES: InRange().
  Result<std::string_view> EntryValue() { return it_->value(); }

  // The current row's reference (its clustered key; for kNone the entry's key). Valid until
  // the next move. REQUIRES: Read() was called on this entry.
  std::string_view ref() const { return ref_; }

  Status Next() { return reverse_ ? it_->Prev() : it_->Next(); }

  // READ COMMITTED and READ UNCOMMITTED: the row the WHERE rejected gives its new locks back
  // (the walked entry's and, for a kRow secondary walk, the row's: InnoDB's unlock_row). Does
  // nothing for a walk that does not lock, or under REPEATABLE READ and SERIALIZABLE (the
  // engine's calls say so). REQUIRES: Read() was called on this entry.
  Status Unlock() {
    if (lock_ == LockMode::kNone) return Status::OK();
    RETURN_IF_ERROR(it_->UnlockCurrent());
    if (index_ != nullptr && fetch_ == RowFetch::kRow) return txn_->UnlockLastGet(table_.clustered);
    return Status::OK();
  }
  // ScanRequest::semi_consistent: the current row is another transaction's, read at its
  // latest committed version and not locked; LockCurrent() waits for it and reads it again
  // (then InRange() and Read() as after a move).
  bool SemiConsistent() const { return semi_consistent_ && it_->semi_consistent(); }
  Status LockCurrent() { return it_->LockCurrent(); }

 private:
  Transaction* const txn_;
  const OpenTable& table_;
  const Keyspace& keyspace_;     // the walked index's
  const IndexDef* const index_;  // null for the clustered index
  const LockMode lock_;
  const LockWait wait_;
  const bool semi_consistent_;  // ScanRequest::semi_consistent, for a clustered walk
  const ReadOptions row_read_;  // the clustered lookups of a kRow secondary walk
  const RowFetch fetch_;
  const bool reverse_;
  const bool per_range_;
  const bool index_value_;  // the walked secondary index's entries carry texts (row_codec.h)
  std::unique_ptr<Iterator> iterator_;
  Iterator* it_ = nullptr;
  const KeyRange* range_ = nullptr;
  std::string_view key_, ref_;
  std::string clustered_key_, value_;
};

}  // namespace minnow::sql
