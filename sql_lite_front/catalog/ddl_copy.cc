// Copy-ALTER (and OPTIMIZE, TRUNCATE) and CREATE INDEX's build: rows move from the old
// keyspaces into new ones inside one transaction that reads the source with share locks; the
// catalog switches before that transaction commits (its locks keep writers out until then).
//
// Crash safety (table_catalog.h): the new keyspaces are journaled before they are made; the
// switch writes the catalog record in the copy's transaction, so it commits with the copied
// rows or not at all; the old keyspaces are journaled by the switch and dropped after it.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sql_lite_front/catalog/ddl_internal.h"
#include "sql_lite_front/catalog/row_codec.h"

namespace minnow::sql {
namespace {

std::vector<std::string> KeyspaceNames(const TableDef& def) {
  std::vector<std::string> names = {def.keyspace};
  for (const IndexDef& ix : def.indexes) names.push_back(ix.keyspace);
  return names;
}

// The value a column gets in a row that had none (ALTER ADD COLUMN): its DEFAULT, else NULL,
// else MySQL's implicit default (0, '').
Value FillValue(const ColumnDef& c) {
  if (c.default_value.has_value()) return *c.default_value;
  if (c.nullable) return Value::Null();
  if (IsIntegerType(c.type)) return Value::Int(0);
  if (c.type == ColumnType::kDouble) return Value::Double(0);
  return Value::String("");
}

// "1062 Duplicate entry 'a-b' for key 'PRIMARY'" from the key's columns.
SqlError DuplicateEntry(const TableDef& def, std::string_view key) {
  Row row(def.columns.size());
  std::string shown;
  if (DecodePrimaryKey(def, key, &row).ok()) {
    for (size_t i = 0; i < def.primary_key.size(); ++i) {
      if (i > 0) shown += '-';
      const Value& v = row[def.primary_key[i]];
      shown += v.is_null() ? "NULL" : v.ToString();
    }
  }
  return SqlErr(kErDupEntry, "Duplicate entry '", shown, "' for key '", def.name, ".PRIMARY'");
}

// The source's key order is the new one: the same clustered key columns of the same types (or
// hidden row ids on both sides), so rows can stream into the bulk load.
bool SameKeyOrder(const TableDef& from, const TableDef& to, const ColumnMapping& m) {
  if (from.has_hidden_primary_key() || to.has_hidden_primary_key()) {
    return from.has_hidden_primary_key() && to.has_hidden_primary_key();
  }
  if (from.primary_key.size() != to.primary_key.size()) return false;
  for (size_t i = 0; i < to.primary_key.size(); ++i) {
    int src = m.source[to.primary_key[i]];
    if (src < 0 || static_cast<uint32_t>(src) != from.primary_key[i]) return false;
    const ColumnDef& a = from.columns[src];
    const ColumnDef& b = to.columns[to.primary_key[i]];
    if (a.type != b.type || a.is_unsigned != b.is_unsigned || a.nullable != b.nullable)
      return false;
  }
  return true;
}

// Opens handles on `def`'s (new) keyspaces.
SqlStatus OpenKeyspaces(Database* db, const TableDef& def, Keyspace* clustered,
                        std::vector<Keyspace>* indexes) {
  auto ks = db->OpenKeyspace(def.keyspace);
  if (!ks.ok()) return FromStatus(ks.status());
  *clustered = *ks;
  for (const IndexDef& ix : def.indexes) {
    auto iks = db->OpenKeyspace(ix.keyspace);
    if (!iks.ok()) return FromStatus(iks.status());
    indexes->push_back(*iks);
  }
  return SqlStatus::OK();
}

// Sorts `keys` and bulk-loads them (empty values) into `ks`.
SqlStatus LoadIndex(Transaction* txn, const Keyspace& ks, std::vector<std::string>* keys) {
  std::sort(keys->begin(), keys->end());
  size_t i = 0;
  Status st = txn->BulkInsert(ks, [&](std::string_view* k, std::string_view* v) {
    if (i == keys->size()) return false;
    *k = (*keys)[i++];
    *v = {};
    return true;
  });
  if (!st.ok()) return FromStatus(st);
  keys->clear();
  keys->shrink_to_fit();
  return SqlStatus::OK();
}

// Reads the rows of `old` in its key order with share locks, calling `row_fn` with each row
// (decoded into the old table's columns) and its clustered key.
class SourceScan {
 public:
  SourceScan(ExecContext& ctx, const OpenTable& old) : ctx_(ctx), old_(old) {}

