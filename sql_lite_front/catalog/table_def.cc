// Table definitions: names, the catalog record's encoding, SHOW CREATE TABLE, and MySQL's
// conversion of a value into a column (strict mode's errors, or the warnings without it).

#include "sql_lite_front/catalog/table_def.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "common/check.h"
#include "sql_lite_front/catalog/enum_set.h"
#include "sql_lite_front/catalog/key_order.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/value_internal.h"

namespace minnow::sql {
namespace {

// ---- the catalog record's encoding
//
// Version 3: u8 version, then the fields of TableDef in declaration order: strings and counts
// as varint length + bytes, enums as u8, numbers as varints (create_time zig-zagged), a
// DECIMAL column's scale as u8 after its length (other types have none), a column's default
// as u8 kind (0 none, 1 NULL, 2 int, 3 double, 4 string, 5 date, 6 decimal as its text) +
// payload, then the column's collation name (empty for numbers); after create_time the u8
// record_format, then the optional tail. Version 2 is the same without record_format: its
// tables were written before the texts of PAD SPACE keys were kept
// (RecordFormat::kPadKeysWithoutText). Version 1 had no collations: its tables' string keys are
// bytes, which later versions read as collation weights, so it is refused, not read.
constexpr uint8_t kFormatVersion = 3;
constexpr uint8_t kFormatWithoutRecordFormat = 2;
constexpr uint8_t kFormatWithoutCollations = 1;

class Writer {
 public:
  void U8(uint8_t v) { out_ += static_cast<char>(v); }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }
  void Fixed64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  void Str(std::string_view s) {
    Varint(s.size());
    out_.append(s);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// Bounds-checked reads: any read past the end sets failed() and returns zeros.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool failed() const { return failed_; }
  bool at_end() const { return pos_ == in_.size(); }
  size_t remaining() const { return in_.size() - pos_; }
  uint8_t U8() {
    if (pos_ >= in_.size()) return Fail();
    return static_cast<uint8_t>(in_[pos_++]);
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) return Fail();
      auto b = static_cast<uint8_t>(in_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return Fail();
  }
  uint64_t Fixed64() {
    if (remaining() < 8) return Fail();
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return v;
  }
  std::string Str() {
    uint64_t n = Varint();
    if (failed_ || n > remaining()) {
      Fail();
      return {};
    }
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  // A count of items each at least one byte long: more than the bytes left is damage.
  uint64_t Count() {
    uint64_t n = Varint();
    if (n > remaining()) return Fail();
    return n;
  }

 private:
  uint8_t Fail() {
    failed_ = true;
    pos_ = in_.size();
    return 0;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool failed_ = false;
};

SqlError Damaged(std::string_view what) {
  return SqlErr(kErUnknownError, "Damaged table definition in the catalog: ", what);
}

// ---- storing a value into a column (strict: errors; else converted with warnings)

// The range of an integer column (unsigned BIGINT stops at 2^63 - 1: values are int64).
void IntRange(const ColumnDef& col, int64_t* lo, int64_t* hi) {
  const size_t bits = 8 * IntegerBytes(col.type);
  if (bits == 64) {
    *lo = col.is_unsigned ? 0 : std::numeric_limits<int64_t>::min();
    *hi = std::numeric_limits<int64_t>::max();
  } else if (col.is_unsigned) {
    *lo = 0;
    *hi = (int64_t{1} << bits) - 1;
  } else {
    *lo = -(int64_t{1} << (bits - 1));
    *hi = (int64_t{1} << (bits - 1)) - 1;
  }
}

std::string RowSuffix(uint64_t row) { return " at row " + std::to_string(row); }

SqlError OutOfRange(const ColumnDef& col, uint64_t row) {
  return SqlErr(kErOutOfRange, "Out of range value for column '", col.name, "'", RowSuffix(row));
}

SqlError Truncated(const ColumnDef& col, uint64_t row) {
  return SqlErr(kErWarnDataTruncated, "Data truncated for column '", col.name, "'", RowSuffix(row));
}

SqlError TooLong(const ColumnDef& col, uint64_t row) {
  return SqlErr(kErDataTooLong, "Data too long for column '", col.name, "'", RowSuffix(row));
}

// 1366 for a string with no number at its start ("abc", "", "  ") into an integer column.
SqlError NotAnInteger(const ColumnDef& col, const Value& v, uint64_t row) {
  return SqlErr(kErTruncatedWrongValueForField,
                "Incorrect integer value: ", QuoteStringLiteral(v.as_string()), " for column '",
                col.name, "'", RowSuffix(row));
}
// A value `col` cannot hold as it is: under rules.errors the error to return; else nullopt,
// with `e` recorded as a warning (the caller stores the converted value).
std::optional<SqlError> Bad(const StoreRules& rules, SqlError e) {
  if (rules.errors) return e;
  if (rules.warnings != nullptr) {
    rules.warnings->push_back(SqlWarning{"Warning", e.code, std::move(e.message)});
  }
  return std::nullopt;
}

// True if `s` has something other than white space from `from` on (MySQL's
// test_if_important_data: "12abc" loses "abc", "12  " loses nothing).
bool HasGarbage(std::string_view s, size_t from) {
  for (size_t i = from; i < s.size(); ++i) {
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r') return true;
  }
  return false;
}

// MySQL's Field_num::store order: the range first (1264, the value clamped, nothing more),
// then a string's rest after its number (1265), or no number at all (1366, 0).
SqlResult<Value> CoerceToInteger(const ColumnDef& col, const Value& v, uint64_t row,
                                 const StoreRules& rules) {
  int64_t lo, hi;
  IntRange(col, &lo, &hi);
  int64_t x = 0;
  bool overflow = false;  // beyond int64: x holds the sign's end
  bool garbage = false;
  if (v.is_int()) {
    x = v.as_int();
  } else if (v.is_uint()) {
    overflow = true;  // above 2^63 - 1: beyond every column's range
    x = hi;
  } else if (v.is_decimal()) {
    overflow = !v.as_decimal().ToInt64(&x);  // rounded half away from zero, as MySQL stores it
    if (overflow) x = v.ToDouble() < 0 ? lo : hi;
  } else if (v.is_double()) {
    x = DoubleToIntRounded(v.as_double(), &overflow);
  } else {
    const std::string& s = v.as_string();
    NumericPrefix p = ParseNumericPrefix(s);
    if (!p.valid) {
      if (auto e = Bad(rules, NotAnInteger(col, v, row))) return *e;
      return Value::Int(0);
    }
    if (p.is_integer) {
      x = p.i;
      overflow = p.int_overflow;
    } else {
      x = DoubleToIntRounded(p.d, &overflow);
    }
    garbage = HasGarbage(s, p.consumed);
  }
  if (overflow || x < lo || x > hi) {
    // An unsigned BIGINT above 2^63 - 1 holds values MySQL would keep and minnow cannot: the
    // error in every mode.
    if (col.type == ColumnType::kBigInt && col.is_unsigned && x > 0) return OutOfRange(col, row);
    if (auto e = Bad(rules, OutOfRange(col, row))) return *e;
    return Value::Int(std::clamp(x, lo, hi));
  }
  if (garbage) {
    if (auto e = Bad(rules, Truncated(col, row))) return *e;
  }
  return Value::Int(x);
}

SqlResult<Value> CoerceToDouble(const ColumnDef& col, const Value& v, uint64_t row,
                                const StoreRules& rules) {
  double d = 0;
  bool garbage = false;
  if (v.is_integer() || v.is_decimal()) {
    d = v.ToDouble();
  } else if (v.is_double()) {
    d = v.as_double();
  } else {
    const std::string& s = v.as_string();
    NumericPrefix p = ParseNumericPrefix(s);
    if (!p.valid) {  // MySQL's Field_double::store: 1265 here, not 1366 as for integers
      if (auto e = Bad(rules, Truncated(col, row))) return *e;
      return Value::Double(0);
    }
    d = p.d;
    garbage = HasGarbage(s, p.consumed);
  }
  // MySQL's Field_real::truncate: NaN and beyond the range (an UNSIGNED one: below 0).
  if (std::isnan(d) || std::isinf(d) || (col.is_unsigned && d < 0)) {
    if (auto e = Bad(rules, OutOfRange(col, row))) return *e;
    const double max = std::numeric_limits<double>::max();
    if (std::isnan(d)) return Value::Double(0);
    return Value::Double(d > 0 ? max : col.is_unsigned ? 0 : -max);
  }
  if (garbage) {
    if (auto e = Bad(rules, Truncated(col, row))) return *e;
  }
  return Value::Double(d);
}

// A string's number as an exact decimal (MySQL's str2my_decimal): its digits read exactly, an
// exponent applied exactly; nullopt past 65 digits. `p` is ParseNumericPrefix(s), valid.
std::optional<Decimal> StringDecimal(std::string_view s, const NumericPrefix& p) {
  std::string_view text = s.substr(0, p.consumed);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0)
    text.remove_prefix(1);
  const size_t e = text.find_first_of("eE");
  std::optional<Decimal> mantissa = Decimal::Parse(text.substr(0, e));
  if (!mantissa.has_value()) return Decimal::FromDouble(p.d);
  if (e == std::string_view::npos) return mantissa;
  int exponent = 0;
  std::string_view digits = text.substr(e + 1);
  const bool negative = !digits.empty() && digits[0] == '-';
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
  for (char c : digits) {
    exponent = exponent * 10 + (c - '0');
    if (exponent > 2 * Decimal::kMaxDigits) return Decimal::FromDouble(p.d);
  }
  if (exponent == 0) return mantissa;
  std::optional<Decimal> power =
      Decimal::Parse(negative ? "0." + std::string(static_cast<size_t>(exponent) - 1, '0') + "1"
                              : "1" + std::string(static_cast<size_t>(exponent), '0'));
  if (!power.has_value()) return negative ? std::optional<Decimal>(Decimal()) : std::nullopt;
  return Decimal::Mul(*mantissa, *power);
}

// MySQL's Field_new_decimal::store: a string's number (1366 without one, a note 1265 for more
// after it; in strict mode both are the error 1366), rounded to the scale (a note 1265), then
// the range (1264, clipped; any negative value into UNSIGNED, even one that rounds to 0).
SqlResult<Value> CoerceToDecimal(const ColumnDef& col, const Value& v, uint64_t row,
                                 const StoreRules& rules) {
  const int precision = static_cast<int>(col.length), scale = col.scale;
  const Decimal max = Decimal::Max(precision, scale);
  const Decimal zero = *Decimal().Round(scale);
  const Decimal min = col.is_unsigned ? zero : max.Negated();
  std::optional<Decimal> d;
  bool garbage = false;
  bool negative = false;  // the value's sign, when it has more than 65 digits
  if (v.is_integer() || v.is_decimal()) {
    d = v.ToDecimal();
  } else if (v.is_double()) {
    d = Decimal::FromDouble(v.as_double());
    negative = v.as_double() < 0;
  } else if (v.is_temporal()) {
    d = Decimal::FromDouble(v.ToDouble());
  } else {
    const std::string& s = v.as_string();
    NumericPrefix p = ParseNumericPrefix(s);
    garbage = p.valid && HasGarbage(s, p.consumed);
    if (!p.valid || (garbage && rules.errors)) {
      if (auto e = Bad(rules, SqlErr(kErTruncatedWrongValueForField,
                                     "Incorrect decimal value: ", QuoteStringLiteral(s),
                                     " for column '", col.name, "'", RowSuffix(row)))) {
        return *e;
      }
      return Value::Dec(zero);
    }
    d = StringDecimal(s, p);
    negative = p.d < 0;
  }
  if (d.has_value()) negative = d->is_negative();
  std::optional<Decimal> rounded = d.has_value() ? d->Round(scale) : std::nullopt;
  if (!rounded.has_value() || (col.is_unsigned && negative) ||
      Decimal::Compare(*rounded, max) > 0 || Decimal::Compare(*rounded, min) < 0) {
    if (auto e = Bad(rules, OutOfRange(col, row))) return *e;
    return Value::Dec(negative ? min : max);
  }
  // More after a string's number (non-strict) and digits rounded away are notes.
  if ((garbage || Decimal::Compare(*rounded, *d) != 0) && rules.warnings != nullptr) {
    rules.warnings->push_back(
        SqlWarning{"Note", kErWarnDataTruncated, Truncated(col, row).message});
  }
  return Value::Dec(std::move(*rounded));
}

// MySQL's rendering of the bytes from an invalid one on (1366): printable ASCII as it is,
// other bytes as \xHH, at most 6 bytes, "..." after a longer rest.
std::string InvalidBytes(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (size_t i = 0; i < s.size() && i < 6; ++i) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0x20 && b < 0x7f) {
      out += static_cast<char>(b);
    } else {
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
  }
  if (s.size() > 6) out += "...";
  return out;
}

// The byte offset where `s` stops holding `chars` characters (UTF-8 when `characters`, else
// bytes), or s.size().
size_t CharacterCut(const std::string& s, uint64_t chars, bool characters) {
  if (!characters) return std::min<uint64_t>(chars, s.size());
  size_t cut = 0;
  for (uint64_t k = 0; k < chars && cut < s.size(); ++k) {
    auto b = static_cast<unsigned char>(s[cut]);
    cut += b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  }
  return std::min(cut, s.size());
}

// The longest prefix of valid UTF-8 `s` within `max_bytes` bytes, on a character boundary.
size_t ByteCut(const std::string& s, uint64_t max_bytes, bool characters) {
  size_t cut = std::min<uint64_t>(max_bytes, s.size());
  if (characters) {
    while (cut > 0 && cut < s.size() && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  }
  return cut;
}

SqlResult<Value> CoerceToString(const ColumnDef& col, const Value& v, uint64_t row,
                                const StoreRules& rules) {
  std::string s = v.is_string() ? v.as_string() : v.ToString();
  const Collation& coll = col.EffectiveCollation();
  const bool characters = coll.kind != Collation::Kind::kBytes;
  if (characters) {
    // Not converted in any mode (MySQL would store the text up to the bad bytes, or '?' for
    // them): the strict error.
    size_t bad = Utf8InvalidAt(s, coll.charset == "utf8mb3");
    if (bad != std::string::npos) {
      return SqlErr(kErTruncatedWrongValueForField, "Incorrect string value: '",
                    InvalidBytes(std::string_view(s).substr(bad)), "' for column '", col.name, "'",
                    RowSuffix(row));
    }
  }
  if (col.type == ColumnType::kChar) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
  }
  // CHAR(n)/VARCHAR(n) hold n characters (bytes for a binary column), TEXT and BLOB MaxBytes.
  size_t cut = s.size();
  if (col.type == ColumnType::kChar || col.type == ColumnType::kVarchar) {
    if ((characters ? Utf8Length(s) : s.size()) > col.length) {
      cut = CharacterCut(s, col.length, characters);
    }
  } else if (s.size() > col.MaxBytes()) {
    cut = ByteCut(s, col.MaxBytes(), characters);
  }
  if (cut < s.size()) {
    // MySQL's report_if_important_data: cutting only spaces is a note (CHAR has none left;
    // in a binary column every byte counts); anything else is "too long", as a warning 1406
    // when sql_mode is strict but the statement is not (a MyISAM table's later rows), else 1265.
    if (characters && s.find_first_not_of(' ', cut) == std::string::npos) {
      if (rules.warnings != nullptr) {
        rules.warnings->push_back(
            SqlWarning{"Note", kErWarnDataTruncated, Truncated(col, row).message});
      }
    } else if (auto e = Bad(rules, rules.errors || rules.strict_sql_mode ? TooLong(col, row)
                                                                         : Truncated(col, row))) {
      return *e;
    }
    s.resize(cut);
    if (col.type == ColumnType::kChar) {  // what is left may end in spaces: CHAR drops them
      while (!s.empty() && s.back() == ' ') s.pop_back();
    }
  }
  return Value::String(std::move(s));
}

// "date" or "datetime", as MySQL's messages name the type.
const char* TemporalTypeWord(ColumnType t) { return t == ColumnType::kDate ? "date" : "datetime"; }

SqlError IncorrectTemporal(const ColumnDef& col, std::string_view text, uint64_t row) {
  return SqlErr(kErTruncatedWrongValue, "Incorrect ", TemporalTypeWord(col.type), " value: '", text,
                "' for column '", col.name, "'", RowSuffix(row));
}

// A number as a date: its integer part by MySQL's number_to_datetime, the fraction as
// microseconds.
std::optional<DateTimeParts> NumberAsTemporal(const Value& v) {
  if (v.is_int()) return ParseTemporalNumber(v.as_int());
  if (v.is_uint()) return std::nullopt;
  const double d = v.ToDouble();
  if (!(d >= 0) || d >= 1e15) return std::nullopt;
  const double whole = std::floor(d);
  std::optional<DateTimeParts> p = ParseTemporalNumber(static_cast<int64_t>(whole));
  if (p.has_value()) p->micro = static_cast<int>(std::lround((d - whole) * 1e6));
  if (p.has_value() && p->micro > 999999) p->micro = 999999;
  return p;
}

SqlResult<Value> CoerceToTemporal(const ColumnDef& col, const Value& v, uint64_t row,
                                  const StoreRules& rules) {
  const bool is_date = col.type == ColumnType::kDate;
  const Temporal::Type type = is_date ? Temporal::Type::kDate : Temporal::Type::kDateTime;
  const auto fsp = static_cast<uint8_t>(is_date ? 0 : col.length);
  const Value zero = Value::FromTemporal(MakeTemporal(type, fsp, DateTimeParts{}));
  std::optional<DateTimeParts> parts;
  bool has_time = false, trailing = false, out_of_range = false;
  if (v.is_temporal() && v.as_temporal().is_time()) {
    Temporal on_today;  // a TIME on today's date, as MySQL 8.0 converts it
    if (TimeOnDate(v.as_temporal(), CurrentDate(), &on_today)) parts = on_today.parts();
    has_time = true;
  } else if (v.is_temporal()) {
    parts = v.as_temporal().parts();
    has_time = v.as_temporal().type != Temporal::Type::kDate;
  } else if (v.is_string()) {
    TemporalParse t = ParseTemporalText(v.as_string());
    parts = t.parts;
    has_time = t.has_time;
    trailing = t.trailing;
    out_of_range = t.out_of_range;
  } else {
    parts = NumberAsTemporal(v);
    has_time = true;
  }
  if (!parts.has_value() || trailing) {
    if (auto e = Bad(rules, rules.errors   ? IncorrectTemporal(col, v.ToString(), row)
                            : out_of_range ? OutOfRange(col, row)
                                           : Truncated(col, row))) {
      return *e;
    }
    if (!parts.has_value()) return zero;
  }
  const bool zero_date = parts->year == 0 && parts->month == 0 && parts->day == 0;
  if ((rules.no_zero_date && zero_date) ||
      (rules.no_zero_in_date && !zero_date && HasZeroInDate(*parts))) {
    if (auto e = Bad(rules, rules.errors ? IncorrectTemporal(col, v.ToString(), row)
                                         : OutOfRange(col, row))) {
      return *e;
    }
    return zero;
  }
  if (!is_date && !RoundToFsp(&*parts, fsp)) {
    if (auto e = Bad(rules, rules.errors ? IncorrectTemporal(col, v.ToString(), row)
                                         : OutOfRange(col, row))) {
      return *e;
    }
    return zero;
  }
  if (is_date && has_time && !trailing &&
      (parts->hour != 0 || parts->minute != 0 || parts->second != 0 || parts->micro != 0)) {
    if (rules.warnings != nullptr) {
      rules.warnings->push_back(
          SqlWarning{"Note", kErWarnDataTruncated, Truncated(col, row).message});
    }
  }
  if (col.type == ColumnType::kTimestamp && !zero_date) {
    // A TIMESTAMP holds UTC seconds 1 .. 2^31 - 1: the local time must be one of them. It is
    // kept as that instant seen locally again (a time in a daylight-saving gap moves on).
    const std::optional<int64_t> utc = LocalToUtc(*parts, CurrentTimeZone());
    if (!utc.has_value() || *utc < kMinTimestampSeconds || *utc > kMaxTimestampSeconds) {
      if (auto e = Bad(rules, rules.errors ? IncorrectTemporal(col, v.ToString(), row)
                                           : OutOfRange(col, row))) {
        return *e;
      }
      return zero;
    }
    parts = UtcToLocal(*utc, parts->micro, CurrentTimeZone());
  }
  return Value::FromTemporal(MakeTemporal(type, fsp, *parts));
}

Value Year(int year) {
  return Value::FromTemporal(MakeTemporal(Temporal::Type::kYear, 0, DateTimeParts{year}));
}

SqlResult<Value> CoerceToYear(const ColumnDef& col, const Value& v, uint64_t row,
                              const StoreRules& rules) {
  auto out_of_range = [&]() -> SqlResult<Value> {
    if (auto e = Bad(rules, OutOfRange(col, row))) return *e;
    return Year(0);
  };
  if (v.is_temporal()) {
    const Temporal& t = v.as_temporal();
    if (t.type == Temporal::Type::kYear) return v;
    const int y = t.is_time() ? CurrentDate().year : t.parts().year;
    if (y != 0 && (y < 1901 || y > 2155)) return out_of_range();
    return Year(y);
  }
  int64_t n = 0;
  bool two_digit_zero = false;  // '0' or '00' as text: 2000
  if (v.is_string()) {
    const std::string& text = v.as_string();
    const NumericPrefix num = ParseNumericPrefix(text);
    if (!num.valid) return out_of_range();
    bool overflow = false;
    n = num.is_integer ? num.i : DoubleToIntRounded(num.d, &overflow);
    if (overflow) return out_of_range();
    if (n < 0 || (n >= 100 && n <= 1900) || n > 2155) return out_of_range();
    if (text.find_first_not_of(" \t\n\r", num.consumed) != std::string::npos) {
      if (auto e = Bad(rules, Truncated(col, row))) return *e;
    }
    two_digit_zero = n == 0 && text.size() != 4;
  } else if (v.is_integer()) {
    if (v.is_uint()) return out_of_range();
    n = v.as_int();
  } else {
    const double d = v.ToDouble();
    if (!(d >= 0) || d > 2155) return out_of_range();
    n = static_cast<int64_t>(d);
  }
  if (n < 0 || (n >= 100 && n <= 1900) || n > 2155) return out_of_range();
  if (n == 0) return Year(two_digit_zero ? 2000 : 0);
  if (n < 70) return Year(static_cast<int>(2000 + n));
  if (n < 100) return Year(static_cast<int>(1900 + n));
  return Year(static_cast<int>(n));
}

// MySQL's Field_time::store: a TIME read from the value (ValueAsTime), rounded to the column's
// fsp. Beyond ±838:59:59 it is clipped (1264); text that is no time, or with more after it, is
// 1265 (00:00:00 when nothing was read); in strict mode both are 1292 "Incorrect time value".
SqlResult<Value> CoerceToTime(const ColumnDef& col, const Value& v, uint64_t row,
                              const StoreRules& rules) {
  const auto fsp = static_cast<uint8_t>(col.length);
  if (v.is_temporal() && v.as_temporal().type != Temporal::Type::kYear) {
    const TimeParse t = ValueAsTime(v);  // a DATE or DATETIME: its time of day
    return Value::FromTemporal(MakeTime(*t.micros, fsp));
  }
  const TimeParse t = ValueAsTime(v);
  auto incorrect = [&]() {
    return SqlErr(kErTruncatedWrongValue, "Incorrect time value: '", v.ToString(), "' for column '",
                  col.name, "'", RowSuffix(row));
  };
  if (!t.micros.has_value()) {
    if (auto e = Bad(rules, rules.errors     ? incorrect()
                            : t.out_of_range ? OutOfRange(col, row)
                                             : Truncated(col, row))) {
      return *e;
    }
    return Value::FromTemporal(MakeTime(0, fsp));
  }
  if (t.clipped) {
    if (auto e = Bad(rules, rules.errors ? incorrect() : OutOfRange(col, row))) return *e;
  } else if (t.trailing) {
    if (auto e = Bad(rules, rules.errors ? incorrect() : Truncated(col, row))) return *e;
  }
  return Value::FromTemporal(MakeTime(*t.micros, fsp));
}

SqlError NotYet(std::string_view what) {
  return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support '", what, "'");
}

// The collation a charset name and a collation name (either may be empty) select; `fallback`
// when both are empty.
SqlResult<const Collation*> SelectCollation(std::string_view charset, std::string_view collation,
                                            const Collation* fallback) {
  const std::string cs = CanonicalCharset(charset);
  const Collation* by_charset = nullptr;
  if (!cs.empty()) {
    by_charset = DefaultCollation(cs);
    if (by_charset == nullptr) {
      if (IsMysqlOnlyCharset(cs)) return NotYet("CHARACTER SET " + cs);
      return SqlErr(kErUnknownCharacterSet, "Unknown character set: '", cs, "'");
    }
  }
  if (!collation.empty()) {
    const Collation* c = FindCollation(collation);
    if (c == nullptr) return SqlErr(kErUnknownCollation, "Unknown collation: '", collation, "'");
    if (by_charset != nullptr && c->charset != by_charset->charset) {
      return SqlErr(kErCollationCharsetMismatch, "COLLATION '", c->name,
                    "' is not valid for CHARACTER SET '", cs, "'");
    }
    return c;
  }
  return by_charset != nullptr ? by_charset : fallback;
}

// The charset's _bin collation (the BINARY column attribute).
const Collation* BinCollationOf(const Collation& c) {
  if (c.kind == Collation::Kind::kBytes) return &c;
  return FindCollation(std::string(c.charset) + "_bin");
}

}  // namespace

bool IsIntegerType(ColumnType t) {
  return t == ColumnType::kTinyInt || t == ColumnType::kSmallInt || t == ColumnType::kMediumInt ||
         t == ColumnType::kInt || t == ColumnType::kBigInt;
}

bool IsTemporalType(ColumnType t) {
  return t == ColumnType::kDate || t == ColumnType::kDateTime || t == ColumnType::kTimestamp;
}

bool IsEnumOrSetType(ColumnType t) { return t == ColumnType::kEnum || t == ColumnType::kSet; }

bool HasCollation(ColumnType t) { return IsStringType(t) || IsEnumOrSetType(t); }

size_t EnumSetBytes(ColumnType t, size_t members) {
  if (t == ColumnType::kEnum) return members < 256 ? 1 : 2;
  const size_t bytes = (members + 7) / 8;
  return bytes > 4 ? 8 : std::max<size_t>(bytes, 1);
}

bool IsNumericType(ColumnType t) {
  return IsIntegerType(t) || t == ColumnType::kDouble || t == ColumnType::kDecimal;
}

bool IsStringType(ColumnType t) {
  return t == ColumnType::kChar || t == ColumnType::kVarchar || t == ColumnType::kText ||
         t == ColumnType::kBlob;
}

const char* ColumnTypeName(ColumnType t) {
  switch (t) {
    case ColumnType::kTinyInt:
      return "tinyint";
    case ColumnType::kSmallInt:
      return "smallint";
    case ColumnType::kMediumInt:
      return "mediumint";
    case ColumnType::kInt:
      return "int";
    case ColumnType::kBigInt:
      return "bigint";
    case ColumnType::kDouble:
      return "double";
    case ColumnType::kChar:
      return "char";
    case ColumnType::kVarchar:
      return "varchar";
    case ColumnType::kText:
      return "text";
    case ColumnType::kBlob:
      return "blob";
    case ColumnType::kDate:
      return "date";
    case ColumnType::kDateTime:
      return "datetime";
    case ColumnType::kTimestamp:
      return "timestamp";
    case ColumnType::kYear:
      return "year";
    case ColumnType::kTime:
      return "time";
    case ColumnType::kDecimal:
      return "decimal";
    case ColumnType::kEnum:
      return "enum";
    case ColumnType::kSet:
      return "set";
  }
  return "?";
}

std::string ColumnDef::BaseTypeString() const {
  if (IsEnumOrSetType(type)) return EnumSetTypeString(*this);
  std::string out = ColumnTypeName(type);
  if (type == ColumnType::kChar || type == ColumnType::kVarchar) {
    out += "(" + std::to_string(length) + ")";
  }
  if ((type == ColumnType::kDateTime || type == ColumnType::kTimestamp ||
       type == ColumnType::kTime) &&
      length > 0) {
    out += "(" + std::to_string(length) + ")";
  }
  if (type == ColumnType::kDecimal) {
    out += "(" + std::to_string(length) + "," + std::to_string(scale) + ")";
  }
  if (is_unsigned && IsNumericType(type)) out += " unsigned";
  return out;
}

std::string ColumnDef::TypeString() const {
  std::string out = BaseTypeString();
  if (!nullable) out += " NOT NULL";
  if (nullable && type == ColumnType::kTimestamp) out += " NULL";  // as MySQL prints it
  const std::string now =
      length > 0 ? "CURRENT_TIMESTAMP(" + std::to_string(length) + ")" : "CURRENT_TIMESTAMP";
  if (default_now) {
    out += " DEFAULT " + now;
  } else if (default_value.has_value()) {
    out += " DEFAULT ";
    out +=
        default_value->is_null() ? "NULL" : QuoteStringLiteral(DeclaredDefault(*this).ToString());
  } else if (nullable && type != ColumnType::kText && type != ColumnType::kBlob) {
    out += " DEFAULT NULL";  // MySQL leaves it out for TEXT/BLOB
  }
  if (on_update_now) out += " ON UPDATE " + now;
  if (auto_increment) out += " AUTO_INCREMENT";
  return out;
}

size_t IntegerBytes(ColumnType t) {
  switch (t) {
    case ColumnType::kTinyInt:
      return 1;
    case ColumnType::kSmallInt:
      return 2;
    case ColumnType::kMediumInt:
      return 3;
    case ColumnType::kInt:
      return 4;
    default:
      return 8;
  }
}

uint64_t ColumnDef::MaxBytes() const {
  switch (type) {
    case ColumnType::kTinyInt:
    case ColumnType::kSmallInt:
    case ColumnType::kMediumInt:
    case ColumnType::kInt:
    case ColumnType::kBigInt:
      return IntegerBytes(type);
    case ColumnType::kDouble:
      return 8;
    case ColumnType::kChar:
    case ColumnType::kVarchar: {
      const Collation& c = EffectiveCollation();
      uint64_t per_char = c.kind == Collation::Kind::kBytes ? 1 : c.charset == "utf8mb3" ? 3 : 4;
      return uint64_t{length} * per_char;
    }
    case ColumnType::kText:
      return 65535;
    case ColumnType::kBlob:
      return 64u << 20;
    case ColumnType::kDate:
      return 3;
    case ColumnType::kDateTime:
    case ColumnType::kTimestamp:
      return 8;
    case ColumnType::kYear:
      return 1;
    case ColumnType::kTime:
      return 6;
    case ColumnType::kDecimal:
      return Decimal::FixedBytes(static_cast<int>(length));
    case ColumnType::kEnum:
    case ColumnType::kSet:
      return EnumSetBytes(type, members->names.size());
  }
  return 0;
}

int TableDef::FindColumn(std::string_view col_name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (EqualsNoCase(columns[i].name, col_name)) return static_cast<int>(i);
  return -1;
}

int TableDef::FindIndex(std::string_view index_name) const {
  for (size_t i = 0; i < indexes.size(); ++i)
    if (EqualsNoCase(indexes[i].name, index_name)) return static_cast<int>(i);
  return -1;
}

int TableDef::AutoIncrementColumn() const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i].auto_increment) return static_cast<int>(i);
  return -1;
}

