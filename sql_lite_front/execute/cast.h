#pragma once
// CAST(x AS type) and CONVERT(x, type) / CONVERT(x USING cs), as MySQL 8.0 converts:
//   SIGNED [INTEGER]    integers as they are (BIGINT UNSIGNED above 2^63 - 1 wraps to negative),
//                       decimals rounded half away from zero, doubles to the nearest (ties to
//                       even, MySQL's rint), strings by their integer prefix (MySQL's
//                       strtoll10: leading spaces, a sign, digits); anything after the prefix,
//                       or no digits, is warning 1292 "Truncated incorrect INTEGER value: '..'",
//                       a string past the range too; a string between 2^63 and 2^64 - 1 wraps,
//                       with warning 1105 "Cast to signed converted positive out-of-range
//                       integer to it's negative complement".
//   UNSIGNED [INTEGER]  the same as BIGINT UNSIGNED: negative integers wrap (-1 is
//                       18446744073709551615); a negative string too, with warning 1105 "Cast to
//                       unsigned converted negative integer to it's positive complement".
//   CHAR[(n)]           the text, in the connection's collation (or CHARACTER SET cs's); past n
//                       characters cut, with 1292 "Truncated incorrect CHAR(n) value: '..'".
//   BINARY[(n)]         the bytes, binary collation; BINARY(n) cuts past n bytes (1292 as CHAR)
//                       and pads a shorter value with 0x00 bytes to n.
//   DECIMAL[(m[,d])]    DECIMAL(10,0) by default: rounded to d digits after the point; a value
//                       past m digits is the largest of the type with its sign and warning 1264
//                       "Out of range value for column '<expr>' at row 1"; strings by their
//                       numeric prefix, 1292 "Truncated incorrect DECIMAL value: '..'" for more.
//   DOUBLE, REAL        a double; strings by their numeric prefix (1292 "... DOUBLE value ...").
//   DATE, DATETIME[(fsp)] a date read from text or a number (a TIME on today's date).
//   TIME[(fsp)]         a time read as ValueAsTime (value.h) reads one, rounded to fsp; text or
//                       a number that is none is NULL, beyond ±838:59:59 it is clipped, both
//                       and text with more after the time with 1292 "Truncated incorrect time
//                       value: '..'".
//   USING utf8mb4/utf8mb3/utf8/binary: the text in that charset's default collation.
// NULL casts to NULL. Other target types (JSON, FLOAT, NCHAR, YEAR...) and
// charsets minnow lacks (latin1, ...) are refused when parsed (1235).

#include "sql_lite_front/execute/expr.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

// Checks `target` and gives the collation of a string result (null for numbers): 1115 for an
// unknown charset, 1235 for one MySQL has and minnow does not.
SqlResult<const Collation*> CastCollation(const CastTarget& target);
// `v` cast as `e` (kCast) says; warnings into st.warnings.
Value EvalCast(const BoundExpr& e, const Value& v, EvalState& st);
// The type as MySQL prints it in messages and EXPLAIN: "signed", "char(3)", "decimal(10,2)".
std::string CastTypeText(const CastTarget& target);

}  // namespace minnow::sql
