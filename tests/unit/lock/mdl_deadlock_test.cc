// Deadlock detection over metadata-lock waits (LockSys::AttachMetadataLocks): cycles of
// metadata-lock waits alone (upgrades, the pending-exclusive priority), cycles through
// metadata and record locks, chains that are no cycle, the victim choice and the report.
// Outcomes and counts are asserted, never times.

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <thread>

#include "common/latch.h"
#include "lock/metadata_lock.h"
#include "lock_test_util.h"

namespace minnow {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace)
using std::chrono::milliseconds;

constexpr PageNo kPage = 3;
constexpr auto kLong = milliseconds(20000);
constexpr auto kNoWait = milliseconds(0);
constexpr MdlMode kMdlS = MdlMode::kShared;
constexpr MdlMode kMdlX = MdlMode::kExclusive;

template <typename F>
void Until(F&& cond) {
  while (!cond()) std::this_thread::sleep_for(milliseconds(1));
}

// A lock system with a metadata lock system attached; the deadlocks reported are kept.
struct Graph {
  explicit Graph(bool deadlock_detect = true)
      : locks(LockSysOptions{.deadlock_detect = deadlock_detect,
                             .on_deadlock = [this](const DeadlockInfo& d) { Report(d); }}) {
    locks.AttachMetadataLocks(&mdl);
  }
  // The reports so far. The detecting thread reports after it has cancelled the victim's
  // wait, so a victim may wake before the report is there: wait for it with Until.
  std::vector<DeadlockInfo> reported() {
    LatchGuard guard(latch_);
    return reported_;
  }
  LockSys locks;
  MetadataLockSys mdl;  // after locks, so destroyed first: its deadlock check calls locks

 private:
  void Report(const DeadlockInfo& d) {
    LatchGuard guard(latch_);
    reported_.push_back(d);
  }
  Latch latch_;
  std::vector<DeadlockInfo> reported_ GUARDED_BY(latch_);
};

TEST_CASE("mdl deadlock: two owners upgrading S to X on one object", "[lock][mdl]") {
  for (bool detect : {true, false}) {  // MySQL's MDL detector cannot be turned off
    Graph g(detect);
    MdlContext a(&g.mdl), b(&g.mdl);
    REQUIRE(a.Acquire("test.t", kMdlS, kNoWait).ok());
    REQUIRE(b.Acquire("test.t", kMdlS, kNoWait).ok());
    auto up = std::async(std::launch::async, [&] { return a.Acquire("test.t", kMdlX, kLong); });
    Until([&] { return a.waiting(); });
    CHECK(g.locks.stats().deadlocks == 0);
    // b closes the cycle: both wait for X, both weigh nothing, so the requester is the victim.
    CHECK(b.Acquire("test.t", kMdlX, kLong).code() == Code::kDeadlock);
    CHECK(g.locks.stats().deadlocks == 1);
    CHECK(g.mdl.stats().deadlocks == 1);
    CHECK(b.Holds("test.t", kMdlS));  // its caller rolls it back
    b.ReleaseAll();
    CHECK(up.get().ok());
    CHECK(a.Holds("test.t", kMdlX));
    const std::vector<DeadlockInfo> reported = g.reported();
    REQUIRE(reported.size() == 1);
    const DeadlockInfo& d = reported[0];
    REQUIRE(d.cycle.size() == 2);
    CHECK(d.victim_index == 0);
    CHECK(d.cycle[0].mdl_owner == b.owner_id());
    CHECK(d.cycle[0].waits_for_metadata);
    CHECK(d.cycle[0].metadata_wait.mode == kMdlX);
    REQUIRE(d.cycle[1].metadata_holds.size() == 1);  // a's S blocks b's X
    CHECK(d.cycle[1].metadata_holds[0].mode == kMdlS);
    CHECK(d.cycle[1].metadata_holds[0].granted);
  }
}

