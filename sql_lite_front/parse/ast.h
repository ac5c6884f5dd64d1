#pragma once
// The parsed form of one SQL statement (parser.h makes it). Names are as written (without
// backquotes); keywords are matched case-insensitively by the parser, names keep their case.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "sql_lite_front/catalog/table_def.h"
#include "sql_lite_front/catalog/table_name.h"
#include "sql_lite_front/parse/insert_values.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

// ---- expressions
enum class BinaryOp : uint8_t {
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kNullSafeEq,  // = <> (and !=) < <= > >= <=>
  kAnd,
  kOr,
  kXor,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kIntDiv,
  kMod,  // + - * / DIV % (and MOD)
};
enum class UnaryOp : uint8_t { kNot, kNeg };
// @@x, @@global.x, @@session.x; kUser: @x, a user variable (name lower-cased, as MySQL's
// user variable names are case-insensitive).
enum class VarScope : uint8_t { kDefault, kGlobal, kSession, kUser };

// What CAST and CONVERT convert to.
struct CastTarget {
  enum class Type : uint8_t {
    kSigned,
    kUnsigned,
    kChar,
    kBinary,
    kDecimal,
    kDouble,
    kDate,
    kDateTime,
    kTime,
  };
  Type type = Type::kSigned;
  int64_t length = -1;  // CHAR(n) / BINARY(n); -1 when not given; DATETIME(fsp), TIME(fsp)
  int precision = 10, scale = 0;  // DECIMAL(m[, d])
  // CONVERT(x USING cs), CHAR CHARACTER SET cs: cs lower-cased; empty: the connection's.
  std::string charset;
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
struct SelectStmt;

// A derived table, FROM (query) [AS] alias [(column, ...)]: the query and its column names
// (empty: the query's own). Its TableName is the alias, with an empty schema.
struct DerivedTable {
  std::shared_ptr<const SelectStmt> query;
  std::vector<std::string> columns;
};

struct Expr {
  enum class Kind : uint8_t {
    kLiteral,   // value
    kColumn,    // [table.]column: table, name
    kStar,      // * inside count(*)
    kUnary,     // unary_op args[0]
    kBinary,    // args[0] binary_op args[1]
    kBetween,   // args[0] [NOT] BETWEEN args[1] AND args[2]
    kIn,        // args[0] [NOT] IN (args[1..])
    kLike,      // args[0] [NOT] LIKE args[1]
    kIsNull,    // args[0] IS [NOT] NULL
    kFunction,  // name(args...): md5, rand, count, sum, min, max, avg, group_concat,
                // concat, now, ...; name lower-cased; distinct for count(DISTINCT x)
    // @@[global.|session.]name or @name: var_scope, name (lower-cased); @name := args[0]
    // when it has an arg (an assignment, whose value is the value assigned).
    kVariable,
    // CASE [args[0]] WHEN w THEN r ... [ELSE e] END: case_operand says whether args[0] is the
    // operand, case_else whether the last arg is ELSE's; between them WHEN/THEN pairs.
    kCase,
    // CAST(args[0] AS type), CONVERT(args[0], type), CONVERT(args[0] USING cs): cast
    kCast,
    // Subqueries (subquery holds the query): kSubquery is a scalar (SELECT ...); kExists is
    // EXISTS (SELECT ...); kQuantified is args[0] binary_op {ANY | SOME | ALL} (SELECT ...)
    // (quantifier_all for ALL); kIn with a subquery is args[0] [NOT] IN (SELECT ...).
    kSubquery,
    kExists,
    kQuantified,
    // A row constructor (args[0], args[1], ...) or ROW(...). The parser turns comparisons and
    // IN lists of rows into their scalar forms (row_constructor.h); a row is left in the tree
    // only as the operand of IN (SELECT ...), or where its width does not fit (binding: 1241).
    kRow,
  };
  Kind kind = Kind::kLiteral;
  Value value;  // kLiteral
  // kLiteral: X'..' or 0x.. (a binary string, read as a number in a numeric context).
  bool hex_literal = false;
  // kLiteral: a prepared statement's '?' placeholder, its 0-based position; `value` is what
  // the latest execution bound to it (parse/prepared_parse.h). -1: a literal as written.
  int32_t param = -1;
  std::string table, name;  // kColumn (table may be empty), kFunction, kVariable
  std::string schema;       // kColumn: db.t.c's db, or empty
  BinaryOp binary_op = BinaryOp::kEq;
  UnaryOp unary_op = UnaryOp::kNot;
  VarScope var_scope = VarScope::kDefault;
  bool negated = false;                          // NOT BETWEEN / NOT IN / NOT LIKE / IS NOT NULL
  bool distinct = false;                         // count(DISTINCT ...)
  bool case_operand = false, case_else = false;  // kCase
  CastTarget cast;                               // kCast
  bool quantifier_all = false;                   // kQuantified: ALL (else ANY / SOME)
  std::shared_ptr<const SelectStmt> subquery;    // kSubquery, kExists, kQuantified, kIn
  std::vector<ExprPtr> args;
  // group_concat(args [ORDER BY order_by] [SEPARATOR separator]): order_desc per key.
  std::vector<ExprPtr> order_by;
  std::vector<bool> order_desc;
  std::string separator = ",";
  // Where the expression starts in the statement's text, and its text as written
  // ("count(i)"), which MySQL uses as the column name of an unnamed select item.
  std::string text;
};

// ---- SELECT
enum class RowLockClause : uint8_t {
  kNone,
  kShare,
  kUpdate
};  // LOCK IN SHARE MODE / FOR SHARE, FOR UPDATE

// A locking clause's NOWAIT / SKIP LOCKED (MySQL's Locked_row_action).
enum class LockedRowAction : uint8_t { kWait, kNoWait, kSkipLocked };

struct SelectItem {
  ExprPtr expr;             // null for * (all columns) or t.*
  std::string alias;        // AS alias, or empty
  std::string star_table;   // t.*: t (a table name or alias); empty for a bare *
  std::string star_schema;  // db.t.*: db; empty otherwise
};

struct OrderItem {
  ExprPtr expr;
  bool desc = false;
};

// INSERT/UPDATE/DELETE LOW_PRIORITY, INSERT HIGH_PRIORITY: the table lock a MyISAM table's
// write takes (session/table_locks.h); InnoDB tables take no such lock.
enum class WritePriority : uint8_t { kDefault, kLow, kHigh };

// A table joined to what comes before it in FROM, as written (joins nest to the left; a comma
// starts a new operand, which binds looser than JOIN, so ON sees only the tables since it).
struct JoinedTable {
  // comma, CROSS JOIN, [INNER] JOIN: kInner; LEFT [OUTER], RIGHT [OUTER]; STRAIGHT_JOIN.
  enum class Kind : uint8_t { kInner, kLeft, kRight, kStraight };
  Kind kind = Kind::kInner;
  bool comma = false;  // joined by ',' (starts a new operand)
  TableName table;
  std::string alias;
  std::optional<DerivedTable> derived;     // a derived table (table.name is its alias)
  ExprPtr on;                              // ON e, or null
  std::vector<std::string> using_columns;  // USING (a, ...), or empty
  // The locking clause that names this table (or has no OF), as SelectStmt::lock.
  RowLockClause lock = RowLockClause::kNone;
  LockedRowAction locked_row = LockedRowAction::kWait;
};

// parts[0] UNION [ALL | DISTINCT] parts[1] ...: each part a query block or a parenthesized
// query expression (itself a union, or one part with its own ORDER BY / LIMIT).
struct UnionSpec {
  std::vector<std::unique_ptr<SelectStmt>> parts;
  // distinct[i]: the UNION between parts[i] and parts[i + 1] is DISTINCT (the default).
  std::vector<bool> distinct;
};

struct SelectStmt {
  // A query expression over `union_of`'s parts: then items, FROM, WHERE, GROUP BY, HAVING and
  // DISTINCT are empty, and ORDER BY, LIMIT and INTO apply to the union's rows (named as the
  // first part names them). Null for a query block.
  std::unique_ptr<UnionSpec> union_of;
  std::vector<SelectItem> items;
  bool high_priority = false;  // SELECT HIGH_PRIORITY (MyISAM: READ_HIGH_PRIORITY)
  bool distinct = false;       // SELECT DISTINCT / DISTINCTROW (NULLs equal, collations)
  // "SQL_NO_CACHE" or "SQL_CACHE" as given (no effect; MySQL 8.0 warns 1681), or empty.
  std::string deprecated_cache_option;
  bool calc_found_rows = false;   // SQL_CALC_FOUND_ROWS (deprecated: MySQL 8.0 warns 1287)
  std::optional<TableName> from;  // SELECT without FROM: SELECT 1, SELECT @@autocommit, ...
  std::string from_alias;
  std::optional<DerivedTable> from_derived;  // FROM (query) alias: `from` names the alias
  std::vector<JoinedTable> joins;            // the tables after `from`, in FROM order
  bool straight_join = false;  // SELECT STRAIGHT_JOIN: the tables are read in FROM order
  ExprPtr where;
  std::vector<ExprPtr> group_by;  // accepted only where MySQL would give the same answer
  bool rollup = false;            // GROUP BY ... WITH ROLLUP
  // HAVING e, or null: names outside aggregates are select items (by alias or column) or
  // GROUP BY columns, as MySQL resolves them.
  ExprPtr having;
  std::vector<OrderItem> order_by;
  std::optional<uint64_t> limit;
  uint64_t offset = 0;
  // LIMIT ? / OFFSET ?: the placeholders' positions, whose values set limit and offset before
  // each execution (parse/prepared_parse.h); -1 when written as numbers.
  int32_t limit_param = -1, offset_param = -1;
  // The locking clauses resolved against the FROM table (joins: each JoinedTable has its
  // own): the strength and what a locked row does (FOR ... NOWAIT / SKIP LOCKED; LOCK IN
  // SHARE MODE waits).
  RowLockClause lock = RowLockClause::kNone;
  LockedRowAction locked_row = LockedRowAction::kWait;
  // SELECT ... INTO @a, @b (lower-cased names): the one row's values go to these user
  // variables and the statement returns no result set. Empty: an ordinary SELECT.
  std::vector<std::string> into_vars;
};

// ---- DML
struct Assignment {
  std::string schema;  // db.t.col's db, or empty
  std::string table;   // t.col's t (a table name or alias), or empty
  std::string column;
  ExprPtr value;  // null: DEFAULT
};

struct InsertStmt {
  TableName table;
  std::vector<std::string> columns;    // empty: all columns in table order
  InsertValues rows;                   // VALUES (...), (...) or SET's one row
  std::unique_ptr<SelectStmt> select;  // INSERT ... SELECT
  bool ignore = false;                 // INSERT IGNORE: a duplicate row is skipped (1062 warning)
  bool replace = false;                // REPLACE INTO: a duplicate's rows are deleted first
  WritePriority priority = WritePriority::kDefault;
  // VALUES (...) AS row_alias [(column_aliases)]: MySQL 8's name for the row being inserted.
  std::string row_alias;
  std::vector<std::string> column_aliases;
  std::vector<Assignment> on_duplicate;  // ON DUPLICATE KEY UPDATE col = e, ...
};

// A multi-table UPDATE or DELETE reads its tables as a SELECT's FROM does: `table [alias]`
// then `joins` (execute/multi_table_write.h).
struct UpdateStmt {
  TableName table;
  std::string alias;                         // the (first) table's alias, or empty
  std::optional<DerivedTable> from_derived;  // the first table is (query) alias: `table` names it
  std::vector<JoinedTable> joins;            // multi-table UPDATE a JOIN b ... / UPDATE a, b ...
  bool multi_table() const { return !joins.empty(); }
  WritePriority priority = WritePriority::kDefault;  // LOW_PRIORITY
  // UPDATE IGNORE: a row whose new keys are taken stays as it was (1062 warning), and bad
  // values are converted with warnings in strict mode too.
  bool ignore = false;
  std::vector<Assignment> assignments;
  ExprPtr where;
  std::vector<OrderItem> order_by;
  std::optional<uint64_t> limit;
  int32_t limit_param = -1;  // LIMIT ?, as SelectStmt's
};

struct DeleteStmt {
  TableName table;
  // Multi-table DELETE t1[.*], ... FROM refs / DELETE FROM t1[.*], ... USING refs: the tables
  // deleted from (names or aliases of refs, as written), refs being `table [alias]` and `joins`.
  bool multi_table = false;
  std::vector<TableName> targets;
  std::string alias;                         // the (first) table's alias, or empty
  std::optional<DerivedTable> from_derived;  // as UpdateStmt's
  std::vector<JoinedTable> joins;
  WritePriority priority = WritePriority::kDefault;  // LOW_PRIORITY
  // DELETE IGNORE: accepted; no error minnow's DELETE can raise is one MySQL's IGNORE turns
  // into a warning (those come from foreign keys and subqueries), so it deletes as DELETE.
  bool ignore = false;
  ExprPtr where;
  std::vector<OrderItem> order_by;
  std::optional<uint64_t> limit;
  int32_t limit_param = -1;  // LIMIT ?, as SelectStmt's
};

// ---- DDL
struct ColumnSpec {
  ColumnDef def;               // name, type, length, unsigned, nullable, auto_increment, default
  bool primary_key = false;    // inline PRIMARY KEY
  bool unique = false;         // inline UNIQUE [KEY]
  bool explicit_null = false;  // NULL written
};

struct IndexSpec {
  std::string name;                  // may be empty (named after its first column)
  std::vector<std::string> columns;  // (col [(len)] [ASC|DESC], ...): names only
  bool primary = false, unique = false;
};

// ENGINE=, [DEFAULT] CHARSET=, COLLATE=, COMPRESSION=, MAX_ROWS=, AUTO_INCREMENT=, ROW_FORMAT=,
// COMMENT=: name upper-cased, value as written.
using TableOptions = std::vector<std::pair<std::string, std::string>>;

struct CreateTableStmt {
  TableName name;
  bool if_not_exists = false;
  std::vector<ColumnSpec> columns;
  std::vector<IndexSpec> indexes;  // PRIMARY KEY (...), KEY/INDEX, UNIQUE [KEY]
  TableOptions options;
  std::unique_ptr<SelectStmt> as_select;  // CREATE TABLE ... [IGNORE | REPLACE] [AS] SELECT
  bool ignore = false, replace = false;   // ... IGNORE / REPLACE: a duplicate key's row
  TableName like;  // CREATE TABLE t LIKE source / (LIKE source): the source (name empty if not)
};

struct DropTableStmt {
  std::vector<TableName> names;
  bool if_exists = false;
};

struct CreateIndexStmt {
  IndexSpec index;
  TableName table;
  std::string algorithm;  // upper-cased; empty if not given
  std::string lock;       // LOCK=NONE|SHARED|EXCLUSIVE|DEFAULT, or empty
};

struct DropIndexStmt {
  std::string name;
  TableName table;
  std::string algorithm;  // as CreateIndexStmt's
  std::string lock;
};

struct AlterAction {
  enum class Kind : uint8_t {
    kAddColumn,
    kDropColumn,
    kModifyColumn,
    kChangeColumn,
    kAddIndex,
    kDropIndex,
    kDropPrimaryKey,
    kTableOption
  };
  Kind kind = Kind::kAddColumn;
  ColumnSpec column;                           // add, modify, change (the new definition)
  std::string name;                            // drop column / drop index / change's old name
  IndexSpec index;                             // add index
  std::pair<std::string, std::string> option;  // ENGINE=... etc.
  std::string after;                           // AFTER col; "" for the end
  bool first = false;                          // FIRST
};

struct AlterTableStmt {
  TableName table;
  std::vector<AlterAction> actions;
  TableName rename_to;    // RENAME [TO | AS] name (done after the other actions); name empty if not
  std::string algorithm;  // "COPY", "INPLACE", "INSTANT", "DEFAULT" or empty
  std::string lock;       // LOCK=NONE|SHARED|EXCLUSIVE|DEFAULT, or empty
};

// ALTER TABLE t {DISABLE | ENABLE} KEYS, alone: mysqldump's bracket around a table's rows.
// minnow keeps every index up to date whatever it says (sql_session.cc answers as MySQL does).
struct AlterKeysStmt {
  TableName table;
  bool enable = false;
};

struct TruncateStmt {
  TableName table;
};

// RENAME {TABLE | TABLES} a TO b [, c TO d] ...: the pairs in order.
struct RenameTableStmt {
  std::vector<std::pair<TableName, TableName>> renames;  // (from, to)
};

// ---- transactions, session
struct TransactionStmt {
  // BEGIN [WORK] / START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT x, ROLLBACK TO [SAVEPOINT] x,
  // RELEASE SAVEPOINT x
  enum class Kind : uint8_t {
    kBegin,
    kCommit,
    kRollback,
    kSavepoint,
    kRollbackToSavepoint,
    kReleaseSavepoint
  };
  Kind kind = Kind::kBegin;
  std::string savepoint;             // the savepoint kinds' name
  bool consistent_snapshot = false;  // START TRANSACTION WITH CONSISTENT SNAPSHOT
  bool read_only = false;            // START TRANSACTION READ ONLY
};

struct SetItem {
  VarScope scope = VarScope::kDefault;  // SET x / SET SESSION x / SET GLOBAL x
  std::string name;                     // lower-cased; "transaction_isolation" for SET TRANSACTION
  ExprPtr value;  // a bare word (SET x = ON, = READ-COMMITTED) is a string literal
  // SET x = DEFAULT (value null): the session value becomes the global one, the global value
  // the compiled-in default.
  bool to_default = false;
  bool next_transaction_only = false;  // SET TRANSACTION ISOLATION LEVEL ... (no scope)
  std::string collation;               // SET NAMES cs COLLATE c: c as written
};

struct SetStmt {
  std::vector<SetItem> items;
};

struct ShowStmt {
  enum class Kind : uint8_t {
    kTables,              // SHOW [FULL] TABLES [LIKE 'p']
    kTableStatus,         // SHOW TABLE STATUS [LIKE 'p' | WHERE ...]: like only
    kCreateTable,         // SHOW CREATE TABLE t
    kColumns,             // SHOW COLUMNS FROM t / DESCRIBE t / DESC t
    kIndex,               // SHOW INDEX|INDEXES|KEYS FROM t
    kStatus,              // SHOW [GLOBAL|SESSION] STATUS [LIKE 'p']
    kVariables,           // SHOW [GLOBAL|SESSION] VARIABLES [LIKE 'p']
    kEngineInnodbStatus,  // SHOW ENGINE INNODB STATUS, SHOW INNODB STATUS
    kEngines,             // SHOW ENGINES
    kWarnings,            // SHOW WARNINGS
    kErrors,              // SHOW ERRORS
    kWarningCount,        // SHOW COUNT(*) WARNINGS
    kErrorCount,          // SHOW COUNT(*) ERRORS
    kProcesslist,         // SHOW [FULL] PROCESSLIST
    kDatabases,           // SHOW {DATABASES | SCHEMAS} [LIKE 'p']
    kCreateDatabase,      // SHOW CREATE {DATABASE | SCHEMA} [IF NOT EXISTS] db: database
    kCollation,           // SHOW COLLATION [LIKE 'p']
  };
  Kind kind = Kind::kTables;
  VarScope scope = VarScope::kDefault;
  TableName table;  // kCreateTable, kColumns, kIndex
  // kTables, kTableStatus: the database (FROM db, else the current one; empty: none)
  std::string database;
  std::optional<std::string> like;
  bool full = false;           // SHOW FULL TABLES / COLUMNS / PROCESSLIST
  bool if_not_exists = false;  // SHOW CREATE DATABASE IF NOT EXISTS
};

struct LockTablesStmt {
  enum class Mode : uint8_t { kRead, kReadLocal, kWrite, kLowPriorityWrite };
  struct Item {
    TableName table;
    std::string alias;
    Mode mode = Mode::kRead;
  };
  std::vector<Item> items;
};
struct UnlockTablesStmt {};

struct OptimizeTableStmt {
  std::vector<TableName> tables;
};

// CHECK {TABLE | TABLES} t, ... [QUICK | FAST | MEDIUM | EXTENDED | CHANGED | FOR UPGRADE] ...
// (what each option does: catalog/check_table.h).
struct CheckTableStmt {
  std::vector<TableName> tables;
  bool quick = false;        // QUICK
  bool for_upgrade = false;  // FOR UPGRADE
  // FAST, MEDIUM, EXTENDED and CHANGED are accepted; they ask for nothing more.
};

// ANALYZE [NO_WRITE_TO_BINLOG | LOCAL] {TABLE | TABLES} t, ... (catalog/check_table.h).
struct AnalyzeTableStmt {
  std::vector<TableName> tables;
};

// CREATE {DATABASE | SCHEMA} [IF NOT EXISTS] db [[DEFAULT] CHARACTER SET [=] cs]
// [[DEFAULT] COLLATE [=] c]: charset and collation lower-cased, empty when not given.
struct CreateDatabaseStmt {
  std::string name;
  bool if_not_exists = false;
  std::string charset, collation;
};

// ALTER {DATABASE | SCHEMA} [db] [DEFAULT] CHARACTER SET [=] cs / [DEFAULT] COLLATE [=] c:
// name (the current database when not given), charset and collation lower-cased, each empty
// when not given (at least one is).
struct AlterDatabaseStmt {
  std::string name;
  std::string charset, collation;
};

// DROP {DATABASE | SCHEMA} [IF EXISTS] db
struct DropDatabaseStmt {
  std::string name;
  bool if_exists = false;
};

struct UseStmt {
  std::string database;
};

// KILL [CONNECTION | QUERY] id: id is an expression (a number, @v, CONNECTION_ID()).
struct KillStmt {
  bool query_only = false;  // KILL QUERY: the statement only, not the connection
  ExprPtr id;
};

struct ExplainStmt;

using Statement =
    std::variant<SelectStmt, InsertStmt, UpdateStmt, DeleteStmt, CreateTableStmt, DropTableStmt,
                 CreateIndexStmt, DropIndexStmt, AlterTableStmt, TruncateStmt, RenameTableStmt,
                 TransactionStmt, SetStmt, ShowStmt, LockTablesStmt, UnlockTablesStmt,
                 OptimizeTableStmt, CheckTableStmt, AnalyzeTableStmt, UseStmt, KillStmt,
                 AlterKeysStmt, CreateDatabaseStmt, AlterDatabaseStmt, DropDatabaseStmt,
                 std::unique_ptr<ExplainStmt>>;

// EXPLAIN [FORMAT=TRADITIONAL] SELECT|UPDATE|DELETE|INSERT ...; also DESCRIBE SELECT ...
struct ExplainStmt {
  Statement statement;
};

}  // namespace minnow::sql
