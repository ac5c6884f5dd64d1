// DDL and the catalog's SHOW statements, through SqlSession (parser -> session -> ddl.cc).

#include "sql_lite_front/catalog/ddl.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "sql_lite_front/session/variables.h"
#include "sql_lite_front/sql_engine.h"
#include "tests/unit/engine/engine_test_util.h"

namespace minnow::sql {
namespace {

using minnow::testing::Take;
using minnow::testing::TempDir;

Options MemoryOptions() {
  Options o;
  o.path = ":memory:";
  o.buffer_pool_bytes = 16u << 20;
  o.lock_wait_timeout_ms = 500;
  return o;
}

struct Fixture {
  explicit Fixture(const Options& o = MemoryOptions()) {
    db = Take(Database::Open(o));
    auto e = SqlEngine::Open(db.get());
    INFO((e.ok() ? "" : e.error().ToString()));
    REQUIRE(e.ok());
    engine = std::move(e).value();
    session = engine->NewSession();
  }
  // Runs a statement that must succeed.
  StatementResult Ok(std::string_view sql) {
    auto r = session->Execute(sql);
    INFO(sql << " -> " << (r.ok() ? "" : r.error().ToString()));
    REQUIRE(r.ok());
    return std::move(r).value();
  }
  // Runs a statement that must fail; returns the error.
  SqlError Err(std::string_view sql) {
    auto r = session->Execute(sql);
    INFO(sql);
    REQUIRE_FALSE(r.ok());
    return r.error();
  }
  // The rows of a query, each row's cells joined with '|' (NULL as "NULL").
  std::vector<std::string> Rows(std::string_view sql) {
    StatementResult r = Ok(sql);
    std::vector<std::string> out;
    for (const auto& row : r.rows) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) {
        if (i > 0) line += '|';
        line += row[i].has_value() ? *row[i] : "NULL";
      }
      out.push_back(line);
    }
    return out;
  }
  std::vector<std::string> Keyspaces() { return Take(db->ListKeyspaces()); }

  std::unique_ptr<Database> db;
  std::unique_ptr<SqlEngine> engine;
  std::unique_ptr<SqlSession> session;
};

const char* kSample =
    "CREATE TABLE sample (i int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, j varchar(255), "
    "KEY j (j)) ENGINE=InnoDB DEFAULT CHARSET=utf8";

