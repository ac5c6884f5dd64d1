// Exact decimal arithmetic (decimal.h), on Boost.Multiprecision's cpp_int coefficients.

#include "sql_lite_front/decimal.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace minnow::sql {
namespace {

constexpr int kDigitsPerWord = 9;  // MySQL's DIG_PER_DEC1: fraction digits come in words of 9

int RoundUpToWord(int digits) {
  return (digits + kDigitsPerWord - 1) / kDigitsPerWord * kDigitsPerWord;
}

// `n` / 10^k rounded half away from zero.
boost::multiprecision::cpp_int DivPow10Rounded(const boost::multiprecision::cpp_int& n,
                                               const boost::multiprecision::cpp_int& p) {
  boost::multiprecision::cpp_int q = n / p;  // truncates toward zero
  boost::multiprecision::cpp_int r = n % p;  // sign of n
  if (r < 0) r = -r;
  if (r * 2 >= p) q += n < 0 ? -1 : 1;
  return q;
}

int DigitCount(boost::multiprecision::cpp_int n) {
  if (n < 0) n = -n;
  int d = 0;
  while (n != 0) {
    n /= 10;
    ++d;
  }
  return d;
}

}  // namespace

Decimal::BigInt Decimal::Pow10(int n) {
  BigInt p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

std::optional<Decimal> Decimal::Checked(BigInt coef, int frac, int scale) {
  scale = std::min(scale, kMaxScale);
  if (frac < scale) {
    coef *= Pow10(scale - frac);
    frac = scale;
  }
  // Digits before the point plus the shown fraction may not pass 65.
  int int_digits = std::max(0, DigitCount(coef) - frac);
  if (int_digits + scale > kMaxDigits) return std::nullopt;
  return Decimal(std::move(coef), frac, scale);
}

Decimal Decimal::FromInt(int64_t v) { return Decimal(BigInt(v), 0, 0); }
Decimal Decimal::FromUInt(uint64_t v) { return Decimal(BigInt(v), 0, 0); }
Decimal Decimal::FromInt128(Int128 v) { return Decimal(BigInt(v), 0, 0); }

std::optional<Decimal> Decimal::Parse(std::string_view s) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  BigInt coef = 0;
  int digits = 0, frac = 0;
  bool seen_point = false, seen_digit = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
    seen_digit = true;
    coef = coef * 10 + (c - '0');
    if (coef != 0 || seen_point) ++digits;  // leading zeros before the point do not count
    if (seen_point) ++frac;
  }
  if (!seen_digit || digits > kMaxDigits || frac > kMaxScale) return std::nullopt;
  if (negative) coef = -coef;
  return Decimal(std::move(coef), frac, frac);
}

std::optional<Decimal> Decimal::FromDouble(double d) {
  if (!std::isfinite(d)) return std::nullopt;
  // The shortest digits that round-trip ("-1.2345e+02"), written out in fixed notation.
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(r.ptr - buf));
  const size_t e = sci.find('e');
  const bool negative = sci[0] == '-';
  std::string digits;
  for (char c : sci.substr(negative ? 1 : 0, e - (negative ? 1 : 0))) {
    if (c != '.') digits += c;
  }
  // The point after `point` of the digits (negative: zeros before them).
  // (to_chars writes no terminating NUL: the exponent is read within the digits it wrote.)
  int exponent = 0;
  const char* exp_begin = buf + e + 1;
  if (*exp_begin == '+') ++exp_begin;
  std::from_chars(exp_begin, r.ptr, exponent);
  const int point = exponent + 1;
  if (point > kMaxDigits) return std::nullopt;
  std::string text = negative ? "-" : "";
  if (point <= 0) {
    text += "0.";
    text.append(static_cast<size_t>(std::min(-point, kMaxScale)), '0');
    text += digits;
  } else if (point < static_cast<int>(digits.size())) {
    text += digits.substr(0, static_cast<size_t>(point)) + "." + digits.substr(point);
  } else {
    text += digits;
    text.append(static_cast<size_t>(point) - digits.size(), '0');
  }
  const size_t dot = text.find('.');
  if (dot != std::string::npos && text.size() - dot - 1 > kMaxScale) {
    text.resize(dot + 1 + kMaxScale);  // fraction digits past 30 cut
  }
  return Parse(text);
}

