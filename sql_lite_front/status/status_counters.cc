// StatusCounters::Add: a statement's counts into a session's or the global totals.

#include "sql_lite_front/status/status_counters.h"

namespace minnow::sql {

// Every field is added below; a new field must be too.
static_assert(sizeof(StatusCounters) == 30 * sizeof(uint64_t),
              "StatusCounters::Add misses a field");

void StatusCounters::Add(const StatusCounters& o) {
  handler_read_first += o.handler_read_first;
  handler_read_key += o.handler_read_key;
  handler_read_last += o.handler_read_last;
  handler_read_next += o.handler_read_next;
  handler_read_prev += o.handler_read_prev;
  handler_read_rnd_next += o.handler_read_rnd_next;
  handler_write += o.handler_write;
  handler_update += o.handler_update;
  handler_delete += o.handler_delete;
  handler_commit += o.handler_commit;
  handler_rollback += o.handler_rollback;
  innodb_rows_read += o.innodb_rows_read;
  innodb_rows_inserted += o.innodb_rows_inserted;
  innodb_rows_updated += o.innodb_rows_updated;
  innodb_rows_deleted += o.innodb_rows_deleted;
  select_scan += o.select_scan;
  select_range += o.select_range;
  sort_rows += o.sort_rows;
  questions += o.questions;
  com_select += o.com_select;
  com_insert += o.com_insert;
  com_update += o.com_update;
  com_delete += o.com_delete;
  com_begin += o.com_begin;
  com_commit += o.com_commit;
  com_rollback += o.com_rollback;
  com_set_option += o.com_set_option;
  com_show += o.com_show;
  com_ddl += o.com_ddl;
  com_check += o.com_check;
}

}  // namespace minnow::sql
