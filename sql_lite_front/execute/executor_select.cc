// SELECT: binding, planning and running a single-table query (executor.h).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "sql_lite_front/collation.h"
#include "sql_lite_front/execute/count_entry_like.h"
#include "sql_lite_front/execute/derived_table.h"
#include "sql_lite_front/execute/executor.h"
#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/execute/join.h"
#include "sql_lite_front/execute/math_functions.h"
#include "sql_lite_front/execute/rollup.h"
#include "sql_lite_front/execute/subquery.h"
#include "sql_lite_front/parse/ast_walk.h"
#include "sql_lite_front/parse/expr_equal.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/status/status_views.h"

namespace minnow::sql {
namespace {

// NULL first, then CompareUnder `e`'s collation (the expression the values come from).
int CompareNullsFirst(const Value& a, const Value& b, const BoundExpr& e) {
  if (a.is_null() || b.is_null()) return static_cast<int>(!a.is_null()) - !b.is_null();
  return CompareUnder(a, b, CollationOf(e));
}

// GROUP BY's order of group keys (the values of `exprs`), so that strings equal under their
// collation ('a', 'A' under _ci) are one group.
struct ValuesLess {
  const std::vector<BoundExpr>* exprs = nullptr;
  bool operator()(const std::vector<Value>& a, const std::vector<Value>& b) const {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      int c = CompareNullsFirst(a[i], b[i], (*exprs)[i]);
      if (c != 0) return c < 0;
    }
    return a.size() < b.size();
  }
};

// One value's order, for a set of one expression's values.
struct ValueLess {
  const BoundExpr* expr = nullptr;
  bool operator()(const Value& a, const Value& b) const {
    return CompareNullsFirst(a, b, *expr) < 0;
  }
};

// Column references outside aggregate calls.
void BareColumns(const Expr& e, std::vector<const Expr*>* out) {
  if (e.kind == Expr::Kind::kColumn) {
    out->push_back(&e);
    return;
  }
  if (e.kind == Expr::Kind::kFunction && IsAggregateName(e.name)) return;
  for (const ExprPtr& a : e.args) {
    if (a != nullptr) BareColumns(*a, out);
  }
}

// The longest prefix of `s` of at most `n` bytes that ends on a UTF-8 character boundary.
size_t CharPrefix(std::string_view s, size_t n) {
  if (n >= s.size()) return s.size();
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

// group_concat's running state. Without ORDER BY each value is appended as its row comes (as
// MySQL does, DISTINCT keeping the first of equal values); with it the values are kept and
// appended in order at the end. Once the text passes max_len bytes it is cut there (on a
// character boundary) and nothing more is appended: the row that was cut is `appended`.
struct ConcatState {
  struct Entry {
    std::string text;
    std::vector<Value> keys;
  };
  std::optional<std::set<std::vector<Value>, ValuesLess>> seen;  // DISTINCT
  std::vector<Entry> entries;                                    // with ORDER BY
  std::string text;
  uint64_t appended = 0;
  bool cut = false;

  // The row's values of spec.concat_args, or nullopt if one is NULL.
  static std::optional<std::vector<Value>> ArgValues(const AggregateSpec& spec, const Row& row,
                                                     EvalState& st) {
    std::vector<Value> values;
    values.reserve(spec.concat_args.size());
    for (const BoundExpr& a : spec.concat_args) {
      values.push_back(Eval(a, row, st));
      if (values.back().is_null()) return std::nullopt;
    }
    return values;
  }

  // True the first time `values` is met (DISTINCT).
  bool FirstSeen(const AggregateSpec& spec, const std::vector<Value>& values) {
    if (!seen.has_value()) seen.emplace(ValuesLess{&spec.concat_args});
    return seen->insert(values).second;
  }

  // Returns false if the row had a NULL value (skipped).
  bool Add(const AggregateSpec& spec, const Row& row, EvalState& st) {
    std::optional<std::vector<Value>> values = ArgValues(spec, row, st);
    if (!values.has_value()) return false;
    if (spec.distinct && !FirstSeen(spec, *values)) return true;
    std::string t;
    for (const Value& v : *values) t += v.ToString();
    if (spec.order.empty()) {
      Append(spec, t);
      return true;
    }
    Entry e{std::move(t), {}};
    for (const BoundExpr& o : spec.order) e.keys.push_back(Eval(o, row, st));
    entries.push_back(std::move(e));
    return true;
  }

  void Append(const AggregateSpec& spec, std::string_view t) {
    if (cut) return;
    if (appended > 0) text += spec.separator;
    text += t;
    ++appended;
    if (text.size() > spec.max_len) {
      text.resize(CharPrefix(text, spec.max_len));
      cut = true;
    }
  }

  // Appends the ORDER BY case's values, in order.
  void Finish(const AggregateSpec& spec) {
    std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
      for (size_t i = 0; i < spec.order.size(); ++i) {
        int c = CompareNullsFirst(a.keys[i], b.keys[i], spec.order[i]);
        if (c != 0) return spec.order_desc[i] ? c > 0 : c < 0;
      }
      return false;
    });
    for (const Entry& e : entries) Append(spec, e.text);
    entries.clear();
  }
};

// One aggregate's running state. SUM and AVG of integers and decimals are exact (MySQL's
// DECIMAL: SUM of BIGINT is DECIMAL(65,0), AVG has 4 more digits); of doubles and strings,
// doubles.
struct AggState {
  uint64_t count = 0;
  bool exact = true;  // every value so far an integer or a decimal
  Int128 isum = 0;    // the integers' part of an exact sum
  Decimal dec_sum;    // the decimals' part (and integers' past 128 bits)
  double dsum = 0;
  // STD/VARIANCE: Welford's running mean and sum of squared deviations (MySQL's
  // variance_fp_recurrence_next); BIT_*: the running bits.
  double mean = 0, m2 = 0;
  uint64_t bits = 0;
  Value best;
  // DISTINCT: the values so far, equal as SELECT DISTINCT's are (numbers by value, strings
  // under the argument's collation).
  std::optional<std::set<Value, ValueLess>> seen;
  ConcatState concat;  // group_concat

  void Add(const AggregateSpec& spec, const Row& row, EvalState& st) {
    if (spec.func == AggFunc::kGrouping) return;  // the result row's level (rollup.h)
    if (spec.func == AggFunc::kGroupConcat) {
      if (concat.Add(spec, row, st)) ++count;
      return;
    }
    if (!spec.concat_args.empty()) {  // COUNT(DISTINCT a, b, ...): tuples with no NULL, once each
      std::optional<std::vector<Value>> values = ConcatState::ArgValues(spec, row, st);
      if (values.has_value() && concat.FirstSeen(spec, *values)) ++count;
      return;
    }
    if (spec.star) {
      ++count;
      return;
    }
    Value v = Eval(spec.arg, row, st);
    if (v.is_null()) return;
    if (spec.distinct) {
      if (!seen.has_value()) seen.emplace(ValueLess{&spec.arg});
      if (!seen->insert(v).second) return;
    }
    ++count;
    switch (spec.func) {
      case AggFunc::kSum:
      case AggFunc::kAvg:
        AddToSum(v, st);
        break;
      case AggFunc::kMin:
        if (best.is_null() || CompareUnder(v, best, CollationOf(spec.arg)) < 0) best = std::move(v);
        break;
      case AggFunc::kMax:
        if (best.is_null() || CompareUnder(v, best, CollationOf(spec.arg)) > 0) best = std::move(v);
        break;
      case AggFunc::kStdPop:
      case AggFunc::kStdSamp:
      case AggFunc::kVarPop:
      case AggFunc::kVarSamp: {
        const double x = v.ToDouble();
        const double delta = x - mean;
        mean += delta / static_cast<double>(count);
        m2 += delta * (x - mean);
        break;
      }
      case AggFunc::kBitAnd:
      case AggFunc::kBitOr:
      case AggFunc::kBitXor: {
        const uint64_t x = IntegerBits(v);
        if (spec.func == AggFunc::kBitAnd) bits = count == 1 ? x : bits & x;
        if (spec.func == AggFunc::kBitOr) bits |= x;
        if (spec.func == AggFunc::kBitXor) bits ^= x;
        break;
      }
      case AggFunc::kCount:
      case AggFunc::kGroupConcat:
      case AggFunc::kGrouping:
        break;
    }
  }

