// Exact arithmetic (arithmetic.h).

#include "sql_lite_front/execute/arithmetic.h"

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

Decimal Exact(const Value& v) {
  if (v.is_int()) return Decimal::FromInt(v.as_int());
  if (v.is_uint()) return Decimal::FromUInt(v.as_uint());
  return v.as_decimal();
}

Value OutOfRange(const char* type, const BoundExpr& e, EvalState& st) {
  if (!st.error.has_value()) {
    st.error = SqlErr(kErDataOutOfRange, type, " value is out of range in '", e.text, "'");
  }
  return Value::Null();
}

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
    case BinaryOp::kIntDiv: {
      if (y == 0) return Value::Null();
      double q = std::trunc(x / y);
      if (!(q >= -9223372036854775808.0 && q < 18446744073709551616.0))
        return OutOfRange(e.is_unsigned ? "BIGINT UNSIGNED" : "BIGINT", e, st);
      Int128 r = q < 0 ? Int128{static_cast<int64_t>(q)} : Int128{static_cast<uint64_t>(q)};
      return IntegerResult(r, false, e, st);
    }
    default:
      return Value::Null();
  }
}

}  // namespace

Value EvalArithmetic(const BoundExpr& e, const Value& a, const Value& b, EvalState& st) {
  if (a.is_null() || b.is_null()) return Value::Null();
  const BinaryOp op = e.binary_op;
  const Kind ka = KindOf(a), kb = KindOf(b);
  if (ka == Kind::kDouble || kb == Kind::kDouble) {
    return DoubleArithmetic(op, a.ToDouble(), b.ToDouble(), e, st);
  }
  if (ka == Kind::kDecimal || kb == Kind::kDecimal || op == BinaryOp::kDiv) {
    return DecimalArithmetic(op, Exact(a), Exact(b), e, st);
  }
  return IntegerArithmetic(op, Wide(a), Wide(b), e, st);
}

Value EvalNegation(const BoundExpr& e, const Value& v, EvalState& st) {
  if (v.is_null()) return v;
  if (v.is_integer()) {
    // The result is signed BIGINT, whatever the operand.
    Int128 r = -Wide(v);
    if (r < kInt64Min || r > kInt64Max) return OutOfRange("BIGINT", e, st);
    return Value::Int(static_cast<int64_t>(r));
  }
  if (v.is_decimal()) return Value::Dec(v.as_decimal().Negated());
  return Value::Double(-v.ToDouble());
}

}  // namespace minnow::sql