TEST_CASE("mdl deadlock: readers queued behind each other's pending DDL", "[lock][mdl]") {
  Graph g;
  MdlContext a(&g.mdl), b(&g.mdl), c(&g.mdl), d(&g.mdl);
  REQUIRE(a.Acquire("test.t1", kMdlS, kNoWait).ok());
  REQUIRE(b.Acquire("test.t2", kMdlS, kNoWait).ok());
  auto c_x = std::async(std::launch::async, [&] { return c.Acquire("test.t1", kMdlX, kLong); });
  auto d_x = std::async(std::launch::async, [&] { return d.Acquire("test.t2", kMdlX, kLong); });
  Until([&] { return c.waiting() && d.waiting(); });
  // a's S on t2 queues behind d's pending X: a -> d -> b, no cycle yet.
  auto a_s = std::async(std::launch::async, [&] { return a.Acquire("test.t2", kMdlS, kLong); });
  Until([&] { return a.waiting(); });
  CHECK(g.locks.stats().deadlocks == 0);
  // b's S on t1 behind c's pending X closes b -> c -> a -> d -> b. The DDL owners (c, d) are
  // not chosen; a and b weigh the same, so the requester b is the victim, at once.
  CHECK(b.Acquire("test.t1", kMdlS, kLong).code() == Code::kDeadlock);
  CHECK(g.locks.stats().deadlocks == 1);
  const std::vector<DeadlockInfo> reported = g.reported();
  REQUIRE(reported.size() == 1);
  CHECK(reported[0].cycle.size() == 4);
  CHECK(reported[0].cycle[0].mdl_owner == b.owner_id());
  const DeadlockTrxInfo& c_info = reported[0].cycle[1];
  CHECK(c_info.mdl_owner == c.owner_id());
  REQUIRE(c_info.metadata_holds.size() == 1);  // the pending X that b's S queues behind
  CHECK_FALSE(c_info.metadata_holds[0].granted);
  b.ReleaseAll();
  CHECK(d_x.get().ok());
  d.ReleaseAll();
  CHECK(a_s.get().ok());
  a.ReleaseAll();
  CHECK(c_x.get().ok());
  c.ReleaseAll();
  CHECK(g.mdl.stats().waiting_now == 0);
}

// The mixed cycle: A holds S on t1, C (DDL, no lock state) waits for X on t1, B holds a record
// and waits for S on t1 behind C, A waits for B's record: A -> B -> C -> A.
struct MixedCycle {
  Graph g;
  MdlContext a{&g.mdl}, b{&g.mdl}, c{&g.mdl};
  std::unique_ptr<TrxLocks> ta = g.locks.Register(1, a.owner_id());
  std::unique_ptr<TrxLocks> tb = g.locks.Register(2, b.owner_id());
  std::future<Status> c_x, b_s;

  void BuildUpToLastEdge() {
    REQUIRE(a.Acquire("test.t1", kMdlS, kNoWait).ok());
    c_x = std::async(std::launch::async, [&] { return c.Acquire("test.t1", kMdlX, kLong); });
    Until([&] { return c.waiting(); });
    REQUIRE(Lock(g.locks, tb.get(), kPage, 10, kX) == Code::kOk);
    b_s = std::async(std::launch::async, [&] { return b.Acquire("test.t1", kMdlS, kLong); });
    Until([&] { return b.waiting(); });
    CHECK(g.locks.stats().deadlocks == 0);
    REQUIRE(Lock(g.locks, ta.get(), kPage, 10, kX) == Code::kLockWait);
  }
  ~MixedCycle() {
    g.locks.ReleaseAll(ta.get());
    g.locks.ReleaseAll(tb.get());
  }
};

