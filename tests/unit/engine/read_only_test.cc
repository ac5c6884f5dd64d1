// Options::read_only: an existing database opened for reading only. Nothing is created or
// written (the files stay byte for byte as they were), reads work, every write fails with
// kReadOnly, and a database that needs crash recovery is refused.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "durability_test_util.h"

namespace minnow {
namespace {

using testing::Child;
using testing::ChildOutcome;
using testing::CommitNumbered;
using testing::CreateDatabase;
using testing::DurableOptions;
using testing::FaultGuard;
using testing::Key;
using testing::kKeyspace;
using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::ReadFile;
using testing::RunChild;
using testing::Take;
using testing::TempDir;
using testing::Val;
using testing::VerifyNumbered;

// Every file under `dir` (recursively) with its contents and modification time.
std::map<std::string, std::pair<std::string, int64_t>> Snapshot(const std::string& dir) {
  std::map<std::string, std::pair<std::string, int64_t>> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    struct stat st;
    REQUIRE(::stat(e.path().c_str(), &st) == 0);
    const int64_t mtime = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
    files[e.path().string()] = {e.is_regular_file() ? ReadFile(e.path().string()) : "", mtime};
  }
  return files;
}

Options ReadOnly(Options o) {
  o.read_only = true;
  return o;
}

// A database with keyspace kKeyspace holding commits 0..9 and an empty keyspace "other",
// closed cleanly.
Options MakeDatabase(const TempDir& dir) {
  Options o = DurableOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  auto db = MustOpen(o);
  MustKeyspace(db.get(), "other");
  auto s = Take(db->NewSession());
  Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
  for (uint64_t i = 0; i < 10; ++i) REQUIRE_OK(CommitNumbered(s.get(), ks, i));
  s.reset();
  REQUIRE_OK(db->Close());
  return o;
}

TEST_CASE("a read-only open reads and refuses every write, writing nothing",
          "[engine][read_only]") {
  TempDir dir;
  const Options o = MakeDatabase(dir);
  // Read-only files: the open needs no write permission (root ignores the modes; the O_RDONLY
  // open is what matters).
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
    if (e.is_regular_file()) ::chmod(e.path().c_str(), 0444);
  }
  const auto before = Snapshot(dir.path());
  {
    auto db = MustOpen(ReadOnly(o));
    CHECK(db->options().read_only);
    CHECK_FALSE(db->recovery_report().recovered);
    VerifyNumbered(db.get(), 9, 10);
    Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
    auto s = Take(db->NewSession());

    REQUIRE_CODE(s->Put(ks, Key(1), "x"), Code::kReadOnly);
    REQUIRE_CODE(s->Insert(ks, Key(100'000), "x"), Code::kReadOnly);
    REQUIRE_CODE(s->Erase(ks, Key(1)), Code::kReadOnly);
    REQUIRE_CODE(db->CreateKeyspace("new_one"), Code::kReadOnly);
    REQUIRE_CODE(db->DropKeyspace("other"), Code::kReadOnly);
    const Status put = s->Put(ks, Key(1), "x");
    CHECK_THAT(put.message(), Catch::Contains("read-only"));

    // A transaction that reads, tries to write, and commits: the reads stand, nothing changed.
    auto txn = MustBegin(s.get());
    std::string v;
    CHECK(Take(txn->Get(ks, Key(5), &v)));
    CHECK(v == Val(5));
    REQUIRE_CODE(txn->Put(ks, Key(5), "changed"), Code::kReadOnly);
    REQUIRE_OK(txn->Commit());
    CHECK(Take(s->Get(ks, Key(5), &v)));
    CHECK(v == Val(5));
    CHECK(Take(db->ListKeyspaces()).size() == 2);
    REQUIRE_OK(db->CheckIntegrity());
    s.reset();
    REQUIRE_OK(db->Close());
  }
  CHECK(Snapshot(dir.path()) == before);
  // A later writable open finds the database as it was.
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
    if (e.is_regular_file()) ::chmod(e.path().c_str(), 0644);
  }
  auto db = MustOpen(o);
  CHECK_FALSE(db->recovery_report().recovered);
  VerifyNumbered(db.get(), 9, 10);
}

TEST_CASE("read-only opens share the file; a writer excludes them", "[engine][read_only]") {
  TempDir dir;
  const Options o = MakeDatabase(dir);
  {
    auto r1 = MustOpen(ReadOnly(o));
    auto r2 = MustOpen(ReadOnly(o));
    auto w = Database::Open(o);
    REQUIRE_FALSE(w.ok());
    CHECK(w.status().code() == Code::kBusy);
    VerifyNumbered(r2.get(), 9, 10);
  }
  auto w = MustOpen(o);
  auto r = Database::Open(ReadOnly(o));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kBusy);
}

TEST_CASE("a read-only open creates nothing", "[engine][read_only]") {
  TempDir dir;
  Options o = ReadOnly(DurableOptions(dir.file("db.minnow")));
  auto missing = Database::Open(o);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == Code::kNotFound);
  CHECK(std::filesystem::is_empty(dir.path()));
  { std::ofstream(o.path).flush(); }
  auto empty = Database::Open(o);
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.status().code() == Code::kNotFound);
  CHECK(std::filesystem::file_size(o.path) == 0);
  CHECK_FALSE(std::filesystem::exists(o.path + ".redo"));
  CHECK_FALSE(std::filesystem::exists(o.path + ".dblwr"));

  o.path = ":memory:";
  auto memory = Database::Open(o);
  REQUIRE_FALSE(memory.ok());
  CHECK(memory.status().code() == Code::kInvalidArgument);
}

TEST_CASE("a read-only open of a database that needs recovery is refused",
          "[engine][read_only][durability]") {
  FaultGuard guard;
  TempDir dir;
  const Options o = DurableOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  const ChildOutcome out = RunChild([&](Child& c) {
    auto db = c.OpenAndRun(o, 0, 10);
    Keyspace ks = c.Take(db->OpenKeyspace(kKeyspace), "keyspace");
    auto s = c.Take(db->NewSession(), "session");
    auto txn = c.Take(s->Begin(), "begin");
    c.Ok(txn->Put(ks, Key(1), "uncommitted"), "put");
    c.Crash();
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  const auto before = Snapshot(dir.path());
  auto r = Database::Open(ReadOnly(o));
  REQUIRE_FALSE(r.ok());
  INFO(r.status().ToString());
  CHECK(r.status().code() == Code::kReadOnly);
  CHECK_THAT(r.status().message(), Catch::Contains("needs crash recovery"));
  CHECK_THAT(r.status().message(), Catch::Contains("without read-only mode"));
  CHECK(Snapshot(dir.path()) == before);
  {
    auto db = MustOpen(o);  // recovers
    CHECK(db->recovery_report().recovered);
    VerifyNumbered(db.get(), out.last_ack(), 10);
    REQUIRE_OK(db->Close());
  }
  auto db = MustOpen(ReadOnly(o));
  VerifyNumbered(db.get(), out.last_ack(), 10);
}

}  // namespace
}  // namespace minnow
