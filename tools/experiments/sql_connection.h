#pragma once
// A connection that runs statements given as text, so that one experiment drives minnow's SQL
// front and, with --compare-mariadb, a private MariaDB server (mariadb_peer.h) through the same
// code.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sql_lite_front/sql_engine.h"

namespace minnow::experiments {

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  // Runs `sql` and returns its result (rows as text, NULL as nullopt). On an error prints it,
  // prefixed with the program's name, and exits: a measurement of a statement that failed means
  // nothing.
  virtual sql::StatementResult Run(std::string_view sql) = 0;
  // "minnow" or "MariaDB 10.11.x": whose figures a result is.
  virtual std::string name() const = 0;
  // Returns once information_schema's lock views show what the connection holds now. minnow's
  // are read live; InnoDB refreshes its copy of innodb_trx and data_locks at most every 100 ms
  // (trx_i_s_cache), so a read right after the statement would show the previous one's locks.
  virtual void SettleStatusViews() {}
};

// A minnow SQL session as a SqlConnection. REQUIRES: the session outlives this.
class MinnowConnection final : public SqlConnection {
 public:
  MinnowConnection(sql::SqlSession* session, const char* program)
      : session_(session), program_(program) {}
  sql::StatementResult Run(std::string_view sql) override {
    sql::SqlResult<sql::StatementResult> r = session_->Execute(sql);
    if (!r.ok()) {
      std::fprintf(stderr, "%s: %s\n  in: %.*s\n", program_, r.error().ToString().c_str(),
                   static_cast<int>(sql.size()), sql.data());
      std::exit(1);
    }
    return std::move(r).value();
  }
  std::string name() const override { return "minnow"; }

 private:
  sql::SqlSession* session_;
  const char* program_;
};

}  // namespace minnow::experiments
