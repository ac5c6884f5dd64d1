// performance_schema.data_locks / data_lock_waits / metadata_locks / events_stages_current and
// information_schema.innodb_trx / processlist, with MySQL 8.0's columns, from the engine's live
// lock structs and transactions; the catalog's information_schema tables are
// information_schema.cc's.
#include <cctype>
#include <cmath>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/status/information_schema.h"
#include "sql_lite_front/status/status_views.h"
#include "sql_lite_front/status/status_views_internal.h"

namespace minnow::sql {

namespace {

const char* TrxIsolationName(IsolationLevel level) {
  switch (level) {  // innodb_trx prints these with a space, unlike transaction_isolation
    case IsolationLevel::kReadUncommitted:
      return "READ UNCOMMITTED";
    case IsolationLevel::kReadCommitted:
      return "READ COMMITTED";
    case IsolationLevel::kRepeatableRead:
      return "REPEATABLE READ";
    case IsolationLevel::kSerializable:
      return "SERIALIZABLE";
  }
  return "REPEATABLE READ";
}

SqlError FromEngine(const Status& st) { return FromStatus(st); }

SqlResult<SystemTable> DataLocks(const ExecContext& ctx) {
  Result<std::vector<DataLock>> locks = ctx.db->DataLocks();
  if (!locks.ok()) return FromEngine(locks.status());
  const std::vector<SessionSnapshot> sessions = SnapshotSessions(ctx);
  LockDescriber describe(ctx);
  SystemTable t;
  t.columns = {"ENGINE",
               "ENGINE_LOCK_ID",
               "ENGINE_TRANSACTION_ID",
               "THREAD_ID",
               "EVENT_ID",
               "OBJECT_SCHEMA",
               "OBJECT_NAME",
               "PARTITION_NAME",
               "SUBPARTITION_NAME",
               "INDEX_NAME",
               "OBJECT_INSTANCE_BEGIN",
               "LOCK_TYPE",
               "LOCK_MODE",
               "LOCK_STATUS",
               "LOCK_DATA"};
  for (const DataLock& l : *locks) {
    const SessionSnapshot* owner = SessionOfTrx(sessions, l.trx_id);
    t.rows.push_back(Row{
        Str("INNODB"),
        Str(describe.EngineLockId(l)),
        Int(l.trx_id),
        owner != nullptr ? Int(owner->id) : Value::Null(),
        Value::Null(),  // EVENT_ID: minnow has no performance_schema events
        Str(describe.SchemaName(l)),
        Str(describe.TableName(l)),
        Value::Null(),
        Value::Null(),
        OptStr(describe.IndexName(l)),
        Int(describe.LockStructId(l)),
        Str(l.lock_type()),
        Str(l.lock_mode),
        Str(l.lock_status()),
        OptStr(describe.LockData(l)),
    });
  }
  return t;
}

// performance_schema.metadata_locks from the engine's metadata locks (the SQL front names a
// table's "schema.table"). minnow has no performance_schema events or source positions: EVENT_ID
// and SOURCE are NULL; OBJECT_INSTANCE_BEGIN is the request's number.
SqlResult<SystemTable> MetadataLocks(const ExecContext& ctx) {
  Result<std::vector<MetadataLock>> locks = ctx.db->MetadataLocks();
  if (!locks.ok()) return FromEngine(locks.status());
  const std::vector<SessionSnapshot> sessions = SnapshotSessions(ctx);
  SystemTable t;
  t.columns = {"OBJECT_TYPE",     "OBJECT_SCHEMA",         "OBJECT_NAME",
               "COLUMN_NAME",     "OBJECT_INSTANCE_BEGIN", "LOCK_TYPE",
               "LOCK_DURATION",   "LOCK_STATUS",           "SOURCE",
               "OWNER_THREAD_ID", "OWNER_EVENT_ID"};
  for (const MetadataLock& l : *locks) {
    const size_t dot = l.name.find('.');
    std::string schema = dot == std::string::npos ? std::string() : l.name.substr(0, dot);
    std::string name = dot == std::string::npos ? l.name : l.name.substr(dot + 1);
    // The lock names the table lower-cased; the catalog has its names as created.
    if (auto table = ctx.catalog->Find(TableName{schema, name}); table != nullptr) {
      schema = table->def.schema;
      name = table->def.name;
    }
    const SessionSnapshot* owner = SessionOfMdlOwner(sessions, l.owner);
    t.rows.push_back(Row{
        Str("TABLE"),
        schema.empty() ? Value::Null() : Str(std::move(schema)),
        Str(std::move(name)),
        Value::Null(),
        Int(l.ticket),
        Str(l.type),
        Str(l.duration),
        Str(l.lock_status()),
        Value::Null(),
        owner != nullptr ? Int(owner->id) : Value::Null(),
        Value::Null(),
    });
  }
  return t;
}

SqlResult<SystemTable> DataLockWaits(const ExecContext& ctx) {
  Result<std::vector<DataLockWait>> waits = ctx.db->DataLockWaits();
  if (!waits.ok()) return FromEngine(waits.status());
  const std::vector<SessionSnapshot> sessions = SnapshotSessions(ctx);
  LockDescriber describe(ctx);
  SystemTable t;
  t.columns = {"ENGINE",
               "REQUESTING_ENGINE_LOCK_ID",
               "REQUESTING_ENGINE_TRANSACTION_ID",
               "REQUESTING_THREAD_ID",
               "REQUESTING_EVENT_ID",
               "REQUESTING_OBJECT_INSTANCE_BEGIN",
               "BLOCKING_ENGINE_LOCK_ID",
               "BLOCKING_ENGINE_TRANSACTION_ID",
               "BLOCKING_THREAD_ID",
               "BLOCKING_EVENT_ID",
               "BLOCKING_OBJECT_INSTANCE_BEGIN"};
  auto thread = [&](uint64_t trx_id) {
    const SessionSnapshot* s = SessionOfTrx(sessions, trx_id);
    return s != nullptr ? Int(s->id) : Value::Null();
  };
  for (const DataLockWait& w : *waits) {
    t.rows.push_back(Row{
        Str("INNODB"),
        Str(describe.EngineLockId(w.requesting)),
        Int(w.requesting.trx_id),
        thread(w.requesting.trx_id),
        Value::Null(),
        Int(describe.LockStructId(w.requesting)),
        Str(describe.EngineLockId(w.blocking)),
        Int(w.blocking.trx_id),
        thread(w.blocking.trx_id),
        Value::Null(),
        Int(describe.LockStructId(w.blocking)),
    });
  }
  return t;
}

SqlResult<SystemTable> InnodbTrx(const ExecContext& ctx) {
  Result<std::vector<TransactionInfo>> trxs = ctx.db->Transactions();
  if (!trxs.ok()) return FromEngine(trxs.status());
  const std::vector<SessionSnapshot> sessions = SnapshotSessions(ctx);
  LockDescriber describe(ctx);
  const int64_t now = UnixNow();
  SystemTable t;
  t.columns = {"trx_id",
               "trx_state",
               "trx_started",
               "trx_requested_lock_id",
               "trx_wait_started",
               "trx_weight",
               "trx_mysql_thread_id",
               "trx_query",
               "trx_operation_state",
               "trx_tables_in_use",
               "trx_tables_locked",
               "trx_lock_structs",
               "trx_lock_memory_bytes",
               "trx_rows_locked",
               "trx_rows_modified",
               "trx_concurrency_tickets",
               "trx_isolation_level",
               "trx_unique_checks",
               "trx_foreign_key_checks",
               "trx_last_foreign_key_error",
               "trx_adaptive_hash_latched",
               "trx_adaptive_hash_timeout",
               "trx_is_read_only",
               "trx_autocommit_non_locking",
               "trx_schedule_weight"};
  for (const TransactionInfo& x : *trxs) {
    const SessionSnapshot* owner = SessionOfTrx(sessions, x.trx_id);
    const int64_t started = now - static_cast<int64_t>(std::floor(x.active_seconds));
    t.rows.push_back(Row{
        Int(x.trx_id),
        Str(x.lock_wait ? "LOCK WAIT" : "RUNNING"),
        Str(FormatLocalTime(started)),
        x.lock_wait ? Str(describe.EngineLockId(x.waiting_for)) : Value::Null(),
        x.lock_wait ? Str(FormatLocalTime(UnixSeconds(x.wait_started))) : Value::Null(),
        Int(x.rows_modified + x.locks.lock_structs),  // InnoDB's TRX_WEIGHT
        owner != nullptr ? Int(owner->id) : Int(0),
        owner != nullptr ? OptStr(owner->query) : Value::Null(),
        Value::Null(),  // trx_operation_state
        Int(0),         // trx_tables_in_use
        Int(0),         // trx_tables_locked (LOCK TABLES' count; table locks show in data_locks)
        Int(x.locks.lock_structs),
        Int(x.locks.heap_bytes),
        Int(x.locks.row_locks),
        Int(x.rows_modified),
        Int(0),  // trx_concurrency_tickets
        Str(TrxIsolationName(x.isolation)),
        Int(1),  // trx_unique_checks
        Int(1),  // trx_foreign_key_checks
        Value::Null(),
        Int(0),         // trx_adaptive_hash_latched
        Int(0),         // trx_adaptive_hash_timeout
        Int(0),         // trx_is_read_only: a transaction listed here has written or locked
        Int(0),         // trx_autocommit_non_locking
        Value::Null(),  // trx_schedule_weight (InnoDB's CATS weight; minnow schedules FIFO)
    });
  }
  return t;
}

SqlResult<SystemTable> Processlist(const ExecContext& ctx) {
  const std::vector<SessionSnapshot> sessions = SnapshotSessions(ctx);
  SystemTable t;
  t.columns = {"ID", "USER", "HOST", "DB", "COMMAND", "TIME", "STATE", "INFO"};
  for (const SessionSnapshot& s : sessions) {
    const bool running = s.query.has_value();
    t.rows.push_back(Row{
        Int(s.id),
        Str("root"),
        Str("localhost"),
        s.database.empty() ? Value::Null() : Str(s.database),
        Str(running ? "Query" : "Sleep"),
        Int(static_cast<uint64_t>(running ? s.query_seconds : s.idle_seconds)),
        Str(!running                                 ? ""
            : s.metadata_lock_wait                   ? "Waiting for table metadata lock"
            : s.table_lock_wait                      ? "Waiting for table level lock"
            : s.stage.stage != StatementStage::kNone ? StageStateName(s.stage.stage)
                                                     : "executing"),
        OptStr(s.query),
    });
  }
  return t;
}

// performance_schema.events_stages_current: a row for each session whose statement is in a
// stage minnow shows (statement_stage.h: a copy-ALTER's, OPTIMIZE's and CREATE INDEX's), with
// its progress in rows (WORK_COMPLETED of WORK_ESTIMATED, as MySQL's progress-instrumented
// stages; sys.processlist's `progress` is their percent). minnow keeps no stage history and
// has no event timers: an ended stage leaves no row, EVENT_ID, END_EVENT_ID, SOURCE, the
// TIMER_ columns and NESTING_EVENT_ID are NULL.
SqlResult<SystemTable> EventsStagesCurrent(const ExecContext& ctx) {
  const std::vector<SessionSnapshot> sessions = SnapshotSessions(ctx);
  SystemTable t;
  t.columns = {"THREAD_ID",      "EVENT_ID",       "END_EVENT_ID",     "EVENT_NAME",
               "SOURCE",         "TIMER_START",    "TIMER_END",        "TIMER_WAIT",
               "WORK_COMPLETED", "WORK_ESTIMATED", "NESTING_EVENT_ID", "NESTING_EVENT_TYPE"};
  for (const SessionSnapshot& s : sessions) {
    if (!s.query.has_value() || s.stage.stage == StatementStage::kNone) continue;
    t.rows.push_back(Row{
        Int(s.id),
        Value::Null(),
        Value::Null(),
        Str(StageEventName(s.stage.stage)),
        Value::Null(),
        Value::Null(),
        Value::Null(),
        Value::Null(),
        Int(s.stage.work_completed),
        Int(s.stage.work_estimated),
        Value::Null(),
        Str("STATEMENT"),
    });
  }
  return t;
}

SqlError NoSuchTable(const TableName& name) {
  return SqlErr(kErNoSuchTable, "Table '", name.schema, ".", name.name, "' doesn't exist");
}

}  // namespace

SqlResult<SystemTable> ReadSystemTable(ExecContext& ctx, const TableName& name) {
  const std::string schema = ToLowerAscii(name.schema);
  const std::string table = ToLowerAscii(name.name);
  if (schema == "performance_schema") {
    if (table == "data_locks") return DataLocks(ctx);
    if (table == "data_lock_waits") return DataLockWaits(ctx);
    if (table == "metadata_locks") return MetadataLocks(ctx);
    if (table == "events_stages_current") return EventsStagesCurrent(ctx);
  } else if (schema == "information_schema") {
    if (table == "innodb_trx") return InnodbTrx(ctx);
    if (table == "processlist") return Processlist(ctx);
    SQL_ASSIGN_OR_RETURN(std::optional<SystemTable> view, ReadCatalogView(ctx, table));
    if (view.has_value()) return std::move(*view);
  }
  return NoSuchTable(name);
}

}  // namespace minnow::sql
