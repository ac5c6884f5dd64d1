#pragma once
// GROUP BY ... WITH ROLLUP, as MySQL 8.0 answers it. Besides each group's row, the query gives
// a super-aggregate row for every prefix of the GROUP BY list: after the last group of a
// prefix of L values (L from n-1 down to 0 for n GROUP BY columns) comes the row aggregating
// all of them, in which the columns of GROUP BY positions L.. read as NULL (in the select
// list, HAVING and ORDER BY alike). HAVING filters those rows as it filters groups; ORDER BY
// sorts them with the rest; no input row means no row at all. GROUPING(c, ...) tells the
// rows apart: a bit per argument, 1 where the row rolls that GROUP BY column up.
//
// minnow rolls up GROUP BY columns (by name, position or alias); other GROUP BY expressions
// with ROLLUP are refused (1235).

#include <cstdint>
#include <vector>

#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/execute/expr.h"
#include "sql_lite_front/parse/ast.h"

namespace minnow::sql {

// 1235 for a ROLLUP over a GROUP BY expression that is not a column; for GROUPING: 1111
// without ROLLUP, 3602 for an argument that is not a GROUP BY column.
SqlStatus CheckRollup(const SelectStmt& stmt, const std::vector<BoundExpr>& group_by,
                      const std::vector<AggregateSpec>& aggregates);

// GROUPING's arguments as positions in `group_by`. REQUIRES: CheckRollup passed.
std::vector<size_t> GroupingPositions(const AggregateSpec& grouping,
                                      const std::vector<BoundExpr>& group_by);

// GROUPING's value in a row that keeps the first `kept` GROUP BY values.
int64_t GroupingValue(const std::vector<size_t>& positions, size_t kept);

// `representative` with the columns of GROUP BY positions kept.. set to NULL (a column that
// an earlier position also groups by keeps its value).
Row RollupRow(const Row& representative, const std::vector<BoundExpr>& group_by, size_t kept);

}  // namespace minnow::sql
