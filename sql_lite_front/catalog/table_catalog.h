#pragma once
// The SQL catalog: the databases and table definitions, kept in the database file in the
// keyspace "$sql_tables", and the open tables' handles and counters in memory. A table's record:
// key "<database>/<table>" lower-cased ("<table>" alone for a table in `test`, as files from
// before databases have them), value SerializeTableDef. A database's record: key "!<database>"
// lower-cased, value SerializeDatabaseDef; the record "!" says the databases are recorded (a
// file without it, from before databases, has just `test`: the first writable open records it).
//
// CREATE DATABASE commits its record. DROP DATABASE is one catalog transaction that removes the
// database's record and every record of its tables (journaling their storage, as DROP TABLE
// does), then drops the storage: a crash leaves either the whole database or none of it.
//
// DDL is made safe against crashes by order, not by one transaction (keyspaces are created and
// dropped outside transactions): CREATE makes the keyspaces, then commits the catalog record;
// DROP commits the removal of the record, then drops the keyspaces; Open drops any keyspace
// that no table names (what a crash between the two steps leaves). So a table is either all
// there or not at all. Which keyspaces are the SQL front's to drop is journaled, so a keyspace
// some other user of the KV API made is never touched: before a keyspace is created, an intent
// record "#<keyspace>" is committed in "$sql_tables"; the commit that names the keyspace in a
// table record erases it, and the commit that stops naming one (DROP, the switch of an ALTER)
// writes it again until the keyspace is dropped. Open drops every keyspace with an intent
// record that no table names.
//
// Thread safety: all methods are thread-safe. Find returns a snapshot (shared_ptr): a table
// replaced by ALTER or dropped stays readable through an old snapshot until its keyspaces go
// (then the engine returns kInvalidArgument for the old handles: the statement fails with 1146).

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/latch.h"
#include "minnow/db.h"
#include "minnow/table_lock_engine.h"
#include "sql_lite_front/catalog/table_def.h"
#include "sql_lite_front/sql_error.h"

namespace minnow::sql {

inline constexpr const char* kCatalogKeyspace = "$sql_tables";
// The file's keyspaces that are no table's: the catalog's own and minnowd's accounts
// (server/account_store.h). NewKeyspaceName never hands them out, whether they exist yet or not
// (a table `$users` made before minnowd first ran must not take the accounts' name).
inline constexpr std::string_view kSystemKeyspaces[] = {"$sql_tables", "$users"};

// A database (MySQL's schema) and its defaults for the tables made in it.
struct DatabaseDef {
  std::string name;  // as created
  std::string charset = "utf8mb4";
  std::string collation = "utf8mb4_0900_ai_ci";
};

// Per open table: counters kept in memory, set from the data when the table is opened.
struct TableCounters {
  // Guards the two counters once the table is published in the catalog. Not GUARDED_BY: they
  // are set without it before that (opening the catalog, CREATE TABLE, copy-ALTER), which the
  // analysis cannot tell from a race.
  Latch latch;
  uint64_t next_auto_inc = 1;  // the next AUTO_INCREMENT value (max in the table + 1, or the
                               // table's AUTO_INCREMENT= start)
  uint64_t next_row_id = 1;    // the next hidden DB_ROW_ID
};

struct OpenTable {
  TableDef def;
  Keyspace clustered;             // row-locking tables
  std::vector<Keyspace> indexes;  // same order as def.indexes
  HeapTable heap;                 // table-locking tables (def.table_locking())
  std::shared_ptr<TableCounters> counters;
  // A derived table's rows (execute/derived_table.h): it has no storage; null for a table.
  std::shared_ptr<const std::vector<std::vector<Value>>> materialized;
};

// A heap table's name in the lists of storage a table uses and in intent records: "@<name>"
// ('@' cannot start a keyspace name).
inline constexpr char kHeapStoragePrefix = '@';

// What `def`'s rows live in: the clustered keyspace and each index's (row-locking), or
// "@<def.keyspace>", its heap table (table-locking).
std::vector<std::string> StorageNamesOf(const TableDef& def);
// Opens the handles of `def`'s storage into `*table` (sets def too; counters untouched). 1105
// if some of it is missing.
SqlStatus OpenTableStorage(Database* db, const TableDef& def, OpenTable* table);

class TableCatalog {
 public:
  // Loads the catalog of `db` (creating "$sql_tables" on first use), drops orphan keyspaces
  // (see above), and opens every table (counters from each table's last key). 1105 on a damaged
  // record.
  static SqlResult<std::unique_ptr<TableCatalog>> Open(Database* db);

  // The table named `name` (case-insensitive), or null.
  std::shared_ptr<const OpenTable> Find(const TableName& name) const;
  // The tables' names as created, sorted by database, then table (by their lower-cased forms);
  // only those in database `schema` when it is not empty.
  std::vector<TableName> TableNames(std::string_view schema = {}) const;

  // The database named `name` (case-insensitive), or nullopt.
  std::optional<DatabaseDef> FindDatabase(std::string_view name) const;
  // Every database, sorted by lower-cased name.
  std::vector<DatabaseDef> Databases() const;
  // Commits the database's record. 1007 if it exists, 1102 for a bad name.
  SqlStatus CreateDatabase(const DatabaseDef& def);
  // Commits the new defaults of database def.name (its name as created is kept). 1049 if it
  // does not exist.
  SqlStatus AlterDatabase(const DatabaseDef& def);
  // Drops database `name` and all its tables (see above). 1008 if absent. Waits (the engine's
  // X table locks) for transactions holding locks on its tables; 1205 after their timeout,
  // then nothing changed. REQUIRES: the caller holds exclusive metadata locks on every table.
  SqlStatus DropDatabase(std::string_view name);

