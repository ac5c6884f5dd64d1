// Keys of text under PAD SPACE binary collations (utf8mb4_bin): the key drops trailing spaces,
// the text beside it keeps them (row_codec.h), except in tables of the record format from
// before (RecordFormat::kPadKeysWithoutText), which read as they were written.

#include <catch2/catch.hpp>
#include <string>

#include "sql_lite_front/catalog/row_codec.h"

namespace minnow::sql {
namespace {

ColumnDef Text(std::string name, ColumnType type, const char* collation, bool nullable = true) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  c.length = type == ColumnType::kText ? 0 : 10;
  c.nullable = nullable;
  c.collation = FindCollation(collation);
  REQUIRE(c.collation != nullptr);
  return c;
}

ColumnDef Int(std::string name) {
  ColumnDef c;
  c.name = std::move(name);
  c.nullable = false;
  return c;
}

// p varchar(10) COLLATE utf8mb4_bin PRIMARY KEY, s varchar(10) COLLATE utf8mb3_bin, t text
// COLLATE utf8mb4_bin, n int, KEY s (s), KEY t (t), KEY n (n).
TableDef PadTable(RecordFormat format) {
  TableDef def;
  def.name = "b";
  def.keyspace = "b";
  def.columns = {Text("p", ColumnType::kVarchar, "utf8mb4_bin", false),
                 Text("s", ColumnType::kVarchar, "utf8mb3_bin"),
                 Text("t", ColumnType::kText, "utf8mb4_bin"), Int("n")};
  def.primary_key = {0};
  def.indexes = {IndexDef{"s", {1}, "b.s"}, IndexDef{"t", {2}, "b.t"}, IndexDef{"n", {3}, "b.n"}};
  def.record_format = format;
  return def;
}

// The row read back from its clustered record, and from each index entry (its own columns and
// the primary key's).
struct ReadBack {
  Row clustered;
  std::vector<Row> entries;
};

ReadBack RoundTrip(const TableDef& def, const Row& row) {
  ReadBack out;
  const std::string key = EncodePrimaryKey(def, row);
  std::string value;
  EncodeRowValue(def, row, &value);
  out.clustered.resize(def.columns.size());
  REQUIRE(DecodePrimaryKey(def, key, &out.clustered).ok());
  REQUIRE(DecodeRowValue(def, value, &out.clustered).ok());
  for (const IndexDef& ix : def.indexes) {
    Row r(def.columns.size());
    std::string clustered;
    const std::string ik = EncodeIndexKey(def, ix, row, key);
    REQUIRE(DecodeIndexKey(def, ix, ik, EncodeIndexValue(def, ix, row), &r, &clustered).ok());
    CHECK(clustered == key);
    out.entries.push_back(std::move(r));
  }
  return out;
}

TEST_CASE("PAD SPACE text keys: one key for 'a' and 'a ', the text kept beside it",
          "[sql][row_codec][collation]") {
  const TableDef def = PadTable(RecordFormat::kPadTextsKept);
  const Row row = {Value::String("a  "), Value::String("b "), Value::String("c \t "),
                   Value::Int(7)};
  const Row trimmed = {Value::String("a"), Value::String("b"), Value::String("c \t"),
                       Value::Int(7)};
  // One value to a UNIQUE or PRIMARY key (1062 for the second), and one index key.
  CHECK(EncodePrimaryKey(def, row) == EncodePrimaryKey(def, trimmed));
  std::string ua, ub;
  REQUIRE(AppendUniquePart(def, def.indexes[0], row, &ua));
  REQUIRE(AppendUniquePart(def, def.indexes[0], trimmed, &ub));
  CHECK(ua == ub);

  for (const ColumnDef* c : {&def.columns[0], &def.columns[1], &def.columns[2]}) {
    CHECK_FALSE(KeyHoldsValue(*c));
    CHECK(TextBesideKey(def, *c));
    CHECK(KeyGivesValue(def, *c));
  }
  CHECK(KeyHoldsValue(def.columns[3]));
  // Every entry carries a text: its own column's or the primary key's.
  for (const IndexDef& ix : def.indexes) CHECK(IndexKeepsTexts(def, ix));

  const ReadBack back = RoundTrip(def, row);
  for (size_t c = 0; c < row.size(); ++c) CHECK(back.clustered[c] == row[c]);
  for (size_t i = 0; i < def.indexes.size(); ++i) {
    for (uint32_t c : def.indexes[i].columns) CHECK(back.entries[i][c] == row[c]);
    CHECK(back.entries[i][0] == row[0]);
  }
  // The entry of index n holds the primary key's text; that of s its own text then the key's.
  // (text views the entry's value: each value is kept while its text is read.)
  std::string_view text;
  const std::string n_entry = EncodeIndexValue(def, def.indexes[2], row);
  REQUIRE(IndexValueText(n_entry, 0, &text));
  CHECK(text == "a  ");
  const std::string s_entry = EncodeIndexValue(def, def.indexes[0], row);
  REQUIRE(IndexValueText(s_entry, 1, &text));
  CHECK(text == "a  ");
  // A NULL has no text.
  Row with_null = row;
  with_null[1] = Value::Null();
  const std::string null_entry = EncodeIndexValue(def, def.indexes[0], with_null);
  CHECK(IndexValueText(null_entry, 0, &text));
  CHECK(text == "a  ");
  CHECK(RoundTrip(def, with_null).entries[0][1].is_null());
}

TEST_CASE("PAD SPACE text keys of a table of the earlier record format read as written",
          "[sql][row_codec][collation]") {
  const TableDef def = PadTable(RecordFormat::kPadKeysWithoutText);
  const Row row = {Value::String("a  "), Value::String("b "), Value::String("c "), Value::Int(7)};
  for (const ColumnDef* c : {&def.columns[0], &def.columns[1], &def.columns[2]}) {
    CHECK_FALSE(TextBesideKey(def, *c));
    CHECK_FALSE(KeyGivesValue(def, *c));  // a secondary walk reads the row for them
  }
  for (const IndexDef& ix : def.indexes) {
    CHECK_FALSE(IndexKeepsTexts(def, ix));
    CHECK(EncodeIndexValue(def, ix, row).empty());
  }
  // The earlier row value: p is read from the key, so only s, t and n are stored (null bitmap,
  // two lengths, the bytes, the int).
  std::string value;
  EncodeRowValue(def, row, &value);
  CHECK(value == std::string("\0\2\2b c \7\0\0\0", 11));
  const ReadBack back = RoundTrip(def, row);
  CHECK(back.clustered[0] == Value::String("a"));  // its trailing spaces were never stored
  CHECK(back.clustered[1] == row[1]);
  CHECK(back.clustered[2] == row[2]);
  CHECK(back.entries[0][1] == Value::String("b"));  // the key's text: the planner reads the row
  CHECK(back.entries[2][0] == Value::String("a"));
}

TEST_CASE("CHAR, BLOB and NO PAD keys hold their values", "[sql][row_codec][collation]") {
  TableDef def;
  def.name = "c";
  def.keyspace = "c";
  ColumnDef blob;
  blob.name = "bl";
  blob.type = ColumnType::kBlob;
  blob.collation = FindCollation("binary");
  def.columns = {Text("ch", ColumnType::kChar, "utf8mb4_bin", false), blob,
                 Text("cs", ColumnType::kVarchar, "utf8mb4_0900_as_cs")};
  def.primary_key = {0};
  def.indexes = {IndexDef{"bl", {1}, "c.bl"}, IndexDef{"cs", {2}, "c.cs"}};
  CHECK(KeyHoldsValue(def.columns[0]));  // CHAR's spaces are dropped on store
  CHECK_FALSE(TextBesideKey(def, def.columns[0]));
  CHECK(KeyHoldsValue(def.columns[1]));  // binary is NO PAD: the key keeps the spaces
  CHECK_FALSE(IndexKeepsTexts(def, def.indexes[0]));
  CHECK(TextBesideKey(def, def.columns[2]));  // weights (NO PAD: 'x ' and 'x' differ)
  const Row row = {Value::String("k"), Value::String("x  "), Value::String("y ")};
  const Row trimmed = {Value::String("k"), Value::String("x"), Value::String("y")};
  const std::string key = EncodePrimaryKey(def, row);
  CHECK(EncodeIndexKey(def, def.indexes[0], row, key) !=
        EncodeIndexKey(def, def.indexes[0], trimmed, key));
  CHECK(EncodeIndexKey(def, def.indexes[1], row, key) !=
        EncodeIndexKey(def, def.indexes[1], trimmed, key));
  const ReadBack back = RoundTrip(def, row);
  for (size_t c = 0; c < row.size(); ++c) CHECK(back.clustered[c] == row[c]);
  CHECK(back.entries[0][1] == row[1]);
  CHECK(back.entries[1][2] == row[2]);
}

}  // namespace
}  // namespace minnow::sql
