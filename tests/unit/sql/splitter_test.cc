// StatementSplitter: statements end at ';' or \G outside quotes and comments, whatever the chunks.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sql_lite_front/parse/parser.h"

namespace minnow::sql {
namespace {

using Term = StatementSplitter::Terminator;
using Split = std::vector<std::pair<std::string, Term>>;

Split Drain(StatementSplitter* s) {
  Split out;
  std::string st;
  Term t;
  while (s->Next(&st, &t)) out.emplace_back(st, t);
  return out;
}

Split SplitAll(const std::string& text) {
  StatementSplitter s;
  s.Feed(text);
  return Drain(&s);
}

TEST_CASE("statements end at ; and \\G outside quotes and comments", "[sql][splitter]") {
  CHECK(SplitAll("SELECT 1; SELECT 2;\n") ==
        Split{{"SELECT 1", Term::kSemicolon}, {"SELECT 2", Term::kSemicolon}});
  CHECK(SplitAll("SHOW ENGINE INNODB STATUS\\G") ==
        Split{{"SHOW ENGINE INNODB STATUS", Term::kVertical}});
  CHECK(SplitAll("SELECT 1\\g") == Split{{"SELECT 1", Term::kSemicolon}});
  CHECK(SplitAll("SELECT 'a;b', \"c;d\", `e;f`;") ==
        Split{{"SELECT 'a;b', \"c;d\", `e;f`", Term::kSemicolon}});
  CHECK(SplitAll("SELECT 'it''s;', 'x\\';y';") ==
        Split{{"SELECT 'it''s;', 'x\\';y'", Term::kSemicolon}});
  CHECK(SplitAll("SELECT '\\G';") == Split{{"SELECT '\\G'", Term::kSemicolon}});
  CHECK(SplitAll("SELECT 1 -- a; comment\n, 2; # more;\nSELECT /* ; */ 3;") ==
        Split{{"SELECT 1 -- a; comment\n, 2", Term::kSemicolon},
              {"# more;\nSELECT /* ; */ 3", Term::kSemicolon}});
  CHECK(SplitAll("SELECT 1--2;") == Split{{"SELECT 1--2", Term::kSemicolon}});
  CHECK(SplitAll(";;  ; SELECT 1;") == Split{{"SELECT 1", Term::kSemicolon}});

  // ";;;" in bulk does not recurse.
  CHECK(SplitAll(std::string(200000, ';') + "SELECT 1;") == Split{{"SELECT 1", Term::kSemicolon}});
}

TEST_CASE("pending text, empty() and Clear", "[sql][splitter]") {
  StatementSplitter s;
  CHECK(s.empty());
  s.Feed("SELECT 1; SELECT 'unterminated;");
  CHECK(Drain(&s) == Split{{"SELECT 1", Term::kSemicolon}});
  CHECK(s.Pending() == "SELECT 'unterminated;");
  CHECK_FALSE(s.empty());
  s.Feed("';");
  CHECK(Drain(&s) == Split{{"SELECT 'unterminated;'", Term::kSemicolon}});
  CHECK(s.Pending().empty());
  CHECK(s.empty());

  s.Feed("  -- only a comment\n /* and another */ # and one more");
  CHECK(Drain(&s).empty());
  CHECK(s.empty());
  s.Feed("\n/*!40101 SET NAMES utf8 */");
  CHECK_FALSE(s.empty());  // an executable comment is SQL
  s.Clear();
  CHECK(s.empty());
  CHECK(s.Pending().empty());
  s.Feed("SELECT 1;");
  CHECK(Drain(&s) == Split{{"SELECT 1", Term::kSemicolon}});
}

TEST_CASE("text fed in any chunks splits the same", "[sql][splitter]") {
  const std::string text =
      "CREATE TABLE t (a int); -- x;\nINSERT INTO t VALUES (1), ('a;''b'), (\"\\\";\")\\G"
      "SELECT /* ;\\G */ `x;`--- 1;\n;SELECT 2 # ;\n\\g SELECT '\\\\';";
  const Split expected = SplitAll(text);
  REQUIRE(expected ==
          Split{{"CREATE TABLE t (a int)", Term::kSemicolon},
                {"-- x;\nINSERT INTO t VALUES (1), ('a;''b'), (\"\\\";\")", Term::kVertical},
                {"SELECT /* ;\\G */ `x;`--- 1;", Term::kSemicolon},
                {"SELECT 2 # ;", Term::kSemicolon},
                {"SELECT '\\\\'", Term::kSemicolon}});
  for (size_t chunk = 1; chunk <= 7; ++chunk) {
    INFO("chunk " << chunk);
    StatementSplitter s;
    Split got;
    for (size_t i = 0; i < text.size(); i += chunk) {
      s.Feed(text.substr(i, chunk));
      for (auto& st : Drain(&s)) got.push_back(std::move(st));
    }
    CHECK(got == expected);
    CHECK(s.empty());
  }
}

TEST_CASE("every statement the splitter returns parses", "[sql][splitter]") {
  StatementSplitter s;
  s.Feed("BEGIN; SELECT count(i) FROM sample FOR UPDATE\\G COMMIT;");
  std::string st;
  Term t;
  int n = 0;
  while (s.Next(&st, &t)) {
    INFO(st);
    CHECK(Parse(st).ok());
    ++n;
  }
  CHECK(n == 3);
}

}  // namespace
}  // namespace minnow::sql