  void AddToSum(const Value& v, EvalState& st) {
    if (exact && v.is_integer()) {
      const Int128 x = v.is_int() ? Int128{v.as_int()} : Int128{v.as_uint()};
      Int128 r = 0;
      if (__builtin_add_overflow(isum, x, &r)) {
        FoldIntegers(st);  // isum as it was before x: r holds the wrapped sum
        r = x;
      }
      isum = r;
      return;
    }
    if (exact && v.is_decimal()) {
      AddDecimal(v.as_decimal(), st);
      return;
    }
    if (exact) {
      exact = false;
      dsum = ExactSum().ToDouble();
    }
    dsum += v.ToDouble();
  }

  // Moves the integers' part into dec_sum.
  void FoldIntegers(EvalState& st) {
    AddDecimal(Decimal::FromInt128(isum), st);
    isum = 0;
  }

  void AddDecimal(const Decimal& d, EvalState& st) {
    std::optional<Decimal> r = Decimal::Add(dec_sum, d);
    if (!r.has_value()) {
      if (!st.error.has_value())
        st.error = SqlErr(kErDataOutOfRange, "DECIMAL value is out of range in 'sum'");
      return;
    }
    dec_sum = std::move(*r);
  }

  Decimal ExactSum() const {
    std::optional<Decimal> r = Decimal::Add(dec_sum, Decimal::FromInt128(isum));
    return r.has_value() ? *r : dec_sum;  // past 65 digits only with 10^47 rows
  }

  Value Result(const AggregateSpec& spec) const {
    switch (spec.func) {
      case AggFunc::kCount:
        return Value::Int(static_cast<int64_t>(count));
      case AggFunc::kSum:
        if (count == 0) return Value::Null();
        return exact ? Value::Dec(ExactSum()) : Value::Double(dsum);
      case AggFunc::kAvg: {
        if (count == 0) return Value::Null();
        if (exact) {
          std::optional<Decimal> avg = Decimal::Div(ExactSum(), Decimal::FromUInt(count));
          if (avg.has_value()) return Value::Dec(std::move(*avg));
          return Value::Double(ExactSum().ToDouble() / static_cast<double>(count));
        }
        return Value::Double(dsum / static_cast<double>(count));
      }
      case AggFunc::kMin:
      case AggFunc::kMax:
        return best;
      case AggFunc::kGroupConcat:
        if (count == 0) return Value::Null();
        return Value::String(concat.text);
      case AggFunc::kStdPop:
      case AggFunc::kVarPop:
      case AggFunc::kStdSamp:
      case AggFunc::kVarSamp: {
        const bool sample = spec.func == AggFunc::kStdSamp || spec.func == AggFunc::kVarSamp;
        if (count == 0 || (sample && count == 1)) return Value::Null();
        const double var = m2 / static_cast<double>(sample ? count - 1 : count);
        const bool stddev = spec.func == AggFunc::kStdPop || spec.func == AggFunc::kStdSamp;
        return Value::Double(stddev ? std::sqrt(var) : var);
      }
      case AggFunc::kBitAnd:
        return Value::UInt(count == 0 ? ~uint64_t{0} : bits);
      case AggFunc::kBitOr:
      case AggFunc::kBitXor:
        return Value::UInt(bits);
      case AggFunc::kGrouping:
        return Value::Int(0);  // a group's own row; SelectRun gives super-aggregate rows theirs
    }
    return Value::Null();
  }
};

// "test.t.column" as MySQL's messages name a column; a join's at `position` in the joined row
// is named by its own table.
std::string QualifiedColumn(const BindScope& scope, std::string_view column, int position = -1) {
  std::string_view table = scope.alias.empty() ? scope.table : scope.alias;
  std::string_view schema = scope.schema;
  for (const BindScope::JoinTable& t : scope.join_tables) {
    if (position >= 0 && static_cast<size_t>(position) >= t.first &&
        static_cast<size_t>(position) < t.first + t.count) {
      table = t.as_named;
      schema = t.schema;
    }
  }
  std::string s(schema);
  s += '.';
  s += table;
  s += '.';
  s += column;
  return s;
}

// The joined-row position a column name `c` reads in a join (-1 for one table, or none).
int JoinPosition(const BindScope& scope, const Expr& c) {
  if (scope.join_tables.empty()) return -1;
  SqlResult<size_t> at = ResolveJoinColumn(c, scope, "field list");
  return at.ok() ? static_cast<int>(*at) : -1;
}

// ORDER BY n / GROUP BY n, or a select item's alias: the item's bound expression.
// `item_of[i]` is stmt.items[i]'s position in `items` (a * expands to several).
const BoundExpr* ItemReference(const Expr& e, const SelectStmt& stmt,
                               const std::vector<BoundExpr>& items,
                               const std::vector<size_t>& item_of, bool* out_of_range) {
  *out_of_range = false;
  if (e.kind == Expr::Kind::kLiteral && e.param < 0 && e.value.is_int()) {  // not ORDER BY ?
    int64_t n = e.value.as_int();
    if (n < 1 || n > static_cast<int64_t>(items.size())) {
      *out_of_range = true;
      return nullptr;
    }
    return &items[n - 1];
  }
  if (e.kind == Expr::Kind::kColumn && e.table.empty()) {
    for (size_t i = 0; i < stmt.items.size(); ++i) {
      if (!stmt.items[i].alias.empty() && EqualsNoCase(stmt.items[i].alias, e.name))
        return &items[item_of[i]];
    }
  }
  return nullptr;
}

// The statement only counts the plan's rows: count(*) or count of NOT NULL columns, nothing
// else, and no row read needed for the locks (the residual conjuncts aside).
bool CountsRows(const PreparedSelect& p) {
  if (!p.aggregate || !p.group_by.empty() || p.table == nullptr) return false;
  if (p.table->materialized != nullptr) return false;  // a derived table: its rows are counted
  for (const AggregateSpec& a : p.scope.aggregates) {
    if (a.func != AggFunc::kCount || a.distinct) return false;
    if (a.star) continue;
    if (a.arg.kind != BoundExpr::Kind::kColumn) return false;
    if (p.table->def.columns[a.arg.column].nullable) return false;
  }
  // A non-covering secondary walk that locks must lock the clustered records too.
  return p.plan.clustered() || p.plan.covering || p.lock == LockMode::kNone;
}

}  // namespace

