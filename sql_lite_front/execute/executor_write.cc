// INSERT, UPDATE and DELETE (executor.h).

#include <algorithm>

#include "sql_lite_front/execute/derived_table.h"
#include "sql_lite_front/execute/executor.h"
#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/execute/multi_table_write.h"
#include "sql_lite_front/execute/subquery.h"
#include "sql_lite_front/parse/ast_walk.h"

namespace minnow::sql {
namespace {

// NULL first, then CompareUnder `e`'s collation (ORDER BY's expression).
int CompareNullsFirst(const Value& a, const Value& b, const BoundExpr& e) {
  if (a.is_null() || b.is_null()) return static_cast<int>(!a.is_null()) - !b.is_null();
  return CompareUnder(a, b, CollationOf(e));
}

// Moves the table's AUTO_INCREMENT counter past an explicit value.
void SeeAutoIncrement(const OpenTable& t, const Value& v) {
  if (!v.is_int() || v.as_int() <= 0) return;
  LatchGuard g(t.counters->latch);
  uint64_t next = static_cast<uint64_t>(v.as_int()) + 1;
  if (next > t.counters->next_auto_inc) t.counters->next_auto_inc = next;
}

// The rows an UPDATE or DELETE changes, read with exclusive locks.
struct Target {
  std::string ref;  // the engine's reference to the row (row-locking: its clustered key)
  Row row;
  std::vector<Value> order_keys;
};

}  // namespace

SqlStatus PrepareWriteSubqueries(ExecContext& ctx, const std::vector<const Expr*>& exprs,
                                 const std::vector<std::pair<TableName, std::string>>& written,
                                 std::optional<LockMode> lock) {
  bool any = false;
  for (const Expr* e : exprs) {
    if (!ContainsSubquery(*e)) continue;
    any = true;
    std::optional<SqlError> used;
    // A derived table's rows are materialized before the statement reads: its query may read
    // a target table, as MySQL's materialized derived tables may.
    ForEachSubqueryBlockOutsideDerived(*e, [&](const SelectStmt& block) {
      std::vector<const TableName*> read;
      if (block.from.has_value() && !block.from_derived.has_value()) read.push_back(&*block.from);
      for (const JoinedTable& j : block.joins) {
        if (!j.derived.has_value()) read.push_back(&j.table);
      }
      for (const TableName* t : read) {
        for (const auto& [name, as_named] : written) {
          if (!used.has_value() && SameTable(*t, name))
            used = SqlErr(kErUpdateTableUsed, "You can't specify target table '", as_named,
                          "' for update in FROM clause");
        }
      }
    });
    if (used.has_value()) return *used;
  }
  if (any && ctx.subqueries == nullptr) ctx.subqueries = std::make_shared<SubqueryResolver>(lock);
  if (any && ctx.derived_cache == nullptr) ctx.derived_cache = std::make_shared<DerivedCache>();
  if (any) {
    for (const auto& w : written) ctx.derived_cache->written.push_back(w.first);
  }
  return SqlStatus::OK();
}

std::optional<LockMode> WriteSubqueryLock(const ExecContext& ctx, bool single_table_update) {
  const bool consistent = ctx.isolation == IsolationLevel::kReadCommitted ||
                          ctx.isolation == IsolationLevel::kReadUncommitted;
  if (single_table_update && consistent) return std::nullopt;
  return LockMode::kShare;
}

SqlResult<WritePlan> PlanWrite(ExecContext& ctx, const OpenTable& t, BindScope& scope,
                               const Expr* where, const std::vector<OrderItem>& order_by) {
  const TableDef& def = t.def;
  WritePlan w;
  if (where != nullptr) SQL_RETURN_IF_ERROR(BindExpr(*where, scope, ctx, "where clause").status());
  std::vector<OrderColumn> order_columns;
  bool order_needs_sort = false;
  for (const OrderItem& o : order_by) {
    SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*o.expr, scope, ctx, "order clause"));
    if (b.kind == BoundExpr::Kind::kColumn) {
      order_columns.push_back({static_cast<uint32_t>(b.column), o.desc});
    } else {
      order_needs_sort = true;
    }
    w.order.push_back(std::move(b));
    w.order_desc.push_back(o.desc);
  }
  PlanRequest req;
  req.def = &def;
  if (where != nullptr) {
    // Bound above: every qualifier names this table (maybe by its alias, which the planner's
    // column matching does not know).
    w.planned_where = UnqualifiedCopy(*where);
    req.where = w.planned_where.get();
  }
  req.needed.assign(def.columns.size(), true);  // the whole row: old entries are rewritten
  req.order = std::move(order_columns);
  req.order_needs_sort = order_needs_sort;
  w.plan = ChoosePlan(req);
  w.plan.covering = w.plan.clustered() && w.plan.covering;  // through an index: read the row
  for (const Expr* c : w.plan.residual) {
    SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*c, scope, ctx, "where clause"));
    w.residual.push_back(std::move(b));
  }
  return w;
}

