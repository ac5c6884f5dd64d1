#include "sql_lite_front/execute/expr.h"

#include <catch2/catch.hpp>
#include <string>

#include "sql_lite_front/parse/parser.h"

namespace minnow::sql {
namespace {

TableDef TwoColumns() {
  TableDef def;
  def.name = "t";
  ColumnDef a;
  a.name = "a";
  a.type = ColumnType::kInt;
  ColumnDef b;
  b.name = "b";
  b.type = ColumnType::kVarchar;
  b.length = 20;
  def.columns = {a, b};
  def.primary_key = {0};
  return def;
}

// Parses "SELECT <sql> FROM t" and evaluates the item on `row` (a, b).
struct Evaluator {
  TableDef def = TwoColumns();
  ExecContext ctx;
  uint64_t last_id = 42;

  SqlResult<Value> Run(const std::string& sql, const Row& row = {Value::Int(7), Value::String("x")},
                       const char* clause = "field list") {
    ctx.last_insert_id = &last_id;
    SqlResult<Statement> st = Parse("SELECT " + sql + " FROM t");
    REQUIRE(st.ok());
    const SelectStmt& sel = std::get<SelectStmt>(*st);
    BindScope scope = ScopeForTable(def);
    SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*sel.items[0].expr, scope, ctx, clause));
    EvalState state;
    SeedEvalState(&state);
    Value v = Eval(b, row, state);
    SQL_RETURN_IF_ERROR(EvalError(state));
    return v;
  }
  std::string Str(const std::string& sql, const Row& row = {Value::Int(7), Value::String("x")}) {
    SqlResult<Value> v = Run(sql, row);
    REQUIRE(v.ok());
    return v->is_null() ? "NULL" : v->ToString();
  }
};

TEST_CASE("three-valued logic with NULL", "[sql][expr]") {
  Evaluator e;
  CHECK(e.Str("NULL AND 0") == "0");
  CHECK(e.Str("NULL AND 1") == "NULL");
  CHECK(e.Str("NULL OR 1") == "1");
  CHECK(e.Str("NULL OR 0") == "NULL");
  CHECK(e.Str("NOT NULL") == "NULL");
  CHECK(e.Str("NULL XOR 1") == "NULL");
  CHECK(e.Str("1 XOR 1") == "0");
  CHECK(e.Str("1 XOR 0") == "1");
  CHECK(e.Str("NULL = NULL") == "NULL");
  CHECK(e.Str("NULL <=> NULL") == "1");
  CHECK(e.Str("1 <=> NULL") == "0");
  CHECK(e.Str("a IS NULL", {Value::Null(), Value::Null()}) == "1");
  CHECK(e.Str("a IS NOT NULL", {Value::Null(), Value::Null()}) == "0");
  CHECK(e.Str("a = 1", {Value::Null(), Value::Null()}) == "NULL");
  CHECK(e.Str("1 IN (2, NULL)") == "NULL");
  CHECK(e.Str("1 IN (1, NULL)") == "1");
  CHECK(e.Str("1 NOT IN (2, 3)") == "1");
  CHECK(e.Str("1 NOT IN (2, NULL)") == "NULL");
  CHECK(e.Str("5 BETWEEN 1 AND 10") == "1");
  CHECK(e.Str("5 NOT BETWEEN 1 AND 10") == "0");
  CHECK(e.Str("5 BETWEEN NULL AND 1") == "0");
  CHECK(e.Str("5 BETWEEN NULL AND 10") == "NULL");
}

TEST_CASE("comparisons and arithmetic", "[sql][expr]") {
  Evaluator e;
  CHECK(e.Str("a > 5") == "1");
  CHECK(e.Str("a < 5") == "0");
  CHECK(e.Str("a <> 7") == "0");
  CHECK(e.Str("'abc' < 'abd'") == "1");
  CHECK(e.Str("'10' = 10") == "1");
  CHECK(e.Str("1 + 2 * 3") == "7");
  CHECK(e.Str("7 / 2") == "3.5000");  // integers divide as decimals, 4 more digits
  CHECK(e.Str("7 DIV 2") == "3");
  CHECK(e.Str("7 % 3") == "1");
  CHECK(e.Str("1 / 0") == "NULL");
  CHECK(e.Str("1 % 0") == "NULL");
  CHECK(e.Str("-a") == "-7");
  CHECK(e.Str("1.5 + 1") == "2.5");
}

