// Subqueries in expressions (subquery.h).

#include "sql_lite_front/execute/subquery.h"

#include <algorithm>

#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/parse/ast_walk.h"
#include "sql_lite_front/parse/row_constructor.h"

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

// The columns IN's operand has ((a, b) IN (SELECT ...): 2), and so the subquery must return;
// 1 for the other nodes but EXISTS.
size_t OperandWidth(const Expr& e) { return e.kind == Expr::Kind::kIn ? RowWidth(*e.args[0]) : 1; }

SqlError OperandColumns(const Expr& e) {
  return SqlErr(kErOperandColumns, "Operand should contain ", std::to_string(OperandWidth(e)),
                " column(s)");
}

// A row of literals, one per value (a row constructor when there are several).
ExprPtr LiteralRow(const std::vector<Value>& row, const std::string& text) {
  if (row.size() == 1) return LiteralExpr(row[0], text);
  auto r = std::make_unique<Expr>();
  r->kind = Expr::Kind::kRow;
  for (const Value& v : row) r->args.push_back(LiteralExpr(v, text));
  r->text = text;
  return r;
}

// A row operand's elements compare with the subquery's columns: rows inside it are 1241.
SqlStatus CheckRowOperand(const Expr& e) {
  if (e.kind != Expr::Kind::kIn || e.args[0]->kind != Expr::Kind::kRow) return SqlStatus::OK();
  for (const ExprPtr& a : e.args[0]->args) {
    if (a->kind == Expr::Kind::kRow)
      return SqlErr(kErOperandColumns, "Operand should contain 1 column(s)");
  }
  return SqlStatus::OK();
}

SqlStatus CheckListLimit(const Expr& e) {
  SQL_RETURN_IF_ERROR(CheckRowOperand(e));
  const bool list = e.kind == Expr::Kind::kIn || e.kind == Expr::Kind::kQuantified;
  if (list && e.subquery->limit.has_value()) {
    return SqlErr(kErNotSupportedYet,
                  "This version of minnow doesn't yet support 'LIMIT & IN/ALL/ANY/SOME "
                  "subquery'");
  }
  return SqlStatus::OK();
}

// Equal for reuse of a run's rows: the same kind and the same value (only the kinds whose
// equality is plain to tell; others always run again).
bool SameArg(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::kNull:
      return true;
    case Value::Kind::kInt:
      return a.as_int() == b.as_int();
    case Value::Kind::kUInt:
      return a.as_uint() == b.as_uint();
    case Value::Kind::kString:
      return a.as_string() == b.as_string();
    default:
      return false;
  }
}

// A correlated subquery node's runtime: its block run with the outer references' values.
class CorrelatedRun final : public CorrelatedSubquery {
 public:
  CorrelatedRun(const ExecContext& ctx, const Expr& e, const BindScope& scope,
                std::vector<size_t> columns, std::optional<LockMode> lock, size_t row_width = 0)
      : ctx_(ctx),
        query_(e.subquery),
        kind_(e.kind),
        op_(e.binary_op),
        all_(e.kind == Expr::Kind::kQuantified && e.quantifier_all),
        negated_(e.kind == Expr::Kind::kIn && e.negated),
        operand_width_(
            e.kind == Expr::Kind::kSubquery || e.kind == Expr::Kind::kExists ? 0 : OperandWidth(e)),
        columns_(std::move(columns)),
        lock_(lock),
        row_width_(row_width) {
    // The blocks' scopes, kept for the runs (those bound by the caller may move or end).
    for (const BindScope* s : ctx.outer_scopes) scopes_.push_back(NameScope(*s));
    scopes_.push_back(NameScope(scope));
    ctx_.outer_scopes.clear();
    for (const std::unique_ptr<BindScope>& s : scopes_) ctx_.outer_scopes.push_back(s.get());
    ctx_.outer_refs = nullptr;
    ctx_.subqueries = nullptr;
  }

