#pragma once
// The diagnostics area as MySQL's read-only session variables show it: @@warning_count is
// the number of conditions (errors, warnings and notes) the last statement that records them
// left (SessionState::diagnostics), @@error_count the number of errors among them. A
// statement reading them sees the previous statement's area; being a SELECT it then clears
// it, as MySQL 8.0 does (SHOW COUNT(*) WARNINGS, a diagnostic statement, does not).

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

uint64_t WarningCount(const std::vector<SqlWarning>& diagnostics);  // every condition
uint64_t ErrorCount(const std::vector<SqlWarning>& diagnostics);    // level "Error"

// True for warning_count and error_count (any case).
bool IsDiagnosticsVariable(std::string_view name);

// @@[scope.]name if `name` is one of them: its value in `diagnostics`, or 1238 "... is a
// SESSION variable" for @@global.; nullopt for any other name.
std::optional<SqlResult<Value>> ReadDiagnosticsVariable(std::string_view name, VarScope scope,
                                                        const std::vector<SqlWarning>& diagnostics);

}  // namespace minnow::sql