namespace {

SqlResult<std::vector<Target>> CollectTargets(ExecContext& ctx, const OpenTable& t,
                                              BindScope& scope, const Expr* where,
                                              const std::vector<OrderItem>& order_by,
                                              std::optional<uint64_t> limit, EvalState& st,
                                              bool semi_consistent, bool walked_key_changes) {
  ExprPtr resolved;  // the WHERE with its subqueries' results as literals (the planner's)
  if (where != nullptr && ctx.subqueries != nullptr && ContainsSubquery(*where)) {
    SQL_ASSIGN_OR_RETURN(resolved, ctx.subqueries->ResolveTree(ctx, *where, scope));
    where = resolved.get();
  }
  SQL_ASSIGN_OR_RETURN(WritePlan w, PlanWrite(ctx, t, scope, where, order_by));
  const AccessPlan& plan = w.plan;
  const std::vector<BoundExpr>& order = w.order;
  const std::vector<bool>& desc = w.order_desc;
  const std::vector<BoundExpr>& residual = w.residual;
  const bool sort = !order.empty() && plan.needs_sort;
  const uint64_t max_rows = limit.value_or(UINT64_MAX);
  std::vector<Target> targets;
  if (max_rows == 0) return targets;
  ScanSpec spec;
  spec.table = &t;
  spec.plan = &plan;
  spec.lock = LockMode::kExclusive;
  spec.residual = &residual;
  // MySQL's single-table UPDATE tries InnoDB's semi-consistent read unless it orders the rows
  // or changes the key of the index it walks (then it reads all rows first): the clustered
  // index's key, the primary key, when it walks a range of it.
  spec.semi_consistent = semi_consistent && order_by.empty() && plan.clustered() &&
                         (plan.type == AccessType::kAll || !walked_key_changes);
  SQL_RETURN_IF_ERROR(
      ScanPlan(ctx, spec, st, [&](Row& row, std::string_view ckey) -> SqlResult<bool> {
        Target target{std::string(ckey), row, {}};
        if (sort) {
          for (const BoundExpr& e : order) target.order_keys.push_back(Eval(e, row, st));
          SQL_RETURN_IF_ERROR(EvalError(st));
        }
        targets.push_back(std::move(target));
        return sort || targets.size() < max_rows;
      }));
  if (sort) {
    ctx.counts->sort_rows += targets.size();
    std::stable_sort(targets.begin(), targets.end(), [&](const Target& a, const Target& b) {
      for (size_t i = 0; i < a.order_keys.size(); ++i) {
        int c = CompareNullsFirst(a.order_keys[i], b.order_keys[i], order[i]);
        if (c != 0) return desc[i] ? c > 0 : c < 0;
      }
      return false;
    });
    if (targets.size() > max_rows) targets.resize(max_rows);
  }
  return targets;
}

// The positions of the columns an INSERT names (all, in order, if it names none): 1054, 1110.
SqlResult<std::vector<uint32_t>> InsertColumns(const TableDef& def, const InsertStmt& stmt) {
  std::vector<uint32_t> targets;
  if (stmt.columns.empty()) {
    for (uint32_t c = 0; c < def.columns.size(); ++c) targets.push_back(c);
    return targets;
  }
  for (const std::string& name : stmt.columns) {
    int c = def.FindColumn(name);
    if (c < 0) return SqlErr(kErBadField, "Unknown column '", name, "' in 'field list'");
    if (std::find(targets.begin(), targets.end(), c) != targets.end())
      return SqlErr(kErFieldSpecifiedTwice, "Column '", name, "' specified twice");
    targets.push_back(static_cast<uint32_t>(c));
  }
  return targets;
}

// An INSERT's source rows, one at a time, one value per target column (nullopt: DEFAULT):
// INSERT ... SELECT's rows, read in full before the first write (the SELECT may read the table
// written), or the VALUES rows, each evaluated just before it is written (the statement's
// literal rows are never held twice). As MySQL prepares a statement, every row's width (1136)
// and every expression's names are checked before the first row is written.
class InsertSource {
 public:
  // The SELECT's warnings go to st.warnings.
  // numeric[k]: the k-th value goes into a numeric column (a hex literal there is a number).
  // `given`: rows read already (CREATE TABLE ... SELECT's), in place of the statement's.
  static SqlResult<InsertSource> Open(ExecContext& ctx, const InsertStmt& stmt, size_t width,
                                      std::vector<bool> numeric, EvalState& st,
                                      SelectedRows* given) {
    InsertSource src;
    src.numeric_ = std::move(numeric);
    const bool strict = ctx.session == nullptr || ctx.session->vars.sql_mode().strict;
    if (given != nullptr) {
      for (const SqlWarning& w : given->warnings) {
        if (w.code == kErCutValueGroupConcat && strict && !stmt.ignore)
          return SqlErr(kErCutValueGroupConcat, w.message);
      }
      if (given->width != width)
        return SqlErr(kErWrongValueCount, "Column count doesn't match value count at row 1");
      st.warnings = std::move(given->warnings);
      src.selected_ = std::move(given->rows);
      return src;
    }
    if (stmt.select != nullptr) {
      // InnoDB reads INSERT ... SELECT's source with share locks under REPEATABLE READ and
      // SERIALIZABLE, consistently under the weaker levels.
      LockMode lock = ctx.isolation == IsolationLevel::kRepeatableRead ||
                              ctx.isolation == IsolationLevel::kSerializable
                          ? LockMode::kShare
                          : LockMode::kNone;
      SQL_ASSIGN_OR_RETURN(SelectOutput out, RunSelect(ctx, *stmt.select, lock));
      // A cut GROUP_CONCAT() is an error in a strict write (MySQL's Strict_error_handler); the
      // rows are read before any is written, so STRICT_TRANS_TABLES counts for MyISAM too.
      for (const SqlWarning& w : out.warnings) {
        if (w.code == kErCutValueGroupConcat && strict && !stmt.ignore)
          return SqlErr(kErCutValueGroupConcat, w.message);
      }
      if (out.columns.size() != width)
        return SqlErr(kErWrongValueCount, "Column count doesn't match value count at row 1");
      st.warnings = std::move(out.warnings);
      src.selected_ = std::move(out.rows);
      return src;
    }
    if (size_t n = stmt.rows.FirstRowNotOfWidth(width); n != 0) {
      return SqlErr(kErWrongValueCount, "Column count doesn't match value count at row ",
                    std::to_string(n));
    }
    BindScope empty;  // VALUES may not name columns
    src.bound_.reserve(stmt.rows.exprs().size());
    for (const ExprPtr& e : stmt.rows.exprs()) {
      SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*e, empty, ctx, "field list"));
      src.bound_.push_back(std::move(b));
    }
    src.reader_.emplace(stmt.rows);
    return src;
  }

  // The next row into *out; false after the last.
  SqlResult<bool> Next(EvalState& st, std::vector<std::optional<Value>>* out) {
    out->clear();
    if (!reader_.has_value()) {
      if (next_ == selected_.size()) return false;
      for (Value& v : selected_[next_]) out->emplace_back(std::move(v));
      selected_[next_++].clear();
      return true;
    }
    if (!reader_->Next(&items_)) return false;
    for (size_t k = 0; k < items_.size(); ++k) {
      InsertValue& item = items_[k];
      const bool numeric = k < numeric_.size() && numeric_[k];
      if (item.expr == InsertValue::kNoExpr) {
        if (item.hex && numeric) item.value = HexLiteralNumber(item.value->as_string());
        out->push_back(std::move(item.value));
        continue;
      }
      const BoundExpr& e = bound_[item.expr];
      out->emplace_back(Eval(e, no_row_, st));
      SQL_RETURN_IF_ERROR(EvalError(st));
      if (numeric && e.kind == BoundExpr::Kind::kLiteral && e.hex_literal)
        out->back() = HexLiteralNumber(e.value.as_string());
    }
    return true;
  }

 private:
  std::vector<std::vector<Value>> selected_;  // INSERT ... SELECT
  size_t next_ = 0;
  std::optional<InsertValues::Reader> reader_;  // VALUES
  std::vector<BoundExpr> bound_;                // exprs(), bound
  std::vector<InsertValue> items_;
  std::vector<bool> numeric_;  // per value: into a numeric column
  Row no_row_;                 // VALUES name no column
};

}  // namespace

