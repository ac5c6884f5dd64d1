#include "sql_lite_front/catalog/table_def.h"

#include <catch2/catch.hpp>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace minnow::sql {
namespace {

ColumnDef Col(std::string name, ColumnType type, uint32_t length = 0, bool nullable = true,
              bool is_unsigned = false) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  c.length = length;
  c.nullable = nullable;
  c.is_unsigned = is_unsigned;
  return c;
}

// A CHAR/VARCHAR/TEXT column as ResolveCollations leaves it: utf8mb4's default collation.
ColumnDef TextCol(std::string name, ColumnType type, uint32_t length = 0, bool nullable = true) {
  ColumnDef c = Col(std::move(name), type, length, nullable);
  c.collation = DefaultCollation("utf8mb4");
  return c;
}

// W1's table.
TableDef Sample() {
  TableDef def;
  def.name = "sample";
  ColumnDef i = Col("i", ColumnType::kInt, 0, false, true);
  i.auto_increment = true;
  def.columns = {i, Col("j", ColumnType::kVarchar, 255)};
  def.primary_key = {0};
  def.indexes = {IndexDef{"j", {1}, "sample.j"}};
  def.keyspace = "sample";
  def.charset = "utf8";
  return def;
}

TEST_CASE("SHOW CREATE TABLE prints MySQL 8's text", "[sql][table_def]") {
  CHECK(ShowCreateTable(Sample(), 1638401) ==
        "CREATE TABLE `sample` (\n"
        "  `i` int unsigned NOT NULL AUTO_INCREMENT,\n"
        "  `j` varchar(255) DEFAULT NULL,\n"
        "  PRIMARY KEY (`i`),\n"
        "  KEY `j` (`j`)\n"
        ") ENGINE=InnoDB AUTO_INCREMENT=1638401 DEFAULT CHARSET=utf8mb3");
  TableDef t;
  t.name = "t";
  ColumnDef a = Col("a", ColumnType::kBigInt, 0, false);
  a.default_value = Value::Int(0);
  ColumnDef c = Col("c", ColumnType::kChar, 60, false);
  c.default_value = Value::String("it's");
  t.columns = {a, c, Col("d", ColumnType::kDouble), Col("x", ColumnType::kText),
               Col("b", ColumnType::kBlob)};
  t.keyspace = "t";
  t.compression = Compression::kLz4;
  t.max_rows = 100;
  CHECK(ShowCreateTable(t, 0) ==
        "CREATE TABLE `t` (\n"
        "  `a` bigint NOT NULL DEFAULT '0',\n"
        "  `c` char(60) NOT NULL DEFAULT 'it''s',\n"
        "  `d` double DEFAULT NULL,\n"
        "  `x` text,\n"
        "  `b` blob\n"
        ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci MAX_ROWS=100 "
        "COMPRESSION='lz4'");
}

TEST_CASE("type strings and sizes", "[sql][table_def]") {
  CHECK(Col("x", ColumnType::kInt, 0, true, true).BaseTypeString() == "int unsigned");
  CHECK(Col("x", ColumnType::kVarchar, 32).BaseTypeString() == "varchar(32)");
  CHECK(Col("x", ColumnType::kTinyInt).BaseTypeString() == "tinyint");
  CHECK(Col("x", ColumnType::kVarchar, 32).MaxBytes() == 32);
  CHECK(Col("x", ColumnType::kText).MaxBytes() == 65535);
  CHECK(IsIntegerType(ColumnType::kMediumInt));
  CHECK_FALSE(IsIntegerType(ColumnType::kDouble));
  CHECK(IsStringType(ColumnType::kBlob));
  CHECK_FALSE(IsStringType(ColumnType::kBigInt));
}

TEST_CASE("lookups are case-insensitive", "[sql][table_def]") {
  TableDef def = Sample();
  CHECK(def.FindColumn("J") == 1);
  CHECK(def.FindColumn("k") == -1);
  CHECK(def.FindIndex("J") == 0);
  CHECK(def.FindIndex("PRIMARY") == -1);
  CHECK(def.AutoIncrementColumn() == 0);
  CHECK(def.IsPrimaryKeyColumn(0));
  CHECK_FALSE(def.IsPrimaryKeyColumn(1));
  CHECK_FALSE(def.has_hidden_primary_key());
}

