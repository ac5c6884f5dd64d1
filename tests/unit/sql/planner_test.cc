#include "sql_lite_front/plan/planner.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "sql_lite_front/parse/parser.h"

namespace minnow::sql {
namespace {

// W1's table: i int unsigned PK auto_increment, j varchar(255) DEFAULT NULL, KEY j (j).
TableDef Sample() {
  TableDef def;
  def.name = "sample";
  def.charset = "utf8";
  ColumnDef i;
  i.name = "i";
  i.type = ColumnType::kInt;
  i.is_unsigned = true;
  i.nullable = false;
  i.auto_increment = true;
  ColumnDef j;
  j.name = "j";
  j.type = ColumnType::kVarchar;
  j.length = 255;
  def.columns = {i, j};
  def.primary_key = {0};
  def.indexes.push_back(IndexDef{"j", {1}, "sample.j"});
  def.keyspace = "sample";
  return def;
}

// Sample with a third column k int, so that index j does not cover SELECT *.
TableDef Wide() {
  TableDef def = Sample();
  ColumnDef k;
  k.name = "k";
  def.columns.push_back(k);
  return def;
}

// Plans "SELECT ... FROM sample WHERE ..." with the needed columns given by hand.
struct Planned {
  Statement stmt;
  AccessPlan plan;
};

Planned Plan(const TableDef& def, const std::string& sql, std::vector<bool> needed,
             std::vector<OrderColumn> order = {}) {
  SqlResult<Statement> st = Parse(sql);
  REQUIRE(st.ok());
  Planned p{std::move(*st), {}};
  const SelectStmt& sel = std::get<SelectStmt>(p.stmt);
  PlanRequest req;
  req.def = &def;
  req.where = sel.where.get();
  req.needed = std::move(needed);
  req.order = std::move(order);
  p.plan = ChoosePlan(req);
  return p;
}

TEST_CASE("W1's queries get InnoDB's access paths", "[sql][planner]") {
  TableDef def = Sample();
  // count(i): only the primary key is needed: walk PRIMARY, keys only.
  Planned p = Plan(def, "SELECT count(i) FROM sample", {true, false});
  CHECK(p.plan.type == AccessType::kIndex);
  CHECK(p.plan.index == -1);
  CHECK(p.plan.covering);
  CHECK(p.plan.residual.empty());
  CHECK(IndexName(def, p.plan.index) == "PRIMARY");

  // count(*) WHERE j LIKE '5%': a covering range on j.
  p = Plan(def, "SELECT count(*) FROM sample WHERE j LIKE '5%'", {false, true});
  CHECK(p.plan.type == AccessType::kRange);
  CHECK(p.plan.index == 0);
  CHECK(p.plan.covering);
  CHECK(p.plan.residual.empty());
  REQUIRE(p.plan.ranges.size() == 1);
  // The range is exactly the keys starting with 0x01 '5'.
  CHECK(p.plan.ranges[0].start == std::string("\x01"
                                              "5"));
  CHECK(p.plan.ranges[0].end == std::string("\x01"
                                            "6"));
  CHECK(p.plan.possible_keys == std::vector<int>{0});
  CHECK(KeyLength(def, 0, p.plan.key_parts) == 768);  // 255 * 3 + 2 + 1 (nullable)

  // SELECT *: the same range, not covering.
  p = Plan(def, "SELECT * FROM sample WHERE j LIKE '5%'", {true, true});
  CHECK(p.plan.type == AccessType::kRange);
  CHECK(p.plan.index == 0);
  CHECK(p.plan.covering);  // j's entries hold i too: (j, i) is all of the table
  TableDef wide = Wide();
  p = Plan(wide, "SELECT * FROM sample WHERE j LIKE '5%'", {true, true, true});
  CHECK(p.plan.type == AccessType::kRange);
  CHECK(p.plan.index == 0);
  CHECK(!p.plan.covering);

  p = Plan(def, "SELECT * FROM sample WHERE i = 5", {true, true, true});
  CHECK(p.plan.type == AccessType::kConst);
  CHECK(p.plan.index == -1);
  CHECK(p.plan.residual.empty());
  CHECK(KeyLength(def, -1, p.plan.key_parts) == 4);

  p = Plan(def, "SELECT * FROM sample WHERE i = '5'", {true, true, true});
  CHECK(p.plan.type == AccessType::kConst);
  p = Plan(def, "SELECT * FROM sample WHERE j = 5", {true, true, true});  // compares as numbers
  CHECK(p.plan.type != AccessType::kRef);
  CHECK(p.plan.residual.size() == 1);

  p = Plan(def, "SELECT * FROM sample WHERE i > 10", {true, true, true});
  CHECK(p.plan.type == AccessType::kRange);
  CHECK(p.plan.index == -1);
  CHECK(p.plan.residual.empty());

  p = Plan(wide, "SELECT * FROM sample", {true, true, true});
  CHECK(p.plan.type == AccessType::kAll);
  // With two columns, j's entries (j, i) hold the whole row: a covering index scan.
  p = Plan(def, "SELECT * FROM sample", {true, true});
  CHECK(p.plan.type == AccessType::kIndex);
  CHECK(p.plan.index == 0);
}

TEST_CASE("residuals, IN lists, BETWEEN and order", "[sql][planner]") {
  TableDef def = Sample();
  Planned p = Plan(def, "SELECT * FROM sample WHERE i IN (3, 1, 3) AND j = 'x' AND i + 1 > 0",
                   {true, true});
  // The primary key range beats a secondary ref.
  CHECK(p.plan.type == AccessType::kRange);
  CHECK(p.plan.index == -1);
  CHECK(p.plan.ranges.size() == 2);  // 1 and 3, deduplicated, in key order
  CHECK(p.plan.ranges[0].start < p.plan.ranges[1].start);
  CHECK(p.plan.residual.size() == 2);
  CHECK(p.plan.possible_keys == std::vector<int>{-1, 0});

  p = Plan(def, "SELECT * FROM sample WHERE j = 'x'", {true, true});
  CHECK(p.plan.type == AccessType::kRef);
  CHECK(p.plan.index == 0);

  p = Plan(def, "SELECT * FROM sample WHERE i BETWEEN 5 AND 3", {true, true});
  CHECK(p.plan.type == AccessType::kRange);
  CHECK(p.plan.empty);

  // A literal that does not store exactly stays a residual: unsigned i > -1, i = 1.5.
  p = Plan(Wide(), "SELECT * FROM sample WHERE i > -1", {true, true, true});
  CHECK(p.plan.type == AccessType::kAll);
  CHECK(p.plan.residual.size() == 1);
  p = Plan(Wide(), "SELECT * FROM sample WHERE i = 1.5", {true, true, true});
  CHECK(p.plan.type == AccessType::kAll);

  // LIKE without a trailing-% prefix shape is not a range.
  p = Plan(Wide(), "SELECT * FROM sample WHERE j LIKE '%5'", {true, true, true});
  CHECK(p.plan.type == AccessType::kAll);

  // ORDER BY the walked key needs no sort; DESC walks backwards.
  p = Plan(def, "SELECT * FROM sample WHERE i > 3", {true, true, true}, {{0, true}});
  CHECK(!p.plan.needs_sort);
  CHECK(p.plan.reverse);
  p = Plan(def, "SELECT * FROM sample WHERE i > 3", {true, true, true}, {{1, false}});
  CHECK(p.plan.needs_sort);
  p = Plan(def, "SELECT * FROM sample WHERE j = 'x'", {true, true, true}, {{0, false}});
  CHECK(!p.plan.needs_sort);  // j fixed: entries come in i order
  p = Plan(def, "SELECT * FROM sample WHERE j > 'x'", {true, true, true}, {{1, false}, {0, false}});
  CHECK(!p.plan.needs_sort);
  p = Plan(def, "SELECT * FROM sample WHERE j > 'x'", {true, true, true}, {{0, false}});
  CHECK(p.plan.needs_sort);
}

TEST_CASE("nullable range ends skip NULL keys; upper bounds", "[sql][planner]") {
  TableDef def = Sample();
  Planned p = Plan(def, "SELECT j FROM sample WHERE j < 'b'", {false, true});
  REQUIRE(p.plan.ranges.size() == 1);
  CHECK(p.plan.ranges[0].start == std::string("\x01"));
  CHECK(!p.plan.ranges[0].end_unbounded);
  CHECK(p.plan.ranges[0].end == std::string("\x01"
                                            "b\x00\x00",
                                            4));
  p = Plan(def, "SELECT i FROM sample WHERE i <= 7 AND i >= 2", {true, false});
  REQUIRE(p.plan.ranges.size() == 1);
  CHECK(p.plan.ranges[0].start == std::string("\x00\x00\x00\x02", 4));
  CHECK(p.plan.ranges[0].end == std::string("\x00\x00\x00\x08", 4));
  CHECK(p.plan.covering);
}

}  // namespace
}  // namespace minnow::sql

