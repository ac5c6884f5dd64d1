// Row constructors as scalar comparisons (row_constructor.h).

#include "sql_lite_front/parse/row_constructor.h"

#include "sql_lite_front/parse/ast_walk.h"

namespace minnow::sql {
namespace {

const Expr& Element(const Expr& e, size_t i) { return e.kind == Expr::Kind::kRow ? *e.args[i] : e; }

ExprPtr Binary(BinaryOp op, ExprPtr l, ExprPtr r, const std::string& text) {
  auto node = std::make_unique<Expr>();
  node->kind = Expr::Kind::kBinary;
  node->binary_op = op;
  node->args.push_back(std::move(l));
  node->args.push_back(std::move(r));
  node->text = text;
  return node;
}

// l op r for two elements: a row comparison when they are rows, else the scalar one.
ExprPtr Compare(BinaryOp op, const Expr& l, const Expr& r, const std::string& text) {
  if (l.kind == Expr::Kind::kRow) return RowComparison(op, l, r, text);
  return Binary(op, CloneExpr(l), CloneExpr(r), text);
}

BinaryOp Strict(BinaryOp op) {
  if (op == BinaryOp::kLe) return BinaryOp::kLt;
  if (op == BinaryOp::kGe) return BinaryOp::kGt;
  return op;
}

// The lexicographic order from element i on: l[i] strict r[i] OR (l[i] = r[i] AND rest).
ExprPtr Lexicographic(BinaryOp op, const Expr& l, const Expr& r, size_t i,
                      const std::string& text) {
  const Expr& a = Element(l, i);
  const Expr& b = Element(r, i);
  if (i + 1 == RowWidth(l)) return Compare(op, a, b, text);
  ExprPtr rest = Binary(BinaryOp::kAnd, Compare(BinaryOp::kEq, a, b, text),
                        Lexicographic(op, l, r, i + 1, text), text);
  return Binary(BinaryOp::kOr, Compare(Strict(op), a, b, text), std::move(rest), text);
}

std::optional<SqlError> ShapeError(const Expr& a, const Expr& b) {
  if (RowWidth(a) != RowWidth(b) || (a.kind == Expr::Kind::kRow) != (b.kind == Expr::Kind::kRow))
    return SqlErr(kErOperandColumns, "Operand should contain ", std::to_string(RowWidth(a)),
                  " column(s)");
  if (a.kind != Expr::Kind::kRow) return std::nullopt;
  for (size_t i = 0; i < a.args.size(); ++i) {
    std::optional<SqlError> e = ShapeError(*a.args[i], *b.args[i]);
    if (e.has_value()) return e;
  }
  return std::nullopt;
}

}  // namespace

bool MayCompareRows(const Expr& e) {
  if (e.kind != Expr::Kind::kBinary || e.binary_op > BinaryOp::kNullSafeEq) return false;
  return e.args[0]->kind == Expr::Kind::kRow || e.args[1]->kind == Expr::Kind::kRow ||
         e.args[0]->kind == Expr::Kind::kSubquery;
}

bool IsVolatile(const Expr& e) {
  if (e.subquery != nullptr) return true;
  if (e.kind == Expr::Kind::kFunction &&
      (e.name == "rand" || e.name == "uuid" || e.name == "uuid_short" || e.name == "sysdate"))
    return true;
  if (e.kind == Expr::Kind::kVariable && !e.args.empty()) return true;  // @x := ...
  for (const ExprPtr& a : e.args) {
    if (a != nullptr && IsVolatile(*a)) return true;
  }
  return false;
}

size_t RowWidth(const Expr& e) { return e.kind == Expr::Kind::kRow ? e.args.size() : 1; }

bool SameRowShape(const Expr& a, const Expr& b) { return !ShapeError(a, b).has_value(); }

ExprPtr RowComparison(BinaryOp op, const Expr& l, const Expr& r, const std::string& text) {
  const size_t n = RowWidth(l);
  switch (op) {
    case BinaryOp::kEq:
    case BinaryOp::kNullSafeEq:
    case BinaryOp::kNe: {
      const BinaryOp join = op == BinaryOp::kNe ? BinaryOp::kOr : BinaryOp::kAnd;
      ExprPtr out = Compare(op, Element(l, 0), Element(r, 0), text);
      for (size_t i = 1; i < n; ++i)
        out = Binary(join, std::move(out), Compare(op, Element(l, i), Element(r, i), text), text);
      return out;
    }
    default:
      return Lexicographic(op, l, r, 0, text);
  }
}

ExprPtr RowInList(const Expr& l, const std::vector<const Expr*>& list, bool negated,
                  const std::string& text) {
  ExprPtr out = RowComparison(BinaryOp::kEq, l, *list[0], text);
  for (size_t i = 1; i < list.size(); ++i)
    out = Binary(BinaryOp::kOr, std::move(out), RowComparison(BinaryOp::kEq, l, *list[i], text),
                 text);
  if (!negated) return out;
  auto node = std::make_unique<Expr>();
  node->kind = Expr::Kind::kUnary;
  node->unary_op = UnaryOp::kNot;
  node->args.push_back(std::move(out));
  node->text = text;
  return node;
}

std::optional<SqlError> RowShapeError(const Expr& first, const std::vector<const Expr*>& others) {
  for (const Expr* o : others) {
    std::optional<SqlError> e = ShapeError(first, *o);
    if (e.has_value()) return e;
  }
  return std::nullopt;
}

}  // namespace minnow::sql