TEST_CASE("the catalog record round-trips", "[sql][table_def]") {
  TableDef def = Sample();
  def.columns.push_back(Col("d", ColumnType::kDouble));
  def.columns.back().default_value = Value::Double(-2.5);
  def.columns.push_back(Col("s", ColumnType::kChar, 10, false));
  def.columns.back().default_value = Value::String(std::string("a\0b", 3));
  def.columns.push_back(Col("n", ColumnType::kBigInt));
  def.columns.back().default_value = Value::Null();
  def.columns.push_back(Col("m", ColumnType::kSmallInt));
  def.columns.back().default_value = Value::Int(-300);
  def.indexes.push_back(IndexDef{"ds", {2, 3}, "sample$2.ds"});
  def.engine = "MyISAM";
  def.collation = "utf8mb3_bin";
  def.compression = Compression::kLz4;
  def.max_rows = 1u << 30;
  def.auto_increment_start = 1000;
  def.create_time = 1700000000;
  REQUIRE(ResolveCollations(&def).ok());  // the text columns take utf8mb3_bin
  std::string bytes = SerializeTableDef(def);
  auto back = ParseTableDef(bytes);
  REQUIRE(back.ok());
  for (const ColumnDef& c : back->columns) {
    CHECK((c.collation != nullptr) == IsStringType(c.type));
    if (c.collation != nullptr) CHECK(c.collation->name == "utf8mb3_bin");
  }
  // A record of format 1 (no collations) is refused with a message saying why.
  std::string old = bytes;
  old[0] = 1;
  auto refused = ParseTableDef(old);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("format 1") != std::string::npos);
  CHECK(SerializeTableDef(*back) == bytes);
  CHECK(back->name == "sample");
  CHECK(back->columns.size() == def.columns.size());
  CHECK(back->columns[2].default_value == Value::Double(-2.5));
  CHECK(back->columns[3].default_value == Value::String(std::string("a\0b", 3)));
  CHECK(back->columns[4].default_value == Value::Null());
  CHECK(back->columns[5].default_value == Value::Int(-300));
  CHECK_FALSE(back->columns[1].default_value.has_value());
  CHECK(back->columns[0].auto_increment);
  CHECK(back->columns[0].is_unsigned);
  CHECK_FALSE(back->columns[0].nullable);
  CHECK(back->indexes.size() == 2);
  CHECK(back->indexes[1].keyspace == "sample$2.ds");
  CHECK(back->indexes[1].columns == std::vector<uint32_t>{2, 3});
  CHECK(back->engine == "MyISAM");
  CHECK(back->compression == Compression::kLz4);
  CHECK(back->max_rows == (1u << 30));
  CHECK(back->auto_increment_start == 1000);
  CHECK(back->create_time == 1700000000);
}

TEST_CASE("the record format: kept in the record, format 2 is the one without PAD texts",
          "[sql][table_def]") {
  TableDef def = Sample();
  REQUIRE(def.record_format == RecordFormat::kPadTextsKept);  // a new table's
  for (RecordFormat f : {RecordFormat::kPadTextsKept, RecordFormat::kPadKeysWithoutText}) {
    def.record_format = f;
    def.indexes[0].unique = f == RecordFormat::kPadTextsKept;  // with and without a tail
    auto back = ParseTableDef(SerializeTableDef(def));
    REQUIRE(back.ok());
    CHECK(back->record_format == f);
  }
  // A record of format 2 (before record_format; Sample's has no tail) reads as the earlier one.
  def.indexes[0].unique = false;
  def.record_format = RecordFormat::kPadTextsKept;
  const std::string bytes = SerializeTableDef(def);
  REQUIRE(bytes[0] == 3);
  REQUIRE(bytes.back() == static_cast<char>(RecordFormat::kPadTextsKept));
  std::string v2 = bytes.substr(0, bytes.size() - 1);
  v2[0] = 2;
  auto old = ParseTableDef(v2);
  REQUIRE(old.ok());
  CHECK(old->record_format == RecordFormat::kPadKeysWithoutText);
  CHECK(old->columns.size() == def.columns.size());
  CHECK(old->create_time == def.create_time);
  CHECK(SerializeTableDef(*old).substr(1, bytes.size() - 2) == bytes.substr(1, bytes.size() - 2));
}

