#pragma once
// Joins: a SELECT over several tables, read by nested loops as MySQL's executor reads them.
//
// The joined row is every table's columns one table after another, in FROM order (what the
// select list, GROUP BY, ORDER BY and aggregates are bound over: BindScope::join_tables).
// The tables are read in the join order, one JoinStep each: for every row the steps before
// have placed, step k reads its table's rows, places each into the joined row and goes on to
// step k + 1; the last step hands the joined row to the SELECT (SelectRun's Consume).
//
// The join order. LEFT JOIN keeps FROM order; `a RIGHT JOIN b` is read as `b LEFT JOIN a`
// (allowed where its left operand is one table). STRAIGHT_JOIN (and SELECT STRAIGHT_JOIN)
// keeps FROM order. Otherwise, by rule rather than by cost: tables with a const plan first,
// then the order (FROM order among equals) in which most tables are read by a key lookup,
// eq_ref counting above ref.
//
// The conditions. WHERE and inner joins' ON are split into conjuncts, each placed at the
// first step where every table it names has a row: one that names only an inner table is
// pushed into that table's read (its access path, planner.h, and residual); others are checked
// on the joined row at that step. An outer (LEFT-joined) table's ON conjuncts decide whether
// a row of it matches: those naming only it are pushed into its read, the others are checked
// on the joined row; when no row matches, the table's columns are NULL for one row (and only
// then are WHERE's conjuncts at that step checked, on that row).
//
// Key lookups. A step reads its table by an index lookup (eq_ref: the whole primary key, or
// a UNIQUE index of NOT NULL columns; ref: a leading part of an index) when its conjuncts give
// an equality on each leading key column with a literal or with an expression of the tables
// before it of the same type (integers; strings of one collation); the value is encoded into
// the key per outer row (a NULL, or one the column cannot hold, matches no row). Else the
// step walks its own access path (ALL, index, range, ref or const on literals) for every row
// before it. Locking reads lock what each walk reads, as the single-table path does.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sql_lite_front/execute/executor_internal.h"

namespace minnow::sql {

struct JoinStep {
  std::shared_ptr<const OpenTable> table;
  std::string as_named;  // the alias, or the table's name (EXPLAIN's table)
  size_t position = 0;   // its FROM position
  size_t first = 0;      // where the table's columns start in the joined row
  bool outer = false;    // NULL-extended when no row matches `on`
  AccessPlan plan;       // the walk; a lookup's template (its range is made per row)
  bool lookup = false;   // plan.type is kEqRef/kRef and its key comes from earlier tables
  struct KeyPart {
    const ColumnDef* column = nullptr;
    std::optional<std::string> constant;  // a literal's key encoding
    std::optional<BoundExpr> value;       // else evaluated over the joined row
    std::string ref;                      // EXPLAIN's ref: "const", "test.t1.a" or "func"
  };
  std::vector<KeyPart> key;                // lookup: the key's leading parts
  std::vector<BoundExpr> residual;         // over the table's own row (pushed down)
  std::vector<BoundExpr> on;               // outer: over the joined row, decide a match
  std::vector<BoundExpr> after;            // over the joined row, once the step placed a row
  std::vector<std::unique_ptr<Expr>> own;  // the pushed conjuncts (plan.residual points here)
  LockMode lock = LockMode::kNone;
  LockWait wait = LockWait::kWait;
};

struct JoinPlan {
  std::vector<JoinStep> steps;              // in join order
  std::vector<const ColumnDef*> columns;    // the joined row's, in FROM order
  std::vector<size_t> star;                 // `*`: positions, USING's merged columns first
  std::vector<std::vector<size_t>> tables;  // `t.*` per FROM position
  std::vector<std::string> as_named;        // per FROM position
  std::vector<ExprPtr> using_conditions;    // USING's equalities, as ON conjuncts
  std::vector<size_t> using_of;             // ... each of stmt.joins[i]
  std::vector<std::shared_ptr<const OpenTable>> from_tables;  // per FROM position
};

// FROM with joins: finds the tables and makes p->scope (1146, 1066, USING's 1054/1052) and
// p->join's column lists. REQUIRES: stmt.from (a SELECT has joins; a multi-table UPDATE or
// DELETE may read one table).
SqlStatus BindJoinFrom(ExecContext& ctx, const SelectStmt& stmt, PreparedSelect* p);
// After the select list and the other clauses were bound: binds ON and WHERE (1054, 1052),
// orders the tables and plans each step.
SqlStatus PlanJoin(ExecContext& ctx, const SelectStmt& stmt, PreparedSelect* p);
// Hands each joined row that passes every condition to `fn` (false: stop). With `refs`, each
// table's row reference (the engine's, as ScanPlan hands it out) is in (*refs)[FROM position]
// when `fn` runs: empty for a NULL-extended row.
SqlStatus RunJoin(ExecContext& ctx, const JoinPlan& plan, EvalState& st,
                  const std::function<SqlResult<bool>(Row&)>& fn,
                  std::vector<std::string>* refs = nullptr);

}  // namespace minnow::sql
