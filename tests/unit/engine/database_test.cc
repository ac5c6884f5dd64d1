// Database: open / create / reopen, keyspace lifecycle and names, use after close.
#include <filesystem>

#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;
using testing::TempDir;

TEST_CASE("open creates a file, reopen finds its keyspaces", "[engine]") {
  TempDir dir;
  const std::string path = dir.file();
  {
    auto db = MustOpen(SmallOptions(path));
    REQUIRE(std::filesystem::exists(path));
    REQUIRE_OK(db->CreateKeyspace("alpha"));
    REQUIRE_OK(db->CreateKeyspace("beta", {.compression = Compression::kLz4}));
    REQUIRE_OK(db->Close());
  }
  auto db = MustOpen(SmallOptions(path));
  auto names = db->ListKeyspaces();
  REQUIRE(names.ok());
  CHECK(*names == std::vector<std::string>{"alpha", "beta"});
  REQUIRE_OK(db->CheckIntegrity());
}

TEST_CASE("open options: missing file, existing file, empty path", "[engine]") {
  TempDir dir;
  Options o = SmallOptions(dir.file());
  o.create_if_missing = false;
  REQUIRE_CODE(Database::Open(o).status(), Code::kNotFound);
  CHECK_FALSE(std::filesystem::exists(dir.file()));
  o.create_if_missing = true;
  MustOpen(o).reset();
  o.error_if_exists = true;
  REQUIRE_CODE(Database::Open(o).status(), Code::kInvalidArgument);
  REQUIRE_CODE(Database::Open(Options{}).status(), Code::kInvalidArgument);
}

TEST_CASE("a file is open in one Database at a time", "[engine]") {
  TempDir dir;
  auto db = MustOpen(SmallOptions(dir.file()));
  REQUIRE_CODE(Database::Open(SmallOptions(dir.file())).status(), Code::kBusy);
  REQUIRE_OK(db->Close());
  MustOpen(SmallOptions(dir.file()));  // the lock went with Close
}

TEST_CASE("in-memory databases are private", "[engine]") {
  auto a = MustOpen(SmallOptions(":memory:"));
  auto b = MustOpen(SmallOptions(":memory:"));
  REQUIRE_OK(a->CreateKeyspace("x"));
  CHECK(b->OpenKeyspace("x").status().IsNotFound());
}

TEST_CASE("keyspace lifecycle", "[engine]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  REQUIRE_OK(db->CreateKeyspace("t1"));
  REQUIRE_CODE(db->CreateKeyspace("t1"), Code::kDuplicateKey);
  auto t1 = db->OpenKeyspace("t1");
  REQUIRE(t1.ok());
  CHECK(t1->valid());
  CHECK(t1->name() == "t1");
  CHECK(db->OpenKeyspace("t2").status().IsNotFound());
  REQUIRE_CODE(db->DropKeyspace("t2"), Code::kNotFound);

  auto s = Take(db->NewSession());
  {
    auto txn = MustBegin(s.get());
    REQUIRE_OK(txn->Put(*t1, "k", "v"));
    REQUIRE_OK(txn->Commit());
  }
  const uint32_t old_id = t1->id();
  REQUIRE_OK(db->DropKeyspace("t1"));
  CHECK(db->OpenKeyspace("t1").status().IsNotFound());
  {
    auto txn = MustBegin(s.get());  // the old handle is dead, with a clear error
    REQUIRE_CODE(txn->Put(*t1, "k", "v"), Code::kInvalidArgument);
    REQUIRE_CODE(txn->Get(*t1, "k").status(), Code::kInvalidArgument);
  }
  // Re-created under the same name: a new id, empty.
  REQUIRE_OK(db->CreateKeyspace("t1"));
  auto again = db->OpenKeyspace("t1");
  REQUIRE(again.ok());
  CHECK(again->id() != old_id);
  auto txn = MustBegin(s.get());
  CHECK(txn->Get(*again, "k").status().IsNotFound());
  REQUIRE_OK(txn->Commit());
  REQUIRE_OK(db->CheckIntegrity());
}

TEST_CASE("keyspace ids are never reused, across reopen", "[engine]") {
  TempDir dir;
  uint32_t max_id = 0;
  {
    auto db = MustOpen(SmallOptions(dir.file()));
    for (int i = 0; i < 5; ++i) {
      REQUIRE_OK(db->CreateKeyspace("k" + std::to_string(i)));
      max_id = std::max(max_id, db->OpenKeyspace("k" + std::to_string(i))->id());
    }
    for (int i = 0; i < 5; ++i) REQUIRE_OK(db->DropKeyspace("k" + std::to_string(i)));
  }  // destructor closes
  auto db = MustOpen(SmallOptions(dir.file()));
  REQUIRE_OK(db->CreateKeyspace("fresh"));
  CHECK(db->OpenKeyspace("fresh")->id() > max_id);
  REQUIRE_OK(db->CheckIntegrity());
}