TEST_CASE("ddl: CREATE TABLE, SHOW CREATE TABLE, SHOW COLUMNS, SHOW INDEX", "[sql][ddl]") {
  Fixture f;
  f.Ok(kSample);
  CHECK(f.Rows("SHOW TABLES") == std::vector<std::string>{"sample"});
  CHECK(f.Rows("SHOW FULL TABLES LIKE 'sam%'").size() == 1);
  CHECK(f.Rows("SHOW TABLES LIKE 'x%'").empty());
  CHECK(f.Ok("SHOW TABLES").columns == std::vector<std::string>{"Tables_in_test"});
  CHECK(f.Rows("SHOW CREATE TABLE sample") ==
        std::vector<std::string>{"sample|CREATE TABLE `sample` (\n"
                                 "  `i` int unsigned NOT NULL AUTO_INCREMENT,\n"
                                 "  `j` varchar(255) DEFAULT NULL,\n"
                                 "  PRIMARY KEY (`i`),\n"
                                 "  KEY `j` (`j`)\n"
                                 ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb3"});
  f.Ok("INSERT INTO sample (j) VALUES ('a'), ('b'), ('c')");
  CHECK(f.Rows("SHOW CREATE TABLE sample")[0].find("AUTO_INCREMENT=4 DEFAULT") !=
        std::string::npos);
  CHECK(f.Rows("DESCRIBE sample") ==
        std::vector<std::string>{"i|int unsigned|NO|PRI|NULL|auto_increment",
                                 "j|varchar(255)|YES|MUL|NULL|"});
  CHECK(f.Rows("SHOW INDEX FROM sample") ==
        std::vector<std::string>{"sample|0|PRIMARY|1|i|A|NULL|NULL|NULL||BTREE|||YES|NULL",
                                 "sample|1|j|1|j|A|NULL|NULL|NULL|YES|BTREE|||YES|NULL"});
  // Unnamed indexes are named after their first column; defaults are kept as given.
  f.Ok(
      "CREATE TABLE t2 (a int, b int DEFAULT '7', c double NOT NULL DEFAULT 1.5, "
      "KEY (a), KEY (a, b), INDEX (b))");
  CHECK(f.Rows("SHOW INDEX FROM t2").size() == 4);
  std::vector<std::string> names;  // Key_name
  for (const auto& row : f.Ok("SHOW INDEX FROM t2").rows) names.push_back(*row[2]);
  CHECK(names == std::vector<std::string>{"a", "a_2", "a_2", "b"});
  std::string create = f.Rows("SHOW CREATE TABLE t2")[0];
  INFO(create);
  CHECK(create.find("KEY `a_2` (`a`,`b`)") != std::string::npos);
  CHECK(create.find("`b` int DEFAULT '7'") != std::string::npos);
  CHECK(create.find("`c` double NOT NULL DEFAULT '1.5'") != std::string::npos);
  CHECK(create.find("DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci") != std::string::npos);
  // A table without a primary key keeps a hidden one (no SHOW INDEX row for it).
  f.Ok("CREATE TABLE heap (x varchar(10))");
  CHECK(f.Rows("SHOW INDEX FROM heap").empty());
  f.Ok("INSERT INTO heap VALUES ('q'), ('r')");
  CHECK(f.Rows("SELECT x FROM heap") == std::vector<std::string>{"q", "r"});
}

TEST_CASE("ddl: CREATE TABLE errors carry MySQL's codes", "[sql][ddl]") {
  Fixture f;
  f.Ok(kSample);
  auto code = [&](std::string_view sql) { return f.Err(sql).code; };
  SqlError e = f.Err(kSample);
  CHECK(e.code == 1050);
  CHECK(e.message == "Table 'sample' already exists");
  CHECK(code("CREATE TABLE SAMPLE (a int)") == 1050);
  auto note = f.Ok("CREATE TABLE IF NOT EXISTS sample (a int)");
  REQUIRE(note.warnings.size() == 1);
  CHECK(note.warnings[0].code == 1050);
  CHECK(code("CREATE TABLE t (a int, A int)") == 1060);
  CHECK(code("CREATE TABLE t (a int, KEY k (a), KEY k (a))") == 1061);
  e = f.Err("CREATE TABLE t (a int PRIMARY KEY, b int, PRIMARY KEY (b))");
  CHECK(e.code == 1068);
  CHECK(e.message == "Multiple primary key defined");
  e = f.Err("CREATE TABLE t (a int, KEY (x))");
  CHECK(e.code == 1072);
  CHECK(e.message == "Key column 'x' doesn't exist in table");
  CHECK(code("CREATE TABLE t (a int AUTO_INCREMENT)") == 1075);
  CHECK(code("CREATE TABLE t (a int AUTO_INCREMENT, b int AUTO_INCREMENT, KEY (a), KEY (b))") ==
        1075);
  CHECK(code("CREATE TABLE t (a int, b int AUTO_INCREMENT, PRIMARY KEY (a, b))") == 1075);
  f.Ok("CREATE TABLE ok1 (a int, b int AUTO_INCREMENT, PRIMARY KEY (a), KEY (b))");
  CHECK(code("CREATE TABLE t (a text, KEY (a))") == 1170);
  e = f.Err("CREATE TABLE t (a int) ENGINE=CSV");
  CHECK(e.code == 1286);
  CHECK(e.message == "Unknown storage engine 'CSV'");
  f.Ok("CREATE TABLE u1 (a int, UNIQUE KEY (a))");
  f.Ok("CREATE TABLE u2 (a int UNIQUE)");
  CHECK(f.Err("INSERT INTO u2 VALUES (1), (1)").message == "Duplicate entry '1' for key 'u2.a'");
  f.Ok("DROP TABLE u1, u2");
  e = f.Err("CREATE TABLE t (a varchar(2100), KEY (a))");
  CHECK(e.code == 1071);
  CHECK(e.message == "Specified key was too long; max key length is 2048 bytes");
  CHECK(code("CREATE TABLE t (a varchar(300), b varchar(300), PRIMARY KEY (a), KEY (b))") ==
        1071);  // the secondary key carries the primary key too (2 x 1,202 bytes)
  f.Ok("CREATE TABLE ok2 (a varchar(500), KEY (a))");  // 4 bytes a character: 2003 <= 2048
  e = f.Err("CREATE TABLE t (a tinyint DEFAULT 300)");
  CHECK(e.code == 1067);
  CHECK(e.message == "Invalid default value for 'a'");
  CHECK(code("CREATE TABLE t (a int NOT NULL DEFAULT NULL)") == 1067);
  CHECK(code("CREATE TABLE t (a int DEFAULT 'x')") == 1067);
  CHECK(code("CREATE TABLE t (a varchar(2) DEFAULT 'abc')") == 1067);
  CHECK(code("CREATE TABLE `bad-name` (a int)") == 1103);
  CHECK(code("CREATE TABLE t (a varchar(5) AUTO_INCREMENT PRIMARY KEY)") == 1063);
  // MyISAM is the table-locking engine: a heap table, no keyspace, no warning.
  auto my = f.Ok("CREATE TABLE m (a int) ENGINE=myisam");
  CHECK(my.warnings.empty());
  CHECK(f.Rows("SHOW TABLES") == std::vector<std::string>{"m", "ok1", "ok2", "sample"});
  // Failed creates left no keyspaces: the catalog, and 2 + 2 + 2 for the three InnoDB tables.
  CHECK(f.Keyspaces().size() == 1 + 2 + 2 + 2);
}

TEST_CASE("ddl: CREATE TABLE ... SELECT fills the table, or leaves nothing", "[sql][ddl]") {
  Fixture f;
  f.Ok("CREATE TABLE s (a INT PRIMARY KEY, b INT)");
  f.Ok("INSERT INTO s VALUES (1, 1), (2, 1), (3, 2)");
  const std::vector<std::string> before = f.Keyspaces();
  StatementResult r = f.Ok("CREATE TABLE t SELECT a, b * 2 AS b2 FROM s");
  CHECK(r.affected_rows == 3);
  CHECK(r.info == "Records: 3  Duplicates: 0  Warnings: 0");
  CHECK(f.Rows("SELECT * FROM t ORDER BY a") == std::vector<std::string>{"1|2", "2|2", "3|4"});
  // A duplicate key: 1062, no table and no keyspace left behind.
  CHECK(f.Err("CREATE TABLE u (UNIQUE KEY (b)) SELECT * FROM s").code == kErDupEntry);
  CHECK(f.Err("SELECT * FROM u").code == kErNoSuchTable);
  f.Ok("DROP TABLE t");
  CHECK(f.Keyspaces() == before);
  r = f.Ok("CREATE TABLE u (UNIQUE KEY (b)) IGNORE SELECT * FROM s");
  CHECK(r.affected_rows == 2);
  CHECK(r.info == "Records: 3  Duplicates: 1  Warnings: 1");
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].code == kErDupEntry);
  r = f.Ok("CREATE TABLE v (PRIMARY KEY (b)) REPLACE SELECT * FROM s");
  CHECK(r.affected_rows == 4);  // three rows written, one replaced
  CHECK(f.Rows("SELECT * FROM v ORDER BY b") == std::vector<std::string>{"2|1", "3|2"});
  // Nothing of the statement's transaction stays open: no locks, no transaction.
  CHECK(f.Rows("SELECT count(*) FROM performance_schema.data_locks") ==
        std::vector<std::string>{"0"});
  CHECK(f.Rows("SELECT count(*) FROM information_schema.innodb_trx") ==
        std::vector<std::string>{"0"});
}

