// SELECT: binding, planning and running a single-table query (executor.h).

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "sql_lite_front/execute/executor.h"
#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/status/status_views.h"

namespace minnow::sql {
namespace {

// NULL first, then Value::Compare.
int CompareNullsFirst(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return static_cast<int>(!a.is_null()) - !b.is_null();
  return Value::Compare(a, b);
}

struct ValuesLess {
  bool operator()(const std::vector<Value>& a, const std::vector<Value>& b) const {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      int c = CompareNullsFirst(a[i], b[i]);
      if (c != 0) return c < 0;
    }
    return a.size() < b.size();
  }
};

// Column references outside aggregate calls.
void BareColumns(const Expr& e, std::vector<const Expr*>* out) {
  if (e.kind == Expr::Kind::kColumn) {
    out->push_back(&e);
    return;
  }
  if (e.kind == Expr::Kind::kFunction && (e.name == "count" || e.name == "sum" || e.name == "min" ||
                                          e.name == "max" || e.name == "avg"))
    return;
  for (const ExprPtr& a : e.args) {
    if (a != nullptr) BareColumns(*a, out);
  }
}

// One aggregate's running state.
struct AggState {
  uint64_t count = 0;
  bool int_sum = true;
  int64_t isum = 0;
  double dsum = 0;
  Value best;
  std::set<std::string> seen;  // DISTINCT: kind byte + printed value

  void Add(const AggregateSpec& spec, const Row& row, EvalState& st) {
    if (spec.star) {
      ++count;
      return;
    }
    Value v = Eval(spec.arg, row, st);
    if (v.is_null()) return;
    if (spec.distinct) {
      std::string k(1, static_cast<char>(v.kind()));
      k += v.ToString();
      if (!seen.insert(std::move(k)).second) return;
    }
    ++count;
    switch (spec.func) {
      case AggFunc::kSum:
      case AggFunc::kAvg:
        if (int_sum && v.is_int()) {
          if (!__builtin_add_overflow(isum, v.as_int(), &isum)) break;
          int_sum = false;
          dsum = static_cast<double>(isum) + static_cast<double>(v.as_int());
          break;
        }
        if (int_sum) {
          int_sum = false;
          dsum = static_cast<double>(isum);
        }
        dsum += v.ToDouble();
        break;
      case AggFunc::kMin:
        if (best.is_null() || Value::Compare(v, best) < 0) best = std::move(v);
        break;
      case AggFunc::kMax:
        if (best.is_null() || Value::Compare(v, best) > 0) best = std::move(v);
        break;
      case AggFunc::kCount:
        break;
    }
  }

