// Transaction::Insert's duplicate checks (InsertOptions): a primary key's duplicate locked S
// (or X) record-only, a unique secondary part checked under the leaf latch with no lock when
// no neighbour shares it, and InnoDB's locking scan when one does.
#include <algorithm>
#include <string>
#include <vector>

#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;

// The lock modes held in `db` on keyspace `name`'s records, "MODE key", sorted.
std::vector<std::string> RecordLocks(Database* db, const std::string& name) {
  std::vector<std::string> out;
  for (const DataLock& l : Take(db->DataLocks())) {
    if (l.is_table || l.keyspace != name) continue;
    out.push_back(l.lock_mode + " " + (l.supremum ? std::string("supremum") : l.key));
  }
  std::sort(out.begin(), out.end());
  return out;
}

InsertOptions Unique(size_t prefix, std::string* duplicate = nullptr,
                     LockMode lock = LockMode::kShare) {
  return InsertOptions{.duplicate_lock = lock, .unique_prefix = prefix, .duplicate = duplicate};
}

TEST_CASE("a unique part is refused while a live entry holds it", "[engine][unique]") {
  auto opts = SmallOptions(":memory:");
  opts.lock_wait_timeout_ms = 200;
  auto db = MustOpen(opts);
  Keyspace ix = MustKeyspace(db.get(), "ix");
  auto s1 = Take(db->NewSession());
  auto s2 = Take(db->NewSession());
  {
    auto t = MustBegin(s1.get());
    REQUIRE_OK(t->Insert(ix, "a|1", "", Unique(2)));
    REQUIRE_OK(t->Insert(ix, "c|1", "", Unique(2)));
    REQUIRE_OK(t->Commit());
  }
  auto t2 = MustBegin(s2.get());
  // No neighbour shares "b|": in without a record lock.
  REQUIRE_OK(t2->Insert(ix, "b|2", "", Unique(2)));
  CHECK(RecordLocks(db.get(), "ix").empty());
  // "a|" is held: 1062, the holder's key, and InnoDB's next-key S lock on it only.
  std::string duplicate;
  CHECK(t2->Insert(ix, "a|3", "", Unique(2, &duplicate)).code() == Code::kDuplicateKey);
  CHECK(duplicate == "a|1");
  CHECK(RecordLocks(db.get(), "ix") == std::vector<std::string>{"S a|1"});
  // The whole key as unique part (a primary key): S, record only; X when asked.
  CHECK(t2->Insert(ix, "c|1", "").code() == Code::kDuplicateKey);
  CHECK(RecordLocks(db.get(), "ix") == std::vector<std::string>{"S a|1", "S,REC_NOT_GAP c|1"});
  CHECK(t2->Insert(ix, "c|1", "", Unique(0, nullptr, LockMode::kExclusive)).code() ==
        Code::kDuplicateKey);
  CHECK(RecordLocks(db.get(), "ix") ==
        std::vector<std::string>{"S a|1", "S,REC_NOT_GAP c|1", "X,REC_NOT_GAP c|1"});
  REQUIRE_OK(t2->Rollback());
}

TEST_CASE("a delete-marked entry is passed over, locked, and an uncommitted one waited for",
          "[engine][unique]") {
  auto opts = SmallOptions(":memory:");
  opts.lock_wait_timeout_ms = 200;
  auto db = MustOpen(opts);
  Keyspace ix = MustKeyspace(db.get(), "ix");
  auto s1 = Take(db->NewSession());
  auto s2 = Take(db->NewSession());
  {
    auto t = MustBegin(s1.get());
    REQUIRE_OK(t->Insert(ix, "a|1", ""));
    REQUIRE_OK(t->Insert(ix, "b|1", ""));
    REQUIRE_OK(t->Commit());
  }
  // In one transaction: erase a|1, then insert a|2 (the part is free again). The scan locks
  // the delete-marked a|1 and the next entry b|1, next-key.
  auto t1 = MustBegin(s1.get());
  REQUIRE_OK(t1->Erase(ix, "a|1"));
  REQUIRE_OK(t1->Insert(ix, "a|2", "", Unique(2)));
  std::vector<std::string> held = RecordLocks(db.get(), "ix");
  CHECK(std::count(held.begin(), held.end(), "S b|1") == 1);
  CHECK(std::count(held.begin(), held.end(), "S a|1") == 1);
  // Another transaction inserting "a|" waits: its scan's S on a|1 meets t1's X.
  auto t2 = MustBegin(s2.get());
  CHECK(t2->Insert(ix, "a|3", "", Unique(2)).code() == Code::kLockWaitTimeout);
  REQUIRE_OK(t1->Rollback());
  // a|1 is live again after the rollback: 1062.
  std::string duplicate;
  CHECK(t2->Insert(ix, "a|3", "", Unique(2, &duplicate)).code() == Code::kDuplicateKey);
  CHECK(duplicate == "a|1");
  REQUIRE_OK(t2->Rollback());
  CHECK(t2->Insert(ix, "x", "", Unique(2)).code() == Code::kClosed);
  auto t3 = MustBegin(s2.get());
  CHECK(t3->Insert(ix, "a", "", Unique(2)).code() == Code::kInvalidArgument);
}

}  // namespace
}  // namespace minnow
