// CREATE TABLE, DROP TABLE, TRUNCATE, RENAME TABLE, OPTIMIZE, CREATE INDEX, DROP INDEX (ddl.h).

#include "sql_lite_front/catalog/ddl.h"

#include <chrono>
#include <ctime>
#include <string>
#include <vector>

#include "sql_lite_front/catalog/ddl_internal.h"

namespace minnow::sql {
namespace {

bool IsTableName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$';
    if (!ok) return false;
  }
  return true;
}

// True if the options name a CHARSET or a COLLATE.
bool HasCharsetOption(const TableOptions& options) {
  for (const auto& [name, value] : options)
    if (name == "CHARSET" || name == "COLLATE") return true;
  return false;
}

// Every column copied as it is (OPTIMIZE, TRUNCATE).
ColumnMapping IdentityMapping(const TableDef& def) {
  ColumnMapping m;
  for (size_t i = 0; i < def.columns.size(); ++i) {
    m.source.push_back(static_cast<int>(i));
    m.convert.push_back(false);
  }
  return m;
}

// The same table under fresh keyspace names.
TableDef Renamed(const TableCatalog& catalog, const TableDef& def) {
  TableDef next = def;
  NameKeyspaces(catalog, &next);
  next.core_columns = 0;  // the copy stores every column of every row
  next.record_format = RecordFormat::kPadTextsKept;
  return next;
}

// OPTIMIZE TABLE of a MyISAM table (mi_repair's sort of the data file): under a WRITE lock,
// rewrites the heap without holes and rebuilds its indexes. False if there were no holes (then
// nothing changes: MyISAM's "Table is already up to date").
SqlResult<bool> CompactHeapTable(ExecContext& ctx, const OpenTable& table) {
  HeapLockOptions options;
  options.type = HeapLockType::kWrite;
  options.timeout = std::chrono::seconds(ctx.session->vars.lock_wait_timeout_s());
  Result<HeapTableLock> lock = table.heap.Lock(ctx.session->kv_session.get(), options);
  if (!lock.ok()) return FromStatus(lock.status());
  Result<bool> holes = table.heap.has_holes();
  if (!holes.ok()) return FromStatus(holes.status());
  if (!*holes) return false;
  Status st = table.heap.Compact(*lock);
  if (!st.ok()) return FromStatus(st);
  return true;
}

// CREATE INDEX and DROP INDEX of a MyISAM table: its heap table's indexes are made with it,
// so the table is rebuilt by copy as `def` (named afresh), as MyISAM's copy does. Returns the
// statement's result: every copied row affected, as a copy-ALTER reports.
SqlResult<StatementResult> RebuildHeapTable(ExecContext& ctx, const OpenTable& table, TableDef def,
                                            std::string_view algorithm, std::string_view lock) {
  if (algorithm == "INPLACE" || algorithm == "INSTANT") {
    return NotSupportedReason(std::string("ALGORITHM=").append(algorithm),
                              "a MyISAM table's indexes are rebuilt with the table",
                              "ALGORITHM=COPY");
  }
  SQL_RETURN_IF_ERROR(CheckAlgorithmAndLock("COPY", lock, /*index_only=*/false));
  NameKeyspaces(*ctx.catalog, &def);
  SQL_ASSIGN_OR_RETURN(uint64_t rows, CopyTable(ctx, table, def, IdentityMapping(def), false));
  StatementResult result;
  result.affected_rows = rows;
  result.info = RecordsInfo(rows, 0);
  return result;
}

}  // namespace

SqlResult<StatementResult> ExecuteCreateTable(ExecContext& ctx, const CreateTableStmt& stmt) {
  StatementResult result;
  const std::string& name = stmt.name.name;
  if (!IsTableName(name)) return SqlErr(kErWrongTableName, "Incorrect table name '", name, "'");
  std::optional<DatabaseDef> database = ctx.catalog->FindDatabase(stmt.name.schema);
  if (!database.has_value()) return SqlErr(kErBadDb, "Unknown database '", stmt.name.schema, "'");
  std::shared_ptr<const OpenTable> like;
  if (!stmt.like.name.empty()) {  // MySQL opens the source first: its errors come before 1050's
    if (SameTable(stmt.like, stmt.name))
      return SqlErr(kErNonUniqTable, "Not unique table/alias: '", name, "'");
    like = ctx.catalog->Find(stmt.like);
    if (like == nullptr) return NoSuchTable(stmt.like);
  }
  if (ctx.catalog->Find(stmt.name) != nullptr) {
    if (stmt.if_not_exists) {
      result.warnings.push_back(
          SqlWarning{"Note", kErTableExists, "Table '" + name + "' already exists"});
      return result;
    }
    return SqlErr(kErTableExists, "Table '", name, "' already exists");
  }
  TableDraft d;
  if (like != nullptr) {
    // The source's columns, keys, engine and options; AUTO_INCREMENT starts again at 1 (MySQL
    // resets it for the copy).
    d = DraftOf(like->def);
    d.options.auto_increment_start = 1;
  } else if (!HasCharsetOption(stmt.options)) {
    // The database's defaults, as MySQL's: its charset, and its collation unless that is the
    // charset's default (which the table leaves unnamed).
    d.options.charset = database->charset;
    const Collation* dflt = DefaultCollation(database->charset);
    d.options.collation =
        dflt != nullptr && EqualsNoCase(dflt->name, database->collation) ? "" : database->collation;
  }
  d.name = name;
  d.options.schema = database->name;
  d.creating = true;
  d.substitute_engine = SubstitutesEngine(ctx);
  for (const ColumnSpec& spec : stmt.columns) {
    SQL_RETURN_IF_ERROR(AddDraftColumn(&d, spec, d.columns.size()));
  }
  for (const IndexSpec& spec : stmt.indexes) SQL_RETURN_IF_ERROR(AddDraftIndex(&d, spec));
  for (const auto& option : stmt.options) {
    SQL_RETURN_IF_ERROR(ApplyTableOption(&d, option, &result.warnings));
  }
  if (stmt.as_select != nullptr) return ExecuteCreateTableSelect(ctx, stmt, std::move(d), result);
  SQL_ASSIGN_OR_RETURN(bool created, CreateDraftedTable(ctx, stmt, d, &result));
  (void)created;
  return result;
}