  // Creates the keyspaces def.keyspace and each index's keyspace (the caller names them; see
  // NewKeyspaceName), then commits the catalog record. 1050 if the table exists, 1103 for a
  // bad name, 1049 if def.schema does not exist; on any error nothing is left behind.
  // With `txn` (CREATE TABLE ... SELECT's own transaction) the record is written in it and
  // commits with the rows: until then the table is in memory only, a crash leaves its storage
  // to Open's orphan drop, and a rolled-back `txn` is undone by DropUncommittedTable.
  SqlStatus CreateTable(const TableDef& def, Transaction* txn = nullptr);
  // Undoes CreateTable(def, txn) after `txn` rolled back (its record and intent erasures are
  // gone with it): forgets the table and drops its storage. 1051 if no such table.
  SqlStatus DropUncommittedTable(const TableName& name);
  // For a DDL that fills new keyspaces before ReplaceTable names them: journals them (see
  // above), then creates them in order. Each name but `table_keyspace` is created as a secondary
  // index of the keyspace `table_keyspace` (KeyspaceOptions::secondary_of: its table locks are
  // the table's, its writes lock implicitly), which must exist or come first in `names`. On an
  // error none is left.
  SqlStatus CreateKeyspaces(const std::vector<std::string>& names, const KeyspaceOptions& options,
                            std::string_view table_keyspace);
  // The storage of `def` (StorageNamesOf; the caller named it), journaled as CreateKeyspaces
  // does: its keyspaces, or its heap table with HeapSpecOf(def)'s indexes.
  SqlStatus CreateStorage(const TableDef& def);
  // Commits the record's removal, then drops the keyspaces. 1051 if absent. Waits (the engine's
  // X table lock) for transactions holding locks on the table; 1205 after their timeout.
  SqlStatus DropTable(const TableName& name);
  // ALTER/OPTIMIZE/CREATE INDEX: `def` (with its keyspaces, already created and filled by the
  // caller) replaces the table named def.name, in memory at once and in the catalog record:
  // written in `txn` when given (the copy's own transaction, so the record commits with the
  // copied rows: a crash before that commit leaves the old table and orphan new keyspaces),
  // else committed in a transaction of its own. The counters carry over. The old keyspaces
  // are not dropped here (the caller's copy transaction still holds locks on them): the caller
  // drops them with DropKeyspaces once `txn` has committed, or on failure calls ReplaceTable
  // with the old definition to switch back. 1146 if the table is absent.
  SqlStatus ReplaceTable(const TableDef& def, Transaction* txn = nullptr);
  // RENAME TABLE: the pairs (from, to) in order, each seeing the ones before it done (so
  // "a TO tmp, b TO a, tmp TO b" swaps), as one catalog transaction: every table's record
  // moves to its new name or none does. The storage keeps its names (a keyspace's name is not
  // its table's), the counters carry over; a table may move to another database. 1050 if a
  // target exists at its step (checked first, as MySQL), 1146 if a source does not, 1049 if a
  // target's database does not exist, 1103 for a bad name: then nothing changes.
  // REQUIRES: the caller holds exclusive metadata locks on every name.
  SqlStatus RenameTables(const std::vector<std::pair<TableName, TableName>>& renames);
  // Drops keyspaces (and "@" heap tables) no table names any more (absent ones are skipped)
  // and their intent records;
  // 1205 if a lock wait on one timed out (what is left is dropped at the next Open).
  SqlStatus DropKeyspaces(const std::vector<std::string>& names);
  // A keyspace name not in use (nor in `also_taken`: names the caller picked but has not
  // created yet, nor one of kSystemKeyspaces): "<base>" if free, else "<base>$<n>", the base cut
  // short so the name fits the engine's 64 characters (a long "<table>.<index>" becomes "<its first
  // 61 chars>$2").
  std::string NewKeyspaceName(std::string_view base,
                              const std::vector<std::string>& also_taken = {}) const;

  // For performance_schema.data_locks: the table and index a keyspace belongs to ("PRIMARY" or
  // "GEN_CLUST_INDEX" for a clustered index). False if no table names it ("$sql_tables" ...).
  bool DescribeKeyspace(std::string_view keyspace, TableName* table, std::string* index) const;

  Database* db() const { return db_; }

 private:
  explicit TableCatalog(Database* db) : db_(db) {}
  // Runs `change` on the catalog keyspace in `txn`, or in a transaction of its own (committed).
  SqlStatus Change(Transaction* txn, const std::function<Status(Transaction*)>& change);
  SqlResult<std::shared_ptr<OpenTable>> OpenHandles(const TableDef& def);
  Database* const db_;
  Latch ddl_latch_;  // one catalog change at a time (taken before latch_)
  mutable Latch latch_;
  std::vector<std::shared_ptr<const OpenTable>> tables_ GUARDED_BY(latch_);
  std::vector<DatabaseDef> databases_ GUARDED_BY(latch_);
  Keyspace catalog_ks_;
};

}  // namespace minnow::sql
