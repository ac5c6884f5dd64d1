// Transactions: get / put / insert / erase, rollback, commit across reopen, argument errors,
// record locks and their timeout, dropping a locked keyspace, BulkInsert.
#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::Key;
using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;
using testing::TempDir;

// Reads the whole keyspace through an iterator.
std::map<std::string, std::string> Dump(Transaction* txn, const Keyspace& ks) {
  std::map<std::string, std::string> out;
  auto it = txn->NewIterator(ks);
  REQUIRE(it.ok());
  REQUIRE_OK((*it)->SeekToFirst());
  while ((*it)->Valid()) {
    auto v = (*it)->value();
    REQUIRE(v.ok());
    out.emplace(std::string((*it)->key()), std::string(*v));
    REQUIRE_OK((*it)->Next());
  }
  return out;
}

struct Fixture {
  Fixture() : db(MustOpen(SmallOptions(":memory:"))), ks(MustKeyspace(db.get(), "t")) {
    session = Take(db->NewSession());
  }
  std::unique_ptr<Database> db;
  Keyspace ks;
  std::unique_ptr<Session> session;
};

TEST_CASE("get, put, insert, erase", "[engine]") {
  Fixture f;
  auto txn = MustBegin(f.session.get());
  CHECK(txn->Get(f.ks, "a").status().IsNotFound());
  std::string value = "stale";
  auto found = txn->Get(f.ks, "a", &value);
  REQUIRE(found.ok());
  CHECK_FALSE(*found);

  REQUIRE_OK(txn->Put(f.ks, "a", "1"));
  CHECK(*txn->Get(f.ks, "a") == "1");
  REQUIRE_OK(txn->Put(f.ks, "a", "2"));  // overwrite
  REQUIRE(*txn->Get(f.ks, "a", &value));
  CHECK(value == "2");

  REQUIRE_CODE(txn->Insert(f.ks, "a", "3"), Code::kDuplicateKey);
  CHECK(*txn->Get(f.ks, "a") == "2");  // unchanged
  REQUIRE_OK(txn->Insert(f.ks, "b", "x"));

  REQUIRE_CODE(txn->Erase(f.ks, "zz"), Code::kNotFound);
  REQUIRE_OK(txn->Erase(f.ks, "a"));
  CHECK(txn->Get(f.ks, "a").status().IsNotFound());

  REQUIRE_OK(txn->Put(f.ks, "", "empty key is a key"));
  CHECK(*txn->Get(f.ks, "") == "empty key is a key");
  REQUIRE_OK(txn->Put(f.ks, "big", std::string(1 << 20, 'B')));  // an overflow value
  CHECK(txn->Get(f.ks, "big")->size() == (1u << 20));
  REQUIRE_OK(txn->Commit());
  REQUIRE_CODE(txn->Put(f.ks, "c", "1"), Code::kClosed);
  REQUIRE_CODE(txn->Commit(), Code::kClosed);
  REQUIRE_CODE(txn->Rollback(), Code::kClosed);
  REQUIRE_OK(f.db->CheckIntegrity());
}

TEST_CASE("oversize keys and values are refused and change nothing", "[engine]") {
  Fixture f;
  auto txn = MustBegin(f.session.get());
  const std::string long_key(kMaxKeyBytes + 1, 'k');
  const std::string max_key(kMaxKeyBytes, 'k');
  REQUIRE_CODE(txn->Put(f.ks, long_key, "v"), Code::kInvalidArgument);
  REQUIRE_CODE(txn->Insert(f.ks, long_key, "v"), Code::kInvalidArgument);
  REQUIRE_CODE(txn->Erase(f.ks, long_key), Code::kInvalidArgument);
  REQUIRE_CODE(txn->Get(f.ks, long_key).status(), Code::kInvalidArgument);
  const std::string huge(kMaxValueBytes + 1, 'v');
  REQUIRE_CODE(txn->Put(f.ks, "k", huge), Code::kInvalidArgument);
  REQUIRE_CODE(txn->Insert(f.ks, "k", huge), Code::kInvalidArgument);
  CHECK(Dump(txn.get(), f.ks).empty());
  REQUIRE_OK(txn->Put(f.ks, max_key, "v"));  // the limit itself is fine
  CHECK(*txn->Get(f.ks, max_key) == "v");
  REQUIRE_OK(txn->Commit());
}

