#include "sql_lite_front/execute/string_functions.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/uuid/detail/sha1.hpp>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <string>

#include "sql_lite_front/collation.h"
#include "sql_lite_front/execute/sha2.h"

namespace minnow::sql {
namespace {

std::string TextOf(const Value& v) { return v.is_string() ? v.as_string() : v.ToString(); }

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string ToBase64(std::string_view in) {
  std::string out;
  size_t line = 0;
  for (size_t i = 0; i < in.size(); i += 3) {
    if (line == 76) {
      out += '\n';
      line = 0;
    }
    const size_t n = std::min<size_t>(3, in.size() - i);
    uint32_t w = 0;
    for (size_t k = 0; k < 3; ++k)
      w = w << 8 | (k < n ? static_cast<unsigned char>(in[i + k]) : 0u);
    for (size_t k = 0; k < 4; ++k) out += k <= n ? kBase64[(w >> (18 - 6 * k)) & 63] : '=';
    line += 4;
  }
  return out;
}

int Base64Value(char c) {
  const char* p = std::strchr(kBase64, c);
  return c != '\0' && p != nullptr ? static_cast<int>(p - kBase64) : -1;
}

// MySQL's base64_decode: spaces and newlines between groups are skipped, '=' pads the end.
std::optional<std::string> FromBase64(std::string_view in) {
  std::string out;
  uint32_t w = 0;
  int bits = 0, pad = 0;
  for (char c : in) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++pad;
      continue;
    }
    const int v = Base64Value(c);
    if (v < 0 || pad > 0) return std::nullopt;
    w = w << 6 | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((w >> bits) & 0xFF);
    }
  }
  if (pad > 2 || bits >= 6) return std::nullopt;
  return out;
}

std::string Sha1Hex(std::string_view bytes) {
  boost::uuids::detail::sha1 h;
  h.process_bytes(bytes.data(), bytes.size());
  boost::uuids::detail::sha1::digest_type digest;
  h.get_digest(digest);
  // Five words, each most significant byte first (as md5's in expr.cc).
  std::string out;
  for (unsigned w : digest) out += fmt::format("{:08x}", w);
  return out;
}

std::optional<std::string> Unhex(std::string_view s) {
  auto digit = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  size_t i = 0;
  if (s.size() % 2 == 1) {  // an odd count reads as if led by a 0
    const int d = digit(s[0]);
    if (d < 0) return std::nullopt;
    out += static_cast<char>(d);
    i = 1;
  }
  for (; i < s.size(); i += 2) {
    const int hi = digit(s[i]), lo = digit(s[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\0':
        out += "\\0";
        break;
      case '\032':
        out += "\\Z";
        break;
      default:
        out += c;
    }
  }
  out += '\'';
  return out;
}

// FIELD(s, s1, ...): strings when every argument is one, else doubles.
Value Field(const BoundExpr& e, const Row& row, EvalState& st) {
  Value s = Eval(e.args[0], row, st);
  if (s.is_null()) return Value::Int(0);
  std::vector<Value> list;
  if (s.is_enum()) s = Value::String(s.ToString());  // an ENUM or SET value is its text here
  bool all_strings = s.is_string();
  for (size_t i = 1; i < e.args.size(); ++i) {
    list.push_back(Eval(e.args[i], row, st));
    if (!list.back().is_null() && !list.back().is_string()) all_strings = false;
  }
  const Collation& coll = CollationOf(e);
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].is_null()) continue;
    const bool equal = all_strings ? CollationCompare(coll, s.as_string(), list[i].as_string()) == 0
                                   : s.ToDouble() == list[i].ToDouble();
    if (equal) return Value::Int(static_cast<int64_t>(i + 1));
  }
  return Value::Int(0);
}

