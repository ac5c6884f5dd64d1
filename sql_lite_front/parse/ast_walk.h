#pragma once
// Walks and copies of parsed statements (ast.h): the query blocks of a query expression with
// its union parts and subqueries, and deep copies of expressions.

#include <functional>

#include "sql_lite_front/parse/ast.h"

namespace minnow::sql {

// A deep copy of `e` (a subquery's statement is shared, not copied: it is read-only).
ExprPtr CloneExpr(const Expr& e);

// A deep copy of `e` whose column names are unqualified (for a planner that reads one table's
// columns, after binding checked the qualifiers).
ExprPtr UnqualifiedCopy(const Expr& e);

// True for the nodes that hold a subquery: kSubquery, kExists, kQuantified, kIn with one.
inline bool IsSubqueryNode(const Expr& e) { return e.subquery != nullptr; }
// True if `e` holds a subquery at any depth.
bool ContainsSubquery(const Expr& e);
// True if an expression of `s` (or of a union part of it) holds a subquery.
bool HasSubquery(const SelectStmt& s);

// Calls fn for `s` and every query block inside it: each union part, each derived table's
// query and each subquery of their expressions (at any depth), `s` first.
void ForEachQueryBlock(const SelectStmt& s, const std::function<void(const SelectStmt&)>& fn);

// Calls fn for every query block of the subqueries inside `e` (at any depth).
void ForEachSubqueryBlock(const Expr& e, const std::function<void(const SelectStmt&)>& fn);
// The same without the blocks of derived tables' queries, which are materialized before the
// statement reads: the blocks that read their tables while the statement runs.
void ForEachSubqueryBlockOutsideDerived(const Expr& e,
                                        const std::function<void(const SelectStmt&)>& fn);
// Calls fn for each expression of an UPDATE (WHERE, the ON clauses, the assigned values) or a
// DELETE (WHERE, the ON clauses).
void ForEachExprOf(const UpdateStmt& s, const std::function<void(const Expr&)>& fn);
void ForEachExprOf(const DeleteStmt& s, const std::function<void(const Expr&)>& fn);

}  // namespace minnow::sql
