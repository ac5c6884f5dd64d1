// Statements parsed once with '?' placeholders and run with values bound
// (parse/prepared_parse.h, SqlSession::Prepare / ExecutePrepared).

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "sql_lite_front/parse/prepared_parse.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::sql {
namespace {

struct Fixture {
  Fixture() {
    auto d = Database::Open(Options{.path = ":memory:"});
    REQUIRE(d.ok());
    db = std::move(*d);
    auto e = SqlEngine::Open(db.get());
    REQUIRE(e.ok());
    engine = std::move(*e);
    session = engine->NewSession();
  }
  void Run(const std::string& sql) {
    auto r = session->Execute(sql);
    INFO(sql);
    REQUIRE(r.ok());
  }
  std::unique_ptr<PreparedParse> Prepare(const std::string& sql) {
    auto p = session->Prepare(sql);
    INFO(sql);
    REQUIRE(p.ok());
    return std::move(p).value();
  }
  // The rows of `p` run with `params`, each row's values joined by ','.
  std::vector<std::string> Rows(PreparedParse* p, const std::vector<Value>& params) {
    auto r = session->ExecutePrepared("", p, params);
    REQUIRE(r.ok());
    std::vector<std::string> out;
    for (const auto& row : r->rows) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) {
        if (i > 0) line += ",";
        line += row[i].value_or("NULL");
      }
      out.push_back(line);
    }
    return out;
  }
  std::unique_ptr<Database> db;
  std::unique_ptr<SqlEngine> engine;
  std::unique_ptr<SqlSession> session;
};

using Rows = std::vector<std::string>;

TEST_CASE("placeholders are counted where values and LIMIT counts stand", "[sql][prepared]") {
  auto p = PreparedParse::Parse("SELECT ?, a FROM t WHERE a IN (?, ?) AND b = '?' LIMIT ?, ?", {});
  REQUIRE(p.ok());
  CHECK((*p)->param_count() == 5);
  auto none = PreparedParse::Parse("SELECT '?', `?` FROM t -- ?", {});
  REQUIRE(none.ok());
  CHECK((*none)->param_count() == 0);
  // Where no value may stand, '?' is a syntax error, found at PREPARE.
  for (const char* bad : {"SELECT ? FROM ?", "SELECT a FROM t ORDER BY a ? ", "SELEC ?"}) {
    INFO(bad);
    auto r = PreparedParse::Parse(bad, {});
    REQUIRE(!r.ok());
    CHECK(r.error().code == kErParse);
  }
  // Outside a prepared statement '?' is not a value at all.
  CHECK(Parse("SELECT ?").error().code == kErParse);
}

TEST_CASE("values are bound into the parsed statement at each execution", "[sql][prepared]") {
  Fixture f;
  f.Run("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), n INT)");
  f.Run("INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', NULL), (4, 'd', 40)");
  auto point = f.Prepare("SELECT v FROM t WHERE id = ?");
  CHECK(f.Rows(point.get(), {Value::Int(2)}) == Rows{"b"});
  CHECK(f.Rows(point.get(), {Value::Int(4)}) == Rows{"d"});
  CHECK(f.Rows(point.get(), {Value::String("3")}) == Rows{"c"});  // compared as the literal '3'
  CHECK(f.Rows(point.get(), {Value::Null()}).empty());

  auto in = f.Prepare("SELECT id FROM t WHERE id IN (?, ?, ?) ORDER BY id DESC LIMIT ? OFFSET ?");
  CHECK(f.Rows(in.get(), {Value::Int(1), Value::Int(3), Value::Int(4), Value::Int(2),
                          Value::Int(0)}) == Rows{"4", "3"});
  CHECK(f.Rows(in.get(), {Value::Int(1), Value::Int(3), Value::Int(4), Value::Int(5),
                          Value::Int(1)}) == Rows{"3", "1"});
  // A LIMIT takes a non-negative integer only.
  auto bad =
      f.session->ExecutePrepared("", in.get(),
                                 std::vector<Value>{Value::Int(1), Value::Int(1), Value::Int(1),
                                                    Value::Int(-1), Value::Int(0)});
  REQUIRE(!bad.ok());
  CHECK(bad.error().code == kErWrongArguments);

  // SELECT ? is named "?", not after its value; ORDER BY ? is a value, not a position.
  auto named = f.session->ExecutePrepared("", f.Prepare("SELECT ?").get(),
                                          std::vector<Value>{Value::String("abc")});
  REQUIRE(named.ok());
  CHECK(named->columns == std::vector<std::string>{"?"});
  auto order = f.Prepare("SELECT id FROM t ORDER BY ?, id");
  CHECK(f.Rows(order.get(), {Value::Int(2)}) == Rows{"1", "2", "3", "4"});

  auto neg = f.Prepare("SELECT -?, ? - 1");
  CHECK(f.Rows(neg.get(), {Value::Int(5), Value::Int(5)}) == Rows{"-5,4"});
}