SqlResult<Value> DefaultOf(const ColumnDef& col, int64_t now_us) {
  if (col.default_now) return CurrentTimestampFor(col, now_us);
  if (col.default_value.has_value()) return DeclaredDefault(col);
  if (col.nullable || col.auto_increment) return Value::Null();
  return SqlErr(kErNoDefaultForField, "Field '", col.name, "' doesn't have a default value");
}

SqlResult<Value> DefaultOf(const ColumnDef& col, const StoreRules& rules, int64_t now_us) {
  SqlResult<Value> d = DefaultOf(col, now_us);
  if (d.ok() || rules.errors) return d;
  if (rules.warnings != nullptr) {
    rules.warnings->push_back(SqlWarning{"Warning", d.error().code, d.error().message});
  }
  return ImplicitDefault(col);
}

void SetOnUpdateColumns(const TableDef& def, const Row& old, const std::vector<bool>& assigned,
                        int64_t now_us, Row* row) {
  if (*row == old) return;
  for (size_t c = 0; c < def.columns.size(); ++c) {
    if (def.columns[c].on_update_now && !assigned[c]) {
      (*row)[c] = CurrentTimestampFor(def.columns[c], now_us);
    }
  }
}

StoreRules WriteRules(const ExecContext& ctx, const TableDef& def, bool ignore, bool changed_rows,
                      std::vector<SqlWarning>* warnings) {
  StoreRules rules;
  rules.warnings = warnings;
  if (ctx.session == nullptr) return rules;  // strict
  const SqlModeFlags mode = ctx.session->vars.sql_mode();
  rules.strict_sql_mode = mode.strict && !ignore;
  rules.no_zero_in_date = mode.no_zero_in_date;
  rules.no_zero_date = mode.no_zero_date;
  // MySQL's Strict_error_handler: a warning becomes an error in strict mode unless the
  // statement can no longer be rolled back (it changed a MyISAM table) under
  // STRICT_TRANS_TABLES alone; IGNORE never makes one.
  const bool past_rollback = def.table_locking() && changed_rows && !mode.strict_all_tables;
  rules.errors = mode.strict && !ignore && !past_rollback;
  return rules;
}

