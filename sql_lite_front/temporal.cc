// Dates and times: parsing, checking, packing, printing (temporal.h).

#include "sql_lite_front/temporal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>

namespace minnow::sql {
namespace {

constexpr int64_t kMicros = 1000000;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool IsPunct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

// Two-digit years: 70-99 are 19xx, 00-69 20xx (MySQL's YY_PART_YEAR).
int FullYear(int yy) { return yy < 70 ? 2000 + yy : 1900 + yy; }

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// MySQL's check_date without NO_ZERO_IN_DATE and ALLOW_INVALID_DATES: a zero month or day is
// kept, else the day must exist; the time must be a time of day.
bool Valid(const DateTimeParts& p) {
  if (p.year > 9999 || p.month > 12 || p.day > 31) return false;
  if (p.month != 0 && p.day != 0 && p.day > DaysInMonth(p.year, p.month)) return false;
  return p.hour <= 23 && p.minute <= 59 && p.second <= 59;
}

// Reads up to `max` digits at *i into *out; false if none.
bool Digits(std::string_view s, size_t* i, size_t max, int* out) {
  size_t n = 0;
  int v = 0;
  while (*i < s.size() && n < max && IsDigit(s[*i])) {
    v = v * 10 + (s[*i] - '0');
    ++*i;
    ++n;
  }
  *out = v;
  return n > 0;
}

// Fraction digits after a '.' at *i: microseconds (more than 6 digits are dropped).
void Fraction(std::string_view s, size_t* i, TemporalParse* out) {
  if (*i >= s.size() || s[*i] != '.' || *i + 1 >= s.size() || !IsDigit(s[*i + 1])) return;
  ++*i;
  int micro = 0, n = 0;
  while (*i < s.size() && IsDigit(s[*i])) {
    if (n < 6) micro = micro * 10 + (s[*i] - '0'), ++n;
    ++*i;
  }
  out->frac_digits = n;
  for (int k = n; k < 6; ++k) micro *= 10;
  out->parts->micro = micro;
}

int Take(std::string_view s, size_t at, size_t n) {
  int v = 0;
  for (size_t k = 0; k < n; ++k) v = v * 10 + (s[at + k] - '0');
  return v;
}

}  // namespace

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

int64_t PackParts(const DateTimeParts& p) {
  int64_t ymd = (int64_t{p.year} * 13 + p.month) * 32 + p.day;
  int64_t secs = ((ymd * 24 + p.hour) * 60 + p.minute) * 60 + p.second;
  return secs * kMicros + p.micro;
}

DateTimeParts Temporal::parts() const {
  DateTimeParts p;
  int64_t v = packed;
  if (type == Type::kTime) {
    p.negative = v < 0;
    if (v < 0) v = -v;
    p.micro = static_cast<int>(v % kMicros);
    v /= kMicros;
    p.second = static_cast<int>(v % 60);
    p.minute = static_cast<int>(v / 60 % 60);
    p.hour = static_cast<int>(v / 3600);
    return p;
  }
  p.micro = static_cast<int>(v % kMicros);
  v /= kMicros;
  p.second = static_cast<int>(v % 60);
  v /= 60;
  p.minute = static_cast<int>(v % 60);
  v /= 60;
  p.hour = static_cast<int>(v % 24);
  v /= 24;
  p.day = static_cast<int>(v % 32);
  v /= 32;
  p.month = static_cast<int>(v % 13);
  p.year = static_cast<int>(v / 13);
  return p;
}

bool Temporal::is_zero_date() const {
  return type != Type::kTime && packed / (kMicros * 86400) == 0;
}

int64_t TimeMicros(const DateTimeParts& p) {
  const int64_t v = ((int64_t{p.hour} * 60 + p.minute) * 60 + p.second) * kMicros + p.micro;
  return p.negative ? -v : v;
}

int64_t RoundMicros(int64_t micros, int fsp) {
  int64_t unit = 1;
  for (int k = fsp; k < 6; ++k) unit *= 10;
  const int64_t mag = micros < 0 ? -micros : micros;
  const int64_t r = (mag + unit / 2) / unit * unit;
  return micros < 0 ? -r : r;
}

Temporal MakeTime(int64_t micros, uint8_t fsp) {
  micros = std::clamp(RoundMicros(micros, fsp), -kMaxTimeMicros, kMaxTimeMicros);
  return Temporal{Temporal::Type::kTime, fsp, micros};
}

Temporal MakeTemporal(Temporal::Type type, uint8_t fsp, const DateTimeParts& p) {
  if (type == Temporal::Type::kTime) return Temporal{type, fsp, TimeMicros(p)};
  DateTimeParts q = p;
  q.negative = false;
  if (type == Temporal::Type::kDate) q.hour = q.minute = q.second = q.micro = 0, fsp = 0;
  if (type == Temporal::Type::kYear) q = DateTimeParts{p.year}, fsp = 0;
  return Temporal{type, fsp, PackParts(q)};
}

bool HasZeroInDate(const DateTimeParts& p) { return p.month == 0 || p.day == 0; }

TemporalParse ParseTemporalText(std::string_view s) {
  TemporalParse out;
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  size_t run = i;
  while (run < s.size() && IsDigit(s[run])) ++run;
  const size_t lead = run - i;
  DateTimeParts p;
  if (lead == 0) return out;
  if (lead > 4 && (run == s.size() || !IsPunct(s[run]) || s[run] == '.')) {
    // Digits without delimiters: YYYYMMDD[hhmmss] or YYMMDD[hhmmss].
    const bool four = lead == 8 || lead == 14;
    if (lead != 6 && lead != 8 && lead != 12 && lead != 14) return out;
    size_t at = i;
    const size_t ylen = four ? 4 : 2;
    p.year = Take(s, at, ylen);
    if (!four) p.year = FullYear(p.year);
    at += ylen;
    p.month = Take(s, at, 2);
    p.day = Take(s, at + 2, 2);
    at += 4;
    if (at < run) {
      p.hour = Take(s, at, 2);
      p.minute = Take(s, at + 2, 2);
      p.second = Take(s, at + 4, 2);
      out.has_time = true;
    }
    i = run;
    out.parts = p;
    if (out.has_time) Fraction(s, &i, &out);
  } else {
    // Delimited: year, month, day, then [T| ]hour:minute:second[.fraction], any punctuation
    // between the parts.
    int* fields[] = {&p.year, &p.month, &p.day, &p.hour, &p.minute, &p.second};
    size_t n = 0;
    for (; n < 6; ++n) {
      if (n > 0) {
        size_t j = i;
        if (n == 3) {
          while (j < s.size() && (IsSpace(s[j]) || s[j] == 'T')) ++j;
          if (j == i) {
            while (j < s.size() && IsPunct(s[j]) && s[j] != '.') ++j;
          }
        } else {
          while (j < s.size() && IsPunct(s[j]) && !(n >= 3 && s[j] == '.')) ++j;
        }
        if (j == i || j >= s.size() || !IsDigit(s[j])) break;
        i = j;
      }
      size_t before = i;
      if (!Digits(s, &i, n == 0 ? 4 : 2, fields[n])) break;
      if (n == 0 && i - before <= 2) p.year = FullYear(p.year);
    }
    if (n < 3) return out;  // no full date
    out.parts = p;
    out.has_time = n > 3;
    if (n == 6) Fraction(s, &i, &out);
  }
  while (i < s.size() && IsSpace(s[i])) ++i;
  out.trailing = i < s.size();
  if (!Valid(*out.parts)) {
    out.parts.reset();
    out.out_of_range = true;
  }
  return out;
}

namespace {

// The time of day of a DATETIME's parts, in microseconds.
int64_t TimeOfDay(const DateTimeParts& p) {
  return ((int64_t{p.hour} * 60 + p.minute) * 60 + p.second) * kMicros + p.micro;
}

// Hours, minutes, seconds and microseconds as a TIME's parse, clipped to TIME's range; minutes
// or seconds past 59 are no time.
TimeParse TimeFromFields(bool negative, int64_t hours, int64_t minutes, int64_t seconds,
                         int64_t micro) {
  TimeParse out;
  if (minutes > 59 || seconds > 59) {
    out.out_of_range = true;
    return out;
  }
  const int64_t max_hours = kMaxTimeMicros / kMicros / 3600;
  int64_t v = 0;
  if (hours > max_hours) {
    v = kMaxTimeMicros;
    out.clipped = true;
  } else {
    v = ((hours * 60 + minutes) * 60 + seconds) * kMicros + micro;
    if (v > kMaxTimeMicros) v = kMaxTimeMicros, out.clipped = true;
  }
  out.micros = negative ? -v : v;
  return out;
}

}  // namespace

TimeParse ParseTimeText(std::string_view s) {
  // A full DATETIME first, as MySQL's str_to_time: its time of day.
  if (s.size() >= 12) {
    TemporalParse dt = ParseTemporalText(s);
    if (dt.parts.has_value() && dt.has_time) {
      TimeParse out;
      out.micros = TimeOfDay(*dt.parts);
      out.frac_digits = dt.frac_digits;
      out.trailing = dt.trailing;
      return out;
    }
  }
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  const bool negative = i < s.size() && s[i] == '-';
  if (negative) ++i;
  int64_t f[5] = {0, 0, 0, 0, 0};  // days, hours, minutes, seconds, microseconds
  auto number = [&](int64_t* out) {
    int64_t v = 0;
    while (i < s.size() && IsDigit(s[i])) {
      if (v < int64_t{1} << 40) v = v * 10 + (s[i] - '0');
      ++i;
    }
    *out = v;
  };
  int64_t value = 0;
  const size_t start = i;
  number(&value);
  if (i == start) return TimeParse{};  // no digit: no time at all
  const size_t end_of_days = i;
  while (i < s.size() && IsSpace(s[i])) ++i;
  if (s.size() - i > 1 && i != end_of_days && IsDigit(s[i])) {
    f[0] = value;  // 'D HH[:MM[:SS]]'
    size_t state = 1;
    for (;;) {
      number(&f[state++]);
      if (state == 4 || s.size() - i < 2 || s[i] != ':' || !IsDigit(s[i + 1])) break;
      ++i;
    }
  } else if (s.size() - i > 1 && s[i] == ':' && IsDigit(s[i + 1])) {
    f[1] = value;  // 'HH:MM[:SS]'
    ++i;
    size_t state = 2;
    for (;;) {
      number(&f[state++]);
      if (state == 4 || s.size() - i < 2 || s[i] != ':' || !IsDigit(s[i + 1])) break;
      ++i;
    }
  } else {
    f[1] = value / 10000;  // one number: HHMMSS
    f[2] = value / 100 % 100;
    f[3] = value % 100;
  }
  TemporalParse frac;
  frac.parts = DateTimeParts{};
  Fraction(s, &i, &frac);
  TimeParse out = TimeFromFields(negative, f[0] * 24 + f[1], f[2], f[3], frac.parts->micro);
  out.frac_digits = frac.frac_digits;
  while (i < s.size() && IsSpace(s[i])) ++i;
  out.trailing = i < s.size();
  return out;
}

TimeParse ParseTimeNumber(int64_t n) {
  constexpr int64_t kMaxValue = 8385959;  // 838:59:59 as a number
  if (n > kMaxValue || n < -kMaxValue) {
    if (n >= 10000000000) {
      if (std::optional<DateTimeParts> p = ParseTemporalNumber(n); p.has_value()) {
        TimeParse out;
        out.micros = TimeOfDay(*p);
        return out;
      }
    }
    TimeParse out;
    out.micros = n < 0 ? -kMaxTimeMicros : kMaxTimeMicros;
    out.clipped = true;
    return out;
  }
  const bool negative = n < 0;
  if (negative) n = -n;
  return TimeFromFields(negative, n / 10000, n / 100 % 100, n % 100, 0);
}

bool TimeOnDate(const Temporal& time, const DateTimeParts& date, Temporal* out) {
  const int64_t day_us = kMicros * 86400;
  int64_t us = time.packed;
  int64_t days = us / day_us;
  us %= day_us;
  if (us < 0) us += day_us, --days;
  const int64_t daynr = DayNumber(date.year, date.month, date.day) + days;
  DateTimeParts p = FromDayNumber(daynr);
  if (p.year == 0 && daynr != 0) return false;
  p.micro = static_cast<int>(us % kMicros);
  us /= kMicros;
  p.second = static_cast<int>(us % 60);
  p.minute = static_cast<int>(us / 60 % 60);
  p.hour = static_cast<int>(us / 3600);
  *out = MakeTemporal(Temporal::Type::kDateTime, time.fsp, p);
  return true;
}

std::optional<DateTimeParts> ParseTemporalNumber(int64_t nr) {
  if (nr == 0) return DateTimeParts{};
  if (nr < 0) return std::nullopt;
  // MySQL's number_to_datetime: YYMMDD, YYYYMMDD, YYMMDDhhmmss, YYYYMMDDhhmmss.
  if (nr < 101) return std::nullopt;
  if (nr <= 691231) {
    nr = (nr + 20000000) * 1000000;
  } else if (nr < 700101) {
    return std::nullopt;
  } else if (nr <= 991231) {
    nr = (nr + 19000000) * 1000000;
  } else if (nr < 10000101) {
    return std::nullopt;
  } else if (nr <= 99991231) {
    nr = nr * 1000000;
  } else if (nr < 101000000) {
    return std::nullopt;
  } else if (nr <= 691231235959) {
    nr = nr + 20000000000000;
  } else if (nr < 700101000000) {
    return std::nullopt;
  } else if (nr <= 991231235959) {
    nr = nr + 19000000000000;
  } else if (nr < 10000101000000 || nr > 99991231235959) {
    return std::nullopt;
  }
  DateTimeParts p;
  int64_t date = nr / 1000000, time = nr % 1000000;
  p.year = static_cast<int>(date / 10000);
  p.month = static_cast<int>(date / 100 % 100);
  p.day = static_cast<int>(date % 100);
  p.hour = static_cast<int>(time / 10000);
  p.minute = static_cast<int>(time / 100 % 100);
  p.second = static_cast<int>(time % 100);
  if (!Valid(p)) return std::nullopt;
  return p;
}

int64_t DayNumber(int year, int month, int day) {
  // MySQL's calc_daynr: days since year 0 (0000-01-01 is day 1).
  if (year == 0 && month == 0) return 0;
  int64_t delsum = 365 * int64_t{year} + 31 * (month - 1) + day;
  int y = year;
  if (month <= 2) {
    --y;
  } else {
    delsum -= (month * 4 + 23) / 10;
  }
  int temp = ((y / 100 + 1) * 3) / 4;
  return delsum + y / 4 - temp;
}

DateTimeParts FromDayNumber(int64_t daynr) {
  // MySQL's get_date_from_daynr.
  DateTimeParts p;
  if (daynr <= 365 || daynr >= 3652500) return p;
  int year = static_cast<int>(daynr * 100 / 36525);
  int temp = (((year - 1) / 100 + 1) * 3) / 4;
  int day_of_year = static_cast<int>(daynr - int64_t{year} * 365) - (year - 1) / 4 + temp;
  int days_in_year;
  while (day_of_year > (days_in_year = IsLeap(year) ? 366 : 365)) {
    day_of_year -= days_in_year;
    ++year;
  }
  int month = 1;
  while (day_of_year > DaysInMonth(year, month)) day_of_year -= DaysInMonth(year, month++);
  p.year = year;
  p.month = month;
  p.day = day_of_year;
  return p;
}

bool RoundToFsp(DateTimeParts* p, int fsp) {
  int64_t unit = 1;
  for (int k = fsp; k < 6; ++k) unit *= 10;
  int64_t micro = (p->micro + unit / 2) / unit * unit;
  if (micro < kMicros) {
    p->micro = static_cast<int>(micro);
    return true;
  }
  p->micro = 0;
  if (++p->second < 60) return true;
  p->second = 0;
  if (++p->minute < 60) return true;
  p->minute = 0;
  if (++p->hour < 24) return true;
  p->hour = 0;
  if (p->month == 0 || p->day == 0) return true;  // no calendar to carry into
  DateTimeParts next = FromDayNumber(DayNumber(p->year, p->month, p->day) + 1);
  if (next.year == 0 || next.year > 9999) return false;
  p->year = next.year;
  p->month = next.month;
  p->day = next.day;
  return true;
}

std::string FormatTemporal(const Temporal& t) {
  const DateTimeParts p = t.parts();
  if (t.type == Temporal::Type::kYear) return fmt::format("{:04}", p.year);
  std::string out;
  if (t.type == Temporal::Type::kTime) {
    out = fmt::format("{}{:02}:{:02}:{:02}", p.negative ? "-" : "", p.hour, p.minute, p.second);
  } else {
    out = fmt::format("{:04}-{:02}-{:02}", p.year, p.month, p.day);
    if (t.type == Temporal::Type::kDate) return out;
    out += fmt::format(" {:02}:{:02}:{:02}", p.hour, p.minute, p.second);
  }
  if (t.fsp > 0) {
    std::string frac = fmt::format("{:06}", p.micro);
    out += "." + frac.substr(0, t.fsp);
  }
  return out;
}

int64_t TemporalToInt(const Temporal& t) {
  const DateTimeParts p = t.parts();
  if (t.type == Temporal::Type::kYear) return p.year;
  if (t.type == Temporal::Type::kTime) {
    const int64_t v = int64_t{p.hour} * 10000 + p.minute * 100 + p.second + (p.micro >= 500000);
    return p.negative ? -v : v;
  }
  int64_t date = int64_t{p.year} * 10000 + p.month * 100 + p.day;
  if (t.type == Temporal::Type::kDate) return date;
  int64_t v = date * 1000000 + p.hour * 10000 + p.minute * 100 + p.second;
  return p.micro >= 500000 ? v + 1 : v;
}

double TemporalToDouble(const Temporal& t) {
  const DateTimeParts p = t.parts();
  if (t.type == Temporal::Type::kYear) return p.year;
  if (t.type == Temporal::Type::kTime) {
    const double v = p.hour * 10000.0 + p.minute * 100 + p.second + p.micro / 1e6;
    return p.negative ? -v : v;
  }
  double date = static_cast<double>(int64_t{p.year} * 10000 + p.month * 100 + p.day);
  if (t.type == Temporal::Type::kDate) return date;
  return date * 1e6 + p.hour * 10000 + p.minute * 100 + p.second + p.micro / 1e6;
}

std::optional<TimeZone> ParseTimeZone(std::string_view s) {
  if (s.size() == 6) {
    std::string u(s);
    for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (u == "SYSTEM") return TimeZone{};
  }
  // [+-]h:mm or [+-]hh:mm
  if (s.size() < 5 || s.size() > 6 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  size_t i = 1;
  int h = 0, m = 0;
  if (!Digits(s, &i, 2, &h) || i >= s.size() || s[i] != ':') return std::nullopt;
  ++i;
  const size_t before = i;
  if (!Digits(s, &i, 2, &m) || i != s.size() || i - before != 2 || m > 59) return std::nullopt;
  const int offset = (h * 60 + m) * 60 * (s[0] == '-' ? -1 : 1);
  if (offset > 14 * 3600 || offset < -(13 * 3600 + 59 * 60)) return std::nullopt;
  return TimeZone{false, offset};
}

DateTimeParts UtcToLocal(int64_t utc_s, int micro, const TimeZone& tz) {
  DateTimeParts p;
  if (tz.system) {
    const auto t = static_cast<std::time_t>(utc_s);
    std::tm tm{};
    localtime_r(&t, &tm);
    p.year = tm.tm_year + 1900;
    p.month = tm.tm_mon + 1;
    p.day = tm.tm_mday;
    p.hour = tm.tm_hour;
    p.minute = tm.tm_min;
    p.second = tm.tm_sec;
  } else {
    const int64_t local = utc_s + tz.offset_s;
    int64_t days = local / 86400, secs = local % 86400;
    if (secs < 0) secs += 86400, --days;
    p = FromDayNumber(days + DayNumber(1970, 1, 1));
    p.hour = static_cast<int>(secs / 3600);
    p.minute = static_cast<int>(secs / 60 % 60);
    p.second = static_cast<int>(secs % 60);
  }
  p.micro = micro;
  return p;
}

std::optional<int64_t> LocalToUtc(const DateTimeParts& p, const TimeZone& tz) {
  if (p.month == 0 || p.day == 0) return std::nullopt;
  if (tz.system) {
    std::tm tm{};
    tm.tm_year = p.year - 1900;
    tm.tm_mon = p.month - 1;
    tm.tm_mday = p.day;
    tm.tm_hour = p.hour;
    tm.tm_min = p.minute;
    tm.tm_sec = p.second;
    tm.tm_isdst = -1;
    return static_cast<int64_t>(std::mktime(&tm));
  }
  const int64_t days = DayNumber(p.year, p.month, p.day) - DayNumber(1970, 1, 1);
  return days * 86400 + p.hour * 3600 + p.minute * 60 + p.second - tz.offset_s;
}

namespace {
thread_local TimeZone current_time_zone;
}  // namespace

const TimeZone& CurrentTimeZone() { return current_time_zone; }

DateTimeParts CurrentDate() {
  const auto now = static_cast<int64_t>(std::time(nullptr));
  DateTimeParts p = UtcToLocal(now, 0, current_time_zone);
  p.hour = p.minute = p.second = 0;
  return p;
}

ScopedTimeZone::ScopedTimeZone(const TimeZone& tz) : saved_(current_time_zone) {
  current_time_zone = tz;
}

ScopedTimeZone::~ScopedTimeZone() { current_time_zone = saved_; }

}  // namespace minnow::sql
