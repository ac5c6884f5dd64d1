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
#include "sql_lite_front/sql_error.h"

namespace minnow::sql {

// 0: UNIQUE over NOT NULL columns; 1: another UNIQUE index; 2: not UNIQUE.
int KeyOrderRank(const TableDef& def, const IndexDef& ix);

// Positions in def.indexes, in key order.
std::vector<size_t> IndexesInKeyOrder(const TableDef& def);

// Calls fn(i) for each position i of def.indexes in key order, stopping at the first status
// that is not OK and returning it. Builds nothing: a row's write path calls it for every row.
template <typename Fn>  // SqlStatus fn(size_t)
SqlStatus ForEachIndexInKeyOrder(const TableDef& def, Fn&& fn) {
  for (int rank = 0; rank < 3; ++rank) {
    for (size_t i = 0; i < def.indexes.size(); ++i) {
      if (KeyOrderRank(def, def.indexes[i]) != rank) continue;
      SQL_RETURN_IF_ERROR(fn(i));
    }
  }
  return SqlStatus::OK();
}

}  // namespace minnow::sql
