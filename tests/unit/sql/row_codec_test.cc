#include "sql_lite_front/catalog/row_codec.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace minnow::sql {
namespace {

ColumnDef Col(std::string name, ColumnType type, bool nullable, bool is_unsigned = false,
              uint32_t length = 0) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  c.nullable = nullable;
  c.is_unsigned = is_unsigned;
  c.length = length;
  return c;
}

// Every type, signed and unsigned, nullable and not.
std::vector<ColumnDef> AllColumns() {
  std::vector<ColumnDef> cols;
  const ColumnType ints[] = {ColumnType::kTinyInt, ColumnType::kSmallInt, ColumnType::kMediumInt,
                             ColumnType::kInt, ColumnType::kBigInt};
  int n = 0;
  for (ColumnType t : ints)
    for (bool u : {false, true})
      for (bool nullable : {false, true})
        cols.push_back(Col("c" + std::to_string(n++), t, nullable, u));
  for (bool nullable : {false, true}) {
    cols.push_back(Col("c" + std::to_string(n++), ColumnType::kDouble, nullable));
    cols.push_back(Col("c" + std::to_string(n++), ColumnType::kChar, nullable, false, 20));
    cols.push_back(Col("c" + std::to_string(n++), ColumnType::kVarchar, nullable, false, 300));
    cols.push_back(Col("c" + std::to_string(n++), ColumnType::kText, nullable));
    cols.push_back(Col("c" + std::to_string(n++), ColumnType::kBlob, nullable));
  }
  // DECIMAL(M,D): the smallest and largest widths, a scale equal to M, unsigned.
  struct Dec {
    uint32_t m;
    uint8_t d;
    bool is_unsigned;
  };
  for (Dec x : {Dec{10, 2, false}, Dec{65, 30, false}, Dec{1, 0, false}, Dec{3, 3, false},
                Dec{18, 4, true}}) {
    for (bool nullable : {false, true}) {
      cols.push_back(
          Col("c" + std::to_string(n++), ColumnType::kDecimal, nullable, x.is_unsigned, x.m));
      cols.back().scale = x.d;
    }
  }
  return cols;
}

// A random value already in the column's domain (NULL sometimes, if nullable).
Value RandomValue(const ColumnDef& c, std::mt19937_64& rng) {
  if (c.nullable && rng() % 8 == 0) return Value::Null();
  if (IsIntegerType(c.type)) {
    int bits = c.type == ColumnType::kTinyInt     ? 8
               : c.type == ColumnType::kSmallInt  ? 16
               : c.type == ColumnType::kMediumInt ? 24
               : c.type == ColumnType::kInt       ? 32
                                                  : 64;
    int64_t v;
    if (bits == 64) {
      v = static_cast<int64_t>(rng());
      if (c.is_unsigned && v < 0) v = -(v + 1);
    } else {
      uint64_t raw = rng() & ((uint64_t{1} << bits) - 1);
      v = c.is_unsigned ? static_cast<int64_t>(raw)
                        : static_cast<int64_t>(raw) - (int64_t{1} << (bits - 1));
    }
    if (rng() % 4 == 0) v = static_cast<int64_t>(rng() % 5) - (c.is_unsigned ? 0 : 2);  // small
    return Value::Int(v);
  }
  if (c.type == ColumnType::kDouble) {
    switch (rng() % 4) {
      case 0:
        return Value::Double(static_cast<double>(static_cast<int64_t>(rng() % 200) - 100) / 8);
      case 1:
        return Value::Double(rng() % 2 ? 0.0 : -0.0);
      default: {
        uint64_t bits = rng();
        double d;
        std::memcpy(&d, &bits, 8);
        if (std::isnan(d) || std::isinf(d)) d = 1;
        return Value::Double(d);
      }
    }
  }
  if (c.type == ColumnType::kDecimal) {
    // Up to M digits (often few, so values near 0 and equal values meet), scale D.
    const size_t digits = rng() % 3 == 0 ? c.length : 1 + rng() % c.length;
    std::string text = !c.is_unsigned && rng() % 2 == 0 ? "-" : "";
    std::string body;
    for (size_t i = 0; i < digits; ++i) body += static_cast<char>('0' + rng() % 10);
    body.insert(0, c.length - digits, '0');
    text += body.substr(0, c.length - c.scale);
    if (c.scale > 0) text += "." + body.substr(c.length - c.scale);
    std::optional<Decimal> d = Decimal::Parse(text);
    REQUIRE(d.has_value());
    return Value::Dec(*d);
  }
  // Strings over a small alphabet with NULs and 0xFF, so escapes and prefixes meet often.
  static const char kAlphabet[] = {'\0', '\x01', 'a', 'b', '\xff', ' '};
  size_t len = rng() % 6;
  std::string s;
  for (size_t i = 0; i < len; ++i) s += kAlphabet[rng() % sizeof(kAlphabet)];
  if (c.type == ColumnType::kChar)
    while (!s.empty() && s.back() == ' ') s.pop_back();
  return Value::String(s);
}

