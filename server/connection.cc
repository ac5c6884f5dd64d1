// Connection (connection.h): the handshake and the command loop.

#include "server/connection.h"

#include <fmt/format.h>

#include <algorithm>

#include "server/server.h"
#include "server/users.h"
#include "server/wire.h"

namespace minnow::server {
namespace {

// MySQL's error numbers for what goes wrong on the wire.
constexpr uint16_t kErConCount = 1040;                  // 08004 Too many connections
constexpr uint16_t kErHandshake = 1043;                 // 08S01 Bad handshake
constexpr uint16_t kErUnknownCom = 1047;                // 08S01 Unknown command
constexpr uint16_t kErNetPacketTooLarge = 1153;         // 08S01
constexpr uint16_t kErNetPacketsOutOfOrder = 1156;      // 08S01
constexpr uint16_t kErMalformedPacket = 1835;           // HY000
constexpr uint16_t kErClientInteractionTimeout = 4031;  // HY000

}  // namespace

Connection::Connection(Server* server, std::unique_ptr<Channel> channel)
    : server_(server),
      channel_(std::move(channel)),
      session_(server->engine()->NewSession()),
      reader_(server->options().max_allowed_packet) {}

Connection::~Connection() {
  server_->registry().Remove(session_->id());
  session_.reset();  // rolls back an open transaction, releases its locks
}

void Connection::Kill(bool query_only) {
  if (!query_only) {
    killed_.store(true);
    channel_->ShutDown();
  }
  if (session_ != nullptr) session_->Cancel();  // null only while RenewSession swaps it
}

void Connection::OnStageWork(const sql::StageReport& report) {
  // As MariaDB: a stage's first work is reported at once, then every progress_report_time.
  const auto now = std::chrono::steady_clock::now();
  if (report.stage == reported_stage_ && now < next_progress_) return;
  reported_stage_ = report.stage;
  next_progress_ = now + progress_interval_;
  ProgressInfo p;
  p.stage = report.stage;
  p.max_stage = report.max_stage;
  p.progress = report.work_estimated == 0
                   ? 0
                   : static_cast<uint32_t>(std::min<uint64_t>(
                         100000, report.work_completed * 100000 / report.work_estimated));
  p.stage_name = report.name;
  // Earlier statements' responses of a multi-statement batch go first, whole.
  Append(BuildProgress(p));
  (void)Flush();  // a client that left: the watcher cancels the statement
}

void Connection::CancelIfHungUp() {
  if (executing_.load() && session_ != nullptr && channel_->PeerHungUp()) session_->Cancel();
}

bool Connection::Flush() {
  const bool ok = channel_->WriteAll(out_);
  out_.clear();
  return ok;
}

void Connection::AppendError(uint16_t code, std::string_view sqlstate, std::string_view message) {
  Append(BuildErr(code, sqlstate, message));
}

uint16_t Connection::StatusFlags() const {
  uint16_t s = 0;
  if (session_->autocommit()) s |= kStatusAutocommit;
  if (session_->in_transaction()) s |= kStatusInTrans;
  return s;
}

bool Connection::ReadPayload(std::string* payload, uint8_t* first_seq, int timeout_ms) {
  for (;;) {
    switch (reader_.Next(payload, first_seq)) {
      case PacketReader::Outcome::kPayload:
        seq_ = reader_.next_seq();
        return true;
      case PacketReader::Outcome::kTooLarge:
        seq_ = 1;
        AppendError(kErNetPacketTooLarge, "08S01",
                    "Got a packet bigger than 'max_allowed_packet' bytes");
        (void)Flush();
        return false;
      case PacketReader::Outcome::kOutOfOrder:
        seq_ = 1;
        AppendError(kErNetPacketsOutOfOrder, "08S01", "Got packets out of order");
        (void)Flush();
        return false;
      case PacketReader::Outcome::kNeedMore:
        break;
    }
    std::string bytes;
    switch (channel_->Read(&bytes, timeout_ms)) {
      case Channel::ReadOutcome::kData:
        reader_.Feed(bytes);
        break;
      case Channel::ReadOutcome::kTimeout:
        seq_ = 0;
        AppendError(kErClientInteractionTimeout, "HY000",
                    "The client was disconnected by the server because of inactivity.");
        (void)Flush();
        return false;
      case Channel::ReadOutcome::kClosed:
        return false;
    }
  }
}

void Connection::Run() {
  if (!server_->registry().Add(session_->id(), this, server_->options().max_connections)) {
    seq_ = 0;
    AppendError(kErConCount, "08004", "Too many connections");
    (void)Flush();
    return;
  }
  if (!Handshake()) return;
  const int idle_ms = static_cast<int>(
      std::min<uint64_t>(uint64_t{server_->options().wait_timeout_s} * 1000, INT32_MAX));
  std::string payload;
  uint8_t first_seq = 0;
  while (!killed_.load()) {
    if (!ReadPayload(&payload, &first_seq, idle_ms)) return;
    if (first_seq != 0) {
      seq_ = 1;
      AppendError(kErNetPacketsOutOfOrder, "08S01", "Got packets out of order");
      (void)Flush();
      return;
    }
    executing_.store(true);
    const Next next = Dispatch(payload);
    executing_.store(false);
    if (killed_.load()) return;
    if (!out_.empty() && !Flush()) return;
    if (next == Next::kClose) return;
  }
}

bool Connection::Handshake() {
  scramble_ = NewScramble();
  seq_ = 0;
  Append(BuildHandshake(server_->options().version, static_cast<uint32_t>(session_->id()),
                        scramble_, kStatusAutocommit));
  if (!Flush()) return false;
  const int timeout_ms = static_cast<int>(server_->options().connect_timeout_s * 1000);
  std::string payload;
  uint8_t first_seq = 0;
  if (!ReadPayload(&payload, &first_seq, timeout_ms)) return false;
  const std::optional<HandshakeResponse> h = ParseHandshakeResponse(payload);
  if (!h || h->ssl_request) {
    AppendError(kErHandshake, "08S01", h ? "SSL is not supported by minnowd" : "Bad handshake");
    (void)Flush();
    return false;
  }
  capabilities_ = h->capabilities & kServerCapabilities;
  progress_reports_ = WantsProgressReports(*h);
  user_ = h->user;
  std::string token = h->auth_response;
  if ((h->capabilities & kClientPluginAuth) != 0 && !h->auth_plugin.empty() &&
      h->auth_plugin != kNativePasswordPlugin) {
    Append(BuildAuthSwitch(scramble_));
    if (!Flush() || !ReadPayload(&payload, &first_seq, timeout_ms)) return false;
    token = payload;
  }
  if (!Authenticate(h->user, token)) {
    (void)Flush();
    return false;
  }
  if (IsUtf8mb3CollationId(h->charset)) (void)session_->SetNames("utf8mb3");
  if (!h->database.empty()) {
    auto r = session_->Execute("USE " + QuoteIdent(h->database));
    if (!r.ok()) {
      AppendError(r.error());
      (void)Flush();
      return false;
    }
  }
  Append(BuildOk(OkInfo{.status = StatusFlags()}));
  return Flush();
}

Connection::Next Connection::Dispatch(std::string_view payload) {
  if (payload.empty()) {
    AppendError(kErMalformedPacket, "HY000", "Malformed communication packet.");
    return Next::kContinue;
  }
  const auto command = static_cast<uint8_t>(payload[0]);
  const std::string_view body = payload.substr(1);
  switch (command) {
    case kComQuit:
      return Next::kClose;
    case kComQuery:
      Query(body);
      break;
    case kComInitDb: {
      auto r = session_->Execute("USE " + QuoteIdent(body));
      if (r.ok()) {
        AppendOk(*r, StatusFlags());
      } else {
        AppendError(r.error());
      }
      break;
    }
    case kComPing:
      Append(BuildOk(OkInfo{.status = StatusFlags()}));
      break;
    case kComFieldList:
      FieldList(body);
      break;
    case kComStatistics:
      Statistics();
      break;
    case kComProcessKill:
      ProcessKill(body);
      break;
    case kComSetOption:
      SetOption(body);
      break;
    case kComResetConnection:
      ResetConnection();
      break;
    case kComChangeUser:
      if (!ChangeUser(body)) return Next::kClose;
      break;
    case kComStmtPrepare:
      StmtPrepare(body);
      break;
    case kComStmtExecute:
      StmtExecute(body);
      break;
    case kComStmtSendLongData:
      StmtSendLongData(body);
      break;
    case kComStmtReset:
      StmtReset(body);
      break;
    case kComStmtClose:
      StmtClose(body);
      break;
    default:
      AppendError(kErUnknownCom, "08S01", "Unknown command");
      break;
  }
  return Next::kContinue;
}

void Connection::FieldList(std::string_view payload) {
  WireReader r(payload);
  const std::optional<std::string_view> table = r.NulString();
  if (!table) {
    AppendError(kErMalformedPacket, "HY000", "Malformed communication packet.");
    return;
  }
  auto res = session_->Execute("SHOW COLUMNS FROM " + QuoteIdent(*table));
  if (!res.ok()) {
    AppendError(res.error());
    return;
  }
  for (const auto& row : res->rows) {
    ColumnDef c;
    c.table = std::string(*table);
    c.name = row.empty() || !row[0] ? "" : *row[0];
    WireWriter w;
    w.Bytes(BuildColumnDef(c));
    w.LenencString("");  // COM_FIELD_LIST's column definitions carry the default value
    Append(w.data());
  }
  AppendEndOfRows(StatusFlags());
}

void Connection::Statistics() {
  auto r = session_->Execute("SHOW GLOBAL STATUS LIKE 'Questions'");
  const uint64_t uptime =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                std::chrono::steady_clock::now() - server_->started())
                                .count());
  uint64_t questions = 0;
  if (r.ok() && !r->rows.empty() && r->rows[0].size() > 1 && r->rows[0][1]) {
    questions = std::strtoull(r->rows[0][1]->c_str(), nullptr, 10);
  }
  Append(fmt::format("Uptime: {}  Threads: {}  Questions: {}  Queries per second avg: {:.3f}",
                     uptime, server_->registry().size(), questions,
                     uptime == 0 ? 0.0 : static_cast<double>(questions) / uptime));
}

void Connection::ProcessKill(std::string_view payload) {
  WireReader r(payload);
  const std::optional<uint32_t> id = r.Int4();
  if (!id) {
    AppendError(kErMalformedPacket, "HY000", "Malformed communication packet.");
    return;
  }
  if (!server_->registry().Kill(*id, false)) {
    AppendError(1094, "HY000", fmt::format("Unknown thread id: {}", *id));
    return;
  }
  Append(BuildOk(OkInfo{.status = StatusFlags()}));
}

void Connection::SetOption(std::string_view payload) {
  WireReader r(payload);
  const std::optional<uint16_t> option = r.Int2();
  if (!option || *option > 1) {
    AppendError(kErUnknownCom, "08S01", "Unknown command");
    return;
  }
  if (*option == 0) {
    capabilities_ |= kClientMultiStatements;
  } else {
    capabilities_ &= ~kClientMultiStatements;
  }
  Append(BuildEof(0, StatusFlags()));
}

}  // namespace minnow::server
