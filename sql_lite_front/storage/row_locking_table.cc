// The row-locking table engine (row_locking_table.h) and its cursor (row_locking_cursor.h).

#include "sql_lite_front/storage/row_locking_table.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sql_lite_front/catalog/key_order.h"
#include "sql_lite_front/storage/table_locking_table.h"

namespace minnow::sql {
namespace {

// What a locking read of `r` (forward) locks where it ends, as MySQL 8.0 (8.0.18 on): an
// equality range (ref access, an IN list's value: InnoDB's exact-match search) and any range of
// the clustered index gap-lock the first record past it (InnoDB checks the clustered index's
// range end before locking it: only the gap that intersects the range is locked); another range
// of a secondary index (<, <=, BETWEEN, LIKE 'p%') locks that record next-key (the handler reads
// it, then finds it past the range's end); an unbounded range locks to the supremum. The upper
// bound views r.end (an iterator copies it when made).
ReadOptions RangeRead(LockMode lock, LockWait wait, bool clustered, const KeyRange& r) {
  ReadOptions ro{lock};
  ro.wait = wait;
  if (!r.end_unbounded) ro.upper_bound = r.end;
  const bool gap = r.equality || clustered;
  ro.range_end_lock = gap ? RangeEndLock::kGap : RangeEndLock::kNextKey;
  return ro;
}

// Positions `it` at the first entry of `r` in the walk's direction. Counts the handler call:
// every one a Handler_read_key, as InnoDB's index_first and index_last (Handler_read_first,
// Handler_read_last) are index_read calls too.
Status Position(Iterator* it, const KeyRange& r, bool reverse, StatusCounters* counts) {
  if (counts != nullptr) ++counts->handler_read_key;
  if (!reverse) {
    if (r.start.empty()) {
      if (counts != nullptr) ++counts->handler_read_first;
      return it->SeekToFirst();
    }
    return it->Seek(r.start);
  }
  if (r.end_unbounded) {
    if (counts != nullptr) ++counts->handler_read_last;
    return it->SeekToLast();
  }
  RETURN_IF_ERROR(it->SeekForPrev(r.end));
  if (it->Valid() && it->key() == r.end) return it->Prev();  // end is exclusive
  return Status::OK();
}

// "1062 Duplicate entry 'a-b' for key 'PRIMARY'" from a clustered record's columns.
SqlError DuplicateKey(const TableDef& def, std::string_view key, std::string_view value) {
  Row row(def.columns.size());
  std::string shown;
  if (DecodePrimaryKey(def, key, &row).ok() && DecodeRowValue(def, value, &row).ok()) {
    for (size_t i = 0; i < def.primary_key.size(); ++i) {
      if (i > 0) shown += '-';
      const Value& v = row[def.primary_key[i]];
      shown += v.is_null() ? "NULL" : v.ToString();
    }
  }
  return SqlErr(kErDupEntry, "Duplicate entry '", shown, "' for key '", def.name, ".PRIMARY'");
}

// Reads the largest value of `col` (the first column of `ks`'s keys) by seeking to the last
// key; NULL keys sort first, so a NULL last key means no value. Sets *found.
SqlResult<int64_t> LastKeyColumn(Transaction* txn, const Keyspace& ks, const ColumnDef& col,
                                 bool* found) {
  *found = false;
  auto it = txn->NewIterator(ks);
  if (!it.ok()) return FromStatus(it.status());
  Status st = (*it)->SeekToLast();
  if (!st.ok()) return FromStatus(st);
  if (!(*it)->Valid()) return int64_t{0};
  size_t pos = 0;
  SQL_ASSIGN_OR_RETURN(Value v, DecodeKeyColumn(col, (*it)->key(), &pos));
  if (v.is_null()) return int64_t{0};
  *found = true;
  return v.ToInt();
}

// The largest value of column `auto_col` over every row (no key starts with it: a table from
// before such a check). Sets *found.
SqlResult<int64_t> MaxOfColumn(Transaction* txn, const OpenTable& table, int auto_col,
                               bool* found) {
  const TableDef& def = table.def;
  int64_t max = 0;
  auto it = txn->NewIterator(table.clustered);
  if (!it.ok()) return FromStatus(it.status());
  Status st = (*it)->SeekToFirst();
  Row row(def.columns.size());
  while (st.ok() && (*it)->Valid()) {
    auto value = (*it)->value();
    if (!value.ok()) return FromStatus(value.status());
    SQL_RETURN_IF_ERROR(DecodePrimaryKey(def, (*it)->key(), &row));
    SQL_RETURN_IF_ERROR(DecodeRowValue(def, *value, &row));
    if (!row[auto_col].is_null() && (!*found || row[auto_col].ToInt() > max)) {
      max = row[auto_col].ToInt();
      *found = true;
    }
    st = (*it)->Next();
  }
  if (!st.ok()) return FromStatus(st);
  return max;
}

}  // namespace

namespace {

// MySQL's "Duplicate entry" value: the key's columns of `row`, joined by '-'.
std::string DuplicateValue(const Row& row, const std::vector<uint32_t>& columns) {
  std::string value;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) value += '-';
    const Value& v = row[columns[i]];
    value += v.is_null() ? "NULL" : v.ToString();
  }
  return value;
}

}  // namespace