TEST_CASE("integer arithmetic is exact and out of range is 1690", "[sql][expr]") {
  Evaluator e;
  CHECK(e.Str("9223372036854775806 + 1") == "9223372036854775807");
  CHECK(e.Str("-9223372036854775807 - 1") == "-9223372036854775808");
  CHECK(e.Str("18446744073709551615") == "18446744073709551615");
  CHECK(e.Str("18446744073709551614 + 1") == "18446744073709551615");
  CHECK(e.Str("18446744073709551615 - 1") == "18446744073709551614");
  CHECK(e.Str("3037000499 * 3037000499") == "9223372030926249001");
  CHECK(!e.Run("4294967296 * 4294967295").ok());  // signed operands: past BIGINT is 1690
  CHECK(e.Str("18446744073709551615 DIV 2") == "9223372036854775807");
  CHECK(e.Str("-7 DIV 2") == "-3");
  CHECK(e.Str("-7 % 3") == "-1");
  SqlResult<Value> r = e.Run("9223372036854775807 + 1");
  REQUIRE(!r.ok());
  CHECK(r.error().code == kErDataOutOfRange);
  CHECK(r.error().message == "BIGINT value is out of range in '(9223372036854775807 + 1)'");
  r = e.Run("a * 9223372036854775807");
  REQUIRE(!r.ok());
  CHECK(r.error().message ==
        "BIGINT value is out of range in '(`test`.`t`.`a` * 9223372036854775807)'");
  r = e.Run("18446744073709551615 + 1");
  REQUIRE(!r.ok());
  CHECK(r.error().message ==
        "BIGINT UNSIGNED value is out of range in '(18446744073709551615 + 1)'");
  r = e.Run("-(a - 7 - 9223372036854775807 - 1)");  // -(-2^63)
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("BIGINT value is out of range") == 0);
  r = e.Run("1e308 * 10");
  REQUIRE(!r.ok());
  CHECK(r.error().message == "DOUBLE value is out of range in '(1e308 * 10)'");
  // The message names the arithmetic that overflowed, not the expression around it.
  r = e.Run("a > 1 AND 1 + a * 9223372036854775807 > 0");
  REQUIRE(!r.ok());
  CHECK(r.error().message ==
        "BIGINT value is out of range in '(`test`.`t`.`a` * 9223372036854775807)'");
  r = e.Run("abs(-9223372036854775807 - 1)");
  REQUIRE(!r.ok());
  CHECK(r.error().message == "BIGINT value is out of range in 'abs((-9223372036854775807 - 1))'");
}

TEST_CASE("DIV of doubles and strings divides as decimals", "[sql][expr]") {
  Evaluator e;
  CHECK(e.Str("0.3e0 DIV 0.1e0") == "3");  // as doubles: 2.9999999999999996, so 2
  CHECK(e.Str("'0.3' DIV '0.1'") == "3");
  CHECK(e.Str("1e18 DIV 3") == "333333333333333333");  // as doubles: ...312
  CHECK(e.Str("-7.5e0 DIV 2") == "-3");
  CHECK(e.Str("1e-300 DIV 1e-300") == "NULL");  // both 0 as decimals (MariaDB: NULL)
  CHECK(e.Str("5e0 DIV 0") == "NULL");
  SqlResult<Value> r = e.Run("1e20 DIV 3");
  REQUIRE(!r.ok());
  CHECK(r.error().message == "BIGINT value is out of range in '(1e20 DIV 3)'");
  r = e.Run("1e300 DIV 1");  // past 65 digits as a decimal
  REQUIRE(!r.ok());
  CHECK(r.error().code == kErDataOutOfRange);
  CHECK(e.Str("0.3e0 / 0.1e0") == "2.9999999999999996");  // "/" of doubles stays double
}

