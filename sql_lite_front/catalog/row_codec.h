#pragma once
// How rows become keyspace records (keys and values) and back.
//
// Key encoding (memcomparable: byte order = SQL order, so B+tree ranges are SQL ranges), one
// column after another:
//   - a nullable column starts with 0x00 for NULL (and nothing follows) or 0x01;
//   - integers: big-endian in the type's width (TINYINT 1, SMALLINT 2, MEDIUMINT 3, INT 4,
//     BIGINT 8 bytes), the sign bit flipped for signed types;
//   - DOUBLE: 8 bytes, IEEE bits with the sign bit flipped (all bits for negatives);
//   - DATE: 3 bytes big-endian, year * 512 + month * 32 + day (MySQL's); DATETIME: 8 bytes
//     big-endian, Temporal::packed (both never negative); TIMESTAMP: 8 bytes big-endian,
//     microseconds since 1970 UTC (0: the zero date), the value's local time read in the
//     CurrentTimeZone() (temporal.h) when encoded and shown in it when decoded; YEAR: 1 byte,
//     0 for 0000, else the year - 1900;
//   - DECIMAL(M,D): value * 10^D (an integer of at most M digits) as a big-endian two's-
//     complement integer of Decimal::FixedBytes(M) bytes (the fewest that hold 10^M - 1 and
//     its negative: DECIMAL(10,2) 5 bytes, DECIMAL(65,30) 28) with the sign bit flipped, so
//     negatives sort first and the bytes compare as the numbers do (1.5 and 1.50 are one key
//     in a column of one scale);
//   - strings of a binary collation (BLOB: binary; utf8mb4_bin, utf8mb3_bin: PAD SPACE, so
//     trailing spaces are dropped first: PaddedForm): the bytes with 0x00 written as 0x00 0xFF,
//     then the terminator 0x00 0x00 (so a string's escaped bytes without the terminator are a
//     prefix of every longer string that starts with it: `LIKE 'p%'` is the key range starting with
//     AppendKeyPrefix(col, "p"));
//   - strings of an ICU collation (utf8mb4_0900_ai_ci, ...: collation.h): the collation's sort
//     key ("weights"), which ends in 0x00 and has no other 0x00. Strings equal under the
//     collation have one key ('Alice' and 'alice' under _ai_ci), so a PRIMARY KEY refuses the
//     second (1062) and an index lookup of 'alice' finds 'Alice'. Weights cannot be decoded:
//     the text is kept beside the key, in the row value for a primary key column and in the
//     entry's value for a secondary index (EncodeIndexValue);
//   - so is the text of a VARCHAR or TEXT column under a PAD SPACE binary collation, whose key
//     drops its trailing spaces ('a ' and 'a' have one key, as they are one value to a UNIQUE
//     key; 'a ' reads back as 'a ' only from the text beside the key). CHAR drops its
//     trailing spaces on store, so its key is its value. In a table of record format
//     kPadKeysWithoutText (TableDef::record_format: written before this) the text was not
//     kept: a primary key column reads back without its trailing spaces, and a secondary
//     index is read for such a column only through the row (TextBesideKey, KeyGivesValue);
//   - the hidden DB_ROW_ID: 6 bytes big-endian.
// Clustered key = primary key columns (or DB_ROW_ID). Secondary key = index columns, then the
// primary key columns not already among them (InnoDB appends the missing PK columns too), or
// DB_ROW_ID.
//
// Secondary index entry value: for each key column (index columns, then the appended primary
// key columns) whose text is kept beside its key (TextBesideKey) and that is not NULL, its
// text as varint length + bytes; empty for an index without such columns.
//
// Row value (the compact format, as InnoDB's COMPACT): the columns not read back from the
// primary key (those not in it, and those in it whose text is kept beside the key), in table
// order:
//   null bitmap     ceil(nullable non-PK columns / 8) bytes, bit i = the i-th nullable one
//   lengths         for each non-NULL string column: its length as a varint (1 byte < 128)
//   data            each non-NULL column: integers in their width (little-endian), doubles
//                   8 bytes, dates as in the key (little-endian), decimals as in the key,
//                   strings their bytes
// So W1's row (j varchar(255), 32 bytes) is 1 + 1 + 32 = 34 bytes of value.
// A table with columns added by ALGORITHM=INSTANT (TableDef::core_columns = C > 0) stores the
// first C columns so; a row written since then also holds the rest: a varint count n of the
// columns after the first C that it holds, then their own null bitmap, lengths and data in
// the same format. A row that ends after its first C columns (written before the ADD) reads
// each added column as AddedColumnValue; so do the columns past its n.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sql_lite_front/catalog/table_def.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

using Row = std::vector<Value>;  // one Value per TableDef column, in table order

inline constexpr size_t kRowIdBytes = 6;

