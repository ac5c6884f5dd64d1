#pragma once
// Subqueries in expressions, as MySQL evaluates them. An uncorrelated one runs once per
// statement, when its expression is first bound, and the expression then stands for what it
// returned:
//   (SELECT ...)                  its one value; NULL for no row, 1242 for more than one
//   EXISTS (SELECT ...)           1 or 0
//   x [NOT] IN (SELECT ...)       x [NOT] IN (v1, ..., vn); for no row 0 (NOT IN: 1), even for
//                                 a NULL x
//   x op ANY | SOME (SELECT ...)  (x op v1) OR ... OR (x op vn); 0 for no row (= ANY: IN)
//   x op ALL (SELECT ...)         (x op v1) AND ... AND (x op vn); 1 for no row (<> ALL: NOT IN)
// so SQL's NULL rules are those of IN, OR and AND. A subquery's select list must have one
// column (1241) except under EXISTS; IN/ANY/ALL refuse a subquery's LIMIT (1235, as MySQL).
// A name the subquery resolves only in an enclosing query block (an outer reference; the
// innermost block that has the name wins) makes it correlated: it is bound once to learn which
// outer columns it reads, then run again for each row of the block around it that reads it,
// with those columns' values as constants (the last row's result is reused while they stay
// the same), and stands for the same things as above, from that run's rows; a scalar one's
// 1242 is raised by the row that has it.
//
// Locking: a subquery's blocks read as their own locking clause says (a SELECT ... FOR UPDATE
// does not lock its subqueries' rows, as MySQL 8.0), unless the resolver was made with a lock
// mode for them (INSERT ... SELECT's share reads).

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "sql_lite_front/execute/expr.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/storage/table_engine.h"

namespace minnow::sql {

class SubqueryResolver {
 public:
  // lock: every subquery block's lock mode, or nullopt for their own clauses. describe_only:
  // subqueries are bound but never run (DescribeSelect): each reads as if it returned no row.
  explicit SubqueryResolver(std::optional<LockMode> lock, bool describe_only = false)
      : lock_(lock), describe_only_(describe_only) {}

  // What subquery node `e` (IsSubqueryNode) stands for (the table above), its subquery bound
  // inside `scope` (the enclosing block's). The expression lives as long as the resolver.
  SqlResult<const Expr*> Resolve(const ExecContext& ctx, const Expr& e, const BindScope& scope);
  // Subquery node `e` bound inside `scope`: uncorrelated, what Resolve gives (resolved); else
  // its runtime (correlated), evaluated per row of `scope` with the node's operand (IN, ANY,
  // ALL) and then the columns of `scope` at outer_columns as args (expr.h). The scope's
  // copies made for the runtime are read when it runs, so `ctx.outer_scopes` may go away.
  struct Bound {
    const Expr* resolved = nullptr;
    std::shared_ptr<const CorrelatedSubquery> correlated;
    std::vector<size_t> outer_columns;
  };
  SqlResult<Bound> Bind(const ExecContext& ctx, const Expr& e, const BindScope& scope);
  // Row subqueries, (a, b) op (SELECT x, y ...): the select list's width of subquery node `e`
  // (a kSubquery) bound inside `scope`.
  SqlResult<size_t> Width(const ExecContext& ctx, const Expr& e, const BindScope& scope);
  // `e` compared with a row of `width` columns (1241 when its select list has another
  // width): uncorrelated, `resolved` is its one row as a row constructor of literals (NULLs
  // for no row; 1242 for more than one); else `correlated` is its runtime, whose EvaluateRow
  // gives the row per outer row (the outer columns' values its args, outer_columns).
  SqlResult<Bound> BindRow(const ExecContext& ctx, const Expr& e, const BindScope& scope,
                           size_t width);
  // A copy of `e` with every uncorrelated subquery node replaced by what it stands for (for
  // the planner, which reads literals); correlated ones stay. A row comparison with a row
  // subquery gets its row of literals (and, for = <=> <>, the element comparisons that
  // row_constructor.h writes for it).
  SqlResult<ExprPtr> ResolveTree(const ExecContext& ctx, const Expr& e, const BindScope& scope);

 private:
  struct Rows {
    size_t columns = 0;
    std::vector<std::vector<Value>> rows;
  };
  // The subquery's rows, run once.
  SqlResult<const Rows*> Run(const ExecContext& ctx, const SelectStmt& q, const BindScope& scope);
  // The columns of `scope` that `q` (bound inside it) reads as outer references, and its
  // select list's width. References to blocks further out are noted in ctx.outer_refs.
  struct Correlation {
    std::vector<size_t> columns;
    size_t width = 0;
  };
  SqlResult<Correlation> Discover(const ExecContext& ctx, const SelectStmt& q,
                                  const BindScope& scope);
  SqlStatus ResolveInPlace(const ExecContext& ctx, ExprPtr* node, const BindScope& scope);

  std::optional<LockMode> lock_;
  bool describe_only_;
  std::map<const SelectStmt*, Rows> results_;
  std::vector<ExprPtr> made_;
};

}  // namespace minnow::sql
