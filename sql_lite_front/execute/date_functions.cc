// Date functions (date_functions.h).

#include "sql_lite_front/execute/date_functions.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "sql_lite_front/execute/calendar_functions.h"

namespace minnow::sql {
namespace {

constexpr int64_t kUsPerSecond = 1000000;
constexpr int64_t kUsPerDay = 86400 * kUsPerSecond;
constexpr size_t kMaxWarnings = 1024;  // MySQL's max_error_count

}  // namespace

void DateWarning(EvalState& st, uint16_t code, std::string message) {
  if (st.warnings.size() < kMaxWarnings)
    st.warnings.push_back(SqlWarning{"Warning", code, std::move(message)});
}

namespace {

void Warn(EvalState& st, uint16_t code, std::string message) {
  DateWarning(st, code, std::move(message));
}

int64_t TimeOfDayUs(const DateTimeParts& p) {
  return ((int64_t{p.hour} * 60 + p.minute) * 60 + p.second) * kUsPerSecond + p.micro;
}

Value Overflow(EvalState& st) {
  Warn(st, kErDatetimeFunctionOverflow, "Datetime function: datetime field overflow");
  return Value::Null();
}

}  // namespace

Value IncorrectDatetime(EvalState& st, const std::string& text) {
  Warn(st, kErTruncatedWrongValue, fmt::format("Incorrect datetime value: '{}'", text));
  return Value::Null();
}

int64_t AbsoluteUs(const DateTimeParts& p) {
  return DayNumber(p.year, p.month, p.day) * kUsPerDay + TimeOfDayUs(p);
}

std::optional<DateTimeParts> PartsOfAbsoluteUs(Int128 us) {
  if (us < Int128{DayNumber(1, 1, 1)} * kUsPerDay ||
      us >= Int128{DayNumber(9999, 12, 31) + 1} * kUsPerDay) {
    return std::nullopt;
  }
  const auto total = static_cast<int64_t>(us);
  DateTimeParts r = FromDayNumber(total / kUsPerDay);
  int64_t rest = total % kUsPerDay;
  r.micro = static_cast<int>(rest % kUsPerSecond);
  rest /= kUsPerSecond;
  r.second = static_cast<int>(rest % 60);
  r.minute = static_cast<int>(rest / 60 % 60);
  r.hour = static_cast<int>(rest / 3600);
  return r;
}

std::optional<Temporal> DateArgument(const Value& v, EvalState& st) {
  if (v.is_temporal() && v.as_temporal().is_time()) {
    Temporal on_today;  // a TIME is a DATETIME on today's date, as MySQL 8.0 reads it
    if (!TimeOnDate(v.as_temporal(), CurrentDate(), &on_today)) {
      IncorrectDatetime(st, v.ToString());
      return std::nullopt;
    }
    return on_today;
  }
  if (v.is_temporal()) return v.as_temporal();
  if (v.is_enum()) return DateArgument(Value::String(v.ToString()), st);
  std::optional<DateTimeParts> parts;
  Temporal::Type type = Temporal::Type::kDateTime;
  uint8_t fsp = 0;
  if (v.is_string()) {
    TemporalParse p = ParseTemporalText(v.as_string());
    parts = p.parts;
    if (!p.has_time) type = Temporal::Type::kDate;
    if (p.frac_digits > 0) fsp = 6;
  } else if (v.is_int()) {
    parts = ParseTemporalNumber(v.as_int());
    if (v.as_int() <= 99991231) type = Temporal::Type::kDate;
  } else if (v.is_decimal() || v.is_double()) {
    const double d = v.ToDouble();
    if (d >= 0 && d < 1e15) {
      const double whole = std::floor(d);
      parts = ParseTemporalNumber(static_cast<int64_t>(whole));
      if (parts.has_value()) {
        parts->micro = std::min(999999, static_cast<int>(std::lround((d - whole) * 1e6)));
        fsp = 6;
      }
    }
  }
  if (!parts.has_value()) {
    IncorrectDatetime(st, v.ToString());
    return std::nullopt;
  }
  return MakeTemporal(type, fsp, *parts);
}

namespace {

int64_t ClockMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// `now_us` (UTC) as local DATETIME(fsp) in `tz`, the fraction cut to fsp digits.
Temporal LocalNow(int64_t now_us, int fsp, const TimeZone& tz) {
  int64_t secs = now_us / kUsPerSecond;
  int micro = static_cast<int>(now_us % kUsPerSecond);
  int64_t unit = 1;
  for (int k = fsp; k < 6; ++k) unit *= 10;
  micro = static_cast<int>(micro / unit * unit);
  return MakeTemporal(Temporal::Type::kDateTime, static_cast<uint8_t>(fsp),
                      UtcToLocal(secs, micro, tz));
}

std::string TextOfUnit(const Value& v) { return v.is_string() ? v.as_string() : std::string(); }

int64_t UnitMicros(std::string_view unit) {
  if (unit == "MICROSECOND") return 1;
  if (unit == "SECOND") return kUsPerSecond;
  if (unit == "MINUTE") return 60 * kUsPerSecond;
  if (unit == "HOUR") return 3600 * kUsPerSecond;
  if (unit == "DAY") return kUsPerDay;
  if (unit == "WEEK") return 7 * kUsPerDay;
  return 0;  // MONTH, QUARTER, YEAR
}

int UnitMonths(std::string_view unit) {
  return unit == "MONTH" ? 1 : unit == "QUARTER" ? 3 : unit == "YEAR" ? 12 : 0;
}

// A TIME plus an interval of days or less: a TIME; NULL with 1441 beyond ±838:59:59.
Value AddTimeInterval(const Temporal& t, int64_t amount, std::string_view unit, EvalState& st) {
  const auto fsp = static_cast<uint8_t>(unit == "MICROSECOND" ? 6 : t.fsp);
  const Int128 us = Int128{t.packed} + Int128{amount} * UnitMicros(unit);
  if (us > kMaxTimeMicros || us < -kMaxTimeMicros) {
    Warn(st, kErDatetimeFunctionOverflow, "Datetime function: time field overflow");
    return Value::Null();
  }
  return Value::FromTemporal(MakeTime(static_cast<int64_t>(us), fsp));
}

Value AddInterval(const Value& d, const Value& n, std::string_view unit, int sign, EvalState& st) {
  if (d.is_null() || n.is_null()) return Value::Null();
  if (d.is_temporal() && d.as_temporal().is_time() && UnitMonths(unit) == 0) {
    return AddTimeInterval(d.as_temporal(), n.ToInt() * sign, unit, st);
  }
  std::optional<Temporal> t = DateArgument(d, st);
  if (!t.has_value()) return Value::Null();
  DateTimeParts p = t->parts();
  if (p.month == 0 || p.day == 0) return IncorrectDatetime(st, FormatTemporal(*t));
  const int64_t amount = n.ToInt() * sign;
  const bool keeps_date =
      t->type == Temporal::Type::kDate && (unit == "DAY" || unit == "WEEK" || UnitMonths(unit) > 0);
  const Temporal::Type type = keeps_date ? Temporal::Type::kDate : Temporal::Type::kDateTime;
  const auto fsp = static_cast<uint8_t>(unit == "MICROSECOND" ? 6 : t->fsp);
  if (const int months = UnitMonths(unit); months > 0) {
    const __int128 total = __int128{p.year} * 12 + (p.month - 1) + __int128{amount} * months;
    if (total < 12 || total >= 10000 * 12) return Overflow(st);
    p.year = static_cast<int>(total / 12);
    p.month = static_cast<int>(total % 12) + 1;
    p.day = std::min(p.day, DaysInMonth(p.year, p.month));
    return Value::FromTemporal(MakeTemporal(type, fsp, p));
  }
  const __int128 us = __int128{AbsoluteUs(p)} + __int128{amount} * UnitMicros(unit);
  std::optional<DateTimeParts> r = PartsOfAbsoluteUs(us);
  if (!r.has_value()) return Overflow(st);
  return Value::FromTemporal(MakeTemporal(type, fsp, *r));
}

Value TimestampDiff(std::string_view unit, const Value& a, const Value& b, EvalState& st) {
  if (a.is_null() || b.is_null()) return Value::Null();
  std::optional<Temporal> x = DateArgument(a, st), y = DateArgument(b, st);
  if (!x.has_value() || !y.has_value()) return Value::Null();
  const DateTimeParts p = x->parts(), q = y->parts();
  if (const int months = UnitMonths(unit); months > 0) {
    // Whole months from the earlier to the later, as MySQL counts them.
    const bool forward = AbsoluteUs(q) >= AbsoluteUs(p);
    const DateTimeParts& lo = forward ? p : q;
    const DateTimeParts& hi = forward ? q : p;
    int64_t total = (int64_t{hi.year} * 12 + hi.month) - (int64_t{lo.year} * 12 + lo.month);
    if (hi.day < lo.day || (hi.day == lo.day && TimeOfDayUs(hi) < TimeOfDayUs(lo))) --total;
    return Value::Int((forward ? total : -total) / months);
  }
  return Value::Int((AbsoluteUs(q) - AbsoluteUs(p)) / UnitMicros(unit));
}

constexpr const char* kMonthNames[] = {"January",   "February", "March",    "April",
                                       "May",       "June",     "July",     "August",
                                       "September", "October",  "November", "December"};
constexpr const char* kDayNames[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                     "Friday", "Saturday", "Sunday"};

}  // namespace

Value DateFormat(const Temporal& t, const std::string& format, EvalState& st) {
  const DateTimeParts p = t.parts();
  const bool time = t.is_time();
  const int64_t daynr = DayNumber(p.year, p.month, p.day);
  const int weekday = static_cast<int>((daynr + 5) % 7);  // 0 = Monday (calc_weekday)
  const int hour12 = (p.hour % 24 + 11) % 12 + 1;
  std::string out = p.negative ? "-" : "";
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 == format.size()) {
      out += format[i];
      continue;
    }
    const char c = format[++i];
    // A TIME has no day of the week or of the year, nor weeks: NULL, as MySQL's.
    if (time && std::string_view("aDjUuVvWwXx").find(c) != std::string_view::npos) {
      return Value::Null();
    }
    switch (c) {
      case 'a':
        out += std::string(kDayNames[weekday]).substr(0, 3);
        break;
      case 'b':
        if (p.month > 0) out += std::string(kMonthNames[p.month - 1]).substr(0, 3);
        break;
      case 'c':
        out += std::to_string(p.month);
        break;
      case 'D': {
        out += std::to_string(p.day);
        const int d = p.day;
        out += (d >= 11 && d <= 13) ? "th"
               : d % 10 == 1        ? "st"
               : d % 10 == 2        ? "nd"
               : d % 10 == 3        ? "rd"
                                    : "th";
        break;
      }
      case 'd':
        out += fmt::format("{:02}", p.day);
        break;
      case 'e':
        out += std::to_string(p.day);
        break;
      case 'f':
        out += fmt::format("{:06}", p.micro);
        break;
      case 'H':
        out += fmt::format("{:02}", p.hour);
        break;
      case 'h':
      case 'I':
        out += fmt::format("{:02}", hour12);
        break;
      case 'i':
        out += fmt::format("{:02}", p.minute);
        break;
      case 'j':
        out += fmt::format("{:03}", daynr - DayNumber(p.year, 1, 1) + 1);
        break;
      case 'k':
        out += std::to_string(p.hour);
        break;
      case 'l':
        out += std::to_string(hour12);
        break;
      case 'M':
        if (p.month > 0) out += kMonthNames[p.month - 1];
        break;
      case 'm':
        out += fmt::format("{:02}", p.month);
        break;
      case 'p':
        out += p.hour % 24 < 12 ? "AM" : "PM";
        break;
      case 'r':
        out += fmt::format("{:02}:{:02}:{:02} {}", hour12, p.minute, p.second,
                           p.hour % 24 < 12 ? "AM" : "PM");
        break;
      case 'S':
      case 's':
        out += fmt::format("{:02}", p.second);
        break;
      case 'T':
        out += fmt::format("{:02}:{:02}:{:02}", p.hour, p.minute, p.second);
        break;
      case 'W':
        out += kDayNames[weekday];
        break;
      case 'w':
        out += std::to_string((weekday + 1) % 7);  // 0 = Sunday
        break;
      case 'Y':
        out += fmt::format("{:04}", p.year);
        break;
      case 'y':
        out += fmt::format("{:02}", p.year % 100);
        break;
      case 'U':
      case 'u':
      case 'V':
      case 'v':
      case 'X':
      case 'x': {
        // MySQL's make_date_time: %U Sunday-first weeks from 0, %u Monday-first; %V and %v
        // the same weeks counted in their own year, which %X and %x print.
        const bool monday = c == 'u' || c == 'v' || c == 'x';
        const unsigned mode = (monday ? 1U : 4U) | (c == 'U' || c == 'u' ? 0U : 2U);
        int year = 0;
        const int week = CalcWeek(p, mode, &year);
        out += c == 'X' || c == 'x' ? fmt::format("{:04}", year) : fmt::format("{:02}", week);
        break;
      }
      default:
        out += c;  // %% and unknown specifiers: the character
        break;
    }
  }
  return Value::String(std::move(out));
}