TEST_CASE("rollback restores inserts, overwrites and erases", "[engine]") {
  Fixture f;
  {
    auto txn = MustBegin(f.session.get());
    REQUIRE_OK(txn->Put(f.ks, "keep", "1"));
    REQUIRE_OK(txn->Put(f.ks, "change", "old"));
    REQUIRE_OK(txn->Put(f.ks, "gone", "here"));
    REQUIRE_OK(txn->Commit());
  }
  const auto before = Dump(MustBegin(f.session.get()).get(), f.ks);
  {
    auto txn = MustBegin(f.session.get());
    REQUIRE_OK(txn->Put(f.ks, "change", "new"));
    REQUIRE_OK(txn->Put(f.ks, "change", "newer"));
    REQUIRE_OK(txn->Erase(f.ks, "gone"));
    REQUIRE_OK(txn->Put(f.ks, "gone", "back again"));
    REQUIRE_OK(txn->Erase(f.ks, "gone"));
    REQUIRE_OK(txn->Insert(f.ks, "added", "x"));
    REQUIRE_OK(txn->Put(f.ks, "big", std::string(300000, 'b')));
    REQUIRE_OK(txn->Rollback());
    CHECK_FALSE(txn->active());
  }
  CHECK(Dump(MustBegin(f.session.get()).get(), f.ks) == before);
  {
    auto txn = MustBegin(f.session.get());  // the destructor rolls back too
    REQUIRE_OK(txn->Erase(f.ks, "keep"));
  }
  CHECK(Dump(MustBegin(f.session.get()).get(), f.ks) == before);
  CHECK(f.db->stats().rollbacks == 5);  // the Dumps' read-only transactions end by rollback too
  REQUIRE_OK(f.db->CheckIntegrity());
}

TEST_CASE("rollback of many changes that split and merge pages", "[engine]") {
  Fixture f;
  std::map<std::string, std::string> model;
  std::mt19937 rng(7);
  {
    auto txn = MustBegin(f.session.get());
    for (int i = 0; i < 3000; ++i) {
      std::string v(rng() % 400, static_cast<char>('a' + i % 26));
      REQUIRE_OK(txn->Put(f.ks, Key(i * 2), v));
      model[Key(i * 2)] = v;
    }
    REQUIRE_OK(txn->Commit());
  }
  std::vector<KeyspaceCheck> before;
  REQUIRE_OK(f.db->CheckIntegrity(&before));
  {
    auto txn = MustBegin(f.session.get());
    for (int i = 0; i < 20000; ++i) {
      const uint64_t k = rng() % 8000;
      switch (rng() % 3) {
        case 0:
          REQUIRE_OK(txn->Put(f.ks, Key(k), std::string(rng() % 900, 'x')));
          break;
        case 1:
          (void)txn->Erase(f.ks, Key(k));
          break;
        default:
          (void)txn->Insert(f.ks, Key(k), std::string(rng() % 50, 'y'));
          break;
      }
    }
    REQUIRE_OK(txn->Rollback());
  }
  CHECK(Dump(MustBegin(f.session.get()).get(), f.ks) == model);
  std::vector<KeyspaceCheck> after;
  REQUIRE_OK(f.db->CheckIntegrity(&after));
  CHECK(after[1].records == model.size());
}