TEST_CASE("keyspace names are validated", "[engine]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  for (std::string bad : {std::string(), std::string(65, 'a'), std::string("a b"),
                          std::string("a/b"), std::string("n\0x", 3), std::string("é")}) {
    INFO("name: " << bad);
    REQUIRE_CODE(db->CreateKeyspace(bad), Code::kInvalidArgument);
  }
  for (std::string good : {std::string("a"), std::string(64, 'z'), std::string("A_b$c.9")}) {
    REQUIRE_OK(db->CreateKeyspace(good));
  }
  CHECK(db->ListKeyspaces()->size() == 3);
}

TEST_CASE("handles from another database or default-constructed are refused", "[engine]") {
  auto a = MustOpen(SmallOptions(":memory:"));
  auto b = MustOpen(SmallOptions(":memory:"));
  Keyspace ka = MustKeyspace(a.get(), "same");
  MustKeyspace(b.get(), "same");
  auto s = Take(b->NewSession());
  auto txn = MustBegin(s.get());
  REQUIRE_CODE(txn->Put(ka, "k", "v"), Code::kInvalidArgument);
  REQUIRE_CODE(txn->Put(Keyspace(), "k", "v"), Code::kInvalidArgument);
  REQUIRE_CODE(txn->NewIterator(Keyspace()).status(), Code::kInvalidArgument);
}

TEST_CASE("everything after Close says kClosed", "[engine]") {
  TempDir dir;
  auto db = MustOpen(SmallOptions(dir.file()));
  Keyspace ks = MustKeyspace(db.get(), "t");
  auto s = Take(db->NewSession());
  auto reader = MustBegin(s.get());
  REQUIRE_OK(reader->Put(ks, "a", "1"));
  REQUIRE_OK(reader->Commit());
  auto writer = MustBegin(s.get());
  REQUIRE_OK(writer->Put(ks, "b", "2"));  // uncommitted at Close: rolled back
  auto idle = MustBegin(s.get());
  auto it = Take(idle->NewIterator(ks));
  REQUIRE_OK(it->SeekToFirst());

  REQUIRE_OK(db->Close());
  CHECK_FALSE(writer->active());
  CHECK_FALSE(idle->active());
  REQUIRE_CODE(writer->Commit(), Code::kClosed);
  REQUIRE_CODE(idle->Get(ks, "a").status(), Code::kClosed);
  REQUIRE_CODE(idle->Put(ks, "a", "x"), Code::kClosed);
  REQUIRE_CODE(it->Next(), Code::kClosed);
  CHECK_FALSE(it->Valid());
  REQUIRE_CODE(db->Close(), Code::kClosed);
  REQUIRE_CODE(db->CreateKeyspace("u"), Code::kClosed);
  REQUIRE_CODE(db->DropKeyspace("t"), Code::kClosed);
  REQUIRE_CODE(db->OpenKeyspace("t").status(), Code::kClosed);
  REQUIRE_CODE(db->ListKeyspaces().status(), Code::kClosed);
  REQUIRE_CODE(db->NewSession().status(), Code::kClosed);
  REQUIRE_CODE(s->Begin().status(), Code::kClosed);
  REQUIRE_CODE(db->CheckIntegrity(), Code::kClosed);
  it.reset();
  idle.reset();
  writer.reset();
  s.reset();
  db.reset();

  db = MustOpen(SmallOptions(dir.file()));
  ks = MustKeyspace(db.get(), "t");
  s = Take(db->NewSession());
  auto txn = MustBegin(s.get());
  CHECK(*txn->Get(ks, "a") == "1");
  CHECK(txn->Get(ks, "b").status().IsNotFound());
}

TEST_CASE("stats count commits and rollbacks and describe the file", "[engine]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  Keyspace ks = MustKeyspace(db.get(), "t");
  auto s = Take(db->NewSession());
  for (int i = 0; i < 3; ++i) {
    auto txn = MustBegin(s.get());
    REQUIRE_OK(txn->Put(ks, std::to_string(i), "v"));
    REQUIRE_OK(i == 2 ? txn->Rollback() : txn->Commit());
  }
  DatabaseStats st = db->stats();
  CHECK(st.commits == 2);
  CHECK(st.rollbacks == 1);
  CHECK(st.file_pages >= 3);  // header, catalog, keyspace root
  CHECK(st.logical_bytes == st.file_pages * 16384);
  CHECK(st.pool_frames == (8u << 20) / 16384);
  CHECK(st.redo_lsn > 0);
}

TEST_CASE("CheckIntegrity reports every tree", "[engine]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  Keyspace a = MustKeyspace(db.get(), "a");
  MustKeyspace(db.get(), "b");
  auto s = Take(db->NewSession());
  auto txn = MustBegin(s.get());
  for (int i = 0; i < 1000; ++i) REQUIRE_OK(txn->Put(a, testing::Key(i), std::string(100, 'v')));
  REQUIRE_OK(txn->Commit());
  std::vector<KeyspaceCheck> reports;
  REQUIRE_OK(db->CheckIntegrity(&reports));
  REQUIRE(reports.size() == 3);
  CHECK(reports[0].name == "(catalog)");
  CHECK(reports[0].records == 3);  // two keyspaces and the next-id record
  CHECK(reports[1].name == "a");
  CHECK(reports[1].records == 1000);
  CHECK(reports[1].height >= 2);
  CHECK(reports[2].records == 0);
}

}  // namespace
}  // namespace minnow
