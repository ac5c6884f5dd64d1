#pragma once
// Arithmetic as MySQL computes it (expr.h's Eval calls these for + - * / DIV % and unary -).
//
// The operands decide the kind of arithmetic, as MySQL's result types do:
//   - a double or a string operand: double arithmetic (a string is read as a number);
//   - else a decimal operand (0.1, SUM of integers, a / b): exact decimal arithmetic (decimal.h);
//   - else integers: exact in 64 bits. The result is BIGINT UNSIGNED when the expression is
//     (BoundExpr::is_unsigned: an unsigned operand of + - * DIV, the left one of %), else BIGINT.
// "/" is never integer: integers divide as decimals with div_precision_increment (4) more
// digits (1/3 = 0.3333). DIV divides as decimals whenever an operand is not an integer (a double
// by its shortest digits: 0.3e0 DIV 0.1e0 is 3), the quotient truncated to BIGINT. x / 0,
// x DIV 0 and x % 0 are NULL.
// A result outside its type's range is MySQL's error 1690, which Eval records in EvalState:
//   "BIGINT value is out of range in '(`test`.`t`.`b` + 1)'" (also BIGINT UNSIGNED, DECIMAL,
//   DOUBLE), the expression printed as MySQL prints it (BoundExpr::text).

#include "sql_lite_front/execute/expr.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

// `a` op `b` for an arithmetic op of `e` (kBinary). NULL if either is NULL. On overflow records
// 1690 in `st` and returns NULL.
// An ENUM or SET value as its number; a date as its number (MySQL's val_int / val_decimal):
// 20240105, or with fractional seconds a decimal 20240105030405.120 (a TIME: -101112.5); any
// other value as it is.
Value AsNumber(const Value& v);
Value EvalArithmetic(const BoundExpr& e, const Value& a, const Value& b, EvalState& st);
// -v for `e` (kUnary kNeg); -(-9223372036854775808) and -(an unsigned above 2^63) are 1690,
// or DECIMAL when the operand is a constant (BoundExpr::negates_constant), as MySQL types it.
Value EvalNegation(const BoundExpr& e, const Value& v, EvalState& st);

// ROUND(v, digits) for `e` (kFunction kRound): integers and decimals exactly (half away from
// zero; an integer stays one), doubles and strings as doubles (ties to even, as MySQL's rint).
// A decimal result past 65 digits is 1690 (MySQL's own decimals reach 81 digits there).
Value EvalRound(const BoundExpr& e, const Value& v, int64_t digits, EvalState& st);
// Records 1690 "<type> value is out of range in '<e.text>'" in `st` (the statement's first
// error wins) and returns NULL.
Value OutOfRange(const char* type, const BoundExpr& e, EvalState& st);
// `d` (with no fraction) as BIGINT if it fits, else BIGINT UNSIGNED, else the decimal it is.
Value IntegerIfFits(Decimal d);

// How MySQL prints `e` in messages: columns as `schema`.`table`.`column`, operators in
// parentheses "(`test`.`t`.`b` + 1)", unary minus "-(x)", functions "abs(x)", literals as
// written. Columns of `scope` by name.
std::string PrintExpr(const Expr& e, const BindScope& scope);
// A binary operator as MySQL prints it there ("=", "<=>", "DIV", "and").
const char* BinaryOpText(BinaryOp op);

}  // namespace minnow::sql
