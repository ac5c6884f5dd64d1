#pragma once
// A connection that runs statements given as text, so that one experiment drives minnow's SQL
// front and, with --compare-mariadb, a private MariaDB server (mariadb_peer.h) through the same
// code.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "sql_lite_front/sql_engine.h"

namespace minnow::experiments {

// How a statement run with TryRun ended.
struct RunOutcome {
  uint16_t code = 0;  // MySQL's error number (1205, 1213, 1317, ...); 0: it succeeded
  std::string message;
  bool ok() const { return code == 0; }
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  // Runs `sql` and returns its result (rows as text, NULL as nullopt). On an error prints it,
  // prefixed with the program's name, and exits: a measurement of a statement that failed means
  // nothing.
  virtual sql::StatementResult Run(std::string_view sql) = 0;
  // Runs `sql`, discarding its rows; an error is returned, not fatal (a workload's expected
  // lock wait timeouts and deadlocks).
  virtual RunOutcome TryRun(std::string_view sql) = 0;
  // From any thread: ends the statement running now, if any, with 1317 (KILL QUERY).
  virtual void Cancel() = 0;
  // "minnow" or "MariaDB 10.11.x": whose figures a result is.
  virtual std::string name() const = 0;
  // Returns once information_schema's lock views show what the connection holds now. minnow's
  // are read live; InnoDB refreshes its copy of innodb_trx and data_locks at most every 100 ms
  // (trx_i_s_cache), so a read right after the statement would show the previous one's locks.
  virtual void SettleStatusViews() {}
};

// A minnow SQL session as a SqlConnection. REQUIRES: a session passed by pointer outlives this.
class MinnowConnection final : public SqlConnection {
 public:
  MinnowConnection(sql::SqlSession* session, const char* program)
      : session_(session), program_(program) {}
  MinnowConnection(std::unique_ptr<sql::SqlSession> session, const char* program)
      : owned_(std::move(session)), session_(owned_.get()), program_(program) {}
  sql::StatementResult Run(std::string_view sql) override {
    sql::SqlResult<sql::StatementResult> r = session_->Execute(sql);
    if (!r.ok()) {
      std::fprintf(stderr, "%s: %s\n  in: %.*s\n", program_, r.error().ToString().c_str(),
                   static_cast<int>(sql.size()), sql.data());
      std::exit(1);
    }
    return std::move(r).value();
  }
  RunOutcome TryRun(std::string_view sql) override {
    sql::SqlResult<sql::StatementResult> r = session_->Execute(sql);
    if (r.ok()) return {};
    return {r.error().code, r.error().ToString()};
  }
  void Cancel() override { session_->Cancel(); }
  std::string name() const override { return "minnow"; }

 private:
  std::unique_ptr<sql::SqlSession> owned_;
  sql::SqlSession* session_;
  const char* program_;
};

// A new connection to the engine under test (minnow's SQL front or the MariaDB peer).
using Connect = std::function<std::unique_ptr<SqlConnection>()>;

// The number in row `row`, column `col` of `r`; 0 where there is no such cell or it is NULL.
inline uint64_t CellNumber(const sql::StatementResult& r, size_t row, size_t col) {
  if (row >= r.rows.size() || col >= r.rows[row].size() || !r.rows[row][col]) return 0;
  return std::strtoull(r.rows[row][col]->c_str(), nullptr, 10);
}

// SHOW GLOBAL STATUS LIKE each of `likes`, as name -> value.
inline std::map<std::string, uint64_t> GlobalStatus(SqlConnection* s,
                                                    std::initializer_list<std::string_view> likes) {
  std::map<std::string, uint64_t> m;
  for (std::string_view like : likes) {
    const sql::StatementResult r =
        s->Run(std::string("SHOW GLOBAL STATUS LIKE '").append(like).append("'"));
    for (size_t i = 0; i < r.rows.size(); ++i) {
      if (r.rows[i].size() >= 2 && r.rows[i][0]) m[*r.rows[i][0]] = CellNumber(r, i, 1);
    }
  }
  return m;
}

// Ends a measured run: cancels the statements of `sessions` again and again until `running`
// (their loops still going, each decrementing it as it returns) is 0. A session waiting for a
// lock, or in a long statement, would otherwise go on until the lock wait timeout.
inline void CancelUntilStopped(const std::vector<std::unique_ptr<SqlConnection>>& sessions,
                               const std::atomic<size_t>& running) {
  while (running.load() > 0) {
    for (const auto& s : sessions) s->Cancel();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace minnow::experiments
