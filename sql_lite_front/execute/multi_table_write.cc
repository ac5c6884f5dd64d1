// Multi-table UPDATE and DELETE (multi_table_write.h).

#include "sql_lite_front/execute/multi_table_write.h"

#include <set>
#include <string>
#include <utility>

#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/execute/join.h"
#include "sql_lite_front/execute/subquery.h"
#include "sql_lite_front/parse/ast_walk.h"
#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {
namespace {

// The statement's tables and WHERE as a SELECT's join (each table's lock set by the caller).
template <typename Write>
SelectStmt JoinQuery(const Write& stmt) {
  SelectStmt q;
  q.from = stmt.table;
  q.from_alias = stmt.alias;
  q.from_derived = stmt.from_derived;
  for (const JoinedTable& j : stmt.joins) {
    JoinedTable c;
    c.kind = j.kind;
    c.comma = j.comma;
    c.table = j.table;
    c.alias = j.alias;
    c.derived = j.derived;
    if (j.on != nullptr) c.on = CloneExpr(*j.on);
    c.using_columns = j.using_columns;
    q.joins.push_back(std::move(c));
  }
  if (stmt.where != nullptr) q.where = CloneExpr(*stmt.where);
  return q;
}

// The name a FROM table is known by: its alias, or its name.
const std::string& AsNamed(const TableName& t, const std::string& alias) {
  return alias.empty() ? t.name : alias;
}

std::vector<std::string> AsNamedAll(const TableName& table, const std::string& alias,
                                    const std::vector<JoinedTable>& joins) {
  std::vector<std::string> out{AsNamed(table, alias)};
  for (const JoinedTable& j : joins) out.push_back(AsNamed(j.table, j.alias));
  return out;
}

// FROM position `t`'s locks: exclusive for a target, shared for a table only read.
void SetLock(SelectStmt* q, size_t t, bool target) {
  const RowLockClause lock = target ? RowLockClause::kUpdate : RowLockClause::kShare;
  if (t == 0) {
    q->lock = lock;
  } else {
    q->joins[t - 1].lock = lock;
  }
}

// A joined table being written: its FROM position, where its columns are and its engine.
struct TargetTable {
  size_t position = 0;
  const OpenTable* table = nullptr;
  size_t first = 0, count = 0;
  std::unique_ptr<TableEngine> engine;
};

// One row to write: a target's row (its reference, its columns before and after).
struct RowChange {
  size_t target = 0;  // index into the targets
  std::string ref;
  Row old_row, new_row;
};

Row Slice(const Row& joined, size_t first, size_t count) {
  return Row(joined.begin() + static_cast<std::ptrdiff_t>(first),
             joined.begin() + static_cast<std::ptrdiff_t>(first + count));
}

// Marks every column of the target tables needed (the whole row is rewritten), plans the join
// and makes each target's engine.
SqlStatus PlanTargets(ExecContext& ctx, const SelectStmt& q, PreparedSelect* p,
                      std::vector<TargetTable>* targets) {
  for (TargetTable& t : *targets) {
    const BindScope::JoinTable& jt = p->scope.join_tables[t.position];
    t.first = jt.first;
    t.count = jt.count;
    t.table = p->join->from_tables[t.position].get();
    for (size_t c = jt.first; c < jt.first + jt.count; ++c) p->scope.used[c] = true;
  }
  SQL_RETURN_IF_ERROR(PlanJoin(ctx, q, p));
  for (TargetTable& t : *targets) t.engine = OpenEngine(ctx, *t.table);
  return SqlStatus::OK();
}

// The statement's subqueries (PrepareWriteSubqueries: 1093 for a target table, share reads);
// q's WHERE and ON clauses get their results as literals, for the join's planner.
SqlStatus PrepareSubqueries(ExecContext& ctx, const std::vector<const Expr*>& exprs,
                            const std::vector<TargetTable>& targets, const PreparedSelect& p,
                            SelectStmt* q) {
  std::vector<std::pair<TableName, std::string>> written;
  for (const TargetTable& t : targets) {
    written.emplace_back(NameOf(p.join->from_tables[t.position]->def),
                         p.join->as_named[t.position]);
  }
  SQL_RETURN_IF_ERROR(PrepareWriteSubqueries(ctx, exprs, written, LockMode::kShare));
  if (ctx.subqueries == nullptr) return SqlStatus::OK();
  auto resolve = [&](ExprPtr* e) -> SqlStatus {
    if (*e == nullptr || !ContainsSubquery(**e)) return SqlStatus::OK();
    SQL_ASSIGN_OR_RETURN(*e, ctx.subqueries->ResolveTree(ctx, **e, p.scope));
    return SqlStatus::OK();
  };
  SQL_RETURN_IF_ERROR(resolve(&q->where));
  for (JoinedTable& j : q->joins) SQL_RETURN_IF_ERROR(resolve(&j.on));
  return SqlStatus::OK();
}

template <typename Write>
bool HasDerivedTable(const Write& stmt) {
  for (const DerivedTable* d : FromDerived(stmt.from_derived, stmt.joins)) {
    if (d != nullptr) return true;
  }
  return false;
}

SqlError NotUpdatable(const std::string& name, const char* statement) {
  return SqlErr(kErNonUpdatableTable, "The target table ", name, " of the ", statement,
                " is not updatable");
}

// What binding a statement with derived tables must know before it materializes them (their
// queries read rows): 1288 for a derived table written by name, 1093 for a subquery that reads
// a table written, found by names as the table locks find them. Then the derived tables' rows
// are read as the statement's other tables that are only read: with shared locks.
template <typename Write>
SqlStatus CheckBeforeMaterializing(ExecContext& ctx, const Write& stmt,
                                   const std::vector<bool>& named_written,
                                   const std::vector<std::string>& named_targets,
                                   const char* statement) {
  const std::vector<const DerivedTable*> derived = FromDerived(stmt.from_derived, stmt.joins);
  const std::vector<std::string> names = AsNamedAll(stmt.table, stmt.alias, stmt.joins);
  for (const std::string& target : named_targets) {
    for (size_t t = 0; t < names.size(); ++t) {
      if (derived[t] != nullptr && EqualsNoCase(target, names[t]))
        return NotUpdatable(names[t], statement);
    }
  }
  const std::vector<const TableName*> tables = FromTables(stmt.table, stmt.joins);
  std::vector<std::pair<TableName, std::string>> written;
  for (size_t t = 0; t < tables.size(); ++t) {
    if (named_written[t]) written.emplace_back(*tables[t], names[t]);
  }
  std::vector<const Expr*> exprs;
  ForEachExprOf(stmt, [&](const Expr& e) { exprs.push_back(&e); });
  SQL_RETURN_IF_ERROR(PrepareWriteSubqueries(ctx, exprs, written, LockMode::kShare));
  ctx.derived_lock = LockMode::kShare;
  return SqlStatus::OK();
}

// The FROM position whose columns hold joined-row column `c`.
size_t PositionOf(const BindScope& scope, size_t c) {
  size_t t = 0;
  while (c >= scope.join_tables[t].first + scope.join_tables[t].count) ++t;
  return t;
}

// A multi-table UPDATE's assignment: its target, the target's column and the value.
struct UpdateSet {
  size_t target = 0;  // index into the targets
  uint32_t column = 0;
  BoundExpr value;
};

// Binds a multi-table UPDATE over *q (its join, made by JoinQuery): each assignment's column,
// resolved as MySQL's field list (1054, 1052), and its value; the targets; every table's lock.
SqlStatus BindMultiUpdate(ExecContext& ctx, const UpdateStmt& stmt, SelectStmt* q_out,
                          PreparedSelect* p_out, std::vector<TargetTable>* targets_out,
                          std::vector<UpdateSet>* sets_out) {
  if (HasDerivedTable(stmt)) {
    std::vector<std::string> qualifiers;
    for (const Assignment& a : stmt.assignments) {
      if (!a.table.empty() && a.schema.empty()) qualifiers.push_back(a.table);
    }
    auto has_column = [&](const TableName& t, const std::string& column) {
      if (t.schema.empty()) return false;  // a derived table
      SqlResult<std::shared_ptr<const OpenTable>> table = FindTable(ctx, t);
      return table.ok() && (*table)->def.FindColumn(column) >= 0;
    };
    SQL_RETURN_IF_ERROR(
        CheckBeforeMaterializing(ctx, stmt, UpdatedTables(stmt, has_column), qualifiers, "UPDATE"));
  }
  SelectStmt& q = *q_out;
  q = JoinQuery(stmt);
  PreparedSelect& p = *p_out;
  SQL_RETURN_IF_ERROR(BindJoinFrom(ctx, q, &p));
  BindScope& scope = p.scope;
  std::vector<TargetTable>& targets = *targets_out;
  std::vector<UpdateSet>& sets = *sets_out;
  for (const Assignment& a : stmt.assignments) {
    Expr col;
    col.kind = Expr::Kind::kColumn;
    col.schema = a.schema;
    col.table = a.table;
    col.name = a.column;
    SQL_ASSIGN_OR_RETURN(size_t c, ResolveJoinColumn(col, scope, "field list"));
    const size_t pos = PositionOf(scope, c);
    if (p.join->from_tables[pos]->materialized != nullptr)
      return NotUpdatable(p.join->as_named[pos], "UPDATE");
    size_t k = 0;
    while (k < targets.size() && targets[k].position != pos) ++k;
    if (k == targets.size()) {
      targets.emplace_back();
      targets.back().position = pos;
    }
    UpdateSet s;
    s.target = k;
    s.column = static_cast<uint32_t>(c - scope.join_tables[pos].first);
    sets.push_back(std::move(s));
  }
  std::vector<const Expr*> exprs;
  ForEachExprOf(stmt, [&](const Expr& e) { exprs.push_back(&e); });
  SQL_RETURN_IF_ERROR(PrepareSubqueries(ctx, exprs, targets, p, &q));
  for (size_t i = 0; i < sets.size(); ++i) {
    SQL_ASSIGN_OR_RETURN(sets[i].value,
                         BindExpr(*stmt.assignments[i].value, scope, ctx, "field list"));
    const TableDef& def = p.join->from_tables[targets[sets[i].target].position]->def;
    ReadHexAsNumber(IsNumericType(def.columns[sets[i].column].type), &sets[i].value);
  }
  // One table updated under two names: MySQL refuses a primary key change (1706).
  for (size_t i = 0; i < targets.size(); ++i) {
    for (size_t j = i + 1; j < targets.size(); ++j) {
      const TableDef& a = p.join->from_tables[targets[i].position]->def;
      const TableDef& b = p.join->from_tables[targets[j].position]->def;
      if (!EqualsNoCase(a.name, b.name) || !EqualsNoCase(a.schema, b.schema)) continue;
      for (const UpdateSet& s : sets) {
        if ((s.target == i || s.target == j) && a.IsPrimaryKeyColumn(s.column)) {
          return SqlErr(kErMultiUpdateKeyConflict,
                        "Primary key/partition key update is not allowed since the table is "
                        "updated both as '",
                        p.join->as_named[targets[i].position], "' and '",
                        p.join->as_named[targets[j].position], "'.");
        }
      }
      return SqlErr(kErNotSupportedYet,
                    "This version of minnow doesn't yet support 'updating a table under two "
                    "names'");
    }
  }
  for (size_t t = 0; t < p.join->from_tables.size(); ++t) {
    bool target = false;
    for (const TargetTable& tt : targets) target = target || tt.position == t;
    SetLock(&q, t, target);
  }
  return SqlStatus::OK();
}

// Binds a multi-table DELETE over *q (its join, made by JoinQuery): the targets, every table's
// lock, the subqueries.
SqlStatus BindMultiDelete(ExecContext& ctx, const DeleteStmt& stmt, SelectStmt* q_out,
                          PreparedSelect* p_out, std::vector<TargetTable>* targets_out) {
  if (HasDerivedTable(stmt)) {
    std::vector<std::string> named;
    for (const TableName& t : stmt.targets) {
      if (t.schema.empty()) named.push_back(t.name);
    }
    SQL_RETURN_IF_ERROR(CheckBeforeMaterializing(ctx, stmt, DeletedTables(stmt), named, "DELETE"));
  }
  SelectStmt& q = *q_out;
  q = JoinQuery(stmt);
  PreparedSelect& p = *p_out;
  SQL_RETURN_IF_ERROR(BindJoinFrom(ctx, q, &p));
  std::vector<TargetTable>& targets = *targets_out;
  // The delete list names FROM's tables by alias, or by name when not aliased (1109).
  // A qualified name names the table's database too; an unqualified one that names two
  // tables (db1.t JOIN db2.t) names the current database's.
  const std::string current_db = ctx.session != nullptr ? ctx.session->Database() : "";
  for (const TableName& name : stmt.targets) {
    const size_t n = p.join->as_named.size();
    size_t pos = n;
    for (size_t t = 0; t < n; ++t) {
      const std::string& schema = p.join->from_tables[t]->def.schema;
      if (!EqualsNoCase(p.join->as_named[t], name.name)) continue;
      if (!name.schema.empty() && !EqualsNoCase(name.schema, schema)) continue;
      if (pos == n || (name.schema.empty() && EqualsNoCase(schema, current_db))) pos = t;
    }
    if (pos == n) return SqlErr(kErUnknownTable, "Unknown table '", name.name, "' in MULTI DELETE");
    if (p.join->from_tables[pos]->materialized != nullptr)
      return NotUpdatable(p.join->as_named[pos], "DELETE");
    for (const TargetTable& t : targets) {
      if (t.position == pos)
        return SqlErr(kErNonUniqTable, "Not unique table/alias: '", name.name, "'");
    }
    targets.emplace_back();
    targets.back().position = pos;
  }
  for (size_t t = 0; t < p.join->from_tables.size(); ++t) {
    bool target = false;
    for (const TargetTable& tt : targets) target = target || tt.position == t;
    SetLock(&q, t, target);
  }
  std::vector<const Expr*> exprs;
  ForEachExprOf(stmt, [&](const Expr& e) { exprs.push_back(&e); });
  SQL_RETURN_IF_ERROR(PrepareSubqueries(ctx, exprs, targets, p, &q));
  return SqlStatus::OK();
}

// Per FROM position: whether a target is there.
std::vector<bool> WrittenPositions(const PreparedSelect& p,
                                   const std::vector<TargetTable>& targets) {
  std::vector<bool> out(p.join->from_tables.size(), false);
  for (const TargetTable& t : targets) out[t.position] = true;
  return out;
}

}  // namespace

