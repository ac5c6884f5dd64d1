#pragma once
// Which metadata locks (Transaction::LockMetadata) a statement takes, as MySQL's MDL:
//   SELECT, INSERT [... SELECT], UPDATE, DELETE, EXPLAIN of them: shared, on each base table
//     they name, held until the transaction ends (autocommit: the statement's end);
//   CREATE/DROP TABLE, CREATE/DROP INDEX, ALTER, TRUNCATE, OPTIMIZE, RENAME: exclusive, on each
//     table they name (RENAME and ALTER ... RENAME: the old and the new names; CREATE TABLE
//     ... LIKE: the source too, where MySQL takes a shared one), for the whole
//     statement (DDL's own transactions take none; CREATE TABLE ... SELECT's reading
//     transaction takes shared ones on the tables it reads, QueryMetadataLockNames);
//   LOCK TABLES: shared on each table, until UNLOCK TABLES;
//   DROP DATABASE: exclusive, on each of its tables;
//   (each labelled with MySQL's lock type, as performance_schema.metadata_locks shows it);
//   CHECK TABLE, ANALYZE TABLE: none here; shared on each table in turn (check_table.h).
// The session takes them before the statement reads a definition from the catalog, so a
// statement that waited for DDL sees the new definition and keyspaces. performance_schema and
// information_schema tables, SHOW and SET take none.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/parse/ast.h"

namespace minnow::sql {

struct MetadataLockRequest {
  std::vector<std::string> names;  // MetadataLockName()s, sorted, no duplicates
  bool exclusive = false;
  // MySQL's LOCK_TYPE and LOCK_DURATION for each name (performance_schema.metadata_locks):
  // SHARED_WRITE for a table the statement writes, SHARED_READ_ONLY / SHARED_NO_READ_WRITE
  // (EXPLICIT) for LOCK TABLES ... READ / WRITE; absent: SHARED_READ, or EXCLUSIVE for DDL.
  std::map<std::string, MetadataLockLabel, std::less<>> labels;
  MetadataLockLabel LabelOf(std::string_view name) const;
};

// "<database>.<table>" lower-cased (TableKey): names compare without case, as the catalog's do.
std::string MetadataLockName(const TableName& table);

// The base tables query `q` reads (its joins', union parts' and subqueries'), as
// MetadataLockName()s, sorted, no duplicates: CREATE TABLE ... SELECT's shared locks, taken by
// the transaction that reads them.
std::vector<std::string> QueryMetadataLockNames(const SelectStmt& q);

class TableCatalog;
// The statement's metadata locks (none for statements that use no table). DROP DATABASE's are
// on the tables `catalog` has in the database.
MetadataLockRequest MetadataLocksFor(const Statement& stmt, const TableCatalog* catalog = nullptr);

}  // namespace minnow::sql
