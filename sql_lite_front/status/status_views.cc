// SHOW STATUS, SHOW VARIABLES, SHOW ENGINES, SHOW PROCESSLIST, SHOW WARNINGS and SHOW ENGINE
// INNODB STATUS (whose text innodb_status.cc writes), and LIKE matching.
#include "sql_lite_front/status/status_views.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/collation.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/session/diagnostics.h"
#include "sql_lite_front/status/information_schema.h"
#include "sql_lite_front/status/status_views_internal.h"

namespace minnow::sql {

namespace {

using NameValues = std::vector<std::pair<std::string, std::string>>;

// Variable_name | Value, filtered by LIKE (case-insensitive for names, as MySQL), sorted.
StatementResult NameValueResult(NameValues list, const std::optional<std::string>& like) {
  std::sort(list.begin(), list.end());
  StatementResult r;
  r.has_result_set = true;
  r.columns = {"Variable_name", "Value"};
  const std::string pattern = like.has_value() ? ToLowerAscii(*like) : "";
  for (auto& [name, value] : list) {
    if (like.has_value() && !LikeMatch(ToLowerAscii(name), pattern)) continue;
    r.rows.push_back({std::move(name), std::move(value)});
  }
  return r;
}

NameValues StatusList(const ExecContext& ctx, bool global) {
  StatusCounters c;
  if (global || ctx.session == nullptr) {
    c = ctx.engine->GlobalStatus();
  } else {
    LatchGuard g(ctx.session->status_latch);
    c = ctx.session->status;
  }
  // The running statement's counts reach the totals only when it ends; show them now.
  if (ctx.counts != nullptr) c.Add(*ctx.counts);
  // Innodb_* are global in MySQL whatever the scope.
  const StatusCounters all = ctx.engine->GlobalStatus();
  StatusCounters innodb = all;
  if (ctx.counts != nullptr) innodb.Add(*ctx.counts);
  const DatabaseStats db = ctx.db->stats();

  size_t connected = 0, running = 0;
  for (const SessionSnapshot& s : SnapshotSessions(ctx)) {
    ++connected;
    running += s.query.has_value() ? 1 : 0;
  }
  const auto uptime = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::steady_clock::now() - ctx.engine->started)
                          .count();
  auto n = [](uint64_t v) { return std::to_string(v); };
  const uint64_t lock_ms = db.row_lock_time_us / 1000;
  return {
      {"Com_begin", n(c.com_begin)},
      {"Com_check", n(c.com_check)},
      {"Com_commit", n(c.com_commit)},
      {"Com_delete", n(c.com_delete)},
      {"Com_insert", n(c.com_insert)},
      {"Com_rollback", n(c.com_rollback)},
      {"Com_select", n(c.com_select)},
      {"Com_set_option", n(c.com_set_option)},
      {"Com_update", n(c.com_update)},
      {"Handler_commit", n(c.handler_commit)},
      {"Handler_delete", n(c.handler_delete)},
      {"Handler_read_first", n(c.handler_read_first)},
      {"Handler_read_key", n(c.handler_read_key)},
      {"Handler_read_last", n(c.handler_read_last)},
      {"Handler_read_next", n(c.handler_read_next)},
      {"Handler_read_prev", n(c.handler_read_prev)},
      {"Handler_read_rnd_next", n(c.handler_read_rnd_next)},
      {"Handler_rollback", n(c.handler_rollback)},
      {"Handler_update", n(c.handler_update)},
      {"Handler_write", n(c.handler_write)},
      {"Innodb_buffer_pool_pages_dirty", n(db.dirty_pages)},
      {"Innodb_buffer_pool_pages_total", n(db.pool_frames)},
      {"Innodb_buffer_pool_read_ahead", n(db.pool_read_ahead)},
      {"Innodb_buffer_pool_read_ahead_evicted", n(db.pool_read_ahead_evicted)},
      {"Innodb_buffer_pool_read_requests", n(db.pool_hits + db.pool_misses)},
      {"Innodb_buffer_pool_reads", n(db.pool_reads - db.pool_read_ahead)},
      {"Innodb_data_fsyncs", n(db.log_syncs)},
      {"Innodb_data_reads", n(db.pool_read_calls)},
      {"Innodb_data_writes", n(db.pool_writes + db.log_writes)},
      {"Innodb_deadlocks", n(db.deadlocks)},  // MariaDB's name; MySQL counts them elsewhere
      {"Innodb_row_lock_current_waits", n(db.row_lock_current_waits)},
      {"Innodb_row_lock_time", n(lock_ms)},
      {"Innodb_row_lock_time_avg", n(db.row_lock_waits == 0 ? 0 : lock_ms / db.row_lock_waits)},
      {"Innodb_row_lock_time_max", n(db.row_lock_time_max_us / 1000)},
      {"Innodb_row_lock_waits", n(db.row_lock_waits)},
      {"Innodb_rows_deleted", n(innodb.innodb_rows_deleted)},
      {"Innodb_rows_inserted", n(innodb.innodb_rows_inserted)},
      {"Innodb_rows_read", n(innodb.innodb_rows_read)},
      {"Innodb_rows_updated", n(innodb.innodb_rows_updated)},
      {"Questions", n(c.questions)},
      {"Select_range", n(c.select_range)},
      {"Select_scan", n(c.select_scan)},
      {"Sort_rows", n(c.sort_rows)},
      // Global in MySQL: the heap tables' thr_lock grants and waits, as the engine counts them
      // (session/table_locks.h).
      {"Table_locks_immediate", n(db.table_locks_immediate)},
      {"Table_locks_waited", n(db.table_locks_waited)},
      {"Threads_connected", n(connected)},
      {"Threads_running", n(running)},
      {"Uptime", n(static_cast<uint64_t>(uptime))},
  };
}

StatementResult Engines() {
  StatementResult r;
  r.has_result_set = true;
  r.columns = {"Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"};
  // The two engines minnow runs; XA is not implemented. SAVEPOINT works on InnoDB tables.
  r.rows.push_back({"InnoDB", "DEFAULT", "Supports transactions, row-level locking (minnow)", "YES",
                    "NO", "YES"});
  r.rows.push_back(
      {"MyISAM", "YES", "Non-transactional, table-level locking (minnow)", "NO", "NO", "NO"});
  return r;
}

SqlResult<StatementResult> ProcesslistResult(ExecContext& ctx) {
  SQL_ASSIGN_OR_RETURN(SystemTable t, ReadSystemTable(ctx, {"information_schema", "processlist"}));
  StatementResult r;
  r.has_result_set = true;
  r.columns = {"Id", "User", "Host", "db", "Command", "Time", "State", "Info"};
  for (const Row& row : t.rows) {
    std::vector<std::optional<std::string>> out;
    for (const Value& v : row) {
      if (v.is_null()) {
        out.emplace_back(std::nullopt);
      } else if (v.is_int()) {
        out.emplace_back(std::to_string(v.as_int()));
      } else {
        out.emplace_back(v.as_string());
      }
    }
    r.rows.push_back(std::move(out));
  }
  return r;
}

}  // namespace