std::optional<Decimal> Decimal::Add(const Decimal& a, const Decimal& b) {
  int f = std::max(a.frac_, b.frac_);
  return Checked(a.coef_ * Pow10(f - a.frac_) + b.coef_ * Pow10(f - b.frac_), f,
                 std::max(a.scale_, b.scale_));
}

std::optional<Decimal> Decimal::Sub(const Decimal& a, const Decimal& b) {
  return Add(a, b.Negated());
}

std::optional<Decimal> Decimal::Mul(const Decimal& a, const Decimal& b) {
  BigInt coef = a.coef_ * b.coef_;
  int frac = a.frac_ + b.frac_;
  int scale = std::min(a.scale_ + b.scale_, kMaxScale);
  // Digits past 30 (after divisions) are cut, as MySQL's decimal_mul keeps at most 30.
  int keep = std::max(kMaxScale, scale);
  if (frac > keep) {
    coef /= Pow10(frac - keep);
    frac = keep;
  }
  return Checked(std::move(coef), frac, scale);
}

std::optional<Decimal> Decimal::Div(const Decimal& a, const Decimal& b) {
  if (b.coef_ == 0) return std::nullopt;
  const int scale = std::min(a.scale_ + kDivPrecisionIncrement, kMaxScale);
  // The quotient's digits after the point, as MySQL's do_div_mod counts them: the operands'
  // fractions in whole words, plus what of the increment those words do not already give.
  const int fa = RoundUpToWord(a.frac_), fb = RoundUpToWord(b.frac_);
  const int incr = std::max(0, kDivPrecisionIncrement - (fa - a.frac_) - (fb - b.frac_));
  int frac = std::max(RoundUpToWord(fa + fb + incr), scale);
  frac = std::min(frac, std::max(RoundUpToWord(kMaxScale), scale));
  // value = (ca / 10^fa') / (cb / 10^fb'); the quotient scaled by 10^frac, truncated.
  int shift = frac - a.frac_ + b.frac_;
  BigInt num = a.coef_, den = b.coef_;
  if (shift >= 0) {
    num *= Pow10(shift);
  } else {
    den *= Pow10(-shift);
  }
  return Checked(num / den, frac, scale);
}

std::optional<Decimal> Decimal::Mod(const Decimal& a, const Decimal& b) {
  if (b.coef_ == 0) return std::nullopt;
  int f = std::max(a.frac_, b.frac_);
  BigInt r = (a.coef_ * Pow10(f - a.frac_)) % (b.coef_ * Pow10(f - b.frac_));
  return Checked(std::move(r), f, std::max(a.scale_, b.scale_));
}

Decimal Decimal::Negated() const { return Decimal(-coef_, frac_, scale_); }

std::optional<Decimal> Decimal::Round(int digits) const {
  int shown = std::min(std::max(digits, 0), kMaxScale);
  if (digits >= frac_) return Checked(coef_, frac_, shown);
  if (digits < -kMaxDigits) return Decimal(0, 0, 0);
  BigInt p = Pow10(frac_ - digits);
  BigInt q = DivPow10Rounded(coef_, p);  // units of 10^-digits
  if (digits >= 0) return Checked(std::move(q), digits, shown);
  return Checked(q * Pow10(-digits), 0, 0);
}

Decimal Decimal::Truncate() const { return Decimal(coef_ / Pow10(frac_), 0, 0); }

Decimal Decimal::Floor() const {
  BigInt p = Pow10(frac_);
  BigInt q = coef_ / p;
  if (coef_ < 0 && q * p != coef_) q -= 1;
  return Decimal(std::move(q), 0, 0);
}

Decimal Decimal::Ceil() const {
  BigInt p = Pow10(frac_);
  BigInt q = coef_ / p;
  if (coef_ > 0 && q * p != coef_) q += 1;
  return Decimal(std::move(q), 0, 0);
}

