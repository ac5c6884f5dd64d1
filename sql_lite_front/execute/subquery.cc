// Uncorrelated subqueries in expressions (subquery.h).

#include "sql_lite_front/execute/subquery.h"

#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/parse/ast_walk.h"

namespace minnow::sql {
namespace {

ExprPtr LiteralExpr(Value v, const std::string& text) {
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Kind::kLiteral;
  e->value = std::move(v);
  e->text = text;
  return e;
}

// x op v for each value, joined by AND (all) or OR as a balanced tree (its height grows with
// the log of the values, so binding and evaluating it stay shallow).
ExprPtr Comparisons(const Expr& x, BinaryOp op, bool all, const std::vector<Value>& values,
                    size_t begin, size_t end, const std::string& text) {
  if (end - begin == 1) {
    auto c = std::make_unique<Expr>();
    c->kind = Expr::Kind::kBinary;
    c->binary_op = op;
    c->args.push_back(CloneExpr(x));
    c->args.push_back(LiteralExpr(values[begin], text));
    c->text = text;
    return c;
  }
  const size_t mid = begin + (end - begin) / 2;
  auto j = std::make_unique<Expr>();
  j->kind = Expr::Kind::kBinary;
  j->binary_op = all ? BinaryOp::kAnd : BinaryOp::kOr;
  j->args.push_back(Comparisons(x, op, all, values, begin, mid, text));
  j->args.push_back(Comparisons(x, op, all, values, mid, end, text));
  j->text = text;
  return j;
}

SqlError OperandColumns() {
  return SqlErr(kErOperandColumns, "Operand should contain 1 column(s)");
}

}  // namespace

SqlResult<const SubqueryResolver::Rows*> SubqueryResolver::Run(const ExecContext& ctx,
                                                               const SelectStmt& q,
                                                               const BindScope& scope) {
  auto it = results_.find(&q);
  if (it != results_.end()) return &it->second;
  ExecContext sub = ctx;
  sub.outer_scopes.push_back(&scope);
  Rows rows;
  if (describe_only_) {
    SQL_ASSIGN_OR_RETURN(QueryColumns c, DescribeQuery(sub, q));
    rows.columns = c.names.size();
  } else {
    SQL_ASSIGN_OR_RETURN(SelectOutput out, RunSelect(sub, q, lock_));
    rows.columns = out.columns.size();
    rows.rows = std::move(out.rows);
  }
  return &results_.emplace(&q, std::move(rows)).first->second;
}

SqlResult<const Expr*> SubqueryResolver::Resolve(const ExecContext& ctx, const Expr& e,
                                                 const BindScope& scope) {
  const bool list = e.kind == Expr::Kind::kIn || e.kind == Expr::Kind::kQuantified;
  if (list && e.subquery->limit.has_value()) {
    return SqlErr(kErNotSupportedYet,
                  "This version of minnow doesn't yet support 'LIMIT & IN/ALL/ANY/SOME "
                  "subquery'");
  }
  SQL_ASSIGN_OR_RETURN(const Rows* r, Run(ctx, *e.subquery, scope));
  if (e.kind != Expr::Kind::kExists && r->columns != 1) return OperandColumns();
  ExprPtr out;
  std::vector<Value> values;
  if (list) {
    values.reserve(r->rows.size());
    for (const std::vector<Value>& row : r->rows) values.push_back(row[0]);
  }
  switch (e.kind) {
    case Expr::Kind::kSubquery:
      if (r->rows.size() > 1) return SqlErr(kErSubqueryNo1Row, "Subquery returns more than 1 row");
      out = LiteralExpr(r->rows.empty() ? Value::Null() : r->rows[0][0], e.text);
      break;
    case Expr::Kind::kExists:
      out = LiteralExpr(Value::Int(r->rows.empty() ? 0 : 1), e.text);
      break;
    case Expr::Kind::kIn:
    case Expr::Kind::kQuantified: {
      const bool in = e.kind == Expr::Kind::kIn;
      const bool all = !in && e.quantifier_all;
      if (values.empty()) {
        // No row: IN and ANY are false, NOT IN and ALL true, whatever x is.
        out = LiteralExpr(Value::Int(in ? e.negated : all), e.text);
        break;
      }
      const bool as_in =
          in || (!all && e.binary_op == BinaryOp::kEq) || (all && e.binary_op == BinaryOp::kNe);
      if (!as_in) {
        out = Comparisons(*e.args[0], e.binary_op, all, values, 0, values.size(), e.text);
        break;
      }
      out = std::make_unique<Expr>();
      out->kind = Expr::Kind::kIn;
      out->negated = in ? e.negated : all;
      out->args.push_back(CloneExpr(*e.args[0]));
      for (Value& v : values) out->args.push_back(LiteralExpr(std::move(v), e.text));
      out->text = e.text;
      break;
    }
    default:
      return SqlStatus::Internal("not a subquery node").error();
  }
  made_.push_back(std::move(out));
  return made_.back().get();
}

SqlStatus SubqueryResolver::ResolveInPlace(const ExecContext& ctx, ExprPtr* node,
                                           const BindScope& scope) {
  if (IsSubqueryNode(**node)) {
    SQL_ASSIGN_OR_RETURN(const Expr* r, Resolve(ctx, **node, scope));
    *node = CloneExpr(*r);
  }
  for (ExprPtr& a : (*node)->args) {
    if (a != nullptr) SQL_RETURN_IF_ERROR(ResolveInPlace(ctx, &a, scope));
  }
  return SqlStatus::OK();
}

SqlResult<ExprPtr> SubqueryResolver::ResolveTree(const ExecContext& ctx, const Expr& e,
                                                 const BindScope& scope) {
  ExprPtr copy = CloneExpr(e);
  SQL_RETURN_IF_ERROR(ResolveInPlace(ctx, &copy, scope));
  return copy;
}

}  // namespace minnow::sql