TEST_CASE("ddl: DROP TABLE", "[sql][ddl]") {
  Fixture f;
  f.Ok(kSample);
  f.Ok("CREATE TABLE b (x int)");
  SqlError e = f.Err("DROP TABLE sample, nope");
  CHECK(e.code == 1051);
  CHECK(e.message == "Unknown table 'test.nope'");
  CHECK(f.Rows("SHOW TABLES").size() == 2);  // nothing dropped
  auto r = f.Ok("DROP TABLE IF EXISTS sample, nope");
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].level == "Note");
  CHECK(r.warnings[0].code == 1051);
  CHECK(f.Rows("SHOW TABLES") == std::vector<std::string>{"b"});
  f.Ok("DROP TABLE B");
  CHECK(f.Rows("SHOW TABLES").empty());
  CHECK(f.Keyspaces() == std::vector<std::string>{kCatalogKeyspace});
  e = f.Err("SHOW CREATE TABLE b");
  CHECK(e.code == 1146);
  CHECK(e.message == "Table 'test.b' doesn't exist");
  CHECK(f.Err("DESCRIBE b").code == 1146);
  CHECK(f.Err("SHOW INDEX FROM b").code == 1146);
}

TEST_CASE("ddl: ALTER TABLE by copy", "[sql][ddl]") {
  Fixture f;
  f.Ok(kSample);
  f.Ok("INSERT INTO sample (j) VALUES ('a'), ('b'), (NULL), ('12')");
  auto r = f.Ok("ALTER TABLE sample ADD COLUMN k int NOT NULL DEFAULT 5 AFTER i, ALGORITHM=COPY");
  CHECK(r.affected_rows == 4);
  CHECK(r.info == "Records: 4  Duplicates: 0  Warnings: 0");
  CHECK(f.Rows("SELECT i, k, j FROM sample") ==
        std::vector<std::string>{"1|5|a", "2|5|b", "3|5|NULL", "4|5|12"});
  // New keyspaces, the old ones gone.
  auto ks = f.Keyspaces();
  CHECK(ks == std::vector<std::string>{kCatalogKeyspace, "sample$2", "sample$2.j"});
  // The index still answers.
  CHECK(f.Rows("SELECT i FROM sample WHERE j = 'b'") == std::vector<std::string>{"2"});
  // AUTO_INCREMENT carries on.
  f.Ok("INSERT INTO sample (j) VALUES ('e')");
  CHECK(f.Rows("SELECT max(i) FROM sample") == std::vector<std::string>{"5"});

  // MODIFY converts: a failure leaves the table as it was and nothing new behind.
  SqlError e = f.Err("ALTER TABLE sample MODIFY j int");
  CHECK(e.code == 1366);
  CHECK(e.message == "Incorrect integer value: 'a' for column 'j' at row 1");
  CHECK(f.Keyspaces() == ks);
  CHECK(f.Rows("SELECT count(*) FROM sample") == std::vector<std::string>{"5"});
  e = f.Err("ALTER TABLE sample MODIFY j varchar(0)");
  CHECK(e.code == 1406);
  CHECK(f.Keyspaces() == ks);

  f.Ok("DELETE FROM sample WHERE j IS NULL OR j IN ('a', 'b')");
  r = f.Ok("ALTER TABLE sample MODIFY j char(60) NOT NULL, DROP COLUMN k, ADD INDEX ij (i, j)");
  CHECK(r.affected_rows == 2);
  CHECK(f.Rows("SELECT i, j FROM sample") == std::vector<std::string>{"4|12", "5|e"});
  CHECK(f.Rows("DESCRIBE sample")[1] == "j|char(60)|NO|MUL|NULL|");
  CHECK(f.Keyspaces() ==
        std::vector<std::string>{kCatalogKeyspace, "sample", "sample.ij", "sample.j"});
  r = f.Ok("ALTER TABLE sample CHANGE j jj varchar(20), DROP INDEX ij");
  CHECK(f.Rows("SHOW INDEX FROM sample")[1].find("|j|1|jj|") != std::string::npos);
  CHECK(f.Rows("SELECT jj FROM sample WHERE jj = '12'") == std::vector<std::string>{"12"});

  // Errors.
  CHECK(f.Err("ALTER TABLE sample DROP COLUMN nope").code == 1091);
  e = f.Err("ALTER TABLE sample DROP INDEX nope");
  CHECK(e.code == 1091);
  CHECK(e.message == "Can't DROP 'nope'; check that column/key exists");
  CHECK(f.Err("ALTER TABLE sample ADD COLUMN jj int").code == 1060);
  CHECK(f.Err("ALTER TABLE sample ADD PRIMARY KEY (jj)").code == 1068);
  CHECK(f.Err("ALTER TABLE sample DROP PRIMARY KEY").code == 1075);  // i is AUTO_INCREMENT
  CHECK(f.Err("ALTER TABLE sample MODIFY nope int").code == 1054);
  CHECK(f.Err("ALTER TABLE nope ADD COLUMN x int").code == 1146);
  CHECK(f.Err("ALTER TABLE sample ENGINE=CSV").code == 1286);
  CHECK(f.Keyspaces().size() == 3);

  // DROP PRIMARY KEY: rows get hidden row ids; a new primary key with duplicates fails 1062.
  f.Ok("ALTER TABLE sample MODIFY i int unsigned NOT NULL, DROP PRIMARY KEY");
  f.Ok("INSERT INTO sample (i, jj) VALUES (4, 'dup')");
  CHECK(f.Rows("SELECT count(*) FROM sample") == std::vector<std::string>{"3"});
  e = f.Err("ALTER TABLE sample ADD PRIMARY KEY (i)");
  CHECK(e.code == 1062);
  CHECK(f.Keyspaces().size() == 3);
  f.Ok("DELETE FROM sample WHERE jj = 'dup'");
  f.Ok(
      "ALTER TABLE sample ADD PRIMARY KEY (i), AUTO_INCREMENT=100, MODIFY i int unsigned NOT NULL "
      "AUTO_INCREMENT");
  f.Ok("INSERT INTO sample (jj) VALUES ('n')");
  CHECK(f.Rows("SELECT i FROM sample WHERE jj = 'n'") == std::vector<std::string>{"100"});
}

