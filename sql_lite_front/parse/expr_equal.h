#pragma once
// Whether two parsed expressions are the same expression, as MySQL's Item::eq decides when it
// matches an ORDER BY or GROUP BY expression to a select item: the same shape, operators,
// functions and literals, column names compared without regard to case, spacing and the case
// of keywords and function names ignored (`a + 1` is `A+1`, `count(*)` is `COUNT(*)`).

#include "sql_lite_front/parse/ast.h"

namespace minnow::sql {

// A column with no table name matches the same column with one (a single-table scope resolves
// both to one column).
bool SameExpr(const Expr& a, const Expr& b);

}  // namespace minnow::sql
