// The mysql client's output formats: table, vertical (\G), batch (-B) and the summary line.

#include "sql_lite_front/execute/result_format.h"

#include <catch2/catch.hpp>

namespace minnow::sql {
namespace {

StatementResult Rows(std::vector<std::string> columns,
                     std::vector<std::vector<std::optional<std::string>>> rows) {
  StatementResult r;
  r.has_result_set = true;
  r.columns = std::move(columns);
  r.rows = std::move(rows);
  return r;
}

TEST_CASE("table: borders, left-aligned text and headers, right-aligned numbers and their NULLs",
          "[sql][format]") {
  auto r =
      Rows({"i", "name", "price"},
           {{"1", "apple", "0.50"}, {"20", std::nullopt, std::nullopt}, {"-3", "kiwi", "1e3"}});
  CHECK(FormatTable(r) ==
        "+----+-------+-------+\n"
        "| i  | name  | price |\n"
        "+----+-------+-------+\n"
        "|  1 | apple |  0.50 |\n"
        "| 20 | NULL  |  NULL |\n"
        "| -3 | kiwi  |   1e3 |\n"
        "+----+-------+-------+\n");
}

TEST_CASE("table: a column with one non-number is text; an all-NULL column is text",
          "[sql][format]") {
  auto r = Rows({"v", "n"}, {{"12", std::nullopt}, {"12a", std::nullopt}});
  CHECK(FormatTable(r) ==
        "+-----+------+\n"
        "| v   | n    |\n"
        "+-----+------+\n"
        "| 12  | NULL |\n"
        "| 12a | NULL |\n"
        "+-----+------+\n");
}

TEST_CASE("table: widths count UTF-8 characters, not bytes", "[sql][format]") {
  auto r = Rows({"word"}, {{"héllo"}, {"日本"}});
  CHECK(FormatTable(r) ==
        "+-------+\n"
        "| word  |\n"
        "+-------+\n"
        "| héllo |\n"
        "| 日本    |\n"  // two characters (the contract counts characters, not cells)
        "+-------+\n");
}

TEST_CASE("table: an empty result set prints its header only", "[sql][format]") {
  auto r = Rows({"a", "bb"}, {});
  CHECK(FormatTable(r) ==
        "+---+----+\n"
        "| a | bb |\n"
        "+---+----+\n");
}

TEST_CASE("vertical: numbered row banners, names right-aligned", "[sql][format]") {
  auto r = Rows({"id", "long_name"}, {{"1", "x"}, {"2", std::nullopt}});
  CHECK(FormatVertical(r) ==
        "*************************** 1. row ***************************\n"
        "       id: 1\n"
        "long_name: x\n"
        "*************************** 2. row ***************************\n"
        "       id: 2\n"
        "long_name: NULL\n");
  CHECK(FormatVertical(Rows({"a"}, {})).empty());
}

TEST_CASE("batch: tab-separated, NULL as NULL, tabs newlines backslashes escaped",
          "[sql][format]") {
  auto r = Rows({"a", "b"}, {{"x\ty", std::nullopt}, {"line1\nline2", "back\\slash"}});
  CHECK(FormatBatch(r) ==
        "a\tb\n"
        "x\\ty\tNULL\n"
        "line1\\nline2\tback\\\\slash\n");
  CHECK(FormatBatch(Rows({"a", "b"}, {})) == "a\tb\n");
}

TEST_CASE("summary: result sets", "[sql][format]") {
  auto one = Rows({"a"}, {{"1"}});
  CHECK(FormatSummary(one) == "1 row in set (0.00 sec)");
  auto two = Rows({"a"}, {{"1"}, {"2"}});
  two.seconds = 0.0149;
  CHECK(FormatSummary(two) == "2 rows in set (0.01 sec)");
  CHECK(FormatSummary(Rows({"a"}, {})) == "Empty set (0.00 sec)");
  one.warnings.push_back({"Warning", 1292, "Truncated incorrect DOUBLE value: 'x'"});
  CHECK(FormatSummary(one) == "1 row in set, 1 warning (0.00 sec)");
  one.warnings.push_back(one.warnings[0]);
  CHECK(FormatSummary(one) == "1 row in set, 2 warnings (0.00 sec)");
}

TEST_CASE("summary: OK packets with info lines and warnings", "[sql][format]") {
  StatementResult ok;
  CHECK(FormatSummary(ok) == "Query OK, 0 rows affected (0.00 sec)");
  ok.affected_rows = 1;
  ok.seconds = 0.004;
  CHECK(FormatSummary(ok) == "Query OK, 1 row affected (0.00 sec)");
  ok.affected_rows = 3;
  ok.seconds = 0.02;
  ok.info = "Records: 3  Duplicates: 0  Warnings: 0";
  CHECK(FormatSummary(ok) ==
        "Query OK, 3 rows affected (0.02 sec)\nRecords: 3  Duplicates: 0  Warnings: 0");
  ok.affected_rows = 1;
  ok.info = "Rows matched: 1  Changed: 1  Warnings: 1";
  ok.warnings.push_back({"Warning", 1265, "Data truncated for column 'c' at row 1"});
  CHECK(FormatSummary(ok) ==
        "Query OK, 1 row affected, 1 warning (0.02 sec)\nRows matched: 1  Changed: 1  Warnings: 1");
}

TEST_CASE("summary: long statements' times as the client's nice_time", "[sql][format]") {
  StatementResult ok;
  ok.seconds = 62.5;
  CHECK(FormatSummary(ok) == "Query OK, 0 rows affected (1 min 2.50 sec)");
  ok.seconds = 2 * 3600 + 60 + 1.25;
  CHECK(FormatSummary(ok) == "Query OK, 0 rows affected (2 hours 1 min 1.25 sec)");
  ok.seconds = 86400 + 3.0;
  CHECK(FormatSummary(ok) == "Query OK, 0 rows affected (1 day 3.00 sec)");
}

}  // namespace
}  // namespace minnow::sql