TEST_CASE("ddl: ALTER ADD an AUTO_INCREMENT column numbers the rows", "[sql][ddl]") {
  Fixture f;
  f.Ok("CREATE TABLE h (x varchar(5))");
  f.Ok("INSERT INTO h VALUES ('a'), ('b'), ('c')");
  f.Ok("ALTER TABLE h ADD COLUMN id bigint NOT NULL AUTO_INCREMENT FIRST, ADD PRIMARY KEY (id)");
  CHECK(f.Rows("SELECT id, x FROM h") == std::vector<std::string>{"1|a", "2|b", "3|c"});
  f.Ok("INSERT INTO h (x) VALUES ('d')");
  CHECK(f.Rows("SELECT id FROM h WHERE x = 'd'") == std::vector<std::string>{"4"});
}

TEST_CASE("ddl: CREATE INDEX and DROP INDEX", "[sql][ddl]") {
  Fixture f;
  f.Ok("CREATE TABLE t (a int PRIMARY KEY, b varchar(10), c int)");
  f.Ok("INSERT INTO t VALUES (1, 'x', 3), (2, 'y', 2), (3, 'x', 1)");
  auto r = f.Ok("CREATE INDEX b ON t (b)");
  CHECK(r.info == "Records: 0  Duplicates: 0  Warnings: 0");
  CHECK(f.Keyspaces() == std::vector<std::string>{kCatalogKeyspace, "t", "t.b"});
  CHECK(f.Rows("SELECT a FROM t WHERE b = 'x' ORDER BY a") == std::vector<std::string>{"1", "3"});
  CHECK(f.Err("CREATE INDEX b ON t (c)").code == 1061);
  CHECK(f.Err("CREATE INDEX z ON t (nope)").code == 1072);
  CHECK(f.Err("CREATE INDEX z ON nope (a)").code == 1146);
  // t's b holds 'x' twice: 1062, and no keyspace is left.
  SqlError dup = f.Err("CREATE UNIQUE INDEX z ON t (b)");
  CHECK(dup.code == 1062);
  CHECK(dup.message == "Duplicate entry 'x' for key 't.z'");
  CHECK(f.Keyspaces() == std::vector<std::string>{kCatalogKeyspace, "t", "t.b"});
  f.Ok("CREATE INDEX `odd-name` ON t (c, b)");
  CHECK(f.Rows("SELECT a FROM t WHERE c = 2") == std::vector<std::string>{"2"});
  CHECK(f.Keyspaces().size() == 4);
  r = f.Ok("DROP INDEX b ON t");
  CHECK(f.Keyspaces().size() == 3);
  SqlError e = f.Err("DROP INDEX b ON t");
  CHECK(e.code == 1091);
  CHECK(e.message == "Can't DROP 'b'; check that column/key exists");
  f.Ok("DROP INDEX `PRIMARY` ON t");
  CHECK(f.Rows("SHOW INDEX FROM t").size() == 2);  // odd-name's two columns
  CHECK(f.Rows("SELECT count(*) FROM t") == std::vector<std::string>{"3"});
}

