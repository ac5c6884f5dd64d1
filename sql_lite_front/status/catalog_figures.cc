// The figures SHOW TABLE STATUS / COLUMNS / INDEX and information_schema share.

#include "sql_lite_front/status/catalog_figures.h"

#include <algorithm>

#include "minnow/db.h"
#include "sql_lite_front/catalog/key_order.h"
#include "sql_lite_front/catalog/table_catalog.h"

namespace minnow::sql {
namespace {

constexpr uint64_t kPageBytes = 16384;

// Pages of a tree as bytes; records not delete-marked.
struct TreeSize {
  uint64_t bytes = 0;
  uint64_t rows = 0;
};

// nullopt when the keyspace was dropped meanwhile (the table is skipped).
SqlResult<std::optional<TreeSize>> Inspect(Database* db, const Keyspace& ks) {
  auto check = db->InspectKeyspace(ks);
  if (!check.ok()) {
    if (check.status().code() == Code::kInvalidArgument) return std::optional<TreeSize>();
    return FromStatus(check.status());
  }
  TreeSize s;
  s.bytes = (check->leaf_pages + check->node_pages + check->overflow_pages) * kPageBytes;
  s.rows = check->records - std::min(check->records, check->delete_marked);
  return std::optional<TreeSize>(s);
}

std::string CreateOptions(const TableDef& def) {
  std::string options;
  if (def.max_rows > 0) options += "max_rows=" + std::to_string(def.max_rows);
  if (def.compression == Compression::kLz4) {
    if (!options.empty()) options += ' ';
    options += "COMPRESSION=\"lz4\"";
  }
  return options;
}

std::optional<uint64_t> NextAutoIncrement(const OpenTable& table) {
  if (table.def.AutoIncrementColumn() < 0) return std::nullopt;
  LatchGuard g(table.counters->latch);
  return table.counters->next_auto_inc;
}

// MyISAM's row format: Fixed when every column has a fixed length (no VARCHAR, TEXT or BLOB),
// else Dynamic (ROW_FORMAT= is not taken).
const char* HeapRowFormat(const TableDef& def) {
  for (const ColumnDef& c : def.columns) {
    if (c.type == ColumnType::kVarchar || c.type == ColumnType::kText ||
        c.type == ColumnType::kBlob) {
      return "Dynamic";
    }
  }
  return "Fixed";
}

TableFigures Common(const OpenTable& table) {
  const TableDef& def = table.def;
  TableFigures f;
  f.name = def.name;
  f.engine = def.engine;
  f.auto_increment = NextAutoIncrement(table);
  f.create_time = def.create_time;
  f.collation = std::string(TableCollation(def).name);
  f.create_options = CreateOptions(def);
  return f;
}

// A MyISAM table's figures, from the heap table's exact ones (HeapTable::stats, which takes no
// table lock, as MyISAM's info(): it neither waits behind a writer nor counts in
// Table_locks_immediate): Data_length the bytes of live rows and holes, Data_free the holes',
// Index_length the index trees' pages, Max_data_length the most the heap can address. nullopt
// if the table was dropped meanwhile.
SqlResult<std::optional<TableFigures>> HeapFigures(const OpenTable& table) {
  Result<HeapTableStats> st = table.heap.stats();
  if (st.status().code() == Code::kInvalidArgument) return std::optional<TableFigures>();
  if (!st.ok()) return FromStatus(st.status());
  TableFigures f = Common(table);
  const uint64_t live = st->data_length - st->data_free;
  f.row_format = HeapRowFormat(table.def);
  f.rows = st->rows;
  f.avg_row_length = st->rows == 0 ? 0 : live / st->rows;
  f.data_length = st->data_length;
  f.max_data_length = st->max_data_length;
  f.index_length = st->index_length;
  f.data_free = st->data_free;
  return std::optional<TableFigures>(std::move(f));
}

// An InnoDB table's: the clustered tree's pages and records, the secondary trees' pages.
SqlResult<std::optional<TableFigures>> TreeFigures(Database* db, const OpenTable& table,
                                                   uint64_t data_free) {
  SQL_ASSIGN_OR_RETURN(std::optional<TreeSize> clustered, Inspect(db, table.clustered));
  if (!clustered.has_value()) return std::optional<TableFigures>();
  uint64_t index_bytes = 0;
  for (const Keyspace& ks : table.indexes) {
    SQL_ASSIGN_OR_RETURN(std::optional<TreeSize> s, Inspect(db, ks));
    if (!s.has_value()) return std::optional<TableFigures>();
    index_bytes += s->bytes;
  }
  TableFigures f = Common(table);
  f.row_format = "Compact";
  f.rows = clustered->rows;
  f.avg_row_length = f.rows == 0 ? 0 : clustered->bytes / f.rows;
  f.data_length = clustered->bytes;
  f.max_data_length = 0;
  f.index_length = index_bytes;
  f.data_free = data_free;
  return std::optional<TableFigures>(std::move(f));
}

}  // namespace

SqlResult<std::vector<TableFigures>> GatherTableFigures(
    ExecContext& ctx, const std::function<bool(const TableName&)>& want) {
  std::vector<TableFigures> out;
  const uint64_t data_free = ctx.db->stats().free_pages * kPageBytes;
  for (const TableName& name : ctx.catalog->TableNames()) {
    if (!want(name)) continue;
    auto table = ctx.catalog->Find(name);
    if (table == nullptr) continue;  // dropped meanwhile
    std::optional<TableFigures> f;
    if (table->def.table_locking()) {
      SQL_ASSIGN_OR_RETURN(f, HeapFigures(*table));
    } else {
      SQL_ASSIGN_OR_RETURN(f, TreeFigures(ctx.db, *table, data_free));
    }
    if (f.has_value()) {
      f->schema = table->def.schema;
      out.push_back(std::move(*f));
    }
  }
  return out;
}

std::string KeyFlag(const TableDef& def, uint32_t c) {
  if (def.IsPrimaryKeyColumn(c)) return "PRI";
  for (const IndexDef& ix : def.indexes)
    if (ix.unique && ix.columns.size() == 1 && ix.columns[0] == c) return "UNI";
  for (const IndexDef& ix : def.indexes)
    if (ix.columns[0] == c) return "MUL";
  return "";
}

namespace {
// CURRENT_TIMESTAMP or CURRENT_TIMESTAMP(fsp), as MySQL names a DATETIME's or TIMESTAMP's.
std::string CurrentTimestampText(const ColumnDef& col) {
  return col.length > 0 ? "CURRENT_TIMESTAMP(" + std::to_string(col.length) + ")"
                        : "CURRENT_TIMESTAMP";
}
}  // namespace

std::optional<std::string> ColumnDefaultText(const ColumnDef& col) {
  if (col.default_now) return CurrentTimestampText(col);
  if (col.default_value.has_value() && !col.default_value->is_null()) {
    return DeclaredDefault(col).ToString();
  }
  return std::nullopt;
}

std::optional<std::string> ColumnCollationName(const ColumnDef& col) {
  if (col.type == ColumnType::kChar || col.type == ColumnType::kVarchar ||
      col.type == ColumnType::kText || col.type == ColumnType::kEnum ||
      col.type == ColumnType::kSet) {
    return std::string(col.EffectiveCollation().name);
  }
  return std::nullopt;
}

std::string ColumnExtra(const ColumnDef& col) {
  if (col.auto_increment) return "auto_increment";
  std::string out = col.default_now ? "DEFAULT_GENERATED" : "";
  if (col.on_update_now) {
    if (!out.empty()) out += " ";
    out += "on update " + CurrentTimestampText(col);
  }
  return out;
}

std::vector<IndexPart> IndexParts(const TableDef& def) {
  std::vector<IndexPart> out;
  auto add = [&](const std::string& key_name, bool unique, const std::vector<uint32_t>& cols) {
    for (size_t i = 0; i < cols.size(); ++i) {
      out.push_back(IndexPart{key_name, unique, static_cast<uint32_t>(i + 1), cols[i]});
    }
  };
  if (!def.primary_key.empty()) add("PRIMARY", true, def.primary_key);
  for (size_t i : IndexesInKeyOrder(def)) {
    const IndexDef& ix = def.indexes[i];
    add(ix.name, ix.unique, ix.columns);
  }
  return out;
}

}  // namespace minnow::sql