SqlError DuplicateEntry(const TableDef& def, const Row& row) {
  return SqlErr(kErDupEntry, "Duplicate entry '", DuplicateValue(row, def.primary_key),
                "' for key '", def.name, ".PRIMARY'");
}

SqlError DuplicateUniqueEntry(const TableDef& def, const IndexDef& index, const Row& row) {
  return SqlErr(kErDupEntry, "Duplicate entry '", DuplicateValue(row, index.columns), "' for key '",
                def.name, ".", index.name, "'");
}

std::unique_ptr<TableEngine> OpenTableEngine(const OpenTable& table, Transaction* txn,
                                             IsolationLevel isolation,
                                             const TableLockAccess& access) {
  if (table.def.table_locking()) return std::make_unique<TableLockingTable>(table, access);
  return std::make_unique<RowLockingTable>(table, txn, isolation);
}

// ---- RowLockingCursor

RowLockingCursor::RowLockingCursor(Transaction* txn, const OpenTable& table,
                                   const ScanRequest& request, bool per_range)
    : txn_(txn),
      table_(table),
      keyspace_(request.index == kClusteredIndex ? table.clustered : table.indexes[request.index]),
      index_(request.index == kClusteredIndex ? nullptr : &table.def.indexes[request.index]),
      lock_(request.lock),
      wait_(request.wait),
      semi_consistent_(request.semi_consistent && request.index == kClusteredIndex),
      row_read_{request.lock, request.wait},
      fetch_(request.fetch),
      reverse_(request.reverse),
      per_range_(per_range),
      index_value_(index_ != nullptr && IndexKeepsTexts(table.def, *index_)) {}

Status RowLockingCursor::Open() {
  ReadOptions ro{lock_};
  ro.wait = wait_;
  ro.semi_consistent = semi_consistent_;
  ASSIGN_OR_RETURN(iterator_, txn_->NewIterator(keyspace_, ro));
  it_ = iterator_.get();
  return Status::OK();
}

Status RowLockingCursor::Seek(const KeyRange& range, StatusCounters* counts) {
  range_ = &range;
  if (per_range_) {
    iterator_.reset();  // the previous range's goes first
    ReadOptions ro = RangeRead(lock_, wait_, index_ == nullptr, range);
    ro.semi_consistent = semi_consistent_;
    ASSIGN_OR_RETURN(iterator_, txn_->NewIterator(keyspace_, ro));
    it_ = iterator_.get();
  }
  return Position(it_, range, reverse_, counts);
}

// ---- RowLockingTable: reads

