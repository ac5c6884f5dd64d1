#pragma once
// --compare-mariadb: a private MariaDB server for one experiment run, so that MariaDB's figures
// are measured in the same run, on the same machine, with the same statements as minnow's.
//
// Start() needs Debian's mariadb-server (mariadbd, mariadb-install-db); it makes a data
// directory under $TMPDIR (mariadb-install-db), starts mariadbd on it listening on a free
// loopback port only (no networking beyond 127.0.0.1, grant tables skipped: the server lives as
// long as the experiment and holds only its tables), and waits until it answers. The destructor
// shuts it down and removes the directory. Connections speak to it through libmariadb.
//
// Server settings: MariaDB's defaults except innodb_buffer_pool_size (the caller's, so that the
// table is in memory as minnow's is) and no binary log (MariaDB's default too).

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tools/experiments/sql_connection.h"

struct st_mysql;  // libmariadb's MYSQL

namespace minnow::experiments {

class MariaDbConnection;

class MariaDbPeer {
 public:
  // A started server, or nullptr after printing why not (mariadb-server not installed, the
  // server did not start within a minute: its log's tail is printed).
  static std::unique_ptr<MariaDbPeer> Start(const char* program, uint64_t buffer_pool_mib);
  ~MariaDbPeer();
  MariaDbPeer(const MariaDbPeer&) = delete;
  MariaDbPeer& operator=(const MariaDbPeer&) = delete;

  // A new connection to database `test` (created at start). Exits on failure, as Run does.
  std::unique_ptr<MariaDbConnection> Connect();
  // "10.11.19-MariaDB-0+deb12u1", as SELECT VERSION() says.
  const std::string& version() const { return version_; }

 private:
  MariaDbPeer(const char* program, std::string dir, uint16_t port, pid_t pid)
      : program_(program), dir_(std::move(dir)), port_(port), pid_(pid) {}
  void Stop();

  const char* program_;
  std::string dir_;  // the data directory and the server's log
  uint16_t port_;
  pid_t pid_;
  std::string version_;
};

// One connection to a MariaDbPeer (autocommit on, as a client's). Used by one thread at a time;
// REQUIRES: closed (destroyed) before its peer.
class MariaDbConnection final : public SqlConnection {
 public:
  ~MariaDbConnection() override;
  // Runs `sql` and returns all its rows; exits on an error (SqlConnection::Run).
  sql::StatementResult Run(std::string_view sql) override;
  RunOutcome TryRun(std::string_view sql) override;
  // KILL QUERY from a connection of its own.
  void Cancel() override;
  std::string name() const override { return "MariaDB " + version_; }
  // Sleeps past InnoDB's 100 ms information_schema cache period.
  void SettleStatusViews() override;
  // The connection's thread id (MariaDB's CONNECTION_ID()).
  uint64_t thread_id() const;

 private:
  friend class MariaDbPeer;
  MariaDbConnection(st_mysql* mysql, const char* program, std::string version, uint16_t port);
  st_mysql* mysql_;
  const char* program_;
  const std::string version_;
  const uint16_t port_;  // the peer's, for Cancel's connection
  const uint64_t thread_id_;
};

}  // namespace minnow::experiments
