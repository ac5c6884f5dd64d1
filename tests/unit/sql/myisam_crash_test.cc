// MyISAM tables through SQL after a crash: a forked child runs INSERT and DELETE statements on
// a MyISAM table (with a secondary index) and is killed inside a row's index changes (a crash
// point); the reopened database, through a new SqlEngine, has every acknowledged statement's
// rows, the interrupted statement's row whole or not at all, indexes that agree with the heap
// (repaired at open), and the AUTO_INCREMENT counter past the largest id.
#include <set>
#include <string>
#include <thread>

#include "../engine/durability_test_util.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::sql {
namespace {

using testing::ChildOutcome;
using testing::DurableOptions;
using testing::FaultGuard;
using testing::MustOpen;
using testing::RunChild;
using testing::TempDir;

std::string ValueOf(uint64_t id) {
  return "v" + std::to_string(id % 17) + "_" + std::to_string(id);
}

// Statement i: insert row i + 1 (ids from AUTO_INCREMENT); every third also deletes row i.
std::set<uint64_t> RowsAfter(int64_t last_ack) {
  std::set<uint64_t> rows;
  for (int64_t i = 0; i <= last_ack; ++i) {
    rows.insert(static_cast<uint64_t>(i) + 1);
    if (i % 3 == 2) rows.erase(static_cast<uint64_t>(i));
  }
  return rows;
}

std::set<uint64_t> Ids(const StatementResult& r) {
  std::set<uint64_t> ids;
  for (const auto& row : r.rows) ids.insert(std::stoull(*row[0]));
  return ids;
}

TEST_CASE("myisam through SQL: a crash inside a row's index changes recovers consistent",
          "[sql][myisam][durability]") {
  FaultGuard faults;
  const uint64_t hit = GENERATE(as<uint64_t>{}, 5, 97, 400);
  INFO("crash at hit " << hit);
  TempDir dir;
  const Options o = DurableOptions(dir.file());
  {
    auto db = MustOpen(o);
    auto engine = SqlEngine::Open(db.get());
    REQUIRE(engine.ok());
    auto s = (*engine)->NewSession();
    REQUIRE(s->Execute("CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT, v VARCHAR(40), "
                       "PRIMARY KEY (id), KEY v (v)) ENGINE=MyISAM")
                .ok());
    s.reset();
    engine->reset();
    REQUIRE(db->Close().ok());
  }
  const ChildOutcome out = RunChild([&](testing::Child& c) {
    auto db = c.Take(Database::Open(o), "open");
    auto engine = SqlEngine::Open(db.get());
    if (!engine.ok()) c.Fail("SqlEngine::Open: " + engine.error().ToString());
    auto s = (*engine)->NewSession();
    ArmCrashPoint("heap_table.insert.index", hit);
    for (uint64_t i = 0; i < 2000; ++i) {
      auto r = s->Execute("INSERT INTO t (v) VALUES ('" + ValueOf(i + 1) + "')");
      if (!r.ok()) c.Fail("insert: " + r.error().ToString());
      if (i % 3 == 2) {
        r = s->Execute("DELETE FROM t WHERE id = " + std::to_string(i));
        if (!r.ok() || r->affected_rows != 1) c.Fail("delete of " + std::to_string(i));
      }
      c.Ack(i);
    }
    c.Fail("the crash point was not reached");
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  for (int pass = 0; pass < 2; ++pass) {  // after recovery, then after a clean close
    auto db = MustOpen(o);
    REQUIRE(db->recovery_report().recovered == (pass == 0));
    auto engine = SqlEngine::Open(db.get());
    REQUIRE(engine.ok());
    auto s = (*engine)->NewSession();
    auto all = s->Execute("SELECT id, v FROM t");
    REQUIRE(all.ok());
    std::set<uint64_t> got = Ids(*all);
    for (const auto& row : all->rows) CHECK(*row[1] == ValueOf(std::stoull(*row[0])));
    std::set<uint64_t> with_next = RowsAfter(out.last_ack());
    with_next.insert(static_cast<uint64_t>(out.last_ack() + 2));  // the interrupted insert
    const bool ok = got == RowsAfter(out.last_ack()) || got == with_next;
    INFO("rows recovered: " << got.size());
    CHECK(ok);
    auto by_index = s->Execute("SELECT id FROM t WHERE v >= 'v'");
    REQUIRE(by_index.ok());
    CHECK(Ids(*by_index) == got);
    auto next = s->Execute("INSERT INTO t (v) VALUES ('after')");
    REQUIRE(next.ok());
    CHECK(next->last_insert_id > *got.rbegin());
    REQUIRE(s->Execute("DELETE FROM t WHERE v = 'after'").ok());  // the next pass sees `got`
    s.reset();
    engine->reset();
    REQUIRE(db->CheckIntegrity().ok());
    REQUIRE(db->Close().ok());
  }
}

// A MyISAM statement's rows are made durable once, as the statement ends: a 200-row INSERT
// syncs the redo log once (not once per row), and so does each statement under LOCK TABLES
// WRITE, whose lock stays held. A read syncs nothing.
TEST_CASE("myisam through SQL: one log sync per writing statement", "[sql][myisam][durability]") {
  TempDir dir;
  auto db = MustOpen(DurableOptions(dir.file()));
  auto engine = SqlEngine::Open(db.get());
  REQUIRE(engine.ok());
  auto s = (*engine)->NewSession();
  REQUIRE(s->Execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(40), KEY v (v)) ENGINE=MyISAM")
              .ok());
  std::string insert = "INSERT INTO t VALUES ";
  for (int i = 1; i <= 200; ++i) {
    if (i > 1) insert += ", ";
    insert += "(" + std::to_string(i) + ", '" + ValueOf(i) + "')";
  }
  auto syncs_of = [&](const std::string& sql) {
    const uint64_t before = db->stats().log_syncs;
    auto r = s->Execute(sql);
    REQUIRE(r.ok());
    return db->stats().log_syncs - before;
  };
  CHECK(syncs_of(insert) == 1);
  CHECK(syncs_of("SELECT count(*) FROM t WHERE v > 'v1'") == 0);
  REQUIRE(s->Execute("LOCK TABLES t WRITE").ok());
  CHECK(syncs_of("UPDATE t SET v = concat(v, 'x') WHERE id <= 50") == 1);
  CHECK(syncs_of("DELETE FROM t WHERE id > 150") == 1);
  REQUIRE(s->Execute("UNLOCK TABLES").ok());
  auto n = s->Execute("SELECT count(*) FROM t");
  REQUIRE(n.ok());
  CHECK(*n->rows[0][0] == "150");
  s.reset();
  engine->reset();
  REQUIRE(db->Close().ok());
}

// KILL QUERY (SqlSession::Cancel) ends a MyISAM table lock wait with 1317; the session then
// runs its next statement normally.
TEST_CASE("myisam through SQL: Cancel interrupts a table lock wait", "[sql][myisam]") {
  Options o;
  o.path = ":memory:";
  auto db = MustOpen(o);
  auto engine = SqlEngine::Open(db.get());
  REQUIRE(engine.ok());
  auto a = (*engine)->NewSession();
  auto b = (*engine)->NewSession();
  REQUIRE(a->Execute("CREATE TABLE t (id INT PRIMARY KEY) ENGINE=MyISAM").ok());
  REQUIRE(a->Execute("LOCK TABLES t WRITE").ok());
  SqlResult<StatementResult> blocked = StatementResult{};
  std::thread waiter([&] { blocked = b->Execute("SELECT count(*) FROM t"); });
  while (!b->waiting_for_lock()) std::this_thread::yield();
  b->Cancel();
  waiter.join();
  REQUIRE_FALSE(blocked.ok());
  CHECK(blocked.error().code == 1317);
  REQUIRE(a->Execute("UNLOCK TABLES").ok());
  auto again = b->Execute("SELECT count(*) FROM t");
  REQUIRE(again.ok());
  CHECK(*again->rows[0][0] == "0");
  b.reset();
  a.reset();
  engine->reset();
}

}  // namespace
}  // namespace minnow::sql
