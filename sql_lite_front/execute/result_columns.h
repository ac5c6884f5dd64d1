#pragma once
// A query's result columns as column definitions, and queries run into typed rows: what a
// derived table (FROM (SELECT ...) d) makes its columns of.
//
// The types are MySQL's (its tmp-table field types):
//   - a bare column keeps its column's definition (type, length, collation, NOT NULL, DEFAULT;
//     not AUTO_INCREMENT, which becomes DEFAULT '0' as MySQL's copy shows it); a column of a
//     LEFT JOIN's inner table may be NULL;
//   - an integer literal is INT NOT NULL (BIGINT when it does not fit 32 bits), other integer
//     expressions BIGINT, COUNT() BIGINT NOT NULL;
//   - a string literal VARCHAR(its characters) NOT NULL in the connection collation; CONCAT of
//     string columns and literals VARCHAR(the sum of their lengths);
//   - a decimal literal DECIMAL(its digits, its digits after the point) NOT NULL;
//   - DATE '...' DATE NOT NULL, TIMESTAMP '...' DATETIME(its fsp) NOT NULL;
//   - MIN() and MAX() of a column the column's type (NULL allowed);
//   - a double literal or expression DOUBLE.
// Other expressions (minnow does not derive MySQL's length or precision for them) get the
// nearest type of their type class: BIGINT, DECIMAL(65, scale), DOUBLE, DATETIME(6) or TEXT in
// their collation. A derived table's column types steer comparisons and the result's metadata
// only: its values are kept as the query gave them.

#include <optional>
#include <vector>

#include "sql_lite_front/catalog/table_def.h"
#include "sql_lite_front/execute/executor_internal.h"

namespace minnow::sql {

// The definitions of `p`'s result columns, named as p.names.
std::vector<ColumnDef> ResultColumnDefs(const PreparedSelect& p);

// A query's rows with its result columns' definitions.
struct TypedRows {
  std::vector<ColumnDef> columns;
  std::vector<std::vector<Value>> rows;
  std::vector<SqlWarning> warnings;
};
// Runs `q` (a query block or a UNION) once; `lock` as RunSelect's. A UNION's columns get the
// nearest type of what their parts' type classes aggregate to (expr_type.h).
SqlResult<TypedRows> RunTypedQuery(ExecContext& ctx, const SelectStmt& q,
                                   std::optional<LockMode> lock);

}  // namespace minnow::sql
