#pragma once
// A SQL value: NULL, a 64-bit integer, a double or a byte string. Columns of every integer type
// hold kInt; CHAR/VARCHAR/TEXT/BLOB hold kString. Comparison follows MySQL's rules for the
// pairs minnow meets: numbers compare numerically (an integer with a double as doubles), a
// string with a number converts the string to a number (leading numeric prefix, as MySQL's
// "1abc" = 1), strings compare as bytes (minnow's one collation is binary: see
// docs/ARCHITECTURE.md). NULL compares as unknown (Compare's callers treat NULL first).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace minnow::sql {

class Value {
 public:
  enum class Kind : uint8_t { kNull, kInt, kDouble, kString };

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

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_int() const { return kind() == Kind::kInt; }
  bool is_double() const { return kind() == Kind::kDouble; }
  bool is_string() const { return kind() == Kind::kString; }
  int64_t as_int() const { return std::get<int64_t>(v_); }   // REQUIRES: is_int()
  double as_double() const { return std::get<double>(v_); }  // REQUIRES: is_double()
  const std::string& as_string() const { return std::get<std::string>(v_); }  // is_string()

  // Conversions as MySQL does them in expressions ("12abc" -> 12, "x" -> 0, 2.5 -> 3 for int).
  int64_t ToInt() const;
  double ToDouble() const;
  // As the mysql client prints it: integers in decimal, doubles with up to 17 significant
  // digits without trailing zeros ("0.1", "1e20"), strings as they are. REQUIRES: !is_null().
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
  std::variant<std::monostate, int64_t, double, std::string> v_;
};

// SQL LIKE: % matches any run of bytes, _ one byte, \ escapes the next pattern byte. Byte-wise
// (case-sensitive, as a binary collation); used by the LIKE operator and SHOW ... LIKE.
bool LikeMatch(std::string_view text, std::string_view pattern);

}  // namespace minnow::sql