namespace {

// FROM: a system table (its rows read now) or a table of the catalog.
SqlStatus BindFrom(ExecContext& ctx, const SelectStmt& stmt, PreparedSelect* p) {
  if (!stmt.from.has_value()) return SqlStatus::OK();
  if (!stmt.joins.empty()) return BindJoinFrom(ctx, stmt, p);
  BindScope& scope = p->scope;
  if (IsSystemSchema(stmt.from->schema)) {
    SQL_ASSIGN_OR_RETURN(SystemTable t, ReadSystemTable(ctx, *stmt.from));
    p->system = true;
    p->system_columns = std::move(t.columns);
    p->system_rows = std::move(t.rows);
    p->system_view_names = t.view_names;
    scope.table = stmt.from->name;
    scope.alias = stmt.from_alias;
    scope.schema = stmt.from->schema;
    for (const std::string& c : p->system_columns) scope.columns.push_back(c);
    scope.used.assign(scope.columns.size(), false);
  } else {
    if (stmt.from_derived.has_value()) {
      SQL_ASSIGN_OR_RETURN(p->table, MaterializeDerived(ctx, *stmt.from_derived, stmt.from_alias));
    } else {
      SQL_ASSIGN_OR_RETURN(p->table, FindTable(ctx, *stmt.from));
    }
    scope = ScopeForTable(p->table->def, stmt.from_alias);
  }
  return SqlStatus::OK();
}

// sql_mode ONLY_FULL_GROUP_BY: a bare column outside GROUP BY is 1055/1140; without it the
// column's value is the group's first row's.
bool OnlyFullGroupBy(const ExecContext& ctx) {
  return ctx.session == nullptr || ctx.session->vars.sql_mode().only_full_group_by;
}

// 1140 for the select list's expression #`position` naming `column` outside an aggregate in
// an aggregated query without GROUP BY.
SqlError MixOfGroupFuncAndFields(const BindScope& scope, size_t position, std::string_view column,
                                 int column_position) {
  return SqlErr(kErMixOfGroupFuncAndFields, "In aggregated query without GROUP BY, expression #",
                std::to_string(position), " of SELECT list contains nonaggregated column '",
                QualifiedColumn(scope, column, column_position),
                "'; this is incompatible with sql_mode=only_full_group_by");
}

// The columns `*` (star_table empty), `star_table.*` or `star_schema.star_table.*` selects:
// 1051 for a table not in FROM (db.t.* names a table of database db by its name, as a
// qualified column does).
SqlResult<std::vector<size_t>> StarColumns(const SelectStmt& stmt, const PreparedSelect& p,
                                           const SelectItem& item) {
  const std::string& star_table = item.star_table;
  auto in_schema = [&](const std::string& schema) {
    return item.star_schema.empty() || EqualsNoCase(item.star_schema, schema);
  };
  if (p.join != nullptr) {
    if (star_table.empty()) return p.join->star;
    for (size_t t = 0; t < p.join->as_named.size(); ++t) {
      const std::string schema =
          t < p.scope.join_tables.size() ? p.scope.join_tables[t].schema : std::string();
      if (EqualsNoCase(p.join->as_named[t], star_table) && in_schema(schema))
        return p.join->tables[t];
    }
  } else if (star_table.empty() ||
             (EqualsNoCase(star_table,
                           stmt.from_alias.empty() ? stmt.from->name : stmt.from_alias) &&
              in_schema(p.scope.schema))) {
    std::vector<size_t> all(p.scope.columns.size());
    for (size_t c = 0; c < all.size(); ++c) all[c] = c;
    return all;
  }
  const std::string shown =
      item.star_schema.empty() ? star_table : item.star_schema + "." + star_table;
  return SqlErr(kErBadTable, "Unknown table '", shown, "'");
}

// The select list: p->items and p->names; `item_of[i]` gets stmt.items[i]'s position in
// p->items (a * expands to every column).
SqlStatus BindSelectList(ExecContext& ctx, const SelectStmt& stmt, PreparedSelect* p,
                         std::vector<size_t>* item_of) {
  BindScope& scope = p->scope;
  const bool has_aggregates = p->aggregate && OnlyFullGroupBy(ctx);  // checks 1140
  scope.allow_aggregates = true;
  for (const SelectItem& item : stmt.items) {
    item_of->push_back(p->items.size());
    if (item.expr == nullptr) {
      if (!stmt.from.has_value()) return SqlErr(kErNoTablesUsed, "No tables used");
      SQL_ASSIGN_OR_RETURN(std::vector<size_t> star, StarColumns(stmt, *p, item));
      for (size_t c : star) {
        if (has_aggregates && stmt.group_by.empty())
          return MixOfGroupFuncAndFields(scope, p->items.size() + 1, scope.columns[c],
                                         static_cast<int>(c));
        BoundExpr b;
        b.kind = BoundExpr::Kind::kColumn;
        b.column = static_cast<int>(c);
        if (c < scope.used.size()) scope.used[c] = true;
        p->items.push_back(std::move(b));
        p->names.emplace_back(scope.columns[c]);
      }
      continue;
    }
    scope.saw_column_outside_aggregate = false;
    SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*item.expr, scope, ctx, "field list"));
    if (has_aggregates && stmt.group_by.empty() && scope.saw_column_outside_aggregate)
      return MixOfGroupFuncAndFields(scope, p->items.size() + 1, scope.first_bare_column,
                                     scope.first_bare_position);
    p->items.push_back(std::move(b));
    if (!item.alias.empty()) {
      p->names.push_back(item.alias);
    } else if (item.expr->kind == Expr::Kind::kColumn) {
      const BoundExpr& col = p->items.back();
      p->names.push_back(p->system_view_names && col.kind == BoundExpr::Kind::kColumn
                             ? std::string(scope.columns[col.column])
                             : item.expr->name);
    } else if (item.expr->kind == Expr::Kind::kLiteral && item.expr->param < 0 &&
               item.expr->value.is_string()) {           // SELECT ? is named "?"
      p->names.push_back(item.expr->value.as_string());  // MySQL names SELECT 'a''b' "a'b"
    } else {
      p->names.push_back(item.expr->text);
    }
  }
  return SqlStatus::OK();
}

// 1055 unless every bare column of the select list's items that are not GROUP BY
// expressions is one of `group_columns`.
SqlStatus CheckGroupedColumns(const SelectStmt& stmt, const BindScope& scope,
                              const std::vector<size_t>& item_of,
                              const std::vector<bool>& item_grouped,
                              const std::vector<int>& group_columns) {
  for (size_t i = 0; i < stmt.items.size(); ++i) {
    std::vector<const Expr*> bare;
    if (stmt.items[i].expr != nullptr && !item_grouped[i]) BareColumns(*stmt.items[i].expr, &bare);
    for (const Expr* c : bare) {
      int pos = -1;
      if (!scope.join_tables.empty()) {
        SqlResult<size_t> at = ResolveJoinColumn(*c, scope, "field list");
        if (at.ok()) pos = static_cast<int>(*at);
      }
      for (size_t k = 0; k < scope.columns.size() && scope.join_tables.empty(); ++k) {
        if (EqualsNoCase(scope.columns[k], c->name)) pos = static_cast<int>(k);
      }
      if (std::find(group_columns.begin(), group_columns.end(), pos) == group_columns.end())
        return SqlErr(kErWrongFieldWithGroup, "Expression #", std::to_string(item_of[i] + 1),
                      " of SELECT list is not in GROUP BY clause and contains nonaggregated "
                      "column '",
                      QualifiedColumn(scope, c->name, JoinPosition(scope, *c)),
                      "' which is not functionally dependent on columns in GROUP BY clause; "
                      "this is incompatible with sql_mode=only_full_group_by");
    }
  }
  return SqlStatus::OK();
}

// GROUP BY: columns, positions or aliases; every bare column of the select list must be one.
SqlStatus BindGroupBy(ExecContext& ctx, const SelectStmt& stmt, const std::vector<size_t>& item_of,
                      PreparedSelect* p) {
  BindScope& scope = p->scope;
  scope.allow_aggregates = false;
  std::vector<int> group_columns;
  std::vector<bool> item_grouped(stmt.items.size(), false);  // the item is a GROUP BY expression
  for (const ExprPtr& g : stmt.group_by) {
    bool out_of_range = false;
    const BoundExpr* ref = ItemReference(*g, stmt, p->items, item_of, &out_of_range);
    if (out_of_range)
      return SqlErr(kErBadField, "Unknown column '", g->text, "' in 'group statement'");
    for (size_t i = 0; i < stmt.items.size(); ++i) {
      if ((stmt.items[i].expr != nullptr && ref == &p->items[item_of[i]]) ||
          (stmt.items[i].expr != nullptr && SameExpr(*stmt.items[i].expr, *g)))
        item_grouped[i] = true;
    }
    if (ref != nullptr) {
      p->group_by.push_back(*ref);
    } else {
      SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*g, scope, ctx, "group statement"));
      p->group_by.push_back(std::move(b));
    }
    if (p->group_by.back().kind == BoundExpr::Kind::kColumn)
      group_columns.push_back(p->group_by.back().column);
  }
  if (stmt.group_by.empty()) return SqlStatus::OK();
  if (!OnlyFullGroupBy(ctx)) return SqlStatus::OK();
  return CheckGroupedColumns(stmt, scope, item_of, item_grouped, group_columns);
}

