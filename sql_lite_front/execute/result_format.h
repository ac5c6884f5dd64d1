#pragma once
// Printing statement results as the mysql client and mysqltest do.

#include <string>

#include "sql_lite_front/sql_engine.h"

namespace minnow::sql {

// The mysql client's table:
//   +---+------+
//   | i | j    |
//   +---+------+
//   | 1 | NULL |
//   +---+------+
// Numbers (values that parse fully as numbers) are right-aligned, as the client does for
// numeric columns; widths count UTF-8 characters.
std::string FormatTable(const StatementResult& r);
// \G: "*************************** 1. row ***************************" then "name: value"
// with names right-aligned.
std::string FormatVertical(const StatementResult& r);
// --batch: a tab-separated header line, then one line per row, NULL as "NULL", tabs, newlines
// and backslashes in values escaped as \t \n \\ (mysql -B).
std::string FormatBatch(const StatementResult& r);
// The summary line: "3 rows in set (0.01 sec)", "Empty set (0.00 sec)", "Query OK, 1 row
// affected (0.00 sec)" + "\nRecords: ..." info line when present + warnings count.
std::string FormatSummary(const StatementResult& r);

}  // namespace minnow::sql