// An index entry: key and value (the value holds the texts of collated columns, row_codec.h).
using Entry = std::pair<std::string, std::string>;

// The entries of keyspace `name`, in order, read in a transaction of their own.
std::vector<Entry> EntriesOf(Fixture& f, const std::string& name) {
  auto session = Take(f.db->NewSession());
  auto txn = Take(session->Begin());
  auto ks = Take(f.db->OpenKeyspace(name));
  auto it = Take(txn->NewIterator(ks));
  REQUIRE(it->SeekToFirst().ok());
  std::vector<Entry> entries;
  while (it->Valid()) {
    entries.emplace_back(std::string(it->key()), std::string(Take(it->value())));
    REQUIRE(it->Next().ok());
  }
  return entries;
}

// The entries of index `index` of table `table`, whichever keyspace holds it now ("t.k",
// "t$2.k").
std::vector<Entry> IndexEntries(Fixture& f, const std::string& table, const std::string& index) {
  std::vector<std::string> found;
  for (const std::string& k : f.Keyspaces()) {
    const bool of_table = k.starts_with(table + ".") || k.starts_with(table + "$");
    if (of_table && k.ends_with("." + index)) found.push_back(k);
  }
  REQUIRE(found.size() == 1);
  return EntriesOf(f, found[0]);
}