// ORDER BY: positions, aliases, or expressions. The plain columns go to *order_columns for
// the planner; *needs_sort is set if an item is not one.
SqlStatus BindOrderBy(ExecContext& ctx, const SelectStmt& stmt, const std::vector<size_t>& item_of,
                      PreparedSelect* p, std::vector<OrderColumn>* order_columns,
                      bool* needs_sort) {
  BindScope& scope = p->scope;
  scope.allow_aggregates = p->aggregate;
  for (const OrderItem& o : stmt.order_by) {
    bool out_of_range = false;
    const BoundExpr* ref = ItemReference(*o.expr, stmt, p->items, item_of, &out_of_range);
    if (out_of_range)
      return SqlErr(kErBadField, "Unknown column '", o.expr->text, "' in 'order clause'");
    if (ref != nullptr) {
      p->order.push_back(*ref);
    } else {
      SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*o.expr, scope, ctx, "order clause"));
      p->order.push_back(std::move(b));
    }
    p->order_desc.push_back(o.desc);
    if (p->order.back().kind == BoundExpr::Kind::kColumn) {
      order_columns->push_back({static_cast<uint32_t>(p->order.back().column), o.desc});
    } else {
      *needs_sort = true;
    }
  }
  return SqlStatus::OK();
}

// Whether `e` is one of the select list's expressions.
bool InSelectList(const Expr& e, const SelectStmt& stmt) {
  for (const SelectItem& item : stmt.items) {
    if (item.expr == nullptr) {
      if (e.kind == Expr::Kind::kColumn) return true;  // * selects every column
      continue;
    }
    if (SameExpr(*item.expr, e)) return true;
  }
  return false;
}

// The first part of `e` that is not made of select-list expressions (DISTINCT's ORDER BY
// rule): a column, or an aggregate call; null if none.
const Expr* OutsideSelectList(const Expr& e, const SelectStmt& stmt) {
  if (InSelectList(e, stmt)) return nullptr;
  if (e.kind == Expr::Kind::kColumn) return &e;
  if (e.kind == Expr::Kind::kFunction && ContainsAggregate(e) &&
      std::none_of(e.args.begin(), e.args.end(),
                   [](const ExprPtr& a) { return a != nullptr && ContainsAggregate(*a); }))
    return &e;  // the aggregate call itself
  for (const ExprPtr& a : e.args) {
    if (a == nullptr) continue;
    if (const Expr* bad = OutsideSelectList(*a, stmt)) return bad;
  }
  return nullptr;
}

// SELECT DISTINCT ... ORDER BY: each ORDER BY expression must be a select item or made of
// them (MySQL's Distinct_check), else 3065 (a column) or 3066 (an aggregate).
SqlStatus CheckDistinctOrder(const SelectStmt& stmt, const PreparedSelect& p,
                             const std::vector<size_t>& item_of) {
  for (size_t i = 0; i < stmt.order_by.size(); ++i) {
    const Expr& o = *stmt.order_by[i].expr;
    bool out_of_range = false;
    if (ItemReference(o, stmt, p.items, item_of, &out_of_range) != nullptr) continue;
    const Expr* bad = OutsideSelectList(o, stmt);
    if (bad == nullptr) continue;
    if (bad->kind == Expr::Kind::kColumn)
      return SqlErr(kErFieldInOrderNotSelect, "Expression #", std::to_string(i + 1),
                    " of ORDER BY clause is not in SELECT list, references column '",
                    QualifiedColumn(p.scope, bad->name, JoinPosition(p.scope, *bad)),
                    "' which is not in SELECT list; this is incompatible with DISTINCT");
    return SqlErr(kErAggregateInOrderNotSelect, "Expression #", std::to_string(i + 1),
                  " of ORDER BY clause is not in SELECT list, contains aggregate function; this "
                  "is incompatible with DISTINCT");
  }
  return SqlStatus::OK();
}

// HAVING's names resolved as MySQL's resolve_ref_in_select_and_group does: outside an
// aggregate a name is a select item (its alias, or a column it selects) or a GROUP BY column;
// both, and not the same column: the GROUP BY one, with warning 1052. An alias becomes a copy
// of its item's expression. Else 1054 (the table's other columns are not visible there).
SqlResult<ExprPtr> ResolveHaving(const Expr& e, const SelectStmt& stmt, bool in_aggregate,
                                 std::vector<SqlWarning>* warnings) {
  if (e.kind == Expr::Kind::kColumn && !in_aggregate) {
    const Expr* item = nullptr;  // the select item the name is
    bool star = false;
    for (const SelectItem& i : stmt.items) {
      if (i.expr == nullptr) {
        star = true;
      } else if (e.table.empty() && !i.alias.empty() && EqualsNoCase(i.alias, e.name)) {
        item = i.expr.get();
      } else if (i.alias.empty() && i.expr->kind == Expr::Kind::kColumn &&
                 EqualsNoCase(i.expr->name, e.name)) {
        item = i.expr.get();
      }
      if (item != nullptr) break;
    }
    bool grouped = false;  // a GROUP BY column of that name (not a select item's alias)
    for (const ExprPtr& g : stmt.group_by) {
      if (g->kind != Expr::Kind::kColumn || !EqualsNoCase(g->name, e.name)) continue;
      grouped = grouped || !g->table.empty() ||
                std::none_of(stmt.items.begin(), stmt.items.end(), [&](const SelectItem& i) {
                  return !i.alias.empty() && EqualsNoCase(i.alias, g->name);
                });
    }
    const bool item_is_column =
        item != nullptr && item->kind == Expr::Kind::kColumn && EqualsNoCase(item->name, e.name);
    if (item != nullptr && grouped && !item_is_column) {
      warnings->push_back(
          {"Warning", kErNonUniq, "Column '" + e.name + "' in having clause is ambiguous"});
      return CloneExpr(e);
    }
    if (item != nullptr) return CloneExpr(*item);
    if (grouped || star) return CloneExpr(e);
    std::string full = e.table.empty() ? e.name : e.table + "." + e.name;
    return SqlErr(kErBadField, "Unknown column '", full, "' in 'having clause'");
  }
  ExprPtr c = CloneExpr(e);
  c->args.clear();
  const bool aggregate_call = e.kind == Expr::Kind::kFunction && ContainsAggregate(e) &&
                              std::none_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) {
                                return a != nullptr && ContainsAggregate(*a);
                              });
  for (const ExprPtr& a : e.args) {
    if (a == nullptr) {
      c->args.push_back(nullptr);
      continue;
    }
    SQL_ASSIGN_OR_RETURN(ExprPtr r,
                         ResolveHaving(*a, stmt, in_aggregate || aggregate_call, warnings));
    c->args.push_back(std::move(r));
  }
  return c;
}

// HAVING bound over the row the select list reads (aggregates allowed).
SqlStatus BindHaving(ExecContext& ctx, const SelectStmt& stmt, PreparedSelect* p) {
  if (stmt.having == nullptr) return SqlStatus::OK();
  SQL_ASSIGN_OR_RETURN(ExprPtr resolved, ResolveHaving(*stmt.having, stmt, false, &p->warnings));
  p->scope.allow_aggregates = true;
  SQL_ASSIGN_OR_RETURN(BoundExpr h, BindExpr(*resolved, p->scope, ctx, "having clause"));
  p->having = std::move(h);
  return SqlStatus::OK();
}

