#pragma once
// MySQL 8.0's functions of times of day and durations (TIME values, temporal.h). A time
// argument is read as ValueAsTime reads one (value.h): a TIME as it is, a DATETIME's time of
// day, text '[-][D ]HH:MM:SS[.frac]' or a DATETIME's text, numbers HHMMSS; one that is no time
// gives NULL with 1292 "Truncated incorrect time value: '..'"; NULL in an argument gives NULL.
//
//   HOUR, MINUTE, SECOND, MICROSECOND(t)  the part (HOUR of a TIME up to 838)
//   TIME(x)                 the TIME of x, with x's fractional digits
//   TIME_TO_SEC(t)          the seconds of t (the fraction dropped)
//   SEC_TO_TIME(n)          the TIME of n seconds (n's decimals its fsp); beyond ±838:59:59
//                           clipped, with 1292
//   MAKETIME(h, m, s)       h hours, m minutes, s seconds; NULL for m or s outside 0..59,
//                           h clipped to ±838 with 1292
//   TIMEDIFF(a, b)          a - b as a TIME; both TIMEs or both DATETIMEs (text read as the
//                           one it looks like), else NULL; clipped with 1292
//   ADDTIME(a, t), SUBTIME(a, t)  a DATETIME or TIME a plus / minus the TIME t: a DATETIME
//                           (NULL past 9999-12-31) or a clipped TIME
//   TIME_FORMAT(t, format)  DATE_FORMAT's specifiers for a TIME (date_functions.h)

#include "sql_lite_front/execute/expr.h"

namespace minnow::sql {

// kHour, kMinute, kSecond and kTimeOf .. kMicrosecond.
bool IsTimeFunction(Func f);
Value EvalTimeFunction(const BoundExpr& e, const Row& row, EvalState& st);

}  // namespace minnow::sql
