// EXPLAIN in MySQL's traditional format (executor.h).
//
// rows is not an estimate, as MySQL's is: it is the exact number of index entries the access
// path will visit, counted by walking the ranges' keys (a consistent read, no locks). key_len
// counts bytes as MySQL does (planner.h's KeyLength: the charset's bytes per character).

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>

#include "sql_lite_front/execute/executor.h"
#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/execute/join.h"
#include "sql_lite_front/execute/multi_table_write.h"
#include "sql_lite_front/execute/subquery.h"
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
  // Count the entries the walk visits without touching the statement's counters (a derived
  // table: its materialized rows).
  StatusCounters scratch;
  ExecContext counting = ctx;
  counting.counts = &scratch;
  counting.progress = nullptr;
  uint64_t rows = t.materialized != nullptr ? t.materialized->size() : 0;
  if (t.materialized == nullptr) {
    SQL_ASSIGN_OR_RETURN(rows, CountEntries(counting, t, plan, LockMode::kNone));
  }

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

// The entries of `plan`'s index per distinct value of its first plan.key_parts key columns
// (InnoDB's rec_per_key, exact here), at least 1: a lookup's rows.
SqlResult<uint64_t> EntriesPerKey(ExecContext& ctx, const OpenTable& table,
                                  const AccessPlan& plan) {
  StatusCounters scratch;
  ExecContext counting = ctx;
  counting.counts = &scratch;
  counting.progress = nullptr;
  AccessPlan walk = plan;
  walk.type = AccessType::kIndex;
  walk.covering = !table.def.table_locking();
  walk.unique_points = false;
  walk.empty = false;
  walk.ranges = {KeyRange{}};
  const std::vector<uint32_t> key_cols = KeyColumns(table.def, plan.index);
  EvalState st;
  ScanSpec spec;
  spec.table = &table;
  spec.plan = &walk;
  uint64_t entries = 0, distinct = 0;
  std::optional<Row> last;
  SQL_RETURN_IF_ERROR(
      ScanPlan(counting, spec, st, [&](Row& row, std::string_view) -> SqlResult<bool> {
        ++entries;
        bool same = last.has_value();
        for (uint32_t k = 0; k < plan.key_parts && same; ++k) {
          const Value& a = row[key_cols[k]];
          const Value& b = (*last)[key_cols[k]];
          const Collation* c = table.def.columns[key_cols[k]].collation;
          same =
              a.is_null() == b.is_null() &&
              (a.is_null() || CompareUnder(a, b, c != nullptr ? *c : ConnectionCollation()) == 0);
        }
        if (!same) ++distinct;
        last = row;
        return true;
      }));
  if (distinct == 0) return uint64_t{1};
  return std::max<uint64_t>(1, (entries + distinct / 2) / distinct);
}

