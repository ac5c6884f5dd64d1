#include "sql_lite_front/parse/expr_equal.h"

#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {
namespace {

bool SameList(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if ((a[i] == nullptr) != (b[i] == nullptr)) return false;
    if (a[i] != nullptr && !SameExpr(*a[i], *b[i])) return false;
  }
  return true;
}

bool SameCast(const CastTarget& a, const CastTarget& b) {
  return a.type == b.type && a.length == b.length && a.precision == b.precision &&
         a.scale == b.scale && a.charset == b.charset;
}

}  // namespace

bool SameExpr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.negated != b.negated || a.distinct != b.distinct) return false;
  // Subqueries' queries are not compared: two are the same only if they are one query.
  if (a.subquery != b.subquery) return false;
  switch (a.kind) {
    case Expr::Kind::kLiteral:
      return a.value == b.value && a.param == b.param;
    case Expr::Kind::kColumn:
      return EqualsNoCase(a.name, b.name) &&
             (a.table.empty() || b.table.empty() || EqualsNoCase(a.table, b.table)) &&
             (a.schema.empty() || b.schema.empty() || EqualsNoCase(a.schema, b.schema));
    case Expr::Kind::kStar:
      return true;
    case Expr::Kind::kUnary:
      if (a.unary_op != b.unary_op) return false;
      break;
    case Expr::Kind::kBinary:
      if (a.binary_op != b.binary_op) return false;
      break;
    case Expr::Kind::kBetween:
    case Expr::Kind::kIn:
    case Expr::Kind::kLike:
    case Expr::Kind::kIsNull:
    case Expr::Kind::kRow:
      break;
    case Expr::Kind::kFunction:
      if (!EqualsNoCase(a.name, b.name) || a.separator != b.separator ||
          a.order_desc != b.order_desc || !SameList(a.order_by, b.order_by))
        return false;
      break;
    case Expr::Kind::kVariable:
      // An assignment (@x := e) is never the same expression twice: each one assigns.
      if (!a.args.empty() || !b.args.empty()) return false;
      return a.var_scope == b.var_scope && EqualsNoCase(a.name, b.name);
    case Expr::Kind::kCase:
      if (a.case_operand != b.case_operand || a.case_else != b.case_else) return false;
      break;
    case Expr::Kind::kCast:
      if (!SameCast(a.cast, b.cast)) return false;
      break;
    case Expr::Kind::kSubquery:
    case Expr::Kind::kExists:
      break;
    case Expr::Kind::kQuantified:
      if (a.binary_op != b.binary_op || a.quantifier_all != b.quantifier_all) return false;
      break;
  }
  return SameList(a.args, b.args);
}

}  // namespace minnow::sql
