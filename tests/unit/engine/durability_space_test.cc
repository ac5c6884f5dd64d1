// A full disk must not lock the user out of the database: reopening (clean or after a crash)
// needs no new disk space while the log's last segment has room, so the user can still read and
// drop tables.
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

}  // namespace
}  // namespace minnow
