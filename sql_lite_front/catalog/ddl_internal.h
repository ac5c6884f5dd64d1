#pragma once
// What ddl.cc, ddl_alter.cc, ddl_draft.cc and ddl_copy.cc share.
//
// A DDL statement edits a TableDraft (columns, and keys by column *name*, so adding, dropping
// and moving columns needs no renumbering), then FinishDraft checks it as MySQL would and makes
// the TableDef. Statements that move rows hand the old table and the new definition to
// CopyTable (ALTER, OPTIMIZE, TRUNCATE) or BuildIndex (CREATE INDEX).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/parse/lexer.h"  // EqualsNoCase
#include "sql_lite_front/sql_engine.h"

namespace minnow::sql {

struct TableDraft {
  struct Column {
    ColumnDef def;
    int source = -1;       // the old table's column it copies (ALTER), or -1 for a new one
    bool changed = false;  // a new definition (MODIFY/CHANGE): values are converted
  };
  struct Index {
    std::string name;
    std::vector<std::string> columns;
    bool unique = false;
  };
  std::string name;
  std::vector<Column> columns;
  std::optional<std::vector<std::string>> primary_key;  // column names; nullopt: none
  std::vector<Index> indexes;
  TableDef options;  // engine, charset, collation, compression, max_rows, auto_increment_start
  bool auto_increment_set = false;  // AUTO_INCREMENT= was given in this statement
  // sql_mode without NO_ENGINE_SUBSTITUTION: an unknown ENGINE= is a warning, not 1286.
  bool substitute_engine = false;
  bool creating = false;  // CREATE TABLE (a substituted engine: InnoDB, warning 1266)
};

// The session's sql_mode lacks NO_ENGINE_SUBSTITUTION.
bool SubstitutesEngine(const ExecContext& ctx);

// A draft of the table `def` as it is (for ALTER).
TableDraft DraftOf(const TableDef& def);

// Adds a column (its inline PRIMARY KEY too: 1068 if the draft has one; inline UNIQUE: 1235).
// `position`: where it goes (columns.size() for the end).
SqlStatus AddDraftColumn(TableDraft* d, const ColumnSpec& spec, size_t position);
// Adds PRIMARY KEY / KEY / INDEX (1068, 1235 for UNIQUE, 1061 duplicate name; an unnamed
// index is named after its first column, then "_2", "_3", ... as MySQL does).
SqlStatus AddDraftIndex(TableDraft* d, const IndexSpec& spec);
// A table option (ENGINE=, CHARSET=, COMPRESSION=, ...): 1286 for an unknown engine (a
// warning when d->substitute_engine: CREATE then adds 1266 and keeps InnoDB, ALTER keeps the
// table's engine).
SqlStatus ApplyTableOption(TableDraft* d, const std::pair<std::string, std::string>& option,
                           std::vector<SqlWarning>* warnings);
// Checks the draft (1060, 1072, 1170, 1075, 1063, 1067, 1071, 1059, 1166, 1070) and makes the
// definition, without keyspaces.
SqlResult<TableDef> FinishDraft(const TableDraft& d);

// CREATE TABLE's last step: checks the draft (FinishDraft) and creates the table `stmt` names.
// False (with note 1050 in `result`) if it exists already, created meanwhile, and stmt says
// IF NOT EXISTS. With `txn`, the table's catalog record is written in it (TableCatalog::
// CreateTable): the caller commits it, or rolls it back and calls DropUncommittedTable.
SqlResult<bool> CreateDraftedTable(ExecContext& ctx, const CreateTableStmt& stmt,
                                   const TableDraft& d, StatementResult* result,
                                   Transaction* txn = nullptr);
// CREATE TABLE ... SELECT (ddl_create_select.cc): `d` holds the CREATE part's columns, keys
// and options (their warnings in `result`); runs the query, adds its columns, creates the
// table and fills it, all or nothing.
SqlResult<StatementResult> ExecuteCreateTableSelect(ExecContext& ctx, const CreateTableStmt& stmt,
                                                    TableDraft d, StatementResult result);

// For a DDL that keeps the table's rows where they are (CREATE/DROP INDEX in place, INSTANT):
// `def` keeps the clustered keyspace of `old` and the row format its rows are stored in
// (core_columns, record_format).
void KeepClusteredStorage(const TableDef& old, TableDef* def);

// Names def's keyspaces afresh ("<table>", "<table>.<index>", or with "$<n>" when taken).
void NameKeyspaces(const TableCatalog& catalog, TableDef* def);
// A fresh keyspace name for index `index_name` of the table whose clustered keyspace is
// `table_keyspace` (characters a keyspace name cannot hold become '_'), not in `taken`.
std::string IndexKeyspaceName(const TableCatalog& catalog, const std::string& table_keyspace,
                              const std::string& index_name, const std::vector<std::string>& taken);

// The column positions of the new table that copy the old one's, and how (from a draft).
struct ColumnMapping {
  std::vector<int> source;    // per new column: old position, or -1
  std::vector<bool> convert;  // per new column: CoerceToColumn the value
};

// Rebuilds `old` as `def` (fresh keyspaces, already named) by copy: reads every row in key
// order (none when `truncate`) with share record locks, or none when the session's
// alter_copy_lock_rows is OFF (REQUIRES: the caller holds the table's exclusive metadata
// lock), converts them, bulk-loads the new keyspaces,
// switches the catalog before the copy commits, then drops the old keyspaces. On an error the
// old table is untouched and nothing new is left. Returns the rows copied.
SqlResult<uint64_t> CopyTable(ExecContext& ctx, const OpenTable& old, const TableDef& def,
                              const ColumnMapping& mapping, bool truncate);

// Builds the index def.indexes[index] (its keyspace named, not created) of the table `old`
// from its rows, and switches the catalog to `def`.
SqlStatus BuildIndex(ExecContext& ctx, const OpenTable& old, const TableDef& def, size_t index);

// The transaction options of DDL's own transactions (the session's lock wait timeout).
TransactionOptions DdlTransactionOptions(const ExecContext& ctx);

// 1146 "Table 'test.x' doesn't exist".
SqlError NoSuchTable(const TableName& name);

// The result of a table-maintenance statement (OPTIMIZE, CHECK) as MySQL's mysql_admin_table
// sends it: Table | Op | Msg_type | Msg_text, some rows per table named (Table "test.<name as
// written>"), the last of them its status.
class AdminResult {
 public:
  explicit AdminResult(std::string_view op);
  void Add(const TableName& table, std::string_view msg_type, std::string msg_text);
  // A table the statement could not open (missing, not locked, a lock wait timeout): the error's
  // row ("Error"), then "status" / "Operation failed" (MySQL's HA_ADMIN_FAILED).
  void AddFailed(const TableName& table, const SqlError& error);
  StatementResult Take() { return std::move(result_); }
  const std::string& operation() const { return op_; }  // "check", "analyze", ...

 private:
  std::string op_;
  StatementResult result_;
};

// "Records: N  Duplicates: 0  Warnings: W"
std::string RecordsInfo(uint64_t records, size_t warnings);

// 1846 (SQLSTATE 0A000): "<what> is not supported. Reason: <reason>. Try <instead>."
SqlError NotSupportedReason(std::string_view what, std::string_view reason,
                            std::string_view instead);
// The ALGORITHM= (upper-cased, or empty) and LOCK= clauses of an ALTER, CREATE INDEX or DROP
// INDEX: OK when minnow does what they ask, else 1846. `index_only`: the statement adds or drops
// one secondary index, which minnow does in place.
SqlStatus CheckAlgorithmAndLock(std::string_view algorithm, std::string_view lock, bool index_only);

}  // namespace minnow::sql
