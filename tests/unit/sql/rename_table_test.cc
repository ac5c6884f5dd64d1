// RENAME TABLE and ALTER TABLE ... RENAME through SqlSession: what the catalog keeps across a
// close and reopen (the script test tests/sql/ddl/rename_table.test covers the statement's
// answers within one run).

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/sql_engine.h"
#include "tests/unit/engine/engine_test_util.h"

namespace minnow::sql {
namespace {

using minnow::testing::Take;
using minnow::testing::TempDir;

struct Db {
  explicit Db(const Options& o) {
    db = Take(Database::Open(o));
    auto e = SqlEngine::Open(db.get());
    INFO((e.ok() ? "" : e.error().ToString()));
    REQUIRE(e.ok());
    engine = std::move(e).value();
    session = engine->NewSession();
  }
  void Close() {
    session.reset();
    engine.reset();
    REQUIRE_OK(db->Close());
  }
  void Ok(std::string_view sql) {
    auto r = session->Execute(sql);
    INFO(sql << " -> " << (r.ok() ? "" : r.error().ToString()));
    REQUIRE(r.ok());
  }
  int Err(std::string_view sql) {
    auto r = session->Execute(sql);
    INFO(sql);
    REQUIRE_FALSE(r.ok());
    return static_cast<int>(r.error().code);
  }
  // The rows of a query, each row's cells joined with '|'.
  std::vector<std::string> Rows(std::string_view sql) {
    auto r = session->Execute(sql);
    INFO(sql << " -> " << (r.ok() ? "" : r.error().ToString()));
    REQUIRE(r.ok());
    std::vector<std::string> out;
    for (const auto& row : r->rows) {
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

using Rows = std::vector<std::string>;

TEST_CASE("rename: renamed tables, their rows, indexes and counters survive a reopen",
          "[sql][ddl]") {
  TempDir dir;
  Options o = minnow::testing::SmallOptions(dir.file());
  {
    Db d(o);
    d.Ok("CREATE TABLE a (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT, KEY v (v))");
    d.Ok("INSERT INTO a (v) VALUES (10), (20)");
    d.Ok("CREATE TABLE m (k INT NOT NULL PRIMARY KEY, w INT, KEY w (w)) ENGINE=MyISAM");
    d.Ok("INSERT INTO m VALUES (1, 100), (2, 200)");
    d.Ok("CREATE TABLE s (x INT)");
    d.Ok("INSERT INTO s VALUES (7)");
    d.Ok("RENAME TABLE a TO b, m TO n");
    d.Ok("RENAME TABLE s TO tmp, b TO s, tmp TO b");  // swap: s holds a's rows, b holds s's
    d.Ok("ALTER TABLE n RENAME TO n2");
    // The old name is free again: a new table under it gets keyspaces of its own.
    d.Ok("CREATE TABLE a (z INT)");
    d.Ok("INSERT INTO a VALUES (1)");
    d.Close();
  }
  Db d(o);
  CHECK(d.Rows("SHOW TABLES") == Rows{"a", "b", "n2", "s"});
  CHECK(d.Rows("SELECT * FROM s ORDER BY id") == Rows{"1|10", "2|20"});
  CHECK(d.Rows("SELECT id FROM s WHERE v = 20") == Rows{"2"});
  CHECK(d.Rows("SELECT * FROM b") == Rows{"7"});
  CHECK(d.Rows("SELECT * FROM a") == Rows{"1"});
  CHECK(d.Rows("SELECT k FROM n2 WHERE w = 200") == Rows{"2"});
  d.Ok("INSERT INTO s (v) VALUES (30)");
  CHECK(d.Rows("SELECT id FROM s WHERE v = 30") == Rows{"3"});  // AUTO_INCREMENT went along
  CHECK(d.Err("SELECT * FROM m") == 1146);
  // The storage kept its names; the new "a" took fresh ones.
  CHECK(d.Keyspaces() == Rows{kCatalogKeyspace, "a", "a$2", "a.v", "s"});
  {
    // performance_schema.data_locks names a keyspace's table by the catalog, not by its name.
    auto catalog = std::move(TableCatalog::Open(d.db.get()).value());
    TableName table;
    std::string index;
    REQUIRE(catalog->DescribeKeyspace("a.v", &table, &index));
    CHECK(table.name == "s");
    CHECK(index == "v");
    REQUIRE(catalog->DescribeKeyspace("a$2", &table, &index));
    CHECK(table.name == "a");
  }
  // Dropping a renamed table drops its storage.
  d.Ok("DROP TABLE s, n2");
  CHECK(d.Keyspaces() == Rows{kCatalogKeyspace, "a$2", "s"});
  d.Close();
  Db again(o);
  CHECK(again.Rows("SHOW TABLES") == Rows{"a", "b"});
}

TEST_CASE("rename: a failed RENAME changes nothing, in memory or on disk", "[sql][ddl]") {
  TempDir dir;
  Options o = minnow::testing::SmallOptions(dir.file());
  {
    Db d(o);
    d.Ok("CREATE TABLE a (x INT)");
    d.Ok("CREATE TABLE b (y INT)");
    d.Ok("INSERT INTO a VALUES (1)");
    CHECK(d.Err("RENAME TABLE a TO c, b TO d, nosuch TO e") == 1146);
    CHECK(d.Err("RENAME TABLE a TO c, b TO c") == 1050);
    CHECK(d.Rows("SHOW TABLES") == Rows{"a", "b"});
    d.Close();
  }
  Db d(o);
  CHECK(d.Rows("SHOW TABLES") == Rows{"a", "b"});
  CHECK(d.Rows("SELECT * FROM a") == Rows{"1"});
}

}  // namespace
}  // namespace minnow::sql
