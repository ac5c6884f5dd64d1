#pragma once
// System variables: SET [GLOBAL|SESSION] x = v, @@x, SHOW VARIABLES. A registry of the
// variables minnow has (each with scope, type, range and default), global values for the
// engine, and each session's values (copied from the globals when the session starts, as MySQL
// does).
//
// Variables (name: type, scope, meaning):
//   alter_copy_lock_rows: bool, session+global, default ON. ON: a copy-ALTER (and OPTIMIZE,
//     CREATE INDEX's build) reads its source with share record locks, as MySQL 8.0's copy does;
//     OFF: by a consistent read with no row locks (the exclusive metadata lock the statement
//     holds already keeps every writer out, so the rows it reads cannot change).
//   autocommit: bool, session+global
//   transaction_isolation (alias tx_isolation): enum READ-UNCOMMITTED | READ-COMMITTED |
//     REPEATABLE-READ | SERIALIZABLE, session+global
//   transaction_read_only: bool, session+global (read-only statements only; parsed, kept)
//   innodb_lock_wait_timeout: int 1..1073741824 seconds, session+global
//   lock_wait_timeout: int 1..31536000 seconds (metadata and table locks), session+global
//   innodb_snapshot_isolation: bool, session+global, default OFF (MariaDB's): ON, a locking
//     read, UPDATE or DELETE under REPEATABLE READ or SERIALIZABLE that meets a row changed
//     since the transaction's read view is 1020 and rolls the transaction back
//     (TransactionOptions::snapshot_isolation); read at each statement
//   concurrent_insert: enum NEVER | AUTO | ALWAYS (0, 1, 2), global (MyISAM tables' inserts)
//   low_priority_updates: bool, session+global: MyISAM writes take WRITE_LOW_PRIORITY locks
//   max_write_lock_count: int 1..2^63-1, global (thr_lock's; the default: no limit)
//   group_concat_max_len: int 4..2^63-1 bytes, session+global, default 1024: the longest
//     GROUP_CONCAT() result (cut there, with warning 1260)
//   progress_report_time: int 0..4294967295 seconds, session+global, default 5 (MariaDB's):
//     minnowd's progress reports to a client that asks for them go this far apart, the
//     larger of the global and the session value; 0 in either: none
//   sql_mode: string, session+global: any set of the modes minnow honours (variables.cc's
//     kSqlModes), printed in MySQL's order; any other word is 1231
//   sql_notes: bool, session+global, default ON. OFF: a statement's notes (warnings of level
//     Note) are not kept, neither counted nor shown by SHOW WARNINGS (SqlSession::Execute)
//   time_zone: string, session+global, default SYSTEM: what NOW() reads the clock in (SYSTEM:
//     the process's local time; '+HH:MM': UTC plus the offset). Named zones are 1298.
//   unique_checks: bool, session+global. Accepted and kept; minnow checks every unique key
//     whatever it says, as MySQL allows ("InnoDB may still check")
//   foreign_key_checks: bool, session+global. minnow has no foreign keys (FOREIGN KEY is
//     refused), so there is nothing it could check or skip
//   sql_quote_show_create: bool, session+global: ON only (SET to OFF is 1235)
//   character_set_client, character_set_connection, character_set_results: utf8mb4 or
//     utf8mb3 (utf8), as SET NAMES; _results also binary (results as stored: UTF-8)
//   collation_connection: utf8mb4_0900_ai_ci only (SET to another collation is 1235)
//   innodb_deadlock_detect, innodb_buffer_pool_size, innodb_page_size,
//   innodb_flush_log_at_trx_commit, innodb_autoinc_lock_mode, version, version_comment,
//   max_allowed_packet, character_set_database/_server, collation_database/_server: read-only
//   (1238 on SET), from the database's options where they are real.
//   warning_count, error_count: read-only, session-only, not kept here: the session's
//     diagnostics area answers them (session/diagnostics.h); SET is 1238.
// Errors: 1193 unknown variable, 1231 bad value, 1232 wrong type, 1229 SET SESSION of a
// global-only variable, 1238 read-only.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/latch.h"
#include "minnow/db.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/temporal.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

class SessionVariables;

// max_allowed_packet (read-only, MySQL's default): also the largest text a string function
// may build (REPEAT, LPAD, ...: 1301 beyond it).
inline constexpr int64_t kMaxAllowedPacket = 64 << 20;