  Value Evaluate(const std::vector<Value>& args, const Collation& c, EvalState& st) const override {
    if (!Refresh(args, st)) return Value::Null();
    switch (kind_) {
      case Expr::Kind::kSubquery:
        if (rows_.size() > 1) {
          if (!st.error.has_value())
            st.error = SqlErr(kErSubqueryNo1Row, "Subquery returns more than 1 row");
          return Value::Null();
        }
        return rows_.empty() ? Value::Null() : rows_[0][0];
      case Expr::Kind::kExists:
        return Value::Int(rows_.empty() ? 0 : 1);
      default:
        return Quantified(args, c);
    }
  }

  std::vector<Value> EvaluateRow(const std::vector<Value>& args, EvalState& st) const override {
    std::vector<Value> nulls(row_width_, Value::Null());
    if (!Refresh(args, st)) return nulls;
    if (rows_.size() > 1) {
      if (!st.error.has_value())
        st.error = SqlErr(kErSubqueryNo1Row, "Subquery returns more than 1 row");
      return nulls;
    }
    return rows_.empty() ? nulls : rows_[0];
  }

 private:
  // Runs the block for the outer values in args (after the operand's), unless the last run
  // had the same; false (the error in st) if it failed.
  bool Refresh(const std::vector<Value>& args, EvalState& st) const {
    const size_t first = operand_width_;
    bool same = ran_ && last_.size() + first == args.size();
    for (size_t i = first; same && i < args.size(); ++i) same = SameArg(last_[i - first], args[i]);
    if (same) return true;
    ExecContext sub = ctx_;
    const size_t depth = scopes_.size() - 1;
    for (size_t i = 0; i < columns_.size(); ++i)
      sub.outer_values.push_back({{depth, columns_[i]}, args[first + i]});
    // Its own subqueries are bound afresh: their outer references' values change per run.
    sub.subqueries = std::make_shared<SubqueryResolver>(lock_);
    SqlResult<SelectOutput> out = RunSelect(sub, *query_, lock_);
    if (!out.ok()) {
      if (!st.error.has_value()) st.error = out.error();
      ran_ = false;
      return false;
    }
    for (SqlWarning& w : out->warnings) st.warnings.push_back(std::move(w));
    rows_ = std::move(out->rows);
    last_.assign(args.begin() + static_cast<std::ptrdiff_t>(first), args.end());
    ran_ = true;
    return true;
  }

  // The parts of a scope that name resolution reads.
  static std::unique_ptr<BindScope> NameScope(const BindScope& s) {
    auto c = std::make_unique<BindScope>();
    c->table = s.table;
    c->alias = s.alias;
    c->schema = s.schema;
    c->columns = s.columns;
    c->collations = s.collations;
    c->join_tables = s.join_tables;
    for (BindScope::JoinTable& t : c->join_tables) t.visible = true;
    c->merged_into = s.merged_into;
    return c;
  }

  // x IN / op ANY / op ALL over the rows' values, in SQL's three-valued logic (x IN is
  // = ANY, NOT IN its negation; no row: ANY false, ALL true).
  // A row operand (args[0 .. operand_width_)) is = a row when each element is (three-valued:
  // AND of the elements' comparisons).
  Value Quantified(const std::vector<Value>& x, const Collation& c) const {
    const BinaryOp op = kind_ == Expr::Kind::kIn ? BinaryOp::kEq : op_;
    bool saw_null = false;
    for (const std::vector<Value>& row : rows_) {
      Value r = Value::Int(1);
      for (size_t i = 0; i < operand_width_; ++i) {
        Value ri = CompareValues(op, x[i], row[i], c);
        if (ri.is_null()) {
          r = Value::Null();
        } else if (!ri.IsTrue()) {
          r = std::move(ri);
          break;
        }
      }
      if (r.is_null()) {
        saw_null = true;
      } else if (r.IsTrue() != all_) {
        return Value::Int(negated_ ? all_ : !all_);  // decided: ANY true, ALL false
      }
    }
    if (saw_null) return Value::Null();
    return Value::Int(negated_ ? !all_ : all_);
  }