SqlStatus RowLockingTable::Scan(const ScanRequest& request, CursorVisitor& visitor) {
  // A forward walk that locks gives each range its own iterator, bounded at the range's end,
  // so that it locks what InnoDB locks there and nothing after it (RangeRead). Other walks
  // (consistent reads: one read view for the statement; backward walks) share one iterator
  // and stop at each range's end themselves.
  const bool locks = request.lock != LockMode::kNone || isolation_ == IsolationLevel::kSerializable;
  const bool per_range = locks && !request.reverse;
  RowLockingCursor cursor(txn_, table_, request, per_range);
  if (!per_range) {
    Status st = cursor.Open();
    if (!st.ok()) return FromStatus(st, table_.def.name);
  }
  return visitor.Visit(cursor);
}

SqlResult<bool> RowLockingTable::Get(std::string_view primary_key, LockMode lock, LockWait wait,
                                     Row* row) {
  ReadOptions ro{lock};
  ro.wait = wait;
  Result<bool> got = txn_->Get(table_.clustered, primary_key, &value_, ro);
  if (!got.ok()) return FromStatus(got.status(), table_.def.name);
  if (!*got) return false;
  uint64_t row_id = 0;
  SQL_RETURN_IF_ERROR(DecodePrimaryKey(table_.def, primary_key, row, &row_id));
  SQL_RETURN_IF_ERROR(DecodeRowValue(table_.def, value_, row));
  return true;
}

SqlStatus RowLockingTable::UnlockLastGet() {
  Status st = txn_->UnlockLastGet(table_.clustered);
  if (!st.ok()) return FromStatus(st, table_.def.name);
  return SqlStatus::OK();
}

SqlResult<uint64_t> RowLockingTable::Count(int index, const KeyRange& range, LockMode lock,
                                           LockWait wait) {
  // The engine counts a leaf at a time, locking what an Iterator would (the hot path of
  // `SELECT count(i) FROM sample`), up to the range's end as Scan's walk of it would
  // (RangeRead). A bounded range's end is never empty (planner.h).
  ReadOptions ro = RangeRead(lock, wait, index == kClusteredIndex, range);
  ro.upper_bound.reset();  // Count's end is its hi
  Result<uint64_t> n = txn_->Count(KeyspaceOf(index), range.start,
                                   range.end_unbounded ? std::string_view() : range.end, ro);
  if (!n.ok()) return FromStatus(n.status(), table_.def.name);
  return *n;
}

SqlStatus RowLockingTable::LoadCounters(TableCounters* counters) {
  const TableDef& def = table_.def;
  counters->next_auto_inc = std::max<uint64_t>(def.auto_increment_start, 1);
  counters->next_row_id = 1;
  if (def.has_hidden_primary_key()) {
    auto it = txn_->NewIterator(table_.clustered);
    if (!it.ok()) return FromStatus(it.status(), table_.def.name);
    Status st = (*it)->SeekToLast();
    if (!st.ok()) return FromStatus(st, table_.def.name);
    if ((*it)->Valid()) {
      Row row(def.columns.size());
      uint64_t row_id = 0;
      SQL_RETURN_IF_ERROR(DecodePrimaryKey(def, (*it)->key(), &row, &row_id));
      counters->next_row_id = row_id + 1;
    }
  }
  const int auto_col = def.AutoIncrementColumn();
  if (auto_col < 0) return SqlStatus::OK();
  const ColumnDef& col = def.columns[auto_col];
  bool found = false;
  int64_t max = 0;
  if (!def.primary_key.empty() && def.primary_key[0] == static_cast<uint32_t>(auto_col)) {
    SQL_ASSIGN_OR_RETURN(max, LastKeyColumn(txn_, table_.clustered, col, &found));
  } else {
    int index = -1;
    for (size_t i = 0; i < def.indexes.size(); ++i)
      if (def.indexes[i].columns[0] == static_cast<uint32_t>(auto_col)) index = static_cast<int>(i);
    if (index >= 0) {
      SQL_ASSIGN_OR_RETURN(max, LastKeyColumn(txn_, table_.indexes[index], col, &found));
    } else {
      SQL_ASSIGN_OR_RETURN(max, MaxOfColumn(txn_, table_, auto_col, &found));
    }
  }
  if (found && max >= 0) {
    counters->next_auto_inc =
        std::max<uint64_t>(counters->next_auto_inc, static_cast<uint64_t>(max) + 1);
  }
  return SqlStatus::OK();
}

