#pragma once
// What a SqlEngine holds: the database, the catalog, the global variables and status, and the
// list of live sessions (for SHOW PROCESSLIST and innodb_trx's trx_mysql_thread_id).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/latch.h"
#include "minnow/db.h"
#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/session/variables.h"
#include "sql_lite_front/status/status_counters.h"

namespace minnow::sql {

struct SessionState;

struct SqlEngineState {
  SqlEngineState(Database* d, std::unique_ptr<TableCatalog> c)
      : db(d), catalog(std::move(c)), variables(d->options()) {}

  Database* const db;
  const std::unique_ptr<TableCatalog> catalog;
  SystemVariables variables;
  const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  mutable Latch status_latch;
  StatusCounters global_status GUARDED_BY(status_latch);

  mutable Latch sessions_latch;  // the list only, not the sessions' contents
  std::vector<SessionState*> sessions GUARDED_BY(sessions_latch);
  std::atomic<uint64_t> next_session_id{1};

  StatusCounters GlobalStatus() const {
    LatchGuard g(status_latch);
    return global_status;
  }
};

}  // namespace minnow::sql
