#pragma once
// The counters SHOW STATUS prints, as MySQL defines them. A statement counts into its own
// StatusCounters (ExecContext::counts); when it ends the session adds them to the session's
// and the global totals (SqlEngineState). Plain fields: each copy belongs to one thread or is
// guarded by its owner's latch.

#include <cstdint>

namespace minnow::sql {

struct StatusCounters {
  // Handler_*: calls into the storage engine, MySQL's meaning.
  uint64_t handler_read_first = 0;     // an index scan started at its first entry
  uint64_t handler_read_key = 0;       // a row looked up by key (point lookup or range start)
  uint64_t handler_read_last = 0;      // an index walk started at its last entry (backwards)
  uint64_t handler_read_next = 0;      // the next row in index order (range and index scans)
  uint64_t handler_read_prev = 0;      // the previous row in index order (ORDER BY ... DESC)
  uint64_t handler_read_rnd_next = 0;  // the next row of a full table scan
  uint64_t handler_write = 0;          // rows inserted
  uint64_t handler_update = 0;         // rows updated
  uint64_t handler_delete = 0;         // rows deleted
  uint64_t handler_commit = 0, handler_rollback = 0;
  // Innodb_rows_*: rows read from / written to InnoDB tables.
  uint64_t innodb_rows_read = 0, innodb_rows_inserted = 0, innodb_rows_updated = 0,
           innodb_rows_deleted = 0;
  // Select_*: how SELECTs ran.
  uint64_t select_scan = 0;   // a full scan of the first table
  uint64_t select_range = 0;  // a range on the first table
  uint64_t sort_rows = 0;     // rows sorted for ORDER BY
  // Statements.
  uint64_t questions = 0;
  uint64_t com_select = 0, com_insert = 0, com_update = 0, com_delete = 0, com_begin = 0,
           com_commit = 0, com_rollback = 0, com_set_option = 0, com_show = 0, com_ddl = 0,
           com_check = 0;

  void Add(const StatusCounters& o);
};

}  // namespace minnow::sql
