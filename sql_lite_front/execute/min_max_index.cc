// MIN() and MAX() read at an index end instead of by a scan (executor_internal.h), as MySQL's
// opt_sum_query does for a query without GROUP BY: each aggregate is one walk of an index
// range that holds its column's extreme first (MinMaxPlan) and stops at the first row. The
// walk is the one a scan makes (ScanPlan: the same iterator, read view and row visibility),
// so a row another transaction changed but has not committed counts as a scan would count it.

#include <algorithm>

#include "sql_lite_front/execute/executor_internal.h"

namespace minnow::sql {
namespace {

// True if `e` reads a column of the row (outside aggregates, which are slots here).
bool ReadsColumn(const BoundExpr& e) {
  if (e.kind == BoundExpr::Kind::kColumn) return true;
  return std::any_of(e.args.begin(), e.args.end(), ReadsColumn);
}

// The first row of `plan`'s walk: its `column` into *value; false if the walk has no row.
SqlResult<bool> FirstValue(ExecContext& ctx, const OpenTable& table, const AccessPlan& plan,
                           int column, EvalState& st, Value* value) {
  ScanSpec spec;
  spec.table = &table;
  spec.plan = &plan;
  spec.first_row = true;
  bool found = false;
  SQL_RETURN_IF_ERROR(ScanPlan(ctx, spec, st, [&](Row& row, std::string_view) -> SqlResult<bool> {
    *value = row[static_cast<size_t>(column)];
    found = true;
    return false;
  }));
  return found;
}

}  // namespace

void PlanMinMax(const SelectStmt& stmt, PreparedSelect* p) {
  p->min_max.clear();
  if (p->table == nullptr || !p->aggregate || !p->group_by.empty() || p->scope.aggregates.empty())
    return;
  // Every value the result row shows must come from the aggregates or constants.
  if (std::any_of(p->items.begin(), p->items.end(), ReadsColumn) ||
      std::any_of(p->order.begin(), p->order.end(), ReadsColumn))
    return;
  std::vector<MinMaxRead> plans;
  for (const AggregateSpec& a : p->scope.aggregates) {
    if ((a.func != AggFunc::kMin && a.func != AggFunc::kMax) || a.star ||
        a.arg.kind != BoundExpr::Kind::kColumn)
      return;
    std::optional<MinMaxRead> plan =
        MinMaxPlan(p->table->def, stmt.where.get(), static_cast<uint32_t>(a.arg.column),
                   a.func == AggFunc::kMax);
    if (!plan.has_value()) return;
    plans.push_back(std::move(*plan));
  }
  p->min_max = std::move(plans);
}

bool UsesMinMaxIndex(const ExecContext& ctx, const PreparedSelect& p) {
  if (p.min_max.empty()) return false;
  if (p.table->def.table_locking()) return true;  // one table lock holds for every walk
  // A locking read (and SERIALIZABLE's share reads) keeps the scan, which locks what InnoDB's
  // scan locks. Under READ COMMITTED each walk's iterator would take a read view of its own
  // (InnoDB's statement shares one), so several aggregates keep the scan's single view.
  return p.lock == LockMode::kNone && ctx.isolation != IsolationLevel::kSerializable &&
         (ctx.isolation != IsolationLevel::kReadCommitted || p.min_max.size() == 1);
}

SqlResult<bool> ReadMinMax(ExecContext& ctx, const PreparedSelect& p, EvalState& st,
                           std::vector<Value>* values) {
  const std::vector<AggregateSpec>& specs = p.scope.aggregates;
  values->assign(specs.size(), Value::Null());
  bool all_found = true;
  for (size_t i = 0; i < specs.size(); ++i) {
    const MinMaxRead& read = p.min_max[i];
    const int column = specs[i].arg.column;
    SQL_ASSIGN_OR_RETURN(bool found,
                         FirstValue(ctx, *p.table, read.plan, column, st, &(*values)[i]));
    // MIN skipped the NULL keys: if nothing else is there, MIN is NULL when NULLs are (a
    // second read, as MySQL's), and there is no row at all otherwise.
    if (!found && read.nulls.has_value()) {
      AccessPlan nulls = read.plan;
      nulls.ranges = {*read.nulls};
      Value unused;
      SQL_ASSIGN_OR_RETURN(found, FirstValue(ctx, *p.table, nulls, column, st, &unused));
      (*values)[i] = Value::Null();
    }
    all_found = all_found && found;
  }
  return all_found;
}

}  // namespace minnow::sql