SqlResult<bool> CreateDraftedTable(ExecContext& ctx, const CreateTableStmt& stmt,
                                   const TableDraft& d, StatementResult* result, Transaction* txn) {
  SQL_ASSIGN_OR_RETURN(TableDef def, FinishDraft(d));
  def.create_time = static_cast<int64_t>(std::time(nullptr));
  NameKeyspaces(*ctx.catalog, &def);
  SqlStatus st = ctx.catalog->CreateTable(def, txn);
  if (!st.ok()) {
    if (st.error().code == kErTableExists && stmt.if_not_exists) {  // created meanwhile
      result->warnings.push_back(
          SqlWarning{"Note", kErTableExists, "Table '" + stmt.name.name + "' already exists"});
      return false;
    }
    return st.error();
  }
  return true;
}

SqlResult<StatementResult> ExecuteDropTable(ExecContext& ctx, const DropTableStmt& stmt) {
  StatementResult result;
  // MySQL names every missing table in one error, and then drops none of them.
  std::string missing;
  for (const TableName& name : stmt.names) {
    if (ctx.catalog->Find(name) != nullptr) continue;
    std::string full = QualifiedName(name);
    if (stmt.if_exists) {
      result.warnings.push_back(SqlWarning{"Note", kErBadTable, "Unknown table '" + full + "'"});
    } else {
      missing += (missing.empty() ? "" : ",") + full;
    }
  }
  if (!missing.empty()) return SqlErr(kErBadTable, "Unknown table '", missing, "'");
  for (const TableName& name : stmt.names) {
    SqlStatus st = ctx.catalog->DropTable(name);
    if (!st.ok() && !(stmt.if_exists && st.error().code == kErBadTable)) return st.error();
  }
  return result;
}

SqlResult<StatementResult> ExecuteTruncate(ExecContext& ctx, const TruncateStmt& stmt) {
  auto table = ctx.catalog->Find(stmt.table);
  if (table == nullptr) return NoSuchTable(stmt.table);
  TableDef def = Renamed(*ctx.catalog, table->def);
  SQL_ASSIGN_OR_RETURN(uint64_t rows, CopyTable(ctx, *table, def, IdentityMapping(def), true));
  (void)rows;
  return StatementResult{};
}

SqlResult<StatementResult> ExecuteRenameTable(ExecContext& ctx, const RenameTableStmt& stmt) {
  SQL_RETURN_IF_ERROR(ctx.catalog->RenameTables(stmt.renames));
  return StatementResult{};
}

AdminResult::AdminResult(std::string_view op) : op_(op) {
  result_.has_result_set = true;
  result_.columns = {"Table", "Op", "Msg_type", "Msg_text"};
}

void AdminResult::Add(const TableName& table, std::string_view msg_type, std::string msg_text) {
  result_.rows.push_back({QualifiedName(table), op_, std::string(msg_type), std::move(msg_text)});
}

void AdminResult::AddFailed(const TableName& table, const SqlError& error) {
  Add(table, "Error", error.message);
  Add(table, "status", "Operation failed");
}

SqlResult<StatementResult> ExecuteOptimize(ExecContext& ctx, const OptimizeTableStmt& stmt) {
  AdminResult result("optimize");
  for (const TableName& name : stmt.tables) {
    auto table = ctx.catalog->Find(name);
    if (table == nullptr) {
      result.AddFailed(name, NoSuchTable(name));
      continue;
    }
    if (table->def.table_locking()) {
      SQL_ASSIGN_OR_RETURN(bool compacted, CompactHeapTable(ctx, *table));
      result.Add(name, "status", compacted ? "OK" : "Table is already up to date");
      continue;
    }
    TableDef def = Renamed(*ctx.catalog, table->def);
    auto copied = CopyTable(ctx, *table, def, IdentityMapping(def), false);
    if (!copied.ok()) {
      // A lock wait timeout, a deadlock or a cancel ends the statement, as in MySQL.
      return copied.error();
    }
    result.Add(name, "note", "Table does not support optimize, doing recreate + analyze instead");
    result.Add(name, "status", "OK");
  }
  return result.Take();
}

