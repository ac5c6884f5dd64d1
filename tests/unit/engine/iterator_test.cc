// Iterator: forward, backward, seeks, and what a stale iterator does.
#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::Key;
using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;

struct Fixture {
  Fixture() : db(MustOpen(SmallOptions(":memory:"))), ks(MustKeyspace(db.get(), "t")) {
    session = Take(db->NewSession());
    auto txn = MustBegin(session.get());
    for (uint64_t i = 10; i < 10 + 2 * kRows; i += 2) {  // even keys 10 .. 10+2*(kRows-1)
      REQUIRE_OK(txn->Put(ks, Key(i), "v" + std::to_string(i)));
    }
    REQUIRE_OK(txn->Commit());
  }
  static constexpr uint64_t kRows = 5000;  // several leaves
  std::unique_ptr<Database> db;
  Keyspace ks;
  std::unique_ptr<Session> session;
};

TEST_CASE("iterate forward and backward over every key", "[engine]") {
  Fixture f;
  auto txn = MustBegin(f.session.get());
  auto it = Take(txn->NewIterator(f.ks));
  CHECK_FALSE(it->Valid());
  REQUIRE_OK(it->SeekToFirst());
  uint64_t expect = 10, n = 0;
  while (it->Valid()) {
    REQUIRE(it->key() == Key(expect));
    REQUIRE(*it->value() == "v" + std::to_string(expect));
    REQUIRE_OK(it->Next());
    expect += 2;
    ++n;
  }
  CHECK(n == Fixture::kRows);
  REQUIRE_CODE(it->Next(), Code::kInvalidArgument);  // past the end

  REQUIRE_OK(it->SeekToLast());
  n = 0;
  while (it->Valid()) {
    expect -= 2;
    REQUIRE(it->key() == Key(expect));
    REQUIRE_OK(it->Prev());
    ++n;
  }
  CHECK(n == Fixture::kRows);
  CHECK(expect == 10);
}

TEST_CASE("seek positions on the first key >= target, SeekForPrev on the last <=", "[engine]") {
  Fixture f;
  auto txn = MustBegin(f.session.get());
  auto it = Take(txn->NewIterator(f.ks));
  REQUIRE_OK(it->Seek(Key(101)));  // odd: between 100 and 102
  REQUIRE(it->Valid());
  CHECK(it->key() == Key(102));
  REQUIRE_OK(it->Seek(Key(100)));
  CHECK(it->key() == Key(100));
  REQUIRE_OK(it->Prev());
  CHECK(it->key() == Key(98));
  REQUIRE_OK(it->SeekForPrev(Key(101)));
  CHECK(it->key() == Key(100));
  REQUIRE_OK(it->Seek(Key(0)));
  CHECK(it->key() == Key(10));
  REQUIRE_OK(it->SeekForPrev(Key(9)));
  CHECK_FALSE(it->Valid());
  REQUIRE_OK(it->Seek(Key(1'000'000)));
  CHECK_FALSE(it->Valid());
  CHECK(it->key().empty());
  REQUIRE_CODE(it->value().status(), Code::kInvalidArgument);
  REQUIRE_OK(it->SeekForPrev(Key(1'000'000)));
  CHECK(it->key() == Key(10 + 2 * (Fixture::kRows - 1)));
}

TEST_CASE("an iterator sees the transaction's own writes made behind and ahead", "[engine]") {
  Fixture f;
  auto txn = MustBegin(f.session.get());
  auto it = Take(txn->NewIterator(f.ks));
  REQUIRE_OK(it->Seek(Key(100)));
  REQUIRE_OK(txn->Put(f.ks, Key(101), "new"));
  REQUIRE_OK(txn->Erase(f.ks, Key(102)));
  REQUIRE_OK(it->Next());
  // The cursor is not a snapshot: it moves on in key order, at most once per key.
  CHECK(it->key() > Key(100));
  REQUIRE_OK(it->Seek(Key(100)));
  REQUIRE_OK(it->Next());
  CHECK(it->key() == Key(101));
  REQUIRE_OK(it->Next());
  CHECK(it->key() == Key(104));
}

TEST_CASE("a stale iterator returns errors", "[engine]") {
  Fixture f;
  auto txn = MustBegin(f.session.get());
  auto it = Take(txn->NewIterator(f.ks));
  REQUIRE_OK(it->SeekToFirst());
  REQUIRE_OK(txn->Commit());
  CHECK_FALSE(it->Valid());
  REQUIRE_CODE(it->Next(), Code::kClosed);
  REQUIRE_CODE(it->value().status(), Code::kClosed);

  MustKeyspace(f.db.get(), "doomed");
  Keyspace doomed = *f.db->OpenKeyspace("doomed");
  auto t2 = MustBegin(f.session.get());
  auto it2 = Take(t2->NewIterator(doomed));
  REQUIRE_OK(f.db->DropKeyspace("doomed"));
  REQUIRE_CODE(it2->SeekToFirst(), Code::kInvalidArgument);
}

// An overflow value is not in the cursor's leaf copy: it is read from the tree when asked for.
// A writer that changes the record between the copy and that read must not show through.
TEST_CASE("a consistent read's overflow value is the version its view sees", "[engine]") {
  Fixture f;
  const std::string before(20000, 'a'), after(20000, 'b');
  {
    auto setup = MustBegin(f.session.get());
    REQUIRE_OK(setup->Put(f.ks, Key(11), before));
    REQUIRE_OK(setup->Commit());
  }
  auto reader = Take(f.session->Begin({.isolation = IsolationLevel::kRepeatableRead}));
  auto it = Take(reader->NewIterator(f.ks));
  REQUIRE_OK(it->Seek(Key(11)));
  REQUIRE(it->key() == Key(11));

  auto other = Take(f.db->NewSession());
  auto writer = MustBegin(other.get());
  REQUIRE_OK(writer->Put(f.ks, Key(11), after));  // not committed yet
  CHECK(*it->value() == before);
  REQUIRE_OK(writer->Commit());
  CHECK(*it->value() == before);

  // A second scan of the same view copies the leaf after the commit: the version is older.
  auto again = Take(reader->NewIterator(f.ks));
  REQUIRE_OK(again->Seek(Key(11)));
  REQUIRE(again->key() == Key(11));
  CHECK(*again->value() == before);
  REQUIRE_OK(reader->Commit());

  auto fresh = MustBegin(f.session.get());
  auto latest = Take(fresh->NewIterator(f.ks));
  REQUIRE_OK(latest->Seek(Key(11)));
  CHECK(*latest->value() == after);
}

}  // namespace
}  // namespace minnow
