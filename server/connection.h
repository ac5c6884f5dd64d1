#pragma once
// One client connection: the handshake, then commands until COM_QUIT, a hang-up, KILL, an
// idle wait_timeout or a broken packet. Runs on its own thread (Server::Serve) with a SQL
// session of its own, whose id is the connection's thread id (CONNECTION_ID(), SHOW
// PROCESSLIST, KILL, innodb_trx.trx_mysql_thread_id).
//
// Every response is built whole and sent with one write. When the connection ends, its session
// is destroyed, which rolls back an open transaction and releases its locks.
//
// COM_RESET_CONNECTION and COM_CHANGE_USER replace the session with a fresh one of the same id
// (SqlEngine::RenewSession: the transaction rolls back, locks and LOCK TABLES go, session
// variables come from the globals, LAST_INSERT_ID and warnings clear) and close every prepared
// statement; the current database stays (reset) or becomes the one asked for (change user).
// COM_CHANGE_USER, as MySQL, ends the old session first and then authenticates the new account
// (mysql_native_password against the handshake's scramble, or an AuthSwitchRequest with a new
// one); when that fails the client gets 1045 and the connection ends.
//
// Progress reports (MariaDB's): when the client asked for them in its handshake
// (WantsProgressReports) and progress_report_time is not 0, a COM_QUERY statement that runs
// in a stage (copy-ALTER, OPTIMIZE, CREATE INDEX) gets progress packets while it runs, as
// MariaDB sends them: at the first work of each stage, then every progress_report_time
// seconds; written from the statement's own thread (the session's StageListener).
// The responses of earlier statements of a multi-statement batch are flushed whole before it,
// so a progress packet sits between the statement's command and its response, never inside
// another response.
//
// Thread safety: Run() belongs to the connection's thread; Kill() and CancelIfHungUp() may be
// called from any thread while the ConnectionRegistry's latch is held (the connection removes
// itself from the registry, under that latch, before its session goes).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "server/channel.h"
#include "server/packet.h"
#include "server/prepared_statement.h"
#include "server/protocol.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::server {

class Server;

class Connection : private sql::StageListener {
 public:
  Connection(Server* server, std::unique_ptr<Channel> channel);
  ~Connection() override;
  void Run();

  // KILL CONNECTION (query_only false: the statement stops and the connection ends) or KILL
  // QUERY (the running statement stops with 1317).
  void Kill(bool query_only);
  // The watcher's check: cancels the running statement when the client has hung up.
  void CancelIfHungUp();

 private:
  enum class Next : uint8_t { kContinue, kClose };

  bool Handshake();
  bool ReadPayload(std::string* payload, uint8_t* first_seq, int timeout_ms);
  Next Dispatch(std::string_view payload);
  void Query(std::string_view sql);
  // Runs one statement and appends its response; false when it failed (an ERR was appended).
  bool RunStatement(std::string_view sql, bool more_follow);
  bool RunAdmin(std::string_view sql, bool more_follow, bool* handled);
  // The session's StageListener while a statement runs with progress reports on: sends a
  // progress packet when one is due.
  void OnStageWork(const sql::StageReport& report) override;
  // An admin statement's error: the ERR packet, and the diagnostics area (SHOW WARNINGS) holds
  // it. Returns false.
  bool AdminError(uint16_t code, std::string_view sqlstate, std::string message);
  void FieldList(std::string_view payload);
  void Statistics();
  void ProcessKill(std::string_view payload);
  void SetOption(std::string_view payload);
  void ResetConnection();
  // False when the connection must end (authentication failed; the ERR is appended).
  bool ChangeUser(std::string_view body);
  // A fresh session with the same id in place of session_ (see the top of this file).
  void RenewSession();
  // Checks `token` (the client's auth response to scramble_) for `user` from this peer, and
  // appends 1045 when it fails.
  bool Authenticate(const std::string& user, const std::string& token);
  void StmtPrepare(std::string_view sql);
  sql::StatementResult DescribeColumns(const PreparedStatement& stmt);
  void StmtExecute(std::string_view body);
  void StmtSendLongData(std::string_view body);
  void StmtReset(std::string_view body);
  void StmtClose(std::string_view body);

  // `binary`: the prepared-statement protocol's rows (COM_STMT_EXECUTE).
  void AppendResultSet(const sql::StatementResult& r, uint16_t status, bool binary = false);
  // A column definition per column of `r`: its type from r.column_types (ENUM and SET, from
  // r.declared_columns, as MYSQL_TYPE_STRING with ENUM_FLAG / SET_FLAG); a declared DATETIME
  // or TIMESTAMP column's fsp from its declaration, rows or none; its length, DECIMAL scale
  // and any other item's fsp from r.rows, when it has rows.
  void AppendColumnDefs(const sql::StatementResult& r);
  void AppendOk(const sql::StatementResult& r, uint16_t status);
  void AppendError(uint16_t code, std::string_view sqlstate, std::string_view message);
  void AppendError(const sql::SqlError& e) { AppendError(e.code, e.sqlstate(), e.message); }
  void AppendEndOfRows(uint16_t status);
  void Append(std::string_view payload) { AppendPackets(payload, &seq_, &out_); }
  bool Flush();
  uint16_t StatusFlags() const;
  bool deprecate_eof() const { return (capabilities_ & kClientDeprecateEof) != 0; }

  Server* const server_;
  const std::unique_ptr<Channel> channel_;
  std::unique_ptr<sql::SqlSession> session_;
  PacketReader reader_;
  std::string out_;
  uint8_t seq_ = 0;
  uint32_t capabilities_ = 0;
  std::string user_;
  std::string account_host_;       // the host pattern of the account user_ logged in as
  std::string scramble_;           // the handshake's (or the last AuthSwitchRequest's) 20 bytes
  bool progress_reports_ = false;  // the client asked for them (the handshake)
  std::chrono::seconds progress_interval_{0};
  std::chrono::steady_clock::time_point next_progress_;
  uint8_t reported_stage_ = 0;  // of the running statement's last report; 0: none yet
  std::atomic<bool> executing_{false};
  std::atomic<bool> killed_{false};
  std::map<uint32_t, PreparedStatement> statements_;
  uint32_t next_statement_id_ = 1;
};

}  // namespace minnow::server
