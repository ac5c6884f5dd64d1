// SELECT ... UNION [ALL | DISTINCT] SELECT ... (executor_internal.h: RunUnion).

#include <algorithm>
#include <memory>
#include <set>

#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/execute/expr_type.h"
#include "sql_lite_front/execute/subquery.h"
#include "sql_lite_front/parse/ast_walk.h"

namespace minnow::sql {
namespace {

using ResultType = StatementResult::ColumnType;

// A query prepared for running: a block, or a union of prepared parts.
struct PreparedQuery {
  const SelectStmt* stmt = nullptr;
  std::unique_ptr<PreparedSelect> block;  // a query block
  std::vector<PreparedQuery> parts;       // a union
  std::vector<std::string> names;
  std::vector<std::optional<ResultType>> declared;
  // Per column, what binding knows of it: its collation, type class and scale (kUnknown: the
  // values tell).
  std::vector<BoundExpr> columns;
  // The union's ORDER BY over its result row.
  std::vector<BoundExpr> order;
  std::vector<bool> order_desc;
};

// A column description carrying only what a union aggregates.
BoundExpr ColumnInfo(const BoundExpr& e) {
  BoundExpr c;
  c.kind = BoundExpr::Kind::kColumn;
  c.collation = e.collation;
  c.type = e.type;
  c.scale = e.scale;
  return c;
}

// The collation of a union's column, as MySQL's DTCollation::aggregate: the parts' one; of two,
// a binary-ordered one (_bin) wins, else the charset's _bin. Two character sets are 1271.
SqlResult<const Collation*> UnionCollation(const std::vector<PreparedQuery>& parts, size_t i) {
  const Collation* chosen = nullptr;
  for (const PreparedQuery& part : parts) {
    const Collation* c = part.columns[i].collation;
    if (c == nullptr || c == chosen) continue;
    // binary (bytes) beats every other; a _bin one beats a text one.
    const auto rank = [](const Collation* x) {
      return x->kind == Collation::Kind::kBytes ? 2 : x->is_binary() ? 1 : 0;
    };
    if (chosen != nullptr && rank(chosen) > rank(c)) continue;
    if (chosen == nullptr || rank(c) > rank(chosen) || rank(c) == 2) {
      chosen = c;
      continue;
    }
    const Collation* bin =
        chosen->charset == c->charset ? FindCollation(std::string(c->charset) + "_bin") : nullptr;
    if (bin == nullptr)
      return SqlErr(kErCantAggregateNCollations, "Illegal mix of collations for operation 'UNION'");
    chosen = bin;
  }
  return chosen;
}

// 1250 for a qualified column name in a union's ORDER BY (it names the result's columns).
SqlStatus CheckUnqualified(const Expr& e) {
  if (e.kind == Expr::Kind::kColumn && !e.table.empty())
    return SqlErr(kErTablenameNotAllowedHere, "Table '", e.table,
                  "' from one of the SELECTs cannot be used in global ORDER clause");
  for (const ExprPtr& a : e.args) {
    if (a != nullptr) SQL_RETURN_IF_ERROR(CheckUnqualified(*a));
  }
  return SqlStatus::OK();
}

// The union's ORDER BY bound over its result columns: a position, or an expression of the
// result's column names.
SqlStatus BindUnionOrder(ExecContext& ctx, const SelectStmt& stmt, PreparedQuery* q) {
  BindScope scope;
  for (const std::string& n : q->names) scope.columns.push_back(n);
  scope.used.assign(q->names.size(), false);
  for (const BoundExpr& c : q->columns) {
    scope.collations.push_back(c.collation);
    scope.column_types.push_back(c.type);
    scope.column_scales.push_back(c.scale);
  }
  for (const OrderItem& o : stmt.order_by) {
    const Expr& e = *o.expr;
    if (e.kind == Expr::Kind::kLiteral && e.param < 0 && e.value.is_int()) {
      const int64_t n = e.value.as_int();
      if (n < 1 || n > static_cast<int64_t>(q->names.size()))
        return SqlErr(kErBadField, "Unknown column '", e.text, "' in 'order clause'");
      BoundExpr b = q->columns[static_cast<size_t>(n - 1)];
      b.column = static_cast<int>(n - 1);
      q->order.push_back(std::move(b));
    } else {
      SQL_RETURN_IF_ERROR(CheckUnqualified(e));
      SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(e, scope, ctx, "order clause"));
      q->order.push_back(std::move(b));
    }
    q->order_desc.push_back(o.desc);
  }
  return SqlStatus::OK();
}

// Binds (and plans) `stmt` and, for a union, every part, before anything runs.
SqlResult<PreparedQuery> Prepare(ExecContext& ctx, const SelectStmt& stmt) {
  PreparedQuery q;
  q.stmt = &stmt;
  if (stmt.union_of == nullptr) {
    SQL_ASSIGN_OR_RETURN(PreparedSelect p, PrepareSelect(ctx, stmt));
    q.block = std::make_unique<PreparedSelect>(std::move(p));
    q.names = q.block->names;
    q.declared = DeclaredResultTypes(*q.block);
    for (const BoundExpr& e : q.block->items) q.columns.push_back(ColumnInfo(e));
    return q;
  }
  for (const auto& part : stmt.union_of->parts) {
    SQL_ASSIGN_OR_RETURN(PreparedQuery p, Prepare(ctx, *part));
    if (!q.parts.empty() && p.names.size() != q.parts[0].names.size())
      return SqlErr(kErWrongNumberOfColumnsInSelect,
                    "The used SELECT statements have a different number of columns");
    q.parts.push_back(std::move(p));
  }
  const PreparedQuery& first = q.parts[0];
  q.names = first.names;
  for (size_t i = 0; i < first.names.size(); ++i) {
    std::optional<ResultType> declared = first.declared[i];
    std::vector<const BoundExpr*> branches;
    for (const PreparedQuery& part : q.parts) {
      if (part.declared[i] != declared) declared.reset();
      branches.push_back(&part.columns[i]);
    }
    q.declared.push_back(declared);
    BoundExpr c;
    c.kind = BoundExpr::Kind::kColumn;
    SQL_ASSIGN_OR_RETURN(c.collation, UnionCollation(q.parts, i));
    AggregateType(branches, &c);
    q.columns.push_back(std::move(c));
  }
  if (!stmt.into_vars.empty() && stmt.into_vars.size() != q.names.size()) {
    return SqlErr(kErWrongNumberOfColumnsInSelect,
                  "The used SELECT statements have a different number of columns");
  }
  SQL_RETURN_IF_ERROR(BindUnionOrder(ctx, stmt, &q));
  return q;
}

// The type a part's column `i` gives its union: binding's, else its values' (strings beat
// doubles beat decimals, with their largest scale, beat integers; no value: NULL's).
BoundExpr PartColumnType(const BoundExpr& known, const std::vector<std::vector<Value>>& rows,
                         size_t i) {
  if (known.type != TypeClass::kUnknown) return known;
  std::vector<BoundExpr> kinds;
  for (const std::vector<Value>& row : rows) {
    if (row[i].is_null()) continue;
    BoundExpr k;
    k.type = TypeOfValue(row[i]);
    if (row[i].is_decimal()) k.scale = row[i].as_decimal().scale();
    kinds.push_back(std::move(k));
  }
  std::vector<const BoundExpr*> branches;
  for (const BoundExpr& k : kinds) branches.push_back(&k);
  BoundExpr t = known;
  AggregateType(branches, &t);
  return t;
}

// Result rows in the order of `less` over all columns, NULLs equal and first.
struct RowLess {
  const std::vector<BoundExpr>* columns = nullptr;
  bool operator()(const std::vector<Value>& a, const std::vector<Value>& b) const {
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].is_null() || b[i].is_null()) {
        if (a[i].is_null() != b[i].is_null()) return a[i].is_null();
        continue;
      }
      const int c = CompareUnder(a[i], b[i], CollationOf((*columns)[i]));
      if (c != 0) return c < 0;
    }
    return false;
  }
};

