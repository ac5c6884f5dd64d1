// A full disk must not lock the user out of the database: reopening (clean or after a crash)
// needs no new disk space while the log's last segment has room, so the user can still read and
// drop tables; and a create that fails part way leaves no file behind.
#include <algorithm>
#include <fstream>

#include "durability_test_util.h"

namespace minnow {
namespace {

using testing::Child;
using testing::ChildOutcome;
using testing::CommitNumbered;
using testing::CreateDatabase;
using testing::DurableOptions;
using testing::FaultGuard;
using testing::kKeyspace;
using testing::ListSegments;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::RunChild;
using testing::Take;
using testing::TempDir;
using testing::VerifyNumbered;

// Every new redo log segment fails to preallocate with ENOSPC, as on a full disk.
void FillDisk() { ArmFault({.kind = FaultKind::kNoSpace, .sticky = true, .allocate = true}); }

TEST_CASE("reopening on a full disk needs no new log space: read, write and drop still work",
          "[engine][durability][fault]") {
  FaultGuard guard;
  TempDir dir;
  Options o = DurableOptions(dir.file("db.minnow"));
  o.log_file_bytes = 1 << 20;
  CreateDatabase(o);
  {
    auto db = MustOpen(o);
    MustKeyspace(db.get(), "scratch");
    auto s = Take(db->NewSession());
    Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
    for (uint64_t i = 0; i < 10; ++i) REQUIRE_OK(CommitNumbered(s.get(), ks, i));
    s.reset();
    REQUIRE_OK(db->Close());
  }
  const auto segments = ListSegments(o.path);
  REQUIRE(segments.size() == 1);
  const std::string segment = segments[0].path;
  FillDisk();
  for (int round = 0; round < 2; ++round) {
    INFO("round " << round);
    auto db = MustOpen(o);
    CHECK_FALSE(db->recovery_report().recovered);
    VerifyNumbered(db.get(), 9 + round, 10 + round);
    if (round == 0) {
      REQUIRE_OK(db->DropKeyspace("scratch"));
      auto s = Take(db->NewSession());
      Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
      REQUIRE_OK(CommitNumbered(s.get(), ks, 10));
    }
    REQUIRE_OK(db->Close());
  }
  CHECK(FaultsFired() == 0);
  REQUIRE(ListSegments(o.path).size() == 1);
  CHECK(ListSegments(o.path)[0].path == segment);
}

TEST_CASE("recovery after a crash on a full disk appends to the last segment",
          "[engine][durability][fault]") {
  FaultGuard guard;
  TempDir dir;
  Options o = DurableOptions(dir.file("db.minnow"));
  o.log_file_bytes = 1 << 20;
  CreateDatabase(o);
  const ChildOutcome out = RunChild([&](Child& c) {
    auto db = c.OpenAndRun(o, 0, 20);
    c.Crash();
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  REQUIRE(ListSegments(o.path).size() == 1);
  FillDisk();
  {
    auto db = MustOpen(o);
    INFO(db->recovery_report().ToString());
    CHECK(db->recovery_report().recovered);
    VerifyNumbered(db.get(), out.last_ack(), 20);
    auto s = Take(db->NewSession());
    Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
    REQUIRE_OK(CommitNumbered(s.get(), ks, 20));
    s.reset();
    REQUIRE_OK(db->Close());
  }
  CHECK(FaultsFired() == 0);
  CHECK(ListSegments(o.path).size() == 1);
  auto db = MustOpen(o);
  CHECK_FALSE(db->recovery_report().recovered);
  VerifyNumbered(db.get(), 20, 21);
}

// The database's files in `dir`, by name.
std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Fails the n-th write (or sync) of a new database's Open, for every n until Open succeeds:
// every failed Open leaves the directory as it found it, and returns the error.
TEST_CASE("a failed create of a new database removes every file it made",
          "[engine][durability][fault]") {
  FaultGuard guard;
  TempDir dir;
  Options o = DurableOptions(dir.file("db.minnow"));
  o.log_file_bytes = 1 << 20;
  SECTION("no space for the first log segment") {
    FillDisk();
    auto db = Database::Open(o);
    CHECK(FaultsFired() == 1);
    INFO(db.status().ToString());
    REQUIRE_FALSE(db.ok());
    CHECK(db.status().code() == Code::kNoSpace);
    CHECK(FilesIn(dir.path()).empty());
  }
  for (FaultKind kind : {FaultKind::kNoSpace, FaultKind::kSyncError}) {
    DYNAMIC_SECTION("the n-th " << (kind == FaultKind::kNoSpace ? "write" : "sync") << " fails") {
      bool opened = false;
      uint64_t failures = 0;
      for (uint64_t n = 0; n < 200 && !opened; ++n) {
        INFO("fault after " << n << " calls");
        ArmFault({.kind = kind, .skip = n, .sticky = true});
        auto db = Database::Open(o);
        if (db.ok()) {
          // The fault came after Open's last write (or never): a complete database.
          opened = true;
          ClearFaults();
          MustKeyspace(db->get(), kKeyspace);
          REQUIRE_OK((*db)->Close());
          break;
        }
        ++failures;
        CHECK(FaultsFired() >= 1);
        CHECK(FilesIn(dir.path()).empty());
        ClearFaults();
      }
      CHECK(opened);
      CHECK(failures >= 2);  // page 0 of the data file and the log segment's header at least
      auto db = MustOpen(o);
      CHECK_FALSE(db->recovery_report().recovered);
    }
  }
}

TEST_CASE("a failed open never removes a file of an existing database",
          "[engine][durability][fault]") {
  FaultGuard guard;
  TempDir dir;
  Options o = DurableOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  const ChildOutcome out = RunChild([&](Child& c) {
    auto db = c.OpenAndRun(o, 0, 20);
    c.Crash();
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  const std::vector<std::string> before = FilesIn(dir.path());
  // Recovery must write (its end-of-recovery checkpoint): it fails, and keeps every file.
  ArmFault({.kind = FaultKind::kNoSpace, .path_contains = "db.minnow", .sticky = true});
  auto failed = Database::Open(o);
  CHECK(FaultsFired() >= 1);
  INFO(failed.status().ToString());
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.status().code() == Code::kNoSpace);
  ClearFaults();
  CHECK(FilesIn(dir.path()) == before);
  auto db = MustOpen(o);
  CHECK(db->recovery_report().recovered);
  VerifyNumbered(db.get(), out.last_ack(), 20);
}

TEST_CASE("a failed open of an empty existing file keeps the file", "[engine][durability][fault]") {
  FaultGuard guard;
  TempDir dir;
  Options o = DurableOptions(dir.file("db.minnow"));
  { std::ofstream(o.path).flush(); }
  FillDisk();
  auto db = Database::Open(o);
  REQUIRE_FALSE(db.ok());
  CHECK(db.status().code() == Code::kNoSpace);
  CHECK(FilesIn(dir.path()) == std::vector<std::string>{"db.minnow"});
}

}  // namespace
}  // namespace minnow