  SqlStatus Start(Transaction* txn) {
    ReadOptions ro;
    ro.lock_mode = LockMode::kShare;
    auto it = txn->NewIterator(old_.clustered, ro);
    if (!it.ok()) return FromStatus(it.status());
    it_ = std::move(*it);
    Status st = it_->SeekToFirst();
    if (!st.ok()) return FromStatus(st);
    return SqlStatus::OK();
  }
  bool Valid() const { return it_->Valid(); }
  // Decodes the current row into row(), then steps on.
  SqlStatus Read() {
    SQL_RETURN_IF_ERROR(ctx_.CheckCancel());
    row_.assign(old_.def.columns.size(), Value());
    key_.assign(it_->key());
    auto value = it_->value();
    if (!value.ok()) return FromStatus(value.status());
    SQL_RETURN_IF_ERROR(DecodePrimaryKey(old_.def, key_, &row_));
    SQL_RETURN_IF_ERROR(DecodeRowValue(old_.def, *value, &row_));
    if (ctx_.progress != nullptr) ctx_.progress->fetch_add(1, std::memory_order_relaxed);
    Status st = it_->Next();
    if (!st.ok()) return FromStatus(st);
    return SqlStatus::OK();
  }
  const Row& row() const { return row_; }
  const std::string& key() const { return key_; }