TEST_CASE("ROUND is exact for integers and decimals", "[sql][expr]") {
  Evaluator e;
  CHECK(e.Str("round(1.5, 3)") == "1.500");
  CHECK(e.Str("round(-1.25, 1)") == "-1.3");
  CHECK(e.Str("round(9223372036854775807, -1)") == "9223372036854775810");  // past BIGINT
  CHECK(e.Str("round(2.5e0)") == "2");  // doubles: ties to even (MariaDB 10.11: 2, 4, 20, 0.12)
  CHECK(e.Str("round(3.5e0)") == "4");
  CHECK(e.Str("round(25e0, -1)") == "20");
  CHECK(e.Str("round(0.125e0, 2)") == "0.12");
  CHECK(e.Str("round(1e300, 400)") == "1e300");
  // 60 digits before the point and 10 after would be 70: 1690, not a rounded double.
  SqlResult<Value> r = e.Run("round(" + std::string(60, '9') + ".5, 10)");
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("DECIMAL value is out of range in 'round(") == 0);
}

TEST_CASE("decimal literals and mixed arithmetic are exact", "[sql][expr]") {
  Evaluator e;
  CHECK(e.Str("0.1 + 0.2") == "0.3");
  CHECK(e.Str("0.1 + 0.2 = 0.3") == "1");
  CHECK(e.Str("1 / 3") == "0.3333");
  CHECK(e.Str("1 / 3 * 3") == "1.0000");  // 9 digits inside, 4 shown, as MySQL
  CHECK(e.Str("1.5 / 3") == "0.50000");
  CHECK(e.Str("1.50 * 2.0") == "3.000");
  CHECK(e.Str("a + 0.5") == "7.5");
  CHECK(e.Str("5.5 % 2") == "1.5");
  CHECK(e.Str("7.5 DIV 2") == "3");
  CHECK(e.Str("-1.25") == "-1.25");
  CHECK(e.Str("1e2") == "100");      // a double
  CHECK(e.Str("0.1e1 + 1") == "2");  // a double
  CHECK(e.Str("round(1.2345, 2)") == "1.23");
  CHECK(e.Str("round(2.5)") == "3");
  CHECK(e.Str("round(-2.5)") == "-3");
  CHECK(e.Str("round(15, -1)") == "20");
  CHECK(e.Str("floor(-1.5)") == "-2");
  CHECK(e.Str("ceil(1.2)") == "2");
  CHECK(e.Str("abs(-1.5)") == "1.5");
  CHECK(e.Str("99999999999999999999") == "99999999999999999999");  // a DECIMAL literal
  CHECK(e.Str("-9223372036854775809") == "-9223372036854775809");
}

TEST_CASE("LIKE with % _ and escapes, under the connection's collation", "[sql][expr]") {
  Evaluator e;
  CHECK(e.Str("'abc' LIKE 'a%'") == "1");
  CHECK(e.Str("'abc' LIKE 'A%'") == "1");  // utf8mb4_0900_ai_ci, as MySQL 8
  CHECK(e.Str("'José' LIKE 'jos_'") == "1");
  CHECK(e.Str("'abc' LIKE '_b_'") == "1");
  CHECK(e.Str("'abc' LIKE '%c'") == "1");
  CHECK(e.Str("'abc' LIKE '%b'") == "0");
  CHECK(e.Str("'a%c' LIKE 'a\\%c'") == "1");
  CHECK(e.Str("'abc' LIKE 'a\\%c'") == "0");
  CHECK(e.Str("'a_c' LIKE 'a\\_%'") == "1");
  CHECK(e.Str("'' LIKE '%'") == "1");
  CHECK(e.Str("'aXbXc' LIKE '%b%c'") == "1");
  CHECK(e.Str("'abc' NOT LIKE 'a%'") == "0");
  CHECK(e.Str("NULL LIKE 'a%'") == "NULL");
  CHECK(e.Str("55 LIKE '5%'") == "1");
}

