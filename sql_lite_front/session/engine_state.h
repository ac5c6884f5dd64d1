#pragma once
// What a SqlEngine holds: the database, the catalog, the global variables and status, and the
// list of live sessions (for SHOW PROCESSLIST and innodb_trx's trx_mysql_thread_id).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/status/status_counters.h"
#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/session/variables.h"

namespace minnow::sql {

struct SessionState;

struct SqlEngineState {
  SqlEngineState(Database* d, std::unique_ptr<TableCatalog> c)
      : db(d), catalog(std::move(c)), variables(d->options()) {}

  Database* const db;
  const std::unique_ptr<TableCatalog> catalog;
  SystemVariables variables;
  const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  mutable std::mutex status_latch;  // guards global_status
  StatusCounters global_status;

  mutable std::mutex sessions_latch;  // guards sessions (not the sessions' contents)
  std::vector<SessionState*> sessions;
  std::atomic<uint64_t> next_session_id{1};

  StatusCounters GlobalStatus() const {
    std::lock_guard g(status_latch);
    return global_status;
  }
};

}  // namespace minnow::sql
