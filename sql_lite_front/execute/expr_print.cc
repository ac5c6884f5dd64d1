// MySQL's printed form of an expression, for messages such as 1690's (arithmetic.h).

#include <string>

#include "sql_lite_front/execute/arithmetic.h"
#include "sql_lite_front/execute/cast.h"
#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {
namespace {

std::string Literal(const Value& v) {
  if (v.is_null()) return "NULL";
  if (v.is_temporal() && v.as_temporal().type != Temporal::Type::kYear) {  // a typed literal
    return (v.as_temporal().type == Temporal::Type::kDate ? "DATE'" : "TIMESTAMP'") + v.ToString() +
           "'";
  }
  if (!v.is_string()) return v.ToString();
  std::string out = "'";
  for (char c : v.as_string()) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

const char* BinaryOpText(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEq:
      return "=";
    case BinaryOp::kNe:
      return "<>";
    case BinaryOp::kLt:
      return "<";
    case BinaryOp::kLe:
      return "<=";
    case BinaryOp::kGt:
      return ">";
    case BinaryOp::kGe:
      return ">=";
    case BinaryOp::kNullSafeEq:
      return "<=>";
    case BinaryOp::kAnd:
      return "and";
    case BinaryOp::kOr:
      return "or";
    case BinaryOp::kXor:
      return "xor";
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kIntDiv:
      return "DIV";
    case BinaryOp::kMod:
      return "%";
  }
  return "?";
}

std::string PrintExpr(const Expr& e, const BindScope& scope) {
  auto arg = [&](size_t i) {
    return i < e.args.size() && e.args[i] != nullptr ? PrintExpr(*e.args[i], scope)
                                                     : std::string("?");
  };
  switch (e.kind) {
    case Expr::Kind::kLiteral:
      return Literal(e.value);
    case Expr::Kind::kColumn: {
      std::string column = e.name;
      for (std::string_view c : scope.columns) {
        if (c.size() == e.name.size() && EqualsNoCase(c, e.name)) column = std::string(c);
      }
      return QuoteIdentifier(scope.schema) + "." +
             QuoteIdentifier(scope.alias.empty() ? scope.table : scope.alias) + "." +
             QuoteIdentifier(column);
    }
    case Expr::Kind::kStar:
      return "*";
    case Expr::Kind::kUnary:
      return e.unary_op == UnaryOp::kNeg ? "-(" + arg(0) + ")" : "(not(" + arg(0) + "))";
    case Expr::Kind::kBinary:
      return "(" + arg(0) + " " + BinaryOpText(e.binary_op) + " " + arg(1) + ")";
    case Expr::Kind::kBetween:
      return "(" + arg(0) + (e.negated ? " not" : "") + " between " + arg(1) + " and " + arg(2) +
             ")";
    case Expr::Kind::kIn: {
      std::string out = "(" + arg(0) + (e.negated ? " not" : "") + " in (";
      for (size_t i = 1; i < e.args.size(); ++i) out += (i > 1 ? "," : "") + arg(i);
      return out + "))";
    }
    case Expr::Kind::kLike:
      return "(" + arg(0) + (e.negated ? " not" : "") + " like " + arg(1) + ")";
    case Expr::Kind::kIsNull:
      return "(" + arg(0) + (e.negated ? " is not null)" : " is null)");
    case Expr::Kind::kFunction: {
      std::string out = e.name + "(" + (e.distinct ? "distinct " : "");
      for (size_t i = 0; i < e.args.size(); ++i) out += (i > 0 ? "," : "") + arg(i);
      return out + ")";
    }
    case Expr::Kind::kVariable:
      if (!e.args.empty()) return "(@" + e.name + " := " + PrintExpr(*e.args[0], scope) + ")";
      return (e.var_scope == VarScope::kUser ? "@" : "@@") + e.name;
    case Expr::Kind::kCase: {
      std::string out = "(case";
      size_t i = 0;
      if (e.case_operand) out += " " + arg(i++);
      const size_t pairs_end = e.args.size() - (e.case_else ? 1 : 0);
      for (; i + 1 < pairs_end; i += 2) out += " when " + arg(i) + " then " + arg(i + 1);
      if (e.case_else) out += " else " + arg(e.args.size() - 1);
      return out + " end)";
    }
    case Expr::Kind::kCast:
      return "cast(" + arg(0) + " as " + CastTypeText(e.cast) + ")";
  }
  return e.text;
}

}  // namespace minnow::sql