std::vector<const TableName*> FromTables(const TableName& table,
                                         const std::vector<JoinedTable>& joins) {
  std::vector<const TableName*> out{&table};
  for (const JoinedTable& j : joins) out.push_back(&j.table);
  return out;
}

std::vector<const DerivedTable*> FromDerived(const std::optional<DerivedTable>& first,
                                             const std::vector<JoinedTable>& joins) {
  std::vector<const DerivedTable*> out{first.has_value() ? &*first : nullptr};
  for (const JoinedTable& j : joins) out.push_back(j.derived.has_value() ? &*j.derived : nullptr);
  return out;
}

std::vector<bool> UpdatedTables(
    const UpdateStmt& stmt,
    const std::function<bool(const TableName&, const std::string&)>& has_column) {
  const std::vector<const TableName*> tables = FromTables(stmt.table, stmt.joins);
  const std::vector<std::string> names = AsNamedAll(stmt.table, stmt.alias, stmt.joins);
  const std::vector<const DerivedTable*> derived = FromDerived(stmt.from_derived, stmt.joins);
  std::vector<bool> out(tables.size(), false);
  for (const Assignment& a : stmt.assignments) {
    for (size_t t = 0; t < tables.size(); ++t) {
      if (derived[t] != nullptr) continue;  // never written (1288)
      const bool named = a.table.empty()
                             ? has_column(*tables[t], a.column)
                             : EqualsNoCase(a.table, names[t]) &&
                                   (a.schema.empty() || EqualsNoCase(a.schema, tables[t]->schema));
      if (!named) continue;
      out[t] = true;
      break;
    }
  }
  return out;
}