// True if column `col`'s key is collation weights (an ICU collation), not its value.
bool KeyIsWeights(const ColumnDef& col);
// True if column `col`'s key gives its value back: not weights, nor the key of a VARCHAR or
// TEXT under a PAD SPACE binary collation (it drops the value's trailing spaces).
bool KeyHoldsValue(const ColumnDef& col);
// True if the text of column `col` of `def` is kept beside its keys (in the row value for a
// primary key column, in a secondary entry's value): its key is weights, or it does not hold
// the value and the table keeps such texts (TableDef::record_format).
bool TextBesideKey(const TableDef& def, const ColumnDef& col);
// True if a secondary entry gives column `col`'s value back: from the key, or from the text
// beside it (DecodeIndexKey). False for a PAD SPACE text column of a table of format
// kPadKeysWithoutText: read the row.
bool KeyGivesValue(const TableDef& def, const ColumnDef& col);
// True if some column of `index`'s key (its own or the appended primary key's) has its text
// kept beside the key, that is if its entries carry a value (EncodeIndexValue).
bool IndexKeepsTexts(const TableDef& def, const IndexDef& index);

// Appends `v`'s key encoding for column `col`. REQUIRES: v already coerced to the column
// (CoerceToColumn), or NULL.
void AppendKeyColumn(const ColumnDef& col, const Value& v, std::string* out);
// Appends the start of the key encoding of strings beginning with `prefix` (null flag and
// escaped bytes or leading weights, no terminator): every string LIKE 'prefix%' matches has a
// key that starts so. REQUIRES: IsStringType(col.type).
void AppendKeyPrefix(const ColumnDef& col, std::string_view prefix, std::string* out);
// True if the keys starting with AppendKeyPrefix(col, prefix) are exactly LIKE 'prefix%''s
// rows (a binary collation, and no trailing space that PAD SPACE would drop); else the LIKE
// must be checked on each row of the range.
bool KeyPrefixIsExact(const ColumnDef& col, std::string_view prefix);
void AppendRowId(uint64_t row_id, std::string* out);

// The clustered key of `row`. REQUIRES: !def.has_hidden_primary_key().
std::string EncodePrimaryKey(const TableDef& def, const Row& row);
// The value of `row`'s entry in `index` (the texts of its TextBesideKey columns; usually
// empty).
std::string EncodeIndexValue(const TableDef& def, const IndexDef& index, const Row& row);
// The same value appended to `*out`.
void AppendIndexValue(const TableDef& def, const IndexDef& index, const Row& row, std::string* out);
// The unique part of `index`'s keys for `row`: its own columns' encodings, with which every
// key of a row starts (a UNIQUE index refuses two rows whose parts are equal). Appended to
// `*out`; returns false if a column of it is NULL (a NULL never conflicts).
bool AppendUniquePart(const TableDef& def, const IndexDef& index, const Row& row, std::string* out);
// The length of the unique part at the start of `key`, a key of `index`; *has_null says
// whether a column of it is NULL. 1105 on malformed bytes.
SqlResult<size_t> UniquePartLength(const TableDef& def, const IndexDef& index, std::string_view key,
                                   bool* has_null);
// The secondary key of `row` in `index`; `clustered_key` is the row's clustered key (its
// primary key or DB_ROW_ID encoding), whose columns are appended as the format says.
std::string EncodeIndexKey(const TableDef& def, const IndexDef& index, const Row& row,
                           std::string_view clustered_key);
// The same key appended to `*out`.
void AppendIndexKey(const TableDef& def, const IndexDef& index, const Row& row,
                    std::string_view clustered_key, std::string* out);
// The compact value of `row`'s non-primary-key columns.
void EncodeRowValue(const TableDef& def, const Row& row, std::string* out);

// Fills the primary key columns of `*row` (sized to def.columns) from a clustered key; for a
// hidden primary key sets *row_id instead (may be null otherwise). 1105 on malformed bytes.
// Columns whose key is weights are left NULL, and those of another TextBesideKey column hold
// the key's text: DecodeRowValue fills them with their stored text.
SqlStatus DecodePrimaryKey(const TableDef& def, std::string_view key, Row* row,
                           uint64_t* row_id = nullptr);
// Fills the non-primary-key columns of `*row` from a compact value.
SqlStatus DecodeRowValue(const TableDef& def, std::string_view value, Row* row);
// Fills the index's columns and the primary key columns of `*row` from a secondary entry (key
// and value), and returns in *clustered_key the clustered key it names (for the lookup of the
// whole row).
SqlStatus DecodeIndexKey(const TableDef& def, const IndexDef& index, std::string_view key,
                         std::string_view value, Row* row, std::string* clustered_key);
// The n-th (from 0) text of a secondary entry's value (EncodeIndexValue: the texts of the key's
// non-NULL TextBesideKey columns, in key order) into *text, a view of `value`, without decoding the
// key; false if the value holds fewer texts or is malformed.
bool IndexValueText(std::string_view value, size_t n, std::string_view* text);
// The clustered key a secondary entry's key names, without its value (a duplicate found by
// the engine, whose value is not at hand).
SqlStatus ClusteredKeyOfIndexKey(const TableDef& def, const IndexDef& index, std::string_view key,
                                 std::string* clustered_key);

// Decodes one key column at *pos (advancing it). 1105 on malformed bytes. A column whose key
// is weights decodes as NULL (its bytes are skipped); a PAD SPACE one as its key's text (no
// trailing spaces).
SqlResult<Value> DecodeKeyColumn(const ColumnDef& col, std::string_view key, size_t* pos);

}  // namespace minnow::sql