Value SubstringIndex(const std::string& s, const std::string& delim, int64_t count) {
  if (delim.empty() || count == 0) return Value::String("");
  if (count > 0) {
    size_t at = 0;
    for (int64_t n = 0; n < count; ++n) {
      const size_t hit = s.find(delim, n == 0 ? 0 : at + delim.size());
      if (hit == std::string::npos) return Value::String(s);
      at = hit;
    }
    return Value::String(s.substr(0, at));
  }
  size_t end = s.size();  // search before this position
  size_t at = std::string::npos;
  for (int64_t n = 0; n < -count; ++n) {
    if (end < delim.size()) return Value::String(s);
    const size_t hit = s.rfind(delim, end - delim.size());
    if (hit == std::string::npos) return Value::String(s);
    at = hit;
    end = hit;
  }
  return Value::String(s.substr(at + delim.size()));
}

Value Insert(const Collation& coll, const std::string& s, int64_t pos, int64_t len,
             const std::string& t) {
  const std::vector<size_t> c = CharStarts(coll, s);
  const int64_t chars = static_cast<int64_t>(c.size()) - 1;
  if (pos < 1 || pos > chars) return Value::String(s);
  const int64_t first = pos - 1;
  const int64_t last = len < 0 || len > chars - first ? chars : first + len;
  return Value::String(s.substr(0, c[first]) + t + s.substr(c[last]));
}

Value FindInSet(const Collation& coll, const std::string& s, const std::string& list) {
  if (s.find(',') != std::string::npos) return Value::Int(0);
  int64_t n = 1;
  size_t at = 0;
  while (at <= list.size()) {
    const size_t comma = std::min(list.find(',', at), list.size());
    if (!list.empty() &&
        CollationCompare(coll, std::string_view(list).substr(at, comma - at), s) == 0) {
      return Value::Int(n);
    }
    at = comma + 1;
    ++n;
  }
  return Value::Int(0);
}

// CHAR(n, ...): each non-NULL n's low 32 bits as 1 to 4 bytes, big-endian, without leading
// zero bytes (a binary string).
Value CharOfCodes(const BoundExpr& e, const Row& row, EvalState& st) {
  std::string out;
  for (const BoundExpr& x : e.args) {
    Value v = Eval(x, row, st);
    if (v.is_null()) continue;
    const auto n = static_cast<uint32_t>(v.ToInt());
    const int bytes = (n & 0xff000000U) != 0 ? 4
                      : (n & 0xff0000U) != 0 ? 3
                      : (n & 0xff00U) != 0   ? 2
                                             : 1;
    for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>((n >> (i * 8)) & 0xff);
  }
  return Value::String(std::move(out));
}

// MySQL's UUID(): a version 1 UUID, its time the 100 ns ticks since 1582-10-15, its clock
// sequence and node (with the multicast bit set, as for a node that is no MAC address) drawn
// once per process; ticks never repeat within the process.
std::string NewUuid() {
  static std::mutex latch;
  static uint64_t last_ticks = 0;
  static const auto [node, clock_seq] = [] {
    std::random_device rd;
    const uint64_t r = (uint64_t{rd()} << 32) | rd();
    return std::pair<uint64_t, uint16_t>{(r & 0xffffffffffffULL) | 0x010000000000ULL,
                                         static_cast<uint16_t>(rd() & 0x3fff)};
  }();
  constexpr uint64_t kGregorianOffset = 0x01b21dd213814000ULL;  // 1582-10-15 .. 1970-01-01
  uint64_t ticks = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count() /
                                         100) +
                   kGregorianOffset;
  {
    std::lock_guard<std::mutex> g(latch);
    if (ticks <= last_ticks) ticks = last_ticks + 1;
    last_ticks = ticks;
  }
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", ticks & 0xffffffffU,
                     (ticks >> 32) & 0xffff, ((ticks >> 48) & 0x0fff) | 0x1000, clock_seq | 0x8000,
                     node);
}

}  // namespace

bool IsStringFunction(Func f) { return f >= Func::kAscii && f <= Func::kIsNull; }

