// Static type classes of bound expressions and the aggregation of branch types (expr_type.h).

#include "sql_lite_front/execute/expr_type.h"

#include <algorithm>
#include <vector>

namespace minnow::sql {
namespace {

using Kind = BoundExpr::Kind;

struct Typed {
  TypeClass type = TypeClass::kUnknown;
  int scale = 0;
};

// MySQL's agg_result_type over `branches` (see the header).
Typed Aggregate(const std::vector<const BoundExpr*>& branches) {
  bool any_string = false, any_double = false, any_decimal = false, any_int = false;
  bool any_unknown = false, any_temporal = false;
  int scale = 0;
  for (const BoundExpr* b : branches) {
    switch (b->type) {
      case TypeClass::kUnknown:
        any_unknown = true;
        break;
      case TypeClass::kNull:
        break;
      case TypeClass::kString:
        any_string = true;
        break;
      case TypeClass::kTemporal:
        any_temporal = true;
        break;
      case TypeClass::kDouble:
        any_double = true;
        break;
      case TypeClass::kDecimal:
        any_decimal = true;
        scale = std::max(scale, b->scale);
        break;
      case TypeClass::kInt:
        any_int = true;
        break;
    }
  }
  // A string branch makes the result a string whatever the unknown branches are.
  if (any_string) return {TypeClass::kString, 0};
  if (any_unknown) return {};
  // Dates alone stay dates; a date with a number is a string, as MySQL's agg_result_type.
  if (any_temporal) {
    return {any_double || any_decimal || any_int ? TypeClass::kString : TypeClass::kTemporal, 0};
  }
  if (any_double) return {TypeClass::kDouble, 0};
  if (any_decimal) return {TypeClass::kDecimal, scale};
  if (any_int) return {TypeClass::kInt, 0};
  return {TypeClass::kNull, 0};
}

// The result branches of a CASE, IF, IFNULL, COALESCE or NULLIF node.
std::vector<const BoundExpr*> Branches(const BoundExpr& b) {
  std::vector<const BoundExpr*> out;
  if (b.kind == Kind::kCase) {
    const size_t first = b.case_operand ? 1 : 0;
    const size_t pairs_end = b.args.size() - (b.case_else ? 1 : 0);
    for (size_t i = first + 1; i < pairs_end; i += 2) out.push_back(&b.args[i]);
    if (b.case_else) out.push_back(&b.args.back());
    return out;
  }
  switch (b.func) {
    case Func::kIf:
      out = {&b.args[1], &b.args[2]};
      break;
    case Func::kNullIf:
      out = {&b.args[0]};
      break;
    default:  // IFNULL, COALESCE
      for (const BoundExpr& a : b.args) out.push_back(&a);
      break;
  }
  return out;
}

bool Picks(const BoundExpr& b) {
  if (b.kind == Kind::kCase) return true;
  if (b.kind != Kind::kFunction) return false;
  return b.func == Func::kIf || b.func == Func::kIfNull || b.func == Func::kCoalesce ||
         b.func == Func::kNullIf;
}

// + - * / DIV % and mod(): double if an operand is a double or a string, decimal if one is a
// decimal (or for /), else integer; scales as MySQL's (+ - %: the larger, *: the sum, /: the
// dividend's plus div_precision_increment).
Typed Arithmetic(BinaryOp op, const BoundExpr& x, const BoundExpr& y) {
  if (x.type == TypeClass::kUnknown || y.type == TypeClass::kUnknown) return {};
  if (x.type == TypeClass::kNull || y.type == TypeClass::kNull) return {TypeClass::kNull, 0};
  if (op == BinaryOp::kIntDiv) return {TypeClass::kInt, 0};
  // A date's number is an integer or, with fractional seconds, a decimal: left to the value.
  if (x.type == TypeClass::kTemporal || y.type == TypeClass::kTemporal) return {};
  auto inexact = [](const BoundExpr& e) {
    return e.type == TypeClass::kDouble || e.type == TypeClass::kString;
  };
  if (inexact(x) || inexact(y)) return {TypeClass::kDouble, 0};
  const bool decimal = x.type == TypeClass::kDecimal || y.type == TypeClass::kDecimal;
  if (op == BinaryOp::kDiv) {
    return {TypeClass::kDecimal,
            std::min(x.scale + Decimal::kDivPrecisionIncrement, Decimal::kMaxScale)};
  }
  if (!decimal) return {TypeClass::kInt, 0};
  if (op == BinaryOp::kMul) return {TypeClass::kDecimal, std::min(x.scale + y.scale, 30)};
  return {TypeClass::kDecimal, std::max(x.scale, y.scale)};
}

Typed FunctionType(const BoundExpr& b) {
  auto arg = [&](size_t i) -> const BoundExpr& { return b.args[i]; };
  switch (b.func) {
    case Func::kLength:
    case Func::kCharLength:
    case Func::kLocate:
    case Func::kInstr:
      return {TypeClass::kInt, 0};
    case Func::kRand:
      return {TypeClass::kDouble, 0};
    case Func::kAbs:
      if (arg(0).type == TypeClass::kString) return {TypeClass::kDouble, 0};
      return {arg(0).type, arg(0).scale};
    case Func::kFloor:
    case Func::kCeil:
      if (arg(0).type == TypeClass::kDecimal) return {TypeClass::kInt, 0};
      if (arg(0).type == TypeClass::kString) return {TypeClass::kDouble, 0};
      return {arg(0).type, 0};
    case Func::kRound:
      return {};  // the digits argument decides
    case Func::kMod:
      return Arithmetic(BinaryOp::kMod, arg(0), arg(1));
    case Func::kSysdate:
    case Func::kDateOf:
    case Func::kDateAdd:
    case Func::kDateSub:
    case Func::kTimestampAdd:
    case Func::kStrToDate:
      return {TypeClass::kTemporal, 0};
    case Func::kFromUnixtime:
      return {b.args.size() == 1 ? TypeClass::kTemporal : TypeClass::kString, 0};
    case Func::kYear:
    case Func::kMonth:
    case Func::kDayOfMonth:
    case Func::kHour:
    case Func::kMinute:
    case Func::kSecond:
    case Func::kDateDiff:
    case Func::kTimestampDiff:
    case Func::kWeekday:
    case Func::kDayOfWeek:
    case Func::kDayOfYear:
    case Func::kToDays:
    case Func::kWeek:
    case Func::kYearWeek:
    case Func::kQuarter:
    case Func::kUuidShort:
      return {TypeClass::kInt, 0};
    case Func::kLastDay:
    case Func::kMakeDate:
    case Func::kFromDays:
      return {TypeClass::kTemporal, 0};
    case Func::kTimeOf:
    case Func::kTimeDiff:
    case Func::kSecToTime:
    case Func::kMakeTime:
      return {TypeClass::kTemporal, 0};
    case Func::kTimeToSec:
    case Func::kMicrosecond:
      return {TypeClass::kInt, 0};
    case Func::kTimeFormat:
      return {TypeClass::kString, 0};
    case Func::kUnixTimestamp:
      return {};  // an integer, or a decimal for an argument with fractional seconds
    case Func::kSign:
    case Func::kCrc32:
    case Func::kBitCount:
    case Func::kAscii:
    case Func::kOrd:
    case Func::kStrcmp:
    case Func::kField:
    case Func::kFindInSet:
    case Func::kIsNull:
      return {TypeClass::kInt, 0};
    case Func::kPow:
    case Func::kSqrt:
    case Func::kExp:
    case Func::kLn:
    case Func::kLog:
    case Func::kLog2:
    case Func::kLog10:
    case Func::kSin:
    case Func::kCos:
    case Func::kTan:
    case Func::kAsin:
    case Func::kAcos:
    case Func::kAtan:
    case Func::kCot:
    case Func::kRadians:
    case Func::kDegrees:
    case Func::kPi:
      return {TypeClass::kDouble, 0};
    case Func::kTruncate:
      return {};  // as ROUND: the digits argument decides
    case Func::kGreatest:
    case Func::kLeast: {
      std::vector<const BoundExpr*> all;
      for (const BoundExpr& a : b.args) all.push_back(&a);
      return Aggregate(all);
    }
    default:
      return {TypeClass::kString, 0};  // md5, concat and the text functions
  }
}

}  // namespace

void AggregateType(const std::vector<const BoundExpr*>& branches, BoundExpr* out) {
  const Typed t = Aggregate(branches);
  out->type = t.type;
  out->scale = t.scale;
}

TypeClass TypeOfValue(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      return TypeClass::kNull;
    case Value::Kind::kInt:
    case Value::Kind::kUInt:
      return TypeClass::kInt;
    case Value::Kind::kDecimal:
      return TypeClass::kDecimal;
    case Value::Kind::kDouble:
      return TypeClass::kDouble;
    case Value::Kind::kString:
    case Value::Kind::kEnum:
      return TypeClass::kString;
    case Value::Kind::kTemporal:
      return TypeClass::kTemporal;
  }
  return TypeClass::kUnknown;
}