// The sql_mode words that change what statements do (the rest is always in force).
struct SqlModeFlags {
  bool pipes_as_concat = false;
  bool ansi_quotes = false;
  bool only_full_group_by = false;
  bool no_unsigned_subtraction = false;
  // NO_AUTO_VALUE_ON_ZERO: 0 into an AUTO_INCREMENT column is stored as 0 (only NULL takes the
  // next value), as mysqldump's files need for a row whose key is 0.
  bool no_auto_value_on_zero = false;
  // STRICT_TRANS_TABLES or STRICT_ALL_TABLES: a bad value stored into a column is an error;
  // without either it is converted, with a warning (table_def.h's StoreRules).
  bool strict = false;
  // STRICT_ALL_TABLES: that error in every row of a write to a MyISAM table too (the rows
  // before it stay written). Under STRICT_TRANS_TABLES alone a bad value in a MyISAM table
  // the statement already changed is converted, as without strict mode.
  bool strict_all_tables = false;
  // NO_ZERO_IN_DATE / NO_ZERO_DATE: a date with a zero part / the zero date is a bad value to
  // store (table_def.h's StoreRules).
  bool no_zero_in_date = false;
  bool no_zero_date = false;
  // NO_ENGINE_SUBSTITUTION: CREATE TABLE ... ENGINE=unknown is error 1286; without it the
  // table gets InnoDB (warnings 1286 and 1266), and ALTER TABLE keeps its engine (1286).
  bool no_engine_substitution = false;
};

class SystemVariables {
 public:
  // Defaults; the read-only ones from `options` (buffer pool size, deadlock detection, ...).
  explicit SystemVariables(const Options& options);
  // Thread-safe.
  SqlResult<Value> GetGlobal(std::string_view name) const;
  SqlStatus SetGlobal(std::string_view name, const Value& v);
  // SET GLOBAL name = DEFAULT: the compiled-in default (1238 for a read-only variable).
  SqlStatus SetGlobalToDefault(std::string_view name);
  SessionVariables NewSession() const;
  // (name, value as SHOW VARIABLES prints it), sorted by name, global values.
  std::vector<std::pair<std::string, std::string>> ListGlobal() const;

 private:
  friend class SessionVariables;
  mutable Latch latch_;
  std::map<std::string, Value, std::less<>> global_ GUARDED_BY(latch_);
  std::map<std::string, Value, std::less<>> defaults_;  // for SET x = DEFAULT; never changes
};

class SessionVariables {
 public:
  // @@name / @@session.name: the session value (the global one for a global-only variable).
  SqlResult<Value> Get(std::string_view name) const;
  // SET [SESSION] name = v (validated and normalized: "read-committed" -> "READ-COMMITTED",
  // ON/1/true -> 1).
  SqlStatus Set(std::string_view name, const Value& v);
  // SET [SESSION] name = DEFAULT: the global value (1229 for a global-only variable, 1238 for a
  // read-only one).
  SqlStatus SetToDefault(std::string_view name);
  // SET NAMES cs [COLLATE c] and SET CHARACTER SET cs: the charset the client sends and is sent.
  // minnow's text is UTF-8 throughout, so only utf8mb4 (DEFAULT) and utf8mb3 ("utf8") are
  // taken; a utf8mb3 session's results have each 4-byte character as '?', as MySQL converts
  // them (SqlSession::Execute). A COLLATE other than the connection collation
  // (ConnectionCollation) is 1235, as is any other charset minnow lacks; 1115 for a name MySQL
  // does not know either. Sets character_set_client, _connection and _results.
  SqlStatus SetNames(std::string_view charset, std::string_view collation);
  // "utf8mb4", "utf8mb3" or "binary": the session's character_set_results.
  std::string results_charset() const;
  // (name, value) sorted, as SHOW SESSION VARIABLES prints them.
  std::vector<std::pair<std::string, std::string>> List() const;

  // Typed shortcuts for the session.
  bool alter_copy_lock_rows() const;
  bool autocommit() const;
  bool sql_notes() const;
  bool low_priority_updates() const;
  bool innodb_snapshot_isolation() const;
  SqlModeFlags sql_mode() const;  // of the session's sql_mode, kept as it is set
  TimeZone time_zone() const;     // the session's time_zone (NOW(), TIMESTAMP columns)
  IsolationLevel isolation() const;
  uint32_t innodb_lock_wait_timeout_s() const;
  uint32_t lock_wait_timeout_s() const;

  // Parses an isolation level name ("REPEATABLE-READ", "repeatable read", ...); 1231 if bad.
  static SqlResult<IsolationLevel> ParseIsolation(const Value& v);
  static const char* IsolationName(IsolationLevel level);  // "REPEATABLE-READ"

 private:
  friend class SystemVariables;
  explicit SessionVariables(const SystemVariables* global) : global_(global) {}
  const SystemVariables* global_;
  std::map<std::string, Value, std::less<>> session_;
  SqlModeFlags sql_mode_;  // session_["sql_mode"]'s words
};

}  // namespace minnow::sql