Value ImplicitDefault(const ColumnDef& c) {
  if (IsIntegerType(c.type)) return Value::Int(0);
  if (c.type == ColumnType::kYear) return Year(0);
  if (c.type == ColumnType::kTime)
    return Value::FromTemporal(MakeTime(0, static_cast<uint8_t>(c.length)));
  if (IsEnumOrSetType(c.type)) return EnumSetImplicitDefault(c);
  if (c.type == ColumnType::kDouble) return Value::Double(0);
  if (c.type == ColumnType::kDecimal) return Value::Dec(*Decimal().Round(c.scale));
  if (IsTemporalType(c.type)) {
    const bool date = c.type == ColumnType::kDate;
    return Value::FromTemporal(
        MakeTemporal(date ? Temporal::Type::kDate : Temporal::Type::kDateTime,
                     static_cast<uint8_t>(date ? 0 : c.length), {}));
  }
  return Value::String("");
}

Value DeclaredDefault(const ColumnDef& c) {
  const Value& v = *c.default_value;
  if (c.type != ColumnType::kTimestamp || !v.is_temporal() || v.as_temporal().is_zero_date()) {
    return v;
  }
  const Temporal& utc = v.as_temporal();
  const DateTimeParts p = utc.parts();
  const std::optional<int64_t> secs = LocalToUtc(p, TimeZone{false, 0});
  return Value::FromTemporal(
      MakeTemporal(Temporal::Type::kDateTime, utc.fsp,
                   UtcToLocal(secs.value_or(0), p.micro, CurrentTimeZone())));
}

