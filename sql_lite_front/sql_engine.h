#pragma once
// The SQL front's entry point: a SqlEngine over an open Database, and SqlSessions that run
// statements as a MySQL connection does (autocommit, BEGIN/COMMIT, session variables).
//
//   ASSIGN_OR_RETURN(auto db, minnow::Database::Open({.path = "my.minnow"}));
//   auto engine = minnow::sql::SqlEngine::Open(db.get());       // SqlResult
//   auto session = engine->NewSession();
//   auto r = session->Execute("SELECT count(i) FROM sample");  // SqlResult<StatementResult>
//
// Thread safety: a SqlEngine is thread-safe. A SqlSession runs one statement at a time and
// belongs to one thread, except Cancel(), waiting_for_lock(), progress_rows() and id(), which
// any thread may call. Sessions must be destroyed before their engine, the engine before the
// Database.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/stage_report.h"

namespace minnow::sql {

// What a statement returned: a result set (has_result_set) or an OK packet's fields.
struct StatementResult {
  bool has_result_set = false;
  std::vector<std::string> columns;
  // What each column's values are, for clients that type them (the wire protocol). A SELECT's
  // bare column of a table has its declared type (integers kInt or kUInt when UNSIGNED, DOUBLE
  // kDouble, DECIMAL kDecimal, DATE kDate, DATETIME kDateTime, TIMESTAMP kTimestamp, YEAR
  // kYear, strings kText); any other item the kind every non-NULL value of the result shares
  // (kInt, kUInt, kDouble, kDecimal, kDate, kDateTime, kYear), else kText (no such value, or
  // kinds that differ). A BLOB column is kBinary: bytes, not text in the session's charset.
  // Every value is printed as MySQL's text protocol sends it (a DATETIME's fraction with its
  // fsp's digits). Empty when the result was built as text only (SHOW and status views): all
  // kText.
  enum class ColumnType : uint8_t {
    kText,
    kInt,
    kUInt,
    kDouble,
    kDecimal,
    kBinary,
    kDate,
    kDateTime,
    kTimestamp,
    kYear,
    kTime,
  };
  std::vector<ColumnType> column_types;
  // What a column definition on the wire tells beyond the type, from the declaration of a
  // result column that is a bare column of a table (a SELECT's, not a UNION's); nullopt for
  // other items. Empty when not known.
  struct DeclaredColumn {
    uint8_t fsp = 0;  // DATETIME(fsp), TIMESTAMP(fsp), TIME(fsp): digits after the point
    bool is_enum = false;
    bool is_set = false;
    // ENUM: its longest member's characters; SET: all its members' and the commas between
    // them (MySQL's display width of the column).
    uint32_t chars = 0;
  };
  std::vector<std::optional<DeclaredColumn>> declared_columns;
  std::vector<std::vector<std::optional<std::string>>> rows;  // nullopt = NULL
  uint64_t affected_rows = 0;
  uint64_t last_insert_id = 0;
  std::string
      info;  // "Records: 3  Duplicates: 0  Warnings: 0", "Rows matched: 1  Changed: 1  Warnings: 0"
  std::vector<SqlWarning> warnings;
  double seconds = 0;  // wall time of the statement
};

class SqlSession;
struct SqlEngineState;  // sql_lite_front/engine_state.h

class SqlEngine {
 public:
  // Opens the SQL catalog of `db` (TableCatalog::Open). REQUIRES: db outlives the engine.
  static SqlResult<std::unique_ptr<SqlEngine>> Open(Database* db);
  ~SqlEngine();
  // A new connection, with the global variables' current values as its session values.
  std::unique_ptr<SqlSession> NewSession();
  // COM_RESET_CONNECTION and COM_CHANGE_USER: ends `old` as its destructor does (rolls back
  // its transaction, releases its row, table and metadata locks and LOCK TABLES) and returns
  // a fresh session with the same id (CONNECTION_ID() does not change): session variables from
  // the globals' current values, no LAST_INSERT_ID, no warnings, session status from zero (the
  // global status keeps what it counted). REQUIRES: `old` came from this engine and is idle.
  std::unique_ptr<SqlSession> RenewSession(std::unique_ptr<SqlSession> old);
  Database* db() const;