// ---- RowLockingTable: writes

namespace {

// What a row-locking write asks the engine's duplicate checks (InsertRequest::overwrite: X).
InsertOptions DuplicateCheck(const InsertRequest& request, std::string* duplicate) {
  InsertOptions io;
  io.duplicate_lock = request.overwrite ? LockMode::kExclusive : LockMode::kShare;
  io.duplicate = duplicate;
  return io;
}

}  // namespace

SqlStatus RowLockingTable::InsertEntry(size_t i, const Row& row, std::string_view ckey,
                                       const InsertRequest& request) {
  const TableDef& def = table_.def;
  const IndexDef& ix = def.indexes[i];
  std::string duplicate;
  InsertOptions io = DuplicateCheck(request, &duplicate);
  std::string entry;
  // A UNIQUE index's entries must not share its columns' part (unless NULL is among them).
  if (ix.unique && AppendUniquePart(def, ix, row, &entry)) io.unique_prefix = entry.size();
  entry.clear();
  AppendIndexKey(def, ix, row, ckey, &entry);
  Status st = txn_->Insert(table_.indexes[i], entry, EncodeIndexValue(def, ix, row), io);
  if (st.ok()) return SqlStatus::OK();
  if (st.code() != Code::kDuplicateKey || io.unique_prefix == 0)
    return FromStatus(st, table_.def.name);
  if (request.conflict != nullptr) {
    request.conflict->index = static_cast<int>(i);
    SQL_RETURN_IF_ERROR(ClusteredKeyOfIndexKey(def, ix, duplicate, &request.conflict->ref));
  }
  return DuplicateUniqueEntry(def, ix, row);
}

// A 1062 leaves the table as it was: the row's writes so far are undone (InnoDB rolls a row
// back to its start on a duplicate); its locks stay.
SqlStatus RowLockingTable::UndoRow(uint64_t savepoint, SqlStatus error) {
  if (error.ok() || error.error().code != kErDupEntry) return error;
  Status st = txn_->RollbackToSavepoint(savepoint);
  if (!st.ok()) return FromStatus(st, table_.def.name);
  return error;
}

SqlStatus RowLockingTable::Insert(const Row& row, const InsertRequest& request) {
  const TableDef& def = table_.def;
  std::string ckey;
  if (def.has_hidden_primary_key()) {
    uint64_t row_id;
    {
      LatchGuard g(table_.counters->latch);
      row_id = table_.counters->next_row_id++;
    }
    AppendRowId(row_id, &ckey);
  } else {
    ckey = EncodePrimaryKey(def, row);
  }
  std::string value;
  EncodeRowValue(def, row, &value);
  std::string duplicate;
  const uint64_t savepoint = txn_->Savepoint();
  Status st = txn_->Insert(table_.clustered, ckey, value, DuplicateCheck(request, &duplicate));
  if (st.code() == Code::kDuplicateKey) {
    if (request.conflict != nullptr) *request.conflict = {kClusteredIndex, duplicate};
    return DuplicateEntry(def, row);
  }
  if (!st.ok()) return FromStatus(st, table_.def.name);
  return ForEachIndexInKeyOrder(
      def, [&](size_t i) { return UndoRow(savepoint, InsertEntry(i, row, ckey, request)); });
}

SqlResult<bool> RowLockingTable::Read(std::string_view ref, LockMode lock, Row* row) {
  return Get(ref, lock, LockWait::kWait, row);  // a ref is the clustered key
}

