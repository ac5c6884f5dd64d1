#pragma once
// The MySQL client/server protocol's messages, as payloads (packet.h frames them).
//
// Connection phase (seq ids in brackets):
//   [0] server -> HandshakeV10: version, connection id, 20-byte scramble, capabilities,
//       charset, status, auth plugin "mysql_native_password"
//   [1] client -> HandshakeResponse41: capabilities, max packet, charset, user, auth response,
//       [database], [plugin name], [connection attributes]
//   [2] server -> OK | ERR 1045 | AuthSwitchRequest (0xfe, plugin, scramble) when the client
//       answered for another plugin (caching_sha2_password); then [3] client's new response,
//       [4] OK | ERR.
// Command phase: one command packet [0] (first byte: COM_*), then the response [1..]:
//   OK       0x00, affected rows, last insert id, status flags, warnings, info
//   ERR      0xff, error code, '#', SQLSTATE, message
//   result   column count, column definitions, [EOF], rows, EOF (or, with
//            CLIENT_DEPRECATE_EOF, an OK packet with the 0xfe header in the EOF's place)
//   progress MariaDB's progress report, before the response of a long statement (to a client
//            that asked, see WantsProgressReports): 0xff, error code 0xffff, then the
//            report (BuildProgress); the client reads on for the response

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace minnow::server {

// Capability flags (a subset; the names are the protocol's CLIENT_*).
enum Capability : uint32_t {
  kClientLongPassword = 1u << 0,
  kClientFoundRows = 1u << 1,
  kClientLongFlag = 1u << 2,
  kClientConnectWithDb = 1u << 3,
  kClientProtocol41 = 1u << 9,
  kClientInteractive = 1u << 10,
  kClientSsl = 1u << 11,
  kClientTransactions = 1u << 13,
  kClientSecureConnection = 1u << 15,
  kClientMultiStatements = 1u << 16,
  kClientMultiResults = 1u << 17,
  kClientPsMultiResults = 1u << 18,
  kClientPluginAuth = 1u << 19,
  kClientConnectAttrs = 1u << 20,
  kClientPluginAuthLenencData = 1u << 21,
  kClientDeprecateEof = 1u << 24,
  // MariaDB's CLIENT_PROGRESS (mariadb_com.h; "obsolete" there since the flag moved to the
  // extended capabilities): the mariadb client sends it when it shows progress reports (on a
  // terminal, or --progress-reports). In MySQL 8.0 this bit is reserved and never sent.
  kClientProgressObsolete = 1u << 29,
};
// MariaDB's extended capabilities (the upper 32 bits of its 64), sent in the handshake
// response's filler by a client that clears bit 0 (CLIENT_MYSQL, the CLIENT_LONG_PASSWORD bit).
enum MariaDbCapability : uint32_t {
  kMariaDbClientProgress = 1u << 0,  // MARIADB_CLIENT_PROGRESS, 1 << 32
};

// What minnowd offers. Not offered (so never negotiated): SSL, compression, LOAD DATA LOCAL,
// FOUND_ROWS (UPDATE reports changed rows), session tracking.
inline constexpr uint32_t kServerCapabilities =
    kClientLongPassword | kClientLongFlag | kClientConnectWithDb | kClientProtocol41 |
    kClientInteractive | kClientTransactions | kClientSecureConnection | kClientMultiStatements |
    kClientMultiResults | kClientPsMultiResults | kClientPluginAuth | kClientConnectAttrs |
    kClientPluginAuthLenencData | kClientDeprecateEof;

// Server status flags (SERVER_STATUS_*).
enum ServerStatus : uint16_t {
  kStatusInTrans = 1u << 0,
  kStatusAutocommit = 1u << 1,
  kStatusMoreResultsExist = 1u << 3,
  kStatusNoIndexUsed = 1u << 5,
};

// Commands (COM_*), the first byte of a command packet.
enum Command : uint8_t {
  kComQuit = 0x01,
  kComInitDb = 0x02,
  kComQuery = 0x03,
  kComFieldList = 0x04,
  kComStatistics = 0x09,
  kComProcessKill = 0x0c,
  kComPing = 0x0e,
  kComChangeUser = 0x11,
  kComStmtPrepare = 0x16,
  kComStmtExecute = 0x17,
  kComStmtSendLongData = 0x18,
  kComStmtClose = 0x19,
  kComStmtReset = 0x1a,
  kComSetOption = 0x1b,
  kComResetConnection = 0x1f,
};

// Column types (MYSQL_TYPE_*) minnowd sends or reads.
enum FieldType : uint8_t {
  kTypeDecimal = 0x00,
  kTypeTiny = 0x01,
  kTypeShort = 0x02,
  kTypeLong = 0x03,
  kTypeFloat = 0x04,
  kTypeDouble = 0x05,
  kTypeNull = 0x06,
  kTypeTimestamp = 0x07,
  kTypeLongLong = 0x08,
  kTypeInt24 = 0x09,
  kTypeDate = 0x0a,
  kTypeTime = 0x0b,
  kTypeDateTime = 0x0c,
  kTypeYear = 0x0d,
  kTypeVarchar = 0x0f,
  kTypeNewDecimal = 0xf6,
  kTypeBlob = 0xfc,
  kTypeVarString = 0xfd,
  kTypeString = 0xfe,
};

// Column definition flags.
enum ColumnFlag : uint16_t {
  kFlagNotNull = 1,
  kFlagUnsigned = 32,
  kFlagBlob = 16,
  kFlagZerofill = 64,
  kFlagBinary = 128,
  kFlagEnum = 256,
  kFlagSet = 2048,
  kFlagNum = 32768,
};

// Character set numbers (collation ids), as MySQL 8.0 sends them: the handshake's and a text
// column's is character_set_results' default collation, 255 (utf8mb4_0900_ai_ci) or 33
// (utf8mb3_general_ci) after SET NAMES utf8mb3; numbers and BLOBs are 63 (binary). They tell the
// client how to decode; how the server compares is each column's collation (SHOW FULL COLUMNS).
inline constexpr uint8_t kCharsetUtf8mb4 = 255;
inline constexpr uint8_t kCharsetUtf8mb3 = 33;
inline constexpr uint8_t kCharsetBinary = 63;
// True for the ids of utf8mb3's collations (33, 83, 76, 192-215, 223): a client that connects
// with one gets SET NAMES utf8mb3. Every other id is served as utf8mb4.
inline bool IsUtf8mb3CollationId(uint8_t id) {
  return id == 33 || id == 83 || id == 76 || (id >= 192 && id <= 215) || id == 223;
}
inline constexpr std::string_view kNativePasswordPlugin = "mysql_native_password";

// HandshakeV10. REQUIRES: scramble.size() == 20 and holds no 0 byte.
std::string BuildHandshake(std::string_view server_version, uint32_t connection_id,
                           std::string_view scramble, uint16_t status);

struct HandshakeResponse {
  uint32_t capabilities = 0;
  uint32_t max_packet = 0;
  uint8_t charset = 0;
  std::string user;
  std::string auth_response;
  std::string database;      // empty unless CLIENT_CONNECT_WITH_DB
  std::string auth_plugin;   // empty unless CLIENT_PLUGIN_AUTH
  bool ssl_request = false;  // the short SSLRequest packet (minnowd offers no SSL)
  // MariaDB's extended capabilities (MariaDbCapability), bytes 28..31 of the packet when the
  // client cleared bit 0 of `capabilities`; 0 otherwise.
  uint32_t mariadb_capabilities = 0;
};
// True when the client asks for progress reports: kClientProgressObsolete, or
// kMariaDbClientProgress among its extended capabilities. minnowd offers neither in its
// handshake (it is a MySQL 8.0 server to clients that do not ask).
bool WantsProgressReports(const HandshakeResponse& h);
// Parses HandshakeResponse41; nullopt when malformed or truncated (or a pre-4.1 client).
std::optional<HandshakeResponse> ParseHandshakeResponse(std::string_view payload);

// COM_CHANGE_USER's body (after the command byte), read as the connection's negotiated
// `capabilities` say: user, auth response, database, then (when present) the character set,
// the auth plugin and the connection attributes (checked for framing, dropped).
struct ChangeUserRequest {
  std::string user;
  std::string auth_response;
  std::string database;     // empty: none
  std::string auth_plugin;  // empty unless sent
};
// nullopt when malformed or truncated.
std::optional<ChangeUserRequest> ParseChangeUser(std::string_view body, uint32_t capabilities);

// AuthSwitchRequest to mysql_native_password with `scramble` (20 bytes).
std::string BuildAuthSwitch(std::string_view scramble);

struct OkInfo {
  uint64_t affected_rows = 0;
  uint64_t last_insert_id = 0;
  uint16_t status = 0;
  uint16_t warnings = 0;
  std::string info;
};
// OK (header 0x00), or with `eof_header` the OK that replaces EOF under CLIENT_DEPRECATE_EOF.
std::string BuildOk(const OkInfo& ok, bool eof_header = false);
std::string BuildEof(uint16_t warnings, uint16_t status);
// ERR with SQLSTATE (5 characters).
std::string BuildErr(uint16_t code, std::string_view sqlstate, std::string_view message);

// A progress report (MariaDB's net_send_progress_packet): 0xff, 0xffff, 1 (the number of
// strings that follow), stage and max_stage (1 byte each), the stage's progress in thousandths
// of a percent (3 bytes, 0..100000), the stage's name as a string<lenenc>.
struct ProgressInfo {
  uint8_t stage = 1;
  uint8_t max_stage = 1;
  uint32_t progress = 0;  // 100000 * done / estimated
  std::string stage_name;
};
std::string BuildProgress(const ProgressInfo& p);

struct ColumnDef {
  std::string schema;
  std::string table;
  std::string name;
  uint8_t charset = kCharsetUtf8mb4;
  uint32_t length = 0;
  FieldType type = kTypeVarString;
  uint16_t flags = 0;
  uint8_t decimals = 0;
};
std::string BuildColumnDef(const ColumnDef& c);
// A text-protocol row: each value a string<lenenc>, NULL as 0xfb.
std::string BuildTextRow(const std::vector<std::optional<std::string>>& row);

// A DATE, DATETIME or TIMESTAMP value in the binary protocol, from its text form
// 'YYYY-MM-DD[ hh:mm:ss[.f...]]': a length byte, then year (2 bytes), month, day, [hour, minute,
// second, [microseconds (4 bytes)]], as short as the value allows (0: the zero date, 4: no time
// of day, 7: no fraction, 11). nullopt when `text` has not that form.
std::optional<std::string> EncodeBinaryDateTime(std::string_view text);
// A TIME value in the binary protocol, from its text form '[-]h...h:mm:ss[.f...]': a length
// byte, then is_negative, days (4 bytes), hour, minute, second, [microseconds (4 bytes)]
// (0: 00:00:00, 8: no fraction, 12). nullopt when `text` has not that form.
std::optional<std::string> EncodeBinaryTime(std::string_view text);

}  // namespace minnow::server
