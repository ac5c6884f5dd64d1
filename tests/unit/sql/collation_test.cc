// Collations (collation.h) and the key encoding of text under them (row_codec.h).

#include "sql_lite_front/collation.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sql_lite_front/catalog/row_codec.h"

namespace minnow::sql {
namespace {

const Collation& Named(std::string_view name) {
  const Collation* c = FindCollation(name);
  REQUIRE(c != nullptr);
  return *c;
}

std::string Key(const Collation& c, std::string_view s) {
  std::string k;
  AppendCollationKey(c, s, &k);
  return k;
}

int Sign(int x) { return x < 0 ? -1 : (x > 0 ? 1 : 0); }

TEST_CASE("ai_ci ignores case and accents, is NO PAD; as_cs and _bin do not", "[sql][collation]") {
  const Collation& ai = Named("utf8mb4_0900_ai_ci");
  const Collation& cs = Named("utf8mb4_0900_as_cs");
  const Collation& bin = Named("utf8mb4_bin");
  const Collation& general = Named("utf8mb3_general_ci");
  CHECK(CollationCompare(ai, "a", "A") == 0);
  CHECK(CollationCompare(ai, "José", "jose") == 0);
  CHECK(CollationCompare(ai, "carol", "Bob") > 0);
  CHECK(CollationCompare(ai, "a", "a ") < 0);        // NO PAD
  CHECK(CollationCompare(general, "a", "a ") == 0);  // PAD SPACE
  CHECK(CollationCompare(bin, "a", "a  ") == 0);     // utf8mb4_bin is PAD SPACE too
  CHECK(CollationCompare(cs, "a", "A") < 0);         // lower case first, as MySQL's as_cs
  CHECK(CollationCompare(cs, "e", "é") < 0);
  CHECK(CollationCompare(bin, "a", "A") > 0);
  CHECK(CollationCompare(bin, "carol", "Bob") > 0);
  CHECK(CollationCompare(bin, "Bob", "alice") < 0);  // code point order: 'B' < 'a'
}

TEST_CASE("sort keys order as the collation compares", "[sql][collation]") {
  const std::vector<std::string> words = {
      "",     "a",    "A", "á",  "ab",    "Ab",    "b",  "B",   "carol", "Bob", "José", "jose",
      "JOSE", "jos5", "ß", "ss", "zebra", "Émile", "a ", "a b", "5",     "٥",   "中文"};
  for (std::string_view name : {"utf8mb4_0900_ai_ci", "utf8mb4_0900_as_cs", "utf8mb4_general_ci"}) {
    const Collation& c = Named(name);
    for (const std::string& x : words) {
      std::string kx = Key(c, x);
      CHECK(kx.back() == '\0');
      CHECK(kx.find('\0') == kx.size() - 1);  // no other 0x00: keys of columns can be joined
      for (const std::string& y : words) {
        INFO(name << ": '" << x << "' vs '" << y << "'");
        CHECK(Sign(kx.compare(Key(c, y))) == Sign(CollationCompare(c, x, y)));
      }
    }
  }
}

TEST_CASE("a LIKE prefix's key prefix starts every matching text's key", "[sql][collation]") {
  const std::vector<std::string> texts = {"José", "jose",  "JOSÉ MÜLLER", "jos",  "jos5",
                                          "josa", "Jos-x", "jos\xcc\x81", "jos中"};
  for (std::string_view name : {"utf8mb4_0900_ai_ci", "utf8mb4_0900_as_cs"}) {
    const Collation& c = Named(name);
    for (std::string_view prefix : {"jos", "JOS", "jo", "j"}) {
      std::string p = CollationKeyPrefix(c, prefix);
      for (const std::string& t : texts) {
        std::string pattern = std::string(prefix) + "%";
        if (!CollationLike(c, t, pattern)) continue;
        INFO(name << ": '" << t << "' LIKE '" << pattern << "'");
        CHECK(Key(c, t).compare(0, p.size(), p) == 0);
      }
    }
  }
  CHECK(CollationLike(Named("utf8mb4_0900_ai_ci"), "José", "jos%"));
  CHECK(CollationLike(Named("utf8mb4_0900_ai_ci"), "José", "jos_"));
  CHECK_FALSE(CollationLike(Named("utf8mb4_0900_as_cs"), "José", "jos%"));
  CHECK_FALSE(CollationLike(Named("utf8mb4_bin"), "José", "jos%"));
  CHECK(CollationLike(Named("utf8mb4_bin"), "José", "Jos_"));     // _ is one character
  CHECK_FALSE(CollationLike(BinaryCollation(), "José", "Jos_"));  // binary: é is two bytes
}

TEST_CASE("a LIKE prefix's key range is a superset: what it holds that the LIKE does not match",
          "[sql][collation]") {
  const Collation& ai = Named("utf8mb4_0900_ai_ci");
  const std::string five = CollationKeyPrefix(ai, "5");
  // An ignorable character before the 5 (soft hyphen), an expansion that starts with 5's
  // weight ('⒌' = '5.'): in the range, not LIKE '5%' (one character against one character).
  for (std::string t : {"\u00ad5", "\u248cx"}) {
    INFO("'" << t << "'");
    CHECK(Key(ai, t).compare(0, five.size(), five) == 0);
    CHECK_FALSE(CollationLike(ai, t, "5%"));
  }
  CHECK(CollationLike(ai, "\u24645", "5%"));  // '⑤' differs from 5 only at the third level
  // PAD SPACE: keys drop trailing spaces, so the prefix of LIKE 'a %' must: 'a ' is in range.
  const Collation& general = Named("utf8mb3_general_ci");
  const std::string a_space = CollationKeyPrefix(general, "a ");
  for (std::string t : {"a ", "a  b", "A  "}) {
    INFO("'" << t << "'");
    CHECK(CollationLike(general, t, "a %"));
    CHECK(Key(general, t).compare(0, a_space.size(), a_space) == 0);
  }
  CHECK(CollationKeyPrefix(ai, "a ") != CollationKeyPrefix(ai, "a"));  // NO PAD keeps it
}

TEST_CASE("LIKE with a trailing % and escaped wildcards", "[sql][collation]") {
  const Collation& ai = Named("utf8mb4_0900_ai_ci");
  CHECK(CollationLike(ai, "5abc", "5%"));
  CHECK(CollationLike(ai, "5", "5%%"));
  CHECK(CollationLike(ai, "", "%"));
  CHECK(CollationLike(ai, "Ábc", "a%"));
  CHECK_FALSE(CollationLike(ai, "x5", "5%"));
  CHECK(CollationLike(ai, "a%b", "a\\%%"));
  CHECK_FALSE(CollationLike(ai, "ab", "a\\%%"));
  CHECK(CollationLike(ai, "a_b", "a\\_%"));
  CHECK_FALSE(CollationLike(ai, "ab", "a\\_%"));
  CHECK(CollationLike(ai, "a\\b", "a\\\\%"));
  CHECK(CollationLike(ai, "axb", "a%b%"));
  CHECK_FALSE(CollationLike(ai, "axc", "a%b%"));
  CHECK(CollationLike(BinaryCollation(), "5\xff", "5%"));  // bytes that are not UTF-8
}

TEST_CASE("UTF-8 helpers count characters and map case", "[sql][collation]") {
  CHECK(Utf8Length("ééééé") == 5);
  CHECK(Utf8Upper("josé müller ß") == "JOSÉ MÜLLER ß");  // simple mappings, as MySQL's
  CHECK(Utf8Lower("ÀÉÎ Straße") == "àéî straße");
  CHECK(Utf8InvalidAt("ab\xe9z", false) == 2);
  CHECK(Utf8InvalidAt("a😀", true) == 1);  // utf8mb3 has no supplementary characters
  CHECK(Utf8InvalidAt("a😀", false) == std::string_view::npos);
}

TEST_CASE("a text key column under ai_ci: one key for case variants, text kept aside",
          "[sql][collation]") {
  TableDef def;
  def.name = "t";
  ColumnDef name;
  name.name = "name";
  name.type = ColumnType::kVarchar;
  name.length = 20;
  name.nullable = false;
  name.collation = FindCollation("utf8mb4_0900_ai_ci");
  ColumnDef n;
  n.name = "n";
  def.columns = {name, n};
  def.primary_key = {0};
  def.indexes.push_back(IndexDef{"n", {1}, "t.n"});
  def.keyspace = "t";
  Row a = {Value::String("Alice"), Value::Int(1)};
  Row b = {Value::String("alice"), Value::Int(2)};
  CHECK(EncodePrimaryKey(def, a) == EncodePrimaryKey(def, b));  // 1062 for the second
  std::string key = EncodePrimaryKey(def, a), value;
  EncodeRowValue(def, a, &value);
  Row back(2);
  REQUIRE(DecodePrimaryKey(def, key, &back).ok());
  REQUIRE(DecodeRowValue(def, value, &back).ok());
  CHECK(back[0] == Value::String("Alice"));  // the text, as inserted
  const IndexDef& ix = def.indexes[0];
  std::string ik = EncodeIndexKey(def, ix, a, key);
  Row from_index(2);
  std::string clustered;
  REQUIRE(DecodeIndexKey(def, ix, ik, EncodeIndexValue(def, ix, a), &from_index, &clustered).ok());
  CHECK(clustered == key);
  CHECK(from_index[0] == Value::String("Alice"));
  CHECK(from_index[1] == Value::Int(1));
}

}  // namespace
}  // namespace minnow::sql
