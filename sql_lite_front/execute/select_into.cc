// SELECT ... INTO @a, @b: the read row's values into the session's user variables
// (executor_internal.h).

#include <utility>

#include "sql_lite_front/execute/executor_internal.h"

namespace minnow::sql {

SqlResult<StatementResult> AssignSelectInto(ExecContext& ctx, const SelectStmt& stmt,
                                            SelectOutput out) {
  StatementResult r;
  r.warnings = std::move(out.warnings);
  if (out.rows.empty()) {
    r.warnings.push_back(
        {"Warning", kErSpFetchNoData, "No data - zero rows fetched, selected, or processed"});
    return r;
  }
  // MySQL sets the variables as the first row arrives and fails on the second.
  if (ctx.session != nullptr) {
    for (size_t i = 0; i < stmt.into_vars.size(); ++i) {
      ctx.session->user_vars[stmt.into_vars[i]] = std::move(out.rows[0][i]);
    }
  }
  if (out.rows.size() > 1) return SqlErr(kErTooManyRows, "Result consisted of more than one row");
  r.affected_rows = 1;
  return r;
}

}  // namespace minnow::sql