Value CurrentTimestampFor(const ColumnDef& c, int64_t now_us) {
  constexpr int64_t kUsPerSecond = 1000000;
  int64_t unit = 1;
  for (uint32_t k = c.length; k < 6; ++k) unit *= 10;
  const int micro = static_cast<int>(now_us % kUsPerSecond / unit * unit);
  return Value::FromTemporal(
      MakeTemporal(Temporal::Type::kDateTime, static_cast<uint8_t>(c.length),
                   UtcToLocal(now_us / kUsPerSecond, micro, CurrentTimeZone())));
}

Value AddedColumnValue(const ColumnDef& c) {
  if (c.default_value.has_value()) return DeclaredDefault(c);
  if (c.nullable) return Value::Null();
  return ImplicitDefault(c);
}

std::string SerializeTableDef(const TableDef& def) {
  Writer w;
  w.U8(kFormatVersion);
  w.Str(def.name);
  w.Varint(def.columns.size());
  for (const ColumnDef& c : def.columns) {
    w.Str(c.name);
    w.U8(static_cast<uint8_t>(c.type));
    if (IsEnumOrSetType(c.type)) {
      w.Varint(c.members->names.size());
      for (const std::string& name : c.members->names) w.Str(name);
    }
    w.Varint(c.length);
    if (c.type == ColumnType::kDecimal) w.U8(c.scale);
    w.U8(static_cast<uint8_t>((c.is_unsigned ? 1 : 0) | (c.nullable ? 2 : 0) |
                              (c.auto_increment ? 4 : 0) | (c.default_now ? 8 : 0) |
                              (c.on_update_now ? 16 : 0)));
    if (!c.default_value.has_value()) {
      w.U8(0);
    } else {
      const Value& v = *c.default_value;
      switch (v.kind()) {
        case Value::Kind::kNull:
          w.U8(1);
          break;
        case Value::Kind::kInt:
          w.U8(2);
          w.Fixed64(static_cast<uint64_t>(v.as_int()));
          break;
        case Value::Kind::kDouble: {
          w.U8(3);
          uint64_t bits;
          double d = v.as_double();
          std::memcpy(&bits, &d, 8);
          w.Fixed64(bits);
          break;
        }
        case Value::Kind::kString:
          w.U8(4);
          w.Str(v.as_string());
          break;
        case Value::Kind::kTemporal:
          w.U8(5);
          w.U8(static_cast<uint8_t>(v.as_temporal().type));
          w.U8(v.as_temporal().fsp);
          w.Fixed64(static_cast<uint64_t>(v.as_temporal().packed));
          break;
        case Value::Kind::kDecimal:
          w.U8(6);
          w.Str(v.as_decimal().ToString());
          break;
        case Value::Kind::kEnum:
          w.U8(7);
          w.Varint(v.as_enum().number);
          break;
        case Value::Kind::kUInt:
          // Not a column's value: defaults are converted to their column (CoerceToColumn)
          // before they reach the catalog.
          MINNOW_CHECK(false, "default of column '{}' not converted to its type", c.name);
          break;
      }
    }
    w.Str(c.collation != nullptr ? c.collation->name : std::string_view());
  }
  w.Varint(def.primary_key.size());
  for (uint32_t c : def.primary_key) w.Varint(c);
  w.Varint(def.indexes.size());
  for (const IndexDef& ix : def.indexes) {
    w.Str(ix.name);
    w.Varint(ix.columns.size());
    for (uint32_t c : ix.columns) w.Varint(c);
    w.Str(ix.keyspace);
  }
  w.Str(def.keyspace);
  w.Str(def.engine);
  w.Str(def.charset);
  w.Str(def.collation);
  w.U8(static_cast<uint8_t>(def.compression));
  w.Varint(def.max_rows);
  w.Varint(def.auto_increment_start);
  // Zig-zag, so a (theoretical) negative time stays short.
  w.Varint((static_cast<uint64_t>(def.create_time) << 1) ^
           static_cast<uint64_t>(def.create_time >> 63));
  w.U8(static_cast<uint8_t>(def.record_format));
  // Optional tail (absent in records from before it): core_columns (0: none), then the
  // positions of the UNIQUE indexes, written only when there is something to say.
  std::vector<uint64_t> unique;
  for (size_t i = 0; i < def.indexes.size(); ++i)
    if (def.indexes[i].unique) unique.push_back(i);
  if (def.core_columns != 0 || !unique.empty()) w.Varint(def.core_columns);
  if (!unique.empty()) {
    w.Varint(unique.size());
    for (uint64_t i : unique) w.Varint(i);
  }
  return w.Take();
}

