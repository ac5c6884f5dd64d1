// Exact arithmetic (arithmetic.h).

#include "sql_lite_front/execute/arithmetic.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace minnow::sql {
namespace {

constexpr Int128 kInt64Min = std::numeric_limits<int64_t>::min();
constexpr Int128 kInt64Max = std::numeric_limits<int64_t>::max();
constexpr Int128 kUInt64Max = std::numeric_limits<uint64_t>::max();

enum class Kind : uint8_t { kInteger, kDecimal, kDouble };

Kind KindOf(const Value& v) {
  if (v.is_integer()) return Kind::kInteger;
  if (v.is_decimal()) return Kind::kDecimal;
  return Kind::kDouble;  // double, or a string read as a number
}

Int128 Wide(const Value& v) { return v.is_int() ? Int128{v.as_int()} : Int128{v.as_uint()}; }

// An operand of DIV as a decimal: exact numbers as they are, doubles and strings (read as
// numbers) by their shortest digits; nullopt past 65 digits.
std::optional<Decimal> AsDecimal(const Value& v) {
  if (v.is_integer() || v.is_decimal()) return v.ToDecimal();
  return Decimal::FromDouble(v.ToDouble());
}

}  // namespace

Value AsNumber(const Value& v) {
  if (v.is_enum()) return Value::UInt(v.as_enum().number);  // ENUM's index, SET's bitmap
  if (!v.is_temporal()) return v;
  const Temporal& t = v.as_temporal();
  if (t.fsp == 0) return Value::Int(TemporalToInt(t));
  const DateTimeParts p = t.parts();
  Temporal whole = t;
  whole.packed -= p.negative ? -p.micro : p.micro;
  const int64_t int_part = TemporalToInt(whole);
  std::string digits = (p.negative ? "-" : "") +
                       std::to_string(int_part < 0 ? -int_part : int_part) + "." +
                       std::to_string(1000000 + p.micro).substr(1, t.fsp);
  return Value::Dec(*Decimal::Parse(digits));
}

Value OutOfRange(const char* type, const BoundExpr& e, EvalState& st) {
  if (!st.error.has_value()) {
    st.error = SqlErr(kErDataOutOfRange, type, " value is out of range in '", e.text, "'");
  }
  return Value::Null();
}

namespace {

// An exact integer result checked against BIGINT or BIGINT UNSIGNED.
Value IntegerResult(Int128 r, bool overflowed, const BoundExpr& e, EvalState& st) {
  if (e.is_unsigned) {
    if (overflowed || r < 0 || r > kUInt64Max) return OutOfRange("BIGINT UNSIGNED", e, st);
    return Value::UInt(static_cast<uint64_t>(r));
  }
  if (overflowed || r < kInt64Min || r > kInt64Max) return OutOfRange("BIGINT", e, st);
  return Value::Int(static_cast<int64_t>(r));
}

Value DecimalResult(std::optional<Decimal> r, const BoundExpr& e, EvalState& st) {
  if (!r.has_value()) return OutOfRange("DECIMAL", e, st);
  return Value::Dec(std::move(*r));
}

Value DoubleResult(double r, const BoundExpr& e, EvalState& st) {
  if (!std::isfinite(r)) return OutOfRange("DOUBLE", e, st);
  return Value::Double(r);
}

Value IntegerArithmetic(BinaryOp op, Int128 x, Int128 y, const BoundExpr& e, EvalState& st) {
  Int128 r = 0;
  switch (op) {
    case BinaryOp::kAdd:
      return IntegerResult(x + y, false, e, st);  // |x|, |y| < 2^64: no 128-bit overflow
    case BinaryOp::kSub:
      return IntegerResult(x - y, false, e, st);
    case BinaryOp::kMul: {
      bool overflowed = __builtin_mul_overflow(x, y, &r);
      return IntegerResult(r, overflowed, e, st);
    }
    case BinaryOp::kIntDiv:
      if (y == 0) return Value::Null();
      return IntegerResult(x / y, false, e, st);
    case BinaryOp::kMod:
      if (y == 0) return Value::Null();
      return IntegerResult(x % y, false, e, st);  // the sign of x, as MySQL's
    default:                                      // "/" is decimal arithmetic
      return Value::Null();
  }
}

Value DecimalArithmetic(BinaryOp op, const Decimal& x, const Decimal& y, const BoundExpr& e,
                        EvalState& st) {
  switch (op) {
    case BinaryOp::kAdd:
      return DecimalResult(Decimal::Add(x, y), e, st);
    case BinaryOp::kSub:
      return DecimalResult(Decimal::Sub(x, y), e, st);
    case BinaryOp::kMul:
      return DecimalResult(Decimal::Mul(x, y), e, st);
    case BinaryOp::kDiv:
      if (y.is_zero()) return Value::Null();
      return DecimalResult(Decimal::Div(x, y), e, st);
    case BinaryOp::kMod:
      if (y.is_zero()) return Value::Null();
      return DecimalResult(Decimal::Mod(x, y), e, st);
    case BinaryOp::kIntDiv: {
      if (y.is_zero()) return Value::Null();
      std::optional<Decimal> q = Decimal::Div(x, y);
      if (!q.has_value()) return OutOfRange(e.is_unsigned ? "BIGINT UNSIGNED" : "BIGINT", e, st);
      int64_t i = 0;
      uint64_t u = 0;
      Decimal t = q->Truncate();
      if (t.ToInt64(&i)) return IntegerResult(i, false, e, st);
      if (t.ToUInt64(&u)) return IntegerResult(u, false, e, st);
      return OutOfRange(e.is_unsigned ? "BIGINT UNSIGNED" : "BIGINT", e, st);
    }
    default:
      return Value::Null();
  }
}

Value DoubleArithmetic(BinaryOp op, double x, double y, const BoundExpr& e, EvalState& st) {
  switch (op) {
    case BinaryOp::kAdd:
      return DoubleResult(x + y, e, st);
    case BinaryOp::kSub:
      return DoubleResult(x - y, e, st);
    case BinaryOp::kMul:
      return DoubleResult(x * y, e, st);
    case BinaryOp::kDiv:
      if (y == 0) return Value::Null();
      return DoubleResult(x / y, e, st);
    case BinaryOp::kMod:
      if (y == 0) return Value::Null();
      return DoubleResult(std::fmod(x, y), e, st);
    default:  // DIV is decimal arithmetic (EvalArithmetic)
      return Value::Null();
  }
}

}  // namespace

