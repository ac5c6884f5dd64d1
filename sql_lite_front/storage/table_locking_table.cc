// The table-locking table engine (table_locking_table.h) and its cursor
// (table_locking_cursor.h).

#include "sql_lite_front/storage/table_locking_table.h"

#include <algorithm>
#include <utility>

#include "sql_lite_front/catalog/key_order.h"
#include "sql_lite_front/storage/table_locking_cursor.h"

namespace minnow::sql {
namespace {

SqlError Internal(std::string_view what) { return SqlErr(kErUnknownError, what); }

// The heap index of a secondary index: after "PRIMARY" when the table has a primary key.
size_t SecondaryHeapIndex(const TableDef& def, size_t i) {
  return def.has_hidden_primary_key() ? i : i + 1;
}

bool HasUniqueSecondaryIndex(const TableDef& def) {
  return std::any_of(def.indexes.begin(), def.indexes.end(),
                     [](const IndexDef& ix) { return ix.unique; });
}

}  // namespace

HeapTableSpec HeapSpecOf(const TableDef& def) {
  HeapTableSpec spec;
  if (!def.has_hidden_primary_key()) spec.indexes.push_back({"PRIMARY", true});
  for (const IndexDef& ix : def.indexes) spec.indexes.push_back({ix.name, false});
  return spec;
}

int HeapIndexOf(const TableDef& def, int index) {
  if (index == kClusteredIndex) return def.has_hidden_primary_key() ? -1 : 0;
  return static_cast<int>(SecondaryHeapIndex(def, static_cast<size_t>(index)));
}

void EncodeHeapRow(const TableDef& def, const Row& row, std::string* out) {
  out->clear();
  std::string pk;
  if (!def.has_hidden_primary_key()) pk = EncodePrimaryKey(def, row);
  out->push_back(static_cast<char>(pk.size() >> 8));
  out->push_back(static_cast<char>(pk.size() & 0xff));
  out->append(pk);
  EncodeRowValue(def, row, out);
}

SqlStatus DecodeHeapRow(const TableDef& def, std::string_view bytes, Row* row) {
  if (bytes.size() < 2) return Internal("a heap row too short for its header");
  const size_t pk =
      (static_cast<size_t>(static_cast<uint8_t>(bytes[0])) << 8) | static_cast<uint8_t>(bytes[1]);
  if (bytes.size() < 2 + pk) return Internal("a heap row shorter than its primary key");
  if (!def.has_hidden_primary_key()) {
    SQL_RETURN_IF_ERROR(DecodePrimaryKey(def, bytes.substr(2, pk), row));
  }
  return DecodeRowValue(def, bytes.substr(2 + pk), row);
}

std::string EncodeHeapRef(HeapRowId id) {
  std::string ref(6, '\0');
  for (int i = 0; i < 4; ++i) ref[i] = static_cast<char>(id.page >> (24 - 8 * i));
  ref[4] = static_cast<char>(id.slot >> 8);
  ref[5] = static_cast<char>(id.slot & 0xff);
  return ref;
}

bool DecodeHeapRef(std::string_view ref, HeapRowId* id) {
  if (ref.size() != 6) return false;
  auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(ref[i])); };
  id->page = (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
  id->slot = static_cast<uint16_t>((b(4) << 8) | b(5));
  return id->valid();
}

// ---- TableLockingCursor

TableLockingCursor::TableLockingCursor(const OpenTable& table, const HeapTableLock& lock,
                                       const ScanRequest& request)
    : table_(table),
      lock_(lock),
      heap_index_(HeapIndexOf(table.def, request.index)),
      fetch_(request.fetch),
      reverse_(request.reverse),
      first_row_(request.first_row) {}

Status TableLockingCursor::Seek(const KeyRange& range, StatusCounters* counts) {
  ids_.clear();
  at_ = 0;
  range_ = &range;
  limit_ = first_row_ ? 1 : SIZE_MAX;
  if (counts != nullptr) {
    ++(range.start.empty() && !reverse_  ? counts->handler_read_first
       : range.end_unbounded && reverse_ ? counts->handler_read_last
                                         : counts->handler_read_key);
  }
  if (heap_index_ < 0) {
    ASSIGN_OR_RETURN(std::unique_ptr<HeapTableScan> scan, table_.heap.Scan(lock_));
    HeapRowId id;
    for (;;) {
      ASSIGN_OR_RETURN(bool more, scan->Next(&id, &bytes_));
      if (!more) break;
      ids_.push_back(id);
    }
    if (reverse_) std::reverse(ids_.begin(), ids_.end());
    return Status::OK();
  }
  return FetchIds();
}

