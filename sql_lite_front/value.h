#pragma once
// A SQL value: NULL, a 64-bit integer, an unsigned integer above 2^63 - 1, an exact decimal
// (decimal.h), a double or a byte string. Columns of every integer type hold kInt;
// CHAR/VARCHAR/TEXT/BLOB hold kString. kUInt and kDecimal come from expressions only: unsigned
// arithmetic past 2^63 - 1 (and literals such as 18446744073709551615), decimal literals
// (0.1), SUM/AVG of integers and arithmetic with decimals. DATE and DATETIME columns hold
// kTemporal (temporal.h), which compares with a string or number by reading that as a date
// when it is one (date_col = '2024-1-5', date_col = 20240105), else as the date's text or
// number. Comparison follows MySQL's rules for
// the pairs minnow meets: numbers compare numerically (integers and decimals exactly, a double
// with anything as doubles), a string with a number converts the string to a number (leading
// numeric prefix, as MySQL's "1abc" = 1), strings compare as bytes (minnow's one collation is
// binary: see docs/ARCHITECTURE.md). NULL compares as unknown (Compare's callers treat NULL
// first).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sql_lite_front/decimal.h"
#include "sql_lite_front/temporal.h"

namespace minnow::sql {

// The members of an ENUM or SET column, in definition order (trailing spaces dropped, as MySQL
// keeps them). Shared by the column's definition and every value read from it.
struct EnumMembers {
  bool is_set = false;  // SET: a value is a bitmap of members; ENUM: a 1-based index
  std::vector<std::string> names;
};

// A value of an ENUM or SET column: its number (ENUM's index, 0 for the '' of an invalid value;
// SET's bitmap, bit i for names[i]) and the members that name it. It prints as its text ('b';
// a SET's members in definition order joined by ','), is its number in numeric context
// (e + 0), sorts by its number against a value of the same column and compares as its text
// with a string.
struct EnumValue {
  std::shared_ptr<const EnumMembers> members;
  uint64_t number = 0;
  std::string Text() const;
  bool operator==(const EnumValue& o) const {
    return number == o.number && (members == o.members || members->names == o.members->names);
  }
};

class Value {
 public:
  enum class Kind : uint8_t {
    kNull,
    kInt,
    kDouble,
    kString,
    kUInt,
    kDecimal,
    kTemporal,
    kEnum,
  };

  Value() = default;  // NULL
  static Value Null() { return Value(); }
  static Value Int(int64_t v) { return Value(v); }
  static Value Double(double v) { return Value(v); }
  static Value String(std::string v) { return Value(std::move(v)); }
  // Makes this value the string `s`, reusing the buffer it already holds if it is a string (a
  // scan decoding row after row into one Row allocates nothing for strings that fit).
  void SetString(std::string_view s) {
    if (auto* held = std::get_if<std::string>(&v_)) {
      held->assign(s);
    } else {
      v_.emplace<std::string>(s);
    }
  }
  // An unsigned integer: kInt when it fits int64 (so equal values have one form), else kUInt.
  static Value UInt(uint64_t v) {
    return v <= static_cast<uint64_t>(INT64_MAX) ? Value(static_cast<int64_t>(v)) : Value(v);
  }
  static Value FromTemporal(Temporal t) { return Value(t); }
  // A value of an ENUM or SET column (EnumValue).
  static Value Enum(std::shared_ptr<const EnumMembers> members, uint64_t number) {
    return Value(EnumValue{std::move(members), number});
  }
  static Value Dec(Decimal v) {
    return Value(DecimalRef{std::make_shared<const Decimal>(std::move(v))});
  }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_int() const { return kind() == Kind::kInt; }
  bool is_double() const { return kind() == Kind::kDouble; }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_uint() const { return kind() == Kind::kUInt; }
  bool is_decimal() const { return kind() == Kind::kDecimal; }
  bool is_temporal() const { return kind() == Kind::kTemporal; }
  bool is_enum() const { return kind() == Kind::kEnum; }
  // kInt or kUInt: an integer held exactly.
  bool is_integer() const { return is_int() || is_uint(); }
  int64_t as_int() const { return std::get<int64_t>(v_); }   // REQUIRES: is_int()
  double as_double() const { return std::get<double>(v_); }  // REQUIRES: is_double()
  const std::string& as_string() const { return std::get<std::string>(v_); }  // is_string()
  uint64_t as_uint() const { return std::get<uint64_t>(v_); }                 // is_uint()
  const Decimal& as_decimal() const { return *std::get<DecimalRef>(v_).d; }   // is_decimal()
  const Temporal& as_temporal() const { return std::get<Temporal>(v_); }      // is_temporal()
  const EnumValue& as_enum() const { return std::get<EnumValue>(v_); }        // is_enum()

  // Conversions as MySQL does them in expressions ("12abc" -> 12, "x" -> 0, 2.5 -> 3 for int;
  // beyond int64 saturates).
  int64_t ToInt() const;
  double ToDouble() const;
  // An exact number as a Decimal (scale 0 for integers). REQUIRES: is_integer() || is_decimal().
  Decimal ToDecimal() const;
  // As the mysql client prints it: integers in decimal, doubles with up to 17 significant
  // digits without trailing zeros ("0.1", "1e20"), decimals with their scale ("0.3000"),
  // strings as they are. REQUIRES: !is_null().
  std::string ToString() const;
  // True for a non-NULL value that is not zero (strings converted to numbers).
  bool IsTrue() const;

  // Three-way comparison (<0, 0, >0) of two non-NULL values by the rules above.
  static int Compare(const Value& a, const Value& b);
  bool operator==(const Value& o) const { return v_ == o.v_; }  // same kind and contents

 private:
  explicit Value(int64_t v) : v_(v) {}
  explicit Value(double v) : v_(v) {}
  explicit Value(std::string v) : v_(std::move(v)) {}
  explicit Value(uint64_t v) : v_(v) {}
  explicit Value(Temporal v) : v_(v) {}
  explicit Value(EnumValue v) : v_(std::move(v)) {}
  // A decimal is held out of line and shared (it never changes once made): a Value stays the
  // size of a string, which every row of a scan pays for, while only expressions make
  // decimals. Equal when the numbers and scales are.
  struct DecimalRef {
    std::shared_ptr<const Decimal> d;
    bool operator==(const DecimalRef& o) const { return *d == *o.d; }
  };
  explicit Value(DecimalRef v) : v_(std::move(v)) {}
  std::variant<std::monostate, int64_t, double, std::string, uint64_t, DecimalRef, Temporal,
               EnumValue>
      v_;
};

// `v` read as a TIME, as MySQL's val_time: a TIME as it is, a DATETIME's time of day (a DATE's
// midnight), text by ParseTimeText, integers by ParseTimeNumber, decimals and doubles as HHMMSS
// with their fraction as microseconds. REQUIRES: !v.is_null().
TimeParse ValueAsTime(const Value& v);

// SQL LIKE: % matches any run of bytes, _ one byte, \ escapes the next pattern byte. Byte-wise
// (case-sensitive, as a binary collation); used by the LIKE operator and SHOW ... LIKE.
bool LikeMatch(std::string_view text, std::string_view pattern);

}  // namespace minnow::sql
