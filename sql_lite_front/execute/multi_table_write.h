#pragma once
// Multi-table UPDATE and DELETE, as MySQL 8.0 runs them.
//
// The tables are read as a SELECT's join reads them (join.h: the same order, lookups and
// conditions), over `table [alias]` and the joined tables, with the WHERE. Every joined row
// that passes names one row of each target table (none where a LEFT JOIN NULL-extended it);
// a target row is changed once, by the first joined row that meets it (UPDATE: its
// assignments evaluated over that joined row, left to right, a later one seeing the earlier
// ones' values of the same row). All the changes are collected first and written after the
// join ends, so the join never reads a row it wrote.
//
// Locks, as InnoDB's: the target tables are read with exclusive locks (next-key under
// REPEATABLE READ, the record only under READ COMMITTED), the other tables with shared ones
// of the same kind (MySQL reads them with LOCK_S whatever the isolation level). MyISAM tables
// take table locks (session/table_locks.h): WRITE for targets, READ for the rest.
//
// Errors: UPDATE's 1054 / 1052 for an assignment's column; 1706 when one table is updated under
// two names and an assignment changes its primary key (updating it under two names otherwise
// is refused, 1235); DELETE's 1109 for a table of the delete list that FROM does not name,
// 1066 for one named twice. ORDER BY and LIMIT are refused by the parser (UPDATE: 1221).
// Subqueries (WHERE, ON, SET) run once, before the join, with share locks; 1093 when one reads
// a target table (PrepareWriteSubqueries, executor_internal.h).
//
// Derived tables (derived_table.h) are materialized when the join is bound, their base tables
// read with shared locks as the tables only read are; a derived table's query may read a
// target table (it has been read whole before the first write, as MySQL's materialized derived
// table has). A derived table cannot be written: 1288 "The target table d of the UPDATE is not
// updatable" (DELETE's likewise). 1288 for a table named in the delete list or in a qualified
// assignment, and 1093, are raised before a derived table's first row is read; an unqualified
// assignment's column found in a derived table is 1288 once the join is bound.
//
// Unlike MySQL, which writes the first table of its join order as it reads and the others
// after, every value is converted before the first row is written: under STRICT_TRANS_TABLES
// alone a bad value for a MyISAM target is an error also after other rows were met.

#include <functional>
#include <vector>

#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::sql {

// REQUIRES: stmt.multi_table().
SqlResult<StatementResult> ExecuteMultiUpdate(ExecContext& ctx, const UpdateStmt& stmt);
// REQUIRES: stmt.multi_table.
SqlResult<StatementResult> ExecuteMultiDelete(ExecContext& ctx, const DeleteStmt& stmt);

// EXPLAIN's view of a multi-table UPDATE or DELETE: its join, bound and planned as the statement
// would run it (no row is read), and per FROM position whether the statement writes that table.
// REQUIRES: the statement has no subqueries (they would run).
struct PlannedMultiWrite {
  SelectStmt query;
  PreparedSelect prepared;
  std::vector<bool> written;
};
SqlStatus PlanMultiUpdate(ExecContext& ctx, const UpdateStmt& stmt, PlannedMultiWrite* out);
SqlStatus PlanMultiDelete(ExecContext& ctx, const DeleteStmt& stmt, PlannedMultiWrite* out);

// The tables of a multi-table statement in FROM order (`table` then each joined one).
std::vector<const TableName*> FromTables(const TableName& table,
                                         const std::vector<JoinedTable>& joins);
// Per FROM position, its derived table, or null for a base table.
std::vector<const DerivedTable*> FromDerived(const std::optional<DerivedTable>& first,
                                             const std::vector<JoinedTable>& joins);
// Per FROM position, whether the statement writes that table, as far as names tell before the
// statement is bound (for its table locks): UPDATE's assignments `t.c` name t by name or alias,
// an unqualified `c` the first table `find` says has a column c; DELETE's list names tables by
// name or alias. The executor binds the statement and raises the errors.
std::vector<bool> UpdatedTables(
    const UpdateStmt& stmt,
    const std::function<bool(const TableName&, const std::string&)>& has_column);
std::vector<bool> DeletedTables(const DeleteStmt& stmt);

}  // namespace minnow::sql