// A lookup step's rows: 1 for eq_ref; for ref, the index's entries per key value.
SqlResult<uint64_t> LookupRows(ExecContext& ctx, const JoinStep& s) {
  if (s.plan.type == AccessType::kEqRef || s.plan.type == AccessType::kConst) return uint64_t{1};
  return EntriesPerKey(ctx, *s.table, s.plan);
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

// EXPLAIN of a multi-table UPDATE or DELETE with subqueries is refused.
template <typename Write>
SqlStatus RefuseWriteSubqueries(const Write& stmt) {
  bool any = false;
  ForEachExprOf(stmt, [&](const Expr& e) { any = any || ContainsSubquery(e); });
  if (!any) return SqlStatus::OK();
  return SqlErr(kErNotSupportedYet,
                "This version of minnow doesn't yet support 'EXPLAIN of subqueries'");
}

// EXPLAIN of a multi-table UPDATE or DELETE that joins a derived table is refused.
template <typename Write>
SqlStatus RefuseWriteDerivedTables(const Write& stmt) {
  for (const DerivedTable* d : FromDerived(stmt.from_derived, stmt.joins)) {
    if (d != nullptr)
      return SqlErr(kErNotSupportedYet,
                    "This version of minnow doesn't yet support 'EXPLAIN of derived tables'");
  }
  return SqlStatus::OK();
}

// The rows of one prepared query block, as a SIMPLE one's (the caller sets id and select_type).
SqlStatus BlockRows(ExecContext& ctx, const SelectStmt& stmt, const PreparedSelect& p,
                    StatementResult* r) {
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

// ---- query blocks: MySQL's ids and select types

// Calls fn for each expression (fn(e, nullptr)) and derived table's query (fn(nullptr, q)) of
// block `s`, in the order the text has them.
void ForEachInText(const SelectStmt& s,
                   const std::function<void(const Expr*, const SelectStmt*)>& fn) {
  for (const SelectItem& item : s.items) {
    if (item.expr != nullptr) fn(item.expr.get(), nullptr);
  }
  if (s.from_derived.has_value()) fn(nullptr, s.from_derived->query.get());
  for (const JoinedTable& j : s.joins) {
    if (j.derived.has_value()) fn(nullptr, j.derived->query.get());
    if (j.on != nullptr) fn(j.on.get(), nullptr);
  }
  if (s.where != nullptr) fn(s.where.get(), nullptr);
  for (const ExprPtr& g : s.group_by) fn(g.get(), nullptr);
  if (s.having != nullptr) fn(s.having.get(), nullptr);
  for (const OrderItem& o : s.order_by) fn(o.expr.get(), nullptr);
}

// The subqueries of `e` not inside another one, in the text's order.
void OwnSubqueries(const Expr& e, std::vector<const SelectStmt*>* out) {
  for (const ExprPtr& a : e.args) {
    if (a != nullptr) OwnSubqueries(*a, out);
  }
  for (const ExprPtr& o : e.order_by) OwnSubqueries(*o, out);  // GROUP_CONCAT's
  if (e.subquery != nullptr) out->push_back(e.subquery.get());
}

// A query expression directly inside a block: a subquery's, or a derived table's.
struct InnerUnit {
  const SelectStmt* query = nullptr;
  bool derived = false;
};

std::vector<InnerUnit> InnerUnits(const SelectStmt& block) {
  std::vector<InnerUnit> out;
  ForEachInText(block, [&](const Expr* e, const SelectStmt* derived) {
    if (derived != nullptr) {
      out.push_back({derived, true});
      return;
    }
    std::vector<const SelectStmt*> subs;
    OwnSubqueries(*e, &subs);
    for (const SelectStmt* q : subs) out.push_back({q, false});
  });
  return out;
}

// Each query block's id: MySQL numbers the SELECTs in the order the text has them.
using BlockIds = std::map<const SelectStmt*, int>;

void NumberQuery(const SelectStmt& s, BlockIds* ids) {
  if (s.union_of != nullptr) {
    for (const auto& part : s.union_of->parts) NumberQuery(*part, ids);
    return;
  }
  (*ids)[&s] = static_cast<int>(ids->size()) + 1;
  for (const InnerUnit& u : InnerUnits(s)) NumberQuery(*u.query, ids);
}

// What reads a query expression: the statement, a subquery or a derived table.
enum class UnitRole : uint8_t { kTop, kSubquery, kDerived };

// MySQL's select_type of a block: the first of its unit, by the unit's role, else a UNION part;
// DEPENDENT when it reads a column of a block around it. A top block is PRIMARY when the
// statement has other blocks.
const char* SelectType(UnitRole role, bool first, bool primary, bool dependent) {
  if (!first) return dependent ? "DEPENDENT UNION" : "UNION";
  switch (role) {
    case UnitRole::kTop:
      return primary ? "PRIMARY" : "SIMPLE";
    case UnitRole::kSubquery:
      return dependent ? "DEPENDENT SUBQUERY" : "SUBQUERY";
    case UnitRole::kDerived:
      return dependent ? "DEPENDENT DERIVED" : "DERIVED";
  }
  return "SIMPLE";
}

// The definitions of a prepared block's columns (null for a system table's).
std::vector<const ColumnDef*> ColumnsOf(const PreparedSelect& p) {
  std::vector<const ColumnDef*> out;
  if (p.table != nullptr) {
    for (const ColumnDef& c : p.table->def.columns) out.push_back(&c);
  } else if (p.join != nullptr) {
    out = p.join->columns;
  }
  return out;
}

// "test.t1.a": column `at` of the block around, as MySQL's ref names it.
std::string OuterColumnName(const ExecContext& ctx, const ExecContext::OuterColumn& at) {
  const BindScope& scope = *ctx.outer_scopes[at.depth];
  std::string table = scope.alias.empty() ? scope.table : scope.alias;
  std::string schema = scope.schema;
  for (const BindScope::JoinTable& t : scope.join_tables) {
    if (at.column >= t.first && at.column < t.first + t.count) {
      table = t.as_named;
      schema = t.schema;
    }
  }
  return schema + "." + table + "." + std::string(scope.columns[at.column]);
}

// The query expressions of one EXPLAIN, each block prepared as the statement would prepare it
// (uncorrelated subqueries and derived tables run, reading without locks).
class Explainer {
 public:
  Explainer(const SelectStmt& top, StatementResult* r) : r_(r) { NumberQuery(top, &ids_); }
  // For a single-table UPDATE or DELETE (block 1) with the subqueries of `exprs`, in the
  // text's order.
  Explainer(const std::vector<const Expr*>& exprs, StatementResult* r) : r_(r) {
    ids_[nullptr] = 1;
    for (const Expr* e : exprs) OwnSubqueries(*e, &write_subqueries_);
    for (const SelectStmt* q : write_subqueries_) NumberQuery(*q, &ids_);
  }

  // The write's subqueries, read inside the scope of its table `t`.
  SqlStatus WriteSubqueries(ExecContext& ctx, const OpenTable& t, const BindScope& scope);

  // Explains `unit` read as `role` in `ctx` (ctx.outer_scopes: the blocks around it). Returns
  // the outermost depth of ctx.outer_scopes whose columns one of its blocks reads (SIZE_MAX:
  // none).
  SqlResult<size_t> Unit(ExecContext& ctx, const SelectStmt& unit, UnitRole role);

 private:
  SqlResult<size_t> Block(ExecContext& ctx, const SelectStmt& block, UnitRole role, bool first,
                          bool in_union);
  // A dependent block's table read by a key whose parts are the outer row's columns: eq_ref
  // (whole unique key) or ref, ref naming those columns, as MySQL shows it (minnow plans the
  // block again for each outer row, with those values as constants).
  // `plan` reads `t`, made from `conjuncts` (the planner's copies).
  SqlStatus ShowOuterLookup(ExecContext& ctx, const OpenTable& t, const AccessPlan& plan,
                            const std::vector<const Expr*>& conjuncts, std::vector<Cell>* row);
  Value Placeholder(const ExecContext::OuterColumn& at) const;
  // "<derivedN>": N is the id of the derived query's first block.
  std::string DerivedName(const DerivedTable& d) const {
    const SelectStmt* first = d.query.get();
    while (first->union_of != nullptr) first = first->union_of->parts[0].get();
    return "<derived" + std::to_string(ids_.at(first)) + ">";
  }

  StatementResult* r_;
  BlockIds ids_;
  std::vector<const SelectStmt*> write_subqueries_;
  // Per block around the one being explained (as ctx.outer_scopes), its columns' definitions.
  std::vector<std::vector<const ColumnDef*>> columns_;
};

// A value of the outer column's type, which plans the block as a run for an outer row does
// (NULL, which no key range uses, only when the type is unknown).
Value Explainer::Placeholder(const ExecContext::OuterColumn& at) const {
  if (at.depth >= columns_.size() || at.column >= columns_[at.depth].size()) return Value::Null();
  const ColumnDef* c = columns_[at.depth][at.column];
  return c != nullptr ? ImplicitDefault(*c) : Value::Null();
}

SqlStatus Explainer::ShowOuterLookup(ExecContext& ctx, const OpenTable& t, const AccessPlan& plan,
                                     const std::vector<const Expr*>& conjuncts,
                                     std::vector<Cell>* row) {
  if (plan.type != AccessType::kConst && plan.type != AccessType::kRef) return SqlStatus::OK();
  const TableDef& def = t.def;
  const std::vector<uint32_t> key_cols = KeyColumns(def, plan.index);
  std::string ref;
  bool outer = false;
  for (uint32_t k = 0; k < plan.key_parts; ++k) {
    std::string part = "const";
    for (const Expr* e : conjuncts) {
      if (e->kind != Expr::Kind::kBinary || e->binary_op != BinaryOp::kEq) continue;
      for (size_t side = 0; side < 2; ++side) {
        const Expr& col = *e->args[side];
        const Expr& val = *e->args[1 - side];
        // PlannerCopy keeps an outer reference's name on the constant it makes of it.
        if (col.kind != Expr::Kind::kColumn || val.kind != Expr::Kind::kLiteral ||
            val.name.empty() || def.FindColumn(col.name) != static_cast<int>(key_cols[k]))
          continue;
        Expr name;
        name.kind = Expr::Kind::kColumn;
        name.schema = val.schema;
        name.table = val.table;
        name.name = val.name;
        std::optional<ExecContext::OuterColumn> at = FindOuterColumn(name, ctx);
        if (at.has_value()) {
          part = OuterColumnName(ctx, *at);
          outer = true;
        }
      }
    }
    if (!ref.empty()) ref += ',';
    ref += part;
  }
  if (!outer) return SqlStatus::OK();
  const bool unique = plan.type == AccessType::kConst;
  (*row)[4] = unique ? "eq_ref" : "ref";
  (*row)[8] = ref;
  uint64_t rows = 1;
  if (!unique) {
    SQL_ASSIGN_OR_RETURN(rows, EntriesPerKey(ctx, t, plan));
  }
  (*row)[9] = std::to_string(rows);
  return SqlStatus::OK();
}

SqlStatus Explainer::WriteSubqueries(ExecContext& ctx, const OpenTable& t, const BindScope& scope) {
  std::vector<const ColumnDef*> columns;
  for (const ColumnDef& c : t.def.columns) columns.push_back(&c);
  columns_.push_back(std::move(columns));
  ExecContext inside = ctx;
  inside.outer_scopes.push_back(&scope);
  SqlStatus st = SqlStatus::OK();
  for (auto it = write_subqueries_.rbegin(); it != write_subqueries_.rend() && st.ok(); ++it)
    st = Unit(inside, **it, UnitRole::kSubquery).status();
  columns_.pop_back();
  return st;
}

SqlResult<size_t> Explainer::Unit(ExecContext& ctx, const SelectStmt& unit, UnitRole role) {
  if (unit.union_of == nullptr) return Block(ctx, unit, role, true, false);
  size_t reach = SIZE_MAX;
  std::string ids;
  const auto& parts = unit.union_of->parts;
  for (const OrderItem& o : unit.order_by) {
    if (ContainsSubquery(*o.expr))
      return SqlErr(kErNotSupportedYet,
                    "This version of minnow doesn't yet support 'EXPLAIN of subqueries in a "
                    "UNION's ORDER BY'");
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i]->union_of != nullptr)
      return SqlErr(kErNotSupportedYet,
                    "This version of minnow doesn't yet support 'EXPLAIN of nested UNION'");
    SQL_ASSIGN_OR_RETURN(size_t d, Block(ctx, *parts[i], role, i == 0, true));
    reach = std::min(reach, d);
    if (!ids.empty()) ids += ',';
    ids += std::to_string(ids_.at(parts[i].get()));
  }
  // UNION ALL streams its parts' rows; DISTINCT and ORDER BY go through a temporary table.
  const std::vector<bool>& distinct = unit.union_of->distinct;
  const bool any_distinct = std::find(distinct.begin(), distinct.end(), true) != distinct.end();
  if (any_distinct || !unit.order_by.empty()) {
    std::vector<Cell> row(12);
    row[1] = "UNION RESULT";
    row[2] = "<union" + ids + ">";
    row[4] = "ALL";
    row[11] = unit.order_by.empty() ? "Using temporary" : "Using temporary; Using filesort";
    r_->rows.push_back(std::move(row));
  }
  return reach;
}

