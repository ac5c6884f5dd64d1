#pragma once
// STR_TO_DATE(str, format), as MySQL 8.0's extract_date_time reads text by a format.
//
// Specifiers: %Y (1-4 digits; 1-2 digits are a two-digit year), %y (2 digits: 70-99 19xx,
// 00-69 20xx), %m %c (month), %d %e (day), %H %k (hour 0-23), %h %I %l (hour 1-12, with %p),
// %i (minutes), %s %S (seconds), %f (up to 6 digits of fraction), %p (AM/PM), %T
// (%H:%i:%s), %r (%h:%i:%s %p), %b (Jan..Dec) and %M (January..December) in any case, %j (day
// of the year), %% (a '%'); any other character in the format must be in the text (white space
// in either is skipped). Numbers take at most their width of digits, fewer when a non-digit
// follows ('2024-1-5' is '%Y-%m-%d').
//
// The result is a DATE when the format has no time specifier, else a DATETIME (fsp 6 with
// %f, else 0). Text that does not match, or a date that does not exist ('2024-02-30'), is NULL
// with warning 1411 "Incorrect datetime value: '..' for function str_to_date"; text left over
// after the format is warning 1292 "Truncated incorrect datetime value: '..'" with the value
// read. A format with no date specifier gives a TIME (fsp 6 with %f), its messages naming a
// "time" value.

#include "sql_lite_front/execute/expr.h"

namespace minnow::sql {

Value StrToDate(const Value& text, const Value& format, EvalState& st);

}  // namespace minnow::sql
