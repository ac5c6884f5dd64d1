// The SQL parser: the statements of the design brief's section 3 and the write-ups, parsed to the
// AST fields the executor reads; MySQL's error messages for bad input.
#include "sql_lite_front/parse/parser.h"

#include <catch2/catch.hpp>
#include <string>
#include <variant>

#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {
namespace {

Statement MustParse(const std::string& sql) {
  INFO(sql);
  SqlResult<Statement> r = Parse(sql);
  if (!r.ok()) FAIL(r.error().ToString());
  return std::move(r).value();
}

template <typename T>
T& As(Statement& st) {
  REQUIRE(std::holds_alternative<T>(st));
  return std::get<T>(st);
}

SqlError MustFail(const std::string& sql) {
  INFO(sql);
  SqlResult<Statement> r = Parse(sql);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

std::string NotSupported(const std::string& what) {
  return "This version of minnow doesn't yet support '" + what + "'";
}

const Expr& Arg(const Expr& e, size_t i) {
  REQUIRE(e.args.size() > i);
  REQUIRE(e.args[i] != nullptr);
  return *e.args[i];
}

// Row n (from 0) of an INSERT's values.
std::vector<InsertValue> RowOf(const InsertStmt& ins, size_t n) {
  InsertValues::Reader reader(ins.rows);
  std::vector<InsertValue> row;
  for (size_t i = 0; i <= n; ++i) REQUIRE(reader.Next(&row));
  return row;
}

TEST_CASE("UNION: the parts, ALL / DISTINCT, and the union's ORDER BY / LIMIT / INTO", "[parser]") {
  Statement st = MustParse(
      "SELECT a FROM t UNION SELECT b FROM u UNION ALL (SELECT c FROM v ORDER BY c LIMIT 1) "
      "ORDER BY 1 DESC LIMIT 2, 3");
  const auto& s = std::get<SelectStmt>(st);
  REQUIRE(s.union_of != nullptr);
  REQUIRE(s.union_of->parts.size() == 3);
  CHECK(s.union_of->distinct == std::vector<bool>{true, false});
  CHECK(s.union_of->parts[2]->limit == std::optional<uint64_t>(1));
  CHECK(s.union_of->parts[2]->order_by.size() == 1);
  CHECK(s.order_by.size() == 1);
  CHECK(s.order_by[0].desc);
  CHECK(s.limit == std::optional<uint64_t>(3));
  CHECK(s.offset == 2);

  // The last bare part's ORDER BY, LIMIT and INTO are the union's.
  st = MustParse("SELECT a FROM t UNION DISTINCT SELECT b FROM u ORDER BY b LIMIT 1 INTO @x");
  const auto& s2 = std::get<SelectStmt>(st);
  REQUIRE(s2.union_of != nullptr);
  CHECK(s2.union_of->parts[1]->order_by.empty());
  CHECK(!s2.union_of->parts[1]->limit.has_value());
  CHECK(s2.order_by.size() == 1);
  CHECK(s2.into_vars == std::vector<std::string>{"x"});

  // A parenthesized block alone is the block; with ORDER BY after it, a union of one part.
  CHECK(std::get<SelectStmt>(MustParse("(SELECT 1)")).union_of == nullptr);
  CHECK(std::get<SelectStmt>(MustParse("(SELECT 1) ORDER BY 1")).union_of->parts.size() == 1);
}

TEST_CASE("subqueries in expressions", "[parser]") {
  Statement st = MustParse(
      "SELECT (SELECT 1), EXISTS (SELECT 2), a IN (SELECT 3), a NOT IN (SELECT 4 UNION SELECT 5), "
      "a > ALL (SELECT 6), a = SOME (SELECT 7) FROM t");
  const auto& s = std::get<SelectStmt>(st);
  REQUIRE(s.items.size() == 6);
  CHECK(s.items[0].expr->kind == Expr::Kind::kSubquery);
  CHECK(s.items[0].expr->text == "(SELECT 1)");
  CHECK(s.items[1].expr->kind == Expr::Kind::kExists);
  CHECK(s.items[2].expr->kind == Expr::Kind::kIn);
  CHECK(s.items[2].expr->subquery != nullptr);
  CHECK(s.items[2].expr->args.size() == 1);
  CHECK(s.items[3].expr->negated);
  CHECK(s.items[3].expr->subquery->union_of != nullptr);
  CHECK(s.items[4].expr->kind == Expr::Kind::kQuantified);
  CHECK(s.items[4].expr->quantifier_all);
  CHECK(s.items[4].expr->binary_op == BinaryOp::kGt);
  CHECK(!s.items[5].expr->quantifier_all);
  // A subquery may not have INTO.
  CHECK(MustFail("SELECT (SELECT 1 INTO @x)").code == kErParse);
}

TEST_CASE("row constructors become their scalar comparisons", "[parser]") {
  Statement st = MustParse(
      "SELECT (a, b) = (1, 2), ROW(a, b) <> ROW(1, 2), (a, b) < (1, 2), (a, b) IN ((1, 2), (3, "
      "4)), "
      "(a, b) NOT IN (SELECT x, y FROM u), (a, b) = (1, 2, 3) FROM t");
  const auto& s = std::get<SelectStmt>(st);
  REQUIRE(s.items.size() == 6);
  // = : a = 1 AND b = 2, named as written.
  const Expr& eq = *s.items[0].expr;
  CHECK(eq.binary_op == BinaryOp::kAnd);
  CHECK(Arg(eq, 0).binary_op == BinaryOp::kEq);
  CHECK(Arg(Arg(eq, 0), 0).name == "a");
  CHECK(Arg(eq, 1).binary_op == BinaryOp::kEq);
  CHECK(eq.text == "(a, b) = (1, 2)");
  // <> : a <> 1 OR b <> 2.
  CHECK(s.items[1].expr->binary_op == BinaryOp::kOr);
  CHECK(Arg(*s.items[1].expr, 0).binary_op == BinaryOp::kNe);
  // < : a < 1 OR (a = 1 AND b < 2).
  const Expr& lt = *s.items[2].expr;
  CHECK(lt.binary_op == BinaryOp::kOr);
  CHECK(Arg(lt, 0).binary_op == BinaryOp::kLt);
  CHECK(Arg(lt, 1).binary_op == BinaryOp::kAnd);
  CHECK(Arg(Arg(lt, 1), 0).binary_op == BinaryOp::kEq);
  CHECK(Arg(Arg(lt, 1), 1).binary_op == BinaryOp::kLt);
  // IN of rows: an OR of the rows' equalities.
  CHECK(s.items[3].expr->binary_op == BinaryOp::kOr);
  CHECK(Arg(*s.items[3].expr, 0).binary_op == BinaryOp::kAnd);
  // IN (SELECT ...) keeps its row operand.
  const Expr& in = *s.items[4].expr;
  CHECK(in.kind == Expr::Kind::kIn);
  CHECK(in.negated);
  CHECK(Arg(in, 0).kind == Expr::Kind::kRow);
  CHECK(Arg(in, 0).args.size() == 2);
  // Widths that differ stay rows (binding raises 1241).
  CHECK(s.items[5].expr->kind == Expr::Kind::kBinary);
  CHECK(Arg(*s.items[5].expr, 1).kind == Expr::Kind::kRow);
  CHECK(Arg(*s.items[5].expr, 1).args.size() == 3);

  CHECK(MustFail("SELECT ROW(1)").code == kErParse);
  CHECK(MustFail("SELECT (1, 2) < ANY (SELECT a, b FROM t)").code == kErOperandColumns);
  CHECK(MustFail("SELECT (1, 2) IN ((3, 4), (SELECT 1))").message ==
        NotSupported("row subqueries in an IN list"));
  // A row compared with a subquery stays as written (binding learns the subquery's width), and
  // so does < of a row with an element that may change between evaluations.
  st = MustParse("SELECT (a, b) = (SELECT 1, 2), (rand(), b) < (1, 2), (a, b) < (1, 2)");
  const auto& rs = std::get<SelectStmt>(st);
  CHECK(rs.items[0].expr->kind == Expr::Kind::kBinary);
  CHECK(Arg(*rs.items[0].expr, 0).kind == Expr::Kind::kRow);
  CHECK(Arg(*rs.items[0].expr, 1).kind == Expr::Kind::kSubquery);
  CHECK(Arg(*rs.items[1].expr, 0).kind == Expr::Kind::kRow);
  CHECK(rs.items[2].expr->binary_op == BinaryOp::kOr);
  // = ANY of a row is IN, <> ALL NOT IN.
  st = MustParse("SELECT (a, b) = ANY (SELECT 1, 2), (a, b) <> ALL (SELECT 1, 2)");
  const auto& q = std::get<SelectStmt>(st);
  CHECK(q.items[0].expr->kind == Expr::Kind::kIn);
  CHECK(!q.items[0].expr->negated);
  CHECK(q.items[1].expr->kind == Expr::Kind::kIn);
  CHECK(q.items[1].expr->negated);
}

TEST_CASE("WITH ROLLUP and SQL_CALC_FOUND_ROWS", "[parser]") {
  Statement st =
      MustParse("SELECT SQL_CALC_FOUND_ROWS a, SUM(b) FROM t GROUP BY a WITH ROLLUP LIMIT 1");
  const auto& s = std::get<SelectStmt>(st);
  CHECK(s.calc_found_rows);
  CHECK(s.rollup);
  CHECK(s.group_by.size() == 1);
  CHECK(!std::get<SelectStmt>(MustParse("SELECT a FROM t GROUP BY a")).rollup);
  CHECK(MustFail("SELECT a FROM t GROUP BY a WITH CUBE").code == kErParse);
}

TEST_CASE("the lexer reads strings, numbers, names and comments as MySQL does", "[sql][parser]") {
  auto tokens =
      Tokenize("SELECT `a``b`, 'it''s\\n\\%', \"x\\\"y\", 0x4142, X'43', 1.5e2, .5 # c\n");
  REQUIRE(tokens.size() >= 14);
  CHECK(tokens[0].kind == TokenKind::kIdent);
  CHECK(tokens[1].kind == TokenKind::kQuotedIdent);
  CHECK(tokens[1].text == "a`b");
  CHECK(tokens[3].kind == TokenKind::kString);
  CHECK(tokens[3].text == "it's\n\\%");
  CHECK(tokens[5].text == "x\"y");
  CHECK(tokens[7].kind == TokenKind::kHexString);
  CHECK(tokens[7].text == "AB");
  CHECK(tokens[9].text == "C");
  CHECK(tokens[11].kind == TokenKind::kDecimal);
  CHECK(tokens[13].kind == TokenKind::kDecimal);
  CHECK(tokens[13].text == ".5");
  CHECK(tokens.back().kind == TokenKind::kEnd);
  CHECK(tokens[tokens.size() - 2].kind == TokenKind::kDecimal);  // the comment is skipped

  auto bad = Tokenize("SELECT 'abc");
  CHECK(bad[1].kind == TokenKind::kError);
  CHECK(bad[1].begin == 7);
  CHECK(bad.back().kind == TokenKind::kEnd);
}

TEST_CASE("W1's CREATE TABLE and INSERTs", "[sql][parser]") {
  Statement st = MustParse(
      "CREATE TABLE sample (i int(10) unsigned NOT NULL auto_increment, j varchar(255) default "
      "NULL, PRIMARY KEY (i), KEY j (j)) ENGINE=InnoDB DEFAULT CHARSET=utf8;");
  auto& c = As<CreateTableStmt>(st);
  CHECK(c.name.name == "sample");
  CHECK_FALSE(c.if_not_exists);
  REQUIRE(c.columns.size() == 2);
  const ColumnDef& i = c.columns[0].def;
  CHECK(i.name == "i");
  CHECK(i.type == ColumnType::kInt);
  CHECK(i.length == 10);
  CHECK(i.is_unsigned);
  CHECK_FALSE(i.nullable);
  CHECK(i.auto_increment);
  CHECK_FALSE(i.default_value.has_value());
  const ColumnDef& j = c.columns[1].def;
  CHECK(j.type == ColumnType::kVarchar);
  CHECK(j.length == 255);
  CHECK(j.nullable);
  REQUIRE(j.default_value.has_value());
  CHECK(j.default_value->is_null());
  REQUIRE(c.indexes.size() == 2);
  CHECK(c.indexes[0].primary);
  CHECK(c.indexes[0].columns == std::vector<std::string>{"i"});
  CHECK_FALSE(c.indexes[1].primary);
  CHECK_FALSE(c.indexes[1].unique);
  CHECK(c.indexes[1].name == "j");
  CHECK(c.indexes[1].columns == std::vector<std::string>{"j"});
  REQUIRE(c.options.size() == 2);
  CHECK(c.options[0] == std::pair<std::string, std::string>{"ENGINE", "InnoDB"});
  CHECK(c.options[1] == std::pair<std::string, std::string>{"CHARSET", "utf8"});

  st = MustParse("INSERT INTO sample (j) VALUES (md5(rand()));");
  auto& ins = As<InsertStmt>(st);
  CHECK(ins.table.name == "sample");
  CHECK(ins.table.schema == "test");  // the current database (ParseOptions::database)
  CHECK(ins.columns == std::vector<std::string>{"j"});
  REQUIRE(ins.rows.size() == 1);
  REQUIRE(RowOf(ins, 0).size() == 1);
  REQUIRE(RowOf(ins, 0)[0].expr == 0);
  const Expr& md5 = *ins.rows.exprs()[0];
  CHECK(md5.kind == Expr::Kind::kFunction);
  CHECK(md5.name == "md5");
  CHECK(md5.text == "md5(rand())");
  CHECK(Arg(md5, 0).kind == Expr::Kind::kFunction);
  CHECK(Arg(md5, 0).name == "rand");
  CHECK(Arg(md5, 0).args.empty());

  st = MustParse("INSERT INTO sample (j) SELECT md5(rand()) FROM sample;");
  auto& ins2 = As<InsertStmt>(st);
  CHECK(ins2.rows.empty());
  REQUIRE(ins2.select != nullptr);
  REQUIRE(ins2.select->from.has_value());
  CHECK(ins2.select->from->name == "sample");
  REQUIRE(ins2.select->items.size() == 1);
  CHECK(ins2.select->items[0].expr->text == "md5(rand())");
}

TEST_CASE("W1's four queries and their locking clauses", "[sql][parser]") {
  struct Case {
    const char* sql;
    RowLockClause lock;
  };
  for (const Case& k :
       {Case{"SELECT count(i) FROM sample;", RowLockClause::kNone},
        Case{"SELECT count(i) FROM sample LOCK IN SHARE MODE;", RowLockClause::kShare},
        Case{"SELECT count(i) FROM sample FOR UPDATE;", RowLockClause::kUpdate},
        Case{"select COUNT(i) from sample for share", RowLockClause::kShare}}) {
    Statement st = MustParse(k.sql);
    auto& s = As<SelectStmt>(st);
    CHECK(s.lock == k.lock);
    REQUIRE(s.items.size() == 1);
    const Expr& e = *s.items[0].expr;
    CHECK(e.kind == Expr::Kind::kFunction);
    CHECK(e.name == "count");
    CHECK(Arg(e, 0).kind == Expr::Kind::kColumn);
    CHECK(Arg(e, 0).name == "i");
    CHECK(s.from->name == "sample");
    CHECK(s.where == nullptr);
  }
  Statement st = MustParse("SELECT count(*) FROM sample WHERE j LIKE \"5%\" LOCK IN SHARE MODE;");
  auto& s = As<SelectStmt>(st);
  CHECK(s.lock == RowLockClause::kShare);
  CHECK(s.items[0].expr->text == "count(*)");
  CHECK(Arg(*s.items[0].expr, 0).kind == Expr::Kind::kStar);
  REQUIRE(s.where != nullptr);
  CHECK(s.where->kind == Expr::Kind::kLike);
  CHECK_FALSE(s.where->negated);
  CHECK(Arg(*s.where, 0).name == "j");
  CHECK(Arg(*s.where, 1).value == Value::String("5%"));

  st = MustParse("SELECT a FROM t FOR UPDATE NOWAIT");
  CHECK(As<SelectStmt>(st).lock == RowLockClause::kUpdate);
  CHECK(As<SelectStmt>(st).locked_row == LockedRowAction::kNoWait);
  st = MustParse("SELECT a FROM t AS x FOR SHARE OF x SKIP LOCKED");
  CHECK(As<SelectStmt>(st).lock == RowLockClause::kShare);
  CHECK(As<SelectStmt>(st).locked_row == LockedRowAction::kSkipLocked);
  st = MustParse("SELECT a FROM t LOCK IN SHARE MODE");
  CHECK(As<SelectStmt>(st).locked_row == LockedRowAction::kWait);
  st = MustParse("SELECT 1 FOR UPDATE");
  CHECK(As<SelectStmt>(st).lock == RowLockClause::kNone);
  st = MustParse("SELECT count(DISTINCT a) FROM t");
  CHECK(As<SelectStmt>(st).items[0].expr->distinct);
  CHECK(!As<SelectStmt>(st).distinct);
  st = MustParse("SELECT DISTINCT HIGH_PRIORITY a FROM t");
  CHECK(As<SelectStmt>(st).distinct);
  CHECK(As<SelectStmt>(st).high_priority);
  st = MustParse("SELECT DISTINCTROW a FROM t");
  CHECK(As<SelectStmt>(st).distinct);
  st = MustParse("SELECT ALL a FROM t");
  CHECK(!As<SelectStmt>(st).distinct);
  st = MustParse("SELECT a FROM t GROUP BY a HAVING count(*) > 1 ORDER BY a");
  CHECK(As<SelectStmt>(st).having->kind == Expr::Kind::kBinary);
  CHECK(As<SelectStmt>(st).order_by.size() == 1);
  CHECK(MustFail("SELECT DISTINCT ALL a FROM t").code == kErWrongUsage);
}

TEST_CASE("SHOW statements", "[sql][parser]") {
  struct Case {
    const char* sql;
    ShowStmt::Kind kind;
    VarScope scope;
    const char* table;
    const char* like;  // nullptr: none
  };
  using K = ShowStmt::Kind;
  const VarScope d = VarScope::kDefault;
  for (const Case& k : {
           Case{"SHOW INNODB STATUS;", K::kEngineInnodbStatus, d, "", nullptr},
           Case{"SHOW ENGINE INNODB STATUS;", K::kEngineInnodbStatus, d, "", nullptr},
           Case{"show engine innodb status", K::kEngineInnodbStatus, d, "", nullptr},
           Case{"SHOW TABLE STATUS LIKE 'sample';", K::kTableStatus, d, "", "sample"},
           Case{"SHOW TABLE STATUS FROM test LIKE 'x'", K::kTableStatus, d, "", "x"},
           Case{"SHOW TABLE STATUS", K::kTableStatus, d, "", nullptr},
           Case{"SHOW GLOBAL STATUS LIKE 'Table_locks%';", K::kStatus, VarScope::kGlobal, "",
                "Table_locks%"},
           Case{"SHOW SESSION STATUS", K::kStatus, VarScope::kSession, "", nullptr},
           Case{"SHOW STATUS LIKE 'Innodb_row_lock%'", K::kStatus, d, "", "Innodb_row_lock%"},
           Case{"SHOW VARIABLES LIKE 'x'", K::kVariables, d, "", "x"},
           Case{"SHOW GLOBAL VARIABLES", K::kVariables, VarScope::kGlobal, "", nullptr},
           Case{"SHOW SESSION VARIABLES LIKE 'a%'", K::kVariables, VarScope::kSession, "", "a%"},
           Case{"SHOW TABLES", K::kTables, d, "", nullptr},
           Case{"SHOW FULL TABLES", K::kTables, d, "", nullptr},
           Case{"SHOW CREATE TABLE t", K::kCreateTable, d, "t", nullptr},
           Case{"SHOW COLUMNS FROM t", K::kColumns, d, "t", nullptr},
           Case{"SHOW INDEX FROM t", K::kIndex, d, "t", nullptr},
           Case{"SHOW KEYS FROM t", K::kIndex, d, "t", nullptr},
           Case{"SHOW ENGINES", K::kEngines, d, "", nullptr},
           Case{"SHOW WARNINGS", K::kWarnings, d, "", nullptr},
           Case{"SHOW ERRORS", K::kErrors, d, "", nullptr},
           Case{"SHOW COUNT(*) WARNINGS", K::kWarningCount, d, "", nullptr},
           Case{"SHOW COUNT ( * ) ERRORS", K::kErrorCount, d, "", nullptr},
           Case{"SHOW PROCESSLIST", K::kProcesslist, d, "", nullptr},
           Case{"SHOW FULL PROCESSLIST", K::kProcesslist, d, "", nullptr},
           Case{"DESCRIBE sample;", K::kColumns, d, "sample", nullptr},
           Case{"DESC sample;", K::kColumns, d, "sample", nullptr},
       }) {
    INFO(k.sql);
    Statement st = MustParse(k.sql);
    auto& s = As<ShowStmt>(st);
    CHECK(s.kind == k.kind);
    CHECK(s.scope == k.scope);
    CHECK(s.table.name == k.table);
    CHECK(s.like.has_value() == (k.like != nullptr));
    if (k.like != nullptr && s.like.has_value()) CHECK(*s.like == k.like);
  }
  Statement from_other = MustParse("SHOW TABLES FROM other");
  CHECK(As<ShowStmt>(from_other).database == "other");
  Statement current = MustParse("SHOW TABLES");
  CHECK(As<ShowStmt>(current).database == "test");
  Statement cols = MustParse("SHOW COLUMNS FROM t FROM other");
  CHECK(As<ShowStmt>(cols).table == TableName{"other", "t"});
  Statement create_db = MustParse("SHOW CREATE SCHEMA IF NOT EXISTS d");
  CHECK(As<ShowStmt>(create_db).kind == ShowStmt::Kind::kCreateDatabase);
  CHECK(As<ShowStmt>(create_db).database == "d");
  CHECK(As<ShowStmt>(create_db).if_not_exists);
  Statement full = MustParse("SHOW FULL PROCESSLIST");
  CHECK(As<ShowStmt>(full).full);
  full = MustParse("SHOW FULL COLUMNS FROM t");
  CHECK(As<ShowStmt>(full).full);
  full = MustParse("SHOW TABLES");
  CHECK_FALSE(As<ShowStmt>(full).full);
}

TEST_CASE("SET statements", "[sql][parser]") {
  Statement st = MustParse("SET GLOBAL concurrent_insert=2;");
  auto& s1 = As<SetStmt>(st);
  REQUIRE(s1.items.size() == 1);
  CHECK(s1.items[0].scope == VarScope::kGlobal);
  CHECK(s1.items[0].name == "concurrent_insert");
  CHECK(s1.items[0].value->value == Value::Int(2));

  st = MustParse("SET SESSION transaction_isolation='READ-COMMITTED';");
  auto& s2 = As<SetStmt>(st);
  CHECK(s2.items[0].scope == VarScope::kSession);
  CHECK(s2.items[0].name == "transaction_isolation");
  CHECK(s2.items[0].value->value == Value::String("READ-COMMITTED"));
  CHECK_FALSE(s2.items[0].next_transaction_only);

  st = MustParse("SET autocommit=0;");
  CHECK(As<SetStmt>(st).items[0].scope == VarScope::kDefault);
  CHECK(As<SetStmt>(st).items[0].value->value == Value::Int(0));

  st = MustParse("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;");
  auto& s3 = As<SetStmt>(st);
  REQUIRE(s3.items.size() == 1);
  CHECK(s3.items[0].name == "transaction_isolation");
  CHECK(s3.items[0].next_transaction_only);
  CHECK(s3.items[0].scope == VarScope::kDefault);
  CHECK(s3.items[0].value->value == Value::String("SERIALIZABLE"));

  st = MustParse("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;");
  auto& s4 = As<SetStmt>(st);
  CHECK_FALSE(s4.items[0].next_transaction_only);
  CHECK(s4.items[0].scope == VarScope::kSession);
  CHECK(s4.items[0].value->value == Value::String("READ-COMMITTED"));

  st = MustParse("SET GLOBAL TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
  auto& s5 = As<SetStmt>(st);
  REQUIRE(s5.items.size() == 2);
  CHECK(s5.items[0].value->value == Value::String("REPEATABLE-READ"));
  CHECK(s5.items[0].scope == VarScope::kGlobal);
  CHECK(s5.items[1].name == "transaction_read_only");
  CHECK(s5.items[1].value->value == Value::Int(1));

  st = MustParse("SET @@global.innodb_lock_wait_timeout = 1;");
  auto& s6 = As<SetStmt>(st);
  CHECK(s6.items[0].scope == VarScope::kGlobal);
  CHECK(s6.items[0].name == "innodb_lock_wait_timeout");
  CHECK(s6.items[0].value->value == Value::Int(1));

  st = MustParse("SET autocommit = ON;");
  CHECK(As<SetStmt>(st).items[0].value->value == Value::String("ON"));
  st = MustParse("SET transaction_isolation = READ-COMMITTED, @@session.Lock_Wait_Timeout := 5");
  auto& s7 = As<SetStmt>(st);
  REQUIRE(s7.items.size() == 2);
  CHECK(s7.items[0].value->value == Value::String("READ-COMMITTED"));
  CHECK(s7.items[1].scope == VarScope::kSession);
  CHECK(s7.items[1].name == "lock_wait_timeout");

  st = MustParse("SET NAMES utf8mb4;");
  CHECK(As<SetStmt>(st).items[0].name == "names");
  CHECK(As<SetStmt>(st).items[0].value->value == Value::String("utf8mb4"));
  st = MustParse("/*!40101 SET NAMES utf8 */;");
  CHECK(As<SetStmt>(st).items[0].value->value == Value::String("utf8"));

  st = MustParse("SET @Xy := 1 + 2, @`b c` = 'v'");
  auto& su = As<SetStmt>(st);
  REQUIRE(su.items.size() == 2);
  CHECK(su.items[0].scope == VarScope::kUser);
  CHECK(su.items[0].name == "xy");
  CHECK(su.items[0].value->kind == Expr::Kind::kBinary);
  CHECK(su.items[1].name == "b c");
  st = MustParse("SELECT @X := 1 + 2");
  const Expr& assign = *As<SelectStmt>(st).items[0].expr;
  CHECK(assign.kind == Expr::Kind::kVariable);
  CHECK(assign.name == "x");
  REQUIRE(assign.args.size() == 1);
  CHECK(assign.args[0]->kind == Expr::Kind::kBinary);
}

TEST_CASE("SELECT ... INTO @a, @b: after the select list or at the end", "[sql][parser]") {
  Statement st = MustParse("SELECT a, b INTO @X, @`y` FROM t WHERE a = 1");
  auto& s1 = As<SelectStmt>(st);
  CHECK(s1.into_vars == std::vector<std::string>{"x", "y"});
  CHECK(s1.where != nullptr);
  st = MustParse("SELECT a FROM t ORDER BY a LIMIT 1 INTO @x FOR UPDATE");
  auto& s2 = As<SelectStmt>(st);
  CHECK(s2.into_vars == std::vector<std::string>{"x"});
  CHECK(s2.lock == RowLockClause::kUpdate);
  st = MustParse("SELECT a FROM t FOR SHARE INTO @x");
  CHECK(As<SelectStmt>(st).into_vars.size() == 1);
  st = MustParse("SELECT a FROM t");
  CHECK(As<SelectStmt>(st).into_vars.empty());
  CHECK(MustFail("SELECT 1 INTO @a INTO @b").code == kErParse);
  CHECK(MustFail("INSERT INTO t SELECT 1 INTO @a").code == kErParse);
  CHECK(MustFail("CREATE TABLE t2 SELECT 1 INTO @a").code == kErParse);
  CHECK(MustFail("SELECT 1 INTO a").code == kErSpUndeclaredVar);
  CHECK(MustFail("SELECT 1 INTO @").code == kErParse);
}

TEST_CASE("LOCK TABLES, UNLOCK TABLES, OPTIMIZE TABLE", "[sql][parser]") {
  using M = LockTablesStmt::Mode;
  Statement st = MustParse("LOCK TABLES t1 READ LOCAL;");
  auto& l1 = As<LockTablesStmt>(st);
  REQUIRE(l1.items.size() == 1);
  CHECK(l1.items[0].table == TableName{"test", "t1"});
  CHECK(l1.items[0].mode == M::kReadLocal);

  st = MustParse("LOCK TABLE t1 READ, t2 WRITE;");
  auto& l2 = As<LockTablesStmt>(st);
  REQUIRE(l2.items.size() == 2);
  CHECK(l2.items[0].mode == M::kRead);
  CHECK(l2.items[1].table.name == "t2");
  CHECK(l2.items[1].mode == M::kWrite);

  st = MustParse("LOCK TABLES t1 AS a LOW_PRIORITY WRITE");
  CHECK(As<LockTablesStmt>(st).items[0].alias == "a");
  CHECK(As<LockTablesStmt>(st).items[0].mode == M::kLowPriorityWrite);

  st = MustParse("UNLOCK TABLES;");
  CHECK(std::holds_alternative<UnlockTablesStmt>(st));

  st = MustParse("OPTIMIZE TABLE t1;");
  CHECK(As<OptimizeTableStmt>(st).tables == std::vector<TableName>{{"test", "t1"}});
  st = MustParse("OPTIMIZE NO_WRITE_TO_BINLOG TABLE t1, t2;");
  CHECK(As<OptimizeTableStmt>(st).tables == std::vector<TableName>{{"test", "t1"}, {"test", "t2"}});

  st = MustParse("RENAME TABLE a TO b, x.c TO d");
  CHECK(As<RenameTableStmt>(st).renames ==
        std::vector<std::pair<TableName, TableName>>{{{"test", "a"}, {"test", "b"}},
                                                     {{"x", "c"}, {"test", "d"}}});
  CHECK(MustFail("RENAME TABLE a b").code == kErParse);
  st = MustParse("ALTER TABLE a ADD COLUMN x INT, RENAME AS b");
  CHECK(As<AlterTableStmt>(st).rename_to == TableName{"test", "b"});
  CHECK(As<AlterTableStmt>(st).actions.size() == 1);

  st = MustParse("CREATE TABLE b LIKE a");
  CHECK(As<CreateTableStmt>(st).like == TableName{"test", "a"});
  st = MustParse("CREATE TABLE IF NOT EXISTS b (LIKE a)");
  CHECK(As<CreateTableStmt>(st).like.name == "a");
  CHECK(As<CreateTableStmt>(st).if_not_exists);
  CHECK(MustFail("CREATE TABLE b (LIKE a").code == kErParse);

  st = MustParse("CREATE TABLE b (x INT, KEY (y)) ENGINE=MyISAM IGNORE AS SELECT y FROM a");
  auto& ctas = As<CreateTableStmt>(st);
  REQUIRE(ctas.as_select != nullptr);
  CHECK(ctas.columns.size() == 1);
  CHECK(ctas.indexes.size() == 1);
  CHECK(ctas.options.size() == 1);
  CHECK(ctas.ignore);
  CHECK_FALSE(ctas.replace);
  st = MustParse("CREATE TABLE b REPLACE SELECT 1");
  CHECK(As<CreateTableStmt>(st).replace);
  st = MustParse("CREATE TABLE b (SELECT 1 UNION SELECT 2)");
  REQUIRE(As<CreateTableStmt>(st).as_select != nullptr);
  CHECK(As<CreateTableStmt>(st).as_select->union_of != nullptr);
  CHECK(As<CreateTableStmt>(st).columns.empty());
  CHECK(MustFail("CREATE TABLE b (x INT) IGNORE").code == kErParse);
  CHECK(MustFail("CREATE TABLE b (x INT) AS").code == kErParse);

  st = MustParse("SELECT db.t.*, `d`.`u`.*, t.*, * FROM db.t, d.u");
  const auto& items = As<SelectStmt>(st).items;
  REQUIRE(items.size() == 4);
  CHECK((items[0].star_schema == "db" && items[0].star_table == "t" && items[0].expr == nullptr));
  CHECK((items[1].star_schema == "d" && items[1].star_table == "u"));
  CHECK((items[2].star_schema.empty() && items[2].star_table == "t"));
  CHECK((items[3].star_schema.empty() && items[3].star_table.empty()));
  CHECK(MustFail("SELECT db.t.*.* FROM t").code == kErParse);

  st = MustParse("ANALYZE TABLE a");
  CHECK(As<AnalyzeTableStmt>(st).tables == std::vector<TableName>{{"test", "a"}});
  st = MustParse("ANALYZE LOCAL TABLES a, b");
  CHECK(As<AnalyzeTableStmt>(st).tables.size() == 2);
  CHECK(MustFail("ANALYZE TABLE a UPDATE HISTOGRAM ON x").code == kErNotSupportedYet);
}

TEST_CASE("databases: CREATE/DROP DATABASE, USE, names without a current database",
          "[sql][parser]") {
  Statement st = MustParse(
      "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT "
      "CHARACTER SET utf8mb4 COLLATE utf8mb4_bin */");
  auto& c = As<CreateDatabaseStmt>(st);
  CHECK(c.name == "shop");
  CHECK(c.if_not_exists);
  CHECK(c.charset == "utf8mb4");
  CHECK(c.collation == "utf8mb4_bin");
  st = MustParse("CREATE SCHEMA d CHARSET = UTF8MB3");
  CHECK(As<CreateDatabaseStmt>(st).charset == "utf8mb3");
  CHECK(As<CreateDatabaseStmt>(st).collation.empty());
  CHECK(MustFail("CREATE DATABASE d ENCRYPTION = 'Y'").code == kErNotSupportedYet);
  // mysqldump's CREATE DATABASE line, as SHOW CREATE DATABASE prints it: 'N' is no encryption.
  st = MustParse(
      "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `d1` /*!40100 DEFAULT CHARACTER SET utf8mb3 */ "
      "/*!80016 DEFAULT ENCRYPTION='N' */");
  CHECK(As<CreateDatabaseStmt>(st).charset == "utf8mb3");
  st = MustParse("CREATE DATABASE d ENCRYPTION n");
  CHECK(As<CreateDatabaseStmt>(st).name == "d");
  CHECK(MustFail("CREATE DATABASE d WHATEVER").code == kErParse);
  st = MustParse("DROP SCHEMA IF EXISTS d");
  CHECK(As<DropDatabaseStmt>(st).name == "d");
  CHECK(As<DropDatabaseStmt>(st).if_exists);
  // A name without a database is in the current one; with none selected, 1046.
  ParseOptions none;
  none.database = "";
  for (const char* sql : {"SELECT * FROM t", "INSERT INTO t VALUES (1)", "DROP TABLE t",
                          "SHOW TABLES", "SELECT * FROM d.t JOIN u", "LOCK TABLES t READ"}) {
    INFO(sql);
    SqlResult<Statement> r = Parse(sql, none);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == kErNoDb);
  }
  REQUIRE(Parse("SELECT * FROM d.t JOIN e.u USING (i)", none).ok());
  REQUIRE(Parse("SELECT * FROM information_schema.tables", none).ok());
  ParseOptions shop;
  shop.database = "shop";
  SqlResult<Statement> r = Parse("UPDATE t SET i = 1", shop);
  REQUIRE(r.ok());
  CHECK(std::get<UpdateStmt>(*r).table == TableName{"shop", "t"});
}

TEST_CASE("sysbench's table, index and ALTERs", "[sql][parser]") {
  Statement st = MustParse(
      "CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
      "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) /*! "
      "ENGINE = innodb */;");
  auto& c = As<CreateTableStmt>(st);
  CHECK(c.name.name == "sbtest1");
  REQUIRE(c.columns.size() == 4);
  CHECK(c.columns[0].def.type == ColumnType::kInt);
  CHECK(c.columns[1].def.default_value == Value::String("0"));
  CHECK_FALSE(c.columns[1].def.nullable);
  CHECK(c.columns[2].def.type == ColumnType::kChar);
  CHECK(c.columns[2].def.length == 120);
  CHECK(c.columns[2].def.default_value == Value::String(""));
  REQUIRE(c.indexes.size() == 1);
  CHECK(c.indexes[0].primary);
  REQUIRE(c.options.size() == 1);
  CHECK(c.options[0] == std::pair<std::string, std::string>{"ENGINE", "innodb"});

  st = MustParse("CREATE INDEX k_1 ON sbtest1(k);");
  auto& ci = As<CreateIndexStmt>(st);
  CHECK(ci.index.name == "k_1");
  CHECK(ci.table.name == "sbtest1");
  CHECK(ci.index.columns == std::vector<std::string>{"k"});
  CHECK_FALSE(ci.index.unique);
  st = MustParse("CREATE UNIQUE INDEX u ON t (a(10) DESC, b) ALGORITHM=INPLACE LOCK=NONE");
  auto& ci2 = As<CreateIndexStmt>(st);
  CHECK(ci2.index.unique);
  CHECK(ci2.index.columns == std::vector<std::string>{"a", "b"});
  CHECK(ci2.algorithm == "INPLACE");

  using K = AlterAction::Kind;
  st = MustParse("ALTER TABLE sbtest1 MODIFY COLUMN pad text;");
  auto& a1 = As<AlterTableStmt>(st);
  CHECK(a1.table.name == "sbtest1");
  REQUIRE(a1.actions.size() == 1);
  CHECK(a1.actions[0].kind == K::kModifyColumn);
  CHECK(a1.actions[0].column.def.name == "pad");
  CHECK(a1.actions[0].column.def.type == ColumnType::kText);

  st = MustParse("ALTER TABLE sbtest1 MODIFY pad char(60) NOT NULL DEFAULT '', ALGORITHM=COPY;");
  auto& a2 = As<AlterTableStmt>(st);
  REQUIRE(a2.actions.size() == 1);
  CHECK(a2.actions[0].column.def.type == ColumnType::kChar);
  CHECK(a2.actions[0].column.def.length == 60);
  CHECK_FALSE(a2.actions[0].column.def.nullable);
  CHECK(a2.algorithm == "COPY");

  st = MustParse(
      "ALTER TABLE t ADD COLUMN x int AFTER y, ADD INDEX ix (x), DROP COLUMN z, "
      "LOCK=SHARED;");
  auto& a3 = As<AlterTableStmt>(st);
  REQUIRE(a3.actions.size() == 3);
  CHECK(a3.actions[0].kind == K::kAddColumn);
  CHECK(a3.actions[0].column.def.name == "x");
  CHECK(a3.actions[0].after == "y");
  CHECK(a3.actions[1].kind == K::kAddIndex);
  CHECK(a3.actions[1].index.name == "ix");
  CHECK(a3.actions[1].index.columns == std::vector<std::string>{"x"});
  CHECK(a3.actions[2].kind == K::kDropColumn);
  CHECK(a3.actions[2].name == "z");
  CHECK(a3.lock == "SHARED");
  CHECK(a3.algorithm.empty());

  st = MustParse("ALTER TABLE t ENGINE=InnoDB;");
  auto& a4 = As<AlterTableStmt>(st);
  REQUIRE(a4.actions.size() == 1);
  CHECK(a4.actions[0].kind == K::kTableOption);
  CHECK(a4.actions[0].option == std::pair<std::string, std::string>{"ENGINE", "InnoDB"});

  st = MustParse("ALTER TABLE t DROP INDEX j;");
  CHECK(As<AlterTableStmt>(st).actions[0].kind == K::kDropIndex);
  CHECK(As<AlterTableStmt>(st).actions[0].name == "j");

  st = MustParse("ALTER TABLE t CHANGE COLUMN a b bigint;");
  auto& a5 = As<AlterTableStmt>(st);
  CHECK(a5.actions[0].kind == K::kChangeColumn);
  CHECK(a5.actions[0].name == "a");
  CHECK(a5.actions[0].column.def.name == "b");
  CHECK(a5.actions[0].column.def.type == ColumnType::kBigInt);

  st = MustParse(
      "ALTER TABLE t ADD PRIMARY KEY (a), DROP PRIMARY KEY, ADD UNIQUE KEY u (b), "
      "ADD c int FIRST");
  auto& a6 = As<AlterTableStmt>(st);
  REQUIRE(a6.actions.size() == 4);
  CHECK(a6.actions[0].index.primary);
  CHECK(a6.actions[1].kind == K::kDropPrimaryKey);
  CHECK(a6.actions[2].index.unique);
  CHECK(a6.actions[2].index.name == "u");
  CHECK(a6.actions[3].first);
}

TEST_CASE("DECIMAL columns: precision and scale as MySQL reads them", "[sql][parser]") {
  Statement st = MustParse(
      "CREATE TABLE t (a DECIMAL, b DECIMAL(5), c NUMERIC(12,4), d DEC(0), e FIXED(65,30) "
      "UNSIGNED, f DECIMAL(3,3))");
  auto& c = As<CreateTableStmt>(st);
  REQUIRE(c.columns.size() == 6);
  const std::pair<uint32_t, uint8_t> expected[] = {{10, 0}, {5, 0},   {12, 4},
                                                   {10, 0}, {65, 30}, {3, 3}};
  for (size_t i = 0; i < 6; ++i) {
    CHECK(c.columns[i].def.type == ColumnType::kDecimal);
    CHECK(c.columns[i].def.length == expected[i].first);
    CHECK(c.columns[i].def.scale == expected[i].second);
  }
  CHECK(c.columns[4].def.is_unsigned);
  // The scale is checked first, then the precision, then M >= D (MySQL's order).
  CHECK(MustFail("CREATE TABLE t (d DECIMAL(66,31))").code == kErTooBigScale);
  CHECK(MustFail("CREATE TABLE t (d DECIMAL(66,2))").message ==
        "Too-big precision 66 specified for 'd'. Maximum is 65.");
  CHECK(MustFail("CREATE TABLE t (d DECIMAL(10,31))").message ==
        "Too big scale 31 specified for column 'd'. Maximum is 30.");
  CHECK(MustFail("CREATE TABLE t (d DECIMAL(2,3))").code == kErMBiggerThanD);
  CHECK(MustFail("CREATE TABLE t (d DECIMAL(0,1))").code == kErMBiggerThanD);
}

TEST_CASE("column types and attributes", "[sql][parser]") {
  Statement st = MustParse(
      "CREATE TABLE IF NOT EXISTS test.t (a TINYINT, b SMALLINT(4) SIGNED, c MEDIUMINT, "
      "d BIGINT UNSIGNED, e BOOL, f DOUBLE PRECISION, g FLOAT8, h REAL, i CHAR, j CHAR(4), "
      "k VARCHAR(8), l TEXT, m TEXT, "
      "n BLOB, o BLOB, p INT NULL DEFAULT -5 COMMENT 'x', q INT PRIMARY KEY, "
      "r INT UNIQUE KEY, s DOUBLE DEFAULT 1.5, u INT DEFAULT TRUE, "
      "CONSTRAINT pk UNIQUE INDEX ux USING BTREE (a, b), INDEX (c)) "
      "ENGINE InnoDB, DEFAULT CHARACTER SET = latin1, COLLATE latin1_bin, COMPRESSION='zlib', "
      "MAX_ROWS=100, AUTO_INCREMENT=7, ROW_FORMAT=COMPRESSED, COMMENT='hi', KEY_BLOCK_SIZE=8");
  auto& c = As<CreateTableStmt>(st);
  CHECK(c.name.name == "t");
  CHECK(c.if_not_exists);
  REQUIRE(c.columns.size() == 20);
  auto type = [&](size_t i) { return c.columns[i].def.type; };
  CHECK(type(0) == ColumnType::kTinyInt);
  CHECK(type(1) == ColumnType::kSmallInt);
  CHECK(c.columns[1].def.length == 4);
  CHECK(type(2) == ColumnType::kMediumInt);
  CHECK(type(3) == ColumnType::kBigInt);
  CHECK(c.columns[3].def.is_unsigned);
  CHECK(type(4) == ColumnType::kTinyInt);
  CHECK(type(5) == ColumnType::kDouble);
  CHECK(type(6) == ColumnType::kDouble);
  CHECK(type(7) == ColumnType::kDouble);
  CHECK(type(8) == ColumnType::kChar);
  CHECK(c.columns[8].def.length == 1);
  CHECK(type(9) == ColumnType::kChar);
  CHECK(c.columns[9].def.length == 4);
  CHECK(type(10) == ColumnType::kVarchar);
  CHECK(type(11) == ColumnType::kText);
  CHECK(type(12) == ColumnType::kText);
  CHECK(type(13) == ColumnType::kBlob);
  CHECK(type(14) == ColumnType::kBlob);
  CHECK(c.columns[15].explicit_null);
  CHECK(c.columns[15].def.default_value == Value::Int(-5));
  CHECK(c.columns[16].primary_key);
  CHECK(c.columns[17].unique);
  CHECK(c.columns[18].def.default_value == Value::Dec(*Decimal::Parse("1.5")));
  CHECK(c.columns[19].def.default_value == Value::Int(1));
  REQUIRE(c.indexes.size() == 2);
  CHECK(c.indexes[0].unique);
  CHECK(c.indexes[0].name == "ux");
  CHECK(c.indexes[1].name.empty());
  CHECK(c.indexes[1].columns == std::vector<std::string>{"c"});
  using P = std::pair<std::string, std::string>;
  CHECK(c.options ==
        TableOptions{P{"ENGINE", "InnoDB"}, P{"CHARSET", "latin1"}, P{"COLLATE", "latin1_bin"},
                     P{"COMPRESSION", "zlib"}, P{"MAX_ROWS", "100"}, P{"AUTO_INCREMENT", "7"},
                     P{"ROW_FORMAT", "COMPRESSED"}, P{"COMMENT", "hi"}, P{"KEY_BLOCK_SIZE", "8"}});

  for (const char* t : {"JSON", "FLOAT", "BINARY(4)", "VARBINARY(8)", "TINYTEXT", "MEDIUMTEXT",
                        "LONGTEXT", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB"}) {
    std::string type_name = t;
    type_name = type_name.substr(0, type_name.find('('));
    SqlError e = MustFail(std::string("CREATE TABLE t (a ") + t + ")");
    CHECK(e.code == kErNotSupportedYet);
    CHECK(e.message == NotSupported(type_name));
  }
  // TIME[(fsp)] is a type of its own, fsp 0..6.
  MustParse("CREATE TABLE t (a TIME, b TIME(6) NOT NULL DEFAULT '-838:59:59')");
  CHECK(MustFail("CREATE TABLE t (a TIME(7))").code == kErTooBigPrecision);
  // Never kept silently as something else: refused, naming what is not kept.
  CHECK(MustFail("CREATE TABLE t (a INT ZEROFILL)").message == NotSupported("ZEROFILL"));
  CHECK(MustFail("CREATE TABLE t (a DECIMAL(10,2) ZEROFILL)").message == NotSupported("ZEROFILL"));
  CHECK(MustFail("CREATE TABLE t (a DOUBLE(10,2))").message == NotSupported("DOUBLE(M,D)"));
  // A column's CHARACTER SET/COLLATE/BINARY parse; the catalog resolves them (ResolveCollations:
  // 1235 for a character set minnow lacks, such as latin1).
  MustParse("CREATE TABLE t (a TEXT CHARACTER SET latin1)");
  MustParse("CREATE TABLE t (a VARCHAR(5) COLLATE utf8mb4_bin)");
  MustParse("CREATE TABLE t (a CHAR(5) NOT NULL COLLATE latin1_bin)");
  MustParse("CREATE TABLE t (a CHAR(5) BINARY)");
  CHECK(MustFail("CREATE TABLE t (a VARCHAR)").code == kErParse);
  Statement other = MustParse("CREATE TABLE other.t (a int)");
  CHECK(As<CreateTableStmt>(other).name == TableName{"other", "t"});
}

TEST_CASE("SELECT from the status views and variables", "[sql][parser]") {
  Statement st = MustParse("SELECT * FROM performance_schema.data_locks;");
  auto& s1 = As<SelectStmt>(st);
  REQUIRE(s1.items.size() == 1);
  CHECK(s1.items[0].expr == nullptr);
  CHECK(s1.from->schema == "performance_schema");
  CHECK(s1.from->name == "data_locks");

  st = MustParse(
      "SELECT ENGINE_TRANSACTION_ID, INDEX_NAME, LOCK_MODE, LOCK_DATA FROM "
      "performance_schema.data_locks WHERE OBJECT_NAME = 'sample' ORDER BY 1;");
  auto& s2 = As<SelectStmt>(st);
  REQUIRE(s2.items.size() == 4);
  CHECK(s2.items[3].expr->name == "LOCK_DATA");
  CHECK(s2.where->kind == Expr::Kind::kBinary);
  CHECK(s2.where->binary_op == BinaryOp::kEq);
  REQUIRE(s2.order_by.size() == 1);
  CHECK(s2.order_by[0].expr->value == Value::Int(1));
  CHECK_FALSE(s2.order_by[0].desc);

  st = MustParse("SELECT count(*) FROM information_schema.innodb_trx;");
  CHECK(As<SelectStmt>(st).from->schema == "information_schema");

  st = MustParse(
      "SELECT @@autocommit, @@global.transaction_isolation, "
      "@@session.innodb_lock_wait_timeout;");
  auto& s3 = As<SelectStmt>(st);
  REQUIRE(s3.items.size() == 3);
  CHECK_FALSE(s3.from.has_value());
  CHECK(s3.items[0].expr->kind == Expr::Kind::kVariable);
  CHECK(s3.items[0].expr->name == "autocommit");
  CHECK(s3.items[0].expr->var_scope == VarScope::kDefault);
  CHECK(s3.items[0].expr->text == "@@autocommit");
  CHECK(s3.items[1].expr->var_scope == VarScope::kGlobal);
  CHECK(s3.items[1].expr->name == "transaction_isolation");
  CHECK(s3.items[2].expr->var_scope == VarScope::kSession);

  st = MustParse("SELECT 1+2*3, -4, 'a' 'b';");
  auto& s4 = As<SelectStmt>(st);
  REQUIRE(s4.items.size() == 3);
  const Expr& sum = *s4.items[0].expr;
  CHECK(sum.text == "1+2*3");
  CHECK(sum.binary_op == BinaryOp::kAdd);
  CHECK(Arg(sum, 0).value == Value::Int(1));
  CHECK(Arg(sum, 1).binary_op == BinaryOp::kMul);
  CHECK(s4.items[1].expr->value == Value::Int(-4));
  CHECK(s4.items[1].expr->text == "-4");
  CHECK(s4.items[2].expr->value == Value::String("ab"));
}

TEST_CASE("EXPLAIN and DESCRIBE", "[sql][parser]") {
  Statement st = MustParse("EXPLAIN SELECT * FROM sample WHERE j LIKE '5%';");
  auto& e = As<std::unique_ptr<ExplainStmt>>(st);
  REQUIRE(e != nullptr);
  auto& s = As<SelectStmt>(e->statement);
  CHECK(s.where->kind == Expr::Kind::kLike);

  st = MustParse("EXPLAIN FORMAT=TRADITIONAL DELETE FROM t WHERE i > 3;");
  auto& e2 = As<std::unique_ptr<ExplainStmt>>(st);
  auto& d = As<DeleteStmt>(e2->statement);
  CHECK(d.table.name == "t");
  CHECK(d.where->binary_op == BinaryOp::kGt);

  st = MustParse("DESCRIBE SELECT 1");
  CHECK(std::holds_alternative<SelectStmt>(As<std::unique_ptr<ExplainStmt>>(st)->statement));
  CHECK(MustFail("EXPLAIN FORMAT=JSON SELECT 1").message == NotSupported("EXPLAIN FORMAT=JSON"));
}

TEST_CASE("UPDATE and DELETE", "[sql][parser]") {
  Statement st =
      MustParse("UPDATE t SET a = a + 1, b = 'x' WHERE i BETWEEN 1 AND 5 ORDER BY i LIMIT 3;");
  auto& u = As<UpdateStmt>(st);
  CHECK(u.table.name == "t");
  REQUIRE(u.assignments.size() == 2);
  CHECK(u.assignments[0].column == "a");
  CHECK(u.assignments[0].value->binary_op == BinaryOp::kAdd);
  CHECK(u.assignments[1].value->value == Value::String("x"));
  CHECK(u.where->kind == Expr::Kind::kBetween);
  CHECK(Arg(*u.where, 1).value == Value::Int(1));
  CHECK(Arg(*u.where, 2).value == Value::Int(5));
  REQUIRE(u.order_by.size() == 1);
  CHECK(u.limit == 3u);
  CHECK_FALSE(u.ignore);
  st = MustParse("UPDATE LOW_PRIORITY IGNORE t SET a = 1");
  CHECK(As<UpdateStmt>(st).ignore);
  st = MustParse("DELETE LOW_PRIORITY QUICK IGNORE FROM t");
  CHECK(As<DeleteStmt>(st).ignore);

  st = MustParse("DELETE FROM t WHERE i IN (1,2,3) OR j IS NOT NULL LIMIT 10;");
  auto& d = As<DeleteStmt>(st);
  CHECK(d.where->binary_op == BinaryOp::kOr);
  const Expr& in = Arg(*d.where, 0);
  CHECK(in.kind == Expr::Kind::kIn);
  CHECK(in.args.size() == 4);
  const Expr& is = Arg(*d.where, 1);
  CHECK(is.kind == Expr::Kind::kIsNull);
  CHECK(is.negated);
  CHECK(d.limit == 10u);
}

TEST_CASE("multi-table UPDATE and DELETE", "[sql][parser]") {
  Statement st = MustParse(
      "UPDATE LOW_PRIORITY a AS x JOIN b ON b.id = x.id, c SET x.v = b.w, z = 1 "
      "WHERE c.k = 2");
  auto& u = As<UpdateStmt>(st);
  CHECK(u.multi_table());
  CHECK(u.priority == WritePriority::kLow);
  CHECK(u.table.name == "a");
  CHECK(u.alias == "x");
  REQUIRE(u.joins.size() == 2);
  CHECK(u.joins[0].table.name == "b");
  CHECK(u.joins[0].on != nullptr);
  CHECK(u.joins[1].comma);
  REQUIRE(u.assignments.size() == 2);
  CHECK(u.assignments[0].table == "x");
  CHECK(u.assignments[0].column == "v");
  CHECK(u.assignments[1].table.empty());
  CHECK(u.where != nullptr);
  CHECK(MustFail("UPDATE a JOIN b ON b.id = a.id SET a.v = 1 ORDER BY a.v").code == kErWrongUsage);
  CHECK(MustFail("UPDATE a, b SET a.v = 1 LIMIT 1").code == kErWrongUsage);
  st = MustParse("UPDATE a AS x SET test.x.v = 1");
  CHECK(As<UpdateStmt>(st).alias == "x");
  CHECK(As<UpdateStmt>(st).assignments[0].schema == "test");
  CHECK(As<UpdateStmt>(st).assignments[0].table == "x");
  st = MustParse("DELETE FROM a x WHERE x.v = 1");
  CHECK(As<DeleteStmt>(st).alias == "x");
  CHECK(!As<DeleteStmt>(st).multi_table);

  st = MustParse("DELETE QUICK a.*, test.b FROM a JOIN b ON b.id = a.id WHERE a.v > 1");
  auto& d = As<DeleteStmt>(st);
  CHECK(d.multi_table);
  REQUIRE(d.targets.size() == 2);
  CHECK(d.targets[0].name == "a");
  CHECK(d.targets[1].schema == "test");
  CHECK(d.targets[1].name == "b");
  CHECK(d.table.name == "a");
  REQUIRE(d.joins.size() == 1);
  CHECK(d.where != nullptr);

  st = MustParse("DELETE FROM x USING a AS x LEFT JOIN b ON b.id = x.id");
  auto& d2 = As<DeleteStmt>(st);
  CHECK(d2.multi_table);
  REQUIRE(d2.targets.size() == 1);
  CHECK(d2.targets[0].name == "x");
  CHECK(d2.alias == "x");
  CHECK(d2.joins[0].kind == JoinedTable::Kind::kLeft);

  st = MustParse("DELETE FROM a WHERE v = 1");
  CHECK_FALSE(As<DeleteStmt>(st).multi_table);
  CHECK(MustFail("DELETE a FROM a JOIN b ON b.id = a.id LIMIT 1").code == kErParse);
  CHECK(MustFail("DELETE FROM a.* WHERE v = 1").code == kErParse);
  CHECK(MustFail("DELETE FROM a, b WHERE v = 1").code == kErParse);
}

TEST_CASE("SELECT's clauses and expression precedence", "[sql][parser]") {
  Statement st = MustParse(
      "SELECT a, b AS bee FROM t WHERE a >= 1 AND (b < 'x' OR b IS NULL) AND c NOT LIKE 'p%' "
      "ORDER BY a DESC, 2 LIMIT 10 OFFSET 5;");
  auto& s = As<SelectStmt>(st);
  REQUIRE(s.items.size() == 2);
  CHECK(s.items[1].alias == "bee");
  CHECK(s.items[1].expr->name == "b");
  // ((a >= 1 AND (...)) AND c NOT LIKE 'p%')
  CHECK(s.where->binary_op == BinaryOp::kAnd);
  const Expr& left = Arg(*s.where, 0);
  CHECK(left.binary_op == BinaryOp::kAnd);
  CHECK(Arg(left, 0).binary_op == BinaryOp::kGe);
  CHECK(Arg(left, 1).binary_op == BinaryOp::kOr);
  CHECK(Arg(left, 1).text == "(b < 'x' OR b IS NULL)");
  CHECK(Arg(*s.where, 1).kind == Expr::Kind::kLike);
  CHECK(Arg(*s.where, 1).negated);
  REQUIRE(s.order_by.size() == 2);
  CHECK(s.order_by[0].desc);
  CHECK(s.order_by[1].expr->value == Value::Int(2));
  CHECK(s.limit == 10u);
  CHECK(s.offset == 5u);

  st = MustParse("SELECT a FROM t LIMIT 5, 10");
  CHECK(As<SelectStmt>(st).offset == 5u);
  CHECK(As<SelectStmt>(st).limit == 10u);

  st = MustParse("SELECT a, count(*) FROM t AS x GROUP BY a");
  CHECK(As<SelectStmt>(st).group_by.size() == 1);
  CHECK(As<SelectStmt>(st).from_alias == "x");

  st = MustParse(
      "SELECT NOT a = 1 OR b XOR c, 7 DIV 2 % 3, !x, x.y, 1e3, 1.5, "
      "99999999999999999999, TRUE, FALSE, NULL, 0x41, t.* FROM t");
  auto& p = As<SelectStmt>(st);
  REQUIRE(p.items.size() == 12);
  const Expr& e0 = *p.items[0].expr;  // (NOT (a = 1)) OR (b XOR c)
  CHECK(e0.binary_op == BinaryOp::kOr);
  CHECK(Arg(e0, 0).kind == Expr::Kind::kUnary);
  CHECK(Arg(e0, 0).unary_op == UnaryOp::kNot);
  CHECK(Arg(Arg(e0, 0), 0).binary_op == BinaryOp::kEq);
  CHECK(Arg(e0, 1).binary_op == BinaryOp::kXor);
  const Expr& e1 = *p.items[1].expr;  // (7 DIV 2) % 3
  CHECK(e1.binary_op == BinaryOp::kMod);
  CHECK(Arg(e1, 0).binary_op == BinaryOp::kIntDiv);
  CHECK(p.items[2].expr->unary_op == UnaryOp::kNot);
  CHECK(p.items[3].expr->table == "x");
  CHECK(p.items[3].expr->name == "y");
  CHECK(p.items[4].expr->value == Value::Double(1000));
  CHECK(p.items[5].expr->value == Value::Dec(*Decimal::Parse("1.5")));  // MySQL: DECIMAL
  CHECK(p.items[6].expr->value.is_decimal());  // past 64 bits: DECIMAL, as MySQL types it
  CHECK(p.items[7].expr->value == Value::Int(1));
  CHECK(p.items[8].expr->value == Value::Int(0));
  CHECK(p.items[9].expr->value.is_null());
  CHECK(p.items[10].expr->value == Value::String("A"));
  CHECK(p.items[11].expr == nullptr);
  CHECK(p.items[11].star_table == "t");

  st = MustParse("SELECT -9223372036854775808, - a, 'a\\_b' LIKE 'a\\_%', a <=> b, a != b");
  auto& q = As<SelectStmt>(st);
  CHECK(q.items[0].expr->value == Value::Int(INT64_MIN));
  CHECK(q.items[1].expr->unary_op == UnaryOp::kNeg);
  CHECK(Arg(*q.items[2].expr, 1).value == Value::String("a\\_%"));
  CHECK(q.items[3].expr->binary_op == BinaryOp::kNullSafeEq);
  CHECK(q.items[4].expr->binary_op == BinaryOp::kNe);

  st = MustParse("SELECT `select` FROM `my table` WHERE `x y` = 1");
  CHECK(As<SelectStmt>(st).items[0].expr->name == "select");
  CHECK(As<SelectStmt>(st).from->name == "my table");
}

TEST_CASE("transactions, USE, TRUNCATE, DROP, INSERT forms", "[sql][parser]") {
  using K = TransactionStmt::Kind;
  struct Case {
    const char* sql;
    K kind;
    bool snapshot, read_only;
  };
  for (const Case& k :
       {Case{"BEGIN", K::kBegin, false, false}, Case{"BEGIN WORK;", K::kBegin, false, false},
        Case{"START TRANSACTION", K::kBegin, false, false},
        Case{"START TRANSACTION WITH CONSISTENT SNAPSHOT", K::kBegin, true, false},
        Case{"START TRANSACTION READ ONLY", K::kBegin, false, true},
        Case{"COMMIT", K::kCommit, false, false}, Case{"COMMIT WORK", K::kCommit, false, false},
        Case{"ROLLBACK", K::kRollback, false, false},
        Case{"rollback work", K::kRollback, false, false}}) {
    INFO(k.sql);
    Statement st = MustParse(k.sql);
    auto& t = As<TransactionStmt>(st);
    CHECK(t.kind == k.kind);
    CHECK(t.consistent_snapshot == k.snapshot);
    CHECK(t.read_only == k.read_only);
  }
  for (const auto& [sql, kind] : {std::pair{"SAVEPOINT sp1", K::kSavepoint},
                                  std::pair{"ROLLBACK TO SAVEPOINT sp1", K::kRollbackToSavepoint},
                                  std::pair{"ROLLBACK WORK TO sp1", K::kRollbackToSavepoint},
                                  std::pair{"RELEASE SAVEPOINT sp1", K::kReleaseSavepoint}}) {
    INFO(sql);
    Statement sp = MustParse(sql);
    CHECK(As<TransactionStmt>(sp).kind == kind);
    CHECK(As<TransactionStmt>(sp).savepoint == "sp1");
  }
  Statement st = MustParse("USE test;");
  CHECK(As<UseStmt>(st).database == "test");
  st = MustParse("KILL QUERY 7");
  CHECK(As<KillStmt>(st).query_only);
  CHECK(As<KillStmt>(st).id->value == Value::Int(7));
  st = MustParse("KILL CONNECTION @id");
  CHECK_FALSE(As<KillStmt>(st).query_only);
  CHECK(As<KillStmt>(st).id->kind == Expr::Kind::kVariable);
  st = MustParse("kill 3 + 4");
  CHECK_FALSE(As<KillStmt>(st).query_only);
  CHECK(As<KillStmt>(st).id->kind == Expr::Kind::kBinary);
  st = MustParse("TRUNCATE TABLE t;");
  CHECK(As<TruncateStmt>(st).table.name == "t");
  st = MustParse("TRUNCATE t");
  CHECK(As<TruncateStmt>(st).table.name == "t");
  st = MustParse("DROP TABLE IF EXISTS a, b;");
  CHECK(As<DropTableStmt>(st).if_exists);
  CHECK(As<DropTableStmt>(st).names == std::vector<TableName>{{"test", "a"}, {"test", "b"}});
  st = MustParse("DROP INDEX j ON t;");
  CHECK(As<DropIndexStmt>(st).name == "j");
  CHECK(As<DropIndexStmt>(st).table.name == "t");

  st = MustParse("INSERT INTO t VALUES (1,'a'),(2,DEFAULT);");
  auto& i1 = As<InsertStmt>(st);
  CHECK(i1.columns.empty());
  REQUIRE(i1.rows.size() == 2);
  CHECK(RowOf(i1, 0)[1].value == Value::String("a"));
  CHECK(RowOf(i1, 1)[1].expr == InsertValue::kNoExpr);
  CHECK_FALSE(RowOf(i1, 1)[1].value.has_value());  // DEFAULT
  st = MustParse("INSERT t (a) VALUES (1);");
  CHECK(As<InsertStmt>(st).columns == std::vector<std::string>{"a"});
  st = MustParse("INSERT INTO t SET a=1, b=2");
  auto& i3 = As<InsertStmt>(st);
  CHECK(i3.columns == std::vector<std::string>{"a", "b"});
  REQUIRE(i3.rows.size() == 1);
  REQUIRE(RowOf(i3, 0)[1].expr == 1);
  CHECK(i3.rows.exprs()[1]->value == Value::Int(2));
  st = MustParse("INSERT IGNORE INTO t VALUES (1)");
  CHECK(As<InsertStmt>(st).ignore);
  st = MustParse("REPLACE INTO t VALUES (1)");
  CHECK(As<InsertStmt>(st).replace);
  st = MustParse(
      "INSERT INTO t VALUES (1, 2) AS new (x, y) ON DUPLICATE KEY UPDATE b = new.y, c = VALUES(a)");
  auto& i4 = As<InsertStmt>(st);
  CHECK(i4.row_alias == "new");
  CHECK(i4.column_aliases == std::vector<std::string>{"x", "y"});
  REQUIRE(i4.on_duplicate.size() == 2);
  CHECK(i4.on_duplicate[0].column == "b");
  CHECK(i4.on_duplicate[1].value->kind == Expr::Kind::kFunction);
}

TEST_CASE("syntax errors carry MySQL's message", "[sql][parser]") {
  const std::string prefix =
      "You have an error in your SQL syntax; check the manual that corresponds to your minnow "
      "version for the right syntax to use near '";
  SqlError e = MustFail("SELECT * FORM t");
  CHECK(e.code == kErParse);
  CHECK(e.message == prefix + "FORM t' at line 1");
  CHECK(e.ToString() == "ERROR 1064 (42000): " + e.message);
  CHECK(MustFail("SELECT * FROM").message == prefix + "' at line 1");
  CHECK(MustFail("SELECT * FROM;").message == prefix + "' at line 1");
  CHECK(MustFail("SELECT a\nFROM t\nWHERE = 3").message == prefix + "= 3' at line 3");
  CHECK(MustFail("SELECT 'abc").message == prefix + "'abc' at line 1");
  CHECK(MustFail("SELEC 1").message == prefix + "SELEC 1' at line 1");
  CHECK(MustFail("SELECT 1; SELECT 2").message == prefix + "SELECT 2' at line 1");
  std::string long_tail(100, 'x');
  CHECK(MustFail("SELECT 1 1 " + long_tail).message ==
        prefix + "1 " + long_tail.substr(0, 78) + "' at line 1");

  CHECK(MustFail("").code == kErEmptyQuery);
  CHECK(MustFail("  -- nothing\n /* here */ ").message == "Query was empty");
  CHECK(MustFail(";").message == "Query was empty");

  std::string name(65, 'n');
  SqlError too_long = MustFail("CREATE TABLE " + name + " (a int)");
  CHECK(too_long.code == kErTooLongIdent);
  CHECK(too_long.message == "Identifier name '" + name + "' is too long");
  CHECK(Parse("CREATE TABLE " + name.substr(1) + " (a int)").ok());

  {
    Statement j = MustParse(
        "SELECT a FROM t x, u JOIN v AS y ON y.a = u.a LEFT OUTER JOIN w USING (a, b) "
        "RIGHT JOIN z ON 1 STRAIGHT_JOIN q CROSS JOIN r FOR UPDATE OF y");
    const SelectStmt& js = As<SelectStmt>(j);
    REQUIRE(js.joins.size() == 6);
    CHECK(js.from_alias == "x");
    CHECK(js.joins[0].comma);
    CHECK(js.joins[1].alias == "y");
    CHECK(js.joins[1].on != nullptr);
    CHECK(js.joins[2].kind == JoinedTable::Kind::kLeft);
    CHECK(js.joins[2].using_columns == std::vector<std::string>{"a", "b"});
    CHECK(js.joins[3].kind == JoinedTable::Kind::kRight);
    CHECK(js.joins[4].kind == JoinedTable::Kind::kStraight);
    CHECK(js.joins[5].kind == JoinedTable::Kind::kInner);
    CHECK(js.joins[5].on == nullptr);
    CHECK(js.joins[1].lock == RowLockClause::kUpdate);
    CHECK(js.joins[0].lock == RowLockClause::kNone);
    CHECK(js.lock == RowLockClause::kNone);
  }
  CHECK(MustFail("SELECT a FROM t NATURAL JOIN u").message == NotSupported("NATURAL JOIN"));
  CHECK(MustFail("SELECT a FROM t LEFT JOIN u").code == kErParse);
  CHECK(MustFail("SELECT a FROM t, u ON 1").code == kErParse);
  CHECK(MustFail("SELECT a FROM t HAVING a > 1 GROUP BY a").code == kErParse);
  CHECK(MustFail("SELECT row_number() OVER () FROM t").message == NotSupported("window functions"));
  CHECK(MustFail("SELECT a FROM t INTERSECT SELECT b FROM u").message == NotSupported("INTERSECT"));
  CHECK(MustFail("SELECT a FROM t ORDER BY a UNION SELECT b FROM u").code == kErWrongUsage);
  CHECK(MustFail("SELECT a FROM t LIMIT 1 UNION SELECT b FROM u").code == kErWrongUsage);
  CHECK(MustFail("SELECT a INTO @x FROM t UNION SELECT b FROM u").code == kErParse);
  CHECK(MustFail("SELECT a FROM t WHERE EXISTS 1").code == kErParse);
  CHECK(MustFail("SELECT a FROM t WHERE a = ANY (1, 2)").code == kErParse);

  // Deep nesting is refused, not a crash (subqueries and parenthesized unions too).
  std::string subs = "SELECT ";
  for (int i = 0; i < 500; ++i) subs += "(SELECT ";
  CHECK(MustFail(subs + "1" + std::string(500, ')')).code == kErParse);
  CHECK(MustFail(std::string(500, '(') + "SELECT 1" + std::string(500, ')')).code == kErParse);
  std::string deep = "SELECT " + std::string(5000, '(') + "1" + std::string(5000, ')');
  CHECK(MustFail(deep).code == kErParse);
  std::string nots = "SELECT ";
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  CHECK(MustFail(nots + "1").code == kErParse);
  std::string chain = "SELECT 1";
  for (int i = 0; i < 5000; ++i) chain += "+1";
  CHECK(MustFail(chain).code == kErParse);
  std::string ok_chain = "SELECT a FROM t WHERE a = 0";
  for (int i = 1; i < 500; ++i) ok_chain += " OR a = " + std::to_string(i);
  CHECK(Parse(ok_chain).ok());
}

TEST_CASE("executable comments are SQL, other comments are not", "[sql][parser]") {
  Statement st = MustParse("/*!40101 SELECT */ 1 /* x */ -- y\n # z\n");
  CHECK(As<SelectStmt>(st).items.size() == 1);
  st = MustParse("CREATE TABLE t (a int) /*!50100 ENGINE=InnoDB */ /*! DEFAULT CHARSET=latin1 */");
  CHECK(As<CreateTableStmt>(st).options.size() == 2);
  CHECK(MustFail("SELECT 1 /* unterminated").code == kErParse);
  st = MustParse("SELECT 1--1");  // "--" without a space is two minus signs
  CHECK(As<SelectStmt>(st).items[0].expr->binary_op == BinaryOp::kSub);
}

TEST_CASE("an executable comment of a newer version, or MariaDB's, is a comment", "[sql][parser]") {
  auto items = [](const std::string& sql) {
    Statement st = MustParse(sql);
    return As<SelectStmt>(st).items.size();
  };
  // minnow is 8.0.36: 80036 and older run, 80037 and a six-digit 100100 do not.
  CHECK(items("SELECT 1 /*!80036 , 2 */") == 2);
  CHECK(items("SELECT 1 /*!80037 , 2 */") == 1);
  CHECK(items("SELECT 1 /*!100100 , 2 */") == 1);
  CHECK(items("SELECT 1 /*M!100100 , 2 */") == 1);
  CHECK(items("SELECT 1 /*!80037 , 2 */, 3") == 2);
  // Under five digits there is no version: the digits are SQL.
  CHECK(items("SELECT /*!1 */") == 1);
  CHECK(MustFail("SELECT 1 /*!90000 , 2").code == kErParse);  // unterminated
  Statement keys = MustParse("/*!40000 ALTER TABLE `t` DISABLE KEYS */");
  CHECK(As<AlterKeysStmt>(keys).table.name == "t");
  CHECK_FALSE(As<AlterKeysStmt>(keys).enable);
  keys = MustParse("ALTER TABLE t ENABLE KEYS");
  CHECK(As<AlterKeysStmt>(keys).enable);
  Statement select = MustParse("SELECT /*!40001 SQL_NO_CACHE */ 1");
  CHECK(As<SelectStmt>(select).deprecated_cache_option == "SQL_NO_CACHE");
}

}  // namespace
}  // namespace minnow::sql

namespace minnow::sql {
namespace {

// A VALUES row's plain literals are kept as values, not trees: each must read back as the value
// ParseExpr gives the same text (SELECT's item), and anything else must stay an expression.
TEST_CASE("VALUES keeps plain literals as the values ParseExpr reads", "[sql][parser]") {
  const std::vector<std::string> literals = {
      "0",
      "5",
      "-5",
      "+5",
      "-0",
      "9223372036854775807",
      "-9223372036854775807",
      "-9223372036854775808",
      "9223372036854775808",
      "-9223372036854775809",
      "18446744073709551615",
      "18446744073709551616",
      "-18446744073709551616",
      "123456789012345678901234567890",
      "-123456789012345678901234567890",
      std::string(70, '9'),
      "-" + std::string(70, '9'),
      "1.5",
      "-1.50",
      "+0.001",
      ".5",
      "-.5",
      "1e3",
      "-1.5E-2",
      "1e308",
      "0." + std::string(40, '3'),
      "-1." + std::string(70, '1'),
      "'abc'",
      "''",
      "'it''s'",
      "'a\\tb\\n\\\\c\\%'",
      "\"dq\"",
      "X'4142'",
      "0x414243",
      "x''",
      "NULL",
      "null",
      "TRUE",
      "false",
  };
  const std::vector<std::string> expressions = {
      "1+1",         "-'3'",         "- -4", "--4",       "-TRUE",  "-NULL", "'a' 'b'",
      "concat('a')", "@@autocommit", "(1)",  "5 IS NULL", "-X'41'", "now()", "+'x'",
  };
  for (const std::string& lit : literals) {
    INFO(lit);
    Statement sel = MustParse("SELECT " + lit);
    const Expr& e = *As<SelectStmt>(sel).items[0].expr;
    REQUIRE(e.kind == Expr::Kind::kLiteral);
    Statement ins = MustParse("INSERT INTO t VALUES (" + lit + ", " + lit + ")");
    const InsertStmt& i = As<InsertStmt>(ins);
    CHECK(i.rows.exprs().empty());
    for (const InsertValue& v : RowOf(i, 0)) {
      REQUIRE(v.value.has_value());
      CHECK(*v.value == e.value);
      CHECK(v.value->kind() == e.value.kind());
      if (v.value->is_decimal()) CHECK(v.value->ToString() == e.value.ToString());
    }
  }
  for (const std::string& text : expressions) {
    INFO(text);
    Statement sel = MustParse("SELECT " + text);
    Statement ins = MustParse("INSERT INTO t VALUES (1, " + text + ")");
    const InsertStmt& i = As<InsertStmt>(ins);
    REQUIRE(i.rows.exprs().size() == 1);
    CHECK(i.rows.exprs()[0]->text == As<SelectStmt>(sel).items[0].expr->text);
    const std::vector<InsertValue> row = RowOf(i, 0);
    CHECK(row[0].value == Value::Int(1));
    CHECK(row[1].expr == 0);
  }
  // A non-finite double is the syntax error ParseExpr reports.
  for (const char* sql : {"INSERT INTO t VALUES (1e999)", "INSERT INTO t VALUES (-1e999)"}) {
    const SqlError e = MustFail(sql);
    CHECK(e.code == kErParse);
    CHECK(e.message.find("near '1e999)' at line 1") != std::string::npos);
  }
}

TEST_CASE("VALUES rows mix literals, DEFAULT and expressions; widths are kept", "[sql][parser]") {
  Statement st = MustParse("INSERT INTO t VALUES (1, DEFAULT, 1+1), (-2, 'x', NULL), (3, now())");
  const InsertStmt& ins = As<InsertStmt>(st);
  REQUIRE(ins.rows.size() == 3);
  CHECK(ins.rows.FirstRowNotOfWidth(3) == 3);
  CHECK(ins.rows.FirstRowNotOfWidth(2) == 1);
  REQUIRE(ins.rows.exprs().size() == 2);
  CHECK(ins.rows.exprs()[0]->text == "1+1");
  CHECK(ins.rows.exprs()[1]->text == "now()");
  std::vector<InsertValue> r = RowOf(ins, 0);
  REQUIRE(r.size() == 3);
  CHECK(r[0].value == Value::Int(1));
  CHECK((r[1].expr == InsertValue::kNoExpr && !r[1].value.has_value()));
  CHECK(r[2].expr == 0);
  r = RowOf(ins, 1);
  CHECK(r[0].value == Value::Int(-2));
  CHECK(r[1].value == Value::String("x"));
  CHECK(r[2].value == Value::Null());
  r = RowOf(ins, 2);
  REQUIRE(r.size() == 2);
  CHECK(r[1].expr == 1);
  // Rows beyond one chunk of the encoded buffer, and a string larger than a chunk.
  std::string sql = "INSERT INTO t VALUES ";
  const std::string big(3 * InsertValues::kChunkBytes, 'b');
  const int kRows = 20000;
  for (int k = 0; k < kRows; ++k) {
    sql += (k == 0 ? "(" : ",(") + std::to_string(k) + ",'name-" + std::to_string(k) + "'," +
           (k == 7000 ? "'" + big + "'" : std::to_string(-k) + ".25") + ")";
  }
  st = MustParse(sql);
  const InsertStmt& many = As<InsertStmt>(st);
  REQUIRE(many.rows.size() == kRows);
  CHECK(many.rows.FirstRowNotOfWidth(3) == 0);
  InsertValues::Reader reader(many.rows);
  std::vector<InsertValue> row;
  int k = 0;
  while (reader.Next(&row)) {
    REQUIRE(row.size() == 3);
    REQUIRE(row[0].value == Value::Int(k));
    REQUIRE(row[1].value == Value::String("name-" + std::to_string(k)));
    if (k == 7000) {
      REQUIRE(row[2].value == Value::String(big));
    } else {
      REQUIRE(row[2].value->ToString() == std::to_string(-k) + ".25");
    }
    ++k;
  }
  CHECK(k == kRows);
}

}  // namespace
}  // namespace minnow::sql

namespace minnow::sql {
namespace {

const Expr& FirstItem(Statement& st) {
  SelectStmt& s = As<SelectStmt>(st);
  REQUIRE(s.items.size() >= 1);
  REQUIRE(s.items[0].expr != nullptr);
  return *s.items[0].expr;
}

TEST_CASE("typed temporal literals are DATE / DATETIME values named as written", "[sql][parser]") {
  Statement d = MustParse("SELECT DATE '2020-01-05'");
  const Expr& date = FirstItem(d);
  REQUIRE(date.kind == Expr::Kind::kLiteral);
  REQUIRE(date.value.is_temporal());
  CHECK(date.value.as_temporal().type == Temporal::Type::kDate);
  CHECK(date.value.ToString() == "2020-01-05");
  CHECK(date.text == "DATE '2020-01-05'");

  Statement ts = MustParse("SELECT {ts '2020-01-05 10:20:30.120'}");
  const Expr& datetime = FirstItem(ts);
  REQUIRE(datetime.value.is_temporal());
  CHECK(datetime.value.as_temporal().type == Temporal::Type::kDateTime);
  CHECK(datetime.value.as_temporal().fsp == 3);
  CHECK(datetime.text == "{ts '2020-01-05 10:20:30.120'}");

  // Another ident, or a value that is no date, leaves the string itself.
  Statement other = MustParse("SELECT {x '2020-01-05'}, {d '2020-13-05'}");
  SelectStmt& s = As<SelectStmt>(other);
  REQUIRE(s.items.size() == 2);
  CHECK(s.items[0].expr->value.is_string());
  CHECK(s.items[1].expr->value.is_string());

  CHECK(MustFail("SELECT DATE '2020-02-30'").code == kErWrongValue);
  CHECK(MustFail("SELECT TIMESTAMP '2020-02-03'").message ==
        "Incorrect DATETIME value: '2020-02-03'");
  CHECK(MustFail("SELECT TIME '10:61:00'").message == "Incorrect TIME value: '10:61:00'");
  CHECK(MustFail("SELECT TIME '2020-01-01 10:00:00'").code == kErWrongValue);
  Statement time_literals = MustParse("SELECT TIME '-1 10:00:00.50', {t '10:00'}");
  SelectStmt& tl = As<SelectStmt>(time_literals);
  REQUIRE(tl.items.size() == 2);
  CHECK(tl.items[0].expr->value.as_temporal() ==
        MakeTime(-int64_t{34} * 3600 * 1000000 - 500000, 2));
  CHECK(tl.items[1].expr->value.as_temporal() == MakeTime(int64_t{10} * 3600 * 1000000, 0));
  ParseOptions zero_date;
  zero_date.no_zero_date = true;
  CHECK_FALSE(Parse("SELECT DATE '0000-00-00'", zero_date).ok());
  CHECK(Parse("SELECT DATE '0000-00-00'").ok());
}

TEST_CASE("UPDATE and DELETE keep a derived table first in FROM", "[sql][parser]") {
  Statement up = MustParse("UPDATE (SELECT 1 AS k) d JOIN t ON t.id = d.k SET t.a = 1");
  UpdateStmt& u = As<UpdateStmt>(up);
  REQUIRE(u.from_derived.has_value());
  CHECK(u.alias == "d");
  CHECK(u.multi_table());
  Statement del = MustParse("DELETE t FROM t JOIN (SELECT 1 AS k) d ON t.id = d.k");
  DeleteStmt& x = As<DeleteStmt>(del);
  CHECK_FALSE(x.from_derived.has_value());
  REQUIRE(x.joins.size() == 1);
  CHECK(x.joins[0].derived.has_value());
  CHECK(MustFail("UPDATE (SELECT 1 AS k) d SET k = 2").code == kErNonUpdatableTable);
}

}  // namespace
}  // namespace minnow::sql
