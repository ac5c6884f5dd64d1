#pragma once
// The catalog's figures as SHOW TABLE STATUS / SHOW COLUMNS / SHOW INDEX and
// information_schema.TABLES / COLUMNS / STATISTICS both give them: gathered once here, printed
// as text by show_catalog.cc and as typed values by information_schema.cc.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql_lite_front/catalog/table_def.h"
#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/sql_error.h"

namespace minnow::sql {

// One table's SHOW TABLE STATUS row. InnoDB: counts from the live trees
// (Database::InspectKeyspace; Data_free the database's free pages); MyISAM: the heap table's
// exact figures (HeapTable::stats, taking no table lock).
struct TableFigures {
  std::string schema, name, engine;
  std::string row_format;  // "Compact"; MyISAM "Fixed" or "Dynamic"
  uint64_t rows = 0, avg_row_length = 0, data_length = 0, max_data_length = 0, index_length = 0,
           data_free = 0;
  std::optional<uint64_t> auto_increment;  // the next value; nullopt without AUTO_INCREMENT
  int64_t create_time = 0;                 // unix seconds
  std::string collation, create_options;
};

// The figures of the catalog's tables whose names `want` accepts, in TableNames() order; a
// table dropped meanwhile is left out.
SqlResult<std::vector<TableFigures>> GatherTableFigures(
    ExecContext& ctx, const std::function<bool(const TableName&)>& want);

// SHOW COLUMNS' Key: PRI for primary key columns; UNI for the column of a one-column UNIQUE
// index; MUL for the first column of another secondary index (MySQL's order of precedence).
std::string KeyFlag(const TableDef& def, uint32_t column);
// SHOW COLUMNS' Default: nullopt when there is none or it is NULL.
std::optional<std::string> ColumnDefaultText(const ColumnDef& col);
// SHOW FULL COLUMNS' Collation: CHAR/VARCHAR/TEXT columns', else nullopt.
std::optional<std::string> ColumnCollationName(const ColumnDef& col);
// SHOW COLUMNS' Extra.
std::string ColumnExtra(const ColumnDef& col);

// One row of SHOW INDEX: an index's column.
struct IndexPart {
  std::string key_name;  // "PRIMARY" or the index's
  bool unique = false;
  uint32_t seq = 0;     // 1-based Seq_in_index
  uint32_t column = 0;  // position in TableDef::columns
};
// SHOW INDEX's rows in its order: PRIMARY, then the UNIQUE keys, then the others.
std::vector<IndexPart> IndexParts(const TableDef& def);

}  // namespace minnow::sql
