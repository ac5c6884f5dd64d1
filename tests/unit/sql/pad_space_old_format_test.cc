// A table written in the record format from before the texts of PAD SPACE keys were kept
// (RecordFormat::kPadKeysWithoutText, catalog record format 2): it opens and reads as it was
// written, across a reopen, until OPTIMIZE TABLE or a copy-ALTER rebuilds it in the current
// format. The table is made so by rewriting its catalog record with the earlier mark, then
// filled through SQL (whose writes follow the mark, as the earlier minnow wrote).

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
using Rows = std::vector<std::string>;

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
  // The rows of a query, each row's cells joined with '|'.
  Rows Query(std::string_view sql) {
    auto r = session->Execute(sql);
    INFO(sql << " -> " << (r.ok() ? "" : r.error().ToString()));
    REQUIRE(r.ok());
    Rows out;
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
  // EXPLAIN's Extra of a one-table query.
  std::string Extra(std::string_view sql) {
    auto r = session->Execute("EXPLAIN " + std::string(sql));
    REQUIRE(r.ok());
    REQUIRE(r->rows.size() == 1);
    const auto& cell = r->rows[0].back();
    return cell.has_value() ? *cell : "NULL";
  }

  std::unique_ptr<Database> db;
  std::unique_ptr<SqlEngine> engine;
  std::unique_ptr<SqlSession> session;
};

// Rewrites table `name`'s catalog record with `format` (the keyspaces stay).
void SetRecordFormat(const Options& o, const std::string& name, RecordFormat format) {
  auto db = Take(Database::Open(o));
  {
    auto catalog = TableCatalog::Open(db.get());
    REQUIRE(catalog.ok());
    auto table = (*catalog)->Find(TableName{kDefaultDatabase, name});
    REQUIRE(table != nullptr);
    TableDef def = table->def;
    def.record_format = format;
    REQUIRE((*catalog)->ReplaceTable(def).ok());
  }
  REQUIRE_OK(db->Close());
}

RecordFormat RecordFormatOf(const Options& o, const std::string& name) {
  auto db = Take(Database::Open(o));
  RecordFormat f;
  {
    auto catalog = TableCatalog::Open(db.get());
    REQUIRE(catalog.ok());
    auto table = (*catalog)->Find(TableName{kDefaultDatabase, name});
    REQUIRE(table != nullptr);
    f = table->def.record_format;
  }
  REQUIRE_OK(db->Close());
  return f;
}

TEST_CASE("a table of the earlier record format reads as written, OPTIMIZE rebuilds it",
          "[sql][ddl][collation]") {
  TempDir dir;
  const Options o = minnow::testing::SmallOptions(dir.file());
  for (const char* engine : {"InnoDB", "MyISAM"}) {
    INFO(engine);
    const std::string t = std::string("old_") + engine;
    {
      Db db(o);
      db.Ok("CREATE TABLE " + t +
            " (k VARCHAR(10) COLLATE utf8mb4_bin PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_bin, "
            "KEY s (s)) ENGINE=" +
            engine);
      db.Close();
    }
    CHECK(RecordFormatOf(o, t) == RecordFormat::kPadTextsKept);  // a new table's
    SetRecordFormat(o, t, RecordFormat::kPadKeysWithoutText);
    {
      Db db(o);
      db.Ok("INSERT INTO " + t + " VALUES ('a ', 'x '), ('b', 'y  ')");
      db.Close();
    }
    Db db(o);
    const std::string ks = "SELECT concat('[', k, ']'), concat('[', s, ']') FROM " + t;
    // The primary key's trailing spaces were never stored; s's are in the row.
    CHECK(db.Query(ks + " ORDER BY k") == Rows{"[a]|[x ]", "[b]|[y  ]"});
    CHECK(db.Query(ks + " WHERE s = 'x'") == Rows{"[a]|[x ]"});
    CHECK(db.Query(ks + " WHERE k = 'a  '") == Rows{"[a]|[x ]"});
    CHECK(db.Query("SELECT concat('[', max(s), ']') FROM " + t) == Rows{"[y  ]"});
    // The index's entries hold no texts: a walk of it reads the rows for s.
    CHECK(db.Extra("SELECT concat('[', s, ']') FROM " + t + " WHERE s = 'x'") == "NULL");
    CHECK(db.Query("SELECT count(*) FROM " + t + " WHERE s LIKE 'y %'") == Rows{"1"});
    // Another row written now is of the table's format too.
    db.Ok("INSERT INTO " + t + " VALUES ('c  ', 'z ')");
    CHECK(db.Query(ks + " WHERE s = 'z'") == Rows{"[c]|[z ]"});
    // A rebuild writes the current format; the lost spaces stay lost.
    if (std::string(engine) == "InnoDB") {
      db.Ok("OPTIMIZE TABLE " + t);
    } else {
      db.Ok("ALTER TABLE " + t + " ADD COLUMN n INT, ALGORITHM=COPY");
    }
    db.Ok("INSERT INTO " + t + " (k, s) VALUES ('d ', 'w ')");
    CHECK(db.Query(ks + " ORDER BY k") == Rows{"[a]|[x ]", "[b]|[y  ]", "[c]|[z ]", "[d ]|[w ]"});
    const std::string walk = "SELECT concat('[', s, ']') FROM " + t + " WHERE s = 'w'";
    CHECK(db.Query(walk) == Rows{"[w ]"});
    if (std::string(engine) == "InnoDB") CHECK(db.Extra(walk) == "Using index");
    db.Close();
    CHECK(RecordFormatOf(o, t) == RecordFormat::kPadTextsKept);
  }
}

}  // namespace
}  // namespace minnow::sql