SqlResult<TableDef> ParseTableDef(std::string_view bytes) {
  Reader r(bytes);
  uint8_t version = r.U8();
  if (r.failed()) return Damaged("empty record");
  if (version == kFormatWithoutCollations) {
    return SqlErr(kErUnknownError,
                  "Table definition of format 1 (from a minnow without collations: its string "
                  "keys are bytes): dump it with that minnow and load it into this one");
  }
  if (version != kFormatVersion && version != kFormatWithoutRecordFormat) {
    return Damaged("unknown format version " + std::to_string(version));
  }
  TableDef def;
  def.name = r.Str();
  uint64_t ncols = r.Count();
  for (uint64_t i = 0; i < ncols && !r.failed(); ++i) {
    ColumnDef c;
    c.name = r.Str();
    uint8_t type = r.U8();
    if (type > static_cast<uint8_t>(ColumnType::kTime)) return Damaged("bad column type");
    c.type = static_cast<ColumnType>(type);
    if (IsEnumOrSetType(c.type)) {
      auto members = std::make_shared<EnumMembers>();
      members->is_set = c.type == ColumnType::kSet;
      const uint64_t n = r.Count();
      for (uint64_t k = 0; k < n && !r.failed(); ++k) members->names.push_back(r.Str());
      c.members = std::move(members);
    }
    uint64_t length = r.Varint();
    if (length > std::numeric_limits<uint32_t>::max()) return Damaged("bad column length");
    c.length = static_cast<uint32_t>(length);
    if (c.type == ColumnType::kDecimal) {
      c.scale = r.U8();
      if (c.length < 1 || c.length > Decimal::kMaxDigits || c.scale > Decimal::kMaxScale ||
          c.scale > c.length) {
        return Damaged("bad decimal precision or scale");
      }
    }
    uint8_t flags = r.U8();
    if (flags > 31) return Damaged("bad column flags");
    c.is_unsigned = (flags & 1) != 0;
    c.nullable = (flags & 2) != 0;
    c.auto_increment = (flags & 4) != 0;
    c.default_now = (flags & 8) != 0;
    c.on_update_now = (flags & 16) != 0;
    switch (r.U8()) {
      case 0:
        break;
      case 1:
        c.default_value = Value::Null();
        break;
      case 2:
        c.default_value = Value::Int(static_cast<int64_t>(r.Fixed64()));
        break;
      case 3: {
        uint64_t bits = r.Fixed64();
        double d;
        std::memcpy(&d, &bits, 8);
        c.default_value = Value::Double(d);
        break;
      }
      case 4:
        c.default_value = Value::String(r.Str());
        break;
      case 5: {
        const uint8_t type = r.U8();
        const uint8_t fsp = r.U8();
        const auto packed = static_cast<int64_t>(r.Fixed64());
        const bool time = type == static_cast<uint8_t>(Temporal::Type::kTime);
        if (type > static_cast<uint8_t>(Temporal::Type::kTime) || fsp > 6 ||
            (packed < 0 && !time)) {
          return Damaged("bad default value");
        }
        c.default_value =
            Value::FromTemporal(Temporal{static_cast<Temporal::Type>(type), fsp, packed});
        break;
      }
      case 6: {
        std::optional<Decimal> d = Decimal::Parse(r.Str());
        if (!d.has_value()) return Damaged("bad default value");
        c.default_value = Value::Dec(std::move(*d));
        break;
      }
      case 7: {
        const uint64_t number = r.Varint();
        if (!IsEnumOrSetType(c.type)) return Damaged("bad default value");
        c.default_value = Value::Enum(c.members, number);
        break;
      }
      default:
        return Damaged("bad default value");
    }
    std::string collation = r.Str();
    if (!collation.empty()) {
      c.collation = FindCollation(collation);
      if (c.collation == nullptr) return Damaged("unknown collation " + collation);
    }
    // (A text column without one compares as bytes: a definition made without DDL, in tests.)
    if (!HasCollation(c.type) && c.collation != nullptr) return Damaged("bad column collation");
    def.columns.push_back(std::move(c));
  }
  auto column_ref = [&](uint32_t* out) {
    uint64_t c = r.Varint();
    if (c >= def.columns.size()) return false;
    *out = static_cast<uint32_t>(c);
    return true;
  };
  uint64_t npk = r.Count();
  for (uint64_t i = 0; i < npk && !r.failed(); ++i) {
    uint32_t c;
    if (!column_ref(&c)) return Damaged("bad primary key column");
    def.primary_key.push_back(c);
  }
  uint64_t nidx = r.Count();
  for (uint64_t i = 0; i < nidx && !r.failed(); ++i) {
    IndexDef ix;
    ix.name = r.Str();
    uint64_t n = r.Count();
    for (uint64_t j = 0; j < n && !r.failed(); ++j) {
      uint32_t c;
      if (!column_ref(&c)) return Damaged("bad index column");
      ix.columns.push_back(c);
    }
    ix.keyspace = r.Str();
    def.indexes.push_back(std::move(ix));
  }
  def.keyspace = r.Str();
  def.engine = r.Str();
  def.charset = r.Str();
  def.collation = r.Str();
  uint8_t compression = r.U8();
  if (compression > static_cast<uint8_t>(Compression::kLz4)) return Damaged("bad compression");
  def.compression = static_cast<Compression>(compression);
  def.max_rows = r.Varint();
  def.auto_increment_start = r.Varint();
  uint64_t zz = r.Varint();
  def.create_time = static_cast<int64_t>((zz >> 1) ^ (~(zz & 1) + 1));
  def.record_format = RecordFormat::kPadKeysWithoutText;
  if (version == kFormatVersion) {
    const uint8_t format = r.U8();
    if (format > static_cast<uint8_t>(RecordFormat::kPadTextsKept)) {
      return Damaged("bad record format");
    }
    def.record_format = static_cast<RecordFormat>(format);
  }
  if (!r.failed() && !r.at_end()) {
    uint64_t core = r.Varint();
    if (core >= def.columns.size() || (core == 0 && r.at_end()))
      return Damaged("bad core column count");
    def.core_columns = static_cast<uint32_t>(core);
  }
  if (!r.failed() && !r.at_end()) {
    uint64_t n = r.Count();
    if (n == 0) return Damaged("empty list of unique indexes");
    for (uint64_t i = 0; i < n && !r.failed(); ++i) {
      uint64_t ix = r.Varint();
      if (ix >= def.indexes.size()) return Damaged("bad unique index");
      def.indexes[ix].unique = true;
    }
  }
  if (r.failed()) return Damaged("truncated record");
  if (!r.at_end()) return Damaged("trailing bytes");
  if (def.columns.empty() || def.keyspace.empty()) return Damaged("no columns or no keyspace");
  return def;
}

