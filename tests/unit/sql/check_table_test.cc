// CHECK TABLE over damaged pages (damage no SQL statement can make): a flipped byte in any page
// of a table's trees ends that table's rows with "error | Corrupt" after InnoDB's Warning that
// names the damaged index; other tables of the statement, and the statement, go on.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "sql_lite_front/sql_engine.h"
#include "tests/unit/engine/engine_test_util.h"

namespace minnow::sql {
namespace {

using minnow::testing::MustOpen;
using minnow::testing::SmallOptions;
using minnow::testing::TempDir;

constexpr size_t kPage = 16384;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Writes the data file and empties the doublewrite buffer (it would restore a damaged page).
void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (std::filesystem::exists(path + ".dblwr")) {
    std::ofstream dblwr(path + ".dblwr", std::ios::binary | std::ios::trunc);
  }
}

// Runs `sql`, which must succeed.
StatementResult Run(SqlSession* s, const std::string& sql) {
  auto r = s->Execute(sql);
  INFO(sql << " -> " << (r.ok() ? "" : r.error().ToString()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

// The Msg_type / Msg_text rows of table `table` ("test.t") in a CHECK TABLE result.
std::vector<std::pair<std::string, std::string>> RowsOf(const StatementResult& r,
                                                        const std::string& table) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& row : r.rows) {
    if (*row[0] == table) rows.emplace_back(*row[2], *row[3]);
  }
  return rows;
}

TEST_CASE("CHECK TABLE reports a damaged tree as Corrupt, table by table", "[sql][check]") {
  TempDir dir;
  const std::string path = dir.file();
  {
    auto db = MustOpen(SmallOptions(path));
    auto engine = SqlEngine::Open(db.get());
    REQUIRE(engine.ok());
    auto s = (*engine)->NewSession();
    Run(s.get(), "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v VARCHAR(80), KEY v (v))");
    Run(s.get(), "CREATE TABLE u (id INT NOT NULL PRIMARY KEY)");
    Run(s.get(), "INSERT INTO u VALUES (1), (2), (3)");
    for (int i = 0; i < 20; ++i) {
      std::string sql = "INSERT INTO t VALUES ";
      for (int j = 0; j < 100; ++j) {
        const int id = i * 100 + j;
        sql += (j == 0 ? "(" : ", (") + std::to_string(id) + ", REPEAT('" +
               static_cast<char>('a' + id % 26) + "', " + std::to_string(20 + id % 60) + "))";
      }
      Run(s.get(), sql);
    }
    const StatementResult sound = Run(s.get(), "CHECK TABLE t, u");
    REQUIRE(RowsOf(sound, "test.t") ==
            std::vector<std::pair<std::string, std::string>>{{"status", "OK"}});
    s.reset();
    engine->reset();
    REQUIRE(db->Close().ok());
  }
  const std::string clean = ReadFile(path);
  uint32_t pages;
  std::memcpy(&pages, clean.data() + 48, 4);  // page 0's page count
  bool primary_caught = false, index_caught = false, quick_caught = false;
  for (size_t p = 1; p < pages; ++p) {
    std::string bad = clean;
    bad[p * kPage + 100 + (p * 4099) % (kPage - 200)] ^= 0x10;
    WriteFile(path, bad);
    INFO("page " << p);
    auto db = Database::Open(SmallOptions(path));
    if (!db.ok()) continue;  // a page the opening reads (catalogs, recovery)
    auto engine = SqlEngine::Open(db->get());
    if (!engine.ok()) continue;  // a page the SQL catalog reads (a table's last key)
    auto s = (*engine)->NewSession();
    const StatementResult r = Run(s.get(), "CHECK TABLE t, u");
    const auto t_rows = RowsOf(r, "test.t");
    REQUIRE(!t_rows.empty());
    if (t_rows.back() == std::pair<std::string, std::string>{"error", "Corrupt"}) {
      // The Warning naming the tree, then what its check found, then Corrupt.
      REQUIRE(t_rows.size() >= 3);
      CHECK(t_rows[0].first == "Warning");
      if (t_rows[0].second == "InnoDB: The B-tree of index \"PRIMARY\" is corrupted.") {
        primary_caught = true;
      } else {
        CHECK(t_rows[0].second == "InnoDB: The B-tree of index \"v\" is corrupted.");
        index_caught = true;
      }
      CHECK(t_rows[1].first == "Warning");
      CHECK(t_rows[1].second.find("keyspace 't") != std::string::npos);
    } else {
      CHECK(t_rows == std::vector<std::pair<std::string, std::string>>{{"status", "OK"}});
    }
    // QUICK reads the trees only by counting their entries: a page that fails is the same.
    const auto quick = RowsOf(Run(s.get(), "CHECK TABLE t QUICK"), "test.t");
    if (quick.back() == std::pair<std::string, std::string>{"error", "Corrupt"}) {
      CHECK(quick[0].first == "Warning");
      quick_caught = true;
    } else {
      CHECK(quick == std::vector<std::pair<std::string, std::string>>{{"status", "OK"}});
    }
    // One page belongs to one tree: the other table is sound.
    const auto u_rows = RowsOf(r, "test.u");
    REQUIRE(!u_rows.empty());
    CHECK(!(t_rows.back().second == "Corrupt" && u_rows.back().second == "Corrupt"));
  }
  CHECK(primary_caught);
  CHECK(index_caught);
  CHECK(quick_caught);
}

// An index entry of no row (put in the index's keyspace through the key-value API, as no
// statement could): the counts disagree, as InnoDB reports them.
TEST_CASE("CHECK TABLE reports an index whose entries do not match the rows", "[sql][check]") {
  TempDir dir;
  auto db = MustOpen(SmallOptions(dir.file()));
  auto engine = SqlEngine::Open(db.get());
  REQUIRE(engine.ok());
  auto s = (*engine)->NewSession();
  Run(s.get(), "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT, KEY v (v), KEY w (id, v))");
  Run(s.get(), "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)");
  {
    auto index = db->OpenKeyspace("t.v");
    REQUIRE(index.ok());
    auto kv = db->NewSession();
    REQUIRE(kv.ok());
    auto txn = (*kv)->Begin();
    REQUIRE(txn.ok());
    REQUIRE((*txn)->Put(*index, "not an entry of any row", "").ok());
    REQUIRE((*txn)->Commit().ok());
  }
  const StatementResult r = Run(s.get(), "CHECK TABLE t");
  using Rows = std::vector<std::pair<std::string, std::string>>;
  CHECK(RowsOf(r, "test.t") ==
        Rows{{"Warning", "InnoDB: Index 'v' contains 4 entries, should be 3."},
             {"error", "Corrupt"}});
  // QUICK counts too (it skips only the trees' walks, which find each tree sound here).
  CHECK(RowsOf(Run(s.get(), "CHECK TABLE t QUICK"), "test.t") ==
        Rows{{"Warning", "InnoDB: Index 'v' contains 4 entries, should be 3."},
             {"error", "Corrupt"}});
  CHECK(RowsOf(Run(s.get(), "CHECK TABLE t FOR UPGRADE"), "test.t") == Rows{{"status", "OK"}});
}

}  // namespace
}  // namespace minnow::sql
