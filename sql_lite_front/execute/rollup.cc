// GROUP BY ... WITH ROLLUP (rollup.h).

#include "sql_lite_front/execute/rollup.h"

#include <string>

namespace minnow::sql {
namespace {

// The GROUP BY position of column `column`, or -1.
int GroupPosition(int column, const std::vector<BoundExpr>& group_by) {
  for (size_t j = 0; j < group_by.size(); ++j) {
    if (group_by[j].kind == BoundExpr::Kind::kColumn && group_by[j].column == column)
      return static_cast<int>(j);
  }
  return -1;
}

}  // namespace

SqlStatus CheckRollup(const SelectStmt& stmt, const std::vector<BoundExpr>& group_by,
                      const std::vector<AggregateSpec>& aggregates) {
  if (stmt.rollup) {
    for (const BoundExpr& g : group_by) {
      if (g.kind != BoundExpr::Kind::kColumn)
        return SqlErr(kErNotSupportedYet,
                      "This version of minnow doesn't yet support 'WITH ROLLUP of GROUP BY "
                      "expressions other than columns'");
    }
  }
  for (const AggregateSpec& a : aggregates) {
    if (a.func != AggFunc::kGrouping) continue;
    if (!stmt.rollup) return SqlErr(kErInvalidGroupFuncUse, "Invalid use of group function");
    for (size_t i = 0; i < a.concat_args.size(); ++i) {
      const BoundExpr& arg = a.concat_args[i];
      if (arg.kind != BoundExpr::Kind::kColumn || GroupPosition(arg.column, group_by) < 0)
        return SqlErr(kErFieldInGroupingNotGroupBy, "Argument #", std::to_string(i + 1),
                      " of GROUPING function is not in GROUP BY");
    }
  }
  return SqlStatus::OK();
}

std::vector<size_t> GroupingPositions(const AggregateSpec& grouping,
                                      const std::vector<BoundExpr>& group_by) {
  std::vector<size_t> out;
  for (const BoundExpr& arg : grouping.concat_args)
    out.push_back(static_cast<size_t>(GroupPosition(arg.column, group_by)));
  return out;
}

int64_t GroupingValue(const std::vector<size_t>& positions, size_t kept) {
  int64_t bits = 0;
  for (size_t p : positions) bits = (bits << 1) | (p >= kept ? 1 : 0);
  return bits;
}

Row RollupRow(const Row& representative, const std::vector<BoundExpr>& group_by, size_t kept) {
  Row row = representative;
  for (size_t j = kept; j < group_by.size(); ++j) {
    const int c = group_by[j].column;
    const int first = GroupPosition(c, group_by);
    if (first >= 0 && static_cast<size_t>(first) >= kept && static_cast<size_t>(c) < row.size())
      row[static_cast<size_t>(c)] = Value::Null();
  }
  return row;
}

}  // namespace minnow::sql