std::vector<bool> DeletedTables(const DeleteStmt& stmt) {
  const std::vector<std::string> names = AsNamedAll(stmt.table, stmt.alias, stmt.joins);
  std::vector<bool> out(names.size(), false);
  const std::vector<const TableName*> tables = FromTables(stmt.table, stmt.joins);
  const std::vector<const DerivedTable*> derived = FromDerived(stmt.from_derived, stmt.joins);
  for (const TableName& target : stmt.targets) {
    for (size_t t = 0; t < names.size(); ++t) {
      if (derived[t] != nullptr) continue;  // never written (1288)
      const bool schema_ok =
          target.schema.empty() || EqualsNoCase(target.schema, tables[t]->schema);
      if (EqualsNoCase(target.name, names[t]) && schema_ok) out[t] = true;
    }
  }
  return out;
}

SqlStatus PlanMultiUpdate(ExecContext& ctx, const UpdateStmt& stmt, PlannedMultiWrite* out) {
  std::vector<TargetTable> targets;
  std::vector<UpdateSet> sets;
  SQL_RETURN_IF_ERROR(BindMultiUpdate(ctx, stmt, &out->query, &out->prepared, &targets, &sets));
  SQL_RETURN_IF_ERROR(PlanTargets(ctx, out->query, &out->prepared, &targets));
  out->written = WrittenPositions(out->prepared, targets);
  return SqlStatus::OK();
}

