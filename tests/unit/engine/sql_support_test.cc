// The engine API the SQL front end needs: the options the database was opened with, a
// per-transaction lock wait timeout, a transaction's id from any thread, statement savepoints,
// table locks (LOCK TABLES), interrupting a lock wait (KILL QUERY), the latest deadlock report
// and one keyspace's tree counts (SHOW TABLE STATUS).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "txn_test_util.h"

namespace minnow {
namespace {

using testing::Db;
using testing::Key;
using testing::kForUpdate;
using testing::kShareRead;
using testing::MustKeyspace;
using testing::Take;
using testing::TestOptions;

using Clock = std::chrono::steady_clock;

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

TEST_CASE("options() returns the options Open was given, normalized", "[sql_support]") {
  Options o = TestOptions(1234);
  o.purge_interval_ms = 0;
  o.deadlock_detect = false;
  Db d(o);
  const Options& got = d.db->options();
  CHECK(got.path == ":memory:");
  CHECK(got.lock_wait_timeout_ms == 1234);
  CHECK_FALSE(got.deadlock_detect);
  CHECK(got.buffer_pool_bytes == o.buffer_pool_bytes);
  CHECK(got.purge_interval_ms == 1);  // 0 means "as often as possible": 1 ms
}

TEST_CASE("a transaction's lock_wait_timeout_ms overrides the database's", "[sql_support]") {
  Db d(/*lock_wait_timeout_ms=*/60000);
  d.Load({{"a", "0"}});
  auto holder = d.Begin(0);
  REQUIRE_OK(holder->Put(d.ks, "a", "1"));

  auto waiter = Take(d.sessions[1]->Begin({.lock_wait_timeout_ms = 50}));
  const auto start = Clock::now();
  REQUIRE_CODE(waiter->Get(d.ks, "a", kForUpdate).status(), Code::kLockWaitTimeout);
  const int64_t waited = MillisSince(start);
  CHECK(waited >= 45);
  CHECK(waited < 5000);     // not the database's 60 s
  CHECK(waiter->active());  // a timeout ends only the statement
  CHECK(d.db->stats().lock_wait_timeouts == 1);

  // 0 means the database's timeout: this one is still waiting when the holder commits.
  auto patient = Take(d.sessions[2]->Begin({.lock_wait_timeout_ms = 0}));
  Status patient_st;
  std::thread th([&] { patient_st = patient->Get(d.ks, "a", kForUpdate).status(); });
  d.AwaitWaiters(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(d.db->stats().row_lock_current_waits == 1);
  REQUIRE_OK(holder->Commit());
  th.join();
  REQUIRE_OK(patient_st);
}

TEST_CASE("id() is 0 until the first write or lock, then the id, from any thread",
          "[sql_support]") {
  Db d;
  d.Load({{"a", "0"}});
  auto reader = d.Begin(0);
  REQUIRE(Take(reader->Get(d.ks, "a")) == "0");
  CHECK(reader->id() == 0);  // a consistent read needs no id

  auto writer = d.Begin(1);
  CHECK(writer->id() == 0);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> seen{0};
  std::thread watcher([&] {
    while (!stop.load()) {
      const uint64_t id = writer->id();
      if (id != 0) seen.store(id);
    }
  });
  REQUIRE_OK(writer->Put(d.ks, "b", "1"));
  const uint64_t id = writer->id();
  CHECK(id != 0);
  CHECK(writer->lock_info().trx_id == id);
  for (int i = 0; i < 10000 && seen.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  stop.store(true);
  watcher.join();
  CHECK(seen.load() == id);

  auto locker = d.Begin(2);
  REQUIRE(Take(locker->Get(d.ks, "a", kShareRead)) == "0");
  CHECK(locker->id() != 0);
  CHECK(locker->id() != id);
  REQUIRE_OK(writer->Commit());
  CHECK(writer->id() == id);  // kept after the end
}

}  // namespace
}  // namespace minnow