SqlStatus RowLockingTable::Update(std::string_view ref, const Row& old_row, const Row& new_row,
                                  const InsertRequest& request) {
  const TableDef& def = table_.def;
  const std::string_view old_key = ref;
  const std::string new_key =
      def.has_hidden_primary_key() ? std::string(old_key) : EncodePrimaryKey(def, new_row);
  std::string value;
  EncodeRowValue(def, new_row, &value);
  const uint64_t savepoint = txn_->Savepoint();
  Status s;
  if (new_key == old_key) {
    s = txn_->Put(table_.clustered, old_key, value);
  } else {
    s = txn_->Erase(table_.clustered, old_key);
    if (s.ok()) {
      std::string duplicate;
      s = txn_->Insert(table_.clustered, new_key, value, DuplicateCheck(request, &duplicate));
      if (s.code() == Code::kDuplicateKey) {
        if (request.conflict != nullptr) *request.conflict = {kClusteredIndex, duplicate};
        return UndoRow(savepoint, DuplicateEntry(def, new_row));
      }
    }
  }
  if (!s.ok()) return FromStatus(s, table_.def.name);
  return ForEachIndexInKeyOrder(def, [&](size_t i) -> SqlStatus {
    std::string old_entry = EncodeIndexKey(def, def.indexes[i], old_row, old_key);
    std::string new_entry = EncodeIndexKey(def, def.indexes[i], new_row, new_key);
    std::string new_value = EncodeIndexValue(def, def.indexes[i], new_row);
    Status st;
    if (old_entry == new_entry) {
      // Same key, maybe another text ('alice' -> 'Alice' under a _ci collation, 'a' -> 'a '
      // under PAD SPACE).
      if (new_value == EncodeIndexValue(def, def.indexes[i], old_row)) return SqlStatus::OK();
      st = txn_->Put(table_.indexes[i], new_entry, new_value);
      return st.ok() ? SqlStatus::OK() : FromStatus(st, table_.def.name);
    }
    st = txn_->Erase(table_.indexes[i], old_entry);
    if (!st.ok()) return FromStatus(st, table_.def.name);
    return UndoRow(savepoint, InsertEntry(i, new_row, new_key, request));
  });
}

SqlStatus RowLockingTable::Delete(std::string_view ref, const Row& row) {
  const TableDef& def = table_.def;
  Status s = txn_->Erase(table_.clustered, ref);
  if (!s.ok()) return FromStatus(s, table_.def.name);
  for (size_t i = 0; i < def.indexes.size(); ++i) {
    s = txn_->Erase(table_.indexes[i], EncodeIndexKey(def, def.indexes[i], row, ref));
    if (!s.ok()) return FromStatus(s, table_.def.name);
  }
  return SqlStatus::OK();
}

SqlStatus RowLockingTable::LockTable(LockMode mode) {
  Status st = txn_->LockTable(table_.clustered, mode);
  if (!st.ok()) return FromStatus(st, table_.def.name);
  return SqlStatus::OK();
}

SqlStatus RowLockingTable::LockForDdl() {
  Status st = txn_->LockTable(table_.clustered, LockMode::kExclusive);
  for (size_t i = 0; st.ok() && i < table_.indexes.size(); ++i)
    st = txn_->LockTable(table_.indexes[i], LockMode::kExclusive);
  if (!st.ok()) return FromStatus(st, table_.def.name);
  return SqlStatus::OK();
}

// ---- RowLockingTable: DDL's bulk loads

namespace {

// A secondary index's entries gathered for its bulk build: their keys and values back to back
// in one buffer, each named by its key's first 8 bytes (big-endian, zero-padded: the order of
// the bytes) and where it lies, so a million entries cost no allocation each and most
// comparisons of the sort are one of integers. Entries sort by key alone (an index's keys are
// unique: the clustered key ends each); the value (EncodeIndexValue: the texts of columns whose
// key does not hold them, usually empty) travels with its key.
class GatheredEntries {
 public:
  // The entry's key is appended by `append_key`, then its value by `append_value` (the bytes
  // each adds to the buffer).
  template <typename AppendKey, typename AppendValue>
  void Add(AppendKey&& append_key, AppendValue&& append_value) {
    const size_t at = bytes_.size();
    append_key(&bytes_);
    const size_t key_size = bytes_.size() - at;
    append_value(&bytes_);
    const std::string_view key(bytes_.data() + at, key_size);
    uint64_t prefix = 0;
    for (size_t i = 0; i < 8; ++i) {
      prefix = (prefix << 8) | (i < key.size() ? static_cast<uint8_t>(key[i]) : 0u);
    }
    entries_.push_back(Entry{prefix, at, static_cast<uint32_t>(key_size),
                             static_cast<uint32_t>(bytes_.size() - at - key_size)});
  }
  void Sort() {
    if (RadixSortable()) {
      RadixSort();
      return;
    }
    std::sort(entries_.begin(), entries_.end(), [this](const Entry& a, const Entry& b) {
      if (a.prefix != b.prefix) return a.prefix < b.prefix;
      return Key(a) < Key(b);
    });
  }
  size_t size() const { return entries_.size(); }
  std::string_view key(size_t i) const { return Key(entries_[i]); }
  std::string_view value(size_t i) const {
    const Entry& e = entries_[i];
    return {bytes_.data() + e.offset + e.key_size, e.value_size};
  }
  void Clear() {
    std::vector<Entry>().swap(entries_);
    std::string().swap(bytes_);
  }