TEST_CASE("committed data survives close and reopen; uncommitted does not", "[engine]") {
  TempDir dir;
  {
    auto db = MustOpen(SmallOptions(dir.file()));
    Keyspace ks = MustKeyspace(db.get(), "t");
    Keyspace lz = MustKeyspace(db.get(), "lz", {.compression = Compression::kLz4});
    auto s = Take(db->NewSession());
    auto txn = MustBegin(s.get());
    for (int i = 0; i < 5000; ++i) {
      REQUIRE_OK(txn->Put(ks, Key(i), "value " + std::to_string(i)));
      REQUIRE_OK(txn->Put(lz, Key(i), std::string(200, 'z')));
    }
    REQUIRE_OK(txn->Commit());
    auto loser = MustBegin(s.get());
    REQUIRE_OK(loser->Put(ks, Key(99999), "never"));
    REQUIRE_OK(loser->Erase(ks, Key(0)));
    loser.reset();  // rolled back
    REQUIRE_OK(db->Close());
  }
  auto db = MustOpen(SmallOptions(dir.file()));
  REQUIRE_OK(db->CheckIntegrity());
  Keyspace ks = MustKeyspace(db.get(), "t");
  Keyspace lz = MustKeyspace(db.get(), "lz");
  auto s = Take(db->NewSession());
  auto txn = MustBegin(s.get());
  auto all = Dump(txn.get(), ks);
  REQUIRE(all.size() == 5000);
  CHECK(all[Key(0)] == "value 0");
  CHECK(all[Key(4999)] == "value 4999");
  CHECK(Dump(txn.get(), lz).size() == 5000);
}

TEST_CASE("a writer waits for another's record lock and times out", "[engine]") {
  auto opts = SmallOptions(":memory:");
  opts.lock_wait_timeout_ms = 100;
  auto db = MustOpen(opts);
  Keyspace ks = MustKeyspace(db.get(), "t");
  auto s1 = Take(db->NewSession());
  auto s2 = Take(db->NewSession());
  auto t1 = MustBegin(s1.get());
  auto t2 = MustBegin(s2.get());
  REQUIRE_OK(t1->Put(ks, "a", "1"));

  // Plain reads do not wait, and do not see what is not committed.
  CHECK(t2->Get(ks, "a").status().IsNotFound());
  // Other records are free.
  REQUIRE_OK(t2->Put(ks, "b", "2"));
  const auto start = std::chrono::steady_clock::now();
  Status st = t2->Put(ks, "a", "2");
  const auto waited = std::chrono::steady_clock::now() - start;
  REQUIRE_CODE(st, Code::kLockWaitTimeout);
  CHECK(st.IsRetryable());
  CHECK(waited >= std::chrono::milliseconds(90));
  // A locking read waits as a write does.
  REQUIRE_CODE(t2->Get(ks, "a", {.lock_mode = LockMode::kShare}).status(), Code::kLockWaitTimeout);
  // The timeout ended the statement only: t2 is still usable, its earlier write kept.
  CHECK(t2->active());
  CHECK(*t2->Get(ks, "b") == "2");
  CHECK(db->stats().lock_wait_timeouts == 2);

  // Once t1 commits, the waiting writer gets the lock.
  Status commit_st;
  std::thread committer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    commit_st = t1->Commit();
  });
  Status st2 = t2->Put(ks, "a", "2");
  committer.join();
  REQUIRE_OK(commit_st);
  REQUIRE_OK(st2);
  REQUIRE_OK(t2->Commit());
  auto t3 = MustBegin(s1.get());
  CHECK(*t3->Get(ks, "a") == "2");
  CHECK(*t3->Get(ks, "b") == "2");
}

TEST_CASE("drop waits for the transactions that locked the keyspace", "[engine]") {
  auto opts = SmallOptions(":memory:");
  opts.lock_wait_timeout_ms = 50;
  auto db = MustOpen(opts);
  Keyspace ks = MustKeyspace(db.get(), "t");
  auto s = Take(db->NewSession());
  auto t = MustBegin(s.get());
  REQUIRE_OK(t->Put(ks, "a", "1"));
  REQUIRE_CODE(db->DropKeyspace("t"), Code::kLockWaitTimeout);
  REQUIRE_OK(t->Commit());
  REQUIRE_OK(db->DropKeyspace("t"));
}

