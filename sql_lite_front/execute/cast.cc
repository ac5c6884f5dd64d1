// CAST and CONVERT (cast.h).

#include "sql_lite_front/execute/cast.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>

#include "sql_lite_front/collation.h"
#include "sql_lite_front/execute/arithmetic.h"
#include "sql_lite_front/value_internal.h"

namespace minnow::sql {
namespace {

using Type = CastTarget::Type;

// MySQL's max_error_count: a statement keeps at most this many conditions.
constexpr size_t kMaxWarnings = 1024;

void Warn(EvalState& st, uint16_t code, std::string message) {
  if (st.warnings.size() < kMaxWarnings)
    st.warnings.push_back(SqlWarning{"Warning", code, std::move(message)});
}

void WarnTruncated(EvalState& st, std::string_view type, std::string_view text) {
  Warn(st, kErTruncatedWrongValue, fmt::format("Truncated incorrect {} value: '{}'", type, text));
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// MySQL's strtoll10 over all of `s`: the value (as the 64 bits it returns), and in *error 0, -1
// for a negative number, or 1 for no digits or a value past the range; *rest is false when
// bytes follow the number.
uint64_t StrToLl10(std::string_view s, int* error, bool* whole) {
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  const size_t digits_begin = i;
  UInt128 v = 0;
  bool overflow = false;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (!overflow) {
      v = v * 10 + static_cast<unsigned>(s[i] - '0');
      overflow = v > std::numeric_limits<uint64_t>::max();
    }
  }
  *whole = i == s.size();
  if (i == digits_begin) {
    *error = 1;
    return 0;
  }
  if (negative) {
    constexpr UInt128 kMinMagnitude = UInt128{1} << 63;
    if (overflow || v > kMinMagnitude) {
      *error = 1;
      return static_cast<uint64_t>(std::numeric_limits<int64_t>::min());
    }
    *error = v == 0 ? 0 : -1;
    return static_cast<uint64_t>(-static_cast<Int128>(v));
  }
  if (overflow) {
    *error = 1;
    return std::numeric_limits<uint64_t>::max();
  }
  *error = 0;
  return static_cast<uint64_t>(v);
}

// A double to an integer as MySQL's val_int: rint, saturated to BIGINT's range.
int64_t DoubleToInt(double d) {
  if (std::isnan(d)) return 0;
  if (d <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  if (d >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(std::rint(d));
}

// A decimal rounded to an integer, saturated to BIGINT's range (unsigned: to BIGINT UNSIGNED's,
// negative values wrapped).
uint64_t DecimalToBits(const Decimal& d, bool is_unsigned) {
  int64_t i = 0;
  uint64_t u = 0;
  if (d.ToInt64(&i)) return static_cast<uint64_t>(i);
  if (is_unsigned && d.ToUInt64(&u)) return u;
  if (d.is_negative()) return static_cast<uint64_t>(std::numeric_limits<int64_t>::min());
  return is_unsigned ? std::numeric_limits<uint64_t>::max()
                     : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
}

Value CastToInteger(const Value& v, bool is_unsigned, EvalState& st) {
  uint64_t bits = 0;
  if (v.is_int()) {
    bits = static_cast<uint64_t>(v.as_int());
  } else if (v.is_uint()) {
    bits = v.as_uint();
  } else if (v.is_decimal()) {
    bits = DecimalToBits(v.as_decimal(), is_unsigned);
  } else if (v.is_double()) {
    bits = static_cast<uint64_t>(DoubleToInt(v.as_double()));
  } else if (v.is_temporal()) {  // its number: 20240105, 20240105030405, a YEAR's year
    bits = static_cast<uint64_t>(TemporalToInt(v.as_temporal()));
  } else {
    int error = 0;
    bool whole = true;
    bits = StrToLl10(v.as_string(), &error, &whole);
    if (error > 0 || !whole) WarnTruncated(st, "INTEGER", v.as_string());
    if (!is_unsigned && error == 0 && static_cast<int64_t>(bits) < 0) {
      Warn(st, kErUnknownError,
           "Cast to signed converted positive out-of-range integer to it's negative complement");
    } else if (is_unsigned && error < 0) {
      Warn(st, kErUnknownError,
           "Cast to unsigned converted negative integer to it's positive complement");
    }
  }
  return is_unsigned ? Value::UInt(bits) : Value::Int(static_cast<int64_t>(bits));
}

// The numeric prefix of `s` as a number, with 1292 naming `type` when more than trailing
// white space follows it (or nothing numeric is there).
NumericPrefix StringPrefix(const std::string& s, std::string_view type, EvalState& st) {
  NumericPrefix p = ParseNumericPrefix(s);
  size_t end = p.valid ? p.consumed : 0;
  while (end < s.size() && IsSpace(s[end])) ++end;
  if (!p.valid || end != s.size()) WarnTruncated(st, type, s);
  return p;
}

Value CastToDouble(const Value& v, EvalState& st) {
  if (!v.is_string()) return Value::Double(v.ToDouble());
  NumericPrefix p = StringPrefix(v.as_string(), "DOUBLE", st);
  return Value::Double(p.valid ? (p.is_integer && !p.int_overflow ? static_cast<double>(p.i) : p.d)
                               : 0.0);
}

// The exact value of `v` as a decimal, or nullopt past 65 digits.
std::optional<Decimal> ExactDecimal(const Value& v_in, EvalState& st) {
  const Value v = AsNumber(v_in);  // a date or time: its number
  if (v.is_integer() || v.is_decimal()) return v.ToDecimal();
  if (v.is_double()) return Decimal::FromDouble(v.as_double());
  const std::string& s = v.as_string();
  NumericPrefix p = StringPrefix(s, "DECIMAL", st);
  if (!p.valid) return Decimal();
  std::string_view text(s.data(), p.consumed);
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  if (text.find_first_of("eE") == std::string_view::npos) {
    if (std::optional<Decimal> d = Decimal::Parse(text); d.has_value()) return d;
  }
  return Decimal::FromDouble(p.d);
}

Value CastToDecimal(const BoundExpr& e, const Value& v, EvalState& st) {
  const CastTarget& t = e.cast;
  std::optional<Decimal> d = ExactDecimal(v, st);
  if (d.has_value()) d = d->Round(t.scale);
  const Decimal max = Decimal::Max(t.precision, t.scale);
  const bool negative = d.has_value() ? d->is_negative() : v.ToDouble() < 0;
  if (!d.has_value() || Decimal::Compare(d->is_negative() ? d->Negated() : *d, max) > 0) {
    Warn(st, kErOutOfRange, fmt::format("Out of range value for column '{}' at row 1", e.text));
    return Value::Dec(negative ? max.Negated() : max);
  }
  return Value::Dec(std::move(*d));
}

// Cuts `s` to `n` characters of `c` (bytes for binary), with 1292 naming CHAR(n) or BINARY(n).
std::string CutTo(std::string s, int64_t n, const Collation& c, const CastTarget& t,
                  EvalState& st) {
  const std::vector<size_t> starts = CharStarts(c, s);
  const int64_t chars = static_cast<int64_t>(starts.size()) - 1;
  if (chars <= n) return s;
  WarnTruncated(st, fmt::format("{}({})", t.type == Type::kBinary ? "BINARY" : "CHAR", n), s);
  return s.substr(0, starts[static_cast<size_t>(n)]);
}

// CAST(v AS DATE / DATETIME(fsp)): a date read from text or a number, NULL with 1292
// "Incorrect datetime value: '..'" when it is none (MySQL's make_truncated_value_warning for a
// failed value); text after a date is "Truncated incorrect date value" (or datetime, as the
// text had a time).
Value CastToTemporal(const CastTarget& t, const Value& v, EvalState& st) {
  const bool date = t.type == Type::kDate;
  const Temporal::Type type = date ? Temporal::Type::kDate : Temporal::Type::kDateTime;
  const auto fsp = static_cast<uint8_t>(date ? 0 : std::max<int64_t>(t.length, 0));
  std::optional<DateTimeParts> parts;
  bool trailing = false, has_time = false;
  if (v.is_temporal() && v.as_temporal().is_time()) {
    Temporal on_today;  // a TIME on today's date, as MySQL 8.0 converts it
    if (TimeOnDate(v.as_temporal(), CurrentDate(), &on_today)) parts = on_today.parts();
  } else if (v.is_temporal()) {
    parts = v.as_temporal().parts();
  } else if (v.is_string()) {
    TemporalParse p = ParseTemporalText(v.as_string());
    parts = p.parts;
    trailing = p.trailing;
    has_time = p.has_time;
  } else if (v.is_int()) {
    parts = ParseTemporalNumber(v.as_int());
  } else if (v.is_decimal() || v.is_double()) {
    const double d = v.ToDouble();
    if (d >= 0 && d < 1e15) {
      const double whole = std::floor(d);
      parts = ParseTemporalNumber(static_cast<int64_t>(whole));
      if (parts.has_value())
        parts->micro = std::min(999999, static_cast<int>(std::lround((d - whole) * 1e6)));
    }
  }
  if (parts.has_value() && !date && !RoundToFsp(&*parts, fsp)) parts.reset();
  if (!parts.has_value()) {
    Warn(st, kErTruncatedWrongValue, fmt::format("Incorrect datetime value: '{}'", v.ToString()));
    return Value::Null();
  }
  if (trailing) {
    WarnTruncated(st, has_time ? "datetime" : "date", v.as_string());
  }
  return Value::FromTemporal(MakeTemporal(type, fsp, *parts));
}

// CAST(v AS TIME(fsp)) (MySQL's val_time): ValueAsTime, rounded to fsp; text or a number that
// is no time is NULL, text with more after the time, or beyond ±838:59:59 (clipped), warns
// 1292 "Truncated incorrect time value: '..'".
Value CastToTime(const CastTarget& t, const Value& v, EvalState& st) {
  const auto fsp = static_cast<uint8_t>(std::max<int64_t>(t.length, 0));
  const TimeParse p = ValueAsTime(v);
  if (!p.micros.has_value() || p.trailing || p.clipped) {
    WarnTruncated(st, "time", v.ToString());
  }
  if (!p.micros.has_value()) return Value::Null();
  return Value::FromTemporal(MakeTime(*p.micros, fsp));
}

}  // namespace

SqlResult<const Collation*> CastCollation(const CastTarget& t) {
  if (t.type == Type::kBinary) return &BinaryCollation();
  if (t.type != Type::kChar) return nullptr;
  if (t.charset.empty()) return &ConnectionCollation();
  const std::string cs = CanonicalCharset(t.charset);
  if (const Collation* c = DefaultCollation(cs); c != nullptr) return c;
  if (IsMysqlOnlyCharset(cs)) {
    return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support 'CONVERT(... ",
                  "USING ", cs, ")'");
  }
  return SqlErr(kErUnknownCharacterSet, "Unknown character set: '", t.charset, "'");
}

std::string CastTypeText(const CastTarget& t) {
  switch (t.type) {
    case Type::kSigned:
      return "signed";
    case Type::kUnsigned:
      return "unsigned";
    case Type::kChar:
      return t.length >= 0 ? fmt::format("char({})", t.length) : "char";
    case Type::kBinary:
      return t.length >= 0 ? fmt::format("binary({})", t.length) : "binary";
    case Type::kDecimal:
      return fmt::format("decimal({},{})", t.precision, t.scale);
    case Type::kDouble:
      return "double";
    case Type::kDate:
      return "date";
    case Type::kDateTime:
      return t.length > 0 ? fmt::format("datetime({})", t.length) : "datetime";
    case Type::kTime:
      return t.length > 0 ? fmt::format("time({})", t.length) : "time";
  }
  return "char";
}

Value EvalCast(const BoundExpr& e, const Value& v_in, EvalState& st) {
  if (v_in.is_null()) return v_in;
  const CastTarget& t = e.cast;
  // An ENUM or SET value casts as its number to a number, as its text to the rest (MySQL's
  // val_int / val_str of the field).
  const bool numeric = t.type == Type::kSigned || t.type == Type::kUnsigned ||
                       t.type == Type::kDouble || t.type == Type::kDecimal;
  const Value converted = !v_in.is_enum() ? Value()
                          : numeric       ? Value::UInt(v_in.as_enum().number)
                                          : Value::String(v_in.ToString());
  const Value& v = v_in.is_enum() ? converted : v_in;
  switch (t.type) {
    case Type::kSigned:
    case Type::kUnsigned:
      return CastToInteger(v, t.type == Type::kUnsigned, st);
    case Type::kDouble:
      return CastToDouble(v, st);
    case Type::kDecimal:
      return CastToDecimal(e, v, st);
    case Type::kDate:
    case Type::kDateTime:
      return CastToTemporal(t, v, st);
    case Type::kTime:
      return CastToTime(t, v, st);
    case Type::kChar:
    case Type::kBinary: {
      std::string s = v.is_string() ? v.as_string() : v.ToString();
      if (t.length >= 0) {
        // CHAR(n) counts the characters of the value's own charset (utf8mb4), BINARY(n) bytes.
        const Collation& c = t.type == Type::kBinary ? BinaryCollation() : ConnectionCollation();
        s = CutTo(std::move(s), t.length, c, t, st);
        if (t.type == Type::kBinary && static_cast<int64_t>(s.size()) < t.length)
          s.resize(static_cast<size_t>(t.length), '\0');
      }
      return Value::String(std::move(s));
    }
  }
  return v;
}

}  // namespace minnow::sql
