// SHOW TABLES, SHOW TABLE STATUS, SHOW CREATE TABLE, SHOW COLUMNS / DESCRIBE, SHOW INDEX, with
// MySQL 8's columns, printing the figures of catalog_figures.h.

#include <optional>
#include <string>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/catalog/ddl.h"
#include "sql_lite_front/catalog/ddl_internal.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/status/catalog_figures.h"
#include "sql_lite_front/status/status_views.h"
#include "sql_lite_front/status/status_views_internal.h"

namespace minnow::sql {
namespace {

using Cell = std::optional<std::string>;

StatementResult ResultSet(std::vector<std::string> columns) {
  StatementResult r;
  r.has_result_set = true;
  r.columns = std::move(columns);
  return r;
}

bool Matches(const ShowStmt& stmt, std::string_view name) {
  return !stmt.like.has_value() || LikeMatch(name, *stmt.like);
}

// SHOW TABLES / TABLE STATUS [FROM db]: 1049 for a database that does not exist.
SqlStatus CheckDatabase(ExecContext& ctx, const ShowStmt& stmt) {
  if (ctx.catalog->FindDatabase(stmt.database).has_value()) return SqlStatus::OK();
  return SqlErr(kErBadDb, "Unknown database '", stmt.database, "'");
}

SqlResult<StatementResult> ShowTables(ExecContext& ctx, const ShowStmt& stmt) {
  SQL_RETURN_IF_ERROR(CheckDatabase(ctx, stmt));
  std::string column = "Tables_in_" + stmt.database;
  if (stmt.like.has_value()) column += " (" + *stmt.like + ")";
  StatementResult r = stmt.full ? ResultSet({column, "Table_type"}) : ResultSet({column});
  for (const TableName& table : ctx.catalog->TableNames(stmt.database)) {
    const std::string& name = table.name;
    if (!Matches(stmt, name)) continue;
    if (stmt.full) {
      r.rows.push_back({name, "BASE TABLE"});
    } else {
      r.rows.push_back({name});
    }
  }
  return r;
}

SqlResult<StatementResult> ShowTableStatus(ExecContext& ctx, const ShowStmt& stmt) {
  StatementResult r = ResultSet(
      {"Name", "Engine", "Version", "Row_format", "Rows", "Avg_row_length", "Data_length",
       "Max_data_length", "Index_length", "Data_free", "Auto_increment", "Create_time",
       "Update_time", "Check_time", "Collation", "Checksum", "Create_options", "Comment"});
  SQL_RETURN_IF_ERROR(CheckDatabase(ctx, stmt));
  SQL_ASSIGN_OR_RETURN(std::vector<TableFigures> tables,
                       GatherTableFigures(ctx, [&](const TableName& n) {
                         return EqualsNoCase(n.schema, stmt.database) && Matches(stmt, n.name);
                       }));
  for (TableFigures& f : tables) {
    Cell auto_inc;
    if (f.auto_increment.has_value()) auto_inc = std::to_string(*f.auto_increment);
    r.rows.push_back({f.name, f.engine, "10", f.row_format, std::to_string(f.rows),
                      std::to_string(f.avg_row_length), std::to_string(f.data_length),
                      std::to_string(f.max_data_length), std::to_string(f.index_length),
                      std::to_string(f.data_free), auto_inc, FormatLocalTime(f.create_time),
                      std::nullopt, std::nullopt, f.collation, std::nullopt, f.create_options, ""});
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
    const Cell deflt = ColumnDefaultText(col);
    std::string null = col.nullable ? "YES" : "NO";
    std::string extra = ColumnExtra(col);
    if (stmt.full) {
      r.rows.push_back({col.name, col.BaseTypeString(), ColumnCollationName(col), null,
                        KeyFlag(def, c), deflt, extra, "select,insert,update,references", ""});
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
  for (const IndexPart& part : IndexParts(def)) {
    const ColumnDef& col = def.columns[part.column];
    r.rows.push_back({def.name, part.unique ? "0" : "1", part.key_name, std::to_string(part.seq),
                      col.name, "A", std::nullopt, std::nullopt, std::nullopt,
                      col.nullable ? "YES" : "", "BTREE", "", "", "YES", std::nullopt});
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