 private:
  explicit SqlEngine(std::unique_ptr<SqlEngineState> state);
  std::unique_ptr<SqlSession> SessionWithId(uint64_t id);
  std::unique_ptr<SqlEngineState> state_;
};

struct SessionState;  // sql_lite_front/session_state.h
class PreparedParse;  // sql_lite_front/parse/prepared_parse.h
class Value;          // sql_lite_front/value.h

class SqlSession {
 public:
  ~SqlSession();  // rolls back an open transaction, releases LOCK TABLES
  // Parses and runs one statement (a trailing ';' is allowed). On an error the statement has
  // changed nothing; a deadlock (1213) has rolled back the whole transaction.
  SqlResult<StatementResult> Execute(std::string_view sql);
  // The result columns `sql` would have (names and column_types, no rows), without running it:
  // a SELECT is parsed and bound, never executed, so it begins no transaction, takes no lock of
  // any kind and counts in no status variable. A statement other than a SELECT describes as
  // no result set. Errors: the parse and bind errors Execute would give. COM_STMT_PREPARE's.
  SqlResult<StatementResult> Describe(std::string_view sql);

  // Prepared statements (COM_STMT_PREPARE / EXECUTE), parsed once: Prepare parses `sql` with
  // '?' placeholders where a value or a LIMIT / OFFSET count may stand, in the session's
  // current sql_mode and database, which the statement keeps (as MySQL's does). Errors: the
  // parse errors Execute would give, now rather than at each execution.
  SqlResult<std::unique_ptr<PreparedParse>> Prepare(std::string_view sql);
  // Runs `stmt` (from this session's Prepare) with params[i] bound to placeholder i, as
  // Execute runs a statement (counted, its diagnostics kept; `text` is what the processlist
  // shows meanwhile). Bound and planned afresh each time, so it sees DDL since the last run.
  // Errors: Execute's; 1210 for a LIMIT / OFFSET value that is not a non-negative integer.
  // REQUIRES: params.size() == stmt->param_count().
  SqlResult<StatementResult> ExecutePrepared(std::string_view text, PreparedParse* stmt,
                                             std::span<const Value> params);
  // Describe for `stmt`, every placeholder 0.
  SqlResult<StatementResult> DescribePrepared(PreparedParse* stmt);

  // From any thread: the running statement stops at its next row or lock wait with 1317
  // "Query execution was interrupted" (KILL QUERY); a no-op when idle.
  void Cancel();
  // From any thread: true while the running statement waits for a row, table or metadata lock.
  bool waiting_for_lock() const;
  // From any thread: rows the running statement has read or written so far (for progress).
  uint64_t progress_rows() const;
  uint64_t id() const;  // the connection id (CONNECTION_ID(), PROCESSLIST_ID)
  bool in_transaction() const;
  bool autocommit() const;  // the session's @@autocommit; the session's thread only
  // "utf8mb4", "utf8mb3" (SET NAMES) or "binary" (SET character_set_results): the charset
  // results are sent in; the session's thread.
  std::string results_charset() const;
  // SET NAMES `charset` without running a statement (nothing counted): the handshake's charset.
  // Errors as SET NAMES gives them. The session's thread only.
  SqlStatus SetNames(std::string_view charset);
  // The diagnostics area after a statement the caller ran itself instead of Execute (minnowd's
  // CREATE USER, KILL ...): what SHOW WARNINGS then lists and @@warning_count counts. The
  // session's thread only.
  void SetDiagnostics(std::vector<SqlWarning> diagnostics);
  // Commits the open transaction, as a statement the caller runs itself and that causes an
  // implicit commit (minnowd's CREATE USER ...): counted as Handler_commit, not as a COMMIT
  // statement (Com_commit, Questions). Errors: the commit's. The session's thread only.
  SqlStatus CommitImplicitly();
  // The account USER() and CURRENT_USER() return ("root@localhost"); the session's thread only.
  void set_user(std::string user);
  // MariaDB's progress reports: while set, `listener` hears each batch of work a running
  // copy-ALTER, OPTIMIZE or CREATE INDEX records in its stage (stage_report.h), on the
  // session's thread, in the middle of Execute. Null: none. The session's thread only.
  void set_stage_listener(StageListener* listener);
  // How many seconds apart progress reports go: max(@@global.progress_report_time,
  // @@session.progress_report_time), 0 (none) when either is 0. The session's thread only.
  uint32_t progress_report_time_s() const;
  // The current database (USE; DATABASE()), empty when none is selected. Any thread.
  std::string database() const;
  // Makes `database` current as it is, without USE's check (minnowd's reset keeps the one the
  // old session had); empty: none. The session's thread only.
  void set_database(std::string database);

 private:
  friend class SqlEngine;
  explicit SqlSession(std::unique_ptr<SessionState> state);
  std::unique_ptr<SessionState> state_;
};

}  // namespace minnow::sql