  Value Result(const AggregateSpec& spec) const {
    switch (spec.func) {
      case AggFunc::kCount:
        return Value::Int(static_cast<int64_t>(count));
      case AggFunc::kSum:
        if (count == 0) return Value::Null();
        return int_sum ? Value::Int(isum) : Value::Double(dsum);
      case AggFunc::kAvg: {
        if (count == 0) return Value::Null();
        if (int_sum) {
          // MySQL's AVG of integers is a DECIMAL with 4 more digits (div_precision_increment).
          char buf[64];
          std::snprintf(buf, sizeof(buf), "%.4f",
                        static_cast<double>(isum) / static_cast<double>(count));
          return Value::String(buf);
        }
        return Value::Double(dsum / static_cast<double>(count));
      }
      case AggFunc::kMin:
      case AggFunc::kMax:
        return best;
    }
    return Value::Null();
  }
};

std::string QualifiedColumn(const BindScope& scope, std::string_view column) {
  std::string s = scope.schema;
  s += '.';
  s += scope.alias.empty() ? scope.table : scope.alias;
  s += '.';
  s += column;
  return s;
}

// ORDER BY n / GROUP BY n, or a select item's alias: the item's bound expression.
// `item_of[i]` is stmt.items[i]'s position in `items` (a * expands to several).
const BoundExpr* ItemReference(const Expr& e, const SelectStmt& stmt,
                               const std::vector<BoundExpr>& items,
                               const std::vector<size_t>& item_of, bool* out_of_range) {
  *out_of_range = false;
  if (e.kind == Expr::Kind::kLiteral && e.value.is_int()) {
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

bool CountOnly(const PreparedSelect& p) {
  if (!p.aggregate || !p.group_by.empty() || !p.residual.empty() || p.table == nullptr)
    return false;
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

SqlResult<PreparedSelect> PrepareSelect(ExecContext& ctx, const SelectStmt& stmt) {
  if (stmt.nowait)
    return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support 'NOWAIT'");
  if (stmt.skip_locked)
    return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support 'SKIP LOCKED'");
  PreparedSelect p;
  p.lock = LockModeOf(stmt.lock);
  BindScope& scope = p.scope;
  if (stmt.from.has_value()) {
    if (IsSystemSchema(stmt.from->schema)) {
      SQL_ASSIGN_OR_RETURN(SystemTable t, ReadSystemTable(ctx, *stmt.from));
      p.system = true;
      p.system_columns = std::move(t.columns);
      p.system_rows = std::move(t.rows);
      scope.table = stmt.from->name;
      scope.alias = stmt.from_alias;
      scope.schema = stmt.from->schema;
      for (const std::string& c : p.system_columns) scope.columns.push_back(c);
      scope.used.assign(scope.columns.size(), false);
    } else {
      SQL_ASSIGN_OR_RETURN(p.table, FindTable(ctx, *stmt.from));
      scope = ScopeForTable(p.table->def, stmt.from_alias);
    }
  }

  bool has_aggregates = !stmt.group_by.empty();
  for (const SelectItem& item : stmt.items) {
    if (item.expr != nullptr && ContainsAggregate(*item.expr)) has_aggregates = true;
  }
  for (const OrderItem& o : stmt.order_by) {
    if (o.expr != nullptr && ContainsAggregate(*o.expr)) has_aggregates = true;
  }
  p.aggregate = has_aggregates;

  // The select list.
  scope.allow_aggregates = true;
  std::vector<size_t> item_of;
  for (const SelectItem& item : stmt.items) {
    item_of.push_back(p.items.size());
    if (item.expr == nullptr) {
      if (!stmt.from.has_value()) return SqlErr(1096, "No tables used");
      for (size_t c = 0; c < scope.columns.size(); ++c) {
        if (has_aggregates && stmt.group_by.empty())
          return SqlErr(
              kErMixOfGroupFuncAndFields, "In aggregated query without GROUP BY, expression #",
              std::to_string(p.items.size() + 1), " of SELECT list contains nonaggregated column '",
              QualifiedColumn(scope, scope.columns[c]),
              "'; this is incompatible with sql_mode=only_full_group_by");
        BoundExpr b;
        b.kind = BoundExpr::Kind::kColumn;
        b.column = static_cast<int>(c);
        if (c < scope.used.size()) scope.used[c] = true;
        p.items.push_back(std::move(b));
        p.names.emplace_back(scope.columns[c]);
      }
      continue;
    }
    scope.saw_column_outside_aggregate = false;
    SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*item.expr, scope, ctx, "field list"));
    if (has_aggregates && stmt.group_by.empty() && scope.saw_column_outside_aggregate)
      return SqlErr(
          kErMixOfGroupFuncAndFields, "In aggregated query without GROUP BY, expression #",
          std::to_string(p.items.size() + 1), " of SELECT list contains nonaggregated column '",
          QualifiedColumn(scope, scope.first_bare_column),
          "'; this is incompatible with sql_mode=only_full_group_by");
    p.items.push_back(std::move(b));
    if (!item.alias.empty()) {
      p.names.push_back(item.alias);
    } else if (item.expr->kind == Expr::Kind::kColumn) {
      p.names.push_back(item.expr->name);
    } else if (item.expr->kind == Expr::Kind::kLiteral && item.expr->value.is_string()) {
      p.names.push_back(item.expr->value.as_string());  // MySQL names SELECT 'a''b' "a'b"
    } else {
      p.names.push_back(item.expr->text);
    }
  }

  // GROUP BY: columns, positions or aliases; every bare column of the select list must be one.
  scope.allow_aggregates = false;
  std::vector<int> group_columns;
  std::vector<bool> item_grouped(stmt.items.size(), false);  // the item is a GROUP BY expression
  for (const ExprPtr& g : stmt.group_by) {
    bool out_of_range = false;
    const BoundExpr* ref = ItemReference(*g, stmt, p.items, item_of, &out_of_range);
    if (out_of_range)
      return SqlErr(kErBadField, "Unknown column '", g->text, "' in 'group statement'");
    for (size_t i = 0; i < stmt.items.size(); ++i) {
      if ((stmt.items[i].expr != nullptr && ref == &p.items[item_of[i]]) ||
          (stmt.items[i].expr != nullptr && stmt.items[i].expr->text == g->text))
        item_grouped[i] = true;
    }
    if (ref != nullptr) {
      p.group_by.push_back(*ref);
    } else {
      SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*g, scope, ctx, "group statement"));
      p.group_by.push_back(std::move(b));
    }
    if (p.group_by.back().kind == BoundExpr::Kind::kColumn)
      group_columns.push_back(p.group_by.back().column);
  }
  if (!stmt.group_by.empty()) {
    for (size_t i = 0; i < stmt.items.size(); ++i) {
      std::vector<const Expr*> bare;
      if (stmt.items[i].expr != nullptr && !item_grouped[i])
        BareColumns(*stmt.items[i].expr, &bare);
      for (const Expr* c : bare) {
        int pos = -1;
        for (size_t k = 0; k < scope.columns.size(); ++k) {
          if (EqualsNoCase(scope.columns[k], c->name)) pos = static_cast<int>(k);
        }
        if (std::find(group_columns.begin(), group_columns.end(), pos) == group_columns.end())
          return SqlErr(kErWrongFieldWithGroup, "Expression #", std::to_string(item_of[i] + 1),
                        " of SELECT list is not in GROUP BY clause and contains nonaggregated "
                        "column '",
                        QualifiedColumn(scope, c->name),
                        "' which is not functionally dependent on columns in GROUP BY clause; "
                        "this is incompatible with sql_mode=only_full_group_by");
      }
    }
  }

