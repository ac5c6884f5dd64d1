#pragma once
// The definition of a SQL table: columns, primary key, secondary indexes, and where they live.
//
// Storage (docs/ARCHITECTURE.md, "SQL tables"):
//   - the clustered index is a keyspace (TableDef::keyspace): key = the primary key columns in
//     key encoding (row_codec.h); value = the other columns in the compact row format. A table
//     without a PRIMARY KEY gets InnoDB's hidden 6-byte DB_ROW_ID as its key (index name
//     GEN_CLUST_INDEX);
//   - each secondary index is a keyspace (IndexDef::keyspace): key = the index columns then the
//     primary key columns, both in key encoding; value empty.
// Keyspace names start as "<table>" and "<table>.<index>"; a copy-ALTER builds the new table
// under fresh names ("<table>$<n>", ...), so the names are kept here, never derived.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/options.h"
#include "sql_lite_front/catalog/table_name.h"
#include "sql_lite_front/collation.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

enum class ColumnType : uint8_t {
  kTinyInt,    // 1 byte
  kSmallInt,   // 2 bytes
  kMediumInt,  // 3 bytes
  kInt,        // 4 bytes
  kBigInt,     // 8 bytes
  kDouble,     // 8 bytes (FLOAT and REAL are read as DOUBLE)
  kChar,       // CHAR(n): n characters (UTF-8 code points), trailing spaces dropped
  kVarchar,    // VARCHAR(n): n characters
  kText,       // TEXT (64 KiB - 1), MEDIUMTEXT, LONGTEXT
  kBlob,       // BLOB and its sizes
  kDate,       // DATE: 3 bytes (temporal.h)
  kDateTime,   // DATETIME[(fsp)]: 8 bytes; ColumnDef::length holds fsp
  // TIMESTAMP[(fsp)]: 8 bytes, microseconds since 1970 UTC (0: the zero date); ColumnDef::length
  // holds fsp. Its values are DATETIMEs in the CurrentTimeZone() (temporal.h) once read.
  kTimestamp,
  kYear,  // YEAR: 1 byte, 0 (0000) or the year - 1900 (1901..2155); a Temporal of Type::kYear
  // DECIMAL(M,D) (NUMERIC, DEC, FIXED): exact, M digits of which D after the point (M in
  // ColumnDef::length, D in ColumnDef::scale); values are kDecimal of scale D.
  kDecimal,
  // ENUM('a','b',...): 1 byte (2 from 256 members), the member's 1-based index (0: the '' of
  // an invalid value); SET('a','b',...): a bitmap of up to 64 members in 1, 2, 3, 4 or 8
  // bytes. ColumnDef::members holds the names; values are Value::Enum (value.h).
  kEnum,
  kSet,
  // TIME[(fsp)]: 6 bytes, its signed microseconds offset by 2^47 (so they sort as unsigned);
  // ColumnDef::length holds fsp. Values are Temporals of Type::kTime.
  kTime,
};

bool IsIntegerType(ColumnType t);
// Bytes a value of integer type `t` takes: TINYINT 1, SMALLINT 2, MEDIUMINT 3, INT 4, BIGINT 8.
// The one table of integer widths: the range check (CoerceToColumn), ColumnDef::MaxBytes and
// row_codec.h's key and row encodings all read it. REQUIRES: IsIntegerType(t).
size_t IntegerBytes(ColumnType t);
bool IsStringType(ColumnType t);     // CHAR, VARCHAR, TEXT, BLOB
bool IsTemporalType(ColumnType t);   // DATE, DATETIME, TIMESTAMP
bool IsEnumOrSetType(ColumnType t);  // ENUM, SET
// The types that have a collation: the string types, ENUM and SET.
bool HasCollation(ColumnType t);
// The bytes an ENUM or SET column's number takes (ENUM: 1 or 2; SET: 1, 2, 3, 4 or 8).
size_t EnumSetBytes(ColumnType t, size_t members);
// The largest number of members: ENUM 65535, SET 64.
inline constexpr size_t kMaxEnumMembers = 65535;
inline constexpr size_t kMaxSetMembers = 64;
// Numbers: the integers, DOUBLE and DECIMAL (what UNSIGNED applies to).
bool IsNumericType(ColumnType t);
// "int", "bigint", "varchar", ... as SHOW CREATE TABLE prints the type's name.
const char* ColumnTypeName(ColumnType t);

struct ColumnDef {
  std::string name;
  ColumnType type = ColumnType::kInt;
  // CHAR/VARCHAR: the declared n; display width of integers (ignored); DATETIME, TIMESTAMP,
  // TIME: its fsp;
  // DECIMAL: its precision M.
  uint32_t length = 0;
  uint8_t scale = 0;  // DECIMAL: the digits after the point, D
  // ENUM and SET: the members (is_set tells which); null for the other types.
  std::shared_ptr<const EnumMembers> members;