TEST_CASE("damaged catalog records are refused with 1105, never a crash", "[sql][table_def]") {
  std::string bytes = SerializeTableDef(Sample());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = ParseTableDef(std::string_view(bytes).substr(0, n));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == kErUnknownError);
  }
  CHECK_FALSE(ParseTableDef(bytes + "x").ok());
  std::string v4 = bytes;
  v4[0] = 4;  // a format from the future
  CHECK_FALSE(ParseTableDef(v4).ok());
  std::string bad_format = bytes;
  bad_format.back() = 2;  // the record format (Sample's record has no tail)
  CHECK_FALSE(ParseTableDef(bad_format).ok());
  // Random damage: whatever happens, no crash, and a success is a plausible definition.
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i) {
    std::string b = bytes;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] = static_cast<char>(rng());
    auto r = ParseTableDef(b);
    if (r.ok()) {
      for (uint32_t c : r->primary_key) CHECK(c < r->columns.size());
      for (const IndexDef& ix : r->indexes)
        for (uint32_t c : ix.columns) CHECK(c < r->columns.size());
    } else {
      CHECK(r.error().code == kErUnknownError);
    }
  }
  // Random garbage.
  for (int i = 0; i < 20000; ++i) {
    std::string b(rng() % 64, '\0');
    for (char& c : b) c = static_cast<char>(rng());
    if (!b.empty()) b[0] = static_cast<char>(2 + i % 2);
    (void)ParseTableDef(b).ok();
  }
}

TEST_CASE("strict mode: integers", "[sql][table_def]") {
  ColumnDef c = Col("c", ColumnType::kTinyInt);
  CHECK(CoerceToColumn(c, Value::Int(127), 1).value() == Value::Int(127));
  auto r = CoerceToColumn(c, Value::Int(128), 3);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == 1264);
  CHECK(r.error().message == "Out of range value for column 'c' at row 3");
  CHECK(CoerceToColumn(c, Value::Int(-128), 1).ok());
  CHECK_FALSE(CoerceToColumn(c, Value::Int(-129), 1).ok());
  ColumnDef u = Col("u", ColumnType::kInt, 0, true, true);
  CHECK(CoerceToColumn(u, Value::Int(4294967295), 1).ok());
  CHECK(CoerceToColumn(u, Value::Int(4294967296), 1).error().code == 1264);
  CHECK(CoerceToColumn(u, Value::Int(-1), 1).error().code == 1264);
  ColumnDef m = Col("m", ColumnType::kMediumInt);
  CHECK(CoerceToColumn(m, Value::Int(8388607), 1).ok());
  CHECK_FALSE(CoerceToColumn(m, Value::Int(8388608), 1).ok());
  ColumnDef s = Col("s", ColumnType::kSmallInt, 0, true, true);
  CHECK(CoerceToColumn(s, Value::Int(65535), 1).ok());
  CHECK_FALSE(CoerceToColumn(s, Value::Int(65536), 1).ok());
  ColumnDef b = Col("b", ColumnType::kBigInt);
  CHECK(CoerceToColumn(b, Value::Int(INT64_MIN), 1).ok());
  CHECK(CoerceToColumn(b, Value::Double(1e19), 1).error().code == 1264);
  CHECK(CoerceToColumn(b, Value::String("99999999999999999999"), 1).error().code == 1264);
  // Strings must be numbers; doubles round half away from zero.
  CHECK(CoerceToColumn(c, Value::String(" 12 "), 1).value() == Value::Int(12));
  CHECK(CoerceToColumn(c, Value::String("1.5"), 1).value() == Value::Int(2));
  CHECK(CoerceToColumn(c, Value::Double(-2.5), 1).value() == Value::Int(-3));
  CHECK(CoerceToColumn(c, Value::Double(2.4), 1).value() == Value::Int(2));
  auto bad = CoerceToColumn(c, Value::String("abc"), 7);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == 1366);
  CHECK(bad.error().message == "Incorrect integer value: 'abc' for column 'c' at row 7");
  CHECK(CoerceToColumn(c, Value::String(""), 1).error().code == 1366);
  auto rest = CoerceToColumn(c, Value::String("12abc"), 2);
  REQUIRE_FALSE(rest.ok());
  CHECK(rest.error().code == 1265);
  CHECK(rest.error().message == "Data truncated for column 'c' at row 2");
  CHECK(CoerceToColumn(c, Value::String("999abc"), 1).error().code == 1264);  // range first
}

