// Message builders and parsers (protocol.h).

#include "server/protocol.h"

#include <algorithm>

#include "server/wire.h"

namespace minnow::server {

std::string BuildHandshake(std::string_view server_version, uint32_t connection_id,
                           std::string_view scramble, uint16_t status) {
  WireWriter w;
  w.Int1(10);
  w.NulString(server_version);
  w.Int4(connection_id);
  w.Bytes(scramble.substr(0, 8));
  w.Int1(0);
  w.Int2(static_cast<uint16_t>(kServerCapabilities & 0xffff));
  w.Int1(kCharsetUtf8mb4);
  w.Int2(status);
  w.Int2(static_cast<uint16_t>(kServerCapabilities >> 16));
  w.Int1(static_cast<uint8_t>(scramble.size() + 1));
  w.Zeros(10);
  w.Bytes(scramble.substr(8));
  w.Int1(0);
  w.NulString(kNativePasswordPlugin);
  return w.Take();
}

namespace {

// The connection attributes (lenenc length, then key/value strings): read to check their
// framing, then dropped.
bool SkipConnectAttrs(WireReader* r) {
  auto len = r->LenencInt();
  if (!len || *len > r->remaining()) return false;
  WireReader attrs(*r->Bytes(static_cast<size_t>(*len)));
  while (!attrs.at_end()) {
    if (!attrs.LenencString() || !attrs.LenencString()) return false;
  }
  return true;
}

}  // namespace

std::optional<ChangeUserRequest> ParseChangeUser(std::string_view body, uint32_t capabilities) {
  WireReader r(body);
  ChangeUserRequest c;
  auto user = r.NulString();
  if (!user) return std::nullopt;
  c.user = std::string(*user);
  std::optional<std::string_view> auth;
  if ((capabilities & kClientSecureConnection) != 0) {
    auto n = r.Int1();
    if (n) auth = r.Bytes(*n);
  } else {
    auth = r.NulString();
  }
  if (!auth) return std::nullopt;
  c.auth_response = std::string(*auth);
  auto db = r.NulString();
  if (!db) return std::nullopt;
  c.database = std::string(*db);
  if (r.at_end()) return c;
  if (!r.Int2()) return std::nullopt;  // the character set (minnowd speaks utf8mb4 only)
  if ((capabilities & kClientPluginAuth) != 0 && !r.at_end()) {
    auto plugin = r.NulString();
    if (!plugin) return std::nullopt;
    c.auth_plugin = std::string(*plugin);
  }
  if ((capabilities & kClientConnectAttrs) != 0 && !r.at_end() && !SkipConnectAttrs(&r)) {
    return std::nullopt;
  }
  return c;
}

std::optional<HandshakeResponse> ParseHandshakeResponse(std::string_view payload) {
  WireReader r(payload);
  HandshakeResponse h;
  auto caps = r.Int4();
  auto max_packet = r.Int4();
  auto charset = r.Int1();
  if (!caps || !max_packet || !charset) return std::nullopt;
  h.capabilities = *caps;
  h.max_packet = *max_packet;
  h.charset = *charset;
  if ((h.capabilities & kClientProtocol41) == 0) return std::nullopt;
  const std::optional<std::string_view> filler = r.Bytes(23);
  if (!filler) return std::nullopt;
  if ((h.capabilities & kClientLongPassword) == 0) {
    WireReader extended(filler->substr(19));
    h.mariadb_capabilities = *extended.Int4();
  }
  if (r.at_end() && (h.capabilities & kClientSsl) != 0) {
    h.ssl_request = true;
    return h;
  }
  auto user = r.NulString();
  if (!user) return std::nullopt;
  h.user = std::string(*user);
  std::optional<std::string_view> auth;
  if ((h.capabilities & kClientPluginAuthLenencData) != 0) {
    auth = r.LenencString();
  } else if ((h.capabilities & kClientSecureConnection) != 0) {
    auto n = r.Int1();
    if (n) auth = r.Bytes(*n);
  } else {
    auth = r.NulString();
  }
  if (!auth) return std::nullopt;
  h.auth_response = std::string(*auth);
  if ((h.capabilities & kClientConnectWithDb) != 0 && !r.at_end()) {
    auto db = r.NulString();
    if (!db) return std::nullopt;
    h.database = std::string(*db);
  }
  if ((h.capabilities & kClientPluginAuth) != 0 && !r.at_end()) {
    auto plugin = r.NulString();
    if (!plugin) return std::nullopt;
    h.auth_plugin = std::string(*plugin);
  }
  if ((h.capabilities & kClientConnectAttrs) != 0 && !r.at_end() && !SkipConnectAttrs(&r)) {
    return std::nullopt;
  }
  return h;
}

std::string BuildAuthSwitch(std::string_view scramble) {
  WireWriter w;
  w.Int1(0xfe);
  w.NulString(kNativePasswordPlugin);
  w.Bytes(scramble);
  w.Int1(0);
  return w.Take();
}

std::string BuildOk(const OkInfo& ok, bool eof_header) {
  WireWriter w;
  w.Int1(eof_header ? 0xfe : 0x00);
  w.LenencInt(ok.affected_rows);
  w.LenencInt(ok.last_insert_id);
  w.Int2(ok.status);
  w.Int2(ok.warnings);
  // The message as servers send it: length-encoded (libmariadb reads it so), only when set.
  if (!ok.info.empty()) w.LenencString(ok.info);
  return w.Take();
}

std::string BuildEof(uint16_t warnings, uint16_t status) {
  WireWriter w;
  w.Int1(0xfe);
  w.Int2(warnings);
  w.Int2(status);
  return w.Take();
}

std::string BuildErr(uint16_t code, std::string_view sqlstate, std::string_view message) {
  WireWriter w;
  w.Int1(0xff);
  w.Int2(code);
  w.Int1('#');
  std::string state(sqlstate.substr(0, 5));
  state.resize(5, '0');
  w.Bytes(state);
  w.Bytes(message);
  return w.Take();
}

bool WantsProgressReports(const HandshakeResponse& h) {
  return (h.capabilities & kClientProgressObsolete) != 0 ||
         (h.mariadb_capabilities & kMariaDbClientProgress) != 0;
}

std::string BuildProgress(const ProgressInfo& p) {
  WireWriter w;
  w.Int1(0xff);
  w.Int2(0xffff);
  w.Int1(1);
  w.Int1(p.stage);
  w.Int1(p.max_stage);
  w.Int3(std::min<uint32_t>(p.progress, 100000));
  w.LenencString(p.stage_name);
  return w.Take();
}

std::string BuildColumnDef(const ColumnDef& c) {
  WireWriter w;
  w.LenencString("def");
  w.LenencString(c.schema);
  w.LenencString(c.table);
  w.LenencString(c.table);  // org_table
  w.LenencString(c.name);
  w.LenencString(c.name);  // org_name
  w.LenencInt(0x0c);       // length of the fixed fields
  w.Int2(c.charset);
  w.Int4(c.length);
  w.Int1(c.type);
  w.Int2(c.flags);
  w.Int1(c.decimals);
  w.Int2(0);
  return w.Take();
}

std::string BuildTextRow(const std::vector<std::optional<std::string>>& row) {
  WireWriter w;
  for (const auto& v : row) {
    if (v) {
      w.LenencString(*v);
    } else {
      w.Int1(0xfb);
    }
  }
  return w.Take();
}

namespace {

// The unsigned number of exactly `digits` digits at text[at...]; nullopt otherwise.
std::optional<uint32_t> DigitsAt(std::string_view text, size_t at, size_t digits) {
  if (at + digits > text.size()) return std::nullopt;
  uint32_t v = 0;
  for (size_t i = at; i < at + digits; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + static_cast<uint32_t>(text[i] - '0');
  }
  return v;
}

}  // namespace

std::optional<std::string> EncodeBinaryDateTime(std::string_view text) {
  auto year = DigitsAt(text, 0, 4), month = DigitsAt(text, 5, 2), day = DigitsAt(text, 8, 2);
  if (!year || !month || !day || text[4] != '-' || text[7] != '-') return std::nullopt;
  uint32_t hour = 0, minute = 0, second = 0, micros = 0;
  if (text.size() > 10) {
    auto h = DigitsAt(text, 11, 2), mi = DigitsAt(text, 14, 2), se = DigitsAt(text, 17, 2);
    if (!h || !mi || !se || text[10] != ' ' || text[13] != ':' || text[16] != ':') {
      return std::nullopt;
    }
    hour = *h, minute = *mi, second = *se;
    if (text.size() > 19) {
      const size_t frac = text.size() - 20;
      auto f = DigitsAt(text, 20, frac);
      if (text[19] != '.' || frac == 0 || frac > 6 || !f) return std::nullopt;
      micros = *f;
      for (size_t i = frac; i < 6; ++i) micros *= 10;
    }
  }
  WireWriter w;
  const uint8_t length = micros != 0                     ? 11
                         : (hour | minute | second) != 0 ? 7
                         : (*year | *month | *day) != 0  ? 4
                                                         : 0;
  w.Int1(length);
  if (length >= 4) {
    w.Int2(static_cast<uint16_t>(*year));
    w.Int1(static_cast<uint8_t>(*month));
    w.Int1(static_cast<uint8_t>(*day));
  }
  if (length >= 7) {
    w.Int1(static_cast<uint8_t>(hour));
    w.Int1(static_cast<uint8_t>(minute));
    w.Int1(static_cast<uint8_t>(second));
  }
  if (length == 11) w.Int4(micros);
  return w.Take();
}

std::optional<std::string> EncodeBinaryTime(std::string_view text) {
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon < 2 || colon > 3) return std::nullopt;
  auto h = DigitsAt(text, 0, colon), mi = DigitsAt(text, colon + 1, 2),
       se = DigitsAt(text, colon + 4, 2);
  if (!h || !mi || !se || text.size() < colon + 6 || text[colon + 3] != ':') return std::nullopt;
  uint32_t micros = 0;
  const size_t end = colon + 6;
  if (text.size() > end) {
    const size_t frac = text.size() - end - 1;
    auto f = DigitsAt(text, end + 1, frac);
    if (text[end] != '.' || frac == 0 || frac > 6 || !f) return std::nullopt;
    micros = *f;
    for (size_t i = frac; i < 6; ++i) micros *= 10;
  }
  WireWriter w;
  const uint8_t length = micros != 0 ? 12 : (*h | *mi | *se) != 0 ? 8 : 0;
  w.Int1(length);
  if (length >= 8) {
    w.Int1(negative ? 1 : 0);
    w.Int4(*h / 24);
    w.Int1(static_cast<uint8_t>(*h % 24));
    w.Int1(static_cast<uint8_t>(*mi));
    w.Int1(static_cast<uint8_t>(*se));
  }
  if (length == 12) w.Int4(micros);
  return w.Take();
}

}  // namespace minnow::server