TEST_CASE("prepared writes: INSERT VALUES, UPDATE SET, DELETE LIMIT", "[sql][prepared]") {
  Fixture f;
  f.Run("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))");
  auto ins = f.Prepare("INSERT INTO t VALUES (?, ?), (? + 10, CONCAT(?, 'x'))");
  REQUIRE(f.session
              ->ExecutePrepared("", ins.get(),
                                std::vector<Value>{Value::Int(1), Value::String("a"), Value::Int(1),
                                                   Value::String("b")})
              .ok());
  REQUIRE(f.session
              ->ExecutePrepared("", ins.get(),
                                std::vector<Value>{Value::Int(2), Value::Null(), Value::Int(2),
                                                   Value::String("c")})
              .ok());
  auto all = f.Prepare("SELECT id, v FROM t ORDER BY id");
  CHECK(f.Rows(all.get(), {}) == Rows{"1,a", "2,NULL", "11,bx", "12,cx"});
  auto up = f.Prepare("UPDATE t SET v = ? WHERE id > ? ORDER BY id LIMIT ?");
  auto r = f.session->ExecutePrepared(
      "", up.get(), std::vector<Value>{Value::String("u"), Value::Int(1), Value::Int(2)});
  REQUIRE(r.ok());
  CHECK(r->affected_rows == 2);
  CHECK(f.Rows(all.get(), {}) == Rows{"1,a", "2,u", "11,u", "12,cx"});
  auto del = f.Prepare("DELETE FROM t WHERE v = ? LIMIT ?");
  r = f.session->ExecutePrepared("", del.get(),
                                 std::vector<Value>{Value::String("u"), Value::Int(1)});
  REQUIRE(r.ok());
  CHECK(r->affected_rows == 1);
  CHECK(f.Rows(all.get(), {}) == Rows{"1,a", "11,u", "12,cx"});
}

TEST_CASE("a prepared statement sees DDL made after PREPARE", "[sql][prepared]") {
  Fixture f;
  f.Run("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
  f.Run("INSERT INTO t VALUES (1, 5)");
  auto star = f.Prepare("SELECT * FROM t WHERE id = ?");
  CHECK(f.Rows(star.get(), {Value::Int(1)}) == Rows{"1,5"});
  f.Run("ALTER TABLE t ADD COLUMN w INT DEFAULT 7");
  CHECK(f.Rows(star.get(), {Value::Int(1)}) == Rows{"1,5,7"});
  f.Run("DROP TABLE t");
  auto gone = f.session->ExecutePrepared("", star.get(), std::vector<Value>{Value::Int(1)});
  REQUIRE(!gone.ok());
  CHECK(gone.error().code == 1146);
}

TEST_CASE("a wrong number of values is 1210, not a read past them", "[sql][prepared]") {
  Fixture f;
  f.Run("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
  auto two = f.Prepare("SELECT v FROM t WHERE id = ? OR v = ?");
  for (const std::vector<Value>& values :
       {std::vector<Value>{}, std::vector<Value>{Value::Int(1)},
        std::vector<Value>{Value::Int(1), Value::Int(2), Value::Int(3)}}) {
    auto r = f.session->ExecutePrepared("", two.get(), values);
    REQUIRE(!r.ok());
    CHECK(r.error().code == 1210);
  }
  CHECK(f.Rows(two.get(), {Value::Int(1), Value::Int(2)}).empty());
}

}  // namespace
}  // namespace minnow::sql