Value EvalArithmetic(const BoundExpr& e, const Value& a_in, const Value& b_in, EvalState& st) {
  if (a_in.is_null() || b_in.is_null()) return Value::Null();
  const Value a = AsNumber(a_in), b = AsNumber(b_in);
  const BinaryOp op = e.binary_op;
  const Kind ka = KindOf(a), kb = KindOf(b);
  if (ka == Kind::kDouble || kb == Kind::kDouble) {
    if (op != BinaryOp::kIntDiv) return DoubleArithmetic(op, a.ToDouble(), b.ToDouble(), e, st);
    // DIV of a double (or string) divides as decimals, as MySQL's: 0.3e0 DIV 0.1e0 is 3.
    std::optional<Decimal> x = AsDecimal(a), y = AsDecimal(b);
    if (!x.has_value() || !y.has_value())
      return OutOfRange(e.is_unsigned ? "BIGINT UNSIGNED" : "BIGINT", e, st);
    return DecimalArithmetic(op, *x, *y, e, st);
  }
  if (ka == Kind::kDecimal || kb == Kind::kDecimal || op == BinaryOp::kDiv) {
    return DecimalArithmetic(op, a.ToDecimal(), b.ToDecimal(), e, st);
  }
  return IntegerArithmetic(op, Wide(a), Wide(b), e, st);
}

Value IntegerIfFits(Decimal d) {
  int64_t i = 0;
  if (d.ToInt64(&i)) return Value::Int(i);
  uint64_t u = 0;
  if (d.ToUInt64(&u)) return Value::UInt(u);
  return Value::Dec(std::move(d));
}

Value EvalRound(const BoundExpr& e, const Value& v, int64_t digits, EvalState& st) {
  if (v.is_null()) return v;
  if (v.is_integer() && digits >= 0) return v;
  if (v.is_integer() || v.is_decimal()) {
    // Exact: an integer stays an integer, a decimal keeps `digits` digits after the point.
    std::optional<Decimal> r =
        v.ToDecimal().Round(static_cast<int>(std::clamp<int64_t>(digits, -100, 100)));
    if (!r.has_value()) return OutOfRange("DECIMAL", e, st);
    return v.is_integer() ? IntegerIfFits(std::move(*r)) : Value::Dec(std::move(*r));
  }
  // MySQL's my_double_round: by 10^|digits|, to the nearest with ties to even (rint: ROUND(2.5e0)
  // is 2); a scaling past the double range leaves the value (or, to the left, 0).
  const double x = v.ToDouble();
  const double p = std::pow(10.0, static_cast<double>(digits < 0 ? -digits : digits));
  if (digits < 0) return Value::Double(std::isinf(p) ? 0.0 : std::rint(x / p) * p);
  if (std::isinf(x * p)) return v.is_double() ? v : Value::Double(x);
  return Value::Double(std::rint(x * p) / p);
}

Value EvalNegation(const BoundExpr& e, const Value& v_in, EvalState& st) {
  if (v_in.is_null()) return v_in;
  const Value v = AsNumber(v_in);
  if (v.is_integer()) {
    // The result is signed BIGINT, whatever the operand.
    Int128 r = -Wide(v);
    if (r < kInt64Min || r > kInt64Max) {
      if (e.negates_constant) return Value::Dec(Decimal::FromInt128(r));
      return OutOfRange("BIGINT", e, st);
    }
    return Value::Int(static_cast<int64_t>(r));
  }
  if (v.is_decimal()) return Value::Dec(v.as_decimal().Negated());
  return Value::Double(-v.ToDouble());
}

}  // namespace minnow::sql
