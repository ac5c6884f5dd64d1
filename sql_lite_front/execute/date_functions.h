#pragma once
// MySQL 8.0's date functions over DATE and DATETIME values (temporal.h).
//
// Statement constants, bound once (BindStatementTime): NOW(), CURRENT_TIMESTAMP, LOCALTIME,
// LOCALTIMESTAMP [(fsp)] (DATETIME), CURDATE(), CURRENT_DATE (DATE), CURTIME(),
// CURRENT_TIME [(fsp)] (TIME), UNIX_TIMESTAMP(): the
// statement's start in the session's time_zone, one value however often the statement reads it.
// SYSDATE([fsp]) reads the clock each time it is evaluated, as MySQL's.
//
// The others take their date arguments as MySQL does: a DATE or DATETIME as it is, text and
// numbers read as dates ('2024-01-05 10:00:00', 20240105); an argument that is no date is NULL
// with warning 1292 "Incorrect datetime value: '..'". A TIME is a DATETIME on today's date
// (MySQL 8.0's conversion); text of a time alone ('10:00:00') is not read as one: NULL with
// that warning. (HOUR, MINUTE and SECOND read a time: time_functions.h.)
//   DATE, YEAR, MONTH, DAY/DAYOFMONTH: the part.
//   DATE_ADD/DATE_SUB/ADDDATE/SUBDATE(d, INTERVAL n unit), d +/- INTERVAL n unit,
//   TIMESTAMPADD(unit, n, d): MICROSECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER,
//     YEAR (the compound units are refused when parsed: 1235); a TIME plus units of a day or
//     less is a TIME (NULL with 1441 "Datetime function: time field overflow" beyond
//     ±838:59:59); months keep the day unless the
//     month is shorter (2024-01-31 + 1 MONTH = 2024-02-29); a DATE stays a DATE for units of a
//     day and more; a result outside 0001-01-01 .. 9999-12-31 is NULL with 1441 "Datetime
//     function: datetime field overflow"; a zero date (or zero month/day) is NULL with 1292.
//   DATEDIFF(a, b): days from b to a. TIMESTAMPDIFF(unit, a, b): whole units from a to b.
//   UNIX_TIMESTAMP(d): seconds since 1970 UTC of the local time d (0 before 1970), with d's
//     fractional digits as a decimal. FROM_UNIXTIME(n[, format]): the local DATETIME (with n's
//     decimals as fsp, up to 6), NULL for negative n.
//   DATE_FORMAT(d, format): %a %b %c %D %d %e %f %H %h %I %i %j %k %l %M %m %p %r %S %s %T %W
//     %w %Y %y, the week specifiers %U %u %V %v %X %x (calendar_functions.h's weeks), %%, any
//     other character after % as itself.

#include <optional>
#include <string>

#include "sql_lite_front/execute/expr.h"
#include "sql_lite_front/temporal.h"

namespace minnow::sql {

// The value of `e` if it is one of the statement constants above (now_us: the statement's
// start, 0 for the clock now); nullopt if it is not. 1426 for fsp above 6, 1064 for an fsp that
// is not an integer literal.
SqlResult<std::optional<Value>> BindStatementTime(const Expr& e, int64_t now_us,
                                                  const TimeZone& tz);
// MySQL's DATE_FORMAT of `t` (TIME_FORMAT's too: a TIME prints its sign first, its whole hours
// for %H %k %T, and is NULL for the day-of-week, day-of-year and week specifiers).
Value DateFormat(const Temporal& t, const std::string& format, EvalState& st);
// A date argument as MySQL reads one (above); nullopt, with 1292, when it is none.
std::optional<Temporal> DateArgument(const Value& v, EvalState& st);
// NULL, with warning 1292 "Incorrect datetime value: '<text>'".
Value IncorrectDatetime(EvalState& st, const std::string& text);
// Adds a warning to `st`, unless it holds max_error_count (1024) already.
void DateWarning(EvalState& st, uint16_t code, std::string message);
// A date and time as microseconds since day 0 (0000-01-01 is day 1, DayNumber's), and back:
// nullopt outside 0001-01-01 .. 9999-12-31, the range date arithmetic stays in.
int64_t AbsoluteUs(const DateTimeParts& p);
std::optional<DateTimeParts> PartsOfAbsoluteUs(Int128 us);
// The date functions of Func (kSysdate .. kFromUnixtime).
Value EvalDateFunction(const BoundExpr& e, const Row& row, EvalState& st);

}  // namespace minnow::sql