namespace minnow::sql {
namespace {

// MinMaxPlan for the WHERE of `sql` ("SELECT ... FROM sample [WHERE ...]").
std::optional<MinMaxRead> MinMax(const TableDef& def, const std::string& sql, uint32_t column,
                                 bool max) {
  SqlResult<Statement> st = Parse(sql);
  REQUIRE(st.ok());
  return MinMaxPlan(def, std::get<SelectStmt>(*st).where.get(), column, max);
}

TEST_CASE("planner: MIN/MAX at an index end", "[sql][planner]") {
  TableDef def = Wide();  // i PK, j nullable with KEY j, k no index
  SECTION("no WHERE: the index the column starts") {
    auto max_i = MinMax(def, "SELECT max(i) FROM sample", 0, true);
    REQUIRE(max_i.has_value());
    CHECK(max_i->plan.clustered());
    CHECK(max_i->plan.reverse);
    CHECK(max_i->plan.ranges.size() == 1);
    CHECK(max_i->plan.ranges[0].start.empty());
    CHECK_FALSE(max_i->nulls.has_value());
    auto min_j = MinMax(def, "SELECT min(j) FROM sample", 1, false);
    REQUIRE(min_j.has_value());
    CHECK(min_j->plan.index == 0);
    CHECK_FALSE(min_j->plan.reverse);
    CHECK(min_j->plan.ranges[0].start == std::string("\x01"));  // past the NULLs
    REQUIRE(min_j->nulls.has_value());
    CHECK(min_j->nulls->start == std::string(1, '\0'));
    CHECK_FALSE(MinMax(def, "SELECT max(k) FROM sample", 2, true).has_value());
  }
  SECTION("WHERE: a range on the column, every conjunct taken") {
    auto r = MinMax(def, "SELECT max(i) FROM sample WHERE i < 10", 0, true);
    REQUIRE(r.has_value());
    CHECK(r->plan.ranges.size() == 1);
    CHECK_FALSE(r->plan.ranges[0].end_unbounded);
    CHECK(MinMax(def, "SELECT min(j) FROM sample WHERE j > 'a'", 1, false).has_value());
    // Not a key range shape, another column, or an IN list: no index read.
    CHECK_FALSE(MinMax(def, "SELECT max(i) FROM sample WHERE k = 1", 0, true).has_value());
    CHECK_FALSE(MinMax(def, "SELECT max(i) FROM sample WHERE i IN (1, 2)", 0, true).has_value());
    CHECK_FALSE(MinMax(def, "SELECT max(i) FROM sample WHERE i < 5 OR i > 7", 0, true).has_value());
    CHECK_FALSE(MinMax(def, "SELECT max(j) FROM sample WHERE i = 3", 1, true).has_value());
  }
}

}  // namespace
}  // namespace minnow::sql