TEST_CASE("mdl deadlock: a cycle through a record lock and metadata locks", "[lock][mdl]") {
  MixedCycle m;
  m.tb->set_weight(10);  // B wrote more: A, the lighter, is the victim (C is DDL)
  m.BuildUpToLastEdge();
  CHECK(m.g.locks.Wait(m.ta.get(), kLong).code() == Code::kDeadlock);
  CHECK(m.g.locks.stats().deadlocks == 1);
  const std::vector<DeadlockInfo> reported = m.g.reported();
  REQUIRE(reported.size() == 1);
  const DeadlockInfo& d = reported[0];
  REQUIRE(d.cycle.size() == 3);
  CHECK(d.victim == 1);
  CHECK(d.victim_index == 0);
  CHECK_FALSE(d.cycle[0].waits_for_metadata);  // A waits for a record
  CHECK(d.cycle[0].waiting_for.rec == RecordId{kPage, 10});
  CHECK(d.cycle[1].trx_id == 2);  // B holds it and waits for S on t1
  REQUIRE(d.cycle[1].holds.size() == 1);
  CHECK(d.cycle[1].waits_for_metadata);
  CHECK(d.cycle[1].metadata_wait.name == "test.t1");
  CHECK(d.cycle[2].trx_id == 0);  // C: metadata locks only
  CHECK(d.cycle[2].mdl_owner == m.c.owner_id());
  CHECK(d.cycle[2].metadata_wait.mode == kMdlX);
  REQUIRE(d.cycle[0].metadata_holds.size() == 1);  // A's S blocks C's X
  // A rolls back: its S goes, C gets X, then B its S.
  m.g.locks.ReleaseAll(m.ta.get());
  m.a.ReleaseAll();
  CHECK(m.c_x.get().ok());
  m.c.ReleaseAll();
  CHECK(m.b_s.get().ok());
}

TEST_CASE("mdl deadlock: a metadata-lock waiter can be the victim; DDL is not chosen",
          "[lock][mdl]") {
  MixedCycle m;
  m.ta->set_weight(10);  // A is heavier: B, waiting for a metadata lock, is the victim
  m.BuildUpToLastEdge();
  auto a_wait = std::async(std::launch::async, [&] { return m.g.locks.Wait(m.ta.get(), kLong); });
  CHECK(m.b_s.get().code() == Code::kDeadlock);  // at once, not after kLong
  CHECK(m.g.mdl.stats().deadlocks == 1);
  Until([&] { return m.g.reported().size() == 1; });  // A's wait found it, on another thread
  CHECK(m.g.reported()[0].victim == 2);
  // B rolls back: its record lock goes, A gets it.
  m.g.locks.ReleaseAll(m.tb.get());
  m.b.ReleaseAll();
  CHECK(a_wait.get().ok());
  CHECK(m.c.waiting());  // C still waits for A's S
  m.g.locks.ReleaseAll(m.ta.get());
  m.a.ReleaseAll();
  CHECK(m.c_x.get().ok());
  CHECK(m.g.locks.stats().deadlocks == 1);
}

TEST_CASE("mdl deadlock: a chain through metadata and record locks that is no cycle",
          "[lock][mdl]") {
  Graph g;
  MdlContext a(&g.mdl), b(&g.mdl), c(&g.mdl), d(&g.mdl);
  auto ta = g.locks.Register(1, a.owner_id());
  auto td = g.locks.Register(4, d.owner_id());
  REQUIRE(a.Acquire("test.t1", kMdlS, kNoWait).ok());
  REQUIRE(Lock(g.locks, td.get(), kPage, 10, kX) == Code::kOk);  // d runs, waits for nothing
  auto c_x = std::async(std::launch::async, [&] { return c.Acquire("test.t1", kMdlX, kLong); });
  Until([&] { return c.waiting(); });
  auto b_s = std::async(std::launch::async, [&] { return b.Acquire("test.t1", kMdlS, kLong); });
  Until([&] { return b.waiting(); });
  // b -> c -> a -> d: a's wait closes nothing, and times out.
  REQUIRE(Lock(g.locks, ta.get(), kPage, 10, kX) == Code::kLockWait);
  CHECK(g.locks.Wait(ta.get(), milliseconds(50)).code() == Code::kLockWaitTimeout);
  CHECK(g.locks.stats().deadlocks == 0);
  CHECK(g.mdl.stats().deadlocks == 0);
  CHECK(b.waiting());
  CHECK(c.waiting());
  g.locks.ReleaseAll(ta.get());
  g.locks.ReleaseAll(td.get());
  a.ReleaseAll();
  CHECK(c_x.get().ok());
  c.ReleaseAll();
  CHECK(b_s.get().ok());
  CHECK(g.reported().empty());
}

}  // namespace
}  // namespace minnow