 private:
  struct Entry {
    uint64_t prefix;
    size_t offset;  // of the key; the value follows it
    uint32_t key_size, value_size;
  };
  std::string_view Key(const Entry& e) const { return {bytes_.data() + e.offset, e.key_size}; }
  // Every key has the same length of at most 8 bytes (an index of fixed-width columns, such
  // as sbtest's (k, id)): the prefixes alone order them.
  bool RadixSortable() const {
    if (entries_.empty() || entries_[0].key_size > 8) return false;
    for (const Entry& e : entries_)
      if (e.key_size != entries_[0].key_size) return false;
    return true;
  }
  // LSD radix sort on the prefixes, a byte per pass, skipping the bytes all share.
  void RadixSort() {
    std::vector<Entry> other(entries_.size());
    for (int shift = 0; shift < 64; shift += 8) {
      size_t counts[257] = {};
      for (const Entry& e : entries_) ++counts[((e.prefix >> shift) & 0xff) + 1];
      if (counts[((entries_[0].prefix >> shift) & 0xff) + 1] == entries_.size()) continue;
      for (size_t b = 1; b < 257; ++b) counts[b] += counts[b - 1];
      for (const Entry& e : entries_) other[counts[(e.prefix >> shift) & 0xff]++] = e;
      entries_.swap(other);
    }
  }

  std::string bytes_;
  std::vector<Entry> entries_;
};

// 1062 if two of the sorted `entries` of UNIQUE index `ix` share its part without a NULL
// (equal parts are neighbours: a part is a prefix of whole key columns).
SqlStatus CheckUniqueEntries(const TableDef& def, const IndexDef& ix,
                             const GatheredEntries& entries) {
  std::string_view previous;  // the last entry's part; empty: none, or it had a NULL
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string_view entry = entries.key(i);
    bool has_null = false;
    SQL_ASSIGN_OR_RETURN(size_t part, UniquePartLength(def, ix, entry, &has_null));
    const std::string_view unique = has_null ? std::string_view() : entry.substr(0, part);
    if (!unique.empty() && unique == previous) {
      Row row(def.columns.size());
      std::string ckey;
      SQL_RETURN_IF_ERROR(DecodeIndexKey(def, ix, entry, entries.value(i), &row, &ckey));
      return DuplicateUniqueEntry(def, ix, row);
    }
    previous = unique;
  }
  return SqlStatus::OK();
}

// Gathers `row`'s entry of `index` (key and value; `clustered_key` is the row's clustered key).
void GatherEntry(const TableDef& def, const IndexDef& index, bool has_value, const Row& row,
                 std::string_view clustered_key, GatheredEntries* entries) {
  entries->Add([&](std::string* out) { AppendIndexKey(def, index, row, clustered_key, out); },
               [&](std::string* out) {
                 if (has_value) AppendIndexValue(def, index, row, out);
               });
}