std::string ShowCreateTable(const TableDef& def, uint64_t next_auto_increment) {
  std::string out = "CREATE TABLE " + QuoteIdentifier(def.name) + " (\n";
  std::vector<std::string> lines;
  const Collation& table_collation = TableCollation(def);
  for (const ColumnDef& c : def.columns) {
    std::string type = c.TypeString();
    // A column whose collation is not the table's says so, as MySQL 8 prints it (the charset
    // too when that differs). BLOB's binary is its type's.
    if (c.collation != nullptr && c.collation != &table_collation && c.type != ColumnType::kBlob) {
      std::string clause;
      if (c.collation->charset != table_collation.charset) {
        clause += " CHARACTER SET " + std::string(c.collation->charset);
      }
      clause += " COLLATE " + std::string(c.collation->name);
      type.insert(c.BaseTypeString().size(), clause);
    }
    lines.push_back("  " + QuoteIdentifier(c.name) + " " + type);
  }
  auto column_list = [&](const std::vector<uint32_t>& cols) {
    std::string s = "(";
    for (size_t i = 0; i < cols.size(); ++i) {
      if (i > 0) s += ",";
      s += QuoteIdentifier(def.columns[cols[i]].name);
    }
    return s + ")";
  };
  if (!def.primary_key.empty()) lines.push_back("  PRIMARY KEY " + column_list(def.primary_key));
  for (size_t i : IndexesInKeyOrder(def)) {
    const IndexDef& ix = def.indexes[i];
    lines.push_back(std::string(ix.unique ? "  UNIQUE KEY " : "  KEY ") + QuoteIdentifier(ix.name) +
                    " " + column_list(ix.columns));
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    out += i + 1 < lines.size() ? ",\n" : "\n";
  }
  out += ") ENGINE=" + def.engine;
  if (next_auto_increment > 0) out += " AUTO_INCREMENT=" + std::to_string(next_auto_increment);
  std::string charset = ToLowerAscii(def.charset);
  if (charset.empty() || charset == "utf8") charset = charset.empty() ? "utf8mb4" : "utf8mb3";
  out += " DEFAULT CHARSET=" + charset;
  if (!def.collation.empty()) {
    out += " COLLATE=" + def.collation;
  } else if (charset == "utf8mb4") {
    out += " COLLATE=utf8mb4_0900_ai_ci";  // MySQL 8's default, which it always prints
  }
  if (def.max_rows > 0) out += " MAX_ROWS=" + std::to_string(def.max_rows);
  if (def.compression == Compression::kLz4) out += " COMPRESSION='lz4'";
  return out;
}

