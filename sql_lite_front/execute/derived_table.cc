// Derived tables (derived_table.h).

#include "sql_lite_front/execute/derived_table.h"

#include <set>

#include "sql_lite_front/execute/result_columns.h"
#include "sql_lite_front/parse/ast_walk.h"
#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {

namespace {

// True if a block of `q` reads one of `tables`.
bool ReadsAnyOf(const SelectStmt& q, const std::vector<TableName>& tables) {
  bool any = false;
  ForEachQueryBlock(q, [&](const SelectStmt& block) {
    std::vector<const TableName*> read;
    if (block.from.has_value() && !block.from_derived.has_value()) read.push_back(&*block.from);
    for (const JoinedTable& j : block.joins) {
      if (!j.derived.has_value()) read.push_back(&j.table);
    }
    for (const TableName* r : read) {
      for (const TableName& w : tables) any = any || SameTable(*r, w);
    }
  });
  return any;
}

}  // namespace

SqlResult<std::shared_ptr<const OpenTable>> MaterializeDerived(ExecContext& ctx,
                                                               const DerivedTable& d,
                                                               const std::string& alias) {
  if (ctx.derived_cache != nullptr) {
    auto kept = ctx.derived_cache->tables.find(d.query.get());
    if (kept != ctx.derived_cache->tables.end()) return kept->second;
  }
  auto use = std::make_shared<ExecContext::OuterUse>();
  use->below_depth = ctx.outer_scopes.size();
  use->enclosing = ctx.outer_use;
  ctx.outer_use = use;
  SqlResult<TypedRows> run = RunTypedQuery(ctx, *d.query, ctx.derived_lock);
  ctx.outer_use = use->enclosing;
  SQL_ASSIGN_OR_RETURN(TypedRows result, std::move(run));
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
  std::shared_ptr<const OpenTable> table(std::move(t));
  if (ctx.derived_cache == nullptr) return table;
  if (!use->used) {
    ctx.derived_cache->tables[d.query.get()] = table;
  } else if (ReadsAnyOf(*d.query, ctx.derived_cache->written)) {
    return SqlErr(kErNotSupportedYet,
                  "This version of minnow doesn't yet support 'derived tables with outer "
                  "references reading a table the statement writes'");
  }
  return table;
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