Status TableLockingCursor::FetchIds() {
  const auto index = static_cast<size_t>(heap_index_);
  const std::string_view hi = range_->end_unbounded ? std::string_view() : range_->end;
  if (reverse_) {
    ASSIGN_OR_RETURN(ids_, table_.heap.RangeDescending(lock_, index, range_->start, hi, limit_));
  } else {
    ASSIGN_OR_RETURN(ids_, table_.heap.Range(lock_, index, range_->start, hi, limit_));
  }
  return Status::OK();
}

Status TableLockingCursor::FetchMoreIds() {
  // Read again from the range's start, twice as many. Under the walk's lock entries are only
  // added (concurrent inserts: rows absent to it), so every entry not yet handed out is at
  // position at_ or later in the new list; some handed out may come again.
  limit_ *= 2;
  return FetchIds();
}

SqlStatus TableLockingCursor::Read(Row* row, bool* present) {
  ref_ = EncodeHeapRef(ids_[at_]);
  *present = true;
  if (fetch_ == RowFetch::kNone && heap_index_ < 0) return SqlStatus::OK();  // the heap's own
  Status st = table_.heap.Get(lock_, ids_[at_], &bytes_);
  if (st.IsNotFound()) {
    *present = false;
    return SqlStatus::OK();
  }
  if (!st.ok()) return FromStatus(st);
  if (fetch_ == RowFetch::kNone) return SqlStatus::OK();
  return DecodeHeapRow(table_.def, bytes_, row);
}

// ---- TableLockingTable

SqlResult<const HeapTableLock*> TableLockingTable::LockFor(HeapLockType type,
                                                           HeapTableLock* own) const {
  if (access_.held != nullptr) return access_.held;
  if (access_.session == nullptr) return Internal("a heap table opened without a session");
  HeapLockOptions options;
  options.type = type;
  options.timeout = access_.timeout;
  Result<HeapTableLock> got = table_.heap.Lock(access_.session, options);
  if (!got.ok()) return FromStatus(got.status());
  *own = std::move(*got);
  return own;
}

SqlStatus TableLockingTable::ReleaseOwn(HeapTableLock* own) {
  Status st = own->Release();  // a statement's held lock waits at the statement's end instead
  return st.ok() ? SqlStatus::OK() : FromStatus(st);
}

std::vector<std::string> TableLockingTable::KeysOf(const Row& row) const {
  const TableDef& def = table_.def;
  std::vector<std::string> keys;
  std::string pk;
  if (!def.has_hidden_primary_key()) {
    pk = EncodePrimaryKey(def, row);
    keys.push_back(pk);
  }
  for (const IndexDef& ix : def.indexes) keys.push_back(EncodeIndexKey(def, ix, row, pk));
  return keys;
}

SqlStatus TableLockingTable::Scan(const ScanRequest& request, CursorVisitor& visitor) {
  HeapTableLock own;
  SQL_ASSIGN_OR_RETURN(const HeapTableLock* lock, LockFor(HeapLockType::kReadNoInsert, &own));
  TableLockingCursor cursor(table_, *lock, request);
  return visitor.Visit(cursor);
}

SqlResult<bool> TableLockingTable::Get(std::string_view primary_key, LockMode, LockWait, Row* row) {
  HeapTableLock own;
  SQL_ASSIGN_OR_RETURN(const HeapTableLock* lock, LockFor(HeapLockType::kReadNoInsert, &own));
  if (table_.def.has_hidden_primary_key()) return Internal("a point read of a table without key");
  Result<std::vector<HeapRowId>> ids = table_.heap.Lookup(*lock, 0, primary_key);
  if (!ids.ok()) return FromStatus(ids.status());
  std::string bytes;
  for (HeapRowId id : *ids) {
    Status st = table_.heap.Get(*lock, id, &bytes);
    if (st.IsNotFound()) continue;  // appended after the read lock's grant
    if (!st.ok()) return FromStatus(st);
    SQL_RETURN_IF_ERROR(DecodeHeapRow(table_.def, bytes, row));
    return true;
  }
  return false;
}

