// Secondary-index keyspaces that belong to a table (KeyspaceOptions::secondary_of), as InnoDB's
// indexes belong to theirs: one table lock per table (the owner's), implicit locks for their
// writes, no rows_modified for their undo; the ownership survives a reopen. Also: when a wait
// began (TransactionInfo::wait_started), the waiting request in row_locks, and
// Transaction::AssignReadView (WITH CONSISTENT SNAPSHOT).
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

// "TABLE IX t" / "RECORD X,REC_NOT_GAP t.k a|1", sorted.
std::vector<std::string> Locks(Database* db) {
  std::vector<std::string> out;
  for (const DataLock& d : Take(db->DataLocks())) {
    std::string row = std::string(d.lock_type()) + " " + d.lock_mode + " " + d.keyspace;
    if (!d.is_table) row += " " + (d.supremum ? std::string("supremum") : d.key);
    if (d.waiting) row += " WAITING";
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Polls until `db` shows a waiting transaction; returns it.
TransactionInfo AWaiter(Database* db) {
  for (int i = 0; i < 2000; ++i) {
    for (const TransactionInfo& t : Take(db->Transactions()))
      if (t.lock_wait) return t;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  FAIL("no transaction started waiting");
  return {};
}

struct Table {
  explicit Table(Database* db) {
    rows = MustKeyspace(db, "t");
    index = MustKeyspace(db, "t.k", {.secondary_of = "t"});
    auto s = Take(db->NewSession());
    auto load = MustBegin(s.get());
    for (const char* pk : {"1", "2", "3"}) {
      REQUIRE_OK(load->Put(rows, pk, std::string("v") + pk));
      REQUIRE_OK(load->Put(index, std::string("v") + pk + "|" + pk, ""));
    }
    REQUIRE_OK(load->Commit());
  }
  Keyspace rows, index;
};

TEST_CASE("a secondary keyspace needs a live table as its owner", "[engine][owned]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  MustKeyspace(db.get(), "t");
  REQUIRE_CODE(db->CreateKeyspace("t.k", {.secondary_of = "nope"}), Code::kInvalidArgument);
  REQUIRE_OK(db->CreateKeyspace("t.k", {.secondary_of = "t"}));
  REQUIRE_CODE(db->CreateKeyspace("t.k.k", {.secondary_of = "t.k"}), Code::kInvalidArgument);
  CHECK(Take(db->ListKeyspaces()) == std::vector<std::string>{"t", "t.k"});
}

TEST_CASE("a secondary keyspace's table locks are its owner's: one per table", "[engine][owned]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  Table t(db.get());
  auto s = Take(db->NewSession());
  auto txn = MustBegin(s.get());
  std::string v;
  REQUIRE(*txn->Get(t.index, "v2|2", &v, {.lock_mode = LockMode::kShare}));
  REQUIRE(*txn->Get(t.rows, "2", &v, {.lock_mode = LockMode::kShare}));
  CHECK(Locks(db.get()) == std::vector<std::string>{"RECORD S,REC_NOT_GAP t 2",
                                                    "RECORD S,REC_NOT_GAP t.k v2|2", "TABLE IS t"});
  CHECK(txn->lock_info().lock_structs == 3);
  // LockTable through the index locks the table.
  REQUIRE_OK(txn->LockTable(t.index, LockMode::kShare));
  CHECK(Locks(db.get()) == std::vector<std::string>{"RECORD S,REC_NOT_GAP t 2",
                                                    "RECORD S,REC_NOT_GAP t.k v2|2", "TABLE IS t",
                                                    "TABLE S t"});
  REQUIRE_OK(txn->Commit());
  CHECK(Locks(db.get()).empty());
}

TEST_CASE("dropping a secondary keyspace takes its owner's X table lock", "[engine][owned]") {
  auto opts = SmallOptions(":memory:");
  opts.lock_wait_timeout_ms = 100;
  auto db = MustOpen(opts);
  Table t(db.get());
  auto s = Take(db->NewSession());
  auto writer = MustBegin(s.get());
  REQUIRE_OK(writer->Put(t.rows, "9", "v9"));  // IX on t, nothing in t.k
  REQUIRE_CODE(db->DropKeyspace("t.k"), Code::kLockWaitTimeout);
  REQUIRE_OK(writer->Commit());
  REQUIRE_OK(db->DropKeyspace("t.k"));
  CHECK(Take(db->ListKeyspaces()) == std::vector<std::string>{"t"});
}

TEST_CASE("a secondary write locks implicitly and counts no row modified", "[engine][owned]") {
  auto opts = SmallOptions(":memory:");
  opts.lock_wait_timeout_ms = 5000;
  auto db = MustOpen(opts);
  Table t(db.get());
  auto s1 = Take(db->NewSession());
  auto s2 = Take(db->NewSession());
  // DELETE FROM t WHERE pk = 2: the row locked, its index entry delete-marked.
  auto del = MustBegin(s1.get());
  std::string v;
  REQUIRE(*del->Get(t.rows, "2", &v, {.lock_mode = LockMode::kExclusive}));
  REQUIRE_OK(del->Erase(t.rows, "2"));
  REQUIRE_OK(del->Erase(t.index, "v2|2"));
  CHECK(Locks(db.get()) == std::vector<std::string>{"RECORD X,REC_NOT_GAP t 2", "TABLE IX t"});
  CHECK(del->lock_info().lock_structs == 2);
  CHECK(del->lock_info().row_locks == 1);
  auto trxs = Take(db->Transactions());
  REQUIRE(trxs.size() == 1);
  CHECK(trxs[0].rows_modified == 1);  // the index's undo record does not count

  // A locking reader of the entry sees the implicit lock: the deleter gets it explicitly.
  auto reader = MustBegin(s2.get());
  Result<bool> read = Status::Internal("not read yet");
  std::thread th([&] { read = reader->Get(t.index, "v2|2", &v, {.lock_mode = LockMode::kShare}); });
  const auto before = std::chrono::system_clock::now();
  TransactionInfo w = AWaiter(db.get());
  CHECK(w.trx_id == reader->id());
  CHECK(w.locks.row_locks == 1);  // the waiting request counts
  CHECK(w.locks.lock_structs == 2);
  CHECK(w.wait_started <= std::chrono::system_clock::now());
  CHECK(w.wait_started > before - std::chrono::seconds(5));
  CHECK(w.waiting_for.keyspace == "t.k");
  CHECK(reader->lock_info().row_locks == 1);
  auto waits = Take(db->DataLockWaits());
  REQUIRE(waits.size() == 1);
  CHECK(waits[0].blocking.trx_id == del->id());
  CHECK(waits[0].blocking.keyspace == "t.k");
  CHECK(waits[0].blocking.lock_mode == "X,REC_NOT_GAP");
  CHECK(waits[0].blocking.key == "v2|2");
  REQUIRE_OK(del->Commit());
  th.join();
  REQUIRE(read.ok());
  CHECK(!*read);  // deleted
  REQUIRE_OK(reader->Commit());
}

TEST_CASE("a secondary write waits for a conflicting lock and then holds it", "[engine][owned]") {
  auto opts = SmallOptions(":memory:");
  opts.lock_wait_timeout_ms = 5000;
  auto db = MustOpen(opts);
  Table t(db.get());
  auto s1 = Take(db->NewSession());
  auto s2 = Take(db->NewSession());
  auto reader = MustBegin(s1.get());
  std::string v;
  REQUIRE(*reader->Get(t.index, "v3|3", &v, {.lock_mode = LockMode::kShare}));
  auto writer = MustBegin(s2.get());
  Status st;
  std::thread th([&] { st = writer->Erase(t.index, "v3|3"); });
  TransactionInfo w = AWaiter(db.get());
  CHECK(w.trx_id == writer->id());
  CHECK(w.waiting_for.lock_mode == "X,REC_NOT_GAP");
  CHECK(w.locks.row_locks == 1);
  REQUIRE_OK(reader->Commit());
  th.join();
  REQUIRE_OK(st);
  // Granted after a wait: an explicit lock, as InnoDB's lock_rec_lock(impl) leaves it.
  CHECK(Locks(db.get()) == std::vector<std::string>{"RECORD X,REC_NOT_GAP t.k v3|3", "TABLE IX t"});
  CHECK(Take(db->Transactions())[0].rows_modified == 0);

  // A timeout ends only the call; so does an interrupt.
  auto late = Take(s1->Begin({.lock_wait_timeout_ms = 50}));
  REQUIRE_CODE(late->Put(t.index, "v3|3", "x"), Code::kLockWaitTimeout);
  CHECK(late->active());
  late->Interrupt();
  REQUIRE_CODE(late->Erase(t.index, "v3|3"), Code::kAborted);
  REQUIRE_OK(late->Rollback());
  REQUIRE_OK(writer->Commit());
}

TEST_CASE("ownership is persisted; a reopened index locks its table", "[engine][owned]") {
  testing::TempDir dir;
  const Options opts = SmallOptions(dir.file());
  {
    auto db = MustOpen(opts);
    Table t(db.get());
    MustKeyspace(db.get(), "plain");
    REQUIRE_OK(db->Close());
  }
  auto db = MustOpen(opts);
  Keyspace index = Take(db->OpenKeyspace("t.k"));
  Keyspace plain = Take(db->OpenKeyspace("plain"));
  auto s = Take(db->NewSession());
  auto txn = MustBegin(s.get());
  REQUIRE_OK(txn->Erase(index, "v1|1"));
  REQUIRE_OK(txn->Put(plain, "a", "b"));
  CHECK(Locks(db.get()) == std::vector<std::string>{"TABLE IX plain", "TABLE IX t"});
  CHECK(Take(db->Transactions())[0].rows_modified == 1);  // plain's only
  REQUIRE_OK(txn->Commit());
  REQUIRE_OK(db->CheckIntegrity());
}

TEST_CASE("AssignReadView takes the snapshot at once under REPEATABLE READ", "[engine][owned]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  Keyspace ks = MustKeyspace(db.get(), "t");
  auto s1 = Take(db->NewSession());
  auto s2 = Take(db->NewSession());
  auto put = [&](const char* key) {
    auto w = MustBegin(s2.get());
    REQUIRE_OK(w->Put(ks, key, "v"));
    REQUIRE_OK(w->Commit());
  };
  std::string v;
  auto snap = MustBegin(s1.get());
  REQUIRE_OK(snap->AssignReadView());
  put("a");
  CHECK(!*snap->Get(ks, "a", &v));  // committed after the view
  CHECK(snap->id() == 0);           // no id, no lock
  REQUIRE_OK(snap->Commit());

  auto late = MustBegin(s1.get());  // the view at the first read
  put("b");
  CHECK(*late->Get(ks, "b", &v));
  REQUIRE_OK(late->Commit());

  auto rc = Take(s1->Begin({.isolation = IsolationLevel::kReadCommitted}));
  REQUIRE_OK(rc->AssignReadView());  // nothing: a view per statement
  put("c");
  CHECK(*rc->Get(ks, "c", &v));
  REQUIRE_OK(rc->Commit());
  REQUIRE_CODE(rc->AssignReadView(), Code::kClosed);
}

}  // namespace
}  // namespace minnow
