// ALTER TABLE: the actions edit a draft of the table; the new definition is built by copy
// (ALGORITHM=COPY or DEFAULT), or, for ALGORITHM=INPLACE of one ADD INDEX or DROP INDEX, as
// CREATE INDEX / DROP INDEX do it, or, for ALGORITHM=INSTANT of columns added at the end, by
// the catalog record alone (the rows stay as they are: row_codec.h reads a row stored before
// the ADD with the column's default). An ALGORITHM= or LOCK= this cannot honour is refused
// (1846).

#include <algorithm>
#include <string>

#include "sql_lite_front/catalog/ddl.h"
#include "sql_lite_front/catalog/ddl_internal.h"

namespace minnow::sql {
namespace {

int FindColumn(const TableDraft& d, std::string_view name) {
  for (size_t i = 0; i < d.columns.size(); ++i)
    if (EqualsNoCase(d.columns[i].def.name, name)) return static_cast<int>(i);
  return -1;
}

SqlError CantDrop(std::string_view name) {
  return SqlErr(kErCantDropFieldOrKey, "Can't DROP '", name, "'; check that column/key exists");
}

SqlError UnknownColumn(std::string_view name, std::string_view table) {
  return SqlErr(kErBadField, "Unknown column '", name, "' in '", table, "'");
}

// Removes `name` from the keys; a key left without columns goes too (as MySQL does).
void RemoveFromKeys(TableDraft* d, std::string_view name) {
  auto drop = [&](std::vector<std::string>* cols) {
    cols->erase(std::remove_if(cols->begin(), cols->end(),
                               [&](const std::string& c) { return EqualsNoCase(c, name); }),
                cols->end());
  };
  if (d->primary_key.has_value()) {
    drop(&*d->primary_key);
    if (d->primary_key->empty()) d->primary_key.reset();
  }
  for (TableDraft::Index& ix : d->indexes) drop(&ix.columns);
  d->indexes.erase(std::remove_if(d->indexes.begin(), d->indexes.end(),
                                  [](const TableDraft::Index& ix) { return ix.columns.empty(); }),
                   d->indexes.end());
}

void RenameInKeys(TableDraft* d, std::string_view from, const std::string& to) {
  auto rename = [&](std::vector<std::string>* cols) {
    for (std::string& c : *cols)
      if (EqualsNoCase(c, from)) c = to;
  };
  if (d->primary_key.has_value()) rename(&*d->primary_key);
  for (TableDraft::Index& ix : d->indexes) rename(&ix.columns);
}

// Where FIRST / AFTER col puts a column: 1054 for an unknown AFTER column.
SqlResult<size_t> Position(const TableDraft& d, const AlterAction& a, size_t otherwise) {
  if (a.first) return size_t{0};
  if (a.after.empty()) return otherwise;
  int after = FindColumn(d, a.after);
  if (after < 0) return UnknownColumn(a.after, d.name);
  return static_cast<size_t>(after + 1);
}

// MODIFY / CHANGE: column `at` gets `spec`'s definition (and maybe a new place).
SqlStatus Redefine(TableDraft* d, size_t at, const AlterAction& a) {
  const ColumnSpec& spec = a.column;
  TableDraft::Column col = d->columns[at];
  std::string old_name = col.def.name;
  col.def = spec.def;
  col.changed = true;
  d->columns.erase(d->columns.begin() + static_cast<long>(at));
  SQL_ASSIGN_OR_RETURN(size_t pos, Position(*d, a, at));
  d->columns.insert(d->columns.begin() + static_cast<long>(std::min(pos, d->columns.size())),
                    std::move(col));
  if (!EqualsNoCase(old_name, spec.def.name) || old_name != spec.def.name) {
    RenameInKeys(d, old_name, spec.def.name);
  }
  if (spec.primary_key) {
    if (d->primary_key.has_value())
      return SqlErr(kErMultiplePriKey, "Multiple primary key defined");
    d->primary_key = std::vector<std::string>{spec.def.name};
  } else if (spec.unique) {
    IndexSpec unique_key;  // MODIFY c ... UNIQUE adds a unique index on c, as in MySQL
    unique_key.unique = true;
    unique_key.columns = {spec.def.name};
    return AddDraftIndex(d, unique_key);
  }
  return SqlStatus::OK();
}

SqlStatus Apply(TableDraft* d, const AlterAction& a, std::vector<SqlWarning>* warnings) {
  switch (a.kind) {
    case AlterAction::Kind::kAddColumn: {
      SQL_ASSIGN_OR_RETURN(size_t pos, Position(*d, a, d->columns.size()));
      return AddDraftColumn(d, a.column, pos);
    }
    case AlterAction::Kind::kDropColumn: {
      int at = FindColumn(*d, a.name);
      if (at < 0) return CantDrop(a.name);
      d->columns.erase(d->columns.begin() + at);
      RemoveFromKeys(d, a.name);
      return SqlStatus::OK();
    }
    case AlterAction::Kind::kModifyColumn: {
      int at = FindColumn(*d, a.column.def.name);
      if (at < 0) return UnknownColumn(a.column.def.name, d->name);
      return Redefine(d, static_cast<size_t>(at), a);
    }
    case AlterAction::Kind::kChangeColumn: {
      int at = FindColumn(*d, a.name);
      if (at < 0) return UnknownColumn(a.name, d->name);
      return Redefine(d, static_cast<size_t>(at), a);
    }
    case AlterAction::Kind::kAddIndex:
      return AddDraftIndex(d, a.index);
    case AlterAction::Kind::kDropIndex: {
      if (EqualsNoCase(a.name, "PRIMARY")) {
        if (!d->primary_key.has_value()) return CantDrop(a.name);
        d->primary_key.reset();
        return SqlStatus::OK();
      }
      for (size_t i = 0; i < d->indexes.size(); ++i) {
        if (EqualsNoCase(d->indexes[i].name, a.name)) {
          d->indexes.erase(d->indexes.begin() + static_cast<long>(i));
          return SqlStatus::OK();
        }
      }
      return CantDrop(a.name);
    }
    case AlterAction::Kind::kDropPrimaryKey:
      if (!d->primary_key.has_value()) return CantDrop("PRIMARY");
      d->primary_key.reset();
      return SqlStatus::OK();
    case AlterAction::Kind::kTableOption:
      return ApplyTableOption(d, a.option, warnings);
  }
  return SqlStatus::OK();
}

}  // namespace

// 1846 "ALGORITHM=INPLACE is not supported. Reason: .... Try ALGORITHM=COPY.", SQLSTATE 0A000.
SqlError NotSupportedReason(std::string_view what, std::string_view reason,
                            std::string_view instead) {
  return SqlErr(kErAlterOperationNotSupportedReason, what, " is not supported. Reason: ", reason,
                ". Try ", instead, ".");
}

namespace {

// An ALTER that INPLACE can do: one ADD INDEX (not the primary key) or one DROP INDEX (not
// PRIMARY), built or dropped without copying the table.
bool IsIndexOnly(const AlterTableStmt& stmt) {
  if (stmt.actions.size() != 1) return false;
  const AlterAction& a = stmt.actions[0];
  if (a.kind == AlterAction::Kind::kAddIndex) return !a.index.primary;
  return a.kind == AlterAction::Kind::kDropIndex && !EqualsNoCase(a.name, "PRIMARY");
}

}  // namespace

// Refuses the ALGORITHM= and LOCK= clauses minnow cannot honour: every path holds the table's
// exclusive metadata lock for the whole statement (so only LOCK=EXCLUSIVE or DEFAULT), and only
// a lone index addition or removal is done in place.
SqlStatus CheckAlgorithmAndLock(std::string_view algo, std::string_view lock, bool index_only) {
  if (algo == "INSTANT") {
    return NotSupportedReason("ALGORITHM=INSTANT",
                              "minnow does only ADD COLUMN at the end of a table instantly",
                              index_only ? "ALGORITHM=INPLACE" : "ALGORITHM=COPY");
  }
  if (algo == "INPLACE" && !index_only) {
    return NotSupportedReason("ALGORITHM=INPLACE",
                              "minnow rebuilds the table by copy for this operation",
                              "ALGORITHM=COPY");
  }
  if (lock == "NONE" || lock == "SHARED") {
    return NotSupportedReason(
        std::string("LOCK=").append(lock),
        algo == "INPLACE" ? "minnow holds an exclusive metadata lock while it builds an index"
                          : "COPY algorithm requires a lock; minnow's is exclusive",
        "LOCK=EXCLUSIVE");
  }
  return SqlStatus::OK();
}

namespace {

// ALGORITHM=INPLACE of one ADD INDEX or DROP INDEX: CREATE INDEX's build or DROP INDEX.
SqlResult<StatementResult> AlterIndexInPlace(ExecContext& ctx, const AlterTableStmt& stmt) {
  const AlterAction& a = stmt.actions[0];
  if (a.kind == AlterAction::Kind::kAddIndex) {
    CreateIndexStmt create;
    create.index = a.index;
    create.table = stmt.table;
    create.algorithm = stmt.algorithm;
    return ExecuteCreateIndex(ctx, create);
  }
  DropIndexStmt drop;
  drop.name = a.name;
  drop.table = stmt.table;
  return ExecuteDropIndex(ctx, drop);
}

// Why ALGORITHM=INSTANT cannot do `stmt` on `def`, or empty when it can: InnoDB's instant ADD
// COLUMN, every action adding a column at the end of a row-locking table, in no key and not
// AUTO_INCREMENT (which would number the rows there are).
std::string InstantRefusal(const TableDef& def, const AlterTableStmt& stmt) {
  if (!EqualsNoCase(def.engine, "InnoDB")) return "only InnoDB tables add columns instantly";
  for (const AlterAction& a : stmt.actions) {
    if (a.kind != AlterAction::Kind::kAddColumn) {
      return "minnow does only ADD COLUMN at the end of a table instantly";
    }
    if (a.first || !a.after.empty()) return "a column added instantly goes at the end";
    if (a.column.primary_key || a.column.unique) return "a column added instantly is in no key";
    if (a.column.def.auto_increment) {
      return "an AUTO_INCREMENT column would number the rows the table has";
    }
    if (a.column.def.default_now) {
      return "a DEFAULT CURRENT_TIMESTAMP column would need the time in the rows the table has";
    }
  }
  return {};
}

// ALGORITHM=INSTANT: 1846 unless InstantRefusal is empty and LOCK= is absent or DEFAULT (as
// MySQL: an instant change takes only the metadata lock).
SqlStatus CheckInstant(const TableDef& def, const AlterTableStmt& stmt) {
  if (!stmt.lock.empty() && stmt.lock != "DEFAULT") {
    return NotSupportedReason(std::string("LOCK=").append(stmt.lock),
                              "Only LOCK=DEFAULT is permitted for operations using "
                              "ALGORITHM=INSTANT",
                              "LOCK=DEFAULT");
  }
  const std::string why = InstantRefusal(def, stmt);
  if (!why.empty()) {
    return NotSupportedReason("ALGORITHM=INSTANT", why,
                              IsIndexOnly(stmt) ? "ALGORITHM=INPLACE" : "ALGORITHM=COPY");
  }
  return SqlStatus::OK();
}

// ALGORITHM=INSTANT of columns added at the end: a new catalog record naming the same
// keyspaces, with core_columns saying how many columns the stored rows hold. REQUIRES:
// CheckInstant passed, the table's exclusive metadata lock held.
SqlResult<StatementResult> AlterInstant(ExecContext& ctx, const OpenTable& table,
                                        const AlterTableStmt& stmt) {
  StatementResult result;
  TableDraft d = DraftOf(table.def);
  d.substitute_engine = SubstitutesEngine(ctx);
  for (const AlterAction& a : stmt.actions) SQL_RETURN_IF_ERROR(Apply(&d, a, &result.warnings));
  SQL_ASSIGN_OR_RETURN(TableDef def, FinishDraft(d));
  if (def.indexes.size() != table.def.indexes.size()) {
    return SqlErr(kErUnknownError, "ALGORITHM=INSTANT: the table's indexes changed");
  }
  KeepClusteredStorage(table.def, &def);
  for (size_t i = 0; i < def.indexes.size(); ++i)
    def.indexes[i].keyspace = table.def.indexes[i].keyspace;
  def.core_columns = table.def.StoredCoreColumns();
  def.create_time = table.def.create_time;
  SQL_RETURN_IF_ERROR(ctx.catalog->ReplaceTable(def));
  result.info = RecordsInfo(0, result.warnings.size());
  return result;
}

// The actions (and ALGORITHM=, LOCK=) of an ALTER of `table`, without its RENAME.
SqlResult<StatementResult> AlterActions(ExecContext& ctx, const AlterTableStmt& stmt,
                                        std::shared_ptr<const OpenTable> table) {
  if (stmt.algorithm == "INSTANT") {
    SQL_RETURN_IF_ERROR(CheckInstant(table->def, stmt));
    return AlterInstant(ctx, *table, stmt);
  }
  SQL_RETURN_IF_ERROR(CheckAlgorithmAndLock(stmt.algorithm, stmt.lock, IsIndexOnly(stmt)));
  if (stmt.algorithm == "INPLACE") return AlterIndexInPlace(ctx, stmt);
  StatementResult result;
  TableDraft d = DraftOf(table->def);
  d.substitute_engine = SubstitutesEngine(ctx);
  for (const AlterAction& a : stmt.actions) SQL_RETURN_IF_ERROR(Apply(&d, a, &result.warnings));
  SQL_ASSIGN_OR_RETURN(TableDef def, FinishDraft(d));
  ColumnMapping mapping;
  for (const TableDraft::Column& c : d.columns) {
    mapping.source.push_back(c.source);
    mapping.convert.push_back(c.changed);
  }
  NameKeyspaces(*ctx.catalog, &def);
  SQL_ASSIGN_OR_RETURN(uint64_t rows, CopyTable(ctx, *table, def, mapping, false));
  if (d.auto_increment_set) {
    if (auto t = ctx.catalog->Find(NameOf(def)); t != nullptr) {
      LatchGuard g(t->counters->latch);
      // InnoDB: the counter moves up to AUTO_INCREMENT=, never below the rows' max + 1.
      t->counters->next_auto_inc = std::max(t->counters->next_auto_inc, def.auto_increment_start);
    }
  }
  result.affected_rows = rows;
  result.info = RecordsInfo(rows, result.warnings.size());
  return result;
}

}  // namespace

SqlResult<StatementResult> ExecuteAlterTable(ExecContext& ctx, const AlterTableStmt& stmt) {
  auto table = ctx.catalog->Find(stmt.table);
  if (table == nullptr) return NoSuchTable(stmt.table);
  if (stmt.rename_to.name.empty()) return AlterActions(ctx, stmt, std::move(table));
  // RENAME TO its own name (in any case) changes nothing, as in MySQL.
  const bool same_name = SameTable(stmt.rename_to, NameOf(table->def));
  if (!same_name && !ctx.catalog->FindDatabase(stmt.rename_to.schema).has_value())
    return SqlErr(kErBadDb, "Unknown database '", stmt.rename_to.schema, "'");
  if (!same_name && ctx.catalog->Find(stmt.rename_to) != nullptr)
    return SqlErr(kErTableExists, "Table '", stmt.rename_to.name, "' already exists");
  StatementResult result;
  // A RENAME alone moves no row, whatever ALGORITHM= says, unless it asks for a copy.
  if (!stmt.actions.empty() || stmt.algorithm == "COPY") {
    SQL_ASSIGN_OR_RETURN(result, AlterActions(ctx, stmt, std::move(table)));
  }
  if (!same_name) SQL_RETURN_IF_ERROR(ctx.catalog->RenameTables({{stmt.table, stmt.rename_to}}));
  return result;
}

}  // namespace minnow::sql