  bool is_unsigned = false;
  bool nullable = true;
  bool auto_increment = false;
  // unset: no DEFAULT clause (NULL if nullable). A TIMESTAMP's is kept in UTC (DeclaredDefault
  // gives it in the session's zone, as MySQL shows and stores it).
  std::optional<Value> default_value;
  // DATETIME/TIMESTAMP: DEFAULT CURRENT_TIMESTAMP[(fsp)] (default_value unset) and ON UPDATE
  // CURRENT_TIMESTAMP[(fsp)], the fsp being the column's (MySQL requires the two equal).
  bool default_now = false;
  bool on_update_now = false;
  // CHAR/VARCHAR/TEXT: the column's collation, fixed when the column is made (its COLLATE /
  // CHARACTER SET / BINARY, else the table's default: ResolveCollations); BLOB: binary;
  // numbers: null. It decides comparisons, LIKE and the column's key encoding (row_codec.h).
  const Collation* collation = nullptr;
  // As written in the column definition (lower case), until ResolveCollations reads them.
  std::string declared_charset, declared_collation;
  bool declared_binary = false;  // the BINARY attribute: the charset's _bin collation
  // "int unsigned NOT NULL AUTO_INCREMENT" as SHOW CREATE TABLE prints it (MySQL 8 style):
  // everything after the column's name (type, NOT NULL, DEFAULT, AUTO_INCREMENT).
  std::string TypeString() const;
  // The type alone, SHOW COLUMNS' Type: "int unsigned", "varchar(255)", "text".
  std::string BaseTypeString() const;
  // The largest number of bytes a value may hold (CHAR/VARCHAR n characters of up to 4 bytes
  // each (3 for utf8mb3), TEXT 65,535, BLOB 64 MiB).
  uint64_t MaxBytes() const;
  // The collation the column compares with: `collation`, or binary for numbers.
  const Collation& EffectiveCollation() const {
    return collation != nullptr ? *collation : BinaryCollation();
  }
};

struct IndexDef {
  std::string name;               // "j"; the primary key is not an IndexDef
  std::vector<uint32_t> columns;  // positions in TableDef::columns
  std::string keyspace;           // where its entries live
  // UNIQUE: no two rows have equal values in all of `columns` unless one of them is NULL.
  bool unique = false;
};

// How a table's records store a VARCHAR or TEXT column under a PAD SPACE binary collation
// (utf8mb4_bin, utf8mb3_bin), whose key drops trailing spaces (row_codec.h).
enum class RecordFormat : uint8_t {
  // Written before the text was kept beside such keys: a primary key column's trailing spaces
  // were stored nowhere, and a secondary entry holds no text. Read as written; OPTIMIZE TABLE
  // or a copy-ALTER rebuilds the table in the current format.
  kPadKeysWithoutText = 0,
  // The text is kept beside the key, in the row value and in the entries' values.
  kPadTextsKept = 1,
};

struct TableDef {
  std::string name;
  // The database the table is in, as the database was named at its CREATE. Not in the
  // serialized record: the catalog keeps it in the record's key (table_catalog.h).
  std::string schema = kDefaultDatabase;
  std::vector<ColumnDef> columns;
  std::vector<uint32_t> primary_key;  // column positions; empty: hidden DB_ROW_ID
  std::vector<IndexDef> indexes;      // secondary, in creation order
  std::string keyspace;               // the clustered index's keyspace
  std::string engine = "InnoDB";      // "InnoDB" (row-locking) or "MyISAM" (table-locking)
  std::string charset = "utf8mb4";
  std::string collation;  // as given, or empty
  Compression compression = Compression::kNone;
  uint64_t max_rows = 0;
  uint64_t auto_increment_start = 1;  // the AUTO_INCREMENT= table option
  int64_t create_time = 0;            // unix seconds
  // Columns added by ALTER TABLE ... ADD COLUMN, ALGORITHM=INSTANT (InnoDB's instant add) are
  // not in the rows stored before them. core_columns: how many columns every stored row has
  // (InnoDB's n_core_fields); 0 when every column is (no instant add since the table was last
  // built). The added columns are at the end, outside every key, and a row without them reads
  // each as AddedColumnValue (its DEFAULT at the ADD: any later change to such a column's
  // definition rebuilds the table by copy, which stores every column and resets this to 0).
  uint32_t core_columns = 0;
  // Kept while the table's keyspaces are (ALTER INSTANT, INPLACE, RENAME); a table built anew
  // (CREATE, copy-ALTER, OPTIMIZE, TRUNCATE) has the current format.
  RecordFormat record_format = RecordFormat::kPadTextsKept;

