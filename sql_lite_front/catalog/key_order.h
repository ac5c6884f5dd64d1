#pragma once
// The order of a table's secondary indexes as MySQL keeps a table's keys (sql_table.cc's
// sort_keys, which InnoDB's dictionary and MyISAM's key list follow): UNIQUE indexes whose
// columns are all NOT NULL, then the other UNIQUE ones, then the rest, each group in the order
// the indexes were defined. TableDef::indexes stays in definition order (index positions name
// keyspaces); this is the order a row's entries are written, checked and listed in:
//   - an INSERT or UPDATE writes the entries in it, so of several conflicts the first in key
//     order is the one met (a duplicate on a UNIQUE key before a lock wait on a plain key, the
//     NOT NULL key named in 1062 when two UNIQUE keys clash), as in InnoDB and MyISAM;
//   - SHOW CREATE TABLE, SHOW INDEX and information_schema.STATISTICS list the keys in it.

#include <cstddef>
#include <vector>

#include "sql_lite_front/catalog/table_def.h"

namespace minnow::sql {

// 0: UNIQUE over NOT NULL columns; 1: another UNIQUE index; 2: not UNIQUE.
int KeyOrderRank(const TableDef& def, const IndexDef& ix);

// Positions in def.indexes, in key order.
std::vector<size_t> IndexesInKeyOrder(const TableDef& def);

}  // namespace minnow::sql
