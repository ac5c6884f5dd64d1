#pragma once
// The static type class of bound expressions, and the result type of the functions that pick
// one of several values (CASE, IF, IFNULL, COALESCE, NULLIF), as MySQL aggregates it:
//   - NULL branches do not count; any string branch makes the result a string;
//   - else any double (or a string read as a number in arithmetic) makes it a double;
//   - else any decimal makes it a decimal, with the most digits after the point of any branch
//     (IF(c, 1, 1.50) is 1.00 when c is true);
//   - else an integer.
// The value a branch gives is then converted to that type (CASE ... THEN 1 ELSE 'a' END is
// the string '1'). A branch whose type binding cannot tell (TypeClass::kUnknown) leaves the
// result as the branch gives it, unless another branch is a string.

#include <vector>

#include "sql_lite_front/execute/expr.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

// Sets b->type and b->scale from its kind and its arguments' types (bound before it).
// Columns take theirs from scope.column_types.
void InferType(BoundExpr* b, const BindScope& scope);
// Sets out->type and out->scale to what `branches` aggregate to (the rules above), as a
// UNION's column aggregates its parts' columns.
void AggregateType(const std::vector<const BoundExpr*>& branches, BoundExpr* out);
// The type class of a value (a literal's).
TypeClass TypeOfValue(const Value& v);
// `v` converted to `e`'s type class and scale (a kDecimal of fewer digits after the point gets
// e.scale; integers become decimals or doubles; numbers become strings as they print).
Value CoerceToType(Value v, const BoundExpr& e);

}  // namespace minnow::sql
