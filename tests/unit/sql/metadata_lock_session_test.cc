// Metadata locks through SqlSession: which statements take them (MetadataLocksFor), that a
// session waiting for one reports waiting_for_lock(), and that Cancel() ends the wait with 1317.

#include <catch2/catch.hpp>
#include <future>
#include <thread>

#include "sql_lite_front/catalog/metadata_locks.h"
#include "sql_lite_front/parse/parser.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::sql {
namespace {

MetadataLockRequest LocksOf(const std::string& sql) {
  SqlResult<Statement> st = Parse(sql);
  REQUIRE(st.ok());
  return MetadataLocksFor(*st);
}

TEST_CASE("MetadataLocksFor: the lock types performance_schema.metadata_locks shows",
          "[sql][mdl]") {
  auto type = [](const std::string& sql, const char* name) {
    return std::string(LocksOf(sql).LabelOf(name).type);
  };
  auto duration = [](const std::string& sql, const char* name) {
    const char* d = LocksOf(sql).LabelOf(name).duration;
    return d == nullptr ? std::string("TRANSACTION") : std::string(d);
  };
  CHECK(type("SELECT * FROM t", "test.t") == "SHARED_READ");
  CHECK(type("INSERT INTO b SELECT * FROM a", "test.a") == "SHARED_READ");
  CHECK(type("INSERT INTO b SELECT * FROM a", "test.b") == "SHARED_WRITE");
  CHECK(type("INSERT INTO t SELECT * FROM t", "test.t") == "SHARED_WRITE");
  CHECK(type("UPDATE t SET i = 1", "test.t") == "SHARED_WRITE");
  CHECK(type("DELETE FROM t", "test.t") == "SHARED_WRITE");
  CHECK(duration("DELETE FROM t", "test.t") == "TRANSACTION");
  CHECK(type("ALTER TABLE t ADD COLUMN c INT", "test.t") == "EXCLUSIVE");
  const std::string lock = "LOCK TABLES t READ, u WRITE, v READ LOCAL, u AS u2 READ";
  CHECK(type(lock, "test.t") == "SHARED_READ_ONLY");
  CHECK(type(lock, "test.u") == "SHARED_NO_READ_WRITE");  // the stronger of its two
  CHECK(type(lock, "test.v") == "SHARED_READ");
  CHECK(duration(lock, "test.t") == "EXPLICIT");
}

TEST_CASE("QueryMetadataLockNames: a query's base tables, sorted, once each", "[sql][mdl]") {
  SqlResult<Statement> st = Parse(
      "SELECT * FROM b.t JOIN a AS x ON 1 WHERE EXISTS (SELECT 1 FROM A) UNION SELECT 1, 2 FROM "
      "(SELECT * FROM c) AS d, information_schema.tables");
  REQUIRE(st.ok());
  CHECK(QueryMetadataLockNames(std::get<SelectStmt>(*st)) ==
        std::vector<std::string>{"b.t", "test.a", "test.c"});
}

TEST_CASE("MetadataLocksFor: shared for DML and reads, exclusive for DDL", "[sql][mdl]") {
  using V = std::vector<std::string>;
  CHECK(LocksOf("SELECT * FROM T1").names == V{"test.t1"});
  CHECK_FALSE(LocksOf("SELECT * FROM t1").exclusive);
  CHECK(LocksOf("SELECT 1").names.empty());
  CHECK(LocksOf("SELECT * FROM performance_schema.data_locks").names.empty());
  CHECK(LocksOf("INSERT INTO b SELECT * FROM a").names == V{"test.a", "test.b"});
  CHECK(LocksOf("UPDATE test.t SET i = 1").names == V{"test.t"});
  CHECK(LocksOf("DELETE FROM t WHERE i = 1").names == V{"test.t"});
  CHECK(LocksOf("EXPLAIN SELECT * FROM t").names == V{"test.t"});
  CHECK(LocksOf("LOCK TABLES t READ, u WRITE").names == V{"test.t", "test.u"});
  for (const char* ddl : {"ALTER TABLE t ADD COLUMN c INT", "CREATE INDEX i ON t (c)",
                          "DROP INDEX i ON t", "TRUNCATE TABLE t", "CREATE TABLE t (i INT)"}) {
    INFO(ddl);
    MetadataLockRequest r = LocksOf(ddl);
    CHECK(r.names == V{"test.t"});
    CHECK(r.exclusive);
  }
  MetadataLockRequest drop = LocksOf("DROP TABLE u, t, U");
  CHECK(drop.names == V{"test.t", "test.u"});  // sorted, once each
  CHECK(drop.exclusive);
  CHECK(LocksOf("OPTIMIZE TABLE t").exclusive);
  CHECK(LocksOf("SHOW CREATE TABLE t").names.empty());
  CHECK(LocksOf("SET autocommit = 0").names.empty());
}

struct Fixture {
  Fixture() {
    auto d = Database::Open(Options{.path = ":memory:"});
    REQUIRE(d.ok());
    db = std::move(*d);
    auto e = SqlEngine::Open(db.get());
    REQUIRE(e.ok());
    engine = std::move(*e);
    a = engine->NewSession();
    b = engine->NewSession();
    c = engine->NewSession();
  }
  ~Fixture() {
    a.reset();
    b.reset();
    c.reset();
    engine.reset();
  }
  static void AwaitWaiting(const SqlSession& s) {
    while (!s.waiting_for_lock()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::unique_ptr<Database> db;
  std::unique_ptr<SqlEngine> engine;
  std::unique_ptr<SqlSession> a, b, c;
};

TEST_CASE("SqlSession: Cancel ends a DDL's and a reader's metadata lock wait with 1317",
          "[sql][mdl]") {
  Fixture f;
  REQUIRE(f.a->Execute("CREATE TABLE t (i INT PRIMARY KEY)").ok());
  REQUIRE(f.a->Execute("INSERT INTO t VALUES (1)").ok());
  REQUIRE(f.a->Execute("BEGIN").ok());
  REQUIRE(f.a->Execute("SELECT * FROM t").ok());  // a consistent read: no transaction id
  CHECK_FALSE(f.a->waiting_for_lock());

  auto alter = std::async(std::launch::async,
                          [&] { return f.b->Execute("ALTER TABLE t ADD COLUMN j INT"); });
  Fixture::AwaitWaiting(*f.b);
  auto reader = std::async(std::launch::async, [&] { return f.c->Execute("SELECT * FROM t"); });
  Fixture::AwaitWaiting(*f.c);  // behind the waiting ALTER
  f.c->Cancel();
  auto r = reader.get();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == 1317);
  f.b->Cancel();
  auto x = alter.get();
  REQUIRE_FALSE(x.ok());
  CHECK(x.error().code == 1317);
  CHECK_FALSE(f.b->waiting_for_lock());
  // Nothing changed, nothing waits: the reader gets the old table at once.
  auto again = f.c->Execute("SELECT * FROM t");
  REQUIRE(again.ok());
  CHECK(again->columns == std::vector<std::string>{"i"});
  REQUIRE(f.a->Execute("COMMIT").ok());
  REQUIRE(f.b->Execute("ALTER TABLE t ADD COLUMN j INT").ok());
  CHECK(f.db->stats().metadata_locks_held == 0);
  CHECK(f.db->stats().metadata_lock_waits == 2);
}

}  // namespace
}  // namespace minnow::sql
