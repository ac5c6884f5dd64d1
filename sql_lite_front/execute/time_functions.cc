// Time functions (time_functions.h).

#include "sql_lite_front/execute/time_functions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "sql_lite_front/execute/date_functions.h"

namespace minnow::sql {
namespace {

constexpr int64_t kUsPerSecond = 1000000;

void WarnTime(EvalState& st, const std::string& text) {
  DateWarning(st, kErTruncatedWrongValue,
              fmt::format("Truncated incorrect time value: '{}'", text));
}

// Digits after the point a number or text gives a time made of it: an integer none, a
// decimal its scale, a double or text with a fraction 6 (at most 6).
uint8_t FspOf(const Value& v, int frac_digits) {
  if (v.is_temporal())
    return v.as_temporal().is_time() || v.as_temporal().type == Temporal::Type::kDateTime
               ? v.as_temporal().fsp
               : 0;
  if (v.is_integer()) return 0;
  if (v.is_decimal()) return static_cast<uint8_t>(std::min(6, v.as_decimal().scale()));
  if (v.is_double()) return 6;
  return static_cast<uint8_t>(std::min(6, frac_digits));
}

// `v` as a TIME (ValueAsTime); nullopt, with 1292, when it is none. Text with more after the
// time, or beyond the range, warns too.
std::optional<Temporal> TimeArgument(const Value& v, EvalState& st) {
  const TimeParse p = ValueAsTime(v);
  if (!p.micros.has_value() || p.trailing || p.clipped) WarnTime(st, v.ToString());
  if (!p.micros.has_value()) return std::nullopt;
  return MakeTime(*p.micros, FspOf(v, p.frac_digits));
}

// A TIME, or a DATETIME as microseconds since day 0 (0000-01-01 is day 1, DayNumber's).
struct Moment {
  bool datetime = false;
  int64_t us = 0;
  uint8_t fsp = 0;
};

// TIMEDIFF's and ADDTIME's operands: a DATE or DATETIME (or text or a number that reads as a
// DATETIME with a time of day) as a DATETIME, the rest as a TIME.
std::optional<Moment> MomentArgument(const Value& v, EvalState& st) {
  if (v.is_temporal() && !v.as_temporal().is_time() &&
      v.as_temporal().type != Temporal::Type::kYear) {
    return Moment{true, AbsoluteUs(v.as_temporal().parts()), v.as_temporal().fsp};
  }
  if (v.is_string() && v.as_string().size() >= 12) {
    const TemporalParse t = ParseTemporalText(v.as_string());
    if (t.parts.has_value() && t.has_time) {
      if (t.trailing) WarnTime(st, v.as_string());
      return Moment{true, AbsoluteUs(*t.parts), static_cast<uint8_t>(std::min(6, t.frac_digits))};
    }
  }
  if (v.is_int() && v.as_int() >= 10000000000) {
    if (std::optional<DateTimeParts> p = ParseTemporalNumber(v.as_int()); p.has_value()) {
      return Moment{true, AbsoluteUs(*p), 0};
    }
  }
  std::optional<Temporal> t = TimeArgument(v, st);
  if (!t.has_value()) return std::nullopt;
  return Moment{false, t->packed, t->fsp};
}

// A TIME of `us` microseconds, clipped to ±838:59:59 with 1292 naming the unclipped value.
Value ClippedTime(Int128 us, uint8_t fsp, EvalState& st) {
  const Int128 bound = kMaxTimeMicros;
  if (us > bound || us < -bound) {
    const Int128 limit = Int128{INT64_MAX};
    const auto shown = static_cast<int64_t>(std::clamp(us, -limit, limit));
    WarnTime(st, FormatTemporal(Temporal{Temporal::Type::kTime, fsp, shown}));
    us = std::clamp(us, -bound, bound);
  }
  return Value::FromTemporal(MakeTime(static_cast<int64_t>(us), fsp));
}

Value TimeDiff(const Value& a, const Value& b, EvalState& st) {
  std::optional<Moment> x = MomentArgument(a, st), y = MomentArgument(b, st);
  if (!x.has_value() || !y.has_value() || x->datetime != y->datetime) return Value::Null();
  return ClippedTime(Int128{x->us} - y->us, std::max(x->fsp, y->fsp), st);
}

Value AddTime(const Value& a, const Value& b, int sign, EvalState& st) {
  std::optional<Moment> x = MomentArgument(a, st), y = MomentArgument(b, st);
  if (!x.has_value() || !y.has_value() || y->datetime) return Value::Null();
  const Int128 us = Int128{x->us} + Int128{y->us} * sign;
  const uint8_t fsp = std::max(x->fsp, y->fsp);
  if (!x->datetime) return ClippedTime(us, fsp, st);
  std::optional<DateTimeParts> p = PartsOfAbsoluteUs(us);  // NULL outside the date range
  return p.has_value() ? Value::FromTemporal(MakeTemporal(Temporal::Type::kDateTime, fsp, *p))
                       : Value::Null();
}

Value SecToTime(const Value& n, EvalState& st) {
  const uint8_t fsp = FspOf(n, 6);
  Int128 us = 0;
  if (n.is_int()) {
    us = Int128{n.as_int()} * kUsPerSecond;
  } else if (n.is_uint()) {
    us = Int128{n.as_uint()} * kUsPerSecond;
  } else {
    const double d = n.ToDouble();
    us = std::fabs(d) < 1e15 ? static_cast<Int128>(std::llround(d * 1e6))
                             : (d < 0 ? -kMaxTimeMicros - 1 : kMaxTimeMicros + 1);
  }
  if (us > kMaxTimeMicros || us < -kMaxTimeMicros) {
    WarnTime(st, n.ToString());
    us = std::clamp<Int128>(us, -kMaxTimeMicros, kMaxTimeMicros);
  }
  return Value::FromTemporal(MakeTime(static_cast<int64_t>(us), fsp));
}

Value MakeTimeOf(const Value& h, const Value& m, const Value& s, EvalState& st) {
  const int64_t hours = h.ToInt(), minutes = m.ToInt();
  const double seconds = s.ToDouble();
  if (minutes < 0 || minutes > 59 || !(seconds >= 0) || seconds >= 60) return Value::Null();
  const uint8_t fsp = FspOf(s, 6);
  const bool negative = hours < 0 || (h.is_double() && std::signbit(h.as_double()));
  const int64_t mag = hours < 0 ? (hours == INT64_MIN ? INT64_MAX : -hours) : hours;
  const auto micros = static_cast<int64_t>(std::llround(seconds * 1e6));
  constexpr int64_t kMaxHours = 838;
  if (mag > kMaxHours) {
    WarnTime(st, fmt::format("{}{}:{:02}:{:02}", negative ? "-" : "", mag, minutes,
                             static_cast<int64_t>(seconds)));
    return Value::FromTemporal(MakeTime(negative ? -kMaxTimeMicros : kMaxTimeMicros, fsp));
  }
  const int64_t us = (mag * 3600 + minutes * 60) * kUsPerSecond + micros;
  return Value::FromTemporal(MakeTime(negative ? -us : us, fsp));
}

}  // namespace

bool IsTimeFunction(Func f) {
  return (f >= Func::kTimeOf && f <= Func::kMicrosecond) || f == Func::kHour ||
         f == Func::kMinute || f == Func::kSecond;
}

Value EvalTimeFunction(const BoundExpr& e, const Row& row, EvalState& st) {
  std::vector<Value> a;
  a.reserve(e.args.size());
  for (const BoundExpr& x : e.args) {
    a.push_back(Eval(x, row, st));
    if (a.back().is_null()) return Value::Null();
  }
  switch (e.func) {
    case Func::kTimeDiff:
      return TimeDiff(a[0], a[1], st);
    case Func::kAddTime:
    case Func::kSubTime:
      return AddTime(a[0], a[1], e.func == Func::kSubTime ? -1 : 1, st);
    case Func::kSecToTime:
      return SecToTime(a[0], st);
    case Func::kMakeTime:
      return MakeTimeOf(a[0], a[1], a[2], st);
    default:
      break;
  }
  std::optional<Temporal> t = TimeArgument(a[0], st);
  if (!t.has_value()) return Value::Null();
  const DateTimeParts p = t->parts();
  switch (e.func) {
    case Func::kTimeOf:
      return Value::FromTemporal(*t);
    case Func::kHour:
      return Value::Int(p.hour);
    case Func::kMinute:
      return Value::Int(p.minute);
    case Func::kSecond:
      return Value::Int(p.second);
    case Func::kMicrosecond:
      return Value::Int(p.micro);
    case Func::kTimeToSec: {
      const int64_t secs = (int64_t{p.hour} * 60 + p.minute) * 60 + p.second;
      return Value::Int(p.negative ? -secs : secs);
    }
    case Func::kTimeFormat:
      return DateFormat(*t, a[1].ToString(), st);
    default:
      return Value::Null();
  }
}

}  // namespace minnow::sql