bool FitsColumnUnchanged(const ColumnDef& col, const Value& v) {
  if (v.is_null()) return col.nullable;
  if (!v.is_string() || !IsStringType(col.type)) return false;
  const std::string& s = v.as_string();
  // CoerceToString: CHAR drops trailing spaces; text that is not UTF-8 is refused; longer than
  // the column is cut or refused.
  if (col.type == ColumnType::kChar && !s.empty() && s.back() == ' ') return false;
  const Collation& coll = col.EffectiveCollation();
  const bool characters = coll.kind != Collation::Kind::kBytes;
  if (characters && Utf8InvalidAt(s, coll.charset == "utf8mb3") != std::string::npos) return false;
  if (col.type == ColumnType::kChar || col.type == ColumnType::kVarchar) {
    return (characters ? Utf8Length(s) : s.size()) <= col.length;
  }
  return s.size() <= col.MaxBytes();
}

SqlStatus ResolveCollations(TableDef* def) {
  SQL_ASSIGN_OR_RETURN(const Collation* table,
                       SelectCollation(def->charset, def->collation, DefaultCollation("utf8mb4")));
  if (table->kind == Collation::Kind::kBytes) {
    return NotYet("DEFAULT CHARSET=binary");
  }
  for (ColumnDef& c : def->columns) {
    const bool declared =
        !c.declared_charset.empty() || !c.declared_collation.empty() || c.declared_binary;
    if (!HasCollation(c.type)) {
      if (declared) return SqlErr(kErParse, "You have an error in your SQL syntax near 'COLLATE'");
      c.collation = nullptr;
      continue;
    }
    if (declared) {
      SQL_ASSIGN_OR_RETURN(c.collation,
                           SelectCollation(c.declared_charset, c.declared_collation, table));
      if (c.declared_binary) c.collation = BinCollationOf(*c.collation);
      c.declared_charset.clear();
      c.declared_collation.clear();
      c.declared_binary = false;
    } else if (c.collation == nullptr) {
      c.collation = table;
    }
    if (c.type == ColumnType::kBlob) {
      c.collation = &BinaryCollation();
    } else if (c.collation->kind == Collation::Kind::kBytes) {
      return NotYet("CHARACTER SET binary on a CHAR/VARCHAR/TEXT column");
    }
    if (IsEnumOrSetType(c.type)) SQL_RETURN_IF_ERROR(CheckEnumSetMembers(c));
  }
  return SqlStatus::OK();
}

