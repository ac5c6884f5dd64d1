#pragma once
// CHECK TABLE t, ... [QUICK | FAST | MEDIUM | EXTENDED | CHANGED | FOR UPGRADE] ...: checks
// each named table's storage and nothing else, one table at a time, as MySQL's
// mysql_admin_table does, and answers Table | Op | Msg_type | Msg_text rows (AdminResult):
//
//   InnoDB (row-locking): each tree, clustered first, through Database::CheckKeyspace (a damaged
//     one: "Warning | InnoDB: The B-tree of index "<i>" is corrupted.", then a Warning with
//     what the check found); then, in one consistent read, the entries of each sound tree
//     (InnoDB's row count): a secondary index whose count differs from the clustered one's
//     gives "Warning | InnoDB: Index '<i>' contains N entries, should be M.". QUICK skips the
//     tree walks and only counts (as InnoDB's T_QUICK); a count that fails on a damaged page
//     reports that tree as damaged.
//   MyISAM (table-locking): HeapTable::Check under a READ_NO_INSERT table lock (MySQL's
//     lock for CHECK): the heap, each index tree, and that the indexes hold exactly the rows'
//     keys; damage gives "error | <what the check found>".
//   Either way a sound table ends with "status | OK", a damaged one with "error | Corrupt".
//   FOR UPGRADE: every minnow table is of the current version, so OK without a check
//   (handler::ha_check); FAST, MEDIUM, EXTENDED and CHANGED check in full (minnow keeps no
//   "changed since the last check" state that would let FAST or CHANGED skip a table).
//
// A table that cannot be opened gives "Error | <why>" then "status | Operation failed" and the
// statement goes on with the next: missing (1146), a metadata or table lock wait that timed out
// (1205), or, under LOCK TABLES, a table not locked there (1100's message). A cancel (1317)
// ends the statement.
//
// Locks: outside LOCK TABLES, each table is checked in a transaction of its own (REPEATABLE
// READ, registered as the session's ddl_txn so KILL and waiting_for_lock see it) holding the
// table's shared metadata lock, so the check never runs while an ALTER holds the exclusive one;
// it commits before the next table. Under LOCK TABLES the tables' locks are already held: the
// counts run in the LOCK TABLES transaction, and a MyISAM table locked READ LOCAL (which lets
// concurrent inserts in) takes a READ_NO_INSERT lock for its check. REQUIRES: the session
// committed any other open transaction (CHECK's implicit commit) and ctx.txn is null.

#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::sql {

SqlResult<StatementResult> ExecuteCheckTable(ExecContext& ctx, const CheckTableStmt& stmt);

// ANALYZE TABLE t, ...: each table opened as CHECK opens it (the same locks, the same
// "Error" / "Operation failed" rows for one that cannot be), then MySQL's answer for an engine
// without analyze: "note | The storage engine for the table doesn't support analyze". minnow
// keeps no key statistics to recompute (SHOW INDEX's Cardinality is NULL, SHOW TABLE STATUS
// counts live); a MyISAM table is held under a READ_NO_INSERT lock for the moment, as MySQL's
// analyze locks it, so the statement still waits for writers as MySQL's does.
SqlResult<StatementResult> ExecuteAnalyzeTable(ExecContext& ctx, const AnalyzeTableStmt& stmt);

}  // namespace minnow::sql