SqlResult<size_t> Explainer::Block(ExecContext& ctx, const SelectStmt& block, UnitRole role,
                                   bool first, bool in_union) {
  const size_t depth = ctx.outer_scopes.size();
  ExecContext c = ctx;
  c.subqueries = std::make_shared<SubqueryResolver>(LockMode::kNone);
  // The blocks around give no values: every outer reference is noted, to any depth.
  c.outer_values.clear();
  std::vector<ExecContext::OuterColumn> refs;
  c.outer_refs = depth > 0 ? &refs : nullptr;
  SQL_ASSIGN_OR_RETURN(PreparedSelect p, PrepareSelect(c, block));
  size_t reach = SIZE_MAX;
  std::vector<ExecContext::OuterColumn> later;
  if (!refs.empty()) {
    // Planned again with a value for each outer column read, as a run for an outer row is.
    for (const ExecContext::OuterColumn& at : refs) {
      reach = std::min(reach, at.depth);
      c.outer_values.push_back({at, Placeholder(at)});
    }
    c.outer_refs = &later;
    c.subqueries = std::make_shared<SubqueryResolver>(LockMode::kNone);
    SQL_ASSIGN_OR_RETURN(p, PrepareSelect(c, block));
  }
  const size_t begin = r_->rows.size();
  SQL_RETURN_IF_ERROR(BlockRows(c, block, p, r_));
  const size_t end = r_->rows.size();
  if (!refs.empty() && p.table != nullptr && p.planned_where != nullptr && end == begin + 1) {
    std::vector<const Expr*> conjuncts;
    SplitConjuncts(p.planned_where.get(), &conjuncts);
    SQL_RETURN_IF_ERROR(ShowOuterLookup(c, *p.table, p.plan, conjuncts, &r_->rows[begin]));
  } else if (!refs.empty() && p.join != nullptr && end == begin + p.join->steps.size()) {
    for (size_t i = 0; i < p.join->steps.size(); ++i) {
      const JoinStep& step = p.join->steps[i];
      if (step.lookup || !r_->rows[begin + i][2].has_value()) continue;
      std::vector<const Expr*> conjuncts;
      for (const ExprPtr& e : step.own) conjuncts.push_back(e.get());
      SQL_RETURN_IF_ERROR(
          ShowOuterLookup(c, *step.table, step.plan, conjuncts, &r_->rows[begin + i]));
    }
  }
  // The derived tables' rows are named by their blocks' ids.
  for (size_t i = begin; i < end; ++i) {
    std::vector<Cell>& row = r_->rows[i];
    if (!row[2].has_value()) continue;
    if (p.join == nullptr && block.from_derived.has_value()) {
      row[2] = DerivedName(*block.from_derived);
    } else if (p.join != nullptr) {
      const size_t position = p.join->steps[i - begin].position;
      const std::optional<DerivedTable>& d =
          position == 0 ? block.from_derived : block.joins[position - 1].derived;
      if (d.has_value()) row[2] = DerivedName(*d);
    }
  }
  // The units inside, the last first (MySQL's order: each new one goes to the front).
  const std::vector<InnerUnit> inner = InnerUnits(block);
  columns_.push_back(ColumnsOf(p));
  ExecContext inside = c;
  inside.outer_scopes.push_back(&p.scope);
  for (auto it = inner.rbegin(); it != inner.rend(); ++it) {
    SqlResult<size_t> d = it->derived ? Unit(c, *it->query, UnitRole::kDerived)
                                      : Unit(inside, *it->query, UnitRole::kSubquery);
    if (!d.ok()) {
      columns_.pop_back();
      return d.error();
    }
    if (*d < depth) reach = std::min(reach, *d);
  }
  columns_.pop_back();
  const bool dependent = reach < depth;
  const char* type = SelectType(role, first, in_union || !inner.empty(), dependent);
  for (size_t i = begin; i < end; ++i) {
    r_->rows[i][0] = std::to_string(ids_.at(&block));
    r_->rows[i][1] = type;
  }
  return reach;
}

