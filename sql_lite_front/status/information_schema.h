#pragma once
// information_schema.TABLES, COLUMNS, SCHEMATA, STATISTICS and TRIGGERS (always empty: minnow
// has no triggers) with MySQL 8.0's columns in its order, from the live catalog: the figures SHOW
// TABLE STATUS / SHOW COLUMNS / SHOW INDEX / SHOW DATABASES print (catalog_figures.h), as typed
// values (integers where MySQL has numbers, NULL where SHOW prints NULL). Every database's
// tables are listed (TABLE_TYPE 'BASE TABLE'); SCHEMATA lists ListedDatabases.

#include <optional>
#include <string_view>
#include <vector>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/status/status_views.h"

namespace minnow::sql {

// The catalog view `table` (lower case: "tables", "columns", "schemata", "statistics",
// "triggers"), or nullopt if `table` is none of them.
SqlResult<std::optional<SystemTable>> ReadCatalogView(ExecContext& ctx, std::string_view table);

// The databases SHOW DATABASES and SCHEMATA list, sorted by name: MySQL 8.0's system schemas
// (information_schema, mysql, performance_schema, sys: only information_schema's and
// performance_schema's tables can be read) and the catalog's.
std::vector<DatabaseDef> ListedDatabases(const TableCatalog& catalog);

}  // namespace minnow::sql