namespace {

Value UnixTimestamp(const Value& v, const TimeZone& tz, EvalState& st) {
  std::optional<Temporal> t = DateArgument(v, st);
  if (!t.has_value()) return Value::Null();
  const DateTimeParts p = t->parts();
  std::optional<int64_t> secs = LocalToUtc(p, tz);
  if (!secs.has_value() || *secs < 0 || *secs > 32536771199) {
    return t->fsp > 0 ? Value::Dec(*Decimal::Parse("0." + std::string(t->fsp, '0')))
                      : Value::Int(0);
  }
  if (t->fsp == 0) return Value::Int(*secs);
  const std::string frac = fmt::format("{:06}", p.micro).substr(0, t->fsp);
  return Value::Dec(*Decimal::Parse(std::to_string(*secs) + "." + frac));
}

Value FromUnixtime(const Value& n, const TimeZone& tz) {
  int fsp = 0;
  if (n.is_decimal()) fsp = std::min(6, n.as_decimal().scale());
  if (n.is_double() || n.is_string()) fsp = 6;
  const double d = n.ToDouble();
  if (!(d >= 0) || d > 32536771199.999999) return Value::Null();
  const auto secs = static_cast<int64_t>(std::floor(d));
  int micro = 0;
  if (n.is_decimal()) {  // the digits after the point, exactly
    const std::string text = n.as_decimal().ToString();
    const size_t point = text.find('.');
    std::string digits = point == std::string::npos ? "" : text.substr(point + 1, 6);
    digits.resize(6, '0');
    micro = std::stoi(digits);
  } else if (fsp > 0) {
    micro = static_cast<int>(std::lround((d - static_cast<double>(secs)) * 1e6));
  }
  micro = std::clamp(micro, 0, 999999);
  DateTimeParts p = UtcToLocal(secs, micro, tz);
  return Value::FromTemporal(MakeTemporal(Temporal::Type::kDateTime, static_cast<uint8_t>(fsp), p));
}

}  // namespace

