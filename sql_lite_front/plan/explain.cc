// EXPLAIN in MySQL's traditional format (executor.h).
//
// rows is not an estimate, as MySQL's is: it is the exact number of index entries the access
// path will visit, counted by walking the ranges' keys (a consistent read, no locks). key_len
// counts bytes as MySQL does (planner.h's KeyLength: the charset's bytes per character).

#include <algorithm>
#include <functional>

#include "sql_lite_front/execute/executor.h"
#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/execute/join.h"
#include "sql_lite_front/execute/multi_table_write.h"
#include "sql_lite_front/parse/ast_walk.h"
#include "sql_lite_front/status/status_views.h"

namespace minnow::sql {
namespace {

using Cell = std::optional<std::string>;

StatementResult ExplainHeader() {
  StatementResult r;
  r.has_result_set = true;
  r.columns = {"id",  "select_type", "table", "partitions", "type",     "possible_keys",
               "key", "key_len",     "ref",   "rows",       "filtered", "Extra"};
  return r;
}

std::vector<Cell> NoTableRow(const char* select_type, const char* extra) {
  return {"1",          select_type,  std::nullopt, std::nullopt, std::nullopt, std::nullopt,
          std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, extra};
}

std::string JoinExtra(const std::vector<std::string>& parts) {
  std::string s;
  for (const std::string& p : parts) {
    if (!s.empty()) s += "; ";
    s += p;
  }
  return s;
}

// One row for a table walked by `plan`; `joined_condition`: a join checks a condition on its
// rows besides plan.residual.
SqlResult<std::vector<Cell>> PlanRow(ExecContext& ctx, const char* select_type, const OpenTable& t,
                                     const std::string& table_name, const AccessPlan& plan,
                                     bool sort, bool joined_condition = false) {
  const TableDef& def = t.def;
  if (plan.empty) return NoTableRow(select_type, "Impossible WHERE");
  // Count the entries the walk visits without touching the statement's counters.
  StatusCounters scratch;
  ExecContext counting = ctx;
  counting.counts = &scratch;
  counting.progress = nullptr;
  SQL_ASSIGN_OR_RETURN(uint64_t rows, CountEntries(counting, t, plan, LockMode::kNone));

  std::vector<Cell> row(12);
  row[0] = "1";
  row[1] = select_type;
  row[2] = table_name;
  row[4] = AccessTypeName(plan.type);
  if (!plan.possible_keys.empty()) {
    std::string keys;
    for (int k : plan.possible_keys) {
      if (!keys.empty()) keys += ',';
      keys += IndexName(def, k);
    }
    row[5] = keys;
  }
  if (plan.type != AccessType::kAll) {
    row[6] = IndexName(def, plan.index);
    uint32_t parts = plan.key_parts;
    if (plan.type == AccessType::kIndex) {
      parts = plan.clustered() ? static_cast<uint32_t>(def.primary_key.size())
                               : static_cast<uint32_t>(def.indexes[plan.index].columns.size());
    }
    row[7] = std::to_string(KeyLength(def, plan.index, parts));
    if (plan.type == AccessType::kConst || plan.type == AccessType::kRef) {
      std::string ref;
      for (uint32_t i = 0; i < plan.key_parts; ++i) ref += i == 0 ? "const" : ",const";
      row[8] = ref;
    }
  }
  row[9] = std::to_string(rows);
  // MySQL's guess for a test the index does not answer; a range's own condition checked again
  // on each row (a LIKE under a _ci collation) filters nothing more.
  bool filters = joined_condition;
  for (const Expr* e : plan.residual) {
    if (std::find(plan.rechecked.begin(), plan.rechecked.end(), e) == plan.rechecked.end()) {
      filters = true;
    }
  }
  row[10] = filters ? "10.00" : "100.00";
  std::vector<std::string> extra;
  if (!plan.residual.empty() || joined_condition) extra.push_back("Using where");
  if (plan.covering && plan.type != AccessType::kAll) extra.push_back("Using index");
  if (sort) extra.push_back("Using filesort");
  if (!extra.empty()) row[11] = JoinExtra(extra);
  return row;
}

// A lookup step's rows: 1 for eq_ref; for ref, the index's entries per distinct value of the
// looked-up key parts (InnoDB's rec_per_key, exact here), at least 1.
SqlResult<uint64_t> LookupRows(ExecContext& ctx, const JoinStep& s) {
  if (s.plan.type == AccessType::kEqRef || s.plan.type == AccessType::kConst) return uint64_t{1};
  StatusCounters scratch;
  ExecContext counting = ctx;
  counting.counts = &scratch;
  counting.progress = nullptr;
  AccessPlan walk = s.plan;
  walk.type = AccessType::kIndex;
  walk.covering = !s.table->def.table_locking();
  walk.unique_points = false;
  walk.ranges = {KeyRange{}};
  const std::vector<uint32_t> key_cols = KeyColumns(s.table->def, s.plan.index);
  EvalState st;
  ScanSpec spec;
  spec.table = s.table.get();
  spec.plan = &walk;
  uint64_t entries = 0, distinct = 0;
  std::optional<Row> last;
  SQL_RETURN_IF_ERROR(
      ScanPlan(counting, spec, st, [&](Row& row, std::string_view) -> SqlResult<bool> {
        ++entries;
        bool same = last.has_value();
        for (uint32_t k = 0; k < s.plan.key_parts && same; ++k) {
          const Value& a = row[key_cols[k]];
          const Value& b = (*last)[key_cols[k]];
          same = a.is_null() == b.is_null() &&
                 (a.is_null() ||
                  CompareUnder(a, b,
                               s.key[k].column->collation != nullptr ? *s.key[k].column->collation
                                                                     : ConnectionCollation()) == 0);
        }
        if (!same) ++distinct;
        last = row;
        return true;
      }));
  if (distinct == 0) return uint64_t{1};
  return std::max<uint64_t>(1, (entries + distinct / 2) / distinct);
}

// The row of one step of a join (select_type: SIMPLE, or a multi-table write's UPDATE or
// DELETE for a table it writes, as MySQL's traditional format shows its mod_type).
SqlResult<std::vector<Cell>> JoinStepRow(ExecContext& ctx, const JoinStep& s,
                                         const char* select_type = "SIMPLE") {
  const bool joined_condition = !s.on.empty() || !s.after.empty();
  if (!s.lookup) {
    return PlanRow(ctx, select_type, *s.table, s.as_named, s.plan, false, joined_condition);
  }
  const TableDef& def = s.table->def;
  std::vector<Cell> row(12);
  row[0] = "1";
  row[1] = select_type;
  row[2] = s.as_named;
  row[4] = AccessTypeName(s.plan.type);
  std::string keys;
  for (int k : s.plan.possible_keys) {
    if (!keys.empty()) keys += ',';
    keys += IndexName(def, k);
  }
  row[5] = keys;
  row[6] = IndexName(def, s.plan.index);
  row[7] = std::to_string(KeyLength(def, s.plan.index, s.plan.key_parts));
  std::string ref;
  for (const JoinStep::KeyPart& part : s.key) {
    if (!ref.empty()) ref += ',';
    ref += part.ref;
  }
  row[8] = ref;
  SQL_ASSIGN_OR_RETURN(uint64_t rows, LookupRows(ctx, s));
  row[9] = std::to_string(rows);
  const bool filters = joined_condition || !s.plan.residual.empty();
  row[10] = filters ? "10.00" : "100.00";
  std::vector<std::string> extra;
  if (filters) extra.push_back("Using where");
  if (s.plan.covering) extra.push_back("Using index");
  if (!extra.empty()) row[11] = JoinExtra(extra);
  return row;
}

// EXPLAIN of an UPDATE or DELETE with subqueries is refused, as a SELECT's.
template <typename Write>
SqlStatus RefuseWriteSubqueries(const Write& stmt) {
  bool any = false;
  ForEachExprOf(stmt, [&](const Expr& e) { any = any || ContainsSubquery(e); });
  if (!any) return SqlStatus::OK();
  return SqlErr(kErNotSupportedYet,
                "This version of minnow doesn't yet support 'EXPLAIN of subqueries'");
}

template <typename Write>
SqlStatus RefuseWriteDerivedTables(const Write& stmt) {
  for (const DerivedTable* d : FromDerived(stmt.from_derived, stmt.joins)) {
    if (d != nullptr)
      return SqlErr(kErNotSupportedYet,
                    "This version of minnow doesn't yet support 'EXPLAIN of derived tables'");
  }
  return SqlStatus::OK();
}

// True if a block of `stmt` reads a derived table.
bool ReadsDerivedTable(const SelectStmt& stmt) {
  bool any = false;
  ForEachQueryBlock(stmt, [&](const SelectStmt& block) {
    any = any || block.from_derived.has_value();
    for (const JoinedTable& j : block.joins) any = any || j.derived.has_value();
  });
  return any;
}

SqlStatus ExplainSelect(ExecContext& ctx, const SelectStmt& stmt, StatementResult* r) {
  // (MySQL merges a simple derived table into the outer block and shows its tables as SIMPLE;
  // minnow materializes every one, so it cannot print MySQL's plan.)
  if (ReadsDerivedTable(stmt))
    return SqlErr(kErNotSupportedYet,
                  "This version of minnow doesn't yet support 'EXPLAIN of derived tables'");
  if (stmt.union_of != nullptr || HasSubquery(stmt))
    return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support 'EXPLAIN of ",
                  stmt.union_of != nullptr ? "UNION" : "subqueries", "'");
  SQL_ASSIGN_OR_RETURN(PreparedSelect p, PrepareSelect(ctx, stmt));
  if (p.join != nullptr) {
    for (const JoinStep& s : p.join->steps) {
      SQL_ASSIGN_OR_RETURN(std::vector<Cell> row, JoinStepRow(ctx, s));
      r->rows.push_back(std::move(row));
    }
    // The joined rows are grouped or sorted after the loops, as MySQL says on the first table:
    // a temporary table for GROUP BY, DISTINCT or an ORDER BY of a later table's columns.
    const JoinStep& first = p.join->steps[0];
    std::function<bool(const BoundExpr&)> first_only = [&](const BoundExpr& e) {
      if (e.kind == BoundExpr::Kind::kColumn &&
          (static_cast<size_t>(e.column) < first.first ||
           static_cast<size_t>(e.column) >= first.first + first.table->def.columns.size()))
        return false;
      return std::all_of(e.args.begin(), e.args.end(), first_only);
    };
    const bool temporary = !p.group_by.empty() || p.distinct ||
                           !std::all_of(p.order.begin(), p.order.end(), first_only);
    std::vector<std::string> extra;
    Cell& cell = r->rows[r->rows.size() - p.join->steps.size()][11];
    if (cell.has_value()) extra.push_back(*cell);
    if (temporary) extra.push_back("Using temporary");
    if (!p.order.empty()) extra.push_back("Using filesort");
    if (!extra.empty()) cell = JoinExtra(extra);
    return SqlStatus::OK();
  }
  if (!stmt.from.has_value()) {
    r->rows.push_back(NoTableRow("SIMPLE", "No tables used"));
    return SqlStatus::OK();
  }
  if (p.system) {
    std::vector<Cell> row(12);
    row[0] = "1";
    row[1] = "SIMPLE";
    row[2] = stmt.from->name;
    row[4] = "ALL";
    row[9] = std::to_string(p.system_rows.size());
    row[10] = stmt.where == nullptr ? "100.00" : "10.00";
    if (stmt.where != nullptr) row[11] = "Using where";
    r->rows.push_back(std::move(row));
    return SqlStatus::OK();
  }
  if (UsesMinMaxIndex(ctx, p)) {
    // MySQL reads the index ends while it optimizes (EXPLAIN too), and shows no table.
    StatusCounters scratch;
    ExecContext reading = ctx;
    reading.counts = &scratch;
    reading.progress = nullptr;
    EvalState st;
    SeedEvalState(&st);
    std::vector<Value> values;
    SQL_ASSIGN_OR_RETURN(bool found, ReadMinMax(reading, p, st, &values));
    r->rows.push_back(
        NoTableRow("SIMPLE", found ? "Select tables optimized away" : "No matching min/max row"));
    return SqlStatus::OK();
  }
  bool sort = !stmt.order_by.empty() && (p.aggregate || p.plan.needs_sort);
  SQL_ASSIGN_OR_RETURN(
      std::vector<Cell> row,
      PlanRow(ctx, "SIMPLE", *p.table, stmt.from_alias.empty() ? stmt.from->name : stmt.from_alias,
              p.plan, sort));
  r->rows.push_back(std::move(row));
  return SqlStatus::OK();
}

SqlStatus ExplainWrite(ExecContext& ctx, const char* select_type, const TableName& name,
                       const std::string& alias, const Expr* where,
                       const std::vector<OrderItem>& order_by, StatementResult* r) {
  SQL_ASSIGN_OR_RETURN(std::shared_ptr<const OpenTable> t, FindTable(ctx, name));
  BindScope scope = ScopeForTable(t->def, alias);
  SQL_ASSIGN_OR_RETURN(WritePlan w, PlanWrite(ctx, *t, scope, where, order_by));
  SQL_ASSIGN_OR_RETURN(std::vector<Cell> row,
                       PlanRow(ctx, select_type, *t, alias.empty() ? name.name : alias, w.plan,
                               !order_by.empty() && w.plan.needs_sort));
  r->rows.push_back(std::move(row));
  return SqlStatus::OK();
}

// A multi-table UPDATE's or DELETE's join, one row per table in join order.
SqlStatus ExplainMultiWrite(ExecContext& ctx, const char* select_type,
                            const PlannedMultiWrite& planned, StatementResult* r) {
  for (const JoinStep& s : planned.prepared.join->steps) {
    const char* type = planned.written[s.position] ? select_type : "SIMPLE";
    SQL_ASSIGN_OR_RETURN(std::vector<Cell> row, JoinStepRow(ctx, s, type));
    r->rows.push_back(std::move(row));
  }
  return SqlStatus::OK();
}

}  // namespace

