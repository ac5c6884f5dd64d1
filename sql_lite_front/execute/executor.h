#pragma once
// Runs SELECT, INSERT, UPDATE, DELETE and EXPLAIN (planner.h chooses the access path).
//
// Locking, as InnoDB's (the transaction's isolation level decides next-key vs record locks,
// and SERIALIZABLE turns plain reads into share reads, inside the engine):
//   - SELECT without a lock clause reads a snapshot and locks nothing;
//   - LOCK IN SHARE MODE / FOR SHARE / FOR UPDATE lock the records of the index the plan walks:
//     a covering scan of index j locks only j's entries; a lookup through j that reads the row
//     locks the clustered record too (REC_NOT_GAP, by a locking point read);
//   - UPDATE and DELETE walk their plan with FOR UPDATE's locks, then write (the engine's
//     writes take X locks; secondary entries are delete-marked and inserted as the row changes);
//   - INSERT: insert-intention checks and implicit locks (the engine's Insert).
// Every function REQUIRES ctx.txn (the session began it) and leaves statement rollback on an
// error to the session.

#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/sql_engine.h"
#include "sql_lite_front/sql_error.h"

namespace minnow::sql {

SqlResult<StatementResult> ExecuteSelect(ExecContext& ctx, const SelectStmt& stmt);
// The result a SELECT would have, without its rows: bound and planned, not run, so it reads no
// table row and takes no lock (a system table in FROM is read, as binding needs its columns).
// Unlike the functions above it needs no transaction (ctx.txn may be null). The bind errors
// ExecuteSelect would give (1146, 1054, ...).
SqlResult<StatementResult> DescribeSelect(ExecContext& ctx, const SelectStmt& stmt);
SqlResult<StatementResult> ExecuteInsert(ExecContext& ctx, const InsertStmt& stmt);
// Rows read already, `width` values each, with the warnings their reading gave.
struct SelectedRows {
  size_t width = 0;
  std::vector<std::vector<Value>> rows;
  std::vector<SqlWarning> warnings;
};
// INSERT [IGNORE] / REPLACE of `rows` into stmt.table's stmt.columns (stmt's VALUES and SELECT
// unused), as INSERT ... SELECT writes its rows: CREATE TABLE ... SELECT's writes.
SqlResult<StatementResult> ExecuteInsertRows(ExecContext& ctx, const InsertStmt& stmt,
                                             SelectedRows rows);
SqlResult<StatementResult> ExecuteUpdate(ExecContext& ctx, const UpdateStmt& stmt);
SqlResult<StatementResult> ExecuteDelete(ExecContext& ctx, const DeleteStmt& stmt);
// EXPLAIN's rows in MySQL's traditional columns: id, select_type, table, partitions, type,
// possible_keys, key, key_len, ref, rows, filtered, Extra.
SqlResult<StatementResult> ExecuteExplain(ExecContext& ctx, const ExplainStmt& stmt);

}  // namespace minnow::sql