// SQL order with NULL first.
int SqlCompare(const Value& a, const Value& b) {
  int c = Value::Compare(a, b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

int ByteCompare(const std::string& a, const std::string& b) {
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

bool SameValue(const Value& a, const Value& b) {
  if (a.is_double() && b.is_double()) {  // -0 comes back from a key as 0
    return a.as_double() == b.as_double();
  }
  return a == b;
}

TEST_CASE("key columns round-trip and sort as SQL sorts", "[sql][row_codec]") {
  std::mt19937_64 rng(1);
  for (const ColumnDef& c : AllColumns()) {
    INFO("column type " << c.BaseTypeString() << (c.nullable ? " nullable" : ""));
    std::vector<Value> values;
    for (int i = 0; i < 300; ++i) values.push_back(RandomValue(c, rng));
    std::vector<std::string> keys;
    for (const Value& v : values) {
      std::string k;
      AppendKeyColumn(c, v, &k);
      size_t pos = 0;
      auto back = DecodeKeyColumn(c, k, &pos);
      REQUIRE(back.ok());
      CHECK(pos == k.size());
      CHECK(SameValue(*back, v));
      keys.push_back(k);
    }
    for (size_t i = 0; i < values.size(); ++i)
      for (size_t j = 0; j < values.size(); j += 7) {
        INFO(values[i].ToString() << " vs " << values[j].ToString());
        CHECK(ByteCompare(keys[i], keys[j]) == SqlCompare(values[i], values[j]));
      }
  }
}

TEST_CASE("composite keys sort column by column", "[sql][row_codec]") {
  std::mt19937_64 rng(2);
  std::vector<ColumnDef> cols = {Col("a", ColumnType::kVarchar, true, false, 10),
                                 Col("b", ColumnType::kInt, false),
                                 Col("c", ColumnType::kDouble, true)};
  std::vector<std::pair<std::vector<Value>, std::string>> rows;
  for (int i = 0; i < 2000; ++i) {
    std::vector<Value> r;
    std::string k;
    for (const ColumnDef& c : cols) {
      r.push_back(RandomValue(c, rng));
      AppendKeyColumn(c, r.back(), &k);
    }
    rows.emplace_back(std::move(r), std::move(k));
  }
  auto by_sql = rows, by_bytes = rows;
  std::stable_sort(by_sql.begin(), by_sql.end(), [](const auto& x, const auto& y) {
    for (size_t i = 0; i < x.first.size(); ++i) {
      int c = SqlCompare(x.first[i], y.first[i]);
      if (c != 0) return c < 0;
    }
    return false;
  });
  std::stable_sort(by_bytes.begin(), by_bytes.end(),
                   [](const auto& x, const auto& y) { return x.second < y.second; });
  for (size_t i = 0; i < rows.size(); ++i) CHECK(by_sql[i].second == by_bytes[i].second);
}

TEST_CASE("AppendKeyPrefix is a prefix of exactly the strings that start with it",
          "[sql][row_codec]") {
  std::mt19937_64 rng(3);
  for (bool nullable : {false, true}) {
    ColumnDef c = Col("j", ColumnType::kVarchar, nullable, false, 255);
    for (int i = 0; i < 3000; ++i) {
      Value p = RandomValue(c, rng), s = RandomValue(c, rng);
      if (!p.is_string()) continue;
      std::string pk;
      AppendKeyPrefix(c, p.as_string(), &pk);
      std::string sk;
      AppendKeyColumn(c, s, &sk);
      bool starts =
          s.is_string() && s.as_string().compare(0, p.as_string().size(), p.as_string()) == 0;
      INFO("prefix size " << p.as_string().size());
      CHECK((sk.compare(0, pk.size(), pk) == 0) == starts);
    }
  }
  // W1's `j LIKE '5%'`.
  ColumnDef j = Col("j", ColumnType::kVarchar, true, false, 255);
  std::string prefix;
  AppendKeyPrefix(j, "5", &prefix);
  for (std::string s : {"5", "5abc", "50"}) {
    std::string k;
    AppendKeyColumn(j, Value::String(s), &k);
    CHECK(k.compare(0, prefix.size(), prefix) == 0);
  }
  for (std::string s : {"4", "6", ""}) {
    std::string k;
    AppendKeyColumn(j, Value::String(s), &k);
    CHECK(k.compare(0, prefix.size(), prefix) != 0);
  }
}

TEST_CASE("IndexValueText reads the n-th text of an entry's value", "[sql][row_codec]") {
  const std::string value = std::string(
      "\x03"
      "abc"
      "\x00"
      "\x01"
      "x",
      7);
  std::string_view text;
  REQUIRE(IndexValueText(value, 0, &text));
  CHECK(text == "abc");
  REQUIRE(IndexValueText(value, 1, &text));
  CHECK(text.empty());
  REQUIRE(IndexValueText(value, 2, &text));
  CHECK(text == "x");
  CHECK_FALSE(IndexValueText(value, 3, &text));
  CHECK_FALSE(IndexValueText(std::string("\x05"
                                         "ab"),
                             0, &text));  // ends inside the text
  CHECK_FALSE(IndexValueText("", 0, &text));
}

TEST_CASE("fixed key widths as the format says", "[sql][row_codec]") {
  std::string k;
  AppendKeyColumn(Col("i", ColumnType::kInt, false, true), Value::Int(1), &k);
  CHECK(k == std::string("\0\0\0\1", 4));
  k.clear();
  AppendKeyColumn(Col("i", ColumnType::kInt, false), Value::Int(-1), &k);
  CHECK(k == "\x7f\xff\xff\xff");
  k.clear();
  AppendKeyColumn(Col("i", ColumnType::kSmallInt, true), Value::Null(), &k);
  CHECK(k == std::string("\0", 1));
  k.clear();
  AppendKeyColumn(Col("s", ColumnType::kVarchar, false, false, 9),
                  Value::String(std::string("a\0", 2)), &k);
  CHECK(k == std::string("a\0\xff\0\0", 5));
  k.clear();
  AppendRowId(0x010203040506, &k);
  CHECK(k == "\x01\x02\x03\x04\x05\x06");
}

TEST_CASE("decimal keys: fixed widths, numeric order across signs", "[sql][row_codec]") {
  CHECK(Decimal::FixedBytes(1) == 1);
  CHECK(Decimal::FixedBytes(2) == 1);
  CHECK(Decimal::FixedBytes(3) == 2);
  CHECK(Decimal::FixedBytes(10) == 5);
  CHECK(Decimal::FixedBytes(65) == 28);
  ColumnDef c = Col("d", ColumnType::kDecimal, false, false, 5);
  c.scale = 2;
  const char* ordered[] = {"-999.99", "-100.00", "-1.00", "-0.99", "-0.01",  "0.00",
                           "0.01",    "0.99",    "1.00",  "1.50",  "100.00", "999.99"};
  std::vector<std::string> keys;
  for (const char* text : ordered) {
    std::string k;
    AppendKeyColumn(c, Value::Dec(*Decimal::Parse(text)), &k);
    CHECK(k.size() == 3);
    size_t pos = 0;
    auto back = DecodeKeyColumn(c, k, &pos);
    REQUIRE(back.ok());
    CHECK(back->ToString() == text);
    keys.push_back(k);
  }
  for (size_t i = 1; i < keys.size(); ++i) CHECK(keys[i - 1] < keys[i]);
  // 0.00 is 0x800000: the sign bit flipped on 0; -0.01 is all ones without it.
  CHECK(keys[5] == std::string("\x80\x00\x00", 3));
  CHECK(keys[4] == "\x7f\xff\xff");
  // An integer stored into the column is the same key as its decimal.
  std::string k;
  AppendKeyColumn(c, Value::Int(1), &k);
  CHECK(k == keys[8]);
}

TableDef WideTable(bool hidden_pk) {
  TableDef def;
  def.name = "t";
  def.keyspace = "t";
  def.columns = AllColumns();
  if (!hidden_pk) def.primary_key = {4, 21};  // SMALLINT NOT NULL, CHAR(20) NOT NULL
  def.indexes = {IndexDef{"k1", {22, 4}, "t.k1"}, IndexDef{"k2", {27}, "t.k2"}};
  return def;
}

TEST_CASE("rows round-trip through key, value and index entries", "[sql][row_codec]") {
  std::mt19937_64 rng(4);
  for (bool hidden : {false, true}) {
    TableDef def = WideTable(hidden);
    REQUIRE((hidden || (!def.columns[4].nullable && !def.columns[21].nullable)));
    for (int i = 0; i < 500; ++i) {
      Row row;
      for (const ColumnDef& c : def.columns) row.push_back(RandomValue(c, rng));
      std::string key;
      uint64_t row_id = rng() & 0xffffffffffff;
      if (hidden) {
        AppendRowId(row_id, &key);
      } else {
        key = EncodePrimaryKey(def, row);
      }
      std::string value;
      EncodeRowValue(def, row, &value);
      Row back(def.columns.size());
      uint64_t got_id = 0;
      REQUIRE(DecodePrimaryKey(def, key, &back, &got_id).ok());
      REQUIRE(DecodeRowValue(def, value, &back).ok());
      if (hidden) CHECK(got_id == row_id);
      for (size_t c = 0; c < row.size(); ++c) CHECK(SameValue(back[c], row[c]));
      for (const IndexDef& ix : def.indexes) {
        std::string ik = EncodeIndexKey(def, ix, row, key);
        Row from_index(def.columns.size());
        std::string clustered;
        REQUIRE(DecodeIndexKey(def, ix, ik, EncodeIndexValue(def, ix, row), &from_index, &clustered)
                    .ok());
        CHECK(clustered == key);
        for (uint32_t c : ix.columns) CHECK(SameValue(from_index[c], row[c]));
        for (uint32_t c : def.primary_key) CHECK(SameValue(from_index[c], row[c]));
      }
    }
  }
}

TEST_CASE("rows stored before an instant ADD COLUMN read the added columns' defaults",
          "[sql][row_codec]") {
  std::mt19937_64 rng(5);
  TableDef before = WideTable(false);
  const auto core = static_cast<uint32_t>(before.columns.size());
  // One instant add of two columns, then another of one.
  TableDef mid = before;
  ColumnDef with_default = Col("added1", ColumnType::kInt, false);
  with_default.default_value = Value::Int(42);
  mid.columns.push_back(with_default);
  mid.columns.push_back(Col("added2", ColumnType::kVarchar, true, false, 10));
  mid.core_columns = core;
  TableDef after = mid;
  after.columns.push_back(Col("added3", ColumnType::kChar, false, false, 3));
  const Value defaults[] = {Value::Int(42), Value::Null(), Value::String("")};
  for (int i = 0; i < 200; ++i) {
    Row row;
    for (const ColumnDef& c : after.columns) row.push_back(RandomValue(c, rng));
    std::string old_value, mid_value, new_value;
    EncodeRowValue(before, row, &old_value);
    EncodeRowValue(mid, row, &mid_value);
    EncodeRowValue(after, row, &new_value);
    CHECK(mid_value.substr(0, old_value.size()) == old_value);  // the core part is unchanged
    Row from_old(after.columns.size()), from_mid(after.columns.size()),
        from_new(after.columns.size());
    REQUIRE(DecodeRowValue(after, old_value, &from_old).ok());
    REQUIRE(DecodeRowValue(after, mid_value, &from_mid).ok());
    REQUIRE(DecodeRowValue(after, new_value, &from_new).ok());
    for (uint32_t c = 0; c < after.columns.size(); ++c) {
      if (after.IsPrimaryKeyColumn(c)) continue;
      CHECK(SameValue(from_new[c], row[c]));
      CHECK(SameValue(from_old[c], c < core ? row[c] : defaults[c - core]));
      CHECK(SameValue(from_mid[c], c < core + 2 ? row[c] : defaults[c - core]));
    }
    // A count of 0 or past the table's added columns is damage.
    for (uint8_t bad : {uint8_t{0}, uint8_t{4}}) {
      std::string damaged = old_value;
      damaged.push_back(static_cast<char>(bad));
      CHECK_FALSE(DecodeRowValue(after, damaged, &from_old).ok());
    }
    CHECK_FALSE(DecodeRowValue(after, new_value + "x", &from_new).ok());
  }
  // The catalog record keeps the count; a table without instant columns writes none.
  auto parsed = ParseTableDef(SerializeTableDef(after));
  REQUIRE(parsed.ok());
  CHECK(parsed->core_columns == core);
  CHECK(parsed->StoredCoreColumns() == core);
  CHECK(SerializeTableDef(before).size() < SerializeTableDef(mid).size());
  auto plain = ParseTableDef(SerializeTableDef(before));
  REQUIRE(plain.ok());
  CHECK(plain->core_columns == 0);
  CHECK(plain->StoredCoreColumns() == before.columns.size());
}

TEST_CASE("W1's row value is 34 bytes", "[sql][row_codec]") {
  TableDef def;
  def.columns = {Col("i", ColumnType::kInt, false, true),
                 Col("j", ColumnType::kVarchar, true, false, 255)};
  def.primary_key = {0};
  Row row = {Value::Int(1), Value::String(std::string(32, 'f'))};
  std::string value;
  EncodeRowValue(def, row, &value);
  CHECK(value.size() == 34);
}

TEST_CASE("malformed keys and values are refused with 1105, never read out of bounds",
          "[sql][row_codec]") {
  std::mt19937_64 rng(6);
  TableDef def = WideTable(false);
  Row row;
  for (const ColumnDef& c : def.columns) row.push_back(RandomValue(c, rng));
  std::string key = EncodePrimaryKey(def, row);
  std::string value;
  EncodeRowValue(def, row, &value);
  std::string ik = EncodeIndexKey(def, def.indexes[0], row, key);
  // Every truncation fails.
  for (size_t n = 0; n < key.size(); ++n) {
    Row r(def.columns.size());
    SqlStatus st = DecodePrimaryKey(def, std::string_view(key).substr(0, n), &r);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == kErUnknownError);
  }
  for (size_t n = 0; n < value.size(); ++n) {
    Row r(def.columns.size());
    // Cut value bytes copied so ASan sees reads past the end.
    std::string cut = value.substr(0, n);
    CHECK_FALSE(DecodeRowValue(def, cut, &r).ok());
  }
  for (size_t n = 0; n < ik.size(); ++n) {
    Row r(def.columns.size());
    std::string ck;
    std::string cut = ik.substr(0, n);
    CHECK_FALSE(DecodeIndexKey(def, def.indexes[0], cut, "", &r, &ck).ok());
  }
  CHECK_FALSE(DecodeRowValue(def, value + "x", &row).ok());
  CHECK_FALSE(DecodePrimaryKey(def, key + "x", &row).ok());
  // Random bytes: no crash.
  for (int i = 0; i < 20000; ++i) {
    std::string b(rng() % 40, '\0');
    for (char& c : b) c = static_cast<char>(rng());
    Row r(def.columns.size());
    std::string ck;
    (void)DecodePrimaryKey(def, b, &r).ok();
    (void)DecodeRowValue(def, b, &r).ok();
    (void)DecodeIndexKey(def, def.indexes[1], b, "", &r, &ck).ok();
  }
  // A bad escape inside a string.
  ColumnDef s = Col("s", ColumnType::kVarchar, false, false, 10);
  size_t pos = 0;
  CHECK_FALSE(DecodeKeyColumn(s, std::string("a\0\x01", 3), &pos).ok());
  pos = 0;
  CHECK_FALSE(
      DecodeKeyColumn(Col("n", ColumnType::kInt, true), std::string("\x02\0\0\0\0", 5), &pos).ok());
}

}  // namespace
}  // namespace minnow::sql