  // WHERE.
  if (stmt.where != nullptr) {
    SQL_ASSIGN_OR_RETURN(BoundExpr w, BindExpr(*stmt.where, scope, ctx, "where clause"));
    p.where = std::move(w);
  }

  // ORDER BY: positions, aliases, or expressions.
  scope.allow_aggregates = has_aggregates;
  std::vector<OrderColumn> order_columns;
  bool order_needs_sort = false;
  for (const OrderItem& o : stmt.order_by) {
    bool out_of_range = false;
    const BoundExpr* ref = ItemReference(*o.expr, stmt, p.items, item_of, &out_of_range);
    if (out_of_range)
      return SqlErr(kErBadField, "Unknown column '", o.expr->text, "' in 'order clause'");
    if (ref != nullptr) {
      p.order.push_back(*ref);
    } else {
      SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*o.expr, scope, ctx, "order clause"));
      p.order.push_back(std::move(b));
    }
    p.order_desc.push_back(o.desc);
    if (p.order.back().kind == BoundExpr::Kind::kColumn) {
      order_columns.push_back({static_cast<uint32_t>(p.order.back().column), o.desc});
    } else {
      order_needs_sort = true;
    }
  }

  if (p.table != nullptr) {
    PlanRequest req;
    req.def = &p.table->def;
    req.where = stmt.where.get();
    req.needed = scope.used;
    if (!has_aggregates) {
      req.order = std::move(order_columns);
      req.order_needs_sort = order_needs_sort;
    }
    p.plan = ChoosePlan(req);
    // InnoDB reads the whole row under FOR UPDATE (ha_innobase::build_template), so an
    // exclusive walk of a secondary index locks the clustered records too.
    if (p.lock == LockMode::kExclusive && !p.plan.clustered()) p.plan.covering = false;
    for (const Expr* c : p.plan.residual) {
      SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*c, scope, ctx, "where clause"));
      p.residual.push_back(std::move(b));
    }
  }
  return p;
}

