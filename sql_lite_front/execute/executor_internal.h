#pragma once
// What the executor's files (executor.cc, executor_select.cc, executor_write.cc, explain.cc)
// share: finding tables, walking an access plan, preparing a SELECT.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/execute/expr.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/plan/planner.h"
#include "sql_lite_front/sql_engine.h"
#include "sql_lite_front/storage/table_engine.h"

namespace minnow::sql {

// The open table `name` names; 1146 "Table 'test.x' doesn't exist" if none.
SqlResult<std::shared_ptr<const OpenTable>> FindTable(const ExecContext& ctx,
                                                      const TableName& name);

// The table's engine for this statement, in ctx.txn (storage/table_engine.h).
std::unique_ptr<TableEngine> OpenEngine(const ExecContext& ctx, const OpenTable& table);

// How to walk a plan.
struct ScanSpec {
  const OpenTable* table = nullptr;
  const AccessPlan* plan = nullptr;
  LockMode lock = LockMode::kNone;
  LockWait wait = LockWait::kWait;  // NOWAIT / SKIP LOCKED (ScanRequest::wait)
  // Read the columns (false: the callback gets an empty row, for counting).
  bool decode = true;
  const std::vector<BoundExpr>* residual = nullptr;  // rows failing one are skipped
  bool first_row = false;  // the callback stops at the first row (ScanRequest::first_row)
  // The callback sets *rejected when it turns down the row it was handed (a join's ON or
  // WHERE conditions on it); under READ COMMITTED the walk then releases the row's new locks,
  // as it does for a row failing `residual` (InnoDB's unlock_row).
  bool* rejected = nullptr;
  bool semi_consistent = false;  // ScanRequest::semi_consistent: a single-table UPDATE's walk
};

// Called per row that passes the residual predicates, with the row (every column the plan's
// walk provides: all of them unless the path covers) and its clustered key. Returns false to
// stop the walk.
using RowCallback = std::function<SqlResult<bool>(Row& row, std::string_view clustered_key)>;

// Walks `spec.plan`'s ranges in order (backwards if plan.reverse) through the table's engine,
// reading rows as the plan says (key-only when covering; a clustered point read with the same
// lock mode otherwise; a const plan by point reads), and counts Handler_read_* and
// Innodb_rows_read, progress and cancellation.
SqlStatus ScanPlan(ExecContext& ctx, const ScanSpec& spec, EvalState& state, const RowCallback& fn);
// The number of entries in the plan's ranges (TableEngine::Count: no row is handed out; the
// fast path of count(*)), locking the walked index's records as a walk with `lock` would.
SqlResult<uint64_t> CountEntries(ExecContext& ctx, const OpenTable& table, const AccessPlan& plan,
                                 LockMode lock, LockWait wait = LockWait::kWait);

struct JoinPlan;  // join.h

// A prepared SELECT (bound and planned, not run): of one table, or of a join (`join`).
struct PreparedSelect {
  std::shared_ptr<const OpenTable> table;  // null for a system table, a join or no FROM
  std::shared_ptr<JoinPlan> join;          // the tables of a join and how each is read
  bool system = false;
  std::vector<std::string> system_columns;  // the system table's columns (scope views them)
  std::vector<Row> system_rows;             // and its rows, read when prepared
  bool system_view_names = false;           // SystemTable::view_names
  BindScope scope;
  std::vector<std::string> names;  // result column names
  std::vector<BoundExpr> items;    // one per result column
  std::vector<BoundExpr> order;    // ORDER BY keys
  std::vector<bool> order_desc;
  std::vector<BoundExpr> group_by;
  // HAVING: tested per group (aggregates) or per row, over the row the select list reads.
  std::optional<BoundExpr> having;
  std::vector<SqlWarning> warnings;  // raised while preparing (HAVING's ambiguous names)
  std::optional<BoundExpr> where;    // the whole WHERE (system tables, no FROM)
  std::vector<BoundExpr> residual;   // the plan's residual conjuncts (tables)
  // The WHERE the plan was made from when it has subqueries: a copy with their results as
  // literals (the plan's conjuncts point into it).
  ExprPtr planned_where;
  bool aggregate = false;  // aggregates or GROUP BY
  bool distinct = false;   // SELECT DISTINCT: duplicate result rows are dropped
  bool rollup = false;     // GROUP BY ... WITH ROLLUP (rollup.h)
  AccessPlan plan;
  LockMode lock = LockMode::kNone;
  LockWait wait = LockWait::kWait;  // the locking clause's NOWAIT / SKIP LOCKED
  // Per aggregate, the index-end walk that reads it (MinMaxPlan); empty unless every
  // aggregate is such a MIN or MAX (PlanMinMax).
  std::vector<MinMaxRead> min_max;
};

// Binds and plans `stmt` (reads a system table's rows). 1146, 1054, 1140, 1055, 1111, 1305.
SqlResult<PreparedSelect> PrepareSelect(ExecContext& ctx, const SelectStmt& stmt);

// ---- MIN()/MAX() at an index end (min_max_index.cc), MySQL's "Select tables optimized away"

// Sets p->min_max when `stmt` has no GROUP BY, every aggregate is MIN or MAX of a column an
// index serves under the WHERE (MinMaxPlan: no WHERE, or equalities on the key parts before
// the column and a range on it), and the result row reads no column outside them.
void PlanMinMax(const SelectStmt& stmt, PreparedSelect* p);
// True if `p` is read by ReadMinMax: p.min_max is set and, for a row-locking table, the read
// is consistent (no lock clause, not SERIALIZABLE) under one read view (READ COMMITTED: one
// aggregate); else it is scanned.
bool UsesMinMaxIndex(const ExecContext& ctx, const PreparedSelect& p);
// Each aggregate's value (NULL when its column has no non-NULL value) into (*values)[i], by
// one walk from its index's end that stops at the first row (counted as scans count:
// Handler_read_first, _key or _last, Innodb_rows_read). Returns false if a walk found no row
// at all (MySQL's "No matching min/max row"). REQUIRES: UsesMinMaxIndex(ctx, p).
SqlResult<bool> ReadMinMax(ExecContext& ctx, const PreparedSelect& p, EvalState& st,
                           std::vector<Value>* values);

// The rows of a SELECT as values (INSERT ... SELECT uses them unprinted).
struct SelectOutput {
  std::vector<std::string> columns;
  // A bare column of the table's declared type, per column; nullopt for other items.
  std::vector<std::optional<StatementResult::ColumnType>> declared_types;
  std::vector<std::optional<StatementResult::DeclaredColumn>> declared_columns;  // the same
  std::vector<std::vector<Value>> rows;
  std::vector<SqlWarning> warnings;  // evaluation's (CAST's 1292, GROUP_CONCAT's 1260, ...)
  // A UNION's: per column, the type class, scale and collation its parts aggregate to.
  std::vector<BoundExpr> union_types;
  // SELECT SQL_CALC_FOUND_ROWS: the rows there were before LIMIT (FOUND_ROWS()).
  std::optional<uint64_t> found_rows;
};
// Runs `stmt`; `lock` replaces its lock clause when given (INSERT ... SELECT's share reads).
SqlResult<SelectOutput> RunSelect(ExecContext& ctx, const SelectStmt& stmt,
                                  std::optional<LockMode> lock = std::nullopt);
// Runs a prepared query block (PrepareSelect's), `lock` as RunSelect's.
SqlResult<SelectOutput> RunPreparedSelect(ExecContext& ctx, PreparedSelect& p,
                                          const SelectStmt& stmt, std::optional<LockMode> lock);
// The declared type of each of `p`'s result columns that is a bare column of the table;
// nullopt for any other item.
std::vector<std::optional<StatementResult::ColumnType>> DeclaredResultTypes(
    const PreparedSelect& p);
// The same columns' declarations (their fsp, ENUM or SET), for the wire's column definitions.
std::vector<std::optional<StatementResult::DeclaredColumn>> DeclaredResultColumns(
    const PreparedSelect& p);

// ---- UNION (union.cc)

// Runs a query expression (stmt.union_of set), as MySQL: every part is prepared first (1222
// when one's column count differs from the first's), then each part runs in order with its
// own locking clause (`lock` replaces every part's, as RunSelect's). Columns are named by the
// first part; each column's type is aggregated over the parts (expr_type.h: integer and
// decimal give decimal, a number and a string give a string) and every value converted to it.
// A DISTINCT union drops duplicate rows (NULLs equal, strings under the column's collation)
// of every part up to its last DISTINCT, the parts after that are appended as they are
// (MySQL's mixed UNION ALL / UNION DISTINCT); then the union's ORDER BY (result columns by
// name or position; 1250 for a qualified name) and LIMIT.
SqlResult<SelectOutput> RunUnion(ExecContext& ctx, const SelectStmt& stmt,
                                 std::optional<LockMode> lock);
// A query's result columns without running it (DescribeSelect): names and declared types.
struct QueryColumns {
  std::vector<std::string> names;
  std::vector<std::optional<StatementResult::ColumnType>> declared_types;
  std::vector<std::optional<StatementResult::DeclaredColumn>> declared_columns;  // not a UNION's
};
SqlResult<QueryColumns> DescribeQuery(ExecContext& ctx, const SelectStmt& stmt);

// SELECT ... INTO @a, ... once `out` was read (select_into.cc), as MySQL: one row sets the
// variables; more than one: the first row's values are set, then 1172; none: warning 1329 and
// the variables keep their values. No result set; affected rows: the rows read (0 or 1).
// (RunSelect refuses a count of variables other than the columns' with 1222 before it reads.)
SqlResult<StatementResult> AssignSelectInto(ExecContext& ctx, const SelectStmt& stmt,
                                            SelectOutput out);

// An UPDATE's or DELETE's access path (the whole row is needed; a secondary path reads the
// clustered record), its bound residual predicates and ORDER BY keys.
struct WritePlan {
  ExprPtr planned_where;  // the WHERE the planner read (its columns unqualified)
  AccessPlan plan;
  std::vector<BoundExpr> residual;
  std::vector<BoundExpr> order;
  std::vector<bool> order_desc;
};
SqlResult<WritePlan> PlanWrite(ExecContext& ctx, const OpenTable& t, BindScope& scope,
                               const Expr* where, const std::vector<OrderItem>& order_by);

// Readies the subqueries of an UPDATE's or DELETE's expressions (ForEachExprOf): 1093 "You
// can't specify target table 'x' for update in FROM clause" when one reads a table the
// statement writes (`written`: each one's table name and the name the statement knows it by),
// else ctx.subqueries runs them, each once, its tables read with `lock` (nullopt: as their
// own clauses say). A statement without subqueries is left as it is.
SqlStatus PrepareWriteSubqueries(ExecContext& ctx, const std::vector<const Expr*>& exprs,
                                 const std::vector<std::pair<TableName, std::string>>& written,
                                 std::optional<LockMode> lock);
// The lock InnoDB reads an UPDATE's or DELETE's subqueries with: shared (LOCK_S), except a
// single-table UPDATE's under READ COMMITTED and READ UNCOMMITTED, which reads consistently.
std::optional<LockMode> WriteSubqueryLock(const ExecContext& ctx, bool single_table_update);

// The clustered plan's lock mode for a SELECT lock clause, and what a locked row does.
LockMode LockModeOf(RowLockClause clause);
LockWait LockWaitOf(LockedRowAction action);

// The value of a column left out of an INSERT (or set to DEFAULT): its default (DEFAULT
// CURRENT_TIMESTAMP: the statement's time `now_us`), NULL for a nullable column or an
// AUTO_INCREMENT one (generated later), else 1364.
SqlResult<Value> DefaultOf(const ColumnDef& col, int64_t now_us);
// The same under `rules`: without rules.errors a missing default is warning 1364 and the
// column's implicit default (0, '').
SqlResult<Value> DefaultOf(const ColumnDef& col, const StoreRules& rules, int64_t now_us);
// ON UPDATE CURRENT_TIMESTAMP: sets each such column of `row` that the statement did not assign
// (`assigned`, per column) to the statement's time, when `row` differs from `old` (MySQL keeps
// the old time for an UPDATE that changes nothing).
void SetOnUpdateColumns(const TableDef& def, const Row& old, const std::vector<bool>& assigned,
                        int64_t now_us, Row* row);
// The StoreRules for the next row of a write to `def`, warnings into *warnings: errors in
// strict mode, except under IGNORE and, under STRICT_TRANS_TABLES alone, once the statement
// changed a row (`changed_rows`) of a MyISAM table, which cannot be rolled back (MySQL's
// Strict_error_handler). No session: strict.
StoreRules WriteRules(const ExecContext& ctx, const TableDef& def, bool ignore, bool changed_rows,
                      std::vector<SqlWarning>* warnings);

// ---- an INSERT's duplicate keys (insert_duplicates.cc)

// What an INSERT does with a row whose primary key or UNIQUE index values are taken.
struct OnDuplicate {
  enum class Kind : uint8_t {
    kError,    // 1062, the statement fails
    kIgnore,   // INSERT IGNORE: the row is skipped, 1062 becomes a warning
    kReplace,  // REPLACE: the rows holding its keys are deleted (or the last updated in place)
    kUpdate,   // ON DUPLICATE KEY UPDATE: the row holding the key is updated by `sets`
  };
  struct Set {
    uint32_t column;
    std::optional<BoundExpr> value;  // over (existing row, inserted row); nullopt: DEFAULT
  };
  Kind kind = Kind::kError;
  std::vector<Set> sets;
  std::vector<std::string> inserted_names;  // the bound names of the inserted row's columns
};

// MySQL's counts of an INSERT's rows: inserted (copied), deleted by REPLACE, updated by ON
// DUPLICATE KEY UPDATE; affected rows are their sum, Duplicates: deleted + updated (IGNORE:
// the rows skipped).
struct InsertCounts {
  uint64_t copied = 0, deleted = 0, updated = 0;
  std::vector<SqlWarning> warnings;
};

// Binds ON DUPLICATE KEY UPDATE's assignments (VALUES(c), the row alias's `alias.c` and its
// column aliases name the inserted row; other columns the existing one): 1054 for an unknown
// column.
SqlResult<OnDuplicate> BindOnDuplicate(ExecContext& ctx, const TableDef& def,
                                       const InsertStmt& stmt,
                                       const std::vector<uint32_t>& targets);
// Writes source row n (`row`, coerced) through `engine` as `dup` says, counting into
// *counts; ON DUPLICATE KEY UPDATE's values are stored under `rules`. A duplicate found locks as
// the engine's Insert says (REPLACE and ON DUPLICATE KEY UPDATE: X); the row holding it is then
// read (and locked) by its ref.
SqlStatus WriteInsertedRow(ExecContext& ctx, const OpenTable& t, const OnDuplicate& dup,
                           TableEngine& engine, const Row& row, uint64_t n, const StoreRules& rules,
                           EvalState& st, InsertCounts* counts);

// Adds n to ctx.progress and checks for cancellation every 1024 rows.
inline SqlStatus CountProgress(ExecContext& ctx, uint64_t* since_last, uint64_t n = 1) {
  *since_last += n;
  if (*since_last >= 1024) {
    if (ctx.progress != nullptr) ctx.progress->fetch_add(*since_last, std::memory_order_relaxed);
    *since_last = 0;
    return ctx.CheckCancel();
  }
  return SqlStatus::OK();
}

}  // namespace minnow::sql
