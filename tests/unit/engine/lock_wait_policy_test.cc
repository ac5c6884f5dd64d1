// ReadOptions::wait (NOWAIT, SKIP LOCKED) and TransactionOptions::autocommit under
// SERIALIZABLE, engine level. Blocking is shown by counts (row_lock_waits, kLockWaitTimeout
// from a short lock_wait_timeout_ms), never by timings.
#include <string>
#include <vector>

#include "txn_test_util.h"

namespace minnow {
namespace {

using testing::Db;
using testing::kForUpdate;
using testing::kSER;
using testing::Take;

constexpr ReadOptions kNoWaitUpdate{.lock_mode = LockMode::kExclusive, .wait = LockWait::kNoWait};
constexpr ReadOptions kSkipUpdate{.lock_mode = LockMode::kExclusive, .wait = LockWait::kSkipLocked};

// The keys an iterator shows from the start, in order.
std::vector<std::string> Scan(Transaction* t, const Keyspace& ks, const ReadOptions& ro,
                              Status* end) {
  std::vector<std::string> keys;
  auto it = Take(t->NewIterator(ks, ro));
  *end = it->SeekToFirst();
  while (end->ok() && it->Valid()) {
    keys.emplace_back(it->key());
    *end = it->Next();
  }
  return keys;
}

void LoadFive(Db& d) { d.Load({{"k1", "1"}, {"k2", "2"}, {"k3", "3"}, {"k4", "4"}, {"k5", "5"}}); }

TEST_CASE("NOWAIT fails at once where a locking read would wait, and enqueues nothing",
          "[lock_wait_policy]") {
  Db d;
  LoadFive(d);
  auto holder = d.Begin(0);
  REQUIRE(Take(holder->Get(d.ks, "k3", kForUpdate)) == "3");
  auto t = d.Begin(1);
  CHECK(t->Get(d.ks, "k3", kNoWaitUpdate).status().code() == Code::kLockNoWait);
  Status end;
  const std::vector<std::string> seen = Scan(t.get(), d.ks, kNoWaitUpdate, &end);
  CHECK(end.code() == Code::kLockNoWait);
  CHECK(seen == std::vector<std::string>{"k1", "k2"});  // locked as reached, up to the conflict
  CHECK(t->Count(d.ks, "", "", kNoWaitUpdate).status().code() == Code::kLockNoWait);
  CHECK(d.db->stats().row_lock_waits == 0);
  CHECK(t->active());  // only the call failed
  // A record nobody holds is locked as usual.
  CHECK(Take(t->Get(d.ks, "k4", kNoWaitUpdate)) == "4");
  REQUIRE_OK(holder->Commit());
  CHECK(Take(t->Get(d.ks, "k3", kNoWaitUpdate)) == "3");
}

TEST_CASE("SKIP LOCKED passes over the records others hold and locks only what it reaches",
          "[lock_wait_policy]") {
  Db d;
  LoadFive(d);
  auto holder = d.Begin(0);
  REQUIRE(Take(holder->Get(d.ks, "k2", kForUpdate)) == "2");
  REQUIRE_OK(holder->Put(d.ks, "k4", "40"));  // an implicit lock, made explicit when met
  auto t = d.Begin(1);
  Status end;
  CHECK(Scan(t.get(), d.ks, kSkipUpdate, &end) == std::vector<std::string>{"k1", "k3", "k5"});
  REQUIRE_OK(end);
  std::string v;
  CHECK(!Take(t->Get(d.ks, "k2", &v, kSkipUpdate)));
  CHECK(Take(t->Count(d.ks, "", "", kSkipUpdate)) == 3);
  CHECK(d.db->stats().row_lock_waits == 0);
  // A skipped record is not locked by the skipper: the holder's locks are all it has.
  REQUIRE_OK(t->Rollback());

  // A queue consumer: the first free record only; the records after it stay free.
  auto c1 = d.Begin(1);
  auto it = Take(c1->NewIterator(d.ks, kSkipUpdate));
  REQUIRE_OK(it->SeekToFirst());
  REQUIRE(it->Valid());
  CHECK(it->key() == "k1");
  auto c2 = d.Begin(2);
  auto it2 = Take(c2->NewIterator(d.ks, kSkipUpdate));
  REQUIRE_OK(it2->SeekToFirst());
  REQUIRE(it2->Valid());
  CHECK(it2->key() == "k3");
  CHECK(d.db->stats().row_lock_waits == 0);
}

TEST_CASE("SERIALIZABLE: an autocommit transaction's plain reads stay consistent",
          "[lock_wait_policy]") {
  Db d;
  LoadFive(d);
  auto writer = d.Begin(0);
  REQUIRE_OK(writer->Put(d.ks, "k1", "10"));
  // In a transaction: the plain read is a share read, which waits for the writer.
  auto in_txn = d.Begin(1, kSER);
  CHECK(in_txn->Get(d.ks, "k1").status().code() == Code::kLockWaitTimeout);
  REQUIRE_OK(in_txn->Rollback());
  // An autocommit one: the snapshot's version, no wait, no lock.
  auto single = Take(d.sessions[1]->Begin({.isolation = kSER, .autocommit = true}));
  CHECK(Take(single->Get(d.ks, "k1")) == "1");
  CHECK(single->lock_info().row_locks == 0);
  CHECK(single->id() == 0);
  // Its locking reads lock as ever.
  CHECK(single->Get(d.ks, "k1", kForUpdate).status().code() == Code::kLockWaitTimeout);
  REQUIRE_OK(single->Commit());
  // Session's autocommit calls are autocommit transactions.
  d.sessions[2]->set_autocommit_options({.isolation = kSER});
  std::string v;
  REQUIRE(Take(d.sessions[2]->Get(d.ks, "k1", &v)));
  CHECK(v == "1");
  REQUIRE_OK(writer->Commit());
}

}  // namespace
}  // namespace minnow
