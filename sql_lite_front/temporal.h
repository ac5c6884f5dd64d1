#pragma once
// Dates and times as MySQL 8.0 reads, checks, orders and prints them (DATE, DATETIME[(fsp)],
// TIME[(fsp)], YEAR).
//
// A Temporal is a point on MySQL's calendar (years 0000-9999, the proleptic Gregorian one)
// packed into one integer whose order is the values' order: DATE is a DATETIME at midnight, so
// the two compare directly ('2024-01-05' = '2024-01-05 00:00:00', as MySQL compares them).
// Zero dates ('0000-00-00') and dates with a zero month or day ('2024-00-05') are values too,
// as MySQL keeps them when sql_mode lacks NO_ZERO_DATE / NO_ZERO_IN_DATE.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace minnow::sql {

struct DateTimeParts {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  int micro = 0;          // microseconds, 0..999999
  bool negative = false;  // TIME only: a time below zero ('-01:00:00')
};

// A YEAR (1901..2155, or 0000) is a Temporal too: its year alone (month and day 0), printed
// as four digits and compared and computed with as the number it is (as MySQL's YEAR, an
// integer type).
//
// A TIME is a Temporal of Type::kTime whose packed is its signed number of microseconds (its
// parts: hour the whole hours, up to 838, and `negative`), within ±838:59:59.
struct Temporal {
  enum class Type : uint8_t { kDate, kDateTime, kYear, kTime };
  Type type = Type::kDate;
  uint8_t fsp = 0;     // DATETIME's digits after the point, 0..6 (DATE: 0)
  int64_t packed = 0;  // PackParts(parts): order-preserving

  DateTimeParts parts() const;
  bool is_zero_date() const;  // '0000-00-00' (never a TIME)
  bool is_time() const { return type == Type::kTime; }
  bool operator==(const Temporal& o) const = default;
};

int64_t PackParts(const DateTimeParts& p);
Temporal MakeTemporal(Temporal::Type type, uint8_t fsp, const DateTimeParts& p);

// TIME's range: ±838:59:59, in microseconds.
inline constexpr int64_t kMaxTimeMicros = int64_t{3020399} * 1000000;
// A TIME's signed microseconds from its parts (hour any number of hours).
int64_t TimeMicros(const DateTimeParts& p);
// A TIME of `micros` microseconds, clipped to TIME's range (the fraction rounded to `fsp` first).
Temporal MakeTime(int64_t micros, uint8_t fsp);

// How a text or number became a TIME (MySQL's str_to_time / number_to_time).
struct TimeParse {
  std::optional<int64_t> micros;  // nullopt: no time (no digits, minutes or seconds past 59)
  bool out_of_range = false;      // micros nullopt for minutes or seconds past 59
  int frac_digits = 0;            // digits given after the seconds' point
  bool trailing = false;          // more than white space followed the value
  bool clipped = false;           // beyond ±838:59:59: brought to the nearest end
};
// '[-][D ]HH:MM[:SS[.frac]]', '[-]HHMMSS[.frac]' (also MMSS and SS), and a DATETIME's text
// ('2024-01-05 10:11:12': its time of day).
TimeParse ParseTimeText(std::string_view s);
// [-]HHMMSS (MMSS, SS), or a DATETIME's number (20240105101112: its time of day).
TimeParse ParseTimeNumber(int64_t n);
// `micros` rounded (half away from zero) to `fsp` digits after the point.
int64_t RoundMicros(int64_t micros, int fsp);
// A TIME on a day: the DATETIME `date` (its date) + `time` (MySQL's TIME to DATETIME
// conversion); false when that falls outside 0000-01-01 .. 9999-12-31.
bool TimeOnDate(const Temporal& time, const DateTimeParts& date, Temporal* out);
// The local date now in the CurrentTimeZone() (what a TIME becomes a DATETIME on).
DateTimeParts CurrentDate();

// Days in `month` of `year` (February of leap years 29). REQUIRES: 1 <= month <= 12.
int DaysInMonth(int year, int month);

