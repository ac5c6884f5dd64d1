#pragma once
// Derived tables: FROM (SELECT ...) [AS] alias [(column, ...)].
//
// A derived table is materialized: its query runs once, when the statement's FROM is bound,
// and its rows are kept in memory as an OpenTable without storage (OpenTable::materialized)
// whose columns are the query's (result_columns.h; the column list renames them, 1353 when
// it counts differently, 1060 for two equal names). The statement reads it as it reads a
// table: ScanPlan walks its rows in order (a full scan: it has no index), the planner sees a
// table without keys, a join reads it by a nested loop over its rows.
//
// Locks. The query reads its base tables with its own locking clause (or, inside INSERT ...
// SELECT, with its source lock: ExecContext::derived_lock); an
// outer FOR UPDATE / FOR SHARE locks the rows of the outer block's base tables only, as
// MySQL's locking clause does not reach a table in a nested query block (its rows in the
// derived table are copies, which no one else can change).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sql_lite_front/execute/executor_internal.h"

namespace minnow::sql {

// A write's materialized derived tables by query (ExecContext::derived_cache): a derived table
// inside a correlated subquery is materialized once, as MySQL's, so it never reads the rows the
// statement has written so far. One that reads a column of an enclosing block is not kept,
// and is refused (1235) when it reads a table the statement writes (MySQL runs it per row).
struct DerivedCache {
  std::map<const SelectStmt*, std::shared_ptr<const OpenTable>> tables;
  std::vector<TableName> written;
};

// Runs `d`'s query and makes the table it reads as, named `alias` (schema empty).
SqlResult<std::shared_ptr<const OpenTable>> MaterializeDerived(ExecContext& ctx,
                                                               const DerivedTable& d,
                                                               const std::string& alias);

// ScanPlan's walk of a materialized table: every row in order, residual applied.
SqlStatus ScanMaterialized(ExecContext& ctx, const ScanSpec& spec, EvalState& state,
                           const RowCallback& fn);

}  // namespace minnow::sql
