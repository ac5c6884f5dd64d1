// Transaction::LockMetadata: held until the transaction ends, waits bounded by the
// transaction's metadata lock timeout, ended by Interrupt(), counted in DatabaseStats; a cycle
// through metadata and row locks is a deadlock whose victim is rolled back.
// Outcomes and counts are asserted, never times.

#include <catch2/catch.hpp>
#include <future>
#include <thread>

#include "txn_test_util.h"

namespace minnow {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace)
using std::chrono::milliseconds;

constexpr LockMode kS = LockMode::kShare;
constexpr LockMode kX = LockMode::kExclusive;

// Polls until `txn` waits for a metadata lock (the test fails by its meson timeout otherwise).
void AwaitMdlWait(const Transaction& txn) {
  while (!txn.waiting_for_metadata_lock()) std::this_thread::sleep_for(milliseconds(1));
}

std::unique_ptr<Transaction> BeginWithTimeout(Db& d, int session, uint64_t mdl_timeout_ms) {
  TransactionOptions o;
  o.metadata_lock_wait_timeout_ms = mdl_timeout_ms;
  return Take(d.sessions[session]->Begin(o));
}

TEST_CASE("LockMetadata: exclusive waits until the shared holders commit or roll back",
          "[engine][mdl]") {
  Db d;
  auto r1 = d.Begin(0);
  auto r2 = d.Begin(1);
  REQUIRE_OK(r1->LockMetadata("test.t", kS));
  REQUIRE_OK(r2->LockMetadata("test.t", kS));
  CHECK(r1->id() == 0);  // a metadata lock needs no transaction id
  CHECK(d.db->stats().metadata_locks_held == 2);
  auto ddl = d.Begin(2);
  auto waiter = std::async(std::launch::async, [&] { return ddl->LockMetadata("test.t", kX); });
  AwaitMdlWait(*ddl);
  CHECK(d.db->stats().metadata_lock_current_waits == 1);
  REQUIRE_OK(r1->Commit());
  CHECK(ddl->waiting_for_metadata_lock());  // r2 still holds it
  REQUIRE_OK(r2->Rollback());
  REQUIRE_OK(waiter.get());
  CHECK_FALSE(ddl->waiting_for_metadata_lock());
  const DatabaseStats s = d.db->stats();
  CHECK(s.metadata_lock_waits == 1);
  CHECK(s.metadata_lock_current_waits == 0);
  CHECK(s.metadata_locks_held == 1);
  ddl.reset();  // the destructor rolls back and releases
  CHECK(d.db->stats().metadata_locks_held == 0);
}

TEST_CASE("LockMetadata: a pending exclusive request makes new shared requests wait",
          "[engine][mdl]") {
  Db d;
  auto holder = d.Begin(0);
  REQUIRE_OK(holder->LockMetadata("test.t", kS));
  auto ddl = d.Begin(1);
  auto x = std::async(std::launch::async, [&] { return ddl->LockMetadata("test.t", kX); });
  AwaitMdlWait(*ddl);
  auto reader = BeginWithTimeout(d, 2, 20);
  CHECK(reader->LockMetadata("test.t", kS).code() == Code::kLockWaitTimeout);
  CHECK(reader->active());  // only the call failed
  REQUIRE_OK(reader->LockMetadata("test.other", kS));
  REQUIRE_OK(holder->LockMetadata("test.t", kS));  // a holder asks again: granted
  REQUIRE_OK(holder->Commit());
  REQUIRE_OK(x.get());
  CHECK(d.db->stats().metadata_lock_timeouts == 1);
}

TEST_CASE("LockMetadata: the transaction's timeout, then Interrupt, end a wait", "[engine][mdl]") {
  Db d;
  auto holder = d.Begin(0);
  REQUIRE_OK(holder->LockMetadata("test.t", kS));
  auto ddl = BeginWithTimeout(d, 1, 30);
  const Status timed_out = ddl->LockMetadata("test.t", kX);
  CHECK(timed_out.code() == Code::kLockWaitTimeout);
  CHECK(timed_out.IsRetryable());
  CHECK(ddl->active());

  auto ddl2 = d.Begin(2);  // the database's default: a year
  auto waiter = std::async(std::launch::async, [&] { return ddl2->LockMetadata("test.t", kX); });
  AwaitMdlWait(*ddl2);
  ddl2->Interrupt();
  CHECK(waiter.get().code() == Code::kAborted);
  CHECK(ddl2->LockMetadata("test.t", kX).code() == Code::kAborted);  // until cleared
  ddl2->ClearInterrupt();
  REQUIRE_OK(holder->Commit());
  REQUIRE_OK(ddl2->LockMetadata("test.t", kX));
}

