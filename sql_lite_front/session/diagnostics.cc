#include "sql_lite_front/session/diagnostics.h"

#include <algorithm>

#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {

uint64_t WarningCount(const std::vector<SqlWarning>& diagnostics) { return diagnostics.size(); }

uint64_t ErrorCount(const std::vector<SqlWarning>& diagnostics) {
  return static_cast<uint64_t>(
      std::count_if(diagnostics.begin(), diagnostics.end(),
                    [](const SqlWarning& w) { return w.level == "Error"; }));
}

bool IsDiagnosticsVariable(std::string_view name) {
  return EqualsNoCase(name, "warning_count") || EqualsNoCase(name, "error_count");
}

std::optional<SqlResult<Value>> ReadDiagnosticsVariable(
    std::string_view name, VarScope scope, const std::vector<SqlWarning>& diagnostics) {
  if (!IsDiagnosticsVariable(name)) return std::nullopt;
  if (scope == VarScope::kGlobal) {
    return SqlResult<Value>(
        SqlErr(kErVariableIsReadonly, "Variable '", ToLowerAscii(name), "' is a SESSION variable"));
  }
  const uint64_t n =
      EqualsNoCase(name, "warning_count") ? WarningCount(diagnostics) : ErrorCount(diagnostics);
  return SqlResult<Value>(Value::Int(static_cast<int64_t>(n)));
}

}  // namespace minnow::sql