SqlResult<uint64_t> TableLockingTable::Count(int index, const KeyRange& range, LockMode, LockWait) {
  ScanRequest request;
  request.index = index;
  request.fetch = RowFetch::kNone;
  HeapTableLock own;
  SQL_ASSIGN_OR_RETURN(const HeapTableLock* lock, LockFor(HeapLockType::kReadNoInsert, &own));
  TableLockingCursor cursor(table_, *lock, request);
  Status st = cursor.Seek(range, nullptr);
  if (!st.ok()) return FromStatus(st);
  uint64_t n = 0;
  Row unused;
  for (; cursor.InRange(); (void)cursor.Next()) {
    bool present = true;
    SQL_RETURN_IF_ERROR(cursor.Read(&unused, &present));
    if (present) ++n;
  }
  return n;
}

SqlStatus TableLockingTable::CheckKeysFree(const HeapTableLock& lock, const Row& row,
                                           const HeapRowId* self,
                                           const InsertRequest& request) const {
  const TableDef& def = table_.def;
  auto taken = [&](int index, HeapRowId holder) {
    if (request.conflict != nullptr) *request.conflict = {index, EncodeHeapRef(holder)};
  };
  // In MyISAM's order: the primary key, then each UNIQUE index in key order.
  if (!def.has_hidden_primary_key()) {
    Result<std::vector<HeapRowId>> ids = table_.heap.Lookup(lock, 0, EncodePrimaryKey(def, row));
    if (!ids.ok()) return FromStatus(ids.status());
    for (HeapRowId id : *ids) {
      if (self != nullptr && id == *self) continue;
      taken(kClusteredIndex, id);
      return DuplicateEntry(def, row);
    }
  }
  return ForEachIndexInKeyOrder(def, [&](size_t i) -> SqlStatus {
    const IndexDef& ix = def.indexes[i];
    std::string part;
    if (!ix.unique || !AppendUniquePart(def, ix, row, &part)) return SqlStatus::OK();  // NULL
    const KeyRange r = PrefixRange(part);
    Result<std::vector<HeapRowId>> ids =
        table_.heap.Range(lock, static_cast<size_t>(HeapIndexOf(def, static_cast<int>(i))), r.start,
                          r.end_unbounded ? std::string_view() : r.end, 2);
    if (!ids.ok()) return FromStatus(ids.status());
    for (HeapRowId id : *ids) {
      if (self != nullptr && id == *self) continue;
      taken(static_cast<int>(i), id);
      return DuplicateUniqueEntry(def, ix, row);
    }
    return SqlStatus::OK();
  });
}

SqlStatus TableLockingTable::Insert(const Row& row, const InsertRequest& request) {
  HeapTableLock own;
  SQL_ASSIGN_OR_RETURN(const HeapTableLock* lock, LockFor(HeapLockType::kWrite, &own));
  std::string bytes;
  EncodeHeapRow(table_.def, row, &bytes);
  Result<HeapRowId> id = HeapRowId{};
  if (lock->concurrent_insert() && HasUniqueSecondaryIndex(table_.def)) {
    // Other appenders may hold the table too, and the engine checks only its unique index
    // (the primary key): a UNIQUE index's check runs under the engine's writer latch, so no
    // other appender's row comes between it and this insert.
    SqlStatus keys_free = SqlStatus::OK();
    id = table_.heap.Insert(*lock, bytes, KeysOf(row), [&]() -> Status {
      keys_free = CheckKeysFree(*lock, row, nullptr, request);
      return keys_free.ok() ? Status::OK() : Status(Code::kDuplicateKey, "keys taken");
    });
    if (!keys_free.ok()) return keys_free;
  } else {
    // The engine's own check of the primary key catches a row another appender stored after
    // this one (its 1062 below); nothing else writes under this lock meanwhile.
    SQL_RETURN_IF_ERROR(CheckKeysFree(*lock, row, nullptr, request));
    id = table_.heap.Insert(*lock, bytes, KeysOf(row));
  }
  if (id.status().code() == Code::kDuplicateKey) return DuplicateEntry(table_.def, row);
  if (!id.ok()) return FromStatus(id.status());
  return ReleaseOwn(&own);
}

SqlResult<bool> TableLockingTable::Read(std::string_view ref, LockMode, Row* row) {
  HeapRowId id;
  if (!DecodeHeapRef(ref, &id)) return Internal("not a heap row reference");
  HeapTableLock own;
  SQL_ASSIGN_OR_RETURN(const HeapTableLock* lock, LockFor(HeapLockType::kReadNoInsert, &own));
  std::string bytes;
  Status st = table_.heap.Get(*lock, id, &bytes);
  if (st.IsNotFound()) return false;
  if (!st.ok()) return FromStatus(st);
  SQL_RETURN_IF_ERROR(DecodeHeapRow(table_.def, bytes, row));
  return true;
}

