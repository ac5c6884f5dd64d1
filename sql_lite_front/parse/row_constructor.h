#pragma once
// Row constructors, (a, b) and ROW(a, b), compared as MySQL compares rows (Arg_comparator's
// compare_row), written as the scalar comparisons they stand for so that binding, the planner
// and the locking reads see nothing new:
//   (a1, a2) =  (b1, b2)   a1 = b1 AND a2 = b2          (<=>: a1 <=> b1 AND a2 <=> b2)
//   (a1, a2) <> (b1, b2)   a1 <> b1 OR a2 <> b2
//   (a1, a2) <  (b1, b2)   a1 < b1 OR (a1 = b1 AND a2 < b2)   (<=, >, >= alike; the last
//                                                             element takes the operator)
//   r IN (r1, r2)          r = r1 OR r = r2             (NOT IN: NOT (...))
// SQL's three-valued AND and OR give MySQL's NULL rules: = is NULL when no element differs
// and one is NULL; <, <=, >, >= are NULL when the first NULL comes before any difference.
// Elements may be rows themselves (compared the same way). Rows whose widths differ are left
// as written; binding then raises 1241 (RowShapeError).

#include <optional>
#include <string>
#include <vector>

#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/sql_error.h"

namespace minnow::sql {

// How many columns `e` has: a row's elements, else 1.
size_t RowWidth(const Expr& e);

// True if `a` and `b` have the same width, element by element at every depth (scalars: both
// are scalars).
bool SameRowShape(const Expr& a, const Expr& b);

// True for a comparison (= <=> <> < <= > >=) that may compare rows: an operand is a row
// constructor, or the left one a subquery (whose width binding learns).
bool MayCompareRows(const Expr& e);

// True if `e` may give another value each time it is evaluated (RAND(), UUID(), SYSDATE(), a
// user variable assignment, a subquery): a row comparison that would name such an element
// twice (< <= > >=) is left as written and compares the rows element by element.
bool IsVolatile(const Expr& e);

// `l op r` (op one of = <=> <> < <= > >=) for two operands of the same shape, at least one
// of them a row, as scalar comparisons. Every node made carries `text`.
ExprPtr RowComparison(BinaryOp op, const Expr& l, const Expr& r, const std::string& text);

// `l [NOT] IN (list...)`, list of l's shape, as RowComparison's equalities joined by OR.
ExprPtr RowInList(const Expr& l, const std::vector<const Expr*>& list, bool negated,
                  const std::string& text);

// 1241 "Operand should contain N column(s)" for the first element of `others` whose shape is
// not `first`'s (N: the width `first`'s part has where they differ), or nullopt if all fit.
std::optional<SqlError> RowShapeError(const Expr& first, const std::vector<const Expr*>& others);

}  // namespace minnow::sql
