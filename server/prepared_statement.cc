// Placeholders and the decoding of EXECUTE's parameters (prepared_statement.h).

#include "server/prepared_statement.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "server/protocol.h"
#include "server/wire.h"
#include "sql_lite_front/parse/prepared_parse.h"

namespace minnow::server {
namespace {

constexpr sql::ErrorCode kErMalformedPacket = static_cast<sql::ErrorCode>(1835);

sql::SqlError Malformed() {
  return sql::SqlErr(kErMalformedPacket, "Malformed communication packet.");
}

sql::SqlError WrongArguments() {
  return sql::SqlErr(sql::kErWrongArguments, "Incorrect arguments to mysqld_stmt_execute");
}

// One bound value; 1835 when the packet is short.
sql::SqlResult<sql::Value> ReadValue(WireReader& r, uint16_t type_and_flag) {
  const auto type = static_cast<uint8_t>(type_and_flag & 0xff);
  const bool is_unsigned = (type_and_flag & 0x8000) != 0;
  auto integer = [&](int bytes) -> sql::SqlResult<sql::Value> {
    auto v = r.IntN(bytes);
    if (!v) return Malformed();
    if (is_unsigned) return sql::Value::UInt(*v);
    const int shift = 64 - 8 * bytes;
    return sql::Value::Int(static_cast<int64_t>(*v << shift) >> shift);  // sign-extended
  };
  switch (type) {
    case kTypeTiny:
      return integer(1);
    case kTypeShort:
    case kTypeYear:
      return integer(2);
    case kTypeLong:
    case kTypeInt24:
      return integer(4);
    case kTypeLongLong:
      return integer(8);
    case kTypeFloat:
    case kTypeDouble: {
      double d = 0;
      if (type == kTypeFloat) {
        auto v = r.Int4();
        if (!v) return Malformed();
        float f;
        const uint32_t bits = *v;
        std::memcpy(&f, &bits, 4);
        d = f;
      } else {
        auto v = r.Int8();
        if (!v) return Malformed();
        const uint64_t bits = *v;
        std::memcpy(&d, &bits, 8);
      }
      if (!std::isfinite(d)) return WrongArguments();
      return sql::Value::Double(d);
    }
    case kTypeDecimal:
    case kTypeNewDecimal: {  // the number as text: a number, never a string
      auto s = r.LenencString();
      if (!s) return Malformed();
      std::optional<sql::Value> v = sql::PreparedParse::NumberFromText(*s);
      if (!v) return WrongArguments();
      return *std::move(v);
    }
    case kTypeNull:
      return sql::Value::Null();
    case kTypeDate:
    case kTypeDateTime:
    case kTypeTimestamp: {
      auto len = r.Int1();
      if (!len || (*len != 0 && *len != 4 && *len != 7 && *len != 11)) return Malformed();
      auto b = r.Bytes(*len);
      if (!b) return Malformed();
      WireReader d(*b);
      const uint64_t y = *len ? *d.Int2() : 0, mo = *len ? *d.Int1() : 0, da = *len ? *d.Int1() : 0;
      std::string s = fmt::format("{:04}-{:02}-{:02}", y, mo, da);
      if (*len >= 7) {
        const unsigned h = *d.Int1(), mi = *d.Int1(), se = *d.Int1();
        s += fmt::format(" {:02}:{:02}:{:02}", h, mi, se);
        if (*len == 11) s += fmt::format(".{:06}", *d.Int4());
      } else if (type != kTypeDate) {
        s += " 00:00:00";
      }
      return sql::Value::String(std::move(s));
    }
    case kTypeTime: {
      auto len = r.Int1();
      if (!len || (*len != 0 && *len != 8 && *len != 12)) return Malformed();
      auto b = r.Bytes(*len);
      if (!b) return Malformed();
      if (*len == 0) return sql::Value::String("00:00:00");
      WireReader t(*b);
      const bool neg = *t.Int1() != 0;
      const uint64_t days = *t.Int4();
      const unsigned h = *t.Int1(), mi = *t.Int1(), se = *t.Int1();
      std::string s = fmt::format("{}{:02}:{:02}:{:02}", neg ? "-" : "", days * 24 + h, mi, se);
      if (*len == 12) s += fmt::format(".{:06}", *t.Int4());
      return sql::Value::String(std::move(s));
    }
    default: {  // strings, blobs, enums, JSON...: string<lenenc>
      auto s = r.LenencString();
      if (!s) return Malformed();
      return sql::Value::String(std::string(*s));
    }
  }
}

}  // namespace

std::vector<size_t> FindPlaceholders(std::string_view sql) {
  std::vector<size_t> out;
  size_t i = 0;
  const size_t n = sql.size();
  while (i < n) {
    const char c = sql[i];
    if (c == '\'' || c == '"' || c == '`') {
      ++i;
      while (i < n) {
        if (sql[i] == '\\' && c != '`') {
          i += 2;
          continue;
        }
        if (sql[i] == c) {
          if (i + 1 < n && sql[i + 1] == c) {  // doubled quote
            i += 2;
            continue;
          }
          break;
        }
        ++i;
      }
      ++i;
    } else if (c == '#' || (c == '-' && i + 1 < n && sql[i + 1] == '-' &&
                            (i + 2 == n || static_cast<unsigned char>(sql[i + 2]) <= ' '))) {
      while (i < n && sql[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*' && (i + 2 >= n || sql[i + 2] != '!')) {
      const size_t end = sql.find("*/", i + 2);
      i = end == std::string_view::npos ? n : end + 2;
    } else {
      if (c == '?') out.push_back(i);
      ++i;
    }
  }
  return out;
}

std::string QuoteIdent(std::string_view name) {
  std::string q = "`";
  for (char c : name) {
    if (c == '`') q.push_back('`');
    q.push_back(c);
  }
  q.push_back('`');
  return q;
}

std::optional<uint32_t> StatementIdOf(std::string_view body) {
  WireReader r(body);
  return r.Int4();
}

sql::SqlStatus BindExecute(std::string_view body, PreparedStatement* stmt) {
  std::vector<sql::Value>* values = &stmt->values;
  WireReader r(body);
  if (!r.Int4() || !r.Int1() || !r.Int4()) return Malformed();  // id, flags, iteration count
  const size_t params = stmt->param_count;
  values->clear();
  if (params == 0) return sql::SqlStatus::OK();
  auto bitmap = r.Bytes((params + 7) / 8);
  auto rebound = r.Int1();
  if (!bitmap || !rebound) return Malformed();
  if (*rebound == 1) {
    stmt->param_types.assign(params, 0);
    for (size_t i = 0; i < params; ++i) {
      auto t = r.Int2();
      if (!t) return Malformed();
      stmt->param_types[i] = *t;
    }
  }
  if (stmt->param_types.size() != params) return WrongArguments();
  values->reserve(params);
  for (size_t i = 0; i < params; ++i) {
    const bool is_null = ((static_cast<uint8_t>((*bitmap)[i / 8]) >> (i % 8)) & 1) != 0;
    auto long_data = stmt->long_data.find(static_cast<uint16_t>(i));
    if (is_null) {
      values->push_back(sql::Value::Null());
    } else if (long_data != stmt->long_data.end()) {
      values->push_back(sql::Value::String(std::move(long_data->second)));
    } else {
      SQL_ASSIGN_OR_RETURN(sql::Value v, ReadValue(r, stmt->param_types[i]));
      values->push_back(std::move(v));
    }
  }
  stmt->long_data.clear();
  return sql::SqlStatus::OK();
}

}  // namespace minnow::server