  ExecContext ctx_;
  std::vector<std::unique_ptr<BindScope>> scopes_;
  std::shared_ptr<const SelectStmt> query_;
  Expr::Kind kind_;
  BinaryOp op_;
  bool all_, negated_;
  size_t operand_width_;  // the operand's args: 0 (scalar subquery, EXISTS), 1, a row's width
  std::vector<size_t> columns_;  // of the innermost scope, the args after the operand
  std::optional<LockMode> lock_;
  size_t row_width_;  // a row subquery's select list width (0: not one)
  // The last run's outer values and rows.
  mutable bool ran_ = false;
  mutable std::vector<Value> last_;
  mutable std::vector<std::vector<Value>> rows_;
};

}  // namespace

SqlResult<SubqueryResolver::Correlation> SubqueryResolver::Discover(const ExecContext& ctx,
                                                                    const SelectStmt& q,
                                                                    const BindScope& scope) {
  ExecContext sub = ctx;
  sub.outer_scopes.push_back(&scope);
  std::vector<ExecContext::OuterColumn> refs;
  sub.outer_refs = &refs;
  sub.subqueries = std::make_shared<SubqueryResolver>(lock_, /*describe_only=*/true);
  SQL_ASSIGN_OR_RETURN(QueryColumns c, DescribeQuery(sub, q));
  Correlation out;
  out.width = c.names.size();
  const size_t depth = ctx.outer_scopes.size();
  for (const ExecContext::OuterColumn& r : refs) {
    if (r.depth == depth) {
      out.columns.push_back(r.column);
    } else if (ctx.outer_refs != nullptr &&
               std::find(ctx.outer_refs->begin(), ctx.outer_refs->end(), r) ==
                   ctx.outer_refs->end()) {
      ctx.outer_refs->push_back(r);
    }
  }
  return out;
}

SqlResult<SubqueryResolver::Bound> SubqueryResolver::Bind(const ExecContext& ctx, const Expr& e,
                                                          const BindScope& scope) {
  SQL_RETURN_IF_ERROR(CheckListLimit(e));
  Bound b;
  if (results_.find(e.subquery.get()) == results_.end()) {
    SQL_ASSIGN_OR_RETURN(Correlation c, Discover(ctx, *e.subquery, scope));
    if (!c.columns.empty()) {
      if (e.kind != Expr::Kind::kExists && c.width != OperandWidth(e)) return OperandColumns(e);
      b.correlated = std::make_shared<CorrelatedRun>(ctx, e, scope, c.columns, lock_);
      b.outer_columns = std::move(c.columns);
      return b;
    }
  }
  SQL_ASSIGN_OR_RETURN(b.resolved, Resolve(ctx, e, scope));
  return b;
}

SqlResult<size_t> SubqueryResolver::Width(const ExecContext& ctx, const Expr& e,
                                          const BindScope& scope) {
  auto it = results_.find(e.subquery.get());
  if (it != results_.end()) return it->second.columns;
  SQL_ASSIGN_OR_RETURN(Correlation c, Discover(ctx, *e.subquery, scope));
  return c.width;
}

