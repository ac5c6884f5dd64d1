// Derived tables (derived_table.h).

#include "sql_lite_front/execute/derived_table.h"

#include <set>

#include "sql_lite_front/execute/result_columns.h"
#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {

SqlResult<std::shared_ptr<const OpenTable>> MaterializeDerived(ExecContext& ctx,
                                                               const DerivedTable& d,
                                                               const std::string& alias) {
  SQL_ASSIGN_OR_RETURN(TypedRows result, RunTypedQuery(ctx, *d.query, ctx.derived_lock));
  if (!d.columns.empty()) {
    if (d.columns.size() != result.columns.size()) {
      return SqlErr(kErViewWrongList,
                    "In definition of view, derived table or common table expression, SELECT "
                    "list and column names list have different column counts");
    }
    for (size_t i = 0; i < d.columns.size(); ++i) result.columns[i].name = d.columns[i];
  }
  std::set<std::string> names;
  for (const ColumnDef& c : result.columns) {
    if (!names.insert(ToLowerAscii(c.name)).second)
      return SqlErr(kErDupFieldName, "Duplicate column name '", c.name, "'");
  }
  auto t = std::make_shared<OpenTable>();
  t->def.name = alias;
  t->def.schema.clear();
  t->def.columns = std::move(result.columns);
  for (ColumnDef& c : t->def.columns) c.default_value.reset();
  t->materialized = std::make_shared<std::vector<Row>>(std::move(result.rows));
  return std::shared_ptr<const OpenTable>(std::move(t));
}

SqlStatus ScanMaterialized(ExecContext& ctx, const ScanSpec& spec, EvalState& state,
                           const RowCallback& fn) {
  const std::vector<Row>& rows = *spec.table->materialized;
  uint64_t progress = 0;
  Row row;
  for (size_t i = 0; i < rows.size(); ++i) {
    ++ctx.counts->handler_read_rnd_next;
    row = rows[i];
    bool passes = true;
    if (spec.residual != nullptr) {
      for (const BoundExpr& e : *spec.residual) {
        if (!EvalPredicate(e, row, state)) {
          passes = false;
          break;
        }
      }
    }
    SQL_RETURN_IF_ERROR(EvalError(state));
    if (passes) {
      const std::string ref = std::to_string(i);
      SQL_ASSIGN_OR_RETURN(bool more, fn(row, ref));
      if (!more) break;
    }
    SQL_RETURN_IF_ERROR(CountProgress(ctx, &progress));
  }
  if (ctx.progress != nullptr) ctx.progress->fetch_add(progress, std::memory_order_relaxed);
  return SqlStatus::OK();
}

}  // namespace minnow::sql