SqlResult<SelectOutput> Run(ExecContext& ctx, PreparedQuery& q, std::optional<LockMode> lock) {
  if (q.block != nullptr) return RunPreparedSelect(ctx, *q.block, *q.stmt, lock);
  const SelectStmt& stmt = *q.stmt;
  SelectOutput out;
  out.columns = q.names;
  out.declared_types = q.declared;
  std::vector<std::vector<std::vector<Value>>> part_rows;
  for (PreparedQuery& part : q.parts) {
    SQL_ASSIGN_OR_RETURN(SelectOutput o, Run(ctx, part, lock));
    for (SqlWarning& w : o.warnings) out.warnings.push_back(std::move(w));
    part_rows.push_back(std::move(o.rows));
  }
  // Each column's type from the parts' (a part's values tell what binding did not know).
  std::vector<BoundExpr> types;
  for (size_t i = 0; i < q.names.size(); ++i) {
    std::vector<BoundExpr> parts;
    for (size_t k = 0; k < q.parts.size(); ++k)
      parts.push_back(PartColumnType(q.parts[k].columns[i], part_rows[k], i));
    std::vector<const BoundExpr*> branches;
    for (const BoundExpr& p : parts) branches.push_back(&p);
    BoundExpr t = q.columns[i];
    AggregateType(branches, &t);
    types.push_back(std::move(t));
  }
  for (const BoundExpr& t : types) out.union_types.push_back(ColumnInfo(t));
  // A DISTINCT union dedups every part up to the last DISTINCT; later parts are appended.
  const std::vector<bool>& distinct = stmt.union_of->distinct;
  size_t dedup_parts = 0;
  for (size_t i = 0; i < distinct.size(); ++i) {
    if (distinct[i]) dedup_parts = i + 2;
  }
  std::set<std::vector<Value>, RowLess> seen(RowLess{&types});
  for (size_t k = 0; k < part_rows.size(); ++k) {
    for (std::vector<Value>& row : part_rows[k]) {
      for (size_t i = 0; i < row.size(); ++i) row[i] = CoerceToType(std::move(row[i]), types[i]);
      if (k < dedup_parts && !seen.insert(row).second) continue;
      out.rows.push_back(std::move(row));
    }
  }
  if (!q.order.empty()) {
    EvalState st;
    SeedEvalState(&st);
    std::vector<std::pair<std::vector<Value>, size_t>> keyed;
    keyed.reserve(out.rows.size());
    for (size_t r = 0; r < out.rows.size(); ++r) {
      std::vector<Value> keys;
      for (const BoundExpr& o : q.order) keys.push_back(Eval(o, out.rows[r], st));
      SQL_RETURN_IF_ERROR(EvalError(st));
      keyed.emplace_back(std::move(keys), r);
    }
    ctx.counts->sort_rows += keyed.size();
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
      for (size_t i = 0; i < q.order.size(); ++i) {
        const Value& x = a.first[i];
        const Value& y = b.first[i];
        int c = x.is_null() || y.is_null() ? static_cast<int>(!x.is_null()) - !y.is_null()
                                           : CompareUnder(x, y, CollationOf(q.order[i]));
        if (c != 0) return q.order_desc[i] ? c > 0 : c < 0;
      }
      return false;
    });
    std::vector<std::vector<Value>> sorted;
    sorted.reserve(keyed.size());
    for (auto& [keys, r] : keyed) sorted.push_back(std::move(out.rows[r]));
    out.rows = std::move(sorted);
    for (SqlWarning& w : st.warnings) out.warnings.push_back(std::move(w));
  }
  const size_t begin = std::min<uint64_t>(stmt.offset, out.rows.size());
  const size_t end =
      begin + std::min<uint64_t>(stmt.limit.value_or(UINT64_MAX), out.rows.size() - begin);
  if (begin > 0 || end < out.rows.size()) {
    std::vector<std::vector<Value>> window(std::make_move_iterator(out.rows.begin() + begin),
                                           std::make_move_iterator(out.rows.begin() + end));
    out.rows = std::move(window);
  }
  return out;
}

}  // namespace

SqlResult<SelectOutput> RunUnion(ExecContext& ctx, const SelectStmt& stmt,
                                 std::optional<LockMode> lock) {
  if (ctx.subqueries == nullptr && HasSubquery(stmt))
    ctx.subqueries = std::make_shared<SubqueryResolver>(lock);
  SQL_ASSIGN_OR_RETURN(PreparedQuery q, Prepare(ctx, stmt));
  return Run(ctx, q, lock);
}

SqlResult<QueryColumns> DescribeQuery(ExecContext& ctx, const SelectStmt& stmt) {
  SQL_ASSIGN_OR_RETURN(PreparedQuery q, Prepare(ctx, stmt));
  QueryColumns c{std::move(q.names), std::move(q.declared), {}};
  if (q.block != nullptr) c.declared_columns = DeclaredResultColumns(*q.block);
  return c;
}

}  // namespace minnow::sql
