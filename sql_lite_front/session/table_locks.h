#pragma once
// Table locks (thr_lock's, minnow/table_lock_engine.h) that statements take on MyISAM tables,
// as MySQL's server takes them (sql/lock.cc: mysql_lock_tables -> thr_multi_lock):
//   SELECT                         READ (HIGH_PRIORITY: READ_HIGH_PRIORITY; LOCK IN SHARE MODE:
//                                  READ_WITH_SHARED_LOCKS; FOR UPDATE: WRITE)
//   INSERT                         WRITE_CONCURRENT_INSERT (WRITE_LOW_PRIORITY under
//                                  low_priority_updates: THD::insert_lock_default; LOW_PRIORITY:
//                                  WRITE_LOW_PRIORITY; HIGH_PRIORITY: WRITE; REPLACE and
//                                  ON DUPLICATE KEY UPDATE: WRITE for WRITE_CONCURRENT_INSERT,
//                                  as MySQL's upgrade_lock_type)
//   INSERT ... SELECT's source     READ_NO_INSERT (the same table as the target: WRITE)
//   UPDATE, DELETE                 WRITE (WRITE_LOW_PRIORITY under low_priority_updates or
//                                  with LOW_PRIORITY)
//   multi-table UPDATE, DELETE     WRITE (as above) on the tables written, READ on the others
//   EXPLAIN                        the explained statement's
//   CHECK TABLE                    none here: READ_NO_INSERT on each table in turn, taken by
//                                  its check (check_table.h)
// A concurrent insert is allowed as the global concurrent_insert says (HeapLockOptions). The
// session takes them after the statement's metadata locks and holds them to the statement's
// end, all tables of a statement in one order (by TableKey, one lock per table: the
// strongest asked), so two statements never wait for each other in a cycle; waits end with
// 1205 after lock_wait_timeout, or 1317 on KILL QUERY. Under LOCK TABLES a statement takes
// none: it runs under the locks LOCK TABLES took (a MyISAM table not locked there: 1100).
//
// Table_locks_immediate / Table_locks_waited count what MariaDB 10.11 counts: one per MyISAM
// table lock a statement or LOCK TABLES takes (the engine counts each grant and wait,
// DatabaseStats::table_locks_*); InnoDB tables count none (MariaDB's InnoDB takes no thr_lock
// lock; MySQL 8.0 would count one per InnoDB table too), nor does SHOW TABLE STATUS.

#include <string>
#include <string_view>
#include <vector>

#include "minnow/table_lock_engine.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/sql_error.h"

namespace minnow::sql {

struct SessionState;

struct TableLockRequest {
  std::string table;  // TableKey(name): "<database>.<table>" lower-cased
  TableName name;
  HeapLockType type = HeapLockType::kRead;
};

class TableCatalog;

// The locks `stmt` asks for, sorted by table, one per table (none for statements without
// base tables). `catalog` tells which table a multi-table UPDATE's unqualified column names.
std::vector<TableLockRequest> TableLockRequestsFor(const Statement& stmt, bool low_priority_updates,
                                                   const TableCatalog* catalog);

// Takes `requests` for the session's statement into s->statement_table_locks (MyISAM tables;
// InnoDB ones and names no table has are skipped: the statement reports 1146). On an error
// none is held.
SqlStatus TakeStatementTableLocks(SessionState* s, const std::vector<TableLockRequest>& requests);

// Ends the statement's table locks (thr_unlock at its end), then waits until what the statement
// wrote to MyISAM tables is durable, under LOCK TABLES' locks too (those stay held): one log
// flush per statement, after its locks are gone. The first error of those waits (the redo
// log's).
SqlStatus EndStatementTableLocks(SessionState* s);

// The lock the session holds on MyISAM table `table` (its TableKey) for its statement or by
// LOCK TABLES, or null.
const HeapTableLock* HeldTableLock(const SessionState& s, std::string_view table);

// The global concurrent_insert as the engine's option.
ConcurrentInsert ConcurrentInsertMode(const SessionState& s);

}  // namespace minnow::sql
