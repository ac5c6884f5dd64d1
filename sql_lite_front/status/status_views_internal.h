#pragma once
// What the status views share (status_views.cc, system_tables.cc, innodb_status.cc): the
// sessions seen from another thread, and the lock engine's DataLocks put in MySQL's words
// (tables and indexes instead of keyspaces, decoded keys, lock ids).

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/session/statement_stage.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

// A status view row's cells: a count, a text, a text or NULL.
inline Value Int(uint64_t v) { return Value::Int(static_cast<int64_t>(v)); }
inline Value Str(std::string s) { return Value::String(std::move(s)); }
inline Value OptStr(std::optional<std::string> s) {
  return s.has_value() ? Value::String(std::move(*s)) : Value::Null();
}

// One live session, read under its latches.
struct SessionSnapshot {
  uint64_t id = 0;
  uint64_t trx_id = 0;               // its transaction's id; 0 if none or not yet written/locked
  std::optional<std::string> query;  // the running statement, if any
  double query_seconds = 0;          // how long it has been running
  double idle_seconds = 0;           // since the last statement began (when idle)
  bool metadata_lock_wait = false;   // its statement waits for a metadata lock
  bool table_lock_wait = false;      // ... or for a MyISAM table's table lock
  StageSnapshot stage;               // a running DDL's stage and its progress (none when idle)
  std::string database;              // its current database; empty: none
  // Transaction::metadata_lock_owner() of its transaction and of its DDL's (0: none).
  uint64_t mdl_owner = 0, ddl_mdl_owner = 0;
};

// The live sessions, by id. Takes sessions_latch, then each session's txn_latch and query_latch
// one at a time (the session code never holds them while calling in here).
std::vector<SessionSnapshot> SnapshotSessions(const ExecContext& ctx);
// The session whose transaction (or DDL's) owns metadata locks as `owner`, or null.
const SessionSnapshot* SessionOfMdlOwner(const std::vector<SessionSnapshot>& sessions,
                                         uint64_t owner);
// The session whose transaction has id `trx_id`, or null.
const SessionSnapshot* SessionOfTrx(const std::vector<SessionSnapshot>& sessions, uint64_t trx_id);

// "YYYY-MM-DD HH:MM:SS" in local time, as MySQL prints DATETIMEs and the monitor's header.
std::string FormatLocalTime(int64_t unix_seconds);
int64_t UnixNow();
int64_t UnixSeconds(std::chrono::system_clock::time_point t);

// Turns DataLocks into data_locks' columns. Caches catalog and keyspace look-ups, so one
// describer serves one statement.
class LockDescriber {
 public:
  explicit LockDescriber(const ExecContext& ctx) : ctx_(ctx) {}

  // OBJECT_NAME: the table (or the keyspace's own name when no table owns it).
  std::string TableName(const DataLock& l);
  // OBJECT_SCHEMA: the table's database (`test` for a keyspace no table owns).
  std::string SchemaName(const DataLock& l);
  // INDEX_NAME: "PRIMARY", "GEN_CLUST_INDEX" or the index; nullopt for a table lock.
  std::optional<std::string> IndexName(const DataLock& l);
  // LOCK_DATA: nullopt (NULL) for a table lock or a key the engine could not read back;
  // "supremum pseudo-record"; else the key as MySQL prints it: "'abc', 17", "0x000000000201".
  std::optional<std::string> LockData(const DataLock& l);
  // ENGINE_LOCK_ID: "<trx>:<space>:<page>:<heap>:<struct>" for a record lock (minnow has one
  // tablespace: space 0), "<trx>:<table id>:<struct>" for a table lock. <struct> names the
  // (transaction, page or table, mode, status) lock struct, as InnoDB's lock pointer does, so
  // the same request has the same id in data_locks and data_lock_waits.
  std::string EngineLockId(const DataLock& l);
  // OBJECT_INSTANCE_BEGIN: the <struct> part of the lock id.
  uint64_t LockStructId(const DataLock& l);
  // The keyspace's id (InnoDB's table id), 0 if it is gone.
  uint32_t KeyspaceId(const std::string& keyspace);
  // InnoDB's words for a lock in the monitor: "RECORD LOCKS space id 0 page no 4 n bits 0
  // index `j` of table `test`.`t` trx id 12 lock_mode X locks rec but not gap waiting" or
  // "TABLE LOCK table `test`.`t` trx id 12 lock mode IX".
  std::string MonitorLine(const DataLock& l);

 private:
  struct KeyspaceInfo {
    bool has_table = false;
    ::minnow::sql::TableName table;
    std::string index;
    std::shared_ptr<const OpenTable> open;  // for decoding keys
  };
  const KeyspaceInfo& Describe(const std::string& keyspace);

  const ExecContext& ctx_;
  std::map<std::string, KeyspaceInfo> keyspaces_;
  std::map<std::string, uint32_t> keyspace_ids_;
};

// SHOW ENGINE INNODB STATUS's text.
SqlResult<std::string> InnodbStatusText(const ExecContext& ctx);

}  // namespace minnow::sql
