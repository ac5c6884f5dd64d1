#pragma once
// Uncorrelated subqueries in expressions, as MySQL evaluates them: each runs once per
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
// A name the subquery resolves only in an enclosing query block makes it correlated: 1235.
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
  // A copy of `e` with every subquery node replaced by what it stands for (for the planner,
  // which reads literals).
  SqlResult<ExprPtr> ResolveTree(const ExecContext& ctx, const Expr& e, const BindScope& scope);

 private:
  struct Rows {
    size_t columns = 0;
    std::vector<std::vector<Value>> rows;
  };
  // The subquery's rows, run once.
  SqlResult<const Rows*> Run(const ExecContext& ctx, const SelectStmt& q, const BindScope& scope);
  SqlStatus ResolveInPlace(const ExecContext& ctx, ExprPtr* node, const BindScope& scope);

  std::optional<LockMode> lock_;
  bool describe_only_;
  std::map<const SelectStmt*, Rows> results_;
  std::vector<ExprPtr> made_;
};

}  // namespace minnow::sql