// The table's access plan and its bound residual predicates.
SqlStatus PlanTable(ExecContext& ctx, const SelectStmt& stmt, std::vector<OrderColumn> order,
                    bool order_needs_sort, PreparedSelect* p) {
  PlanRequest req;
  req.def = &p->table->def;
  req.where = stmt.where.get();
  if (stmt.where != nullptr && !ctx.outer_scopes.empty()) {
    // A subquery's: the planner reads its outer references as the constants they are.
    p->planned_where = PlannerCopy(*stmt.where, p->scope, ctx);
    req.where = p->planned_where.get();
  }
  if (stmt.where != nullptr && ctx.subqueries != nullptr && ContainsSubquery(*stmt.where)) {
    // The planner reads what the subqueries returned, as literals.
    SQL_ASSIGN_OR_RETURN(ExprPtr resolved, ctx.subqueries->ResolveTree(ctx, *req.where, p->scope));
    p->planned_where = std::move(resolved);
    req.where = p->planned_where.get();
  }
  req.needed = p->scope.used;
  if (!p->aggregate) {
    req.order = std::move(order);
    req.order_needs_sort = order_needs_sort;
  }
  p->plan = ChoosePlan(req);
  // InnoDB reads the whole row under FOR UPDATE (ha_innobase::build_template), so an
  // exclusive walk of a secondary index locks the clustered records too.
  if (p->lock == LockMode::kExclusive && !p->plan.clustered()) p->plan.covering = false;
  for (const Expr* c : p->plan.residual) {
    SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*c, p->scope, ctx, "where clause"));
    p->residual.push_back(std::move(b));
  }
  return SqlStatus::OK();
}

// How many user variable assignments the clauses of `stmt` have.
size_t SelectUserVariableAssignments(const SelectStmt& stmt) {
  size_t n = 0;
  auto add = [&](const Expr* e) {
    if (e != nullptr) n += UserVariableAssignments(*e);
  };
  for (const SelectItem& item : stmt.items) add(item.expr.get());
  for (const ExprPtr& e : stmt.group_by) add(e.get());
  for (const OrderItem& o : stmt.order_by) add(o.expr.get());
  add(stmt.where.get());
  add(stmt.having.get());
  return n;
}

}  // namespace

SqlResult<PreparedSelect> PrepareSelect(ExecContext& ctx, const SelectStmt& stmt) {
  if (stmt.union_of != nullptr) return SqlStatus::Internal("PrepareSelect of a UNION").error();
  PreparedSelect p;
  // MySQL's parser warns of each assignment in an expression (deprecated), before all else.
  const size_t assignments = SelectUserVariableAssignments(stmt);
  ctx.user_vars_at_eval = assignments > 0;
  for (size_t i = 0; i < assignments; ++i) {
    p.warnings.push_back(
        {"Warning", kErWarnDeprecatedSyntax,
         "Setting user variables within expressions is deprecated and will be removed in a "
         "future release. Consider alternatives: 'SET variable=expression, ...', or 'SELECT "
         "expression(s) INTO variables(s)'."});
  }
  p.lock = LockModeOf(stmt.lock);
  p.wait = LockWaitOf(stmt.locked_row);
  SQL_RETURN_IF_ERROR(BindFrom(ctx, stmt, &p));

  bool has_aggregates = !stmt.group_by.empty();
  for (const SelectItem& item : stmt.items) {
    if (item.expr != nullptr && ContainsAggregate(*item.expr)) has_aggregates = true;
  }
  for (const OrderItem& o : stmt.order_by) {
    if (o.expr != nullptr && ContainsAggregate(*o.expr)) has_aggregates = true;
  }
  if (stmt.having != nullptr && ContainsAggregate(*stmt.having)) has_aggregates = true;
  p.aggregate = has_aggregates;

  std::vector<size_t> item_of;
  SQL_RETURN_IF_ERROR(BindSelectList(ctx, stmt, &p, &item_of));
  SQL_RETURN_IF_ERROR(BindGroupBy(ctx, stmt, item_of, &p));
  SQL_RETURN_IF_ERROR(BindHaving(ctx, stmt, &p));
  p.rollup = stmt.rollup;
  if (stmt.where != nullptr && p.join == nullptr) {  // a join's: PlanJoin
    SQL_ASSIGN_OR_RETURN(BoundExpr w, BindExpr(*stmt.where, p.scope, ctx, "where clause"));
    p.where = std::move(w);
  }
  std::vector<OrderColumn> order_columns;
  bool order_needs_sort = false;
  SQL_RETURN_IF_ERROR(BindOrderBy(ctx, stmt, item_of, &p, &order_columns, &order_needs_sort));
  SQL_RETURN_IF_ERROR(CheckRollup(stmt, p.group_by, p.scope.aggregates));
  if (stmt.distinct) SQL_RETURN_IF_ERROR(CheckDistinctOrder(stmt, p, item_of));
  p.distinct = stmt.distinct;
  if (p.table != nullptr) {
    SQL_RETURN_IF_ERROR(PlanTable(ctx, stmt, std::move(order_columns), order_needs_sort, &p));
    PlanMinMax(stmt, &p);
  }
  if (p.join != nullptr) SQL_RETURN_IF_ERROR(PlanJoin(ctx, stmt, &p));
  return p;
}

namespace {

// One run of a prepared SELECT: Read() feeds the rows to the groups (aggregates) or to the
// output rows (OFFSET/LIMIT applied while reading when no sort follows); Finish() makes the
// groups' rows, sorts and applies the window.
class SelectRun {
 public:
  SelectRun(ExecContext& ctx, PreparedSelect& p, const SelectStmt& stmt)
      : ctx_(ctx),
        p_(p),
        specs_(p.scope.aggregates),
        limit_(stmt.limit.value_or(UINT64_MAX)),
        offset_(stmt.offset),
        calc_found_rows_(stmt.calc_found_rows),
        sort_(!p.order.empty() && (p.aggregate || p.table == nullptr || p.plan.needs_sort)),
        groups_(ValuesLess{&p.group_by}),
        distinct_rows_(ValuesLess{&p.items}) {
    SeedEvalState(&st_);
    if (p.rollup) {
      for (size_t level = 0; level < p.group_by.size(); ++level)
        rollup_groups_.emplace_back(ValuesLess{&p.group_by});
      for (const AggregateSpec& a : specs_)
        grouping_.push_back(a.func == AggFunc::kGrouping ? GroupingPositions(a, p.group_by)
                                                         : std::vector<size_t>{});
    }
  }

  SqlStatus Read();
  SqlResult<std::vector<std::vector<Value>>> Finish();
  std::vector<SqlWarning> TakeWarnings() { return std::move(st_.warnings); }
  // The rows before OFFSET and LIMIT (after HAVING and DISTINCT), once Finish ran.
  uint64_t found_rows() const { return found_rows_; }

 private:
  struct OutRow {
    std::vector<Value> values;
    std::vector<Value> keys;
  };
  // Aggregates: one state per (group, aggregate).
  struct Group {
    Row representative;
    bool saw_row = false;
    std::vector<AggState> aggs;
  };

