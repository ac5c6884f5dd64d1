#pragma once
// information_schema.TABLES, COLUMNS, SCHEMATA, STATISTICS and TRIGGERS (always empty: minnow
// has no triggers) with MySQL 8.0's columns in its order, from the live catalog: the figures SHOW
// TABLE STATUS / SHOW COLUMNS / SHOW INDEX / SHOW DATABASES print (catalog_figures.h), as typed
// values (integers where MySQL has numbers, NULL where SHOW prints NULL). Only the `test` schema's
// tables are listed (TABLE_TYPE 'BASE TABLE'); SCHEMATA lists information_schema,
// performance_schema and test.

#include <optional>
#include <string_view>

#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/status/status_views.h"

namespace minnow::sql {

// The catalog view `table` (lower case: "tables", "columns", "schemata", "statistics",
// "triggers"), or nullopt if `table` is none of them.
SqlResult<std::optional<SystemTable>> ReadCatalogView(ExecContext& ctx, std::string_view table);

}  // namespace minnow::sql
