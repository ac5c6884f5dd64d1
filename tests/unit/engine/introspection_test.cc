// Lock and transaction introspection: data_locks, data_lock_waits and innodb_trx rows come from
// the live lock structs, with keyspace names and record keys read from the pages.
#include <algorithm>
#include <chrono>
#include <thread>

#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;

TEST_CASE("data_locks shows each lock with its keyspace, mode and key", "[engine][introspection]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  Keyspace ks = MustKeyspace(db.get(), "sample");
  auto s = Take(db->NewSession());
  {
    auto load = MustBegin(s.get());
    for (const char* k : {"a", "b", "c"}) REQUIRE_OK(load->Put(ks, k, "v"));
    REQUIRE_OK(load->Commit());
  }
  auto txn = MustBegin(s.get());
  std::string v;
  REQUIRE(*txn->Get(ks, "a", &v));  // a consistent read takes no lock
  REQUIRE(*txn->Get(ks, "b", &v, {.lock_mode = LockMode::kExclusive}));
  REQUIRE(!*txn->Get(ks, "bb", &v, {.lock_mode = LockMode::kShare}));  // a gap lock on "c"
  auto rows = Take(db->DataLocks());
  std::vector<std::string> seen;
  for (const DataLock& d : rows) {
    CHECK(d.trx_id == txn->lock_info().trx_id);
    CHECK(d.keyspace == "sample");
    CHECK(!d.waiting);
    seen.push_back(std::string(d.lock_type()) + " " + d.lock_mode + " " + d.key);
  }
  std::sort(seen.begin(), seen.end());
  // The IX taken for the exclusive read covers the share read's IS.
  CHECK(seen == std::vector<std::string>{"RECORD S,GAP c", "RECORD X,REC_NOT_GAP b", "TABLE IX "});
  TransactionLockInfo info = txn->lock_info();
  CHECK(info.lock_structs == 3);
  CHECK(info.row_locks == 2);
  CHECK(info.heap_bytes > 0);
  auto trxs = Take(db->Transactions());
  REQUIRE(trxs.size() == 1);
  CHECK(trxs[0].trx_id == info.trx_id);
  CHECK(trxs[0].locks.lock_structs == 3);
  CHECK(!trxs[0].lock_wait);
  REQUIRE_OK(txn->Commit());
  CHECK(Take(db->DataLocks()).empty());
  CHECK(Take(db->Transactions()).empty());
}

TEST_CASE("data_lock_waits names the waiting request and the lock it waits for",
          "[engine][introspection]") {
  auto opts = SmallOptions(":memory:");
  opts.lock_wait_timeout_ms = 5000;
  auto db = MustOpen(opts);
  Keyspace ks = MustKeyspace(db.get(), "t");
  auto s1 = Take(db->NewSession());
  auto s2 = Take(db->NewSession());
  {
    auto load = MustBegin(s1.get());
    REQUIRE_OK(load->Put(ks, "k", "0"));
    REQUIRE_OK(load->Commit());
  }
  auto holder = MustBegin(s1.get());
  REQUIRE_OK(holder->Put(ks, "k", "1"));  // an implicit lock: no struct yet
  auto waiter = MustBegin(s2.get());
  Status st;
  std::thread t([&] { st = waiter->Put(ks, "k", "2"); });
  std::vector<DataLockWait> waits;
  for (int i = 0; i < 500 && waits.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    waits = Take(db->DataLockWaits());
  }
  REQUIRE(waits.size() == 1);
  CHECK(waits[0].requesting.waiting);
  CHECK(waits[0].requesting.lock_mode == "X,REC_NOT_GAP");
  CHECK(waits[0].requesting.key == "k");
  CHECK(waits[0].blocking.trx_id == holder->lock_info().trx_id);  // converted from implicit
  CHECK(waits[0].blocking.lock_mode == "X,REC_NOT_GAP");
  CHECK(waits[0].blocking.key == "k");
  auto trxs = Take(db->Transactions());
  REQUIRE(trxs.size() == 2);
  auto w =
      std::find_if(trxs.begin(), trxs.end(), [](const TransactionInfo& i) { return i.lock_wait; });
  REQUIRE(w != trxs.end());
  CHECK(w->waiting_for.key == "k");
  CHECK(w->waiting_for.keyspace == "t");
  REQUIRE_OK(holder->Commit());
  t.join();
  REQUIRE_OK(st);
  REQUIRE_OK(waiter->Commit());
  CHECK(db->stats().row_lock_waits == 1);
}

}  // namespace
}  // namespace minnow
