// CREATE TABLE ... SELECT is all or nothing across a crash: a forked child runs it and is killed
// after the rows are in and before the statement's transaction commits (a crash point); the
// reopened database has no such table, no storage left of it (the keyspace or heap table is
// dropped as an orphan at open), and the same statement then succeeds. Without the crash, the
// table and all its rows are there after a reopen.
#include <string>

#include "../engine/durability_test_util.h"
#include "minnow/table_lock_engine.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::sql {
namespace {

using testing::ChildOutcome;
using testing::DurableOptions;
using testing::FaultGuard;
using testing::MustOpen;
using testing::RunChild;
using testing::TempDir;

constexpr int kRows = 300;

void MakeSource(const Options& o) {
  auto db = MustOpen(o);
  auto engine = SqlEngine::Open(db.get());
  REQUIRE(engine.ok());
  auto s = (*engine)->NewSession();
  REQUIRE(s->Execute("CREATE TABLE src (id INT PRIMARY KEY, v VARCHAR(40), KEY v (v))").ok());
  std::string insert = "INSERT INTO src VALUES ";
  for (int i = 1; i <= kRows; ++i)
    insert += (i > 1 ? ",(" : "(") + std::to_string(i) + ",'v" + std::to_string(i) + "')";
  REQUIRE(s->Execute(insert).ok());
  s.reset();
  engine->reset();
  REQUIRE(db->Close().ok());
}

// Every keyspace and heap table whose name starts with "c" (the new table's storage names).
size_t StorageNamedC(Database* db) {
  size_t n = 0;
  auto keyspaces = db->ListKeyspaces();
  REQUIRE(keyspaces.ok());
  for (const std::string& k : *keyspaces) n += k.rfind("c", 0) == 0;
  auto heaps = HeapTable::List(db);
  REQUIRE(heaps.ok());
  for (const std::string& h : *heaps) n += h.rfind("c", 0) == 0;
  return n;
}

TEST_CASE("CREATE TABLE ... SELECT: a crash before its commit leaves no table",
          "[sql][ddl][durability]") {
  FaultGuard faults;
  const std::string engine_name = GENERATE(as<std::string>{}, "InnoDB", "MyISAM");
  const bool crash = GENERATE(true, false);
  INFO(engine_name << (crash ? ", crashed" : ", not crashed"));
  TempDir dir;
  const Options o = DurableOptions(dir.file());
  MakeSource(o);
  const std::string ctas = "CREATE TABLE c (KEY v (v)) ENGINE=" + engine_name +
                           " AS SELECT id, v FROM src WHERE id > 10";
  const ChildOutcome out = RunChild([&](testing::Child& c) {
    auto db = c.Take(Database::Open(o), "open");
    auto engine = SqlEngine::Open(db.get());
    if (!engine.ok()) c.Fail("SqlEngine::Open: " + engine.error().ToString());
    auto s = (*engine)->NewSession();
    if (crash) ArmCrashPoint("sql.create_select.before_commit", 1);
    auto r = s->Execute(ctas);
    if (!r.ok()) c.Fail("create ... select: " + r.error().ToString());
    c.Ack(0);
    c.Crash();  // acknowledged: whatever is lost now was not
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  CHECK(out.last_ack() == (crash ? -1 : 0));
  auto db = MustOpen(o);
  auto engine = SqlEngine::Open(db.get());
  REQUIRE(engine.ok());
  auto s = (*engine)->NewSession();
  auto rows = s->Execute("SELECT COUNT(*), SUM(id) FROM c");
  if (crash) {
    REQUIRE_FALSE(rows.ok());
    CHECK(rows.error().code == 1146);
    CHECK(StorageNamedC(db.get()) == 0);
    auto again = s->Execute(ctas);
    REQUIRE(again.ok());
    CHECK(again->affected_rows == kRows - 10);
  } else {
    REQUIRE(rows.ok());
    CHECK(*rows->rows[0][0] == std::to_string(kRows - 10));
  }
  auto by_index = s->Execute("SELECT COUNT(*) FROM c WHERE v >= 'v'");
  REQUIRE(by_index.ok());
  CHECK(*by_index->rows[0][0] == std::to_string(kRows - 10));
  s.reset();
  engine->reset();
  REQUIRE(db->CheckIntegrity().ok());
  REQUIRE(db->Close().ok());
}

}  // namespace
}  // namespace minnow::sql