TEST_CASE("a drop waiting for its table lock blocks neither the catalog nor the writer",
          "[engine]") {
  auto opts = SmallOptions(":memory:");
  opts.lock_wait_timeout_ms = 5000;
  auto db = MustOpen(opts);
  Keyspace ks = MustKeyspace(db.get(), "t");
  MustKeyspace(db.get(), "other");
  auto s = Take(db->NewSession());
  auto writer = MustBegin(s.get());
  REQUIRE_OK(writer->Put(ks, "a", "1"));
  Status drop_st;
  std::thread dropper([&] { drop_st = db->DropKeyspace("t"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the drop is waiting now
  const auto start = std::chrono::steady_clock::now();
  REQUIRE_OK(db->OpenKeyspace("other").status());  // the catalog latch is free
  REQUIRE(db->ListKeyspaces().ok());
  REQUIRE_OK(writer->Put(ks, "b", "2"));  // the writer goes on and finishes
  REQUIRE_OK(writer->Commit());
  CHECK(std::chrono::steady_clock::now() - start <
        std::chrono::milliseconds(4000));  // not the 5 s wait
  dropper.join();
  REQUIRE_OK(drop_st);
  CHECK(db->OpenKeyspace("t").status().IsNotFound());
  REQUIRE_OK(db->CheckIntegrity());
}

TEST_CASE("BulkInsert builds an empty keyspace and inserts into a full one", "[engine]") {
  Fixture f;
  auto gen = [](uint64_t from, uint64_t to, uint64_t step) {
    return [=, i = from, key = std::string()](std::string_view* k, std::string_view* v) mutable {
      if (i >= to) return false;
      key = Key(i);
      i += step;
      *k = key;
      *v = "bulk value";
      return true;
    };
  };
  {
    auto txn = MustBegin(f.session.get());
    REQUIRE_OK(txn->BulkInsert(f.ks, gen(0, 20000, 2)));
    REQUIRE_OK(txn->Commit());
  }
  std::vector<KeyspaceCheck> r;
  REQUIRE_OK(f.db->CheckIntegrity(&r));
  CHECK(r[1].records == 10000);
  {
    auto txn = MustBegin(f.session.get());
    REQUIRE_OK(txn->BulkInsert(f.ks, gen(1, 2001, 2)));  // into a non-empty tree
    CHECK(Dump(txn.get(), f.ks).size() == 11000);
    // A duplicate half-way undoes the whole call, not the transaction's earlier work.
    REQUIRE_CODE(txn->BulkInsert(f.ks, gen(3001, 5001, 1)), Code::kDuplicateKey);
    CHECK(Dump(txn.get(), f.ks).size() == 11000);
    REQUIRE_OK(txn->Commit());
  }
  auto other = MustKeyspace(f.db.get(), "other");
  {
    auto txn = MustBegin(f.session.get());
    // Out of order: refused, and the partly built tree is emptied again.
    int n = 0;
    std::string key;
    REQUIRE_CODE(txn->BulkInsert(other,
                                 [&](std::string_view* k, std::string_view* v) {
                                   if (n == 3000) return false;
                                   key = Key(n == 2500 ? 1 : n);
                                   ++n;
                                   *k = key;
                                   *v = "v";
                                   return true;
                                 }),
                 Code::kInvalidArgument);
    CHECK(Dump(txn.get(), other).empty());
    // A bulk build rolled back with the transaction leaves the keyspace empty.
    REQUIRE_OK(txn->BulkInsert(other, gen(0, 5000, 1)));
    CHECK(Dump(txn.get(), other).size() == 5000);
    REQUIRE_OK(txn->Rollback());
  }
  CHECK(Dump(MustBegin(f.session.get()).get(), other).empty());
  REQUIRE_OK(f.db->CheckIntegrity());
}

}  // namespace
}  // namespace minnow
