#pragma once
// MySQL 8.0's calendar functions: where a date falls in its week, month, quarter and year, and
// day numbers. Date arguments are read as date_functions.h reads them (1292 and NULL for one
// that is no date); NULL in an argument gives NULL.
//
//   WEEKDAY(d)          0 = Monday .. 6 = Sunday           } NULL with 1292 for a zero date or
//   DAYOFWEEK(d)        1 = Sunday .. 7 = Saturday         } one with a zero month or day
//   DAYNAME(d)          'Monday' .. 'Sunday'               }
//   DAYOFYEAR(d)        1 .. 366                           }
//   TO_DAYS(d)          days since year 0 (0000-01-01 is 1) }
//   WEEK(d[, mode])     the week number under one of MySQL's 8 modes (mode & 7; without a mode,
//                       mode 0, MySQL's default_week_format)   } 1292 as above
//   YEARWEEK(d[, mode]) year * 100 + week, the week's own year  }
//   MONTHNAME(d)        'January' .. 'December'; NULL for month 0
//   QUARTER(d)          1 .. 4; 0 for month 0
//   LAST_DAY(d)         the DATE of the month's last day; NULL with 1292 for month 0
//   MAKEDATE(y, n)      the DATE of day n of year y (y < 70: 20yy, y < 100: 19yy); NULL for
//                       n < 1 or past 9999-12-31
//   FROM_DAYS(n)        the DATE of day number n; 0000-00-00 for n < 366 or past 9999-12-31

#include <cstdint>

#include "sql_lite_front/execute/expr.h"
#include "sql_lite_front/temporal.h"

namespace minnow::sql {

// MySQL's calc_week: the week of `p` (a date with month and day) under week_mode `behaviour`
// (bit 0 Monday first, bit 1 the week belongs to its own year, bit 2 week 1 is the first with
// the week's first day rather than the first with 4 days); *year gets the week's year.
int CalcWeek(const DateTimeParts& p, unsigned behaviour, int* year);
// WEEK()'s mode as calc_week's behaviour (MySQL's week_mode).
unsigned WeekMode(int64_t mode);

bool IsCalendarFunction(Func f);  // kWeekday .. kFromDays
Value EvalCalendarFunction(const BoundExpr& e, const Row& row, EvalState& st);

}  // namespace minnow::sql
