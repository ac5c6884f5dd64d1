// Value conversions and comparison, as MySQL does them for the types minnow has.

#include "sql_lite_front/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "sql_lite_front/value_internal.h"

namespace minnow::sql {

// Rows are vectors of Values: a Value no bigger than a string and its kind, so scans copy no
// more than before decimals (value.h holds them out of line).
static_assert(sizeof(Value) <= sizeof(std::string) + sizeof(void*));

namespace {

constexpr double kTwo63 = 9223372036854775808.0;  // 2^63, exact as a double

// Three-way comparison of an integer with a double, exactly (no rounding of `i` to double).
int CompareIntDouble(int64_t i, double d) {
  if (std::isnan(d)) return 1;  // SQL never makes NaN; order it first so sorts stay total
  if (d >= kTwo63) return -1;
  if (d < -kTwo63) return 1;
  double t = std::trunc(d);
  auto ti = static_cast<int64_t>(t);  // in range: -2^63 <= t < 2^63
  if (i < ti) return -1;
  if (i > ti) return 1;
  double frac = d - t;
  return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

int CompareDoubles(double a, double b) { return a < b ? -1 : (a > b ? 1 : 0); }

bool IsExact(const Value& v) { return v.is_integer() || v.is_decimal(); }

// `v` (a string or a number) read as a date, as MySQL reads the constant a temporal value is
// compared with; nullopt when it is none.
std::optional<int64_t> AsTemporal(const Value& v) {
  std::optional<DateTimeParts> p;
  if (v.is_string()) {
    TemporalParse t = ParseTemporalText(v.as_string());
    if (!t.trailing) p = t.parts;
  } else if (v.is_int()) {
    p = ParseTemporalNumber(v.as_int());
  }
  if (!p.has_value()) return std::nullopt;
  return PackParts(*p);
}

int Sign(int64_t d) { return d < 0 ? -1 : (d > 0 ? 1 : 0); }

// A TIME `t` against `o`: as TIMEs with a TIME or text that is one, on today's date with a
// DATE or DATETIME (MySQL compares them as DATETIMEs), else as numbers.
int CompareTime(const Value& t, const Value& o) {
  const Temporal& x = t.as_temporal();
  if (o.is_temporal() && o.as_temporal().is_time()) return Sign(x.packed - o.as_temporal().packed);
  if (o.is_temporal() && o.as_temporal().type != Temporal::Type::kYear) {
    Temporal on_today;
    if (TimeOnDate(x, CurrentDate(), &on_today)) {
      return Sign(on_today.packed - o.as_temporal().packed);
    }
  }
  if (o.is_string()) {
    const TimeParse p = ValueAsTime(o);
    if (p.micros.has_value() && !p.trailing) return Sign(x.packed - *p.micros);
    return Value::Compare(Value::String(t.ToString()), o);
  }
  return CompareDoubles(t.ToDouble(), o.ToDouble());
}

// A temporal `t` against another value `o`: as dates if `o` is one, else `t`'s text with a
// string and its number with a number.
int CompareTemporal(const Value& t, const Value& o) {
  if (t.as_temporal().is_time()) return CompareTime(t, o);
  if (o.is_temporal() && o.as_temporal().is_time()) return -CompareTime(o, t);
  if (t.as_temporal().type == Temporal::Type::kYear ||
      (o.is_temporal() && o.as_temporal().type == Temporal::Type::kYear)) {
    return CompareDoubles(t.ToDouble(), o.ToDouble());  // YEAR is a number
  }
  const int64_t x = t.as_temporal().packed;
  std::optional<int64_t> y;
  if (o.is_temporal()) {
    y = o.as_temporal().packed;
  } else {
    y = AsTemporal(o);
  }
  if (y.has_value()) return x < *y ? -1 : (x > *y ? 1 : 0);
  if (o.is_string()) return Value::Compare(Value::String(t.ToString()), o);
  return CompareDoubles(t.ToDouble(), o.ToDouble());
}

// An ENUM or SET value against another: by number against a value of the same members (ORDER
// BY sorts by index) or a number, else as text.
int CompareEnum(const Value& a, const Value& b) {
  if (a.is_enum() && b.is_enum() && a.as_enum().members == b.as_enum().members) {
    const uint64_t x = a.as_enum().number, y = b.as_enum().number;
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  const Value& other = a.is_enum() ? b : a;
  if (other.is_string() || other.is_enum() || other.is_temporal()) {
    return Value::Compare(Value::String(a.ToString()), Value::String(b.ToString()));
  }
  const Value x = a.is_enum() ? Value::UInt(a.as_enum().number) : a;
  const Value y = b.is_enum() ? Value::UInt(b.as_enum().number) : b;
  return Value::Compare(x, y);
}

}  // namespace

TimeParse ValueAsTime(const Value& v) {
  if (v.is_temporal()) {
    const Temporal& t = v.as_temporal();
    TimeParse out;
    out.frac_digits = t.fsp;
    if (t.is_time()) {
      out.micros = t.packed;
    } else if (t.type == Temporal::Type::kYear) {
      return ParseTimeNumber(t.parts().year);
    } else {
      DateTimeParts p = t.parts();
      p.year = p.month = p.day = 0;
      out.micros = TimeMicros(p);
    }
    return out;
  }
  if (v.is_string()) return ParseTimeText(v.as_string());
  if (v.is_enum()) return ParseTimeText(v.ToString());
  if (v.is_int()) return ParseTimeNumber(v.as_int());
  if (v.is_uint()) return ParseTimeNumber(INT64_MAX);
  const double d = v.ToDouble();
  if (!(std::fabs(d) < 1e18)) return ParseTimeNumber(d < 0 ? INT64_MIN : INT64_MAX);
  const double whole = std::trunc(d);
  TimeParse out = ParseTimeNumber(static_cast<int64_t>(whole));
  out.frac_digits = v.is_decimal() ? std::min(6, v.as_decimal().scale()) : 6;
  if (out.micros.has_value() && !out.clipped) {
    const auto micro = static_cast<int64_t>(std::llround(std::fabs(d - whole) * 1e6));
    const int64_t with = *out.micros + (d < 0 ? -micro : micro);
    out.micros = std::clamp(with, -kMaxTimeMicros, kMaxTimeMicros);
    out.clipped = with != *out.micros;
  }
  return out;
}

std::string EnumValue::Text() const {
  if (!members->is_set) {
    return number == 0 || number > members->names.size() ? std::string()
                                                         : members->names[number - 1];
  }
  std::string out;
  for (size_t i = 0; i < members->names.size() && i < 64; ++i) {
    if ((number >> i & 1) == 0) continue;
    if (!out.empty()) out += ',';
    out += members->names[i];
  }
  return out;
}

NumericPrefix ParseNumericPrefix(std::string_view s) {
  NumericPrefix out;
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  size_t start = i;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++int_digits;
  size_t int_end = i;
  if (i < s.size() && s[i] == '.') {
    size_t j = i + 1;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j, ++frac_digits;
    if (int_digits + frac_digits > 0) i = j;
  }
  if (int_digits + frac_digits == 0) {
    out.consumed = 0;
    return out;  // no number: 0
  }
  out.is_integer = (i == int_end);
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    size_t exp_digits = 0;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j, ++exp_digits;
    if (exp_digits > 0) {
      i = j;
      out.is_integer = false;
    }
  }
  out.consumed = i;
  out.valid = true;
  std::string text(s.substr(start, i - start));
  out.d = std::strtod(text.c_str(), nullptr);
  if (out.is_integer) {
    // Exact for integers that fit; saturating beyond (as MySQL clips to the range).
    const char* b = text.data();
    const char* e = b + text.size();
    if (*b == '+') ++b;
    int64_t v = 0;
    auto r = std::from_chars(b, e, v);
    if (r.ec == std::errc::result_out_of_range) {
      v = text[0] == '-' ? std::numeric_limits<int64_t>::min()
                         : std::numeric_limits<int64_t>::max();
      out.int_overflow = true;
    }
    out.i = v;
  }
  return out;
}

int64_t DoubleToIntRounded(double d, bool* overflow) {
  double r = std::round(d);  // half away from zero, as MySQL rounds
  if (std::isnan(r) || r >= kTwo63 || r < -kTwo63) {
    if (overflow != nullptr) *overflow = true;
    if (std::isnan(r)) return 0;
    return r > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  if (overflow != nullptr) *overflow = false;
  return static_cast<int64_t>(r);
}

int64_t Value::ToInt() const {
  switch (kind()) {
    case Kind::kNull:
      return 0;
    case Kind::kInt:
      return as_int();
    case Kind::kDouble:
      return DoubleToIntRounded(as_double(), nullptr);
    case Kind::kString: {
      NumericPrefix p = ParseNumericPrefix(as_string());
      if (!p.valid) return 0;
      return p.is_integer ? p.i : DoubleToIntRounded(p.d, nullptr);
    }
    case Kind::kUInt:
      return std::numeric_limits<int64_t>::max();  // kUInt is above it
    case Kind::kDecimal: {
      int64_t i = 0;
      if (as_decimal().ToInt64(&i)) return i;
      return as_decimal().is_negative() ? std::numeric_limits<int64_t>::min()
                                        : std::numeric_limits<int64_t>::max();
    }
    case Kind::kTemporal:
      return TemporalToInt(as_temporal());
    case Kind::kEnum:
      return as_enum().number > static_cast<uint64_t>(INT64_MAX)
                 ? std::numeric_limits<int64_t>::max()  // a SET with its 64th member, as kUInt
                 : static_cast<int64_t>(as_enum().number);
  }
  return 0;
}

Decimal Value::ToDecimal() const {
  if (is_int()) return Decimal::FromInt(as_int());
  if (is_uint()) return Decimal::FromUInt(as_uint());
  return as_decimal();
}

double Value::ToDouble() const {
  switch (kind()) {
    case Kind::kNull:
      return 0;
    case Kind::kInt:
      return static_cast<double>(as_int());
    case Kind::kDouble:
      return as_double();
    case Kind::kString: {
      NumericPrefix p = ParseNumericPrefix(as_string());
      return p.valid ? p.d : 0;
    }
    case Kind::kUInt:
      return static_cast<double>(as_uint());
    case Kind::kDecimal:
      return as_decimal().ToDouble();
    case Kind::kTemporal:
      return TemporalToDouble(as_temporal());
    case Kind::kEnum:
      return static_cast<double>(as_enum().number);
  }
  return 0;
}

std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  // The shortest digits that read back as `d` (dtoa mode 0, as MySQL's my_gcvt asks for).
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string sci(buf, r.ptr);  // "-1.2345e+02"
  bool negative = sci[0] == '-';
  size_t epos = sci.find('e');
  std::string mant = sci.substr(negative ? 1 : 0, epos - (negative ? 1 : 0));
  int exp10 = std::atoi(sci.c_str() + epos + 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int len = static_cast<int>(digits.size());
  int decpt = exp10 + 1;  // digits d1 d2 ... with the point after decpt of them
  if (digits == "0") decpt = 1;

  std::string out = negative ? "-" : "";
  // my_gcvt's rule with room to spare: 'f' unless the point is far out (DBL_DIG = 15).
  bool fixed = decpt >= -15 + 1 && (decpt <= 15 || len > decpt);
  if (fixed) {
    if (decpt <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-decpt), '0');
      out += digits;
    } else if (decpt < len) {
      out += digits.substr(0, decpt);
      out += '.';
      out += digits.substr(decpt);
    } else {
      out += digits;
      out.append(static_cast<size_t>(decpt - len), '0');
    }
  } else {
    out += digits[0];
    if (len > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += 'e';
    out += std::to_string(decpt - 1);
  }
  return out;
}

std::string Value::ToString() const {
  switch (kind()) {
    case Kind::kNull:
      return "NULL";
    case Kind::kInt:
      return std::to_string(as_int());
    case Kind::kDouble:
      return FormatDouble(as_double());
    case Kind::kString:
      return as_string();
    case Kind::kUInt:
      return std::to_string(as_uint());
    case Kind::kDecimal:
      return as_decimal().ToString();
    case Kind::kTemporal:
      return FormatTemporal(as_temporal());
    case Kind::kEnum:
      return as_enum().Text();
  }
  return {};
}

bool Value::IsTrue() const {
  switch (kind()) {
    case Kind::kNull:
      return false;
    case Kind::kInt:
      return as_int() != 0;
    case Kind::kDouble:
      return as_double() != 0;
    case Kind::kString:
      return ToDouble() != 0;
    case Kind::kUInt:
      return true;
    case Kind::kDecimal:
      return !as_decimal().is_zero();
    case Kind::kTemporal:
      return as_temporal().packed != 0;
    case Kind::kEnum:
      return as_enum().number != 0;
  }
  return false;
}

int Value::Compare(const Value& a, const Value& b) {
  // NULL sorts first (callers usually handle NULL before asking).
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : (a.is_null() ? -1 : 1);
  if (a.is_enum() || b.is_enum()) return CompareEnum(a, b);
  if (a.is_temporal()) return CompareTemporal(a, b);
  if (b.is_temporal()) return -CompareTemporal(b, a);
  if (a.is_string() && b.is_string()) {
    const std::string& x = a.as_string();
    const std::string& y = b.as_string();
    int c = std::memcmp(x.data(), y.data(), std::min(x.size(), y.size()));
    if (c != 0) return c < 0 ? -1 : 1;
    return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
  }
  if (a.is_int() && b.is_int()) {
    return a.as_int() < b.as_int() ? -1 : (a.as_int() > b.as_int() ? 1 : 0);
  }
  // Integers and decimals compare exactly.
  if (IsExact(a) && IsExact(b)) return Decimal::Compare(a.ToDecimal(), b.ToDecimal());
  // Numbers (a string meeting a number is read as a number).
  if (a.is_int()) return CompareIntDouble(a.as_int(), b.ToDouble());
  if (b.is_int()) return -CompareIntDouble(b.as_int(), a.ToDouble());
  if (a.is_uint() || b.is_uint()) {  // x86's long double holds every uint64 exactly
    long double x = a.is_uint() ? a.as_uint() : a.ToDouble();
    long double y = b.is_uint() ? b.as_uint() : b.ToDouble();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  return CompareDoubles(a.ToDouble(), b.ToDouble());
}

bool LikeMatch(std::string_view text, std::string_view pattern) {
  // Greedy matching with one backtrack point (the last %), which is exact for % and _.
  size_t t = 0, p = 0;
  size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      const char c = pattern[p];
      if (c == '%') {
        star_p = ++p;
        star_t = t;
        continue;
      }
      if (c == '_') {
        ++p;
        ++t;
        continue;
      }
      const bool escaped = c == '\\' && p + 1 < pattern.size();
      const char literal = escaped ? pattern[p + 1] : c;
      if (literal == text[t]) {
        p += escaped ? 2 : 1;
        ++t;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '%') ++p;
  return p == pattern.size();
}

}  // namespace minnow::sql
