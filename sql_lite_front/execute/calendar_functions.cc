// Calendar functions (calendar_functions.h).

#include "sql_lite_front/execute/calendar_functions.h"

#include "sql_lite_front/execute/date_functions.h"

namespace minnow::sql {
namespace {

constexpr unsigned kMondayFirst = 1;
constexpr unsigned kWeekYear = 2;
constexpr unsigned kFirstWeekday = 4;
// MySQL's MAX_DAY_NUMBER: the day number of 9999-12-31.
constexpr int64_t kMaxDayNumber = 3652424;

constexpr const char* kMonthNames[] = {"January",   "February", "March",    "April",
                                       "May",       "June",     "July",     "August",
                                       "September", "October",  "November", "December"};
constexpr const char* kDayNames[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                     "Friday", "Saturday", "Sunday"};

int DaysInYear(int year) { return DayNumber(year, 12, 31) - DayNumber(year, 1, 1) + 1; }

// MySQL's calc_weekday: 0 = Monday (or, sunday_first, 0 = Sunday).
int Weekday(int64_t daynr, bool sunday_first) {
  return static_cast<int>((daynr + 5 + (sunday_first ? 1 : 0)) % 7);
}

Value DateValue(const DateTimeParts& p) {
  return Value::FromTemporal(MakeTemporal(Temporal::Type::kDate, 0, p));
}

}  // namespace

unsigned WeekMode(int64_t mode) {
  unsigned f = static_cast<unsigned>(mode) & 7;
  if ((f & kMondayFirst) == 0) f ^= kFirstWeekday;
  return f;
}

int CalcWeek(const DateTimeParts& p, unsigned behaviour, int* year) {
  const int64_t daynr = DayNumber(p.year, p.month, p.day);
  int64_t first_daynr = DayNumber(p.year, 1, 1);
  const bool monday_first = (behaviour & kMondayFirst) != 0;
  bool week_year = (behaviour & kWeekYear) != 0;
  const bool first_weekday = (behaviour & kFirstWeekday) != 0;
  int weekday = Weekday(first_daynr, !monday_first);
  *year = p.year;
  auto starts_late = [&] { return first_weekday ? weekday != 0 : weekday >= 4; };
  if (p.month == 1 && p.day <= 7 - weekday) {
    if (!week_year && starts_late()) return 0;
    week_year = true;
    --*year;
    const int days = DaysInYear(*year);
    first_daynr -= days;
    weekday = (weekday + 53 * 7 - days) % 7;
  }
  const int64_t days =
      starts_late() ? daynr - (first_daynr + (7 - weekday)) : daynr - (first_daynr - weekday);
  if (week_year && days >= 52 * 7) {
    weekday = (weekday + DaysInYear(*year)) % 7;
    if (first_weekday ? weekday == 0 : weekday < 4) {
      ++*year;
      return 1;
    }
  }
  return static_cast<int>(days / 7 + 1);
}

bool IsCalendarFunction(Func f) { return f >= Func::kWeekday && f <= Func::kFromDays; }

Value EvalCalendarFunction(const BoundExpr& e, const Row& row, EvalState& st) {
  std::vector<Value> a;
  a.reserve(e.args.size());
  for (const BoundExpr& x : e.args) {
    a.push_back(Eval(x, row, st));
    if (a.back().is_null()) return Value::Null();
  }
  if (e.func == Func::kMakeDate) {
    int64_t year = a[0].ToInt();
    const int64_t day = a[1].ToInt();
    if (year < 0 || year > 9999 || day <= 0) return Value::Null();
    if (year < 100) year += year < 70 ? 2000 : 1900;
    const int64_t daynr = DayNumber(static_cast<int>(year), 1, 1) + day - 1;
    if (daynr > kMaxDayNumber) return Value::Null();
    return DateValue(FromDayNumber(daynr));
  }
  if (e.func == Func::kFromDays) {
    const int64_t n = a[0].ToInt();
    if (n < 0 && !a[0].is_uint()) return Value::Null();
    return DateValue(FromDayNumber(a[0].is_uint() && n < 0 ? INT64_MAX : n));
  }
  std::optional<Temporal> t = DateArgument(a[0], st);
  if (!t.has_value()) return Value::Null();
  const DateTimeParts p = t->parts();
  switch (e.func) {
    case Func::kMonthName:
      if (p.month == 0) return Value::Null();
      return Value::String(kMonthNames[p.month - 1]);
    case Func::kQuarter:
      return Value::Int((p.month + 2) / 3);
    case Func::kLastDay:
      if (p.month == 0) return IncorrectDatetime(st, FormatTemporal(*t));
      return DateValue(DateTimeParts{p.year, p.month, DaysInMonth(p.year, p.month)});
    default:
      break;
  }
  if (p.month == 0 || p.day == 0) return IncorrectDatetime(st, FormatTemporal(*t));
  const int64_t daynr = DayNumber(p.year, p.month, p.day);
  int year = 0;
  switch (e.func) {
    case Func::kWeekday:
      return Value::Int(Weekday(daynr, false));
    case Func::kDayOfWeek:
      return Value::Int(Weekday(daynr, true) + 1);
    case Func::kDayName:
      return Value::String(kDayNames[Weekday(daynr, false)]);
    case Func::kDayOfYear:
      return Value::Int(daynr - DayNumber(p.year, 1, 1) + 1);
    case Func::kToDays:
      return Value::Int(daynr);
    case Func::kWeek:
      return Value::Int(CalcWeek(p, WeekMode(a.size() > 1 ? a[1].ToInt() : 0), &year));
    case Func::kYearWeek: {
      const int week = CalcWeek(p, WeekMode(a.size() > 1 ? a[1].ToInt() : 0) | kWeekYear, &year);
      return Value::Int(int64_t{year} * 100 + week);
    }
    default:
      return Value::Null();
  }
}

}  // namespace minnow::sql