TEST_CASE("ddl: bulk-built secondary indexes hold what row-by-row inserts put there",
          "[sql][ddl]") {
  // k's keys are 8 bytes (int k, then the primary key's int) and m's 6 (smallint m, then the
  // int): sorted by their prefixes alone (the radix sort, whose low bytes order the ties); s's
  // (utf8mb4_bin: the bytes, the text beside them) differ in length and share 24-byte prefixes,
  // with NULL, '' and bytes above 0x7f: sorted by prefix, then by their bytes. c is under
  // utf8mb4_0900_ai_ci: its keys are collation weights, shared by 'Été', 'ete' and 'ETE', and each
  // entry's value holds the row's own text, which the bulk build must carry with its key. The
  // entries of t come from the copy's bulk builds; u holds the same rows under p as its primary
  // key, its entries made by inserts one row at a time.
  Fixture f;
  const std::string columns =
      "id int NOT NULL, p int NOT NULL, k int NOT NULL, m smallint NOT NULL, "
      "s varchar(60) COLLATE utf8mb4_bin, c varchar(30) COLLATE utf8mb4_0900_ai_ci, "
      "KEY k (k), KEY m (m), KEY s (s), KEY c (c)";
  f.Ok("CREATE TABLE t (" + columns + ", PRIMARY KEY (id)) DEFAULT CHARSET=utf8mb4");
  f.Ok("CREATE TABLE u (" + columns + ", PRIMARY KEY (p)) DEFAULT CHARSET=utf8mb4");
  const std::string shared = "a prefix of 24 bytes ...";
  const char* const spellings[] = {"\xc3\x89t\xc3\xa9",
                                   "ete",
                                   "ETE",
                                   "Stra\xc3\x9f"
                                   "e",
                                   "strasse",
                                   "\xc3\x85ngstr\xc3\xb6m",
                                   "angstrom"};
  uint64_t x = 12345;
  for (int batch = 0; batch < 8; ++batch) {
    std::string sql = "INSERT INTO t VALUES ";
    for (int i = 0; i < 250; ++i) {
      const int id = batch * 250 + i + 1;
      const int p = id * 7919 % 2003 + 1;  // a permutation of the ids' order
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      // k: half of them anywhere in int's range (both signs, every byte varies), half among
      // 301 values near 0; m: 7 values. Their ties are ordered by the primary key.
      const auto k =
          id % 2 != 0 ? static_cast<int32_t>(x >> 32) : static_cast<int32_t>((x >> 32) % 301) - 150;
      const int m = static_cast<int>((x >> 16) % 7) - 3;
      std::string s;
      if (id % 17 == 0) {
        s = "NULL";
      } else if (id % 13 == 0) {
        s = "''";
      } else {
        std::string tail = std::to_string(x % 100000).substr(0, 1 + id % 5);
        if (id % 7 == 0) tail += "\xc3\xa9";  // U+00E9: bytes above 0x7f
        s = "'" + (id % 3 == 0 ? shared : shared.substr(0, 8 + id % 16)) + tail + "'";
      }
      std::string c = id % 19 == 0 ? "NULL" : std::string("'") + spellings[(x >> 40) % 7] + "'";
      sql += std::string(i == 0 ? "(" : ", (") + std::to_string(id) + ", " + std::to_string(p) +
             ", " + std::to_string(k) + ", " + std::to_string(m) + ", " + s + ", " + c + ")";
    }
    f.Ok(sql);
  }
  f.Ok("INSERT INTO u SELECT * FROM t");
  const std::vector<Entry> t_k = IndexEntries(f, "t", "k"), t_m = IndexEntries(f, "t", "m"),
                           t_s = IndexEntries(f, "t", "s"), t_c = IndexEntries(f, "t", "c");
  REQUIRE(t_k.size() == 2000);
  REQUIRE(t_m.size() == 2000);
  REQUIRE(t_s.size() == 2000);
  REQUIRE(t_c.size() == 2000);
  CHECK(t_k.front().first.size() == 8);
  CHECK(t_m.front().first.size() == 6);
  CHECK(t_s.back().second.size() > 1);  // PAD SPACE: the text beside a key without its spaces
  CHECK(t_c.back().second.size() > 1);  // weights: the text beside them
  // Equal weights, different texts: what only the entries' values tell apart.
  CHECK(f.Rows("SELECT count(DISTINCT c), count(DISTINCT md5(c)) FROM t") ==
        std::vector<std::string>{"3|7"});

  // A copy in key order (ALTER ... COPY) builds every index from the rows it gathers.
  f.Ok("ALTER TABLE t ADD COLUMN z int, ALGORITHM=COPY");
  CHECK(IndexEntries(f, "t", "k") == t_k);
  CHECK(IndexEntries(f, "t", "m") == t_m);
  CHECK(IndexEntries(f, "t", "s") == t_s);
  CHECK(IndexEntries(f, "t", "c") == t_c);
  // CREATE INDEX builds one from a scan.
  f.Ok("DROP INDEX s ON t");
  f.Ok("DROP INDEX k ON t");
  f.Ok("DROP INDEX c ON t");
  f.Ok("CREATE INDEX s ON t (s)");
  f.Ok("CREATE INDEX k ON t (k)");
  f.Ok("CREATE INDEX c ON t (c)");
  CHECK(IndexEntries(f, "t", "s") == t_s);
  CHECK(IndexEntries(f, "t", "k") == t_k);
  CHECK(IndexEntries(f, "t", "c") == t_c);
  // A copy to another primary key gathers the entries out of their order's last bytes.
  f.Ok("ALTER TABLE t DROP COLUMN z, DROP PRIMARY KEY, ADD PRIMARY KEY (p)");
  CHECK(IndexEntries(f, "t", "k") == IndexEntries(f, "u", "k"));
  CHECK(IndexEntries(f, "t", "m") == IndexEntries(f, "u", "m"));
  CHECK(IndexEntries(f, "t", "s") == IndexEntries(f, "u", "s"));
  CHECK(IndexEntries(f, "t", "c") == IndexEntries(f, "u", "c"));
  // Read through the index (covering), each row keeps its own spelling.
  CHECK(f.Rows("SELECT count(DISTINCT md5(c)) FROM t WHERE c = 'ete'") ==
        std::vector<std::string>{"3"});
}