TEST_CASE("non-strict mode: converted with warnings", "[sql][table_def]") {
  std::vector<SqlWarning> w;
  StoreRules rules;
  rules.errors = false;
  rules.strict_sql_mode = false;
  rules.warnings = &w;
  ColumnDef c = Col("c", ColumnType::kTinyInt);
  CHECK(CoerceToColumn(c, Value::Int(1000), 1, rules).value() == Value::Int(127));
  CHECK(CoerceToColumn(c, Value::Double(-1e30), 2, rules).value() == Value::Int(-128));
  CHECK(CoerceToColumn(c, Value::String("12abc"), 3, rules).value() == Value::Int(12));
  CHECK(CoerceToColumn(c, Value::String("abc"), 4, rules).value() == Value::Int(0));
  CHECK(CoerceToColumn(c, Value::String("999x"), 5, rules).value() == Value::Int(127));
  ColumnDef u = Col("u", ColumnType::kInt, 0, true, true);
  CHECK(CoerceToColumn(u, Value::Int(-5), 6, rules).value() == Value::Int(0));
  REQUIRE(w.size() == 6);
  CHECK(w[0].code == 1264);
  CHECK(w[0].message == "Out of range value for column 'c' at row 1");
  CHECK(w[1].code == 1264);
  CHECK(w[2].code == 1265);
  CHECK(w[2].message == "Data truncated for column 'c' at row 3");
  CHECK(w[3].code == 1366);
  CHECK(w[3].message == "Incorrect integer value: 'abc' for column 'c' at row 4");
  CHECK(w[4].code == 1264);
  CHECK(w[5].code == 1264);
  w.clear();
  ColumnDef d = Col("d", ColumnType::kDouble);
  CHECK(CoerceToColumn(d, Value::String("x"), 1, rules).value() == Value::Double(0));
  CHECK(CoerceToColumn(d, Value::String("2.5x"), 2, rules).value() == Value::Double(2.5));
  CHECK(CoerceToColumn(d, Value::String("1e400"), 3, rules).value() ==
        Value::Double(std::numeric_limits<double>::max()));
  ColumnDef du = Col("du", ColumnType::kDouble, 0, true, true);
  CHECK(CoerceToColumn(du, Value::Double(-2.5), 1, rules).value() == Value::Double(0));
  CHECK(CoerceToColumn(du, Value::Double(-2.5), 1).error().code == 1264);
  REQUIRE(w.size() == 4);
  w.pop_back();
  ColumnDef v = TextCol("v", ColumnType::kVarchar, 3);
  CHECK(CoerceToColumn(v, Value::String("abcd"), 4, rules).value() == Value::String("abc"));
  CHECK(CoerceToColumn(v, Value::String("ab   "), 5, rules).value() == Value::String("ab "));
  ColumnDef nn = Col("nn", ColumnType::kInt, 0, false);
  CHECK(CoerceToColumn(nn, Value::Null(), 6, rules).value() == Value::Int(0));
  ColumnDef ch = TextCol("ch", ColumnType::kChar, 3);  // the cut's trailing space dropped too
  CHECK(CoerceToColumn(ch, Value::String("ab cd"), 7, rules).value() == Value::String("ab"));
  REQUIRE(w.size() == 7);
  CHECK(w[6].code == 1265);
  w.pop_back();
  REQUIRE(w.size() == 6);
  CHECK(w[0].message == "Data truncated for column 'd' at row 1");
  CHECK(w[1].code == 1265);
  CHECK(w[2].code == 1264);
  CHECK(w[3].message == "Data truncated for column 'v' at row 4");
  CHECK(w[4].level == "Note");
  CHECK(w[4].code == 1265);
  CHECK(w[5].code == 1048);
  CHECK(w[5].message == "Column 'nn' cannot be null");
  // A strict sql_mode whose statement let the value pass (a MyISAM table's later row) warns
  // 1406 for a cut string.
  rules.strict_sql_mode = true;
  w.clear();
  CHECK(CoerceToColumn(v, Value::String("abcd"), 1, rules).value() == Value::String("abc"));
  REQUIRE(w.size() == 1);
  CHECK(w[0].code == 1406);
  // A single-row INSERT's NULL stays an error.
  rules.null_is_error = true;
  CHECK(CoerceToColumn(nn, Value::Null(), 1, rules).error().code == 1048);
}

