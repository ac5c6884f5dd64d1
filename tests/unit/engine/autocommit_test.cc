// Autocommit: Session's Get/Put/Insert/Erase are transactions of their own.
#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;

TEST_CASE("autocommit statements commit at once, and a failing one changes nothing",
          "[engine][autocommit]") {
  auto opts = SmallOptions(":memory:");
  opts.lock_wait_timeout_ms = 100;
  auto db = MustOpen(opts);
  Keyspace ks = MustKeyspace(db.get(), "t");
  auto s1 = Take(db->NewSession());
  auto s2 = Take(db->NewSession());
  REQUIRE_OK(s1->Put(ks, "a", "1"));
  REQUIRE_OK(s1->Insert(ks, "b", "2"));
  REQUIRE_CODE(s1->Insert(ks, "b", "3"), Code::kDuplicateKey);
  std::string v;
  CHECK(*s2->Get(ks, "a", &v));  // committed: another session sees it
  CHECK(v == "1");
  CHECK(db->stats().active_transactions == 0);
  CHECK(db->stats().lock_structs == 0);  // each statement's locks went with its commit

  // A statement that times out on a lock is rolled back and leaves nothing behind.
  auto holder = MustBegin(s2.get());
  REQUIRE_OK(holder->Put(ks, "a", "held"));
  REQUIRE_CODE(s1->Erase(ks, "a"), Code::kLockWaitTimeout);
  REQUIRE_OK(holder->Rollback());
  CHECK(*s1->Get(ks, "a", &v));
  CHECK(v == "1");
  REQUIRE_OK(s1->Erase(ks, "a"));
  CHECK(!*s2->Get(ks, "a", &v));
  REQUIRE_CODE(s1->Erase(ks, "a"), Code::kNotFound);
  CHECK(db->stats().active_transactions == 0);
}

}  // namespace
}  // namespace minnow