bool HasBinaryResult(Func f) {
  return f == Func::kUnhex || f == Func::kFromBase64 || f == Func::kChar;
}

Value EvalStringFunction(const BoundExpr& e, const Row& row, EvalState& st) {
  switch (e.func) {
    case Func::kField:
      return Field(e, row, st);
    case Func::kIsNull:
      return Value::Int(Eval(e.args[0], row, st).is_null() ? 1 : 0);
    case Func::kChar:
      return CharOfCodes(e, row, st);
    case Func::kUuid:
      return Value::String(NewUuid());
    case Func::kQuote: {
      Value v = Eval(e.args[0], row, st);
      return Value::String(v.is_null() ? "NULL" : Quote(TextOf(v)));
    }
    case Func::kElt: {
      Value n = Eval(e.args[0], row, st);
      if (n.is_null()) return n;
      const int64_t i = n.ToInt();
      if (i < 1 || i >= static_cast<int64_t>(e.args.size())) return Value::Null();
      Value v = Eval(e.args[i], row, st);
      return v.is_null() ? v : Value::String(TextOf(v));
    }
    default:
      break;
  }
  std::vector<Value> a;
  a.reserve(e.args.size());
  for (const BoundExpr& x : e.args) {
    a.push_back(Eval(x, row, st));
    if (a.back().is_null()) return Value::Null();
  }
  const Collation& coll = CollationOf(e);
  auto text = [&](size_t i) { return TextOf(a[i]); };
  switch (e.func) {
    case Func::kAscii: {
      const std::string s = text(0);
      return Value::Int(s.empty() ? 0 : static_cast<unsigned char>(s[0]));
    }
    case Func::kOrd: {
      const std::string s = text(0);
      if (s.empty()) return Value::Int(0);
      const std::vector<size_t> c = CharStarts(coll, s);
      int64_t n = 0;
      for (size_t i = 0; i < c[1]; ++i) n = n << 8 | static_cast<unsigned char>(s[i]);
      return Value::Int(n);
    }
    case Func::kSpace: {
      const int64_t n = a[0].ToInt();
      if (n <= 0) return Value::String("");
      if (ResultTooLarge(static_cast<uint64_t>(n), "space", st)) return Value::Null();
      return Value::String(std::string(static_cast<size_t>(n), ' '));
    }
    case Func::kStrcmp: {
      const int c = CollationCompare(coll, text(0), text(1));
      return Value::Int(c < 0 ? -1 : c > 0 ? 1 : 0);
    }
    case Func::kSubstringIndex:
      return SubstringIndex(text(0), text(1), a[2].ToInt());
    case Func::kInsertString:
      return Insert(coll, text(0), a[1].ToInt(), a[2].ToInt(), text(3));
    case Func::kFindInSet:
      return FindInSet(coll, text(0), text(1));
    case Func::kUnhex: {
      std::optional<std::string> bytes = Unhex(text(0));
      return bytes.has_value() ? Value::String(std::move(*bytes)) : Value::Null();
    }
    case Func::kSha1:
      return Value::String(Sha1Hex(text(0)));
    case Func::kSha2: {
      std::optional<std::string> digest = Sha2Hex(text(0), a[1].ToInt());
      if (digest.has_value()) return Value::String(std::move(*digest));
      if (st.warnings.size() < 1024) {
        st.warnings.push_back(SqlWarning{"Warning", kErWrongParametersToNativeFct,
                                         "Incorrect parameters in the call to native function "
                                         "'sha2'"});
      }
      return Value::Null();
    }
    case Func::kToBase64:
      return Value::String(ToBase64(text(0)));
    case Func::kFromBase64: {
      std::optional<std::string> bytes = FromBase64(text(0));
      return bytes.has_value() ? Value::String(std::move(*bytes)) : Value::Null();
    }
    default:
      break;
  }
  return Value::Null();
}

}  // namespace minnow::sql
