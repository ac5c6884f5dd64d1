#include "sql_lite_front/execute/math_functions.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <boost/crc.hpp>
#include <chrono>
#include <cmath>
#include <numbers>
#include <string>

#include "sql_lite_front/execute/arithmetic.h"
#include "sql_lite_front/execute/expr_type.h"
#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {
namespace {

void Warn(EvalState& st, uint16_t code, std::string message) {
  st.warnings.push_back(SqlWarning{"Warning", code, std::move(message)});
}

// A double result: 1690 if it is not finite (MySQL's check_float_overflow).
Value DoubleResult(double d, const BoundExpr& e, EvalState& st) {
  if (!std::isfinite(d)) return OutOfRange("DOUBLE", e, st);
  return Value::Double(d);
}

// LN, LOG2, LOG10 by `fn` (std::log10(1000) is exactly 3, log(1000) / log(10) is not).
Value Logarithm(double x, double (*fn)(double), EvalState& st) {
  if (x <= 0) {
    Warn(st, kErInvalidArgumentForLogarithm, "Invalid argument for logarithm");
    return Value::Null();
  }
  return Value::Double(fn(x));
}

// TRUNCATE(v, digits): toward zero, exactly for integers and decimals.
Value Truncate(const BoundExpr& e, const Value& v, int64_t digits, EvalState& st) {
  if (v.is_integer() && digits >= 0) return v;
  if (v.is_integer() || v.is_decimal()) {
    const int d = static_cast<int>(std::clamp<int64_t>(digits, -66, Decimal::kMaxScale));
    const Decimal x = v.ToDecimal();
    // x minus its remainder by one unit of the last kept digit (Mod has x's sign).
    std::string unit = d > 0 ? "0." + std::string(d - 1, '0') + "1" : "1" + std::string(-d, '0');
    std::optional<Decimal> rem = Decimal::Mod(x, *Decimal::Parse(unit));
    std::optional<Decimal> cut = rem.has_value() ? Decimal::Sub(x, *rem) : std::nullopt;
    if (cut.has_value()) cut = cut->Round(d);  // exact now: only sets the shown digits
    if (!cut.has_value()) return OutOfRange("DECIMAL", e, st);
    return v.is_integer() ? IntegerIfFits(std::move(*cut)) : Value::Dec(std::move(*cut));
  }
  const double x = v.ToDouble();
  const double p = std::pow(10.0, static_cast<double>(digits < 0 ? -digits : digits));
  if (digits < 0) return Value::Double(std::isinf(p) ? 0.0 : std::trunc(x / p) * p);
  if (std::isinf(x * p)) return Value::Double(x);
  return Value::Double(std::trunc(x * p) / p);
}

// GREATEST / LEAST: compared by the aggregated type (e.type), as MySQL compares them.
Value Extreme(const BoundExpr& e, const Row& row, EvalState& st) {
  const bool greatest = e.func == Func::kGreatest;
  Value best;
  for (size_t i = 0; i < e.args.size(); ++i) {
    Value v = Eval(e.args[i], row, st);
    if (v.is_null()) return v;
    if (e.type == TypeClass::kString || e.type == TypeClass::kDouble) v = CoerceToType(v, e);
    if (i == 0) {
      best = std::move(v);
      continue;
    }
    const int c = CompareUnder(v, best, CollationOf(e));
    if (greatest ? c > 0 : c < 0) best = std::move(v);
  }
  return CoerceToType(std::move(best), e);
}

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// CONV(n, from, to), MySQL's: the text of n (a number's as it prints) read as leading spaces,
// an optional sign and the longest run of base-|from| digits; past 64 bits the value saturates
// (to the signed range when from < 0). Written unsigned unless to < 0 and the value is negative.
Value Conv(const Value& n, int64_t from, int64_t to) {
  const int64_t fb = std::abs(from), tb = std::abs(to);
  if (fb < 2 || fb > 36 || tb < 2 || tb > 36) return Value::Null();
  const std::string s = n.is_string() ? n.as_string() : n.ToString();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  UInt128 acc = 0;
  bool overflow = false;
  for (; i < s.size() && DigitValue(s[i]) < fb; ++i) {
    acc = acc * static_cast<unsigned>(fb) + static_cast<unsigned>(DigitValue(s[i]));
    if (acc > ~uint64_t{0}) overflow = true, acc = ~uint64_t{0};
  }
  uint64_t value;
  if (from < 0) {  // signed input
    const UInt128 limit = negative ? UInt128{1} << 63 : (UInt128{1} << 63) - 1;
    if (overflow || acc > limit) acc = limit;
    value = negative ? uint64_t{0} - static_cast<uint64_t>(acc) : static_cast<uint64_t>(acc);
  } else {
    if (overflow) {
      value = ~uint64_t{0};
    } else {
      value = negative ? uint64_t{0} - static_cast<uint64_t>(acc) : static_cast<uint64_t>(acc);
    }
  }
  bool minus = false;
  if (to < 0 && static_cast<int64_t>(value) < 0) {
    minus = true;
    value = uint64_t{0} - value;
  }
  std::string out;
  do {
    out += "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[value % static_cast<uint64_t>(tb)];
    value /= static_cast<uint64_t>(tb);
  } while (value != 0);
  if (minus) out += '-';
  std::reverse(out.begin(), out.end());
  return Value::String(std::move(out));
}

// FORMAT(x, d) in en_US: "1,234.50".
Value Format(const Value& x, int64_t digits, const BoundExpr& e, EvalState& st) {
  const int d = static_cast<int>(std::clamp<int64_t>(digits, 0, Decimal::kMaxScale));
  std::string text;
  if (x.is_integer() || x.is_decimal()) {
    std::optional<Decimal> r = x.ToDecimal().Round(d);
    if (!r.has_value()) return OutOfRange("DECIMAL", e, st);
    text = r->ToString();
  } else {
    const double v = x.ToDouble();
    if (!std::isfinite(v)) return Value::String(v > 0 ? "inf" : v < 0 ? "-inf" : "nan");
    // Rounded as MySQL's my_double_round does, then printed with d digits.
    const double p = std::pow(10.0, d);
    const double r = std::isinf(v * p) ? v : std::rint(v * p) / p;
    text = fmt::format("{:.{}f}", r, d);
    if (text == fmt::format("-{:.{}f}", 0.0, d)) text.erase(0, 1);
  }
  const bool minus = !text.empty() && text[0] == '-';
  const size_t start = minus ? 1 : 0;
  const size_t point = std::min(text.find('.'), text.size());
  std::string out = minus ? "-" : "";
  for (size_t i = start; i < point; ++i) {
    if (i > start && (point - i) % 3 == 0) out += ',';
    out += text[i];
  }
  out.append(text, point, std::string::npos);
  return Value::String(std::move(out));
}

}  // namespace