  // Adds the output row of `row`; false (nothing added) if DISTINCT already has it.
  bool Project(const Row& row);
  bool Consume(Row& row);  // false: stop reading
  // Completes aggregate `i`'s group_concat of one group; warning 1260 if it was cut.
  void FinishConcat(size_t i, ConcatState& c);
  // Adds `row` to group `g` (`created`: just made, so `row` is its first).
  void AddToGroup(Group& g, bool created, const Row& row);
  // Adds `row` to the groups of each prefix of its GROUP BY values `key` (WITH ROLLUP).
  void AddToRollups(const std::vector<Value>& key, const Row& row);
  // The output row of group `g`, whose row keeps the first `kept` GROUP BY values (all of them
  // for a group's own row), unless HAVING drops it; `values` holds its aggregates' values.
  void EmitGroup(Group& g, size_t kept, std::vector<Value>& values);
  // The super-aggregate rows of the prefixes of the group `last`'s values that are `lowest`
  // values long or longer (and shorter than GROUP BY), longest first: those that end with it.
  void EmitRollups(const std::vector<Value>& last, size_t lowest, std::vector<Value>& values);

  ExecContext& ctx_;
  PreparedSelect& p_;
  const std::vector<AggregateSpec>& specs_;
  const uint64_t limit_;
  const uint64_t offset_;
  // SQL_CALC_FOUND_ROWS: every row is read and kept, and the window applied at the end.
  const bool calc_found_rows_;
  uint64_t found_rows_ = 0;
  const bool sort_;
  EvalState st_;
  std::vector<OutRow> rows_;
  std::map<std::vector<Value>, Group, ValuesLess> groups_;
  std::set<std::vector<Value>, ValuesLess> distinct_rows_;  // SELECT DISTINCT: rows so far
  // WITH ROLLUP: per prefix length L < GROUP BY's, the groups of the first L values; per
  // aggregate, GROUPING's GROUP BY positions (empty for the others).
  std::vector<std::map<std::vector<Value>, Group, ValuesLess>> rollup_groups_;
  std::vector<std::vector<size_t>> grouping_;
  uint64_t skipped_ = 0;
  // Per aggregate, the group_concat rows appended so far (over the groups, in group order):
  // MySQL's 1260 names that count, its row_count.
  std::vector<uint64_t> concat_rows_;
};

void SelectRun::FinishConcat(size_t i, ConcatState& c) {
  c.Finish(specs_[i]);
  concat_rows_.resize(specs_.size());
  concat_rows_[i] += c.appended;
  if (c.cut)
    st_.warnings.push_back(
        {"Warning", kErCutValueGroupConcat,
         "Row " + std::to_string(concat_rows_[i]) + " was cut by GROUP_CONCAT()"});
}

bool SelectRun::Project(const Row& row) {
  OutRow r;
  r.values.reserve(p_.items.size());
  for (const BoundExpr& e : p_.items) r.values.push_back(Eval(e, row, st_));
  if (p_.distinct && !distinct_rows_.insert(r.values).second) return false;
  if (sort_) {
    for (const BoundExpr& e : p_.order) r.keys.push_back(Eval(e, row, st_));
  }
  rows_.push_back(std::move(r));
  return true;
}

bool SelectRun::Consume(Row& row) {
  if (p_.aggregate) {
    Group* g;
    if (p_.group_by.empty()) {
      g = &groups_.begin()->second;
      if (!g->saw_row) g->representative = row;  // bare columns read the first row
    } else {
      std::vector<Value> key;
      key.reserve(p_.group_by.size());
      for (const BoundExpr& e : p_.group_by) key.push_back(Eval(e, row, st_));
      auto [it, inserted] = groups_.try_emplace(std::move(key));
      AddToGroup(it->second, inserted, row);
      if (!rollup_groups_.empty()) AddToRollups(it->first, row);
      return true;
    }
    AddToGroup(*g, false, row);
    return true;
  }
  if (p_.having.has_value() && !EvalPredicate(*p_.having, row, st_)) return true;
  if (!sort_ && !calc_found_rows_) {
    if (p_.distinct) {
      // OFFSET counts distinct rows: a row is projected (and remembered) before it is skipped.
      if (!Project(row)) return true;
      if (skipped_ < offset_) {
        rows_.pop_back();
        ++skipped_;
        return true;
      }
      return rows_.size() < limit_;
    }
    if (skipped_ < offset_) {
      ++skipped_;
      return true;
    }
    Project(row);
    return rows_.size() < limit_;
  }
  Project(row);
  return true;
}

void SelectRun::AddToRollups(const std::vector<Value>& key, const Row& row) {
  for (size_t level = 0; level < rollup_groups_.size(); ++level) {
    std::vector<Value> prefix(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(level));
    auto [it, inserted] = rollup_groups_[level].try_emplace(std::move(prefix));
    AddToGroup(it->second, inserted, row);
  }
}

void SelectRun::AddToGroup(Group& g, bool created, const Row& row) {
  if (created) {
    g.aggs.resize(specs_.size());
    g.representative = row;
  }
  g.saw_row = true;
  for (size_t i = 0; i < specs_.size(); ++i) g.aggs[i].Add(specs_[i], row, st_);
}

void SelectRun::EmitGroup(Group& g, size_t kept, std::vector<Value>& values) {
  for (size_t i = 0; i < specs_.size(); ++i) {
    if (specs_[i].func == AggFunc::kGroupConcat) FinishConcat(i, g.aggs[i].concat);
    values[i] = specs_[i].func == AggFunc::kGrouping && !grouping_.empty()
                    ? Value::Int(GroupingValue(grouping_[i], kept))
                    : g.aggs[i].Result(specs_[i]);
  }
  const bool rolled = kept < p_.group_by.size();
  const Row rolled_row = rolled ? RollupRow(g.representative, p_.group_by, kept) : Row{};
  const Row& row = rolled ? rolled_row : g.representative;
  if (p_.having.has_value() && !EvalPredicate(*p_.having, row, st_)) return;
  Project(row);
}

void SelectRun::EmitRollups(const std::vector<Value>& last, size_t lowest,
                            std::vector<Value>& values) {
  for (size_t kept = rollup_groups_.size(); kept-- > lowest;) {
    std::vector<Value> prefix(last.begin(), last.begin() + static_cast<std::ptrdiff_t>(kept));
    auto it = rollup_groups_[kept].find(prefix);
    if (it != rollup_groups_[kept].end()) EmitGroup(it->second, kept, values);
  }
}

SqlStatus SelectRun::Read() {
  if (p_.aggregate && p_.group_by.empty()) {
    Group& g = groups_[{}];
    g.aggs.resize(specs_.size());
    g.representative.assign(p_.scope.columns.size(), Value::Null());
  }
  if (limit_ == 0 && !p_.aggregate && !calc_found_rows_) return SqlStatus::OK();
  if (p_.table != nullptr && UsesMinMaxIndex(ctx_, p_)) {
    std::vector<Value> values;
    SQL_RETURN_IF_ERROR(ReadMinMax(ctx_, p_, st_, &values).status());
    Group& g = groups_.begin()->second;
    for (size_t i = 0; i < specs_.size(); ++i) g.aggs[i].best = std::move(values[i]);
    return SqlStatus::OK();
  }
  // (Without ONLY_FULL_GROUP_BY a bare column reads the first row: rows must be read.)
  if (p_.table != nullptr && CountsRows(p_) && OnlyFullGroupBy(ctx_)) {
    std::optional<uint64_t> n;
    if (p_.residual.empty()) {
      SQL_ASSIGN_OR_RETURN(n, CountEntries(ctx_, *p_.table, p_.plan, p_.lock, p_.wait));
    } else if (std::optional<std::vector<EntryLike>> likes =
                   EntryLikes(p_.table->def, p_.plan, p_.residual)) {
      // The LIKE a range keeps (collation weights) read off each entry's text.
      SQL_ASSIGN_OR_RETURN(n, CountEntriesLike(ctx_, *p_.table, p_.plan, p_.lock, p_.wait, *likes));
    }
    if (n.has_value()) {
      Group& g = groups_.begin()->second;
      for (size_t i = 0; i < specs_.size(); ++i) g.aggs[i].count = *n;
      return SqlStatus::OK();
    }
  }
  if (p_.table != nullptr) {
    ScanSpec spec;
    spec.table = p_.table.get();
    spec.plan = &p_.plan;
    spec.lock = p_.lock;
    spec.wait = p_.wait;
    spec.residual = &p_.residual;
    return ScanPlan(ctx_, spec, st_, [&](Row& row, std::string_view) -> SqlResult<bool> {
      bool more = Consume(row);
      SQL_RETURN_IF_ERROR(EvalError(st_));
      return more;
    });
  }
  if (p_.join != nullptr) {
    return RunJoin(ctx_, *p_.join, st_, [&](Row& row) -> SqlResult<bool> {
      bool more = Consume(row);
      SQL_RETURN_IF_ERROR(EvalError(st_));
      return more;
    });
  }
  std::vector<Row> source;
  if (p_.system) {
    source = std::move(p_.system_rows);
  } else {
    source.emplace_back();  // SELECT without FROM: one empty row
  }
  for (Row& row : source) {
    row.resize(p_.scope.columns.size());
    bool passes = !p_.where.has_value() || EvalPredicate(*p_.where, row, st_);
    SQL_RETURN_IF_ERROR(EvalError(st_));
    if (!passes) continue;
    bool more = Consume(row);
    SQL_RETURN_IF_ERROR(EvalError(st_));
    if (!more) break;
  }
  return SqlStatus::OK();
}

SqlResult<std::vector<std::vector<Value>>> SelectRun::Finish() {
  if (p_.aggregate) {
    std::vector<Value> values(specs_.size());
    st_.aggregates = &values;
    const std::vector<Value>* last = nullptr;  // the previous group's GROUP BY values
    for (auto& [key, g] : groups_) {
      if (last != nullptr && !rollup_groups_.empty()) {
        size_t differs = 0;
        while (differs < key.size() &&
               CompareNullsFirst((*last)[differs], key[differs], p_.group_by[differs]) == 0)
          ++differs;
        EmitRollups(*last, differs + 1, values);
      }
      EmitGroup(g, p_.group_by.size(), values);
      last = &key;
    }
    if (last != nullptr && !rollup_groups_.empty()) EmitRollups(*last, 0, values);
    st_.aggregates = nullptr;
  }
  SQL_RETURN_IF_ERROR(EvalError(st_));
  if (sort_) {
    ctx_.counts->sort_rows += rows_.size();
    std::stable_sort(rows_.begin(), rows_.end(), [&](const OutRow& a, const OutRow& b) {
      for (size_t i = 0; i < a.keys.size(); ++i) {
        int c = CompareNullsFirst(a.keys[i], b.keys[i], p_.order[i]);
        if (c != 0) return p_.order_desc[i] ? c > 0 : c < 0;
      }
      return false;
    });
  }
  // Else offset/limit were applied while reading.
  const bool windowed = sort_ || p_.aggregate || calc_found_rows_;
  found_rows_ = rows_.size();
  size_t begin = windowed ? std::min<uint64_t>(offset_, rows_.size()) : 0;
  size_t end = windowed ? begin + std::min<uint64_t>(limit_, rows_.size() - begin) : rows_.size();
  std::vector<std::vector<Value>> out;
  out.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) out.push_back(std::move(rows_[i].values));
  return out;
}

