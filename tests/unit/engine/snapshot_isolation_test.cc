// Snapshot isolation (TransactionOptions::snapshot_isolation), engine level: a locking read
// (Get, an Iterator, Count), a Put or an Erase that meets a record whose latest version the
// transaction's read view does not see fails with kRecordChanged and rolls the transaction back;
// without the option, or with no view yet, or under READ COMMITTED, nothing changes.
#include <string>

#include "txn_test_util.h"

namespace minnow {
namespace {

using testing::Db;
using testing::kForUpdate;
using testing::kRC;
using testing::kRR;
using testing::kSER;
using testing::kShareRead;
using testing::Take;

std::unique_ptr<Transaction> BeginSnapshot(Db& d, int session, IsolationLevel level = kRR) {
  return Take(d.sessions[static_cast<size_t>(session)]->Begin(
      {.isolation = level, .snapshot_isolation = true}));
}

// Commits a change of `key` by another session after `t` has opened its view.
void ChangeBehind(Db& d, Transaction* t, const std::string& key, const std::string& value) {
  std::string v;
  (void)Take(t->Get(d.ks, "a", &v));  // a consistent read: the view
  auto other = d.Begin(1);
  REQUIRE_OK(other->Put(d.ks, key, value));
  REQUIRE_OK(other->Commit());
}

TEST_CASE("snapshot isolation: every locking access of a changed record fails", "[txn]") {
  Db d;
  d.Load({{"a", "1"}, {"b", "2"}, {"c", "3"}});
  std::string v;
  SECTION("Get for update") {
    auto t = BeginSnapshot(d, 0);
    ChangeBehind(d, t.get(), "b", "20");
    REQUIRE(t->Get(d.ks, "b", &v, kForUpdate).status().code() == Code::kRecordChanged);
    CHECK_FALSE(t->active());
  }
  SECTION("an Iterator in share mode, and Count") {
    auto t = BeginSnapshot(d, 0);
    ChangeBehind(d, t.get(), "c", "30");
    auto it = Take(t->NewIterator(d.ks, kShareRead));
    REQUIRE_OK(it->SeekToFirst());  // a and b: seen
    REQUIRE_OK(it->Next());
    REQUIRE(it->Next().code() == Code::kRecordChanged);
    CHECK_FALSE(t->active());
    auto u = BeginSnapshot(d, 0);
    ChangeBehind(d, u.get(), "c", "31");
    REQUIRE(u->Count(d.ks, "", "", kForUpdate).status().code() == Code::kRecordChanged);
    CHECK(d.db->DataLocks()->empty());  // rolled back: no lock left
  }
  SECTION("Put and Erase, and the rollback undoes the earlier writes") {
    auto t = BeginSnapshot(d, 0);
    REQUIRE_OK(t->Put(d.ks, "a", "100"));
    ChangeBehind(d, t.get(), "b", "21");
    REQUIRE_CODE(t->Put(d.ks, "b", "200"), Code::kRecordChanged);
    CHECK(d.Committed("a") == "1");
    auto u = BeginSnapshot(d, 0);
    ChangeBehind(d, u.get(), "c", "32");
    REQUIRE_CODE(u->Erase(d.ks, "c"), Code::kRecordChanged);
    CHECK(d.Committed("c") == "32");
  }
  SECTION("an insert and a delete since the view count too") {
    auto t = BeginSnapshot(d, 0);
    ChangeBehind(d, t.get(), "bb", "new");
    auto it = Take(t->NewIterator(d.ks, kForUpdate));
    REQUIRE_OK(it->Seek("b"));
    REQUIRE(it->Next().code() == Code::kRecordChanged);
    auto u = BeginSnapshot(d, 0);
    REQUIRE(Take(u->Get(d.ks, "a", &v)));
    auto other = d.Begin(1);
    REQUIRE_OK(other->Erase(d.ks, "bb"));
    REQUIRE_OK(other->Commit());
    REQUIRE(u->Get(d.ks, "bb", &v, kForUpdate).status().code() == Code::kRecordChanged);
  }
}

TEST_CASE("snapshot isolation: what is not checked", "[txn]") {
  Db d;
  d.Load({{"a", "1"}, {"b", "2"}});
  std::string v;
  SECTION("off: the locking read reads the latest") {
    auto t = d.Begin(0);
    ChangeBehind(d, t.get(), "b", "20");
    REQUIRE(Take(t->Get(d.ks, "b", &v, kForUpdate)));
    CHECK(v == "20");
  }
  SECTION("no read view yet") {
    auto t = BeginSnapshot(d, 0);
    auto other = d.Begin(1);
    REQUIRE_OK(other->Put(d.ks, "b", "21"));
    REQUIRE_OK(other->Commit());
    REQUIRE_OK(t->Put(d.ks, "b", "22"));
    REQUIRE_OK(t->Commit());
  }
  SECTION("READ COMMITTED") {
    auto t = BeginSnapshot(d, 0, kRC);
    ChangeBehind(d, t.get(), "b", "23");
    REQUIRE_OK(t->Put(d.ks, "b", "24"));
    REQUIRE_OK(t->Commit());
  }
  SECTION("SetSnapshotIsolation(false) turns it off for later calls") {
    auto t = BeginSnapshot(d, 0);
    ChangeBehind(d, t.get(), "b", "25");
    t->SetSnapshotIsolation(false);
    REQUIRE_OK(t->Put(d.ks, "b", "26"));
    REQUIRE_OK(t->Commit());
  }
}

TEST_CASE("snapshot isolation: SERIALIZABLE takes its view at the first locking read", "[txn]") {
  Db d;
  d.Load({{"a", "1"}, {"b", "2"}});
  std::string v;
  auto t = BeginSnapshot(d, 0, kSER);
  REQUIRE(Take(t->Get(d.ks, "a", &v)));  // a share-locking read under SERIALIZABLE
  auto other = d.Begin(1);
  REQUIRE_OK(other->Put(d.ks, "b", "20"));
  REQUIRE_OK(other->Commit());
  REQUIRE_CODE(t->Put(d.ks, "b", "21"), Code::kRecordChanged);
}

TEST_CASE("MetadataLocks lists held and pending metadata locks with their owners", "[txn]") {
  Db d;
  auto reader = d.Begin(0);
  REQUIRE_OK(reader->LockMetadata("test.t", LockMode::kShare, {"SHARED_READ", "TRANSACTION"}));
  auto rows = Take(d.db->MetadataLocks());
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].name == "test.t");
  CHECK(rows[0].type == "SHARED_READ");
  CHECK(rows[0].duration == "TRANSACTION");
  CHECK(std::string(rows[0].lock_status()) == "GRANTED");
  CHECK(rows[0].owner == reader->metadata_lock_owner());
  auto ddl = Take(d.sessions[1]->Begin({.metadata_lock_wait_timeout_ms = 1}));
  REQUIRE_CODE(ddl->LockMetadata("test.t", LockMode::kExclusive), Code::kLockWaitTimeout);
  REQUIRE_OK(reader->Commit());
  REQUIRE_OK(ddl->LockMetadata("test.t", LockMode::kExclusive));
  rows = Take(d.db->MetadataLocks());
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].type == "EXCLUSIVE");  // no label: by the mode
  CHECK(rows[0].owner == ddl->metadata_lock_owner());
}

}  // namespace
}  // namespace minnow