const Collation& TableCollation(const TableDef& def) {
  auto c = SelectCollation(def.charset, def.collation, DefaultCollation("utf8mb4"));
  return c.ok() && *c != nullptr ? **c : ConnectionCollation();
}

SqlResult<Value> CoerceToColumn(const ColumnDef& col, const Value& v, uint64_t row,
                                const StoreRules& rules) {
  if (v.is_null()) {
    if (col.nullable) return Value::Null();
    const SqlError null_error = SqlErr(kErBadNull, "Column '", col.name, "' cannot be null");
    if (rules.null_is_error) return null_error;
    if (auto e = Bad(rules, null_error)) return *e;
    return ImplicitDefault(col);
  }
  if (IsEnumOrSetType(col.type)) return CoerceToEnumOrSet(col, v, row, rules);
  if (v.is_enum()) {
    // Its number into a number (or YEAR), its text into the rest (MySQL's field_conv).
    const Value converted = IsNumericType(col.type) || col.type == ColumnType::kYear
                                ? Value::UInt(v.as_enum().number)
                                : Value::String(v.ToString());
    return CoerceToColumn(col, converted, row, rules);
  }
  if (v.is_temporal() && IsNumericType(col.type)) {
    // A date or time into a number: its number (20240105, -101112), as MySQL's val_int and
    // val_real give it.
    const Temporal& t = v.as_temporal();
    const Value n = t.fsp == 0 ? Value::Int(TemporalToInt(t)) : Value::Double(TemporalToDouble(t));
    return CoerceToColumn(col, n, row, rules);
  }
  if (IsIntegerType(col.type)) return CoerceToInteger(col, v, row, rules);
  if (col.type == ColumnType::kDouble) return CoerceToDouble(col, v, row, rules);
  if (col.type == ColumnType::kDecimal) return CoerceToDecimal(col, v, row, rules);
  if (IsTemporalType(col.type)) return CoerceToTemporal(col, v, row, rules);
  if (col.type == ColumnType::kYear) return CoerceToYear(col, v, row, rules);
  if (col.type == ColumnType::kTime) return CoerceToTime(col, v, row, rules);
  return CoerceToString(col, v, row, rules);
}

}  // namespace minnow::sql
