#pragma once
// sqltest's script language: a subset of mysqltest's, as MySQL users know it.
//
//   # a comment
//   CREATE TABLE t (i INT PRIMARY KEY, j INT);   statements end with ';' and may span lines
//   --error ER_DUP_ENTRY                         the next statement (or reap) must fail so
//   INSERT INTO t VALUES (1, 1), (1, 2);
//   --connect con1                               also --connect (con1,localhost,root,,)
//   --send UPDATE t SET j = 0 WHERE i = 1;       runs on con1's thread; the runner goes on
//   --connection default                         the first connection is "default"
//   --wait_blocked con1                          until con1's statement waits for a lock
//   COMMIT;
//   --connection con1
//   --reap                                       waits for con1's statement, prints its output
//
// Commands are lines starting with "--" (bare mysqltest forms such as "connection con1;" and
// "reap;" work too): connect, connection, disconnect, send, reap, error N[,N...] (numbers or
// ER_* names; 0 is success), sorted_result, echo TEXT, wait_blocked NAME, sleep SECONDS,
// replace_column N TEXT..., replace_regex /RE/REPL/..., vertical_results, horizontal_results,
// enable_/disable_ query_log, result_log, warnings, info.
//
// The output is what mysqltest writes to a .result file: every statement echoed as written with
// its ';', "connection NAME;" wherever the current connection changes (connect and connection),
// a result set as a tab-separated header and rows (NULL as "NULL"), nothing for an OK
// statement, "ERROR <SQLSTATE>: <message>" for an expected error, "Warnings:" lines after a
// statement with warnings (sqltest_result.h). The echo of statements and connection changes
// follows --disable_query_log / --enable_query_log.

#include <chrono>
#include <string>
#include <string_view>

#include "sql_lite_front/sql_engine.h"

namespace minnow::tools {

struct ScriptOptions {
  // How long --reap and a plain statement may take before the script fails (a hung test must
  // fail rather than hang CI); --wait_blocked's limit.
  std::chrono::milliseconds statement_timeout{60'000};
  std::chrono::milliseconds wait_blocked_timeout{10'000};
};

struct ScriptOutcome {
  std::string output;   // the .result text, up to where the script stopped
  std::string failure;  // "" if the script ran to its end, else "sqltest: line N: ..."
  // A statement ignored Cancel and its thread is still inside the engine: the caller must not
  // destroy the engine or the database (leak them) and should exit soon.
  bool abandoned = false;
};

// Runs `script` against `engine`, each connection a SqlSession on a thread of its own
// (SessionWorker). All connections are closed (open transactions rolled back) on return.
ScriptOutcome RunScript(std::string_view script, sql::SqlEngine* engine,
                        const ScriptOptions& options = {});

}  // namespace minnow::tools
