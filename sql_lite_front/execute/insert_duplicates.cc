// What an INSERT does with a row whose key is taken (executor_internal.h): IGNORE, REPLACE and
// ON DUPLICATE KEY UPDATE, counted as MySQL counts them.

#include <string>
#include <utility>

#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/parse/ast_walk.h"

namespace minnow::sql {
namespace {

// Column names of the second half of ON DUPLICATE KEY UPDATE's row (the inserted values):
// a byte no identifier holds, then the column's name.
constexpr char kInsertedMark = '\x01';

struct InsertedNames {
  const TableDef* def;
  std::string alias;                        // the row alias, or empty
  std::vector<std::string> column_aliases;  // AS alias (a, b): a names columns[0] ...
  std::vector<uint32_t> columns;            // the INSERT's target columns
};

SqlError UnknownColumn(std::string_view name) {
  return SqlErr(kErBadField, "Unknown column '", name, "' in 'field list'");
}

// The inserted row's column a reference means: VALUES(c), alias.c, or a bare column alias;
// nullopt: not one (an ordinary column of the existing row).
SqlResult<std::optional<std::string>> InsertedColumn(const Expr& e, const InsertedNames& n) {
  const Expr* ref = nullptr;
  bool through_alias = false;
  if (e.kind == Expr::Kind::kFunction && e.name == "values") {
    if (e.args.size() != 1 || e.args[0]->kind != Expr::Kind::kColumn) {
      return SqlErr(kErParse, "You have an error in your SQL syntax near '", e.text, "'");
    }
    ref = e.args[0].get();
  } else if (e.kind == Expr::Kind::kColumn && !n.alias.empty()) {
    if (EqualsNoCase(e.table, n.alias)) {
      ref = &e;
      through_alias = true;
    } else if (e.table.empty() && n.def->FindColumn(e.name) < 0) {
      ref = &e;  // a bare column alias
      through_alias = true;
    }
  }
  if (ref == nullptr) return std::optional<std::string>();
  if (through_alias && !n.column_aliases.empty()) {
    for (size_t i = 0; i < n.column_aliases.size(); ++i) {
      if (EqualsNoCase(n.column_aliases[i], ref->name))
        return std::optional<std::string>(n.def->columns[n.columns[i]].name);
    }
    return UnknownColumn(ref->name);
  }
  if (n.def->FindColumn(ref->name) < 0) return UnknownColumn(ref->name);
  return std::optional<std::string>(ref->name);
}

// Makes `e`'s references to the inserted row columns of the second half, in place.
SqlStatus RewriteInsertedInPlace(Expr* e, const InsertedNames& n) {
  SQL_ASSIGN_OR_RETURN(std::optional<std::string> inserted, InsertedColumn(*e, n));
  if (inserted.has_value()) {
    std::string text = std::move(e->text);
    *e = Expr();
    e->kind = Expr::Kind::kColumn;
    e->name = kInsertedMark + *inserted;
    e->text = std::move(text);
    return SqlStatus::OK();
  }
  for (ExprPtr& a : e->args) {
    if (a != nullptr) SQL_RETURN_IF_ERROR(RewriteInsertedInPlace(a.get(), n));
  }
  for (ExprPtr& o : e->order_by) SQL_RETURN_IF_ERROR(RewriteInsertedInPlace(o.get(), n));
  return SqlStatus::OK();
}

// A copy of `e` (CloneExpr's: every field) whose references to the inserted row are columns of
// the second half.
SqlResult<ExprPtr> RewriteInserted(const Expr& e, const InsertedNames& n) {
  ExprPtr out = CloneExpr(e);
  SQL_RETURN_IF_ERROR(RewriteInsertedInPlace(out.get(), n));
  return out;
}

bool SameRow(const Row& a, const Row& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].is_null() != b[i].is_null()) return false;
    if (!a[i].is_null() && Value::Compare(a[i], b[i]) != 0) return false;
    if (a[i].is_string() != b[i].is_string()) return false;  // '1' is not 1 for a string column
  }
  return true;
}

// MySQL's last_uniq_key: no UNIQUE index comes after the key `index` (kClusteredIndex: the
// primary key, the first), so REPLACE may update the row holding it in place.
bool LastUniqueKey(const TableDef& def, int index) {
  for (size_t i = index == kClusteredIndex ? 0 : static_cast<size_t>(index) + 1;
       i < def.indexes.size(); ++i) {
    if (def.indexes[i].unique) return false;
  }
  return true;
}

}  // namespace