SqlResult<StatementResult> ExecuteExplain(ExecContext& ctx, const ExplainStmt& stmt) {
  StatementResult r = ExplainHeader();
  const Statement& s = stmt.statement;
  if (const auto* sel = std::get_if<SelectStmt>(&s)) {
    SQL_RETURN_IF_ERROR(ExplainSelect(ctx, *sel, &r));
  } else if (const auto* upd = std::get_if<UpdateStmt>(&s); upd != nullptr && upd->multi_table()) {
    SQL_RETURN_IF_ERROR(RefuseWriteDerivedTables(*upd));
    SQL_RETURN_IF_ERROR(RefuseWriteSubqueries(*upd));
    PlannedMultiWrite planned;
    SQL_RETURN_IF_ERROR(PlanMultiUpdate(ctx, *upd, &planned));
    SQL_RETURN_IF_ERROR(ExplainMultiWrite(ctx, "UPDATE", planned, &r));
  } else if (const auto* del = std::get_if<DeleteStmt>(&s); del != nullptr && del->multi_table) {
    SQL_RETURN_IF_ERROR(RefuseWriteDerivedTables(*del));
    SQL_RETURN_IF_ERROR(RefuseWriteSubqueries(*del));
    PlannedMultiWrite planned;
    SQL_RETURN_IF_ERROR(PlanMultiDelete(ctx, *del, &planned));
    SQL_RETURN_IF_ERROR(ExplainMultiWrite(ctx, "DELETE", planned, &r));
  } else if (const auto* upd = std::get_if<UpdateStmt>(&s)) {
    SQL_RETURN_IF_ERROR(RefuseWriteSubqueries(*upd));
    SQL_RETURN_IF_ERROR(
        ExplainWrite(ctx, "UPDATE", upd->table, upd->alias, upd->where.get(), upd->order_by, &r));
  } else if (const auto* del = std::get_if<DeleteStmt>(&s)) {
    SQL_RETURN_IF_ERROR(RefuseWriteSubqueries(*del));
    SQL_RETURN_IF_ERROR(
        ExplainWrite(ctx, "DELETE", del->table, del->alias, del->where.get(), del->order_by, &r));
  } else if (const auto* ins = std::get_if<InsertStmt>(&s)) {
    SQL_ASSIGN_OR_RETURN(std::shared_ptr<const OpenTable> t, FindTable(ctx, ins->table));
    std::vector<Cell> row(12);
    row[0] = "1";
    row[1] = "INSERT";
    row[2] = t->def.name;
    row[4] = "ALL";
    r.rows.push_back(std::move(row));
    if (ins->select != nullptr) SQL_RETURN_IF_ERROR(ExplainSelect(ctx, *ins->select, &r));
  } else {
    return SqlErr(kErNotSupportedYet,
                  "This version of minnow doesn't yet support 'EXPLAIN of this statement'");
  }
  return r;
}

}  // namespace minnow::sql
