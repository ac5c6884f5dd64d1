#include "sql_lite_front/temporal.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "sql_lite_front/catalog/row_codec.h"

namespace minnow::sql {
namespace {

std::string Text(std::string_view s, Temporal::Type type = Temporal::Type::kDateTime,
                 uint8_t fsp = 0) {
  TemporalParse p = ParseTemporalText(s);
  if (!p.parts.has_value() || p.trailing) return "invalid";
  DateTimeParts parts = *p.parts;
  REQUIRE(RoundToFsp(&parts, fsp));
  return FormatTemporal(MakeTemporal(type, fsp, parts));
}

TEST_CASE("text is read as MySQL's str_to_datetime reads it", "[sql][temporal]") {
  CHECK(Text("2024-01-05") == "2024-01-05 00:00:00");
  CHECK(Text("2024-1-5 3:4:5") == "2024-01-05 03:04:05");
  CHECK(Text("  2024/01/05T03:04:05 ") == "2024-01-05 03:04:05");
  CHECK(Text("20240105030405") == "2024-01-05 03:04:05");
  CHECK(Text("240105") == "2024-01-05 00:00:00");
  CHECK(Text("700101") == "1970-01-01 00:00:00");
  CHECK(Text("2024-01-05 03:04:05.123456", Temporal::Type::kDateTime, 6) ==
        "2024-01-05 03:04:05.123456");
  CHECK(Text("2024-01-05 03:04:05.5", Temporal::Type::kDateTime, 0) == "2024-01-05 03:04:06");
  CHECK(Text("2024-12-31 23:59:59.9999999", Temporal::Type::kDateTime, 3) ==
        "2025-01-01 00:00:00.000");
  CHECK(Text("2024-02-29", Temporal::Type::kDate) == "2024-02-29");
  CHECK(Text("2023-02-29") == "invalid");
  CHECK(Text("2024-04-31") == "invalid");
  CHECK(Text("2024-01-05 24:00:00") == "invalid");
  CHECK(Text("2024-01-05x") == "invalid");
  CHECK(Text("abc") == "invalid");
  CHECK(Text("2024-01") == "invalid");
  CHECK(Text("0000-00-00") == "0000-00-00 00:00:00");
  CHECK(Text("2024-00-05", Temporal::Type::kDate) == "2024-00-05");
  CHECK(ParseTemporalText("2024-02-30").out_of_range);
  CHECK_FALSE(ParseTemporalText("abc").out_of_range);
}

TEST_CASE("numbers are read as MySQL's number_to_datetime reads them", "[sql][temporal]") {
  auto num = [](int64_t n) -> std::string {
    auto p = ParseTemporalNumber(n);
    if (!p.has_value()) return "invalid";
    return FormatTemporal(MakeTemporal(Temporal::Type::kDateTime, 0, *p));
  };
  CHECK(num(20240105) == "2024-01-05 00:00:00");
  CHECK(num(240105) == "2024-01-05 00:00:00");
  CHECK(num(991231) == "1999-12-31 00:00:00");
  CHECK(num(20240105030405) == "2024-01-05 03:04:05");
  CHECK(num(0) == "0000-00-00 00:00:00");
  CHECK(num(100) == "invalid");
  CHECK(num(20241301) == "invalid");
  CHECK(num(-1) == "invalid");
}

TEST_CASE("day numbers round-trip and match MySQL's calc_daynr", "[sql][temporal]") {
  CHECK(DayNumber(1970, 1, 1) == 719528);  // MySQL's TO_DAYS('1970-01-01')
  CHECK(DayNumber(2024, 1, 5) == 739255);
  for (int64_t d = DayNumber(1, 1, 1); d <= DayNumber(9999, 12, 31); d += 37) {
    DateTimeParts p = FromDayNumber(d);
    REQUIRE(DayNumber(p.year, p.month, p.day) == d);
  }
}

TEST_CASE("packed values and keys order as the dates do", "[sql][temporal]") {
  std::mt19937 rng(7);
  ColumnDef date, datetime;
  date.type = ColumnType::kDate;
  date.nullable = false;
  datetime.type = ColumnType::kDateTime;
  datetime.length = 6;
  datetime.nullable = false;
  for (int i = 0; i < 2000; ++i) {
    DateTimeParts a, b;
    for (DateTimeParts* p : {&a, &b}) {
      p->year = static_cast<int>(rng() % 10000);
      p->month = static_cast<int>(rng() % 13);
      p->day = static_cast<int>(rng() % 29);
      p->hour = static_cast<int>(rng() % 24);
      p->minute = static_cast<int>(rng() % 60);
      p->second = static_cast<int>(rng() % 60);
      p->micro = static_cast<int>(rng() % 1000000);
    }
    const Temporal ta = MakeTemporal(Temporal::Type::kDateTime, 6, a);
    const Temporal tb = MakeTemporal(Temporal::Type::kDateTime, 6, b);
    // FormatTemporal's text orders as the dates do: compare it with the packed order and the keys.
    const int by_text = FormatTemporal(ta).compare(FormatTemporal(tb));
    const int by_packed = ta.packed < tb.packed ? -1 : ta.packed > tb.packed ? 1 : 0;
    REQUIRE((by_text < 0 ? -1 : by_text > 0 ? 1 : 0) == by_packed);
    std::string ka, kb;
    AppendKeyColumn(datetime, Value::FromTemporal(ta), &ka);
    AppendKeyColumn(datetime, Value::FromTemporal(tb), &kb);
    REQUIRE((ka < kb) == (by_packed < 0));
    size_t pos = 0;
    REQUIRE(*DecodeKeyColumn(datetime, ka, &pos) == Value::FromTemporal(ta));
    const Temporal da = MakeTemporal(Temporal::Type::kDate, 0, a);
    std::string kd;
    AppendKeyColumn(date, Value::FromTemporal(da), &kd);
    REQUIRE(kd.size() == 3);
    pos = 0;
    REQUIRE(*DecodeKeyColumn(date, kd, &pos) == Value::FromTemporal(da));
  }
}

std::string Time(std::string_view s, uint8_t fsp = 0) {
  const TimeParse p = ParseTimeText(s);
  if (!p.micros.has_value()) return p.out_of_range ? "out of range" : "invalid";
  std::string out = FormatTemporal(MakeTime(*p.micros, fsp));
  if (p.clipped) out += " clipped";
  if (p.trailing) out += " trailing";
  return out;
}

std::string TimeNumber(int64_t n) {
  const TimeParse p = ParseTimeNumber(n);
  if (!p.micros.has_value()) return "invalid";
  return FormatTemporal(MakeTime(*p.micros, 0)) + (p.clipped ? " clipped" : "");
}

TEST_CASE("TIME text is read as MySQL's str_to_time reads it", "[sql][temporal]") {
  CHECK(Time("10:11:12") == "10:11:12");
  CHECK(Time(" -01:02:03 ") == "-01:02:03");
  CHECK(Time("1 02:03:04") == "26:03:04");
  CHECK(Time("3 4") == "00:00:03 trailing");  // one number, then more
  CHECK(Time("3 4:5") == "76:05:00");
  CHECK(Time("10:11") == "10:11:00");
  CHECK(Time("12") == "00:00:12");
  CHECK(Time("101112") == "10:11:12");
  CHECK(Time("1112") == "00:11:12");
  CHECK(Time("10:11:12.123456", 6) == "10:11:12.123456");
  CHECK(Time("10:11:12.5") == "10:11:13");
  CHECK(Time("-00:00:00.5", 0) == "-00:00:01");
  CHECK(Time("838:59:59") == "838:59:59");
  CHECK(Time("838:59:59.5", 1) == "838:59:59.0 clipped");
  CHECK(Time("839:00:00") == "838:59:59 clipped");
  CHECK(Time("-5000:00:00") == "-838:59:59 clipped");
  CHECK(Time("10:60:00") == "out of range");
  CHECK(Time("10:00:60") == "out of range");
  CHECK(Time("abc") == "invalid");
  CHECK(Time("10:11:12x") == "10:11:12 trailing");
  CHECK(Time("2024-01-05 13:14:15.5", 1) == "13:14:15.5");  // a DATETIME's time of day
  CHECK(Time("2024-01-05") == "00:20:24 trailing");         // not a DATETIME: 2024 is HHMMSS
}

TEST_CASE("TIME numbers are read as MySQL's number_to_time reads them", "[sql][temporal]") {
  CHECK(TimeNumber(101112) == "10:11:12");
  CHECK(TimeNumber(-10) == "-00:00:10");
  CHECK(TimeNumber(0) == "00:00:00");
  CHECK(TimeNumber(8385959) == "838:59:59");
  CHECK(TimeNumber(8385960) == "838:59:59 clipped");
  CHECK(TimeNumber(-9000000) == "-838:59:59 clipped");
  CHECK(TimeNumber(1060) == "invalid");
  CHECK(TimeNumber(20240105131415) == "13:14:15");  // a DATETIME's number
}

TEST_CASE("TIME values print, count and sort as MySQL's", "[sql][temporal]") {
  const Temporal t = MakeTime(-((int64_t{26} * 3600 + 3 * 60 + 4) * 1000000 + 500000), 1);
  CHECK(FormatTemporal(t) == "-26:03:04.5");
  CHECK(TemporalToInt(t) == -260305);
  CHECK(TemporalToDouble(t) == -260304.5);
  CHECK(t.parts().hour == 26);
  CHECK(t.parts().negative);
  CHECK(FormatTemporal(MakeTime(kMaxTimeMicros + 1, 0)) == "838:59:59");
  ColumnDef time;
  time.type = ColumnType::kTime;
  time.length = 6;
  time.nullable = false;
  std::mt19937 rng(11);
  for (int i = 0; i < 2000; ++i) {
    const auto range = static_cast<uint64_t>(2 * kMaxTimeMicros + 1);
    const Temporal a =
        MakeTime(static_cast<int64_t>(rng() * uint64_t{4294967296} % range) - kMaxTimeMicros, 6);
    const Temporal b = MakeTime(static_cast<int64_t>(rng() % 7200000000) - 3600000000, 6);
    std::string ka, kb;
    AppendKeyColumn(time, Value::FromTemporal(a), &ka);
    AppendKeyColumn(time, Value::FromTemporal(b), &kb);
    REQUIRE(ka.size() == 6);
    REQUIRE((ka < kb) == (a.packed < b.packed));
    REQUIRE(Value::Compare(Value::FromTemporal(a), Value::FromTemporal(b)) ==
            (a.packed < b.packed   ? -1
             : a.packed > b.packed ? 1
                                   : 0));
    size_t pos = 0;
    REQUIRE(*DecodeKeyColumn(time, ka, &pos) == Value::FromTemporal(a));
  }
}

TEST_CASE("a TIME on a date carries into the days", "[sql][temporal]") {
  const DateTimeParts day{2024, 2, 28};
  Temporal out;
  REQUIRE(TimeOnDate(MakeTime(int64_t{49} * 3600 * 1000000, 0), day, &out));
  CHECK(FormatTemporal(out) == "2024-03-01 01:00:00");
  REQUIRE(TimeOnDate(MakeTime(-int64_t{1} * 1000000, 0), day, &out));
  CHECK(FormatTemporal(out) == "2024-02-27 23:59:59");
}

TEST_CASE("time zones: SYSTEM and offsets in MySQL's range", "[sql][temporal]") {
  CHECK(ParseTimeZone("system")->system);
  CHECK(ParseTimeZone("+01:00")->offset_s == 3600);
  CHECK(ParseTimeZone("-13:59")->offset_s == -(13 * 3600 + 59 * 60));
  CHECK(ParseTimeZone("+14:00").has_value());
  CHECK_FALSE(ParseTimeZone("+14:01").has_value());
  CHECK_FALSE(ParseTimeZone("Europe/Paris").has_value());
  CHECK_FALSE(ParseTimeZone("+1:5").has_value());
  const TimeZone plus530 = *ParseTimeZone("+05:30");
  const DateTimeParts p = UtcToLocal(1704412800, 0, plus530);  // 2024-01-05 00:00:00 UTC
  CHECK(FormatTemporal(MakeTemporal(Temporal::Type::kDateTime, 0, p)) == "2024-01-05 05:30:00");
  CHECK(*LocalToUtc(p, plus530) == 1704412800);
  CHECK_FALSE(LocalToUtc(DateTimeParts{}, plus530).has_value());
}

TEST_CASE("TIMESTAMP keeps the instant: stored in UTC, read in the thread's zone",
          "[sql][temporal]") {
  ColumnDef ts;
  ts.name = "ts";
  ts.type = ColumnType::kTimestamp;
  ts.length = 3;
  ts.nullable = false;
  const TimeZone plus530 = *ParseTimeZone("+05:30");
  const TimeZone minus8 = *ParseTimeZone("-08:00");
  std::string key;
  {
    const ScopedTimeZone zone(plus530);
    CHECK(CurrentTimeZone().offset_s == 5 * 3600 + 1800);
    SqlResult<Value> v = CoerceToColumn(ts, Value::String("2024-01-05 05:30:00.25"), 1);
    REQUIRE(v.ok());
    AppendKeyColumn(ts, *v, &key);
    {
      const ScopedTimeZone inner(minus8);
      size_t pos = 0;
      CHECK(DecodeKeyColumn(ts, key, &pos)->ToString() == "2024-01-04 16:00:00.250");
    }
    CHECK(CurrentTimeZone().offset_s == plus530.offset_s);  // restored
    size_t pos = 0;
    CHECK(DecodeKeyColumn(ts, key, &pos)->ToString() == "2024-01-05 05:30:00.250");
  }
  CHECK(CurrentTimeZone().system);
  // 2024-01-05 00:00:00.25 UTC, microseconds since 1970, big-endian.
  std::string utc;
  for (int i = 7; i >= 0; --i)
    utc.push_back(static_cast<char>((1704412800250000ull >> (i * 8)) & 0xff));
  CHECK(key == utc);

  // The range, in the zone's local time: 1970-01-01 00:00:01 .. 2038-01-19 03:14:07 UTC.
  const ScopedTimeZone utc_zone(*ParseTimeZone("+00:00"));
  CHECK(CoerceToColumn(ts, Value::String("1970-01-01 00:00:01"), 1).ok());
  CHECK(CoerceToColumn(ts, Value::String("2038-01-19 03:14:07.999"), 1).ok());
  CHECK(CoerceToColumn(ts, Value::String("1970-01-01 00:00:00"), 1).error().code == 1292);
  CHECK(CoerceToColumn(ts, Value::String("2038-01-19 03:14:08"), 1).error().code == 1292);
  std::vector<SqlWarning> warnings;
  StoreRules lenient;
  lenient.errors = false;
  lenient.warnings = &warnings;
  SqlResult<Value> zero = CoerceToColumn(ts, Value::String("2040-01-01"), 1, lenient);
  REQUIRE(zero.ok());
  CHECK(zero->ToString() == "0000-00-00 00:00:00.000");
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].code == 1264);
  // The zero value is key 0 and reads back as itself.
  std::string zero_key;
  AppendKeyColumn(ts, *zero, &zero_key);
  CHECK(zero_key == std::string(8, '\0'));
  const ScopedTimeZone later(plus530);
  CHECK(CoerceToColumn(ts, Value::String("1970-01-01 05:30:00"), 1).error().code == 1292);
  CHECK(CoerceToColumn(ts, Value::String("1970-01-01 05:30:01"), 1).ok());
}

TEST_CASE("CURRENT_TIMESTAMP of a column: the statement's time, cut to its fsp",
          "[sql][temporal]") {
  ColumnDef dt;
  dt.type = ColumnType::kDateTime;
  dt.length = 2;
  const ScopedTimeZone zone(*ParseTimeZone("+01:00"));
  // 2024-01-05 00:00:00.987654 UTC
  CHECK(CurrentTimestampFor(dt, 1704412800987654).ToString() == "2024-01-05 01:00:00.98");
  dt.length = 0;
  CHECK(CurrentTimestampFor(dt, 1704412800987654).ToString() == "2024-01-05 01:00:00");
}

}  // namespace
}  // namespace minnow::sql
