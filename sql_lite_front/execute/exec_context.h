#pragma once
// What a statement's executor gets from the session (sql_session.cc builds one per statement).

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/session/engine_state.h"
#include "sql_lite_front/session/session_state.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/status/status_counters.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

class SubqueryResolver;
struct BindScope;
struct DerivedCache;

struct ExecContext {
  SqlEngineState* engine = nullptr;
  SessionState* session = nullptr;
  Database* db = nullptr;
  TableCatalog* catalog = nullptr;
  // DML and SELECT run in this transaction (the session began it: autocommit statements get
  // one of their own); the executor reads and writes rows only through the tables' engines
  // opened on it (storage/table_engine.h). Null for DDL, which commits the session's transaction
  // first and uses session->kv_session for transactions of its own.
  Transaction* txn = nullptr;
  IsolationLevel isolation = IsolationLevel::kRepeatableRead;
  StatusCounters* counts = nullptr;  // this statement's
  const std::atomic<bool>* cancel = nullptr;
  std::atomic<uint64_t>* progress = nullptr;  // rows read or written so far
  uint64_t* last_insert_id = nullptr;         // the session's LAST_INSERT_ID()
  // The SELECT being bound assigns user variables (@x := e): @x is bound to be read as each
  // row is evaluated, not once at binding. Only then may an assignment be bound.
  bool user_vars_at_eval = false;
  // The statement's subqueries, each run once (execute/subquery.h); null for a statement that
  // may have none (a subquery there is refused with 1235).
  std::shared_ptr<SubqueryResolver> subqueries;
  // The lock a derived table's query reads its tables with (derived_table.h): nullopt, its own
  // locking clause; INSERT ... SELECT sets its source's.
  std::optional<LockMode> derived_lock;
  // An UPDATE's or DELETE's derived tables that make no outer reference, materialized once for
  // the statement, before it writes (derived_table.h); null: each is materialized where bound.
  std::shared_ptr<DerivedCache> derived_cache;
  // While a derived table is materialized: whether its query read a column of a block outside
  // it (a scope below `below_depth` of outer_scopes), for it and the derived tables around it.
  struct OuterUse {
    size_t below_depth = 0;
    bool used = false;
    std::shared_ptr<OuterUse> enclosing;
  };
  std::shared_ptr<OuterUse> outer_use;
  // While a subquery binds: the scopes of the query blocks around it, innermost last (a name
  // only they resolve is an outer reference).
  std::vector<const BindScope*> outer_scopes;
  // An outer reference: column `column` of outer_scopes[depth].
  struct OuterColumn {
    size_t depth = 0, column = 0;
    friend bool operator==(const OuterColumn&, const OuterColumn&) = default;
  };
  // While a correlated subquery runs for one row of the blocks around it: the values of the
  // outer references it makes (an outer reference binds as that value, a constant).
  struct OuterValue {
    OuterColumn at;
    Value value;
  };
  std::vector<OuterValue> outer_values;
  // While a subquery is bound to learn whether it is correlated: the outer references without
  // a value go here (each binds as NULL meanwhile).
  std::vector<OuterColumn>* outer_refs = nullptr;
  // The statement's start, microseconds since 1970 (UTC): NOW() and CURRENT_TIMESTAMP read it,
  // so they are one value for the whole statement, as MySQL's. 0: read the clock when asked.
  int64_t now_us = 0;

  // 1317 "Query execution was interrupted" once Cancel() was called. Loops call it per row
  // (it is one relaxed load).
  SqlStatus CheckCancel() const {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) [[unlikely]]
      return SqlError{kErQueryInterrupted, "Query execution was interrupted"};
    return SqlStatus::OK();
  }
};

}  // namespace minnow::sql
