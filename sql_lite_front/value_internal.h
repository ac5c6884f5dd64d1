#pragma once
// Number parsing and printing shared by value.cc and table_def.cc (CoerceToColumn).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace minnow::sql {

// The longest number at the start of `s` (after leading white space): [+-]digits[.digits]
// [e[+-]digits], as MySQL reads a string in numeric context ("12abc" -> 12).
struct NumericPrefix {
  bool valid = false;         // a number was found
  bool is_integer = false;    // no fraction, no exponent: `i` holds it exactly
  bool int_overflow = false;  // an integer beyond int64 (i saturated)
  size_t consumed = 0;        // bytes of `s` read, leading white space included
  int64_t i = 0;
  double d = 0;
};
NumericPrefix ParseNumericPrefix(std::string_view s);

// `d` rounded half away from zero; saturates (and sets *overflow) beyond int64.
int64_t DoubleToIntRounded(double d, bool* overflow);

// A double as MySQL prints it: the shortest digits that read back as `d`, in 'f' format unless
// the decimal point is more than 15 digits away ("0.1", "100", "1e20", "1.5e-20").
std::string FormatDouble(double d);

}  // namespace minnow::sql
