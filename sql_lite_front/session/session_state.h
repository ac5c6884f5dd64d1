#pragma once
// What a SqlSession holds (sql_session.cc runs statements over it).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/latch.h"
#include "minnow/db.h"
#include "minnow/table_lock_engine.h"
#include "sql_lite_front/catalog/table_name.h"
#include "sql_lite_front/session/engine_state.h"
#include "sql_lite_front/session/statement_stage.h"
#include "sql_lite_front/session/variables.h"
#include "sql_lite_front/sql_engine.h"
#include "sql_lite_front/status/status_counters.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

struct SessionState {
  SessionState(SqlEngineState* e, uint64_t session_id, std::unique_ptr<Session> kv)
      : engine(e), id(session_id), kv_session(std::move(kv)), vars(e->variables.NewSession()) {}

  SqlEngineState* const engine;
  const uint64_t id;
  std::unique_ptr<Session> kv_session;
  SessionVariables vars;
  // User variables (@x): SET @x = expr; an unset one reads as NULL. By lower-cased name.
  std::map<std::string, Value> user_vars;

  // The open transaction: BEGIN's, autocommit=0's, or the running autocommit statement's.
  // Only the session's thread changes it, under txn_latch; other threads read it under
  // txn_latch (Cancel, waiting_for_lock, processlist). Not GUARDED_BY: the session's own
  // thread also reads it without the latch (no other thread writes it), which the analysis
  // cannot tell from a race.
  mutable Latch txn_latch;
  std::unique_ptr<Transaction> txn;
  bool explicit_txn = false;  // BEGIN or autocommit=0: the transaction outlives the statement
  // The open transaction's statements changed a MyISAM table (ROLLBACK then warns 1196).
  bool txn_changed_non_transactional = false;
  // SAVEPOINT's marks in the open transaction, oldest first: a name (compared without case, as
  // MySQL's) and the transaction's undo number then (Transaction::Savepoint). Cleared when the
  // transaction ends.
  struct NamedSavepoint {
    std::string name;
    uint64_t undo_no = 0;
  };
  std::vector<NamedSavepoint> savepoints;
  std::optional<IsolationLevel> next_txn_isolation;  // SET TRANSACTION ISOLATION LEVEL
  IsolationLevel txn_isolation = IsolationLevel::kRepeatableRead;  // the open transaction's
  // A running DDL statement's exclusive metadata locks (a transaction of their own, ended with
  // the statement; the DDL's work runs in other transactions). Guarded as txn.
  std::unique_ptr<Transaction> ddl_txn;
  // Begins ddl_txn with `opts` (the session's thread only). A Cancel() that came before the
  // transaction existed still ends its waits.
  Status BeginDdlTransaction(const TransactionOptions& opts) {
    Result<std::unique_ptr<Transaction>> begun = kv_session->Begin(opts);
    if (!begun.ok()) return begun.status();
    LatchGuard g(txn_latch);
    ddl_txn = std::move(begun).value();
    if (cancel.load(std::memory_order_relaxed)) ddl_txn->Interrupt();
    return Status::OK();
  }

  // LOCK TABLES: the tables locked and how (empty when none). A MyISAM table's thr_lock
  // ticket is held here until UNLOCK TABLES (an InnoDB table's lock is in `txn`).
  struct LockedTable {
    std::string table;  // TableKey: "<database>.<table>" lower-cased
    bool write = false;
    HeapTableLock heap_lock;
    std::string name;  // the table's name, for messages
  };
  std::vector<LockedTable> locked_tables;
  // The running statement's table locks on MyISAM tables (table_locks.h), released as it
  // ends. The table handle keeps the locked table alive as long as its lock.
  struct HeldLock {
    std::string table;  // TableKey
    std::shared_ptr<const OpenTable> handle;
    HeapTableLock lock;
  };
  std::vector<HeldLock> statement_table_locks;

  uint64_t last_insert_id = 0;
  // ROW_COUNT(): what the previous statement affected: its affected rows, or -1 when it
  // returned a result set or failed (MySQL's my_ok / my_eof / error). FOUND_ROWS(): the rows
  // the last SELECT returned, or with SQL_CALC_FOUND_ROWS would have returned without LIMIT.
  int64_t row_count = -1;
  uint64_t found_rows = 0;
  std::string user;  // USER(): the client's 'name@host' (minnowd sets it); empty in the shell
  // The last statement's warnings (or error) for SHOW WARNINGS; the session's thread only.
  std::vector<SqlWarning> diagnostics;
  mutable Latch status_latch;
  StatusCounters status GUARDED_BY(status_latch);  // this session's totals

  // The running statement, for other threads.
  std::atomic<bool> cancel{false};
  std::atomic<uint64_t> progress{0};
  StageProgress stage;  // a DDL statement's stage and its work (statement_stage.h)
  mutable Latch query_latch;
  std::string query GUARDED_BY(query_latch);  // empty when idle
  std::chrono::steady_clock::time_point query_start GUARDED_BY(query_latch);
  // The current database (USE, DATABASE()); empty when none is selected. The session's thread
  // changes it under query_latch; other threads (SHOW PROCESSLIST) read it under query_latch.
  std::string database = kDefaultDatabase;
  std::string Database() const {
    LatchGuard g(query_latch);
    return database;
  }
  void SetDatabase(std::string db) {
    LatchGuard g(query_latch);
    database = std::move(db);
  }
};

}  // namespace minnow::sql
