#pragma once
// DDL and the catalog's SHOW statements. The session commits its open transaction before
// calling any of these (MySQL's implicit commit) and passes ctx.txn == nullptr; functions that
// move rows (ALTER's copy, OPTIMIZE, CREATE INDEX's build) run their own transactions on
// ctx.session->kv_session.
//
// CREATE TABLE: types, NOT NULL, DEFAULT, AUTO_INCREMENT (must be a key's first column: 1075),
// PRIMARY KEY (1068 if twice), KEY/INDEX (1061 duplicate names, 1072 unknown column, 1170
// TEXT/BLOB without a length), UNIQUE secondary keys give 1235 (not yet), ENGINE=InnoDB (the
// row-locking engine) or MyISAM (the table-locking engine: a heap table; others 1286),
// CHARSET/COLLATE/COMPRESSION ('lz4' or 'none')/MAX_ROWS/AUTO_INCREMENT/ROW_FORMAT /COMMENT
// accepted. CREATE TABLE t LIKE s: s's columns, keys, engine and options (AUTO_INCREMENT from 1,
// empty); 1146 for a missing s before 1050 for a taken t, 1066 for LIKE t itself, as MySQL.
// ALTER TABLE (ADD/DROP/MODIFY/CHANGE COLUMN, ADD/DROP INDEX, DROP PRIMARY KEY, table
// options) and OPTIMIZE TABLE rebuild the table by copy (ALGORITHM=COPY or DEFAULT): rows are read
// in the source's key order (with share record locks unless alter_copy_lock_rows is OFF) and
// bulk-built into new keyspaces, then the catalog switches, then the old keyspaces are
// dropped. CREATE INDEX and DROP INDEX add or drop one index keyspace without copying the
// table, and so does ALTER TABLE ... ALGORITHM=INPLACE with one ADD INDEX or DROP INDEX; on a
// MyISAM table they rebuild it by copy (its heap table's indexes are made with it; INPLACE:
// 1846). OPTIMIZE of a MyISAM table compacts its heap in place instead (no copy).
// ALGORITHM=INPLACE for anything else, ALGORITHM=INSTANT, and LOCK=NONE or SHARED (every DDL
// holds an exclusive metadata lock) give 1846 (0A000 "... is not supported. Reason: ... Try
// ...") and change nothing; LOCK=EXCLUSIVE and DEFAULT are honoured.

#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::sql {

SqlResult<StatementResult> ExecuteCreateTable(ExecContext& ctx, const CreateTableStmt& stmt);
SqlResult<StatementResult> ExecuteDropTable(ExecContext& ctx, const DropTableStmt& stmt);
SqlResult<StatementResult> ExecuteCreateIndex(ExecContext& ctx, const CreateIndexStmt& stmt);
SqlResult<StatementResult> ExecuteDropIndex(ExecContext& ctx, const DropIndexStmt& stmt);
SqlResult<StatementResult> ExecuteAlterTable(ExecContext& ctx, const AlterTableStmt& stmt);
SqlResult<StatementResult> ExecuteTruncate(ExecContext& ctx, const TruncateStmt& stmt);
// RENAME TABLE a TO b, ...: TableCatalog::RenameTables (all or nothing; 1050, 1146). ALTER
// TABLE a RENAME [TO | AS] b does the same after its other actions (1050 before them).
SqlResult<StatementResult> ExecuteRenameTable(ExecContext& ctx, const RenameTableStmt& stmt);
// Table | Op | Msg_type | Msg_text, as MySQL prints OPTIMIZE on InnoDB ("Table does not support
// optimize, doing recreate + analyze instead", then "OK").
SqlResult<StatementResult> ExecuteOptimize(ExecContext& ctx, const OptimizeTableStmt& stmt);
// CREATE DATABASE: 1 row affected; 1007 if it exists (a note with IF NOT EXISTS); a CHARACTER
// SET / COLLATE is checked as a table's (1115, 1273, 1253, 1235) and becomes the default of
// the tables made in it. DROP DATABASE: its tables of both engines and the database, all or
// nothing (TableCatalog::DropDatabase); affected rows: the tables dropped; 1008 if missing (a
// note with IF EXISTS).
SqlResult<StatementResult> ExecuteCreateDatabase(ExecContext& ctx, const CreateDatabaseStmt& stmt);
// ALTER DATABASE: the database's defaults for the tables made in it from now on (1049 if it
// does not exist; 1115, 1273, 1253 as CREATE DATABASE's).
SqlResult<StatementResult> ExecuteAlterDatabase(ExecContext& ctx, const AlterDatabaseStmt& stmt);
SqlResult<StatementResult> ExecuteDropDatabase(ExecContext& ctx, const DropDatabaseStmt& stmt);

// SHOW TABLES, SHOW TABLE STATUS (Rows, Avg_row_length, Data_length, Index_length, Data_free,
// Auto_increment, Create_time from live counts: Database::InspectKeyspace), SHOW CREATE TABLE,
// SHOW COLUMNS / DESCRIBE, SHOW INDEX. These run in ctx.txn when there is one (may be null).
SqlResult<StatementResult> ExecuteShowCatalog(ExecContext& ctx, const ShowStmt& stmt);

}  // namespace minnow::sql