 private:
  ExecContext& ctx_;
  const OpenTable& old_;
  std::unique_ptr<Iterator> it_;
  Row row_;
  std::string key_;
};

}  // namespace

SqlResult<uint64_t> CopyTable(ExecContext& ctx, const OpenTable& old, const TableDef& def,
                              const ColumnMapping& mapping, bool truncate) {
  TableCatalog* catalog = ctx.catalog;
  const std::vector<std::string> new_names = KeyspaceNames(def);
  KeyspaceOptions ko;
  ko.compression = def.compression;
  SQL_RETURN_IF_ERROR(catalog->CreateKeyspaces(new_names, ko, def.keyspace));
  std::unique_ptr<Transaction> txn;
  bool switched = false;
  // Any error: roll back, switch back if needed, drop what was made.
  auto fail = [&](SqlError e) -> SqlError {
    if (txn != nullptr) (void)txn->Rollback();
    txn.reset();
    if (switched) (void)catalog->ReplaceTable(old.def);
    (void)catalog->DropKeyspaces(new_names);
    return e;
  };
  Keyspace clustered;
  std::vector<Keyspace> indexes;
  SqlStatus st = OpenKeyspaces(ctx.db, def, &clustered, &indexes);
  if (!st.ok()) return fail(st.error());
  auto began = ctx.session->kv_session->Begin(DdlTransactionOptions(ctx));
  if (!began.ok()) return fail(FromStatus(began.status()));
  txn = std::move(*began);

  uint64_t rows = 0;
  uint64_t max_auto = 0;
  const int auto_col = def.AutoIncrementColumn();
  if (truncate) {
    // Wait out (1205) every transaction that holds locks on the table.
    Status ls = txn->LockTable(old.clustered, LockMode::kExclusive);
    for (size_t i = 0; ls.ok() && i < old.indexes.size(); ++i)
      ls = txn->LockTable(old.indexes[i], LockMode::kExclusive);
    if (!ls.ok()) return fail(FromStatus(ls));
  } else {
    SourceScan scan(ctx, old);
    st = scan.Start(txn.get());
    if (!st.ok()) return fail(st.error());
    // An auto column added by this ALTER numbers the rows in scan order.
    const bool number_rows = auto_col >= 0 && mapping.source[auto_col] < 0;
    std::vector<std::vector<std::string>> index_keys(def.indexes.size());
    Row row(def.columns.size());
    std::string key, value;
    // Makes the new row from the scan's current one, and its clustered key and value.
    auto transform = [&]() -> SqlStatus {
      SQL_RETURN_IF_ERROR(scan.Read());
      ++rows;
      for (size_t c = 0; c < def.columns.size(); ++c) {
        int src = mapping.source[c];
        Value v;
        if (src >= 0) {
          v = scan.row()[src];
        } else if (number_rows && static_cast<int>(c) == auto_col) {
          v = Value::Int(static_cast<int64_t>(rows));
        } else {
          v = FillValue(def.columns[c]);
        }
        if (mapping.convert[c] || src < 0) {
          SQL_ASSIGN_OR_RETURN(v, CoerceToColumn(def.columns[c], v, rows));
        }
        row[c] = std::move(v);
      }
      if (auto_col >= 0 && !row[auto_col].is_null() && row[auto_col].ToInt() > 0) {
        max_auto = std::max<uint64_t>(max_auto, static_cast<uint64_t>(row[auto_col].ToInt()));
      }
      key.clear();
      if (def.has_hidden_primary_key()) {
        AppendRowId(rows, &key);
      } else {
        key = EncodePrimaryKey(def, row);
      }
      value.clear();
      EncodeRowValue(def, row, &value);
      for (size_t i = 0; i < def.indexes.size(); ++i) {
        index_keys[i].push_back(EncodeIndexKey(def, def.indexes[i], row, key));
      }
      return SqlStatus::OK();
    };
    SqlStatus row_st;
    if (SameKeyOrder(old.def, def, mapping)) {
      // Stream: the rows arrive in the new key order.
      Status bs = txn->BulkInsert(clustered, [&](std::string_view* k, std::string_view* v) {
        if (!row_st.ok() || !scan.Valid()) return false;
        row_st = transform();
        if (!row_st.ok()) return false;
        *k = key;
        *v = value;
        return true;
      });
      if (!row_st.ok()) return fail(row_st.error());
      if (!bs.ok()) return fail(FromStatus(bs));
    } else {
      std::vector<std::pair<std::string, std::string>> records;
      while (scan.Valid()) {
        row_st = transform();
        if (!row_st.ok()) return fail(row_st.error());
        records.emplace_back(key, value);
      }
      std::sort(records.begin(), records.end());
      for (size_t i = 1; i < records.size(); ++i) {
        if (records[i].first == records[i - 1].first) {
          return fail(DuplicateEntry(def, records[i].first));
        }
      }
      size_t i = 0;
      Status bs = txn->BulkInsert(clustered, [&](std::string_view* k, std::string_view* v) {
        if (i == records.size()) return false;
        *k = records[i].first;
        *v = records[i].second;
        ++i;
        return true;
      });
      if (!bs.ok()) return fail(FromStatus(bs));
    }
    for (size_t i = 0; i < def.indexes.size(); ++i) {
      st = LoadIndex(txn.get(), indexes[i], &index_keys[i]);
      if (!st.ok()) return fail(st.error());
    }
  }

  // Switch, then commit: the copy's share locks keep writers out until the switch is done.
  st = catalog->ReplaceTable(def, txn.get());
  if (!st.ok()) return fail(st.error());
  switched = true;
  Status cs = txn->Commit();
  if (!cs.ok()) return fail(FromStatus(cs));
  txn.reset();

  // Counters: a table with new rows numbers on after them.
  if (auto found = catalog->Find(def.name); found != nullptr) {
    LatchGuard g(found->counters->latch);
    TableCounters& c = *found->counters;
    if (truncate) {
      c.next_auto_inc = std::max<uint64_t>(def.auto_increment_start, 1);
      c.next_row_id = 1;
    } else {
      if (auto_col >= 0) c.next_auto_inc = std::max(c.next_auto_inc, max_auto + 1);
      if (def.has_hidden_primary_key()) c.next_row_id = rows + 1;
    }
  }
  (void)catalog->DropKeyspaces(KeyspaceNames(old.def));  // an error leaves orphans for Open
  return rows;
}

SqlStatus BuildIndex(ExecContext& ctx, const OpenTable& old, const TableDef& def, size_t index) {
  TableCatalog* catalog = ctx.catalog;
  const IndexDef& ix = def.indexes[index];
  KeyspaceOptions ko;
  ko.compression = def.compression;
  SQL_RETURN_IF_ERROR(catalog->CreateKeyspaces({ix.keyspace}, ko, def.keyspace));
  std::unique_ptr<Transaction> txn;
  bool switched = false;
  auto fail = [&](SqlError e) -> SqlError {
    if (txn != nullptr) (void)txn->Rollback();
    txn.reset();
    if (switched) (void)catalog->ReplaceTable(old.def);
    (void)catalog->DropKeyspaces({ix.keyspace});
    return e;
  };
  auto ks = ctx.db->OpenKeyspace(ix.keyspace);
  if (!ks.ok()) return fail(FromStatus(ks.status()));
  auto began = ctx.session->kv_session->Begin(DdlTransactionOptions(ctx));
  if (!began.ok()) return fail(FromStatus(began.status()));
  txn = std::move(*began);
  SourceScan scan(ctx, old);
  SqlStatus st = scan.Start(txn.get());
  if (!st.ok()) return fail(st.error());
  std::vector<std::string> keys;
  while (scan.Valid()) {
    st = scan.Read();
    if (!st.ok()) return fail(st.error());
    keys.push_back(EncodeIndexKey(def, ix, scan.row(), scan.key()));
  }
  st = LoadIndex(txn.get(), *ks, &keys);
  if (!st.ok()) return fail(st.error());
  st = catalog->ReplaceTable(def, txn.get());
  if (!st.ok()) return fail(st.error());
  switched = true;
  Status cs = txn->Commit();
  if (!cs.ok()) return fail(FromStatus(cs));
  return SqlStatus::OK();
}

}  // namespace minnow::sql