namespace {

SqlResult<StatementResult> RunInsert(ExecContext& ctx, const InsertStmt& stmt,
                                     SelectedRows* given) {
  SQL_ASSIGN_OR_RETURN(std::shared_ptr<const OpenTable> table, FindTable(ctx, stmt.table));
  const OpenTable& t = *table;
  const TableDef& def = t.def;
  SQL_ASSIGN_OR_RETURN(std::vector<uint32_t> targets, InsertColumns(def, stmt));
  SQL_ASSIGN_OR_RETURN(OnDuplicate dup, BindOnDuplicate(ctx, def, stmt, targets));
  // The source rows (nullopt: DEFAULT), read as they are written.
  EvalState st;
  SeedEvalState(&st);
  std::vector<bool> numeric;
  for (uint32_t c : targets) numeric.push_back(IsNumericType(def.columns[c].type));
  SQL_ASSIGN_OR_RETURN(InsertSource source, InsertSource::Open(ctx, stmt, targets.size(),
                                                               std::move(numeric), st, given));
  const bool selected = stmt.select != nullptr || given != nullptr;

  const int auto_col = def.AutoIncrementColumn();
  // NO_AUTO_VALUE_ON_ZERO: only NULL (or no value) takes the next number; 0 is stored.
  const bool no_auto_value_on_zero =
      ctx.session != nullptr && ctx.session->vars.sql_mode().no_auto_value_on_zero;
  uint64_t first_generated = 0, progress = 0;
  // Column c's value `v` (nullopt: its default) as stored: a generated AUTO_INCREMENT value,
  // else converted as `rules` say.
  auto store = [&](size_t c, std::optional<Value> v, uint64_t n,
                   const StoreRules& rules) -> SqlResult<Value> {
    const ColumnDef& col = def.columns[c];
    if (!v.has_value()) {
      SQL_ASSIGN_OR_RETURN(v, DefaultOf(col, rules, ctx.now_us));
    }
    if (static_cast<int>(c) == auto_col &&
        (v->is_null() || (v->ToInt() == 0 && !no_auto_value_on_zero))) {
      uint64_t id;
      {
        LatchGuard g(t.counters->latch);
        id = t.counters->next_auto_inc++;
      }
      if (first_generated == 0) first_generated = id;
      v = Value::Int(static_cast<int64_t>(id));
    }
    return CoerceToColumn(col, *v, n, rules);
  };
  // Source row n as the table's row: the given values in the INSERT's column order, then the
  // other columns' defaults (MySQL's order, which its warnings follow).
  std::vector<std::optional<Value>> values;  // the source row being written
  auto table_row = [&](size_t n, const StoreRules& rules) -> SqlResult<Row> {
    Row row(def.columns.size());
    std::vector<bool> given(def.columns.size(), false);
    for (size_t k = 0; k < targets.size(); ++k) {
      SQL_ASSIGN_OR_RETURN(row[targets[k]], store(targets[k], std::move(values[k]), n + 1, rules));
      given[targets[k]] = true;
    }
    for (size_t c = 0; c < def.columns.size(); ++c) {
      if (given[c]) continue;
      SQL_ASSIGN_OR_RETURN(row[c], store(c, std::nullopt, n + 1, rules));
    }
    return row;
  };
  // MySQL: NULL into a NOT NULL column of a single-row INSERT is an error in every mode.
  const bool single_row = !selected && stmt.rows.size() == 1;
  std::unique_ptr<TableEngine> engine = OpenEngine(ctx, t);
  InsertCounts counts;
  size_t n = 0;
  for (;; ++n) {
    SQL_ASSIGN_OR_RETURN(bool more, source.Next(st, &values));
    // The row's evaluation warnings (CAST's 1292, ...) come before its store warnings; the
    // SELECT's warnings come first, and stay when it returned no row.
    for (SqlWarning& w : st.warnings) counts.warnings.push_back(std::move(w));
    st.warnings.clear();
    if (!more) break;
    const bool changed = counts.copied + counts.deleted + counts.updated > 0;
    StoreRules rules = WriteRules(ctx, def, stmt.ignore, changed, &counts.warnings);
    rules.null_is_error = single_row && !stmt.ignore;
    SQL_ASSIGN_OR_RETURN(Row row, table_row(n, rules));
    SQL_RETURN_IF_ERROR(WriteInsertedRow(ctx, t, dup, *engine, row, n + 1, rules, st, &counts));
    if (auto_col >= 0) SeeAutoIncrement(t, row[auto_col]);
    SQL_RETURN_IF_ERROR(CountProgress(ctx, &progress));
  }
  if (ctx.progress != nullptr) ctx.progress->fetch_add(progress, std::memory_order_relaxed);

  StatementResult r;
  // MySQL: REPLACE counts each deleted row, ON DUPLICATE KEY UPDATE 2 per changed row.
  r.affected_rows = counts.copied + counts.deleted + 2 * counts.updated;
  const uint64_t duplicates =
      dup.kind == OnDuplicate::Kind::kIgnore ? n - counts.copied : counts.deleted + counts.updated;
  r.warnings = std::move(counts.warnings);
  if (first_generated != 0) {
    r.last_insert_id = first_generated;
    if (ctx.last_insert_id != nullptr) *ctx.last_insert_id = first_generated;
  }
  if (selected || stmt.rows.size() > 1)
    r.info = "Records: " + std::to_string(n) + "  Duplicates: " + std::to_string(duplicates) +
             "  Warnings: " + std::to_string(r.warnings.size());
  return r;
}

}  // namespace