SqlResult<OnDuplicate> BindOnDuplicate(ExecContext& ctx, const TableDef& def,
                                       const InsertStmt& stmt,
                                       const std::vector<uint32_t>& targets) {
  OnDuplicate d;
  d.kind = stmt.replace                 ? OnDuplicate::Kind::kReplace
           : !stmt.on_duplicate.empty() ? OnDuplicate::Kind::kUpdate
           : stmt.ignore                ? OnDuplicate::Kind::kIgnore
                                        : OnDuplicate::Kind::kError;
  if (!stmt.column_aliases.empty() && stmt.column_aliases.size() != targets.size())
    return SqlErr(kErWrongValueCount, "Column count doesn't match value count at row 1");
  if (d.kind != OnDuplicate::Kind::kUpdate) return d;
  InsertedNames names{&def, stmt.row_alias, stmt.column_aliases, targets};
  // The update's row: the existing row's columns, then the inserted row's.
  BindScope scope = ScopeForTable(def);
  d.inserted_names.reserve(def.columns.size());
  for (const ColumnDef& c : def.columns) d.inserted_names.push_back(kInsertedMark + c.name);
  for (const std::string& name : d.inserted_names) scope.columns.push_back(name);
  if (!scope.unsigned_columns.empty()) {
    for (const ColumnDef& c : def.columns) scope.unsigned_columns.push_back(c.is_unsigned);
  }
  for (const Assignment& a : stmt.on_duplicate) {
    int c = def.FindColumn(a.column);
    if (c < 0) return UnknownColumn(a.column);
    OnDuplicate::Set set{static_cast<uint32_t>(c), std::nullopt};
    if (a.value != nullptr) {
      SQL_ASSIGN_OR_RETURN(ExprPtr e, RewriteInserted(*a.value, names));
      SQL_ASSIGN_OR_RETURN(set.value, BindExpr(*e, scope, ctx, "field list"));
      ReadHexAsNumber(IsNumericType(def.columns[c].type), &*set.value);
    }
    d.sets.push_back(std::move(set));
  }
  return d;
}

SqlStatus WriteInsertedRow(ExecContext& ctx, const OpenTable& t, const OnDuplicate& dup,
                           TableEngine& engine, const Row& row, uint64_t n, const StoreRules& rules,
                           EvalState& st, InsertCounts* counts) {
  const TableDef& def = t.def;
  InsertRequest::Conflict conflict;
  InsertRequest request;
  request.overwrite =
      dup.kind == OnDuplicate::Kind::kReplace || dup.kind == OnDuplicate::Kind::kUpdate;
  request.conflict = &conflict;
  for (;;) {
    SqlStatus s = engine.Insert(row, request);
    if (s.ok()) {
      ++ctx.counts->handler_write;
      ++ctx.counts->innodb_rows_inserted;
      ++counts->copied;
      return SqlStatus::OK();
    }
    if (s.error().code != kErDupEntry || dup.kind == OnDuplicate::Kind::kError) return s;
    if (dup.kind == OnDuplicate::Kind::kIgnore) {
      counts->warnings.push_back({"Warning", kErDupEntry, s.error().message});
      return SqlStatus::OK();
    }
    // The row holding the key, locked as the duplicate check locked it.
    Row old(def.columns.size());
    SQL_ASSIGN_OR_RETURN(bool found, engine.Read(conflict.ref, LockMode::kExclusive, &old));
    if (!found) return SqlStatus::Internal("the row holding a duplicate key is gone");
    if (dup.kind == OnDuplicate::Kind::kReplace) {
      if (LastUniqueKey(def, conflict.index)) {
        // MySQL updates the row in place; a row equal to the new one counts as not deleted.
        if (!SameRow(old, row)) {
          SQL_RETURN_IF_ERROR(engine.Update(conflict.ref, old, row, request));
          ++ctx.counts->handler_update;
          ++ctx.counts->innodb_rows_updated;
          ++counts->deleted;
        }
        ++counts->copied;
        return SqlStatus::OK();
      }
      SQL_RETURN_IF_ERROR(engine.Delete(conflict.ref, old));
      ++ctx.counts->handler_delete;
      ++ctx.counts->innodb_rows_deleted;
      ++counts->deleted;
      continue;  // and insert again: another key may still be taken
    }
    // ON DUPLICATE KEY UPDATE: the assignments over (existing row, inserted row).
    Row both = old;
    both.insert(both.end(), row.begin(), row.end());
    Row updated = old;
    for (const OnDuplicate::Set& set : dup.sets) {
      Value v;
      if (set.value.has_value()) {
        v = Eval(*set.value, both, st);
        SQL_RETURN_IF_ERROR(EvalError(st));
      } else {
        SQL_ASSIGN_OR_RETURN(v, DefaultOf(def.columns[set.column], rules, ctx.now_us));
      }
      SQL_ASSIGN_OR_RETURN(updated[set.column],
                           CoerceToColumn(def.columns[set.column], v, n, rules));
      both[set.column] = updated[set.column];  // later assignments see it, as in MySQL
    }
    if (SameRow(old, updated)) return SqlStatus::OK();  // 0 rows affected
    std::vector<bool> assigned(def.columns.size(), false);
    for (const OnDuplicate::Set& set : dup.sets) assigned[set.column] = true;
    SetOnUpdateColumns(def, old, assigned, ctx.now_us, &updated);
    SQL_RETURN_IF_ERROR(engine.Update(conflict.ref, old, updated, request));
    ++ctx.counts->handler_update;
    ++ctx.counts->innodb_rows_updated;
    ++counts->updated;
    return SqlStatus::OK();
  }
}

}  // namespace minnow::sql
