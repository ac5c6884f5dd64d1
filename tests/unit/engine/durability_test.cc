// Durability at the engine API: a clean close leaves nothing to recover; a crash
// (a forked child killed without Close) loses no acknowledged commit and keeps no uncommitted
// change; the recovery report says what recovery did; the durability options are checked.
// Fault injection: durability_fault_test.cc; damaged logs and pages: durability_damage_test.cc.
#include <chrono>
#include <thread>

#include "durability_test_util.h"

namespace minnow {
namespace {

using testing::Child;
using testing::ChildOutcome;
using testing::CommitNumbered;
using testing::CreateDatabase;
using testing::DurableOptions;
using testing::FaultGuard;
using testing::Key;
using testing::kKeyspace;
using testing::kKeysPerCommit;
using testing::ListSegments;
using testing::LogDir;
using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::RunChild;
using testing::Take;
using testing::TempDir;
using testing::TinyPoolOptions;
using testing::Val;
using testing::VerifyNumbered;

// Reopens after recovery has been checked: a clean Close leaves nothing more to recover.
void ExpectCleanReopen(const Options& o, int64_t counter, uint64_t attempts) {
  auto db = MustOpen(o);
  INFO(db->recovery_report().ToString());
  CHECK_FALSE(db->recovery_report().recovered);
  VerifyNumbered(db.get(), counter, attempts);
  REQUIRE_OK(db->Close());
}

TEST_CASE("a clean close leaves nothing to recover", "[engine][durability]") {
  TempDir dir;
  const Options o = DurableOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  {
    auto db = MustOpen(o);
    Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
    auto s = Take(db->NewSession());
    for (uint64_t i = 0; i < 30; ++i) REQUIRE_OK(CommitNumbered(s.get(), ks, i));
    const DatabaseStats st = db->stats();
    CHECK(st.durable_commits == 30);
    CHECK(st.log_syncs >= 1);
    CHECK(st.log_durable_lsn > 0);
    REQUIRE_OK(db->Close());
  }
  // The files options.h names.
  CHECK(std::filesystem::is_directory(LogDir(o.path)));
  CHECK_FALSE(ListSegments(o.path).empty());
  for (int round = 0; round < 2; ++round) {
    auto db = MustOpen(o);
    const RecoveryReport& r = db->recovery_report();
    INFO(r.ToString());
    CHECK_FALSE(r.recovered);
    CHECK(r.redo_groups_applied == 0);
    CHECK(r.pages_repaired == 0);
    CHECK(r.transactions_rolled_back == 0);
    CHECK_FALSE(r.torn_log_tail);
    CHECK(r.ToString().find("clean") != std::string::npos);
    VerifyNumbered(db.get(), 29, 30);
    REQUIRE_OK(db->Close());
  }
}

TEST_CASE("a crash after commits: recovery replays every acknowledged commit",
          "[engine][durability]") {
  TempDir dir;
  const Options o = DurableOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  const ChildOutcome out = RunChild([&](Child& c) {
    auto db = c.OpenAndRun(o, 0, 40);
    c.Crash();
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  REQUIRE(out.last_ack() == 39);
  {
    auto db = MustOpen(o);
    const RecoveryReport& r = db->recovery_report();
    INFO(r.ToString());
    CHECK(r.recovered);
    CHECK(r.end_lsn > r.checkpoint_lsn);
    CHECK(r.log_bytes > 0);
    CHECK(r.redo_groups_applied > 0);
    CHECK(r.transactions_rolled_back == 0);
    CHECK(r.millis > 0);
    CHECK_FALSE(r.ToString().empty());
    CHECK(r.ToString().find("clean") == std::string::npos);
    CHECK(VerifyNumbered(db.get(), 39, 40) == 39);
    // Writes go on after recovery.
    auto s = Take(db->NewSession());
    REQUIRE_OK(CommitNumbered(s.get(), Take(db->OpenKeyspace(kKeyspace)), 40));
    s.reset();
    REQUIRE_OK(db->Close());
  }
  ExpectCleanReopen(o, 40, 41);
}

// The open transaction's changes reached the data file (a 16-frame pool evicts its dirty
// pages, which forces its log records out first); recovery must undo them.
TEST_CASE("a crash with a transaction open: its changes are rolled back", "[engine][durability]") {
  TempDir dir;
  const Options o = TinyPoolOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  constexpr uint64_t kCommits = 50;
  constexpr uint64_t kNewKeys = 600;
  const ChildOutcome out = RunChild([&](Child& c) {
    auto db = c.OpenAndRun(o, 0, kCommits);
    Keyspace ks = c.Take(db->OpenKeyspace(kKeyspace), "keyspace");
    auto s = c.Take(db->NewSession(), "session");
    auto txn = c.Take(s->Begin(), "begin");
    const DatabaseStats before = db->stats();
    for (uint64_t k = 0; k < 10 * kKeysPerCommit; ++k) {
      c.Ok(txn->Put(ks, Key(k), "uncommitted"), "update");
    }
    for (uint64_t k = 20 * kKeysPerCommit; k < 30 * kKeysPerCommit; ++k) {
      c.Ok(txn->Erase(ks, Key(k)), "erase");
    }
    c.Ok(txn->Put(ks, testing::kCounterKey, "999999"), "counter");
    for (uint64_t j = 0; j < kNewKeys; ++j) {
      c.Ok(txn->Put(ks, Key(1'000'000 + j), std::string(1000, 'u')), "insert");
    }
    const DatabaseStats after = db->stats();
    if (after.pool_writes <= before.pool_writes) {
      c.Fail("no dirty page was written while the transaction was open");
    }
    c.Crash();
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  REQUIRE(out.last_ack() == static_cast<int64_t>(kCommits - 1));
  {
    auto db = MustOpen(o);
    const RecoveryReport& r = db->recovery_report();
    INFO(r.ToString());
    CHECK(r.recovered);
    CHECK(r.transactions_rolled_back == 1);
    CHECK(r.redo_groups_applied > 0);
    CHECK(r.end_lsn > r.checkpoint_lsn);
    CHECK(r.millis > 0);
    CHECK_FALSE(r.ToString().empty());
    VerifyNumbered(db.get(), kCommits - 1, kCommits);
    Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
    auto s = Take(db->NewSession());
    auto txn = MustBegin(s.get());
    uint64_t leaked = 0;
    for (uint64_t j = 0; j < kNewKeys; ++j) {
      std::string v;
      if (Take(txn->Get(ks, Key(1'000'000 + j), &v))) ++leaked;
    }
    CHECK(leaked == 0);
    REQUIRE_OK(txn->Commit());
    txn.reset();
    s.reset();
    REQUIRE_OK(db->Close());
  }
  // The rollback itself was made durable: a clean reopen shows the same state.
  ExpectCleanReopen(o, kCommits - 1, kCommits);
}

TEST_CASE("flush_log_at_trx_commit = 2: acknowledged commits survive a process crash",
          "[engine][durability]") {
  TempDir dir;
  Options o = DurableOptions(dir.file("db.minnow"));
  o.flush_log_at_trx_commit = 2;
  o.log_flush_interval_ms = 60'000;  // no background sync: only the writes at commit save them
  CreateDatabase(o);
  const ChildOutcome out = RunChild([&](Child& c) {
    auto db = c.OpenAndRun(o, 0, 60);
    c.Crash();
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  auto db = MustOpen(o);
  INFO(db->recovery_report().ToString());
  CHECK(db->recovery_report().recovered);
  VerifyNumbered(db.get(), 59, 60);
}

TEST_CASE("flush_log_at_trx_commit = 0: a crash keeps a prefix of the commits",
          "[engine][durability]") {
  TempDir dir;
  Options o = DurableOptions(dir.file("db.minnow"));
  o.flush_log_at_trx_commit = 0;
  o.log_flush_interval_ms = 20;
  CreateDatabase(o);
  SECTION("crash at once: some commits may be lost, never half of one") {
    const ChildOutcome out = RunChild([&](Child& c) {
      auto db = c.OpenAndRun(o, 0, 60);
      c.Crash();
    });
    INFO(out.Describe());
    REQUIRE(out.crashed());
    auto db = MustOpen(o);
    INFO(db->recovery_report().ToString());
    VerifyNumbered(db.get(), -1, 60);
  }
  SECTION("crash after the background thread wrote the log: nothing is lost") {
    const ChildOutcome out = RunChild([&](Child& c) {
      auto db = c.OpenAndRun(o, 0, 60);
      // Wait (at most 10 s) until the once-a-"second" (here 20 ms) write has covered the log.
      const Lsn target = db->stats().redo_lsn;
      for (int i = 0; db->stats().log_durable_lsn < target; ++i) {
        if (i == 1000) c.Fail("the background log flush never reached the last commit");
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      c.Crash();
    });
    INFO(out.Describe());
    REQUIRE(out.crashed());
    auto db = MustOpen(o);
    INFO(db->recovery_report().ToString());
    VerifyNumbered(db.get(), 59, 60);
  }
}

// One child per crash point (common/crash_point.h): killed there, the database recovers every
// acknowledged commit, the commit in flight is all or nothing, and work goes on.
TEST_CASE("a crash at each crash point loses no acknowledged commit", "[engine][durability]") {
  struct Point {
    const char* name;
    uint64_t n;
  };
  const Point points[] = {
      {"log.before_write", 5},         {"log.after_write", 5},   {"log.after_sync", 5},
      {"log.segment_switch", 1},       {"dblwr.after_write", 3}, {"dblwr.after_sync", 3},
      {"page.torn_write", 3},          {"page.after_write", 3},  {"checkpoint.before_header", 1},
      {"checkpoint.after_header", 1},  {"btree.split", 5},       {"txn.before_commit", 20},
      {"txn.after_commit_record", 20},
  };
  for (const Point& p : points) {
    DYNAMIC_SECTION(p.name << ":" << p.n) {
      TempDir dir;
      Options o = TinyPoolOptions(dir.file("db.minnow"));
      o.background_flusher = true;
      o.log_file_bytes = 64 << 10;
      o.log_capacity_bytes = 256 << 10;
      CreateDatabase(o);
      constexpr uint64_t kMaxCommits = 600;
      const ChildOutcome out = RunChild([&](Child& c) {
        ArmCrashPoint(p.name, p.n);
        c.OpenAndRun(o, 0, kMaxCommits);
        c.Fail(std::string("crash point ") + p.name + " was not reached");
      });
      INFO(out.Describe());
      REQUIRE(out.crashed());
      const uint64_t attempts = out.acks.size() + 1;
      int64_t counter;
      {
        auto db = MustOpen(o);
        const RecoveryReport& r = db->recovery_report();
        INFO(r.ToString());
        CHECK_FALSE(r.ToString().empty());
        counter = VerifyNumbered(db.get(), out.last_ack(), attempts);
        auto s = Take(db->NewSession());
        Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
        for (uint64_t i = 1; i <= 3; ++i) {
          REQUIRE_OK(CommitNumbered(s.get(), ks, static_cast<uint64_t>(counter) + i));
        }
        s.reset();
        REQUIRE_OK(db->Close());
      }
      ExpectCleanReopen(o, counter + 3, static_cast<uint64_t>(counter) + 4);
    }
  }
}

// A crash in the middle of recovery (redo, then the rollback of the open transaction): the
// next open starts recovery again and ends in the same state.
TEST_CASE("a crash during recovery: the next open recovers again", "[engine][durability]") {
  TempDir dir;
  const Options o = TinyPoolOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  constexpr uint64_t kCommits = 40;
  ChildOutcome out = RunChild([&](Child& c) {
    auto db = c.OpenAndRun(o, 0, kCommits);
    Keyspace ks = c.Take(db->OpenKeyspace(kKeyspace), "keyspace");
    auto s = c.Take(db->NewSession(), "session");
    auto txn = c.Take(s->Begin(), "begin");
    for (uint64_t k = 0; k < 5 * kKeysPerCommit; ++k) c.Ok(txn->Erase(ks, Key(k)), "erase");
    for (uint64_t j = 0; j < 400; ++j) {
      c.Ok(txn->Put(ks, Key(1'000'000 + j), std::string(1000, 'u')), "insert");
    }
    c.Crash();
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  for (const char* point : {"recovery.rollback", "recovery.redo"}) {
    INFO("killed at " << point);
    out = RunChild([&](Child& c) {
      ArmCrashPoint(point, 1);
      auto db = Database::Open(o);
      c.Fail(std::string("recovery did not reach ") + point + ": " + db.status().ToString());
    });
    INFO(out.Describe());
    REQUIRE(out.crashed());
  }
  auto db = MustOpen(o);
  const RecoveryReport& r = db->recovery_report();
  INFO(r.ToString());
  CHECK(r.recovered);
  CHECK(r.transactions_rolled_back <= 1);
  VerifyNumbered(db.get(), kCommits - 1, kCommits);
  Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
  auto s = Take(db->NewSession());
  auto txn = MustBegin(s.get());
  std::string v;
  for (uint64_t j = 0; j < 400; ++j) REQUIRE_FALSE(Take(txn->Get(ks, Key(1'000'000 + j), &v)));
}

// Checkpoints bound the log: with a 256 KiB capacity and 64 KiB segments the log on disk stays
// small while megabytes pass through it, and recovery starts at the last checkpoint.
TEST_CASE("checkpoints trim the log and recovery starts at the checkpoint",
          "[engine][durability]") {
  TempDir dir;
  Options o = TinyPoolOptions(dir.file("db.minnow"));
  o.log_file_bytes = 64 << 10;
  o.log_capacity_bytes = 256 << 10;
  CreateDatabase(o);
  constexpr uint64_t kCommits = 300;
  const ChildOutcome out = RunChild([&](Child& c) {
    auto db = c.OpenAndRun(o, 0, kCommits);
    const DatabaseStats st = db->stats();
    if (st.checkpoints == 0) c.Fail("no checkpoint in 300 commits");
    if (st.log_bytes_written < 4 * o.log_capacity_bytes) {
      c.Fail("the workload wrote only " + std::to_string(st.log_bytes_written) + " log bytes");
    }
    c.Crash();
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  const auto segs = ListSegments(o.path);
  INFO(segs.size() << " segments, the first at LSN " << segs.front().start_lsn);
  CHECK(segs.front().start_lsn > 0);  // the oldest were removed
  CHECK(segs.size() <= 3 * o.log_capacity_bytes / o.log_file_bytes);
  auto db = MustOpen(o);
  const RecoveryReport& r = db->recovery_report();
  INFO(r.ToString());
  CHECK(r.recovered);
  CHECK(r.checkpoint_lsn > 0);
  CHECK(r.end_lsn > r.checkpoint_lsn);
  CHECK(r.log_bytes < 3 * o.log_capacity_bytes);
  VerifyNumbered(db.get(), kCommits - 1, kCommits);
}

TEST_CASE("durability options are checked at open", "[engine][durability]") {
  TempDir dir;
  for (uint8_t policy : {0, 1, 2}) {
    INFO("flush_log_at_trx_commit = " << int{policy});
    Options o = DurableOptions(dir.file("p" + std::to_string(policy) + ".minnow"));
    o.flush_log_at_trx_commit = policy;
    CreateDatabase(o);
    {
      auto db = MustOpen(o);
      auto s = Take(db->NewSession());
      REQUIRE_OK(CommitNumbered(s.get(), Take(db->OpenKeyspace(kKeyspace)), 0));
      s.reset();
      REQUIRE_OK(db->Close());
    }
    auto db = MustOpen(o);
    CHECK_FALSE(db->recovery_report().recovered);
    VerifyNumbered(db.get(), 0, 1);
  }
  Options o = DurableOptions(dir.file("bad.minnow"));
  for (uint8_t policy : {3, 255}) {
    o.flush_log_at_trx_commit = policy;
    INFO("flush_log_at_trx_commit = " << int{policy});
    REQUIRE_CODE(Database::Open(o).status(), Code::kInvalidArgument);
  }
  o.flush_log_at_trx_commit = 1;
  for (uint64_t bytes : {uint64_t{0}, uint64_t{4096}, uint64_t{(64 << 10) - 1}}) {
    o.log_file_bytes = bytes;
    INFO("log_file_bytes = " << bytes);
    REQUIRE_CODE(Database::Open(o).status(), Code::kInvalidArgument);
  }
  o.log_file_bytes = 64 << 10;
  o.log_flush_interval_ms = 0;
  {
    const Status st = Database::Open(o).status();
    REQUIRE_CODE(st, Code::kInvalidArgument);
    CHECK(st.message().find("log_flush_interval_ms") != std::string::npos);
  }
  o.log_flush_interval_ms = 1000;
  MustOpen(o).reset();  // the smallest segment is accepted
  // An in-memory database has no log and nothing to recover.
  auto mem = MustOpen(testing::SmallOptions(":memory:"));
  CHECK_FALSE(mem->recovery_report().recovered);
  MustKeyspace(mem.get(), "m");
  CHECK(mem->stats().log_durable_lsn == 0);
}

}  // namespace
}  // namespace minnow