// Sorts `entries` of index `ix` and bulk-loads them (keys and values) into `ks` in `txn`; 1062
// for a UNIQUE index's duplicate.
SqlStatus LoadIndex(Transaction* txn, const TableDef& def, const IndexDef& ix, const Keyspace& ks,
                    GatheredEntries* entries) {
  entries->Sort();
  if (ix.unique) SQL_RETURN_IF_ERROR(CheckUniqueEntries(def, ix, *entries));
  size_t i = 0;
  Status st = txn->BulkInsert(ks, [&](std::string_view* k, std::string_view* v) {
    if (i == entries->size()) return false;
    *k = entries->key(i);
    *v = entries->value(i);
    ++i;
    return true;
  });
  if (!st.ok()) return FromStatus(st);
  entries->Clear();
  return SqlStatus::OK();
}

}  // namespace

SqlStatus RowLockingTable::BulkLoad(const RowSource& next, bool in_key_order) {
  const TableDef& def = table_.def;
  std::vector<GatheredEntries> index_entries(def.indexes.size());
  std::vector<bool> has_value(def.indexes.size());
  for (size_t i = 0; i < def.indexes.size(); ++i)
    has_value[i] = IndexKeepsTexts(def, def.indexes[i]);
  Row row(def.columns.size());
  std::string key, value;
  uint64_t rows = 0;
  SqlStatus row_st;
  // The next row's clustered key and value, its index entries gathered; false at the end
  // or on an error (in row_st).
  auto encode = [&]() -> bool {
    SqlResult<bool> more = next(&row);
    if (!more.ok()) row_st = more.error();
    if (!more.ok() || !*more) return false;
    ++rows;
    key.clear();
    if (def.has_hidden_primary_key()) {
      AppendRowId(rows, &key);
    } else {
      for (uint32_t c : def.primary_key) AppendKeyColumn(def.columns[c], row[c], &key);
    }
    value.clear();
    EncodeRowValue(def, row, &value);
    for (size_t i = 0; i < def.indexes.size(); ++i) {
      GatherEntry(def, def.indexes[i], has_value[i], row, key, &index_entries[i]);
    }
    return true;
  };
  if (in_key_order) {
    // Stream: the rows arrive in the new key order.
    Status bs = txn_->BulkInsert(table_.clustered, [&](std::string_view* k, std::string_view* v) {
      if (!row_st.ok() || !encode()) return false;
      *k = key;
      *v = value;
      return true;
    });
    SQL_RETURN_IF_ERROR(row_st);
    if (!bs.ok()) return FromStatus(bs);
  } else {
    std::vector<std::pair<std::string, std::string>> records;
    while (encode()) records.emplace_back(key, value);
    SQL_RETURN_IF_ERROR(row_st);
    std::sort(records.begin(), records.end());
    for (size_t i = 1; i < records.size(); ++i) {
      if (records[i].first == records[i - 1].first) {
        return DuplicateKey(def, records[i].first, records[i].second);
      }
    }
    size_t i = 0;
    Status bs = txn_->BulkInsert(table_.clustered, [&](std::string_view* k, std::string_view* v) {
      if (i == records.size()) return false;
      *k = records[i].first;
      *v = records[i].second;
      ++i;
      return true;
    });
    if (!bs.ok()) return FromStatus(bs);
  }
  for (size_t i = 0; i < def.indexes.size(); ++i) {
    SQL_RETURN_IF_ERROR(LoadIndex(txn_, def, def.indexes[i], table_.indexes[i], &index_entries[i]));
  }
  return SqlStatus::OK();
}

SqlStatus RowLockingTable::BuildIndex(size_t index, const RefRowSource& next) {
  const TableDef& def = table_.def;
  const IndexDef& ix = def.indexes[index];
  const bool has_value = IndexKeepsTexts(def, ix);
  GatheredEntries entries;
  for (;;) {
    const Row* row = nullptr;
    std::string_view ref;
    SQL_ASSIGN_OR_RETURN(bool more, next(&row, &ref));
    if (!more) break;
    GatherEntry(def, ix, has_value, *row, ref, &entries);
  }
  return LoadIndex(txn_, def, def.indexes[index], table_.indexes[index], &entries);
}

}  // namespace minnow::sql