SqlStatus PlanMultiDelete(ExecContext& ctx, const DeleteStmt& stmt, PlannedMultiWrite* out) {
  std::vector<TargetTable> targets;
  SQL_RETURN_IF_ERROR(BindMultiDelete(ctx, stmt, &out->query, &out->prepared, &targets));
  SQL_RETURN_IF_ERROR(PlanTargets(ctx, out->query, &out->prepared, &targets));
  out->written = WrittenPositions(out->prepared, targets);
  return SqlStatus::OK();
}

SqlResult<StatementResult> ExecuteMultiUpdate(ExecContext& ctx, const UpdateStmt& stmt) {
  SelectStmt q;
  PreparedSelect p;
  std::vector<TargetTable> targets;
  std::vector<UpdateSet> sets;
  SQL_RETURN_IF_ERROR(BindMultiUpdate(ctx, stmt, &q, &p, &targets, &sets));
  SQL_RETURN_IF_ERROR(PlanTargets(ctx, q, &p, &targets));

  EvalState st;
  SeedEvalState(&st);
  std::vector<SqlWarning> warnings;
  std::vector<std::string> refs;
  std::vector<std::set<std::string>> met(targets.size());
  std::vector<RowChange> changes;
  // The values are converted as the first row's write would convert them: all are before any
  // row is written.
  SQL_RETURN_IF_ERROR(RunJoin(
      ctx, *p.join, st,
      [&](Row& row) -> SqlResult<bool> {
        Row assigned;  // the joined row with the assignments made so far
        for (size_t k = 0; k < targets.size(); ++k) {
          const TargetTable& t = targets[k];
          const std::string& ref = refs[t.position];
          if (ref.empty() || !met[k].insert(ref).second) continue;
          if (assigned.empty()) assigned = row;
          const TableDef& def = t.table->def;
          const StoreRules rules = WriteRules(ctx, def, stmt.ignore, false, &warnings);
          for (const UpdateSet& s : sets) {
            if (s.target != k) continue;
            Value v = Eval(s.value, assigned, st);
            SQL_RETURN_IF_ERROR(EvalError(st));
            for (SqlWarning& w : st.warnings) warnings.push_back(std::move(w));
            st.warnings.clear();
            SQL_ASSIGN_OR_RETURN(
                assigned[t.first + s.column],
                CoerceToColumn(def.columns[s.column], v, changes.size() + 1, rules));
          }
          changes.push_back(
              {k, ref, Slice(row, t.first, t.count), Slice(assigned, t.first, t.count)});
        }
        return true;
      },
      &refs));
  // Per target, the columns the statement assigns (ON UPDATE CURRENT_TIMESTAMP leaves those).
  std::vector<std::vector<bool>> assigned_columns(targets.size());
  for (size_t k = 0; k < targets.size(); ++k)
    assigned_columns[k].assign(targets[k].table->def.columns.size(), false);
  for (const UpdateSet& s : sets) assigned_columns[s.target][s.column] = true;
  uint64_t changed = 0, progress = 0;
  for (RowChange& c : changes) {
    TargetTable& t = targets[c.target];
    const int auto_col = t.table->def.AutoIncrementColumn();
    if (auto_col >= 0 && !(c.new_row[auto_col] == c.old_row[auto_col])) {
      const Value& v = c.new_row[auto_col];
      if (v.is_int() && v.as_int() > 0) {
        LatchGuard g(t.table->counters->latch);
        const uint64_t next = static_cast<uint64_t>(v.as_int()) + 1;
        if (next > t.table->counters->next_auto_inc) t.table->counters->next_auto_inc = next;
      }
    }
    if (c.new_row == c.old_row) continue;
    SetOnUpdateColumns(t.table->def, c.old_row, assigned_columns[c.target], ctx.now_us, &c.new_row);
    if (SqlStatus s = t.engine->Update(c.ref, c.old_row, c.new_row); !s.ok()) {
      if (!stmt.ignore || s.error().code != kErDupEntry) return s;
      warnings.push_back({"Warning", kErDupEntry, s.error().message});
      continue;
    }
    ++changed;
    ++ctx.counts->handler_update;
    ++ctx.counts->innodb_rows_updated;
    SQL_RETURN_IF_ERROR(CountProgress(ctx, &progress));
  }
  StatementResult r;
  r.affected_rows = changed;
  r.info = "Rows matched: " + std::to_string(changes.size()) +
           "  Changed: " + std::to_string(changed) +
           "  Warnings: " + std::to_string(warnings.size());
  r.warnings = std::move(warnings);
  return r;
}