SqlResult<StatementResult> ExecuteInsert(ExecContext& ctx, const InsertStmt& stmt) {
  return RunInsert(ctx, stmt, nullptr);
}

SqlResult<StatementResult> ExecuteInsertRows(ExecContext& ctx, const InsertStmt& stmt,
                                             SelectedRows rows) {
  return RunInsert(ctx, stmt, &rows);
}

SqlResult<StatementResult> ExecuteUpdate(ExecContext& ctx, const UpdateStmt& stmt) {
  if (stmt.multi_table()) return ExecuteMultiUpdate(ctx, stmt);
  SQL_ASSIGN_OR_RETURN(std::shared_ptr<const OpenTable> table, FindTable(ctx, stmt.table));
  const OpenTable& t = *table;
  const TableDef& def = t.def;
  std::vector<const Expr*> exprs;
  ForEachExprOf(stmt, [&](const Expr& e) { exprs.push_back(&e); });
  const std::string& as_named = stmt.alias.empty() ? stmt.table.name : stmt.alias;
  SQL_RETURN_IF_ERROR(
      PrepareWriteSubqueries(ctx, exprs, {{NameOf(def), as_named}}, WriteSubqueryLock(ctx, true)));
  BindScope scope = ScopeForTable(def, stmt.alias);
  struct Set {
    uint32_t column;
    std::optional<BoundExpr> value;  // nullopt: DEFAULT
  };
  std::vector<Set> sets;
  for (const Assignment& a : stmt.assignments) {
    Expr col;
    col.kind = Expr::Kind::kColumn;
    col.schema = a.schema;
    col.table = a.table;
    col.name = a.column;
    SQL_ASSIGN_OR_RETURN(size_t c, ResolveScopeColumn(col, scope, "field list"));
    Set s{static_cast<uint32_t>(c), std::nullopt};
    if (a.value != nullptr) {
      SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*a.value, scope, ctx, "field list"));
      ReadHexAsNumber(IsNumericType(def.columns[c].type), &b);
      s.value = std::move(b);
    }
    sets.push_back(std::move(s));
  }
  EvalState st;
  SeedEvalState(&st);
  bool walked_key_changes = false;
  for (const Set& s : sets) walked_key_changes |= def.IsPrimaryKeyColumn(s.column);
  SQL_ASSIGN_OR_RETURN(std::vector<Target> targets,
                       CollectTargets(ctx, t, scope, stmt.where.get(), stmt.order_by, stmt.limit,
                                      st, /*semi_consistent=*/true, walked_key_changes));
  const int auto_col = def.AutoIncrementColumn();
  uint64_t changed = 0, matched = 0, progress = 0;
  const bool sets_auto = std::any_of(sets.begin(), sets.end(), [&](const Set& s) {
    return static_cast<int>(s.column) == auto_col;
  });
  std::vector<bool> assigned(def.columns.size(), false);
  for (const Set& s : sets) assigned[s.column] = true;
  std::vector<SqlWarning> warnings = std::move(st.warnings);  // the WHERE's
  st.warnings.clear();
  // Target `i`'s new row. MySQL assigns left to right: a later assignment sees the earlier ones'
  // values.
  auto new_row = [&](size_t i, const StoreRules& rules) -> SqlResult<Row> {
    Row row = targets[i].row;
    for (const Set& s : sets) {
      Value v;
      if (s.value.has_value()) {
        v = Eval(*s.value, row, st);
        SQL_RETURN_IF_ERROR(EvalError(st));
        for (SqlWarning& w : st.warnings) warnings.push_back(std::move(w));
        st.warnings.clear();
      } else {
        SQL_ASSIGN_OR_RETURN(v, DefaultOf(def.columns[s.column], rules, ctx.now_us));
      }
      SQL_ASSIGN_OR_RETURN(row[s.column], CoerceToColumn(def.columns[s.column], v, i + 1, rules));
    }
    return row;
  };
  std::unique_ptr<TableEngine> engine = OpenEngine(ctx, t);
  for (size_t i = 0; i < targets.size(); ++i) {
    ++matched;
    const Row& old_row = targets[i].row;
    const StoreRules rules = WriteRules(ctx, def, stmt.ignore, changed > 0, &warnings);
    SQL_ASSIGN_OR_RETURN(Row row, new_row(i, rules));
    if (sets_auto) SeeAutoIncrement(t, row[auto_col]);
    if (row == old_row) continue;
    SetOnUpdateColumns(def, old_row, assigned, ctx.now_us, &row);
    if (SqlStatus s = engine->Update(targets[i].ref, old_row, row); !s.ok()) {
      // UPDATE IGNORE: the row keeps its values (Update left it as it was), 1062 a warning.
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
  r.info = "Rows matched: " + std::to_string(matched) + "  Changed: " + std::to_string(changed) +
           "  Warnings: " + std::to_string(warnings.size());
  r.warnings = std::move(warnings);
  return r;
}

SqlResult<StatementResult> ExecuteDelete(ExecContext& ctx, const DeleteStmt& stmt) {
  if (stmt.multi_table) return ExecuteMultiDelete(ctx, stmt);
  SQL_ASSIGN_OR_RETURN(std::shared_ptr<const OpenTable> table, FindTable(ctx, stmt.table));
  const OpenTable& t = *table;
  const TableDef& def = t.def;
  std::vector<const Expr*> exprs;
  ForEachExprOf(stmt, [&](const Expr& e) { exprs.push_back(&e); });
  const std::string& as_named = stmt.alias.empty() ? stmt.table.name : stmt.alias;
  SQL_RETURN_IF_ERROR(
      PrepareWriteSubqueries(ctx, exprs, {{NameOf(def), as_named}}, WriteSubqueryLock(ctx, false)));
  BindScope scope = ScopeForTable(def, stmt.alias);
  EvalState st;
  SeedEvalState(&st);
  SQL_ASSIGN_OR_RETURN(std::vector<Target> targets,
                       CollectTargets(ctx, t, scope, stmt.where.get(), stmt.order_by, stmt.limit,
                                      st, /*semi_consistent=*/false, false));
  uint64_t progress = 0;
  std::unique_ptr<TableEngine> engine = OpenEngine(ctx, t);
  for (const Target& target : targets) {
    SQL_RETURN_IF_ERROR(engine->Delete(target.ref, target.row));
    ++ctx.counts->handler_delete;
    ++ctx.counts->innodb_rows_deleted;
    SQL_RETURN_IF_ERROR(CountProgress(ctx, &progress));
  }
  StatementResult r;
  r.affected_rows = targets.size();
  r.warnings = std::move(st.warnings);
  return r;
}

}  // namespace minnow::sql
