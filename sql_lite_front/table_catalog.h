#pragma once
// The SQL catalog: the table definitions, kept in the database file in the keyspace
// "$sql_tables" (key = table name lower-cased, value = SerializeTableDef), and the open tables'
// handles and counters in memory.
//
// DDL is made safe against crashes by order, not by one transaction (keyspaces are created and
// dropped outside transactions): CREATE makes the keyspaces, then commits the catalog record;
// DROP commits the removal of the record, then drops the keyspaces; Open drops any keyspace
// that no table names (what a crash between the two steps leaves). So a table is either all
// there or not at all.
//
// Thread safety: all methods are thread-safe. Find returns a snapshot (shared_ptr): a table
// replaced by ALTER or dropped stays readable through an old snapshot until its keyspaces go
// (then the engine returns kInvalidArgument for the old handles: the statement fails with 1146).

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/table_def.h"

namespace minnow::sql {

inline constexpr const char* kCatalogKeyspace = "$sql_tables";
// The one schema (database) minnow has: "Table 'test.t' doesn't exist", OBJECT_SCHEMA, USE test.
inline constexpr const char* kSchemaName = "test";

// Per open table: counters kept in memory, set from the data when the table is opened.
struct TableCounters {
  std::mutex latch;            // guards the two counters
  uint64_t next_auto_inc = 1;  // the next AUTO_INCREMENT value (max in the table + 1, or the
                               // table's AUTO_INCREMENT= start)
  uint64_t next_row_id = 1;    // the next hidden DB_ROW_ID
};

struct OpenTable {
  TableDef def;
  Keyspace clustered;
  std::vector<Keyspace> indexes;  // same order as def.indexes
  std::shared_ptr<TableCounters> counters;
};

class TableCatalog {
 public:
  // Loads the catalog of `db` (creating "$sql_tables" on first use), drops orphan keyspaces
  // (see above), and opens every table (counters from each table's last key). 1105 on a damaged
  // record.
  static SqlResult<std::unique_ptr<TableCatalog>> Open(Database* db);

  // The table named `name` (case-insensitive), or null.
  std::shared_ptr<const OpenTable> Find(std::string_view name) const;
  // Names, sorted, as created.
  std::vector<std::string> TableNames() const;

  // Creates the keyspaces def.keyspace and each index's keyspace (the caller names them; see
  // NewKeyspaceName), then commits the catalog record. 1050 if the table exists; on any error
  // nothing is left behind.
  SqlStatus CreateTable(const TableDef& def);
  // Commits the record's removal, then drops the keyspaces. 1051 if absent. Waits (the engine's
  // X table lock) for transactions holding locks on the table; 1205 after their timeout.
  SqlStatus DropTable(std::string_view name);
  // ALTER/OPTIMIZE: `def` (with new keyspaces, already filled by the caller) replaces the
  // table named def.name; the old keyspaces are dropped. The counters carry over.
  SqlStatus ReplaceTable(const TableDef& def);
  // A keyspace name not in use: "<base>" if free, else "<base>$<n>".
  std::string NewKeyspaceName(std::string_view base) const;

  // For performance_schema.data_locks: the table and index a keyspace belongs to ("PRIMARY" or
  // "GEN_CLUST_INDEX" for a clustered index). False if no table names it ("$sql_tables" ...).
  bool DescribeKeyspace(std::string_view keyspace, std::string* table, std::string* index) const;

  Database* db() const { return db_; }

 private:
  explicit TableCatalog(Database* db) : db_(db) {}
  Database* const db_;
  mutable std::mutex latch_;  // guards tables_
  std::vector<std::shared_ptr<const OpenTable>> tables_;
  Keyspace catalog_ks_;
};

}  // namespace minnow::sql
