// SHOW TABLES, SHOW TABLE STATUS, SHOW CREATE TABLE, SHOW COLUMNS / DESCRIBE, SHOW INDEX, with
// MySQL 8's columns; SHOW TABLE STATUS counts from the live trees (Database::InspectKeyspace).

#include <algorithm>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/catalog/ddl.h"
#include "sql_lite_front/catalog/ddl_internal.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/status/status_views.h"

namespace minnow::sql {
namespace {

using Cell = std::optional<std::string>;
constexpr uint64_t kPageBytes = 16384;

StatementResult ResultSet(std::vector<std::string> columns) {
  StatementResult r;
  r.has_result_set = true;
  r.columns = std::move(columns);
  return r;
}

bool Matches(const ShowStmt& stmt, std::string_view name) {
  return !stmt.like.has_value() || LikeMatch(name, *stmt.like);
}

// The table's default collation (the charset's default when none was given).
std::string Collation(const TableDef& def) { return std::string(TableCollation(def).name); }

std::string FormatTime(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

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

SqlResult<StatementResult> ShowTables(ExecContext& ctx, const ShowStmt& stmt) {
  std::string column = std::string("Tables_in_") + kSchemaName;
  if (stmt.like.has_value()) column += " (" + *stmt.like + ")";
  StatementResult r = stmt.full ? ResultSet({column, "Table_type"}) : ResultSet({column});
  for (const std::string& name : ctx.catalog->TableNames()) {
    if (!Matches(stmt, name)) continue;
    if (stmt.full) {
      r.rows.push_back({name, "BASE TABLE"});
    } else {
      r.rows.push_back({name});
    }
  }
  return r;
}

using StatusRow = std::vector<Cell>;

std::string CreateOptions(const TableDef& def) {
  std::string options;
  if (def.max_rows > 0) options += "max_rows=" + std::to_string(def.max_rows);
  if (def.compression == Compression::kLz4) {
    if (!options.empty()) options += ' ';
    options += "COMPRESSION=\"lz4\"";
  }
  return options;
}

Cell AutoIncrementCell(const OpenTable& table) {
  if (table.def.AutoIncrementColumn() < 0) return std::nullopt;
  LatchGuard g(table.counters->latch);
  return std::to_string(table.counters->next_auto_inc);
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

// A MyISAM table's row, from the heap table's exact figures (HeapTable::stats, which takes no
// table lock, as MyISAM's info(): it neither waits behind a writer nor counts in
// Table_locks_immediate): Data_length the bytes of live rows and holes, Data_free the holes',
// Index_length the index trees' pages, Max_data_length the most the heap can address. nullopt
// if the table was dropped meanwhile.
SqlResult<std::optional<StatusRow>> HeapTableStatus(const OpenTable& table) {
  const TableDef& def = table.def;
  Result<HeapTableStats> st = table.heap.stats();
  if (st.status().code() == Code::kInvalidArgument) return std::optional<StatusRow>();
  if (!st.ok()) return FromStatus(st.status());
  const uint64_t live = st->data_length - st->data_free;
  return std::optional<StatusRow>(StatusRow{
      def.name, def.engine, "10", HeapRowFormat(def), std::to_string(st->rows),
      std::to_string(st->rows == 0 ? 0 : live / st->rows), std::to_string(st->data_length),
      std::to_string(st->max_data_length), std::to_string(st->index_length),
      std::to_string(st->data_free), AutoIncrementCell(table), FormatTime(def.create_time),
      std::nullopt, std::nullopt, Collation(def), std::nullopt, CreateOptions(def), ""});
}

SqlResult<StatementResult> ShowTableStatus(ExecContext& ctx, const ShowStmt& stmt) {
  StatementResult r = ResultSet(
      {"Name", "Engine", "Version", "Row_format", "Rows", "Avg_row_length", "Data_length",
       "Max_data_length", "Index_length", "Data_free", "Auto_increment", "Create_time",
       "Update_time", "Check_time", "Collation", "Checksum", "Create_options", "Comment"});
  const uint64_t data_free = ctx.db->stats().free_pages * kPageBytes;
  for (const std::string& name : ctx.catalog->TableNames()) {
    if (!Matches(stmt, name)) continue;
    auto table = ctx.catalog->Find(name);
    if (table == nullptr) continue;  // dropped meanwhile
    const TableDef& def = table->def;
    if (def.table_locking()) {
      SQL_ASSIGN_OR_RETURN(std::optional<StatusRow> row, HeapTableStatus(*table));
      if (row.has_value()) r.rows.push_back(std::move(*row));
      continue;
    }
    SQL_ASSIGN_OR_RETURN(std::optional<TreeSize> clustered, Inspect(ctx.db, table->clustered));
    if (!clustered.has_value()) continue;  // dropped meanwhile
    uint64_t index_bytes = 0;
    bool gone = false;
    for (const Keyspace& ks : table->indexes) {
      SQL_ASSIGN_OR_RETURN(std::optional<TreeSize> s, Inspect(ctx.db, ks));
      if (!s.has_value()) {
        gone = true;
        break;
      }
      index_bytes += s->bytes;
    }
    if (gone) continue;
    const uint64_t rows = clustered->rows;
    const Cell auto_inc = AutoIncrementCell(*table);
    r.rows.push_back({def.name, def.engine, "10", "Compact", std::to_string(rows),
                      std::to_string(rows == 0 ? 0 : clustered->bytes / rows),
                      std::to_string(clustered->bytes), "0", std::to_string(index_bytes),
                      std::to_string(data_free), auto_inc, FormatTime(def.create_time),
                      std::nullopt, std::nullopt, Collation(def), std::nullopt, CreateOptions(def),
                      ""});
  }
  return r;
}

SqlResult<StatementResult> ShowCreate(ExecContext& ctx, const ShowStmt& stmt) {
  auto table = ctx.catalog->Find(stmt.table);
  if (table == nullptr) return NoSuchTable(stmt.table);
  uint64_t next = 0;
  if (table->def.AutoIncrementColumn() >= 0) {
    LatchGuard g(table->counters->latch);
    if (table->counters->next_auto_inc > 1) next = table->counters->next_auto_inc;
  }
  StatementResult r = ResultSet({"Table", "Create Table"});
  r.rows.push_back({table->def.name, ShowCreateTable(table->def, next)});
  return r;
}

// PRI for primary key columns; UNI for the column of a one-column UNIQUE index; MUL for the
// first column of another secondary index (MySQL's order of precedence).
std::string KeyFlag(const TableDef& def, uint32_t c) {
  if (def.IsPrimaryKeyColumn(c)) return "PRI";
  for (const IndexDef& ix : def.indexes)
    if (ix.unique && ix.columns.size() == 1 && ix.columns[0] == c) return "UNI";
  for (const IndexDef& ix : def.indexes)
    if (ix.columns[0] == c) return "MUL";
  return "";
}

SqlResult<StatementResult> ShowColumns(ExecContext& ctx, const ShowStmt& stmt) {
  auto table = ctx.catalog->Find(stmt.table);
  if (table == nullptr) return NoSuchTable(stmt.table);
  const TableDef& def = table->def;
  StatementResult r = stmt.full ? ResultSet({"Field", "Type", "Collation", "Null", "Key", "Default",
                                             "Extra", "Privileges", "Comment"})
                                : ResultSet({"Field", "Type", "Null", "Key", "Default", "Extra"});
  for (uint32_t c = 0; c < def.columns.size(); ++c) {
    const ColumnDef& col = def.columns[c];
    if (!Matches(stmt, col.name)) continue;
    Cell deflt;
    if (col.default_value.has_value() && !col.default_value->is_null()) {
      deflt = col.default_value->ToString();
    }
    std::string null = col.nullable ? "YES" : "NO";
    std::string extra = col.auto_increment ? "auto_increment" : "";
    if (stmt.full) {
      Cell collation;
      if (col.type == ColumnType::kChar || col.type == ColumnType::kVarchar ||
          col.type == ColumnType::kText) {
        collation = std::string(col.EffectiveCollation().name);
      }
      r.rows.push_back({col.name, col.BaseTypeString(), collation, null, KeyFlag(def, c), deflt,
                        extra, "select,insert,update,references", ""});
    } else {
      r.rows.push_back({col.name, col.BaseTypeString(), null, KeyFlag(def, c), deflt, extra});
    }
  }
  return r;
}

SqlResult<StatementResult> ShowIndex(ExecContext& ctx, const ShowStmt& stmt) {
  auto table = ctx.catalog->Find(stmt.table);
  if (table == nullptr) return NoSuchTable(stmt.table);
  const TableDef& def = table->def;
  StatementResult r =
      ResultSet({"Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name", "Collation",
                 "Cardinality", "Sub_part", "Packed", "Null", "Index_type", "Comment",
                 "Index_comment", "Visible", "Expression"});
  auto add = [&](const std::string& key_name, bool unique, const std::vector<uint32_t>& cols) {
    for (size_t i = 0; i < cols.size(); ++i) {
      const ColumnDef& col = def.columns[cols[i]];
      r.rows.push_back({def.name, unique ? "0" : "1", key_name, std::to_string(i + 1), col.name,
                        "A", std::nullopt, std::nullopt, std::nullopt, col.nullable ? "YES" : "",
                        "BTREE", "", "", "YES", std::nullopt});
    }
  };
  if (!def.primary_key.empty()) add("PRIMARY", true, def.primary_key);
  for (bool unique : {true, false}) {  // MySQL lists the UNIQUE keys first
    for (const IndexDef& ix : def.indexes)
      if (ix.unique == unique) add(ix.name, unique, ix.columns);
  }
  return r;
}

}  // namespace

SqlResult<StatementResult> ExecuteShowCatalog(ExecContext& ctx, const ShowStmt& stmt) {
  switch (stmt.kind) {
    case ShowStmt::Kind::kTables:
      return ShowTables(ctx, stmt);
    case ShowStmt::Kind::kTableStatus:
      return ShowTableStatus(ctx, stmt);
    case ShowStmt::Kind::kCreateTable:
      return ShowCreate(ctx, stmt);
    case ShowStmt::Kind::kColumns:
      return ShowColumns(ctx, stmt);
    case ShowStmt::Kind::kIndex:
      return ShowIndex(ctx, stmt);
    default:
      return SqlErr(kErUnknownError, "ExecuteShowCatalog: not a catalog SHOW statement");
  }
}

}  // namespace minnow::sql