// How a text or number became a date (MySQL's str_to_datetime / number_to_datetime).
struct TemporalParse {
  std::optional<DateTimeParts> parts;  // nullopt: not a date at all
  bool has_time = false;               // the text gave a time of day
  int frac_digits = 0;                 // digits it gave after the seconds' point
  bool trailing = false;               // more than white space followed the value
  bool out_of_range = false;           // it had a date's shape, but no such date exists
};
// '2024-01-05', '2024-1-5 3:4:5.12', '20240105', '240105030405', '2024/01/05T03:04:05' (any
// punctuation between parts; two-digit years 70-99 are 19xx, 00-69 20xx). An impossible date
// (month 13, '2024-02-30', hour 24) is nullopt; zero month/day/date are kept.
TemporalParse ParseTemporalText(std::string_view s);
// 20240105, 240105, 20240105030405, 0 (the zero date); nullopt for numbers that are no date.
std::optional<DateTimeParts> ParseTemporalNumber(int64_t n);

// True if month and day are both set or the date is zero (MySQL's NO_ZERO_IN_DATE test).
bool HasZeroInDate(const DateTimeParts& p);

// `p` rounded to `fsp` digits after the seconds' point, carrying into seconds and on up the
// calendar (MySQL rounds, unless TIME_TRUNCATE_FRACTIONAL). False when the carry passes
// 9999-12-31 23:59:59.
bool RoundToFsp(DateTimeParts* p, int fsp);

// '2024-01-05', '2024-01-05 03:04:05', '2024-01-05 03:04:05.120' (fsp 3); a TIME
// '-838:59:59', '10:11:12.5' (fsp 1).
std::string FormatTemporal(const Temporal& t);
// The value as a number, as MySQL reads a date in numeric context: 20240105,
// 20240105030405 (a TIME: -101112); with fsp, the fraction too (as a double).
int64_t TemporalToInt(const Temporal& t);  // the fraction rounded
double TemporalToDouble(const Temporal& t);

// Day numbers, as MySQL's calc_daynr and get_date_from_daynr count them (0000-01-01 is day
// 1): DATEDIFF and date arithmetic go through them. FromDayNumber gives the zero date for
// numbers outside 0001-01-01 .. 9999-12-31.
int64_t DayNumber(int year, int month, int day);
DateTimeParts FromDayNumber(int64_t daynr);

// A session's time_zone: 'SYSTEM' (the process's local time) or a fixed offset ('+01:00').
struct TimeZone {
  bool system = true;
  int32_t offset_s = 0;  // east of UTC, when !system
};
// '+hh:mm' / '-hh:mm' within MySQL's -13:59 .. +14:00, or 'SYSTEM' (any case); nullopt else.
std::optional<TimeZone> ParseTimeZone(std::string_view s);
// The local time in `tz` of `utc_s` seconds since 1970 (and `micro`).
DateTimeParts UtcToLocal(int64_t utc_s, int micro, const TimeZone& tz);
// Seconds since 1970 of local time `p` in `tz` (its micro ignored); nullopt for a zero date or
// one that has no month or day.
std::optional<int64_t> LocalToUtc(const DateTimeParts& p, const TimeZone& tz);

// TIMESTAMP's range, in seconds since 1970 UTC: '1970-01-01 00:00:01' .. '2038-01-19 03:14:07'.
inline constexpr int64_t kMinTimestampSeconds = 1;
inline constexpr int64_t kMaxTimestampSeconds = 2147483647;

// The time zone TIMESTAMP columns are read and written in on this thread: the time_zone of the
// session whose statement runs on it (as MySQL's current_thd->time_zone()), SYSTEM when no
// statement set one. A TIMESTAMP is kept as UTC and seen as local DATETIME in this zone.
const TimeZone& CurrentTimeZone();
// Makes `tz` the thread's CurrentTimeZone() for its lifetime (a statement's), then restores
// the one before.
class ScopedTimeZone {
 public:
  explicit ScopedTimeZone(const TimeZone& tz);
  ~ScopedTimeZone();
  ScopedTimeZone(const ScopedTimeZone&) = delete;
  ScopedTimeZone& operator=(const ScopedTimeZone&) = delete;

 private:
  TimeZone saved_;
};

}  // namespace minnow::sql