void InferType(BoundExpr* b, const BindScope& scope) {
  Typed t;
  switch (b->kind) {
    case Kind::kLiteral:
      t.type = TypeOfValue(b->value);
      if (b->value.is_decimal()) t.scale = b->value.as_decimal().scale();
      break;
    case Kind::kColumn:
      if (static_cast<size_t>(b->column) < scope.column_types.size())
        t.type = scope.column_types[b->column];
      if (static_cast<size_t>(b->column) < scope.column_scales.size())
        t.scale = scope.column_scales[b->column];
      break;
    case Kind::kUnary:
      if (b->unary_op == UnaryOp::kNot) {
        t.type = TypeClass::kInt;
      } else if (b->args[0].type == TypeClass::kString) {
        t.type = TypeClass::kDouble;
      } else if (b->args[0].type == TypeClass::kTemporal) {
        t.type = TypeClass::kUnknown;
      } else {
        t = {b->args[0].type, b->args[0].scale};
      }
      break;
    case Kind::kBinary:
      if (b->binary_op <= BinaryOp::kXor) {
        t.type = TypeClass::kInt;
      } else {
        t = Arithmetic(b->binary_op, b->args[0], b->args[1]);
      }
      break;
    case Kind::kBetween:
    case Kind::kIn:
    case Kind::kLike:
    case Kind::kIsNull:
      t.type = TypeClass::kInt;
      break;
    case Kind::kFunction:
      t = Picks(*b) ? Aggregate(Branches(*b)) : FunctionType(*b);
      break;
    case Kind::kCase:
      t = Aggregate(Branches(*b));
      break;
    case Kind::kCast:
      switch (b->cast.type) {
        case CastTarget::Type::kSigned:
        case CastTarget::Type::kUnsigned:
          t.type = TypeClass::kInt;
          break;
        case CastTarget::Type::kDecimal:
          t = {TypeClass::kDecimal, b->cast.scale};
          break;
        case CastTarget::Type::kDouble:
          t.type = TypeClass::kDouble;
          break;
        case CastTarget::Type::kDate:
        case CastTarget::Type::kDateTime:
        case CastTarget::Type::kTime:
          t.type = TypeClass::kTemporal;
          break;
        default:
          t.type = TypeClass::kString;
          break;
      }
      break;
    case Kind::kAggregate:
    case Kind::kUserVariable:
    case Kind::kCorrelatedSubquery:
      break;
    case Kind::kAssignUserVariable:
      t.type = b->args[0].type;
      t.scale = b->args[0].scale;
      break;
  }
  b->type = t.type;
  b->scale = t.scale;
}

Value CoerceToType(Value v, const BoundExpr& e) {
  if (v.is_null()) return v;
  switch (e.type) {
    case TypeClass::kString:
      if (!v.is_string()) return Value::String(v.ToString());
      break;
    case TypeClass::kDouble:
      if (!v.is_double()) return Value::Double(v.ToDouble());
      break;
    case TypeClass::kDecimal:
      if (v.is_integer() || (v.is_decimal() && v.as_decimal().scale() < e.scale)) {
        if (std::optional<Decimal> d = v.ToDecimal().Round(e.scale); d.has_value())
          return Value::Dec(std::move(*d));
      }
      break;
    default:
      break;
  }
  return v;
}

}  // namespace minnow::sql