SqlResult<StatementResult> ExecuteShowStatus(ExecContext& ctx, const ShowStmt& stmt) {
  const bool global = stmt.scope == VarScope::kGlobal;
  switch (stmt.kind) {
    case ShowStmt::Kind::kStatus:
      return NameValueResult(StatusList(ctx, global), stmt.like);
    case ShowStmt::Kind::kVariables:
      return NameValueResult(global || ctx.session == nullptr ? ctx.engine->variables.ListGlobal()
                                                              : ctx.session->vars.List(),
                             stmt.like);
    case ShowStmt::Kind::kEngineInnodbStatus: {
      SQL_ASSIGN_OR_RETURN(std::string text, InnodbStatusText(ctx));
      StatementResult r;
      r.has_result_set = true;
      r.columns = {"Type", "Name", "Status"};
      r.rows.push_back({"InnoDB", "", std::move(text)});
      return r;
    }
    case ShowStmt::Kind::kEngines:
      return Engines();
    case ShowStmt::Kind::kWarnings: {
      StatementResult r;
      r.has_result_set = true;
      r.columns = {"Level", "Code", "Message"};
      for (const SqlWarning& w : ctx.session->diagnostics)
        r.rows.push_back({w.level, std::to_string(w.code), w.message});
      return r;
    }
    case ShowStmt::Kind::kErrors: {
      StatementResult r;
      r.has_result_set = true;
      r.columns = {"Level", "Code", "Message"};
      for (const SqlWarning& w : ctx.session->diagnostics)
        if (w.level == "Error") r.rows.push_back({w.level, std::to_string(w.code), w.message});
      return r;
    }
    case ShowStmt::Kind::kWarningCount:
    case ShowStmt::Kind::kErrorCount: {
      const bool warnings = stmt.kind == ShowStmt::Kind::kWarningCount;
      StatementResult r;
      r.has_result_set = true;
      r.columns = {warnings ? "@@session.warning_count" : "@@session.error_count"};
      const std::vector<SqlWarning>& d = ctx.session->diagnostics;
      r.rows.push_back({std::to_string(warnings ? WarningCount(d) : ErrorCount(d))});
      return r;
    }
    case ShowStmt::Kind::kProcesslist:
      return ProcesslistResult(ctx);
    case ShowStmt::Kind::kDatabases: {
      std::string column = "Database";
      if (stmt.like.has_value()) column += " (" + *stmt.like + ")";
      StatementResult r;
      r.has_result_set = true;
      r.columns = {column};
      for (const DatabaseDef& d : ListedDatabases(*ctx.catalog)) {
        if (stmt.like.has_value() && !LikeMatch(ToLowerAscii(d.name), ToLowerAscii(*stmt.like)))
          continue;
        r.rows.push_back({d.name});
      }
      return r;
    }
    case ShowStmt::Kind::kCreateDatabase: {
      std::optional<DatabaseDef> d;
      for (DatabaseDef& listed : ListedDatabases(*ctx.catalog))
        if (EqualsNoCase(listed.name, stmt.database)) d = std::move(listed);
      if (!d.has_value()) return SqlErr(kErBadDb, "Unknown database '", stmt.database, "'");
      // MySQL's store_create_db: COLLATE when the collation is not the charset's default, and
      // always for utf8mb4_0900_ai_ci.
      const Collation* c = FindCollation(d->collation);
      std::string text = "CREATE DATABASE ";
      if (stmt.if_not_exists) text += "/*!32312 IF NOT EXISTS*/ ";
      text += QuoteIdentifier(d->name) + " /*!40100 DEFAULT CHARACTER SET " + d->charset;
      if (c == nullptr || !c->is_default || d->collation == "utf8mb4_0900_ai_ci")
        text += " COLLATE " + d->collation;
      text += " */ /*!80016 DEFAULT ENCRYPTION='N' */";
      StatementResult r;
      r.has_result_set = true;
      r.columns = {"Database", "Create Database"};
      r.rows.push_back({stmt.database, text});
      return r;
    }
    case ShowStmt::Kind::kCollation: {
      // The collations minnow implements (collation.h), in MySQL 8.0's columns.
      StatementResult r;
      r.has_result_set = true;
      r.columns = {"Collation", "Charset", "Id", "Default", "Compiled", "Sortlen", "Pad_attribute"};
      for (const Collation& c : AllCollations()) {
        if (stmt.like.has_value() && !LikeMatch(ToLowerAscii(c.name), ToLowerAscii(*stmt.like))) {
          continue;
        }
        const bool uca = c.kind == Collation::Kind::kIcu && !c.pad_space;  // the 0900 ones
        r.rows.push_back({std::string(c.name), std::string(c.charset), std::to_string(c.id),
                          c.is_default ? "Yes" : "", "Yes", uca ? "0" : "1",
                          std::string(c.pad_attribute())});
      }
      return r;
    }
    default:
      return SqlErr(kErUnknownError, "ExecuteShowStatus: not a status statement");
  }
}

}  // namespace minnow::sql
