// Connection (connection.h): authentication, COM_RESET_CONNECTION and COM_CHANGE_USER.

#include <fmt/format.h>

#include "server/connection.h"
#include "server/server.h"
#include "server/users.h"

namespace minnow::server {
namespace {

constexpr uint16_t kErAccessDenied = 1045;     // 28000
constexpr uint16_t kErMalformedPacket = 1835;  // HY000

}  // namespace

bool Connection::Authenticate(const std::string& user, const std::string& token) {
  const std::string& peer = channel_->peer();
  const std::string host = IsLoopbackPeer(peer) ? "localhost" : peer;
  std::string account_host;
  const std::optional<std::string> stored = server_->users().Lookup(user, peer, &account_host);
  if (!stored || !CheckNativePassword(*stored, scramble_, token)) {
    AppendError(kErAccessDenied, "28000",
                fmt::format("Access denied for user '{}'@'{}' (using password: {})", user, host,
                            token.empty() ? "NO" : "YES"));
    return false;
  }
  user_ = user;
  account_host_ = account_host;
  if (session_ != nullptr) session_->set_user(user + "@" + host);
  return true;
}

void Connection::RenewSession() {
  std::unique_ptr<sql::SqlSession> old;
  server_->registry().Exclusively([&] { old = std::move(session_); });
  // Outside the registry's latch: the rollback may write.
  std::unique_ptr<sql::SqlSession> fresh = server_->engine()->RenewSession(std::move(old));
  server_->registry().Exclusively([&] { session_ = std::move(fresh); });
  const std::string& peer = channel_->peer();
  session_->set_user(user_ + "@" + (IsLoopbackPeer(peer) ? "localhost" : peer));
  statements_.clear();
}

// The current database stays, as MySQL's COM_RESET_CONNECTION keeps it.
void Connection::ResetConnection() {
  const std::string database = session_ != nullptr ? session_->database() : "";
  RenewSession();
  session_->set_database(database);
  Append(BuildOk(OkInfo{.status = StatusFlags()}));
}

bool Connection::ChangeUser(std::string_view body) {
  const std::optional<ChangeUserRequest> req = ParseChangeUser(body, capabilities_);
  if (!req) {
    AppendError(kErMalformedPacket, "HY000", "Malformed communication packet.");
    return false;
  }
  std::string token = req->auth_response;
  if (!req->auth_plugin.empty() && req->auth_plugin != kNativePasswordPlugin) {
    scramble_ = NewScramble();
    Append(BuildAuthSwitch(scramble_));
    std::string payload;
    uint8_t first_seq = 0;
    const int timeout_ms = static_cast<int>(server_->options().connect_timeout_s * 1000);
    if (!Flush() || !ReadPayload(&payload, &first_seq, timeout_ms)) return false;
    token = payload;
  }
  // MySQL ends the old session first: its transaction rolls back whether or not the new
  // account gets in.
  RenewSession();
  if (!Authenticate(req->user, token)) return false;
  if (!req->database.empty()) {
    auto r = session_->Execute("USE " + QuoteIdent(req->database));
    if (!r.ok()) {
      AppendError(r.error());
      return true;
    }
  }
  Append(BuildOk(OkInfo{.status = StatusFlags()}));
  return true;
}

}  // namespace minnow::server