SqlResult<std::optional<Value>> BindStatementTime(const Expr& e, int64_t now_us,
                                                  const TimeZone& tz) {
  const std::string& n = e.name;
  const bool datetime =
      n == "now" || n == "current_timestamp" || n == "localtime" || n == "localtimestamp";
  const bool date = n == "curdate" || n == "current_date";
  const bool time = n == "curtime" || n == "current_time";
  const bool unix = n == "unix_timestamp" && e.args.empty();
  if (!datetime && !date && !time && !unix) return std::optional<Value>();
  if (now_us == 0) now_us = ClockMicros();
  if (unix) return std::optional<Value>(Value::Int(now_us / kUsPerSecond));
  int64_t fsp = 0;
  if (date && !e.args.empty()) {
    return SqlErr(kErWrongParamCountToNativeFct,
                  "Incorrect parameter count in the call to native function '", n, "'");
  }
  if (e.args.size() > 1) {
    return SqlErr(kErWrongParamCountToNativeFct,
                  "Incorrect parameter count in the call to native function '", n, "'");
  }
  if (e.args.size() == 1) {
    const Expr& a = *e.args[0];
    if (a.kind != Expr::Kind::kLiteral || !a.value.is_int() || a.value.as_int() < 0) {
      return SqlErr(kErParse, "You have an error in your SQL syntax; check the manual that ",
                    "corresponds to your minnow version for the right syntax to use near '", a.text,
                    ")'");
    }
    fsp = a.value.as_int();
    if (fsp > 6) {
      return SqlErr(kErTooBigPrecision, "Too-big precision ", std::to_string(fsp),
                    " specified for '", n, "'. Maximum is 6.");
    }
  }
  Temporal t = LocalNow(now_us, static_cast<int>(fsp), tz);
  if (date) t = MakeTemporal(Temporal::Type::kDate, 0, t.parts());
  if (time) {
    DateTimeParts p = t.parts();
    p.year = p.month = p.day = 0;
    t = MakeTemporal(Temporal::Type::kTime, t.fsp, p);
  }
  return std::optional<Value>(Value::FromTemporal(t));
}

