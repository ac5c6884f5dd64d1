// CREATE DATABASE, ALTER DATABASE and DROP DATABASE (ddl.h).

#include <optional>
#include <string>

#include "sql_lite_front/catalog/ddl.h"
#include "sql_lite_front/catalog/ddl_internal.h"

namespace minnow::sql {

namespace {

// The charset and collation CHARACTER SET cs / COLLATE c name, checked as a table's options
// are (1115, 1273, 1253, 1235), into *def.
SqlStatus ResolveDatabaseCollation(const std::string& charset, const std::string& collation,
                                   DatabaseDef* def) {
  TableDef probe;  // a table of no columns
  probe.charset = charset;
  probe.collation = collation;
  SQL_RETURN_IF_ERROR(ResolveCollations(&probe));
  const Collation& c = TableCollation(probe);
  def->charset = std::string(c.charset);
  def->collation = std::string(c.name);
  return SqlStatus::OK();
}

}  // namespace

SqlResult<StatementResult> ExecuteCreateDatabase(ExecContext& ctx, const CreateDatabaseStmt& stmt) {
  DatabaseDef def;
  def.name = stmt.name;
  StatementResult result;
  if (IsSystemDatabase(def.name)) {  // they exist already
    if (!stmt.if_not_exists) {
      return SqlErr(kErDbCreateExists, "Can't create database '", def.name, "'; database exists");
    }
    result.warnings.push_back(SqlWarning{
        "Note", kErDbCreateExists, "Can't create database '" + def.name + "'; database exists"});
    return result;
  }
  if (!stmt.charset.empty() || !stmt.collation.empty()) {
    SQL_RETURN_IF_ERROR(ResolveDatabaseCollation(stmt.charset, stmt.collation, &def));
  }
  if (ctx.catalog->FindDatabase(def.name).has_value() && stmt.if_not_exists) {
    result.warnings.push_back(SqlWarning{
        "Note", kErDbCreateExists, "Can't create database '" + def.name + "'; database exists"});
    return result;
  }
  SqlStatus st = ctx.catalog->CreateDatabase(def);
  if (!st.ok()) {
    if (st.error().code == kErDbCreateExists && stmt.if_not_exists) {  // created meanwhile
      result.warnings.push_back(SqlWarning{"Note", st.error().code, st.error().message});
      return result;
    }
    return st.error();
  }
  result.affected_rows = 1;
  return result;
}

SqlResult<StatementResult> ExecuteAlterDatabase(ExecContext& ctx, const AlterDatabaseStmt& stmt) {
  if (IsSystemDatabase(stmt.name)) {
    return SqlErr(kErNotSupportedYet,
                  "This version of minnow doesn't yet support 'ALTER DATABASE of a system "
                  "schema'");
  }
  std::optional<DatabaseDef> def = ctx.catalog->FindDatabase(stmt.name);
  if (!def.has_value()) return SqlErr(kErBadDb, "Unknown database '", stmt.name, "'");
  SQL_RETURN_IF_ERROR(ResolveDatabaseCollation(stmt.charset, stmt.collation, &*def));
  SQL_RETURN_IF_ERROR(ctx.catalog->AlterDatabase(*def));
  StatementResult result;
  result.affected_rows = 1;  // as MySQL reports it
  return result;
}

SqlResult<StatementResult> ExecuteDropDatabase(ExecContext& ctx, const DropDatabaseStmt& stmt) {
  StatementResult result;
  if (IsSystemDatabase(stmt.name)) {
    return SqlErr(kErNotSupportedYet,
                  "This version of minnow doesn't yet support 'DROP DATABASE of a system schema'");
  }
  const size_t tables = ctx.catalog->TableNames(stmt.name).size();
  SqlStatus st = ctx.catalog->DropDatabase(stmt.name);
  if (!st.ok()) {
    if (st.error().code == kErDbDropExists && stmt.if_exists) {
      result.warnings.push_back(SqlWarning{"Note", st.error().code, st.error().message});
      return result;
    }
    return st.error();
  }
  result.affected_rows = tables;  // MySQL: the number of tables dropped
  return result;
}

}  // namespace minnow::sql