TEST_CASE("functions", "[sql][expr]") {
  Evaluator e;
  CHECK(e.Str("md5('')") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(e.Str("md5('a')") == "0cc175b9c0f1b6a831c399e269772661");
  CHECK(e.Str("md5('The quick brown fox jumps over the lazy dog')") ==
        "9e107d9d372bb6826bd81d3542a419d6");
  CHECK(e.Str("md5(1)") == "c4ca4238a0b923820dcc509a6f75849b");
  CHECK(e.Str("md5(NULL)") == "NULL");
  CHECK(e.Str("length(md5(rand()))") == "32");
  for (int i = 0; i < 100; ++i) {
    SqlResult<Value> r = e.Run("rand()");
    REQUIRE(r.ok());
    CHECK(r->is_double());
    CHECK(r->as_double() >= 0);
    CHECK(r->as_double() < 1);
  }
  CHECK(e.Str("rand(3)") == e.Str("rand(3)"));
  CHECK(e.Str("concat('a', b, a)") == "ax7");
  CHECK(e.Str("concat('a', NULL)") == "NULL");
  CHECK(e.Str("length('h\xc3\xa9')") == "3");
  CHECK(e.Str("char_length('h\xc3\xa9')") == "2");
  CHECK(e.Str("lower('AbC')") == "abc");
  CHECK(e.Str("upper('AbC')") == "ABC");
  CHECK(e.Str("abs(-3)") == "3");
  CHECK(e.Str("ifnull(NULL, 2)") == "2");
  CHECK(e.Str("coalesce(NULL, NULL, 'z')") == "z");
  CHECK(e.Str("if(a > 1, 'big', 'small')") == "big");
  CHECK(e.Str("floor(2.7)") == "2");
  CHECK(e.Str("round(2.5)") == "3");
  CHECK(e.Str("round(2.345, 2)") == "2.35");
  CHECK(e.Str("mod(10, 4)") == "2");
  CHECK(e.Str("last_insert_id()") == "42");
  CHECK(e.Str("database()") == "test");
  CHECK(e.Str("version()") == "8.0.36-minnow");
  CHECK(e.Str("length(now())") == "19");
}

TEST_CASE("binding errors", "[sql][expr]") {
  Evaluator e;
  SqlResult<Value> r = e.Run("nosuch + 1");
  REQUIRE(!r.ok());
  CHECK(r.error().code == kErBadField);
  CHECK(r.error().message == "Unknown column 'nosuch' in 'field list'");
  r = e.Run("x.a", {}, "where clause");
  REQUIRE(!r.ok());
  CHECK(r.error().message == "Unknown column 'x.a' in 'where clause'");
  CHECK(e.Str("t.a") == "7");
  CHECK(e.Str("A") == "7");
  r = e.Run("frobnicate(1)");
  REQUIRE(!r.ok());
  CHECK(r.error().code == kErSpDoesNotExist);
  CHECK(r.error().message == "FUNCTION test.frobnicate does not exist");
  CHECK(std::string(r.error().sqlstate()) == "42000");
  r = e.Run("count(*)");  // aggregates not allowed in this scope
  REQUIRE(!r.ok());
  CHECK(r.error().code == kErInvalidGroupFuncUse);
}

TEST_CASE("LIKE prefixes", "[sql][expr]") {
  bool exact = false;
  CHECK(LikePrefix("5%", &exact) == "5");
  CHECK(exact);
  CHECK(LikePrefix("ab\\%c%", &exact) == "ab%c");
  CHECK(exact);
  CHECK(LikePrefix("a%b", &exact) == "a");
  CHECK(!exact);
  CHECK(LikePrefix("a_", &exact) == "a");
  CHECK(!exact);
}

}  // namespace
}  // namespace minnow::sql