SqlResult<StatementResult> ExecuteMultiDelete(ExecContext& ctx, const DeleteStmt& stmt) {
  SelectStmt q;
  PreparedSelect p;
  std::vector<TargetTable> targets;
  SQL_RETURN_IF_ERROR(BindMultiDelete(ctx, stmt, &q, &p, &targets));
  SQL_RETURN_IF_ERROR(PlanTargets(ctx, q, &p, &targets));

  EvalState st;
  SeedEvalState(&st);
  std::vector<std::string> refs;
  // A row is deleted once, also when two names of one table meet it.
  std::set<std::pair<std::string, std::string>> met;  // (table, ref)
  std::vector<RowChange> changes;
  SQL_RETURN_IF_ERROR(RunJoin(
      ctx, *p.join, st,
      [&](Row& row) -> SqlResult<bool> {
        for (size_t k = 0; k < targets.size(); ++k) {
          const TargetTable& t = targets[k];
          const std::string& ref = refs[t.position];
          const TableName table = NameOf(t.table->def);
          const std::string key = ToLowerAscii(table.schema + "." + table.name);
          if (ref.empty() || !met.insert({key, ref}).second) continue;
          changes.push_back({k, ref, Slice(row, t.first, t.count), {}});
        }
        return true;
      },
      &refs));
  uint64_t progress = 0;
  for (const RowChange& c : changes) {
    SQL_RETURN_IF_ERROR(targets[c.target].engine->Delete(c.ref, c.old_row));
    ++ctx.counts->handler_delete;
    ++ctx.counts->innodb_rows_deleted;
    SQL_RETURN_IF_ERROR(CountProgress(ctx, &progress));
  }
  StatementResult r;
  r.affected_rows = changes.size();
  r.warnings = std::move(st.warnings);
  return r;
}

}  // namespace minnow::sql
