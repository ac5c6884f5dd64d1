#pragma once
// An exact decimal number, as MySQL's DECIMAL arithmetic computes it: up to 65 digits, of which
// up to 30 after the point.
//
// A Decimal is a signed integer coefficient and two scales:
//   - frac: the digits the coefficient holds after the point (value = coefficient / 10^frac);
//   - scale: the digits the value shows (its type's scale, MySQL's `decimals`). frac >= scale.
// They differ only after a division: MySQL divides to a multiple of 9 fraction digits (one
// base-10^9 word) and rounds to the shown scale only when the value is printed or stored, so
// 1/3*3 is 0.999999999 inside and shows as 1.0000, as in MySQL.
//
// Result scales follow MySQL: a + b and a - b take max(scale); a * b the sum (at most 30);
// a / b the dividend's scale + div_precision_increment (4), at most 30. A result that needs
// more than 65 digits fails (the caller reports MySQL's 1690 "DECIMAL value is out of range").

#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace minnow::sql {

// GCC's 128-bit integer (exact sums and products of 64-bit integers); __extension__ keeps
// -Wpedantic quiet.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

class Decimal {
 public:
  static constexpr int kMaxDigits = 65;
  static constexpr int kMaxScale = 30;
  static constexpr int kDivPrecisionIncrement = 4;

  Decimal() = default;  // 0
  static Decimal FromInt(int64_t v);
  static Decimal FromUInt(uint64_t v);
  static Decimal FromInt128(Int128 v);
  // "[-+]digits[.digits]" (no exponent); nullopt if it is not that or needs more than 65
  // digits (MySQL then reads the literal as a double).
  static std::optional<Decimal> Parse(std::string_view text);
  // The shortest decimal digits that read back as `d` (as MySQL's double2decimal prints a double
  // before reading it as a decimal: 0.3e0 is 0.3), fraction digits past 30 cut; nullopt for inf,
  // NaN and beyond 65 digits before the point.
  static std::optional<Decimal> FromDouble(double d);

  // The largest DECIMAL(precision, scale) value: precision - scale nines, the point, scale
  // nines. REQUIRES: 0 <= scale <= precision <= 65.
  static Decimal Max(int precision, int scale);

  // A DECIMAL(precision, scale) column's value in a fixed width (row_codec.h's key and row
  // encodings): value * 10^scale as a KeyBytes(precision)-byte big-endian two's-complement
  // integer with its sign bit flipped, so that byte order is numeric order.
  // REQUIRES (AppendFixed): the value has at most `scale` digits after the point and at most
  // `precision` digits in all (CoerceToColumn made it so).
  static size_t FixedBytes(int precision);
  void AppendFixed(int precision, int scale, std::string* out) const;
  // The value AppendFixed wrote into `bytes` (FixedBytes(precision) of them), shown with
  // `scale` digits after the point.
  static Decimal FromFixed(std::string_view bytes, int scale);

  int scale() const { return scale_; }
  bool is_negative() const { return coef_ < 0; }
  bool is_zero() const { return coef_ == 0; }

  // Exact arithmetic with MySQL's result scales; nullopt when the result needs more than 65
  // digits, and for Div/Mod when `b` is zero.
  static std::optional<Decimal> Add(const Decimal& a, const Decimal& b);
  static std::optional<Decimal> Sub(const Decimal& a, const Decimal& b);
  static std::optional<Decimal> Mul(const Decimal& a, const Decimal& b);
  static std::optional<Decimal> Div(const Decimal& a, const Decimal& b);
  // The remainder of a truncating division, with the sign of `a` and scale max(scale).
  static std::optional<Decimal> Mod(const Decimal& a, const Decimal& b);
  Decimal Negated() const;

  // Rounded half away from zero to `digits` after the point (negative: to tens, hundreds, ...);
  // the result shows max(digits, 0) digits (ROUND(1.5, 3) is 1.500). nullopt past 65 digits.
  std::optional<Decimal> Round(int digits) const;
  // The integer toward -inf (floor) or +inf (ceil), or toward zero (truncate), scale 0.
  Decimal Floor() const;
  Decimal Ceil() const;
  Decimal Truncate() const;

  // The value rounded to its shown scale, as MySQL prints it ("0.3", "-1.0000", "12").
  std::string ToString() const;
  double ToDouble() const;
  // Rounded half away from zero to an integer; false (and *out untouched) beyond the range.
  bool ToInt64(int64_t* out) const;
  bool ToUInt64(uint64_t* out) const;

  // Three-way comparison of the exact values (scales do not matter: 1.0 = 1).
  static int Compare(const Decimal& a, const Decimal& b);
  bool operator==(const Decimal& o) const { return Compare(*this, o) == 0 && scale_ == o.scale_; }

 private:
  using BigInt = boost::multiprecision::cpp_int;
  Decimal(BigInt coef, int frac, int scale) : coef_(std::move(coef)), frac_(frac), scale_(scale) {}
  static std::optional<Decimal> Checked(BigInt coef, int frac, int scale);
  BigInt ShownCoefficient() const;  // coef_ rounded to scale_ digits after the point
  static BigInt Pow10(int n);

  BigInt coef_ = 0;
  int frac_ = 0;
  int scale_ = 0;
};

}  // namespace minnow::sql