using ResultType = StatementResult::ColumnType;

// A table column's type as a result column has it.
ResultType DeclaredResultType(const ColumnDef& c) {
  if (IsIntegerType(c.type)) return c.is_unsigned ? ResultType::kUInt : ResultType::kInt;
  if (c.type == ColumnType::kDouble) return ResultType::kDouble;
  if (c.type == ColumnType::kDecimal) return ResultType::kDecimal;
  if (c.type == ColumnType::kBlob) return ResultType::kBinary;
  if (c.type == ColumnType::kDate) return ResultType::kDate;
  if (c.type == ColumnType::kDateTime) return ResultType::kDateTime;
  if (c.type == ColumnType::kTimestamp) return ResultType::kTimestamp;
  if (c.type == ColumnType::kYear) return ResultType::kYear;
  if (c.type == ColumnType::kTime) return ResultType::kTime;
  return ResultType::kText;
}

StatementResult::DeclaredColumn DeclaredResultColumn(const ColumnDef& c) {
  StatementResult::DeclaredColumn d;
  if (c.type == ColumnType::kDateTime || c.type == ColumnType::kTimestamp ||
      c.type == ColumnType::kTime) {
    d.fsp = static_cast<uint8_t>(c.length);
  }
  if ((c.type == ColumnType::kEnum || c.type == ColumnType::kSet) && c.members != nullptr) {
    d.is_enum = c.type == ColumnType::kEnum;
    d.is_set = c.type == ColumnType::kSet;
    size_t total = 0;
    for (const std::string& name : c.members->names) {
      const size_t chars = Utf8Length(name);
      d.chars = std::max<uint32_t>(d.chars, static_cast<uint32_t>(chars));
      total += chars;
    }
    if (d.is_set) {
      total += c.members->names.empty() ? 0 : c.members->names.size() - 1;  // the commas
      d.chars = static_cast<uint32_t>(total);
    }
  }
  return d;
}

// The table column select item `i` is, or null for an expression (or a system view's column).
const ColumnDef* ItemColumnDef(const PreparedSelect& p, size_t i) {
  const BoundExpr& e = p.items[i];
  if (e.kind != BoundExpr::Kind::kColumn) return nullptr;
  if (p.table != nullptr) return &p.table->def.columns[static_cast<size_t>(e.column)];
  if (p.join != nullptr) return p.join->columns[static_cast<size_t>(e.column)];
  return nullptr;
}

}  // namespace

std::vector<std::optional<StatementResult::DeclaredColumn>> DeclaredResultColumns(
    const PreparedSelect& p) {
  std::vector<std::optional<StatementResult::DeclaredColumn>> out(p.items.size());
  for (size_t i = 0; i < p.items.size(); ++i) {
    if (const ColumnDef* c = ItemColumnDef(p, i)) out[i] = DeclaredResultColumn(*c);
  }
  return out;
}

std::vector<std::optional<ResultType>> DeclaredResultTypes(const PreparedSelect& p) {
  std::vector<std::optional<ResultType>> types(p.items.size());
  for (size_t i = 0; i < p.items.size(); ++i) {
    if (const ColumnDef* c = ItemColumnDef(p, i)) types[i] = DeclaredResultType(*c);
  }
  return types;
}

namespace {

// StatementResult::column_types: the declared type, else the kind the column's non-NULL values
// in `rows` share (kText when they differ or there are none).
std::vector<ResultType> ResultColumnTypes(const std::vector<std::optional<ResultType>>& declared,
                                          const std::vector<std::vector<Value>>& rows) {
  std::vector<ResultType> types(declared.size(), ResultType::kText);
  for (size_t i = 0; i < declared.size(); ++i) {
    if (declared[i]) {
      types[i] = *declared[i];
      continue;
    }
    std::optional<Value::Kind> kind;         // of the first non-NULL value
    std::optional<Temporal::Type> temporal;  // of the first temporal value
    bool mixed = false;
    for (const std::vector<Value>& row : rows) {
      if (row[i].is_null()) continue;
      if (!kind) kind = row[i].kind();
      mixed = mixed || *kind != row[i].kind();
      if (!mixed && row[i].is_temporal()) {
        if (!temporal) temporal = row[i].as_temporal().type;
        mixed = *temporal != row[i].as_temporal().type;
      }
    }
    if (!kind || mixed) continue;
    switch (*kind) {
      case Value::Kind::kInt:
        types[i] = ResultType::kInt;
        break;
      case Value::Kind::kUInt:
        types[i] = ResultType::kUInt;
        break;
      case Value::Kind::kDouble:
        types[i] = ResultType::kDouble;
        break;
      case Value::Kind::kDecimal:
        types[i] = ResultType::kDecimal;
        break;
      case Value::Kind::kTemporal:
        types[i] = *temporal == Temporal::Type::kDate       ? ResultType::kDate
                   : *temporal == Temporal::Type::kDateTime ? ResultType::kDateTime
                   : *temporal == Temporal::Type::kTime     ? ResultType::kTime
                                                            : ResultType::kYear;
        break;
      case Value::Kind::kNull:
      case Value::Kind::kString:
      case Value::Kind::kEnum:  // sent as text, as its printed form
        break;
    }
  }
  return types;
}

}  // namespace