// A single-table UPDATE or DELETE (`exprs`: its expressions in the text's order), then its
// subqueries, run as the statement would run them (reading without locks).
SqlStatus ExplainWrite(ExecContext& ctx, const char* select_type, const TableName& name,
                       const std::string& alias, const Expr* where,
                       const std::vector<OrderItem>& order_by,
                       const std::vector<const Expr*>& exprs, StatementResult* r) {
  SQL_ASSIGN_OR_RETURN(std::shared_ptr<const OpenTable> t, FindTable(ctx, name));
  ExecContext c = ctx;
  c.subqueries = nullptr;
  const std::string& as_named = alias.empty() ? name.name : alias;
  SQL_RETURN_IF_ERROR(
      PrepareWriteSubqueries(c, exprs, {{NameOf(t->def), as_named}}, LockMode::kNone));
  BindScope scope = ScopeForTable(t->def, alias);
  SQL_ASSIGN_OR_RETURN(WritePlan w, PlanWrite(c, *t, scope, where, order_by));
  SQL_ASSIGN_OR_RETURN(std::vector<Cell> row, PlanRow(c, select_type, *t, as_named, w.plan,
                                                      !order_by.empty() && w.plan.needs_sort));
  r->rows.push_back(std::move(row));
  Explainer explainer(exprs, r);
  return explainer.WriteSubqueries(c, *t, scope);
}

}  // namespace