Decimal::BigInt Decimal::ShownCoefficient() const {
  if (frac_ == scale_) return coef_;
  return DivPow10Rounded(coef_, Pow10(frac_ - scale_));
}

std::string Decimal::ToString() const {
  BigInt shown = ShownCoefficient();
  bool negative = shown < 0;
  if (negative) shown = -shown;
  std::string digits = shown.str();
  if (static_cast<int>(digits.size()) <= scale_)
    digits.insert(0, static_cast<size_t>(scale_ + 1) - digits.size(), '0');
  std::string out = negative ? "-" : "";
  out += digits.substr(0, digits.size() - static_cast<size_t>(scale_));
  if (scale_ > 0) {
    out += '.';
    out += digits.substr(digits.size() - static_cast<size_t>(scale_));
  }
  return out;
}

double Decimal::ToDouble() const {
  // The exact digits, read by strtod (correctly rounded).
  BigInt c = coef_ < 0 ? BigInt(-coef_) : coef_;
  std::string digits = c.str();
  if (static_cast<int>(digits.size()) <= frac_)
    digits.insert(0, static_cast<size_t>(frac_ + 1) - digits.size(), '0');
  std::string text = coef_ < 0 ? "-" : "";
  text += digits.substr(0, digits.size() - static_cast<size_t>(frac_));
  text += '.';
  text += digits.substr(digits.size() - static_cast<size_t>(frac_));
  return std::strtod(text.c_str(), nullptr);
}

bool Decimal::ToInt64(int64_t* out) const {
  BigInt r = DivPow10Rounded(coef_, Pow10(frac_));
  if (r < std::numeric_limits<int64_t>::min() || r > std::numeric_limits<int64_t>::max())
    return false;
  *out = static_cast<int64_t>(r);
  return true;
}

bool Decimal::ToUInt64(uint64_t* out) const {
  BigInt r = DivPow10Rounded(coef_, Pow10(frac_));
  if (r < 0 || r > std::numeric_limits<uint64_t>::max()) return false;
  *out = static_cast<uint64_t>(r);
  return true;
}

Decimal Decimal::Max(int precision, int scale) {
  return Decimal(Pow10(precision) - 1, scale, scale);
}

size_t Decimal::FixedBytes(int precision) {
  // The fewest bytes whose two's complement holds +-(10^precision - 1).
  const BigInt limit = Pow10(precision);
  size_t bytes = 1;
  while ((BigInt(1) << (8 * bytes - 1)) < limit) ++bytes;
  return bytes;
}

void Decimal::AppendFixed(int precision, int scale, std::string* out) const {
  const size_t bytes = FixedBytes(precision);
  BigInt c = scale >= frac_ ? coef_ * Pow10(scale - frac_) : coef_ / Pow10(frac_ - scale);
  const BigInt modulus = BigInt(1) << (8 * bytes);
  if (c < 0) c += modulus;            // two's complement
  c ^= BigInt(1) << (8 * bytes - 1);  // the sign bit flipped: negatives sort first
  const size_t at = out->size();
  out->resize(at + bytes);
  for (size_t i = bytes; i-- > 0;) {
    (*out)[at + i] = static_cast<char>(static_cast<unsigned>(c & 0xff));
    c >>= 8;
  }
}

Decimal Decimal::FromFixed(std::string_view bytes, int scale) {
  BigInt c = 0;
  for (char b : bytes) c = (c << 8) | static_cast<uint8_t>(b);
  const size_t bits = 8 * bytes.size();
  c ^= BigInt(1) << (bits - 1);
  if (bit_test(c, static_cast<unsigned>(bits - 1))) c -= BigInt(1) << bits;
  return Decimal(std::move(c), scale, scale);
}

int Decimal::Compare(const Decimal& a, const Decimal& b) {
  int f = std::max(a.frac_, b.frac_);
  BigInt x = a.coef_ * Pow10(f - a.frac_), y = b.coef_ * Pow10(f - b.frac_);
  return x < y ? -1 : (x > y ? 1 : 0);
}

}  // namespace minnow::sql