Value EvalDateFunction(const BoundExpr& e, const Row& row, EvalState& st) {
  std::vector<Value> a;
  a.reserve(e.args.size());
  for (const BoundExpr& x : e.args) a.push_back(Eval(x, row, st));
  if (e.func == Func::kSysdate) {
    const int fsp = a.empty() ? 0 : static_cast<int>(std::clamp<int64_t>(a[0].ToInt(), 0, 6));
    return Value::FromTemporal(LocalNow(ClockMicros(), fsp, e.time_zone));
  }
  if (e.func == Func::kUnixTimestamp) {  // with an argument: the constant form is bound
    return a[0].is_null() ? Value::Null() : UnixTimestamp(a[0], e.time_zone, st);
  }
  if (e.func == Func::kDateAdd || e.func == Func::kDateSub) {
    return AddInterval(a[0], a[1], TextOfUnit(a[2]), e.func == Func::kDateSub ? -1 : 1, st);
  }
  if (e.func == Func::kTimestampAdd) return AddInterval(a[2], a[1], TextOfUnit(a[0]), 1, st);
  if (e.func == Func::kTimestampDiff) return TimestampDiff(TextOfUnit(a[0]), a[1], a[2], st);
  for (const Value& v : a)
    if (v.is_null()) return Value::Null();
  if (e.func == Func::kFromUnixtime) {
    Value t = FromUnixtime(a[0], e.time_zone);
    if (a.size() == 1 || t.is_null()) return t;
    return DateFormat(t.as_temporal(), a[1].ToString(), st);
  }
  std::optional<Temporal> t = DateArgument(a[0], st);
  if (!t.has_value()) return Value::Null();
  const DateTimeParts p = t->parts();
  switch (e.func) {
    case Func::kDateOf:
      return Value::FromTemporal(MakeTemporal(Temporal::Type::kDate, 0, p));
    case Func::kYear:
      return Value::Int(p.year);
    case Func::kMonth:
      return Value::Int(p.month);
    case Func::kDayOfMonth:
      return Value::Int(p.day);
    case Func::kDateFormat:
      return DateFormat(*t, a[1].ToString(), st);
    case Func::kDateDiff: {
      std::optional<Temporal> u = DateArgument(a[1], st);
      if (!u.has_value()) return Value::Null();
      const DateTimeParts q = u->parts();
      if (p.month == 0 || p.day == 0 || q.month == 0 || q.day == 0) return Value::Null();
      return Value::Int(DayNumber(p.year, p.month, p.day) - DayNumber(q.year, q.month, q.day));
    }
    default:
      return Value::Null();
  }
}

}  // namespace minnow::sql