TEST_CASE("LockMetadata: the database option bounds waits; locks die with the transaction",
          "[engine][mdl]") {
  Options o = TestOptions(100);
  o.metadata_lock_wait_timeout_ms = 20;
  Db d(o);
  auto holder = d.Begin(0);
  REQUIRE_OK(holder->LockMetadata("test.t", kX));
  REQUIRE_OK(holder->LockMetadata("test.t", kS));  // covered by X
  auto other = d.Begin(1);
  CHECK(other->LockMetadata("test.t", kS).code() == Code::kLockWaitTimeout);
  // A transaction that also wrote: its commit releases the metadata lock with the row locks.
  REQUIRE_OK(holder->Put(d.ks, "k", "v"));
  REQUIRE_OK(holder->Commit());
  REQUIRE_OK(other->LockMetadata("test.t", kS));
  CHECK(other->LockMetadata("test.t", LockMode::kNone).code() == Code::kInvalidArgument);
  CHECK(other->LockMetadata("", kS).code() == Code::kInvalidArgument);
  REQUIRE_OK(other->Commit());
  CHECK(other->LockMetadata("test.t", kS).code() == Code::kClosed);
  CHECK(d.db->stats().metadata_locks_held == 0);
}

TEST_CASE("LockMetadata: a cycle through a metadata lock and a row lock is a deadlock",
          "[engine][mdl]") {
  Db d;
  d.Load({{"k", "0"}});
  auto a = d.Begin(0);
  auto b = d.Begin(1);
  auto ddl = d.Begin(2);
  REQUIRE_OK(a->LockMetadata("test.t1", kS));  // a reads t1
  auto ddl_x = std::async(std::launch::async, [&] { return ddl->LockMetadata("test.t1", kX); });
  AwaitMdlWait(*ddl);
  REQUIRE_OK(b->Put(d.ks, "k", "b"));  // b holds the row, then queues behind the DDL
  auto b_s = std::async(std::launch::async, [&] { return b->LockMetadata("test.t1", kS); });
  AwaitMdlWait(*b);
  // a's write waits for b: a -> b -> ddl -> a. a has written nothing: it is the victim.
  const Status st = a->Put(d.ks, "k", "a");
  CHECK(st.code() == Code::kDeadlock);
  CHECK_FALSE(a->active());  // rolled back whole, its metadata lock released
  REQUIRE_OK(ddl_x.get());
  REQUIRE_OK(ddl->Commit());
  REQUIRE_OK(b_s.get());
  REQUIRE_OK(b->Commit());
  CHECK(d.Committed("k") == "b");
  const DatabaseStats s = d.db->stats();
  CHECK(s.deadlocks == 1);
  CHECK(s.metadata_locks_held == 0);
  const std::optional<DeadlockReport> r = d.db->LatestDeadlock();
  REQUIRE(r.has_value());
  REQUIRE(r->cycle.size() == 3);
  CHECK(r->victim_index == 0);
  CHECK_FALSE(r->cycle[0].waits_for_metadata);
  CHECK(r->cycle[0].waiting_for.keyspace == "t");
  CHECK(r->cycle[1].waits_for_metadata);
  CHECK(r->cycle[1].metadata_wait.name == "test.t1");
  CHECK(r->cycle[1].metadata_wait.pending);
  REQUIRE(r->cycle[2].metadata_holds.size() == 1);  // the DDL's pending X that b queues behind
  CHECK(r->cycle[2].trx_id == 0);
  CHECK(r->cycle[2].metadata_holds[0].mode == kX);
  REQUIRE(r->cycle[0].metadata_holds.size() == 1);  // a's S that the DDL waits for
  CHECK(r->cycle[0].metadata_holds[0].type == "SHARED");
}

}  // namespace
}  // namespace minnow