namespace minnow::sql {
namespace {

ColumnDef EnumCol(ColumnType type, size_t members) {
  ColumnDef c = Col("e", type, true);
  auto m = std::make_shared<EnumMembers>();
  m->is_set = type == ColumnType::kSet;
  for (size_t i = 0; i < members; ++i) m->names.push_back("m" + std::to_string(i));
  c.members = std::move(m);
  return c;
}

}  // namespace

TEST_CASE("ENUM and SET keys: the number, in member order, widths by member count",
          "[sql][row_codec]") {
  for (auto [type, members, width] : {std::tuple{ColumnType::kEnum, size_t{3}, size_t{1}},
                                      std::tuple{ColumnType::kEnum, size_t{300}, size_t{2}},
                                      std::tuple{ColumnType::kSet, size_t{8}, size_t{1}},
                                      std::tuple{ColumnType::kSet, size_t{20}, size_t{3}},
                                      std::tuple{ColumnType::kSet, size_t{64}, size_t{8}}}) {
    const ColumnDef col = EnumCol(type, members);
    const uint64_t top = type == ColumnType::kEnum ? members : (members == 64 ? ~uint64_t{0} : 5);
    std::vector<uint64_t> numbers = {0, 1, 2, top};
    std::string previous;
    for (uint64_t n : numbers) {
      std::string key;
      AppendKeyColumn(col, Value::Enum(col.members, n), &key);
      REQUIRE(key.size() == 1 + width);  // the null flag, then the number
      CHECK(key > previous);
      previous = key;
      size_t pos = 0;
      SqlResult<Value> back = DecodeKeyColumn(col, key, &pos);
      REQUIRE(back.ok());
      REQUIRE(back->is_enum());
      CHECK(back->as_enum().number == n);
      CHECK(pos == key.size());
    }
  }
}

}  // namespace minnow::sql