TEST_CASE("strict mode: doubles, strings, NULL", "[sql][table_def]") {
  ColumnDef d = Col("d", ColumnType::kDouble);
  CHECK(CoerceToColumn(d, Value::Int(3), 1).value() == Value::Double(3));
  CHECK(CoerceToColumn(d, Value::String("2.5"), 1).value() == Value::Double(2.5));
  CHECK(CoerceToColumn(d, Value::String("x"), 1).error().code == 1265);
  ColumnDef v = TextCol("v", ColumnType::kVarchar, 3);
  CHECK(CoerceToColumn(v, Value::Int(123), 1).value() == Value::String("123"));
  CHECK(CoerceToColumn(v, Value::Double(0.5), 1).value() == Value::String("0.5"));
  auto r = CoerceToColumn(v, Value::String("abcd"), 2);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == 1406);
  CHECK(r.error().message == "Data too long for column 'v' at row 2");
  CHECK(CoerceToColumn(v, Value::Int(1234), 1).error().code == 1406);
  CHECK(CoerceToColumn(v, Value::String("ab  "), 1).value() == Value::String("ab "));  // a note
  CHECK(CoerceToColumn(v, Value::String("a  "), 1).value() == Value::String("a  "));
  ColumnDef ch = TextCol("ch", ColumnType::kChar, 3);
  CHECK(CoerceToColumn(ch, Value::String("ab    "), 1).value() == Value::String("ab"));
  CHECK(CoerceToColumn(ch, Value::String("abcd"), 1).error().code == 1406);
  ColumnDef t = TextCol("t", ColumnType::kText);
  CHECK(CoerceToColumn(t, Value::String(std::string(65535, 'x')), 1).ok());
  CHECK(CoerceToColumn(t, Value::String(std::string(65536, 'x')), 1).error().code == 1406);
  ColumnDef nn = Col("nn", ColumnType::kInt, 0, false);
  auto n = CoerceToColumn(nn, Value::Null(), 1);
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().code == 1048);
  CHECK(n.error().message == "Column 'nn' cannot be null");
  CHECK(CoerceToColumn(v, Value::Null(), 1).value().is_null());
}

}  // namespace
}  // namespace minnow::sql

namespace minnow::sql {

TEST_CASE("ENUM and SET columns: members and defaults round-trip; values store by member",
          "[sql][table_def]") {
  TableDef def;
  def.name = "t";
  def.keyspace = "t";
  ColumnDef e;
  e.name = "e";
  e.type = ColumnType::kEnum;
  auto members = std::make_shared<EnumMembers>();
  members->names = {"x", "it's", "z"};
  e.members = members;
  e.default_value = Value::Enum(members, 2);
  ColumnDef s;
  s.name = "s";
  s.type = ColumnType::kSet;
  auto set_members = std::make_shared<EnumMembers>();
  set_members->is_set = true;
  set_members->names = {"a", "b", "c"};
  s.members = set_members;
  def.columns = {e, s};
  REQUIRE(ResolveCollations(&def).ok());
  SqlResult<TableDef> back = ParseTableDef(SerializeTableDef(def));
  REQUIRE(back.ok());
  REQUIRE(back->columns.size() == 2);
  CHECK(back->columns[0].members->names == members->names);
  CHECK(back->columns[0].BaseTypeString() == "enum('x','it''s','z')");
  CHECK(back->columns[1].BaseTypeString() == "set('a','b','c')");
  REQUIRE(back->columns[0].default_value.has_value());
  CHECK(back->columns[0].default_value->ToString() == "it's");
  CHECK(back->columns[0].collation == def.columns[0].collation);

  const ColumnDef& ec = back->columns[0];
  const ColumnDef& sc = back->columns[1];
  CHECK(CoerceToColumn(ec, Value::String("Z"), 1)->as_enum().number == 3);  // _ai_ci
  CHECK(CoerceToColumn(ec, Value::Int(1), 1)->ToString() == "x");
  CHECK(CoerceToColumn(ec, Value::String("w"), 1).error().code == kErWarnDataTruncated);
  CHECK(CoerceToColumn(sc, Value::String("c,a"), 1)->ToString() == "a,c");
  CHECK(CoerceToColumn(sc, Value::Int(6), 1)->ToString() == "b,c");
  CHECK(CoerceToColumn(sc, Value::Int(8), 1).error().code == kErWarnDataTruncated);
  std::vector<SqlWarning> warnings;
  StoreRules lax;
  lax.errors = false;
  lax.warnings = &warnings;
  CHECK(CoerceToColumn(sc, Value::String("a,w"), 1, lax)->as_enum().number == 1);
  CHECK(warnings.size() == 1);
  // An ENUM value into an integer column is its index, into text its name.
  ColumnDef i;
  i.name = "i";
  i.type = ColumnType::kInt;
  CHECK(CoerceToColumn(i, Value::Enum(members, 3), 1)->as_int() == 3);
}

}  // namespace minnow::sql