SqlResult<StatementResult> ExecuteExplain(ExecContext& ctx, const ExplainStmt& stmt) {
  StatementResult r = ExplainHeader();
  const Statement& s = stmt.statement;
  // Derived tables and subqueries run as the statement would run them, without locks.
  ExecContext reading = ctx;
  reading.derived_lock = LockMode::kNone;
  if (const auto* sel = std::get_if<SelectStmt>(&s)) {
    Explainer explainer(*sel, &r);
    SQL_RETURN_IF_ERROR(explainer.Unit(reading, *sel, UnitRole::kTop).status());
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
    std::vector<const Expr*> exprs;  // SET's values, WHERE, ORDER BY
    for (const Assignment& a : upd->assignments) {
      if (a.value != nullptr) exprs.push_back(a.value.get());
    }
    if (upd->where != nullptr) exprs.push_back(upd->where.get());
    for (const OrderItem& o : upd->order_by) exprs.push_back(o.expr.get());
    SQL_RETURN_IF_ERROR(ExplainWrite(reading, "UPDATE", upd->table, upd->alias, upd->where.get(),
                                     upd->order_by, exprs, &r));
  } else if (const auto* del = std::get_if<DeleteStmt>(&s)) {
    std::vector<const Expr*> exprs;
    if (del->where != nullptr) exprs.push_back(del->where.get());
    for (const OrderItem& o : del->order_by) exprs.push_back(o.expr.get());
    SQL_RETURN_IF_ERROR(ExplainWrite(reading, "DELETE", del->table, del->alias, del->where.get(),
                                     del->order_by, exprs, &r));
  } else if (const auto* ins = std::get_if<InsertStmt>(&s)) {
    SQL_ASSIGN_OR_RETURN(std::shared_ptr<const OpenTable> t, FindTable(ctx, ins->table));
    std::vector<Cell> row(12);
    row[0] = "1";
    row[1] = "INSERT";
    row[2] = t->def.name;
    row[4] = "ALL";
    r.rows.push_back(std::move(row));
    if (ins->select != nullptr) {
      Explainer explainer(*ins->select, &r);
      SQL_RETURN_IF_ERROR(explainer.Unit(reading, *ins->select, UnitRole::kTop).status());
    }
  } else {
    return SqlErr(kErNotSupportedYet,
                  "This version of minnow doesn't yet support 'EXPLAIN of this statement'");
  }
  return r;
}

}  // namespace minnow::sql
