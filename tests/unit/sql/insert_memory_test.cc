// A multi-row INSERT of literal rows, as mysqldump writes them, needs heap in proportion to its
// text and by a small factor: at most 3 bytes per byte of SQL while it is parsed and while it
// runs (above what the table keeps). tools/heap_counter.h counts every operator new block at its
// malloc_usable_size, so the figures are exact and the same on every run.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "minnow/db.h"
#include "sql_lite_front/parse/parser.h"
#include "sql_lite_front/sql_engine.h"
#include "tools/heap_counter.h"

namespace minnow::sql {
namespace {

// About `bytes` of INSERT INTO t VALUES (...), ... with every kind of literal mysqldump writes.
std::string DumpInsert(size_t bytes, uint64_t* rows) {
  std::string sql = "INSERT INTO t VALUES ";
  sql.reserve(bytes + 200);
  uint64_t k = 0;
  while (sql.size() < bytes) {
    if (k != 0) sql += ',';
    sql += "(" + std::to_string(k) + ",'name \\'" + std::to_string(k) + "\\'\\n'," +
           std::to_string(-static_cast<int64_t>(k)) + ".25," + (k % 3 == 0 ? "NULL" : "1.5e3") +
           ",X'0a0b0c'," + (k % 7 == 0 ? "DEFAULT" : "-" + std::to_string(k % 1000)) + ")";
    ++k;
  }
  *rows = k;
  return sql;
}

constexpr size_t kStatementBytes = 4 << 20;

StatementResult Ok(SqlSession& s, const std::string& sql) {
  SqlResult<StatementResult> r = s.Execute(sql);
  if (!r.ok()) FAIL(sql.substr(0, 200) << ": " << r.error().ToString());
  return std::move(r).value();
}

TEST_CASE("parsing a 4 MiB INSERT of literal rows peaks under 3 bytes of heap per SQL byte",
          "[sql][memory]") {
  uint64_t rows = 0;
  const std::string sql = DumpInsert(kStatementBytes, &rows);
  const size_t before = heap::LiveBytes();
  heap::ResetPeak();
  SqlResult<Statement> parsed = Parse(sql);
  const size_t peak = heap::PeakBytes() - before;
  REQUIRE(parsed.ok());
  const auto& ins = std::get<InsertStmt>(*parsed);
  CHECK(ins.rows.size() == rows);
  CHECK(ins.rows.exprs().empty());
  INFO("parse peak " << peak << " bytes for " << sql.size() << " bytes of SQL");
  CHECK(peak <= 3 * sql.size());
  CHECK(peak >= sql.size() / 2);  // the values are in there somewhere: the count is real
}

TEST_CASE("running a 4 MiB INSERT of literal rows peaks under 3 bytes per SQL byte",
          "[sql][memory]") {
  uint64_t rows = 0;
  const std::string sql = DumpInsert(kStatementBytes, &rows);
  auto db = Database::Open({.path = ":memory:"});
  REQUIRE(db.ok());
  auto engine = SqlEngine::Open(db->get());
  REQUIRE(engine.ok());
  std::unique_ptr<SqlSession> s = (*engine)->NewSession();
  Ok(*s,
     "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(40), score VARCHAR(24), f DOUBLE, "
     "b VARCHAR(4), n INT DEFAULT 7)");
  const size_t before = heap::LiveBytes();
  heap::ResetPeak();
  const StatementResult r = Ok(*s, sql);
  const size_t peak = heap::PeakBytes() - before;
  const size_t kept = heap::LiveBytes() - before;  // the table's pages and what else stays
  CHECK(r.affected_rows == rows);
  INFO("execute peak " << peak << " bytes, kept " << kept << ", for " << sql.size()
                       << " bytes of SQL");
  CHECK(peak - kept <= 3 * sql.size());
  const StatementResult sum =
      Ok(*s, "SELECT count(*), sum(id), sum(n), count(f), sum(length(name)) FROM t");
  REQUIRE(sum.rows.size() == 1);
  uint64_t sum_n = 0, with_f = 0, name_bytes = 0;
  for (uint64_t k = 0; k < rows; ++k) {
    sum_n += k % 7 == 0 ? 7 : 0;  // -(k % 1000) below
    with_f += k % 3 == 0 ? 0 : 1;
    name_bytes += 8 + std::to_string(k).size();
  }
  int64_t neg = 0;
  for (uint64_t k = 0; k < rows; ++k) neg += k % 7 == 0 ? 0 : static_cast<int64_t>(k % 1000);
  CHECK(*sum.rows[0][0] == std::to_string(rows));
  CHECK(*sum.rows[0][1] == std::to_string(rows * (rows - 1) / 2));
  CHECK(*sum.rows[0][2] == std::to_string(static_cast<int64_t>(sum_n) - neg));
  CHECK(*sum.rows[0][3] == std::to_string(with_f));
  CHECK(*sum.rows[0][4] == std::to_string(name_bytes));
}

TEST_CASE("a session keeps no copy of a large statement after it", "[sql][memory]") {
  uint64_t rows = 0;
  const std::string sql = DumpInsert(kStatementBytes, &rows);
  auto db = Database::Open({.path = ":memory:"});
  REQUIRE(db.ok());
  auto engine = SqlEngine::Open(db->get());
  REQUIRE(engine.ok());
  std::unique_ptr<SqlSession> s = (*engine)->NewSession();
  Ok(*s, "SELECT 1");  // the session's first statement makes what it keeps for its life
  const size_t before = heap::LiveBytes();
  heap::ResetPeak();
  SqlResult<StatementResult> r = s->Execute(sql);  // no table t: parsed, then refused (1146)
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == kErNoSuchTable);
  const size_t kept = heap::LiveBytes() - before;
  INFO("peak " << heap::PeakBytes() - before << ", kept " << kept);
  CHECK(heap::PeakBytes() - before >= sql.size());  // the text's copy was made
  CHECK(kept <= 64 * 1024);
}

}  // namespace
}  // namespace minnow::sql
