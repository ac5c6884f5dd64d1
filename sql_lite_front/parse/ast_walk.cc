// Walks and copies of parsed statements (ast_walk.h).

#include "sql_lite_front/parse/ast_walk.h"

namespace minnow::sql {
namespace {

// Calls fn for each expression of block `s` (not of its union parts).
void ForEachExpr(const SelectStmt& s, const std::function<void(const Expr&)>& fn) {
  for (const SelectItem& item : s.items) {
    if (item.expr != nullptr) fn(*item.expr);
  }
  if (s.where != nullptr) fn(*s.where);
  for (const ExprPtr& g : s.group_by) fn(*g);
  if (s.having != nullptr) fn(*s.having);
  for (const OrderItem& o : s.order_by) fn(*o.expr);
}

void ForEachSubqueryOf(const Expr& e, const std::function<void(const SelectStmt&)>& fn) {
  if (e.subquery != nullptr) fn(*e.subquery);
  for (const ExprPtr& a : e.args) {
    if (a != nullptr) ForEachSubqueryOf(*a, fn);
  }
  for (const ExprPtr& o : e.order_by) ForEachSubqueryOf(*o, fn);
}

}  // namespace

ExprPtr CloneExpr(const Expr& e) {
  auto c = std::make_unique<Expr>();
  c->kind = e.kind;
  c->value = e.value;
  c->hex_literal = e.hex_literal;
  c->param = e.param;
  c->table = e.table;
  c->schema = e.schema;
  c->name = e.name;
  c->binary_op = e.binary_op;
  c->unary_op = e.unary_op;
  c->var_scope = e.var_scope;
  c->negated = e.negated;
  c->distinct = e.distinct;
  c->case_operand = e.case_operand;
  c->case_else = e.case_else;
  c->cast = e.cast;
  c->quantifier_all = e.quantifier_all;
  c->subquery = e.subquery;
  for (const ExprPtr& a : e.args) c->args.push_back(a == nullptr ? nullptr : CloneExpr(*a));
  for (const ExprPtr& o : e.order_by) c->order_by.push_back(CloneExpr(*o));
  c->order_desc = e.order_desc;
  c->separator = e.separator;
  c->text = e.text;
  return c;
}

ExprPtr UnqualifiedCopy(const Expr& e) {
  ExprPtr c = CloneExpr(e);
  std::function<void(Expr*)> strip = [&](Expr* x) {
    if (x->kind == Expr::Kind::kColumn) {
      x->table.clear();
      x->schema.clear();
    }
    for (ExprPtr& a : x->args) {
      if (a != nullptr) strip(a.get());
    }
  };
  strip(c.get());
  return c;
}

bool ContainsSubquery(const Expr& e) {
  if (e.subquery != nullptr) return true;
  for (const ExprPtr& a : e.args) {
    if (a != nullptr && ContainsSubquery(*a)) return true;
  }
  for (const ExprPtr& o : e.order_by) {
    if (ContainsSubquery(*o)) return true;
  }
  return false;
}

bool HasSubquery(const SelectStmt& s) {  // (a derived table's query runs on its own)
  if (s.union_of != nullptr) {
    for (const auto& part : s.union_of->parts) {
      if (HasSubquery(*part)) return true;
    }
  }
  bool found = false;
  ForEachExpr(s, [&](const Expr& e) { found = found || ContainsSubquery(e); });
  return found;
}

namespace {

void WalkQueryBlocks(const SelectStmt& s, bool into_derived,
                     const std::function<void(const SelectStmt&)>& fn) {
  fn(s);
  if (s.union_of != nullptr) {
    for (const auto& part : s.union_of->parts) WalkQueryBlocks(*part, into_derived, fn);
  }
  if (into_derived) {
    if (s.from_derived.has_value()) WalkQueryBlocks(*s.from_derived->query, into_derived, fn);
    for (const JoinedTable& j : s.joins) {
      if (j.derived.has_value()) WalkQueryBlocks(*j.derived->query, into_derived, fn);
    }
  }
  ForEachExpr(s, [&](const Expr& e) {
    ForEachSubqueryOf(e, [&](const SelectStmt& sub) { WalkQueryBlocks(sub, into_derived, fn); });
  });
}

}  // namespace

void ForEachQueryBlock(const SelectStmt& s, const std::function<void(const SelectStmt&)>& fn) {
  WalkQueryBlocks(s, /*into_derived=*/true, fn);
}

void ForEachSubqueryBlock(const Expr& e, const std::function<void(const SelectStmt&)>& fn) {
  ForEachSubqueryOf(e, [&](const SelectStmt& sub) { ForEachQueryBlock(sub, fn); });
}

void ForEachSubqueryBlockOutsideDerived(const Expr& e,
                                        const std::function<void(const SelectStmt&)>& fn) {
  ForEachSubqueryOf(e, [&](const SelectStmt& sub) { WalkQueryBlocks(sub, false, fn); });
}

void ForEachExprOf(const UpdateStmt& s, const std::function<void(const Expr&)>& fn) {
  if (s.where != nullptr) fn(*s.where);
  for (const JoinedTable& j : s.joins) {
    if (j.on != nullptr) fn(*j.on);
  }
  for (const Assignment& a : s.assignments) {
    if (a.value != nullptr) fn(*a.value);
  }
}

void ForEachExprOf(const DeleteStmt& s, const std::function<void(const Expr&)>& fn) {
  if (s.where != nullptr) fn(*s.where);
  for (const JoinedTable& j : s.joins) {
    if (j.on != nullptr) fn(*j.on);
  }
}

}  // namespace minnow::sql