TEST_CASE("ddl: TRUNCATE and OPTIMIZE", "[sql][ddl]") {
  Fixture f;
  f.Ok(kSample);
  f.Ok("INSERT INTO sample (j) VALUES ('a'), ('b')");
  auto r = f.Ok("OPTIMIZE TABLE sample");
  CHECK(r.columns == std::vector<std::string>{"Table", "Op", "Msg_type", "Msg_text"});
  std::vector<std::string> rows;
  for (const auto& row : r.rows)
    rows.push_back(*row[0] + "|" + *row[1] + "|" + *row[2] + "|" + *row[3]);
  CHECK(rows == std::vector<std::string>{
                    "test.sample|optimize|note|Table does not support optimize, doing recreate + "
                    "analyze instead",
                    "test.sample|optimize|status|OK"});
  CHECK(f.Rows("SELECT i, j FROM sample") == std::vector<std::string>{"1|a", "2|b"});
  CHECK(f.Keyspaces() == std::vector<std::string>{kCatalogKeyspace, "sample$2", "sample$2.j"});
  r = f.Ok("OPTIMIZE TABLE nope");
  CHECK(r.rows.size() == 2);
  CHECK(*r.rows[0][2] == "Error");
  f.Ok("TRUNCATE TABLE sample");
  CHECK(f.Rows("SELECT count(*) FROM sample") == std::vector<std::string>{"0"});
  f.Ok("INSERT INTO sample (j) VALUES ('c')");
  CHECK(f.Rows("SELECT i FROM sample") == std::vector<std::string>{"1"});  // counter reset
  CHECK(f.Keyspaces().size() == 3);
  CHECK(f.Err("TRUNCATE TABLE nope").code == 1146);
}

TEST_CASE("ddl: SHOW TABLE STATUS from live counts", "[sql][ddl]") {
  Fixture f;
  f.Ok(kSample);
  f.Ok("CREATE TABLE plain (a int) COMPRESSION='lz4' MAX_ROWS=10");
  f.Ok("INSERT INTO sample (j) VALUES ('a'), ('b'), ('c')");
  StatementResult r = f.Ok("SHOW TABLE STATUS");
  REQUIRE(r.columns.size() == 18);
  CHECK(r.columns[4] == "Rows");
  REQUIRE(r.rows.size() == 2);
  const auto& plain = r.rows[0];
  const auto& sample = r.rows[1];
  CHECK(*sample[0] == "sample");
  CHECK(*sample[1] == "InnoDB");
  CHECK(*sample[2] == "10");
  CHECK(*sample[3] == "Compact");
  CHECK(*sample[4] == "3");
  CHECK(*sample[6] == "16384");
  CHECK(*sample[5] == std::to_string(16384 / 3));
  CHECK(*sample[8] == "16384");
  CHECK(*sample[10] == "4");
  CHECK(sample[11]->size() == 19);  // YYYY-MM-DD HH:MM:SS
  CHECK_FALSE(sample[12].has_value());
  CHECK(*sample[14] == "utf8mb3_general_ci");
  CHECK(*plain[0] == "plain");
  CHECK(*plain[4] == "0");
  CHECK(*plain[5] == "0");
  CHECK_FALSE(plain[10].has_value());
  CHECK(*plain[16] == "max_rows=10 COMPRESSION=\"lz4\"");
  CHECK(f.Ok("SHOW TABLE STATUS LIKE 'sam%'").rows.size() == 1);
}

