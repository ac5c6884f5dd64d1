#pragma once
// A table's name with its database (MySQL's schema): what the parser makes of `db`.`t` and of
// a bare `t` (the session's current database). Table and database names compare without case,
// as the catalog keeps them.

#include <string>
#include <string_view>

namespace minnow::sql {

// The database a new file has and the shell and minnowd start in.
inline constexpr const char* kDefaultDatabase = "test";

struct TableName {
  std::string schema;  // the database; never empty once parsed
  std::string name;
  // Exact (case-sensitive) equality of both parts; SameTable compares as the catalog does.
  friend bool operator==(const TableName&, const TableName&) = default;
};

// information_schema and performance_schema: their tables are views of live structures.
bool IsSystemSchema(std::string_view schema);
// MySQL 8.0's system schemas, as SHOW DATABASES lists them: the two above, mysql and sys. None
// can be created, dropped or made current here.
inline constexpr const char* kSystemDatabases[] = {"information_schema", "mysql",
                                                   "performance_schema", "sys"};
bool IsSystemDatabase(std::string_view name);

// True if `a` and `b` name the same table (case-insensitive).
bool SameTable(const TableName& a, const TableName& b);
// "<schema>.<name>", as written: the form MySQL's messages quote ("Table 'shop.t' doesn't
// exist").
std::string QualifiedName(const TableName& t);
// "<schema>.<name>" lower-cased: the key of metadata locks and MyISAM table locks, so that
// `a`.`t` and `b`.`t` are different tables.
std::string TableKey(const TableName& t);

}  // namespace minnow::sql