  bool has_hidden_primary_key() const { return primary_key.empty(); }
  // ENGINE=MyISAM: the table is a heap table (minnow/table_lock_engine.h) named `keyspace`.
  bool table_locking() const { return engine == "MyISAM"; }
  // The columns every stored row holds (core_columns, or all of them).
  uint32_t StoredCoreColumns() const {
    return core_columns == 0 ? static_cast<uint32_t>(columns.size()) : core_columns;
  }
  // Position of the column named `name` (case-insensitive, as MySQL's column names), or -1.
  int FindColumn(std::string_view name) const;
  // Position of the secondary index named `name` (case-insensitive), or -1.
  int FindIndex(std::string_view name) const;
  // The AUTO_INCREMENT column's position, or -1.
  int AutoIncrementColumn() const;
  // True if column `col` is part of the primary key (inline: the row codec asks per column).
  bool IsPrimaryKeyColumn(uint32_t col) const {
    for (uint32_t c : primary_key)
      if (c == col) return true;
    return false;
  }
};

// The table's name with its database.
inline TableName NameOf(const TableDef& def) { return TableName{def.schema, def.name}; }

// The value a column gets in a row that had none (ALTER ADD COLUMN, by copy or instantly): its
// DEFAULT, else NULL if nullable, else MySQL's implicit default (0, '').
Value AddedColumnValue(const ColumnDef& c);
// The column's DEFAULT value (REQUIRES: default_value set), a TIMESTAMP's in the
// CurrentTimeZone().
Value DeclaredDefault(const ColumnDef& c);
// The statement's time (`now_us`, microseconds since 1970 UTC) as a value of DATETIME or
// TIMESTAMP column `c` (its fsp, local in the CurrentTimeZone()): DEFAULT / ON UPDATE
// CURRENT_TIMESTAMP's value.
Value CurrentTimestampFor(const ColumnDef& c, int64_t now_us);
// Checks the table's CHARSET/COLLATE and gives every text column its collation (ColumnDef::
// collation). Errors as MySQL's: 1273 "Unknown collation: 'x'" (also for a collation MySQL has
// and minnow does not, as latin1_swedish_ci), 1115 "Unknown character set: 'x'", 1253
// "COLLATION 'x' is not valid for CHARACTER SET 'y'"; 1235 for a character set MySQL has and
// minnow does not (latin1, ...) and for CHARACTER SET binary on a CHAR/VARCHAR/TEXT column
// (MySQL's BINARY/VARBINARY/BLOB, which minnow does not substitute).
SqlStatus ResolveCollations(TableDef* def);
// The table's default collation (its COLLATE=, else its charset's default).
// REQUIRES: the table passed ResolveCollations.
const Collation& TableCollation(const TableDef& def);

// The catalog record's bytes (a versioned binary encoding) and back. Parse fails with 1105 on
// damaged bytes, and on a record of format 1 (from before collations: its string keys are
// binary, so the table must be re-created). A record of format 2 reads as a table of
// RecordFormat::kPadKeysWithoutText.
std::string SerializeTableDef(const TableDef& def);
SqlResult<TableDef> ParseTableDef(std::string_view bytes);

// SHOW CREATE TABLE's text, as MySQL 8 prints it:
//   CREATE TABLE `sample` (
//     `i` int unsigned NOT NULL AUTO_INCREMENT,
//     `j` varchar(255) DEFAULT NULL,
//     PRIMARY KEY (`i`),
//     KEY `j` (`j`)
//   ) ENGINE=InnoDB AUTO_INCREMENT=1638401 DEFAULT CHARSET=utf8mb3
// (`next_auto_increment` 0 leaves AUTO_INCREMENT= out, as MySQL does for an empty table.)
std::string ShowCreateTable(const TableDef& def, uint64_t next_auto_increment);

// How CoerceToColumn treats a value its column cannot hold as it is (MySQL's strict mode and
// its Strict_error_handler). The default: strict, warnings dropped.
struct StoreRules {
  // True: such a value is an error (strict mode). False: it is converted, with a warning (MySQL
  // without a strict sql_mode word, under IGNORE, and in a MyISAM table this statement already
  // changed under STRICT_TRANS_TABLES alone).
  bool errors = true;
  // NULL into a NOT NULL column is error 1048 even when `errors` is false (a single-row INSERT
  // without IGNORE: MySQL's CHECK_FIELD_ERROR_FOR_NULL).
  bool null_is_error = false;
  // The session's sql_mode has a strict word and the statement is not IGNORE: a string cut to
  // fit warns 1406 "Data too long" rather than 1265 "Data truncated" (when `errors` is false).
  bool strict_sql_mode = true;
  // sql_mode's NO_ZERO_IN_DATE / NO_ZERO_DATE: '2024-00-05' / '0000-00-00' stored into a date
  // column is a bad value (1292 under `errors`, else the zero date with 1264).
  bool no_zero_in_date = false;
  bool no_zero_date = false;
  // Where the warnings (and notes) go; null: dropped.
  std::vector<SqlWarning>* warnings = nullptr;
};