TEST_CASE("ddl: tables, rows and counters survive a reopen; a crash's orphans go", "[sql][ddl]") {
  TempDir dir;
  Options o = minnow::testing::SmallOptions(dir.file());
  {
    Fixture f(o);
    f.Ok(kSample);
    f.Ok("INSERT INTO sample (j) VALUES ('a'), ('b'), ('c')");
    f.Ok("CREATE TABLE h (x int)");
    f.Ok("INSERT INTO h VALUES (1), (2)");
    f.Ok("ALTER TABLE sample ADD COLUMN z double");
    f.session.reset();
    f.engine.reset();
    // What a crash in the middle of a copy-ALTER leaves: journaled new keyspaces.
    auto catalog = std::move(TableCatalog::Open(f.db.get()).value());
    REQUIRE(catalog->CreateKeyspaces({"h$2"}, {}, "h$2").ok());
    catalog.reset();
    REQUIRE_OK(f.db->Close());
  }
  Fixture f(o);
  CHECK(f.Keyspaces() == std::vector<std::string>{kCatalogKeyspace, "h", "sample$2", "sample$2.j"});
  CHECK(f.Rows("SELECT i, j, z FROM sample") ==
        std::vector<std::string>{"1|a|NULL", "2|b|NULL", "3|c|NULL"});
  f.Ok("INSERT INTO sample (j) VALUES ('d')");
  f.Ok("INSERT INTO h VALUES (3)");
  CHECK(f.Rows("SELECT i FROM sample WHERE j = 'd'") == std::vector<std::string>{"4"});
  CHECK(f.Rows("SELECT x FROM h") == std::vector<std::string>{"1", "2", "3"});
}

TEST_CASE("ddl: ALTER waits for the metadata lock of a transaction that wrote, then 1205",
          "[sql][ddl]") {
  Fixture f;
  f.Ok(kSample);
  f.Ok("INSERT INTO sample (j) VALUES ('a')");
  auto other = f.engine->NewSession();
  REQUIRE(other->Execute("BEGIN").ok());
  REQUIRE(other->Execute("UPDATE sample SET j = 'x' WHERE i = 1").ok());
  // The writer's transaction holds the table's shared metadata lock until it ends: the ALTER
  // waits lock_wait_timeout for its exclusive one (1205), before copying anything.
  f.Ok("SET SESSION lock_wait_timeout = 1");
  SqlError e = f.Err("ALTER TABLE sample ADD COLUMN k int");
  CHECK(e.code == 1205);
  CHECK(f.Keyspaces() == std::vector<std::string>{kCatalogKeyspace, "sample", "sample.j"});
  REQUIRE(other->Execute("COMMIT").ok());
  f.Ok("ALTER TABLE sample ADD COLUMN k int");
  CHECK(f.Rows("SELECT j, k FROM sample") == std::vector<std::string>{"x|NULL"});
}

TEST_CASE("session: a statement longer than max_allowed_packet is 1153, not parsed",
          "[sql][session]") {
  Fixture f;
  f.Ok("CREATE TABLE t (i INT PRIMARY KEY)");
  std::string sql = "INSERT INTO t VALUES (1) /*";
  sql.append(static_cast<size_t>(kMaxAllowedPacket) - sql.size() - 2, 'x');
  sql += "*/";
  REQUIRE(sql.size() == static_cast<size_t>(kMaxAllowedPacket));
  f.Ok(sql);  // exactly the limit: runs
  sql.insert(sql.size() - 2, "x");
  const SqlError e = f.Err(sql);
  CHECK(e.code == kErNetPacketTooLarge);
  CHECK(f.Ok("SELECT count(*) FROM t").rows.size() == 1);
  CHECK(*f.Ok("SELECT count(*) FROM t").rows[0][0] == "1");
}

}  // namespace
}  // namespace minnow::sql