SqlResult<SubqueryResolver::Bound> SubqueryResolver::BindRow(const ExecContext& ctx, const Expr& e,
                                                             const BindScope& scope, size_t width) {
  Bound b;
  const auto wrong_width = [&] {
    return SqlErr(kErOperandColumns, "Operand should contain ", std::to_string(width),
                  " column(s)");
  };
  if (results_.find(e.subquery.get()) == results_.end()) {
    SQL_ASSIGN_OR_RETURN(Correlation c, Discover(ctx, *e.subquery, scope));
    if (c.width != width) return wrong_width();
    if (!c.columns.empty()) {
      b.correlated = std::make_shared<CorrelatedRun>(ctx, e, scope, c.columns, lock_, width);
      b.outer_columns = std::move(c.columns);
      return b;
    }
  }
  SQL_ASSIGN_OR_RETURN(const Rows* r, Run(ctx, *e.subquery, scope));
  if (r->columns != width) return wrong_width();
  if (r->rows.size() > 1) return SqlErr(kErSubqueryNo1Row, "Subquery returns more than 1 row");
  const std::vector<Value> row =
      r->rows.empty() ? std::vector<Value>(width, Value::Null()) : r->rows[0];
  ExprPtr out = std::make_unique<Expr>();
  out->kind = Expr::Kind::kRow;
  for (const Value& v : row) out->args.push_back(LiteralExpr(v, e.text));
  out->text = e.text;
  made_.push_back(std::move(out));
  b.resolved = made_.back().get();
  return b;
}

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
  SQL_RETURN_IF_ERROR(CheckListLimit(e));
  SQL_ASSIGN_OR_RETURN(const Rows* r, Run(ctx, *e.subquery, scope));
  if (e.kind != Expr::Kind::kExists && r->columns != OperandWidth(e)) return OperandColumns(e);
  ExprPtr out;
  std::vector<Value> values;
  if (e.kind == Expr::Kind::kIn && e.args[0]->kind == Expr::Kind::kRow) {
    // (a, b) [NOT] IN (SELECT x, y ...): the rows as row constructors, compared as IN lists.
    if (r->rows.empty()) {
      out = LiteralExpr(Value::Int(e.negated), e.text);
    } else {
      std::vector<ExprPtr> rows;
      std::vector<const Expr*> list;
      for (const std::vector<Value>& row : r->rows) {
        rows.push_back(LiteralRow(row, e.text));
        list.push_back(rows.back().get());
      }
      if (IsVolatile(*e.args[0])) {
        // An operand that may change is evaluated once: an IN list of rows binding compares.
        out = std::make_unique<Expr>();
        out->kind = Expr::Kind::kIn;
        out->negated = e.negated;
        out->args.push_back(CloneExpr(*e.args[0]));
        for (ExprPtr& r : rows) out->args.push_back(std::move(r));
        out->text = e.text;
      } else {
        out = RowInList(*e.args[0], list, e.negated, e.text);
      }
    }
    made_.push_back(std::move(out));
    return made_.back().get();
  }
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
  if (MayCompareRows(**node)) {
    Expr& cmp = **node;
    size_t widths[2];
    for (size_t i = 0; i < 2; ++i) {
      const Expr& side = *cmp.args[i];
      widths[i] = RowWidth(side);
      if (side.kind == Expr::Kind::kSubquery) {
        SQL_ASSIGN_OR_RETURN(widths[i], Width(ctx, side, scope));
      }
    }
    const bool rows = widths[0] > 1 || widths[1] > 1 || cmp.args[0]->kind == Expr::Kind::kRow ||
                      cmp.args[1]->kind == Expr::Kind::kRow;
    if (rows) {
      if (widths[0] != widths[1])
        return SqlErr(kErOperandColumns, "Operand should contain ", std::to_string(widths[0]),
                      " column(s)");
      for (ExprPtr& side : cmp.args) {
        if (side->kind == Expr::Kind::kSubquery) {
          SQL_ASSIGN_OR_RETURN(Bound b, BindRow(ctx, *side, scope, widths[0]));
          if (b.resolved != nullptr) side = CloneExpr(*b.resolved);
        } else {
          SQL_RETURN_IF_ERROR(ResolveInPlace(ctx, &side, scope));
        }
      }
      // = <=> <> name each element once: their scalar form is what the planner reads.
      const bool single = cmp.binary_op == BinaryOp::kEq ||
                          cmp.binary_op == BinaryOp::kNullSafeEq || cmp.binary_op == BinaryOp::kNe;
      if (single && cmp.args[0]->kind == Expr::Kind::kRow &&
          cmp.args[1]->kind == Expr::Kind::kRow && SameRowShape(*cmp.args[0], *cmp.args[1]))
        *node = RowComparison(cmp.binary_op, *cmp.args[0], *cmp.args[1], cmp.text);
      return SqlStatus::OK();
    }
  }
  if (IsSubqueryNode(**node)) {
    SQL_ASSIGN_OR_RETURN(Bound b, Bind(ctx, **node, scope));
    if (b.resolved != nullptr) *node = CloneExpr(*b.resolved);
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