// `v` stored into `col` as MySQL stores it; `row` is the 1-based row number for the messages.
// Each bad value is an error under rules.errors, else converted with a warning of that code:
//   - an integer or double out of the column's range: 1264, clamped to the range;
//   - into DECIMAL(M,D) (MySQL's Field_new_decimal::store): the value rounded half away from
//     zero to D digits, a note 1265 in every mode when that dropped digits; beyond M - D
//     digits before the point (or negative into UNSIGNED): 1264, clipped to the largest (or
//     smallest) value; a string that is no number: 1366 "Incorrect decimal value: ..", 0; a
//     number followed by more: 1366 under rules.errors, else the number with a note 1265;
//   - a string that is no number: 0, with 1366 "Incorrect integer value: 'abc' ..." into an
//     integer column, 1265 "Data truncated ..." into a DOUBLE (MySQL's Field_double::store);
//     a number followed by more ('12abc'): 1265, the number (the range is checked first:
//     '999x' into TINYINT is 1264 alone);
//   - a string longer than the column (characters for CHAR/VARCHAR, bytes for TEXT/BLOB):
//     1406 "Data too long ..." (a warning 1406 or 1265, StoreRules::strict_sql_mode), cut to
//     fit; cutting only spaces is a note 1265 in every mode;
//   - NULL into NOT NULL: 1048, the column's implicit default (ImplicitDefault);
//   - into DATE/DATETIME (MySQL's Field_temporal::store): text or a number that is no date is
//     1292 "Incorrect date value: '..' for column .." in strict mode, else the zero date with
//     1265 (no date's shape) or 1264 (no such day: '2024-02-30'); text after a date is 1292,
//     else 1265 with the date kept; a time of day dropped by DATE is a note 1265 in every
//     mode; fractional seconds are rounded to the column's fsp;
//   - into TIMESTAMP: as DATETIME, then a time outside 1970-01-01 00:00:01 .. 2038-01-19
//     03:14:07 UTC (read in CurrentTimeZone()) is 1292 in strict mode, else 0000-00-00 with 1264;
//   - into YEAR (MySQL's Field_year::store): 1901..2155 as they are, numbers 1-69 and 70-99
//     2001-2069 and 1970-1999, 0 the zero year 0000, text '0'/'00' 2000 and '0000' 0000; a
//     date gives its year; anything else (text with no number too) 1264, stored as 0000; text
//     after the number 1265.
//   - into TIME (MySQL's Field_time::store): text '[-][D ]HH:MM:SS[.frac]', 'HH:MM', 'HHMMSS',
//     numbers HHMMSS, a DATETIME's time of day; beyond ±838:59:59 clipped to it with 1264;
//     minutes or seconds past 59 are 00:00:00 with 1264, text with no digits with 1265; text
//     after the time 1265 (all 1292
//     "Incorrect time value: '..' for column .." in strict mode); the fraction rounded to fsp;
//   - into ENUM (MySQL's Field_enum::store): text is the member it equals under the column's
//     collation (trailing spaces ignored), else, if it is a number, the member of that index;
//     a number is the member of that index; anything else (0 too) is 1265 "Data truncated",
//     stored as '' (index 0);
//   - into SET: text is the members named between its commas, a number the bitmap; a name
//     that is no member (or bits beyond the members) is 1265, dropped.
// An ENUM or SET value stored into another type is its number in a numeric (or YEAR) column,
// else its text.
// CHAR's trailing spaces are dropped. Text that is not valid in the column's charset is 1366
// in every mode.
SqlResult<Value> CoerceToColumn(const ColumnDef& col, const Value& v, uint64_t row,
                                const StoreRules& rules = {});
// MySQL's implicit default of a NOT NULL column: 0, '' for a string column, the zero date.
Value ImplicitDefault(const ColumnDef& c);
// True if CoerceToColumn(col, v) would return `v` as it is: NULL into a nullable column, or a
// string into a string column it fits without change (a copy-ALTER skips the conversion of
// those). False says nothing: convert.
bool FitsColumnUnchanged(const ColumnDef& col, const Value& v);

}  // namespace minnow::sql