namespace {

// CREATE INDEX and DROP INDEX build or drop the index in place, never by copying the table.
SqlStatus CheckIndexAlgorithmAndLock(std::string_view algorithm, std::string_view lock) {
  if (algorithm == "COPY") {
    return NotSupportedReason("ALGORITHM=COPY",
                              "minnow builds and drops a secondary index in place",
                              "ALGORITHM=INPLACE");
  }
  // DEFAULT and no clause mean in place here (unlike ALTER's DEFAULT, which copies).
  return CheckAlgorithmAndLock(algorithm == "INSTANT" ? algorithm : "INPLACE", lock,
                               /*index_only=*/true);
}

}  // namespace

SqlResult<StatementResult> ExecuteCreateIndex(ExecContext& ctx, const CreateIndexStmt& stmt) {
  auto table = ctx.catalog->Find(stmt.table);
  if (table == nullptr) return NoSuchTable(stmt.table);
  if (!table->def.table_locking())
    SQL_RETURN_IF_ERROR(CheckIndexAlgorithmAndLock(stmt.algorithm, stmt.lock));
  if (stmt.index.primary) {
    // CREATE INDEX cannot make a primary key; the parser should not produce one.
    return SqlErr(kErParse, "You have an error in your SQL syntax");
  }
  TableDraft d = DraftOf(table->def);
  SQL_RETURN_IF_ERROR(AddDraftIndex(&d, stmt.index));
  SQL_ASSIGN_OR_RETURN(TableDef def, FinishDraft(d));
  if (table->def.table_locking()) {
    return RebuildHeapTable(ctx, *table, std::move(def), stmt.algorithm, stmt.lock);
  }
  // Keep the table's keyspaces; name the new index's.
  KeepClusteredStorage(table->def, &def);
  for (size_t i = 0; i < table->def.indexes.size(); ++i)
    def.indexes[i].keyspace = table->def.indexes[i].keyspace;
  IndexDef& added = def.indexes.back();
  added.keyspace = IndexKeyspaceName(*ctx.catalog, def.keyspace, added.name, {});
  SQL_RETURN_IF_ERROR(BuildIndex(ctx, *table, def, def.indexes.size() - 1));
  StatementResult result;
  result.info = RecordsInfo(0, 0);
  return result;
}

SqlResult<StatementResult> ExecuteDropIndex(ExecContext& ctx, const DropIndexStmt& stmt) {
  if (EqualsNoCase(stmt.name, "PRIMARY")) {
    AlterTableStmt alter;
    alter.table = stmt.table;
    alter.algorithm = stmt.algorithm;  // dropping the primary key rebuilds the table
    alter.lock = stmt.lock;
    AlterAction a;
    a.kind = AlterAction::Kind::kDropPrimaryKey;
    alter.actions.push_back(std::move(a));
    return ExecuteAlterTable(ctx, alter);
  }
  auto table = ctx.catalog->Find(stmt.table);
  if (table == nullptr) return NoSuchTable(stmt.table);
  if (!table->def.table_locking())
    SQL_RETURN_IF_ERROR(CheckIndexAlgorithmAndLock(stmt.algorithm, stmt.lock));
  int index = table->def.FindIndex(stmt.name);
  if (index < 0) {
    return SqlErr(kErCantDropFieldOrKey, "Can't DROP '", stmt.name,
                  "'; check that column/key exists");
  }
  TableDraft d = DraftOf(table->def);
  d.indexes.erase(d.indexes.begin() + index);
  SQL_ASSIGN_OR_RETURN(TableDef def, FinishDraft(d));  // 1075 if the auto column needs it
  if (table->def.table_locking()) {
    return RebuildHeapTable(ctx, *table, std::move(def), stmt.algorithm, stmt.lock);
  }
  KeepClusteredStorage(table->def, &def);
  for (size_t i = 0, j = 0; i < table->def.indexes.size(); ++i) {
    if (static_cast<int>(i) != index) def.indexes[j++].keyspace = table->def.indexes[i].keyspace;
  }
  SQL_RETURN_IF_ERROR(ctx.catalog->ReplaceTable(def));
  // Waits for transactions holding locks on the index (the engine's X table lock). The index
  // is gone from the table already: a keyspace a timeout leaves is dropped at the next Open.
  (void)ctx.catalog->DropKeyspaces({table->def.indexes[index].keyspace});
  StatementResult result;
  result.info = RecordsInfo(0, 0);
  return result;
}

}  // namespace minnow::sql