SqlResult<SelectOutput> RunSelect(ExecContext& ctx, const SelectStmt& stmt,
                                  std::optional<LockMode> lock) {
  if (lock.has_value()) ctx.derived_lock = lock;
  if (stmt.union_of != nullptr) return RunUnion(ctx, stmt, lock);
  if (ctx.subqueries == nullptr && HasSubquery(stmt))
    ctx.subqueries = std::make_shared<SubqueryResolver>(lock);
  SQL_ASSIGN_OR_RETURN(PreparedSelect p, PrepareSelect(ctx, stmt));
  if (!stmt.into_vars.empty() && stmt.into_vars.size() != p.items.size()) {
    return SqlErr(kErWrongNumberOfColumnsInSelect,
                  "The used SELECT statements have a different number of columns");
  }
  return RunPreparedSelect(ctx, p, stmt, lock);
}

SqlResult<SelectOutput> RunPreparedSelect(ExecContext& ctx, PreparedSelect& p,
                                          const SelectStmt& stmt, std::optional<LockMode> lock) {
  if (lock.has_value()) {
    p.lock = *lock;
    if (p.join != nullptr) {
      for (JoinStep& s : p.join->steps) s.lock = *lock;
    }
  }
  SelectOutput out;
  out.columns = p.names;
  // Select_scan / Select_range: how the first table is read (a join's first step).
  const AccessPlan* first = p.table != nullptr && !UsesMinMaxIndex(ctx, p) ? &p.plan
                            : p.join != nullptr                            ? &p.join->steps[0].plan
                                                                           : nullptr;
  if (first != nullptr) {
    if (first->type == AccessType::kAll || first->type == AccessType::kIndex) {
      ++ctx.counts->select_scan;
    } else if (first->type == AccessType::kRange) {
      ++ctx.counts->select_range;
    }
  }
  SelectRun run(ctx, p, stmt);
  SQL_RETURN_IF_ERROR(run.Read());
  SQL_ASSIGN_OR_RETURN(out.rows, run.Finish());
  if (stmt.calc_found_rows) out.found_rows = run.found_rows();
  out.declared_types = DeclaredResultTypes(p);
  out.declared_columns = DeclaredResultColumns(p);
  // Binding's (HAVING's 1052), then evaluation's (CAST's 1292, GROUP_CONCAT's cuts 1260) in the
  // order they happened.
  out.warnings = std::move(p.warnings);
  for (SqlWarning& w : run.TakeWarnings()) out.warnings.push_back(std::move(w));
  return out;
}

SqlResult<StatementResult> DescribeSelect(ExecContext& ctx, const SelectStmt& stmt) {
  // Subqueries are bound, not run: their values are left NULL (SubqueryResolver).
  if (ctx.subqueries == nullptr && HasSubquery(stmt))
    ctx.subqueries = std::make_shared<SubqueryResolver>(std::nullopt, /*describe_only=*/true);
  SQL_ASSIGN_OR_RETURN(QueryColumns q, DescribeQuery(ctx, stmt));
  StatementResult r;
  if (!stmt.into_vars.empty()) return r;  // SELECT ... INTO: no result set
  r.has_result_set = true;
  r.columns = std::move(q.names);
  r.column_types = ResultColumnTypes(q.declared_types, {});
  r.declared_columns = std::move(q.declared_columns);
  return r;
}

namespace {

// SQL_CALC_FOUND_ROWS belongs to the statement's own query block: in a subquery, a derived
// table or a later union part it is 1234, as MySQL's; a union's first part is not done here.
SqlStatus CheckCalcFoundRows(const SelectStmt& stmt) {
  SqlStatus st = SqlStatus::OK();
  ForEachQueryBlock(stmt, [&](const SelectStmt& b) {
    if (!b.calc_found_rows || &b == &stmt || !st.ok()) return;
    if (stmt.union_of != nullptr && &b == stmt.union_of->parts[0].get()) {
      st = SqlErr(kErNotSupportedYet,
                  "This version of minnow doesn't yet support 'SQL_CALC_FOUND_ROWS in UNION'");
    } else {
      st = SqlErr(kErCantUseOptionHere, "Incorrect usage/placement of 'SQL_CALC_FOUND_ROWS'");
    }
  });
  return st;
}

size_t FoundRowsCalls(const Expr& e) {
  size_t n = e.kind == Expr::Kind::kFunction && e.name == "found_rows" ? 1 : 0;
  for (const ExprPtr& a : e.args) {
    if (a != nullptr) n += FoundRowsCalls(*a);
  }
  return n;
}

// MySQL 8.0's parser deprecates both (1287), a warning per use.
std::vector<SqlWarning> FoundRowsDeprecations(const SelectStmt& stmt) {
  std::vector<SqlWarning> out;
  size_t calls = 0;
  ForEachQueryBlock(stmt, [&](const SelectStmt& b) {
    if (b.calc_found_rows)
      out.push_back({"Warning", kErWarnDeprecatedSyntax,
                     "'SQL_CALC_FOUND_ROWS' is deprecated and will be removed in a future "
                     "release. Consider using two separate queries instead."});
    auto add = [&](const Expr* e) {
      if (e != nullptr) calls += FoundRowsCalls(*e);
    };
    for (const SelectItem& item : b.items) add(item.expr.get());
    add(b.where.get());
    add(b.having.get());
    for (const ExprPtr& g : b.group_by) add(g.get());
    for (const OrderItem& o : b.order_by) add(o.expr.get());
  });
  for (size_t i = 0; i < calls; ++i)
    out.push_back({"Warning", kErWarnDeprecatedSyntax,
                   "'FOUND_ROWS()' is deprecated and will be removed in a future release. "
                   "Consider using COUNT(*) instead."});
  return out;
}

}  // namespace

SqlResult<StatementResult> ExecuteSelect(ExecContext& ctx, const SelectStmt& stmt) {
  SQL_RETURN_IF_ERROR(CheckCalcFoundRows(stmt));
  SQL_ASSIGN_OR_RETURN(SelectOutput out, RunSelect(ctx, stmt));
  std::vector<SqlWarning> deprecations = FoundRowsDeprecations(stmt);
  out.warnings.insert(out.warnings.begin(), deprecations.begin(), deprecations.end());
  if (ctx.session != nullptr) ctx.session->found_rows = out.found_rows.value_or(out.rows.size());
  if (!stmt.into_vars.empty()) return AssignSelectInto(ctx, stmt, std::move(out));
  StatementResult r;
  r.has_result_set = true;
  r.columns = std::move(out.columns);
  r.column_types = ResultColumnTypes(out.declared_types, out.rows);
  r.declared_columns = std::move(out.declared_columns);
  r.warnings = std::move(out.warnings);
  r.rows.reserve(out.rows.size());
  for (const std::vector<Value>& row : out.rows) {
    std::vector<std::optional<std::string>> printed;
    printed.reserve(row.size());
    for (const Value& v : row) {
      if (v.is_null()) {
        printed.emplace_back(std::nullopt);
      } else {
        printed.emplace_back(v.ToString());
      }
    }
    r.rows.push_back(std::move(printed));
  }
  return r;
}

}  // namespace minnow::sql