SqlStatus TableLockingTable::Update(std::string_view ref, const Row&, const Row& new_row,
                                    const InsertRequest& request) {
  HeapRowId id;
  if (!DecodeHeapRef(ref, &id)) return Internal("not a heap row reference");
  HeapTableLock own;
  SQL_ASSIGN_OR_RETURN(const HeapTableLock* lock, LockFor(HeapLockType::kWrite, &own));
  SQL_RETURN_IF_ERROR(CheckKeysFree(*lock, new_row, &id, request));
  std::string bytes;
  EncodeHeapRow(table_.def, new_row, &bytes);
  Result<HeapRowId> moved = table_.heap.Update(*lock, id, bytes, KeysOf(new_row));
  if (moved.status().code() == Code::kDuplicateKey) return DuplicateEntry(table_.def, new_row);
  if (!moved.ok()) return FromStatus(moved.status());
  return ReleaseOwn(&own);
}

SqlStatus TableLockingTable::Delete(std::string_view ref, const Row&) {
  HeapRowId id;
  if (!DecodeHeapRef(ref, &id)) return Internal("not a heap row reference");
  HeapTableLock own;
  SQL_ASSIGN_OR_RETURN(const HeapTableLock* lock, LockFor(HeapLockType::kWrite, &own));
  Status st = table_.heap.Delete(*lock, id);
  if (!st.ok()) return FromStatus(st);
  return ReleaseOwn(&own);
}

SqlStatus TableLockingTable::LockTable(LockMode) {
  return Internal("LOCK TABLES takes a MyISAM table's lock in the session");
}

SqlStatus TableLockingTable::LockForDdl() {
  // Waits out every holder (1205 after lock_wait_timeout); released at once: the metadata
  // lock keeps new statements out.
  HeapTableLock own;
  SQL_ASSIGN_OR_RETURN(const HeapTableLock* lock, LockFor(HeapLockType::kWrite, &own));
  (void)lock;
  return SqlStatus::OK();
}

SqlStatus TableLockingTable::BulkLoad(const RowSource& next, bool) {
  HeapTableLock own;
  SQL_ASSIGN_OR_RETURN(const HeapTableLock* lock, LockFor(HeapLockType::kWrite, &own));
  Row row(table_.def.columns.size());
  std::string bytes;
  for (;;) {
    SQL_ASSIGN_OR_RETURN(bool more, next(&row));
    if (!more) return ReleaseOwn(&own);
    SQL_RETURN_IF_ERROR(CheckKeysFree(*lock, row, nullptr, InsertRequest{}));
    EncodeHeapRow(table_.def, row, &bytes);
    Result<HeapRowId> id = table_.heap.Insert(*lock, bytes, KeysOf(row));
    if (id.status().code() == Code::kDuplicateKey) return DuplicateEntry(table_.def, row);
    if (!id.ok()) return FromStatus(id.status());
  }
}

SqlStatus TableLockingTable::BuildIndex(size_t, const RefRowSource&) {
  return Internal("a MyISAM table's indexes are built with the table");
}

SqlStatus TableLockingTable::LoadCounters(TableCounters* counters) {
  const TableDef& def = table_.def;
  counters->next_auto_inc = std::max<uint64_t>(def.auto_increment_start, 1);
  counters->next_row_id = 1;
  const int auto_col = def.AutoIncrementColumn();
  if (auto_col < 0) return SqlStatus::OK();
  HeapTableLock own;
  SQL_ASSIGN_OR_RETURN(const HeapTableLock* lock, LockFor(HeapLockType::kReadNoInsert, &own));
  Result<std::unique_ptr<HeapTableScan>> scan = table_.heap.Scan(*lock);
  if (!scan.ok()) return FromStatus(scan.status());
  Row row(def.columns.size());
  std::string bytes;
  HeapRowId id;
  for (;;) {
    Result<bool> more = (*scan)->Next(&id, &bytes);
    if (!more.ok()) return FromStatus(more.status());
    if (!*more) break;
    SQL_RETURN_IF_ERROR(DecodeHeapRow(def, bytes, &row));
    const Value& v = row[auto_col];
    if (!v.is_null() && v.ToInt() >= 0) {
      counters->next_auto_inc =
          std::max<uint64_t>(counters->next_auto_inc, static_cast<uint64_t>(v.ToInt()) + 1);
    }
  }
  return SqlStatus::OK();
}

}  // namespace minnow::sql