SqlResult<SelectOutput> RunSelect(ExecContext& ctx, const SelectStmt& stmt,
                                  std::optional<LockMode> lock) {
  SQL_ASSIGN_OR_RETURN(PreparedSelect p, PrepareSelect(ctx, stmt));
  if (lock.has_value()) p.lock = *lock;
  SelectOutput out;
  out.columns = p.names;
  EvalState st;
  SeedEvalState(&st);
  const uint64_t limit = stmt.limit.value_or(UINT64_MAX);
  const uint64_t offset = stmt.offset;
  const bool sort = !p.order.empty() && (p.aggregate || p.table == nullptr || p.plan.needs_sort);
  StatusCounters& counts = *ctx.counts;
  if (p.table != nullptr) {
    if (p.plan.type == AccessType::kAll || p.plan.type == AccessType::kIndex) {
      ++counts.select_scan;
    } else if (p.plan.type == AccessType::kRange) {
      ++counts.select_range;
    }
  }

  struct OutRow {
    std::vector<Value> values;
    std::vector<Value> keys;
  };
  std::vector<OutRow> rows;
  auto project = [&](const Row& row) {
    OutRow r;
    r.values.reserve(p.items.size());
    for (const BoundExpr& e : p.items) r.values.push_back(Eval(e, row, st));
    if (sort) {
      for (const BoundExpr& e : p.order) r.keys.push_back(Eval(e, row, st));
    }
    rows.push_back(std::move(r));
  };

  // Aggregates: one state per (group, aggregate).
  const std::vector<AggregateSpec>& specs = p.scope.aggregates;
  struct Group {
    Row representative;
    std::vector<AggState> aggs;
  };
  std::map<std::vector<Value>, Group, ValuesLess> groups;
  if (p.aggregate && p.group_by.empty()) {
    Group& g = groups[{}];
    g.aggs.resize(specs.size());
    g.representative.assign(p.scope.columns.size(), Value::Null());
  }

  uint64_t skipped = 0;
  auto consume = [&](Row& row) -> bool {  // false: stop reading
    if (p.aggregate) {
      Group* g;
      if (p.group_by.empty()) {
        g = &groups.begin()->second;
      } else {
        std::vector<Value> key;
        key.reserve(p.group_by.size());
        for (const BoundExpr& e : p.group_by) key.push_back(Eval(e, row, st));
        auto [it, inserted] = groups.try_emplace(std::move(key));
        g = &it->second;
        if (inserted) {
          g->aggs.resize(specs.size());
          g->representative = row;
        }
      }
      for (size_t i = 0; i < specs.size(); ++i) g->aggs[i].Add(specs[i], row, st);
      return true;
    }
    if (!sort) {
      if (skipped < offset) {
        ++skipped;
        return true;
      }
      project(row);
      return rows.size() < limit;
    }
    project(row);
    return true;
  };

  bool read = !(limit == 0 && !p.aggregate);
  if (read && p.table != nullptr && CountOnly(p)) {
    SQL_ASSIGN_OR_RETURN(uint64_t n, CountEntries(ctx, *p.table, p.plan, p.lock));
    Group& g = groups.begin()->second;
    for (size_t i = 0; i < specs.size(); ++i) g.aggs[i].count = n;
  } else if (read && p.table != nullptr) {
    ScanSpec spec;
    spec.table = p.table.get();
    spec.plan = &p.plan;
    spec.lock = p.lock;
    spec.residual = &p.residual;
    SQL_RETURN_IF_ERROR(ScanPlan(ctx, spec, st, [&](Row& row, std::string_view) -> SqlResult<bool> {
      return consume(row);
    }));
  } else if (read) {
    std::vector<Row> source;
    if (p.system) {
      source = std::move(p.system_rows);
    } else {
      source.emplace_back();  // SELECT without FROM: one empty row
    }
    for (Row& row : source) {
      row.resize(p.scope.columns.size());
      if (p.where.has_value() && !EvalPredicate(*p.where, row, st)) continue;
      if (!consume(row)) break;
    }
  }

  if (p.aggregate) {
    std::vector<Value> values(specs.size());
    st.aggregates = &values;
    for (auto& [key, g] : groups) {
      for (size_t i = 0; i < specs.size(); ++i) values[i] = g.aggs[i].Result(specs[i]);
      project(g.representative);
    }
    st.aggregates = nullptr;
  }
  if (sort) {
    counts.sort_rows += rows.size();
    std::stable_sort(rows.begin(), rows.end(), [&](const OutRow& a, const OutRow& b) {
      for (size_t i = 0; i < a.keys.size(); ++i) {
        int c = CompareNullsFirst(a.keys[i], b.keys[i]);
        if (c != 0) return p.order_desc[i] ? c > 0 : c < 0;
      }
      return false;
    });
  }
  const bool windowed = sort || p.aggregate;  // else offset/limit were applied while reading
  size_t begin = windowed ? std::min<uint64_t>(offset, rows.size()) : 0;
  size_t end = windowed ? begin + std::min<uint64_t>(limit, rows.size() - begin) : rows.size();
  out.rows.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) out.rows.push_back(std::move(rows[i].values));
  return out;
}

SqlResult<StatementResult> ExecuteSelect(ExecContext& ctx, const SelectStmt& stmt) {
  SQL_ASSIGN_OR_RETURN(SelectOutput out, RunSelect(ctx, stmt));
  StatementResult r;
  r.has_result_set = true;
  r.columns = std::move(out.columns);
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
