#pragma once
// The views that make locks and counters visible, all from live structures:
//   SHOW ENGINE INNODB STATUS (and SHOW INNODB STATUS): one row (Type "InnoDB", Name "",
//     Status = the report) with InnoDB's sections: TRANSACTIONS ("Trx id counter N",
//     "Purge done for trx's n:o < N undo n:o < 0 state: running", "History list length N",
//     "Total number of lock structs in row lock hash table N", "LIST OF TRANSACTIONS FOR EACH
//     SESSION:", per transaction "---TRANSACTION n, ACTIVE s sec" [+ "LOCK WAIT"],
//     "N lock struct(s), heap size H, M row lock(s)[, undo log entries U]",
//     "MySQL thread id T, ..." and, when waiting, "------- TRX HAS BEEN WAITING s SEC FOR THIS
//     LOCK TO BE GRANTED:" with the lock), LATEST DETECTED DEADLOCK (when there was one),
//     BUFFER POOL AND MEMORY, ROW OPERATIONS;
//   performance_schema.data_locks, performance_schema.data_lock_waits, metadata_locks,
//   events_stages_current (a DDL's stage and its rows done of the rows estimated),
//   information_schema.innodb_trx, information_schema.processlist (State: a wait, a DDL's
//   stage such as "copy to tmp table", or "executing"), and the catalog's
//     information_schema.TABLES / COLUMNS / SCHEMATA / STATISTICS (information_schema.h):
//     tables with MySQL 8's columns, readable by SELECT (WHERE, ORDER BY, count(*) ... apply to
//     them as to any rows);
//   SHOW [GLOBAL|SESSION] STATUS [LIKE]: Innodb_row_lock_*, Innodb_rows_*, Handler_*,
//     Table_locks_*, Questions, Com_*, Uptime, Innodb_buffer_pool_*, Threads_connected, ...;
//   SHOW [GLOBAL|SESSION] VARIABLES [LIKE]; SHOW ENGINES; SHOW PROCESSLIST.

#include <string>
#include <vector>

#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::sql {

// A system table's rows, read once for one statement.
struct SystemTable {
  std::vector<std::string> columns;
  std::vector<Row> rows;  // Values: NULL, integers, strings
  // MySQL 8.0's data-dictionary views (information_schema.TABLES ...): a select item that is
  // a bare column is titled as the view names it ("TABLE_NAME" for table_name).
  bool view_names = false;
};

// performance_schema.data_locks / data_lock_waits / metadata_locks / events_stages_current,
// information_schema.innodb_trx /
// processlist / tables / columns / schemata / statistics (schema and name case-insensitive).
// 1146 for another name in those schemas.
SqlResult<SystemTable> ReadSystemTable(ExecContext& ctx, const TableName& name);

// SHOW STATUS / VARIABLES / ENGINE INNODB STATUS / ENGINES / PROCESSLIST / WARNINGS /
// COLLATION.
SqlResult<StatementResult> ExecuteShowStatus(ExecContext& ctx, const ShowStmt& stmt);

}  // namespace minnow::sql