// A number's bits as MySQL's integer functions read it: integers as they are (two's complement
// for negatives), others rounded to the nearest integer, saturated to the 64-bit range.
uint64_t IntegerBits(const Value& v) {
  if (v.is_uint()) return v.as_uint();
  if (v.is_int()) return static_cast<uint64_t>(v.as_int());
  if (v.is_decimal()) {
    int64_t i;
    uint64_t u;
    if (v.as_decimal().ToInt64(&i)) return static_cast<uint64_t>(i);
    if (v.as_decimal().ToUInt64(&u)) return u;
    return v.as_decimal().is_negative() ? uint64_t{1} << 63 : ~uint64_t{0};
  }
  const double d = std::rint(v.ToDouble());
  if (d >= 18446744073709551615.0) return ~uint64_t{0};
  if (d >= 9223372036854775807.0) return static_cast<uint64_t>(d);
  if (d <= -9223372036854775808.0) return uint64_t{1} << 63;
  return static_cast<uint64_t>(static_cast<int64_t>(d));
}

namespace {

// MySQL's uuid_short(): server_id's low byte (minnow's server_id is 1, as MySQL's default) in
// the top 8 bits, then the process's start in seconds shifted by 24, plus a counter.
uint64_t NextUuidShort() {
  static std::atomic<uint64_t> next{
      (uint64_t{1} << 56) +
      (static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count())
       << 24)};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

bool IsMathFunction(Func f) { return f >= Func::kSign && f <= Func::kUuidShort; }

Value EvalMathFunction(const BoundExpr& e, const Row& row, EvalState& st) {
  if (e.func == Func::kGreatest || e.func == Func::kLeast) return Extreme(e, row, st);
  std::vector<Value> a;
  a.reserve(e.args.size());
  for (const BoundExpr& x : e.args) {
    a.push_back(Eval(x, row, st));
    if (a.back().is_null()) return Value::Null();
  }
  auto num = [&](size_t i) { return a[i].ToDouble(); };
  switch (e.func) {
    case Func::kSign: {
      if (a[0].is_uint()) return Value::Int(a[0].as_uint() > 0 ? 1 : 0);
      if (a[0].is_int()) return Value::Int(a[0].as_int() > 0 ? 1 : a[0].as_int() < 0 ? -1 : 0);
      if (a[0].is_decimal()) {
        const Decimal& d = a[0].as_decimal();
        return Value::Int(d.is_zero() ? 0 : d.is_negative() ? -1 : 1);
      }
      const double x = num(0);
      return Value::Int(x > 0 ? 1 : x < 0 ? -1 : 0);
    }
    case Func::kPow:
      return DoubleResult(std::pow(num(0), num(1)), e, st);
    case Func::kSqrt:
      return num(0) < 0 ? Value::Null() : Value::Double(std::sqrt(num(0)));
    case Func::kExp:
      return DoubleResult(std::exp(num(0)), e, st);
    case Func::kLn:
      return Logarithm(num(0), std::log, st);
    case Func::kLog: {
      if (a.size() == 1) return Logarithm(num(0), std::log, st);
      // LOG(b, x) = LN(x) / LN(b), as MySQL computes it.
      const double b = num(0), x = num(1);
      if (b <= 0 || b == 1 || x <= 0) {
        Warn(st, kErInvalidArgumentForLogarithm, "Invalid argument for logarithm");
        return Value::Null();
      }
      return Value::Double(std::log(x) / std::log(b));
    }
    case Func::kLog2:
      return Logarithm(num(0), std::log2, st);
    case Func::kLog10:
      return Logarithm(num(0), std::log10, st);
    case Func::kSin:
      return Value::Double(std::sin(num(0)));
    case Func::kCos:
      return Value::Double(std::cos(num(0)));
    case Func::kTan:
      return DoubleResult(std::tan(num(0)), e, st);
    case Func::kAsin:
    case Func::kAcos: {
      const double x = num(0);
      if (x < -1 || x > 1) return Value::Null();
      return Value::Double(e.func == Func::kAsin ? std::asin(x) : std::acos(x));
    }
    case Func::kAtan:
      return Value::Double(a.size() == 1 ? std::atan(num(0)) : std::atan2(num(0), num(1)));
    case Func::kCot: {
      const double t = std::tan(num(0));
      if (t == 0) return OutOfRange("DOUBLE", e, st);
      return DoubleResult(1.0 / t, e, st);
    }
    case Func::kRadians:
      return Value::Double(num(0) * (std::numbers::pi / 180.0));
    case Func::kDegrees:
      return Value::Double(num(0) * (180.0 / std::numbers::pi));
    case Func::kTruncate:
      return Truncate(e, a[0], a[1].ToInt(), st);
    case Func::kCrc32: {
      const std::string s = a[0].is_string() ? a[0].as_string() : a[0].ToString();
      boost::crc_32_type crc;
      crc.process_bytes(s.data(), s.size());
      return Value::Int(static_cast<int64_t>(crc.checksum()));
    }
    case Func::kBitCount:
      return Value::Int(__builtin_popcountll(IntegerBits(a[0])));
    case Func::kConv:
      return Conv(a[0], a[1].ToInt(), a[2].ToInt());
    case Func::kBin:
    case Func::kOct:
      return Conv(a[0], 10, e.func == Func::kBin ? 2 : 8);
    case Func::kFormat:
      if (a.size() > 2 && !EqualsNoCase(a[2].is_string() ? a[2].as_string() : "", "en_US")) {
        if (!st.error.has_value())
          st.error = SqlErr(kErNotSupportedYet,
                            "This version of minnow doesn't yet support 'FORMAT with a locale "
                            "other than en_US'");
        return Value::Null();
      }
      return Format(a[0], a[1].ToInt(), e, st);
    case Func::kPi:
      return Value::Double(std::numbers::pi);
    case Func::kUuidShort:
      return Value::UInt(NextUuidShort());
    default:
      break;
  }
  return Value::Null();
}

}  // namespace minnow::sql
