#pragma once
// MySQL 8.0's numeric functions beyond the arithmetic operators (arithmetic.h) and ABS, FLOOR,
// CEIL, ROUND, MOD (expr.cc). Every one is NULL when an argument is NULL.
//
//   SIGN(x)                      -1, 0 or 1 (BIGINT)
//   POW(x, y), POWER             x^y (DOUBLE); an infinite result is 1690 ("DOUBLE value is out
//                                of range in 'pow(x,y)'"), as is POW(0, negative)
//   SQRT(x)                      NULL for x < 0
//   EXP(x)                       1690 past the double range
//   LN(x), LOG(x), LOG(b, x),    NULL with warning 3020 "Invalid argument for logarithm" for
//   LOG2(x), LOG10(x)            x <= 0 (and for b <= 0 or b = 1)
//   SIN COS TAN ASIN ACOS ATAN(x), ATAN(y, x), ATAN2(y, x), COT(x), RADIANS(x), DEGREES(x):
//                                DOUBLE; ASIN and ACOS NULL outside [-1, 1]; COT(0) is 1690
//   TRUNCATE(x, d)               x cut (toward zero) to d digits after the point (negative d: to
//                                tens, hundreds, ...): an integer stays an integer, a decimal
//                                shows max(d, 0) digits, a double or string is a double
//   GREATEST(a, b, ...), LEAST   by the arguments' aggregated type (CASE's, expr_type.h):
//                                integers and decimals exactly, doubles as doubles, strings
//                                under their collation; the result converted to that type
//   CRC32(s)                     the IEEE CRC-32 of s's bytes (zlib's, as MySQL's), BIGINT
//   BIT_COUNT(n)                 the bits set in n as a 64-bit integer
//   CONV(n, from, to)            n's digits read in base |from|, written in base |to| (2..36;
//                                NULL otherwise); a negative `to` writes the value signed; as
//                                MySQL, a number past 64 bits saturates
//   BIN(n), OCT(n)               CONV(n, 10, 2), CONV(n, 10, 8)
//   FORMAT(x, d)                 x rounded to d digits (0..30) with ',' between thousands and
//                                '.' before the fraction (the en_US locale; a third argument
//                                other than 'en_US' is refused with 1235)
//   PI()                         the double nearest pi (shown with all its digits: MySQL
//                                shows PI() itself with 6)
//   UUID_SHORT()                 BIGINT UNSIGNED: server_id 1 in the top byte, the process's
//                                start in seconds << 24, plus a counter

#include "sql_lite_front/execute/expr.h"

namespace minnow::sql {

// A number's 64 bits as MySQL's bit functions read it (BIT_COUNT, BIT_AND/OR/XOR): integers as
// they are (two's complement for negatives), others rounded to the nearest integer, saturated
// to the 64-bit range.
uint64_t IntegerBits(const Value& v);
// True for the functions above (the Func values this file evaluates).
bool IsMathFunction(Func f);
Value EvalMathFunction(const BoundExpr& e, const Row& row, EvalState& st);

}  // namespace minnow::sql
