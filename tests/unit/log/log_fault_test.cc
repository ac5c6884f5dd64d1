// The durable log under I/O faults (common/fault_injection.h on the real segment files): the
// failing call reports the error, the log stays failed, and recovery never finds a commit that
// was told it failed.

#include <catch2/catch.hpp>
#include <filesystem>

#include "common/fault_injection.h"
#include "log_test_util.h"

namespace minnow {
namespace {

using testing::DbId;
using testing::OpenLogOrDie;
using testing::Payload;
using testing::ScanAll;
using testing::ScannedFrame;
using testing::Segments;
using testing::SmallLogOptions;
using testing::TempLogDir;

Lsn AppendN(DurableRedoLog* log, uint64_t i, size_t len) {
  const std::string p = Payload(i, len);
  return log->Append(AsBytes(p));
}

// Every later call fails; a commit that was reported durable still reports success.
void RequireFailedState(DurableRedoLog* log, Code code, Lsn acknowledged) {
  CHECK(log->failed_status().code() == code);
  CHECK(AppendN(log, 1, 10) == 0);
  bool called = false;
  CHECK(log->AppendEncoded(10, [&](Bytes) { called = true; }) == 0);
  CHECK_FALSE(called);
  CHECK(log->FlushUpTo(log->current_lsn()).code() == code);
  CHECK(log->WriteUpTo(log->current_lsn()).code() == code);
  CHECK(log->CommitUpTo(log->current_lsn(), FlushPolicy::kSyncAtCommit).code() == code);
  CHECK(log->CommitUpTo(log->current_lsn(), FlushPolicy::kWriteAtCommit).code() == code);
  CHECK(log->CommitUpTo(log->current_lsn(), FlushPolicy::kWriteAndSyncEverySecond).code() == code);
  CHECK(log->CommitUpTo(acknowledged, FlushPolicy::kSyncAtCommit).ok());  // durable before
}

// Reads the log back as recovery would and reopens it at the recovered end.
LogScanResult RecoverAndReopen(const TempLogDir& tmp, ConstBytes id, size_t expect_frames) {
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(got.size() == expect_frames);
  CHECK_FALSE(r->torn_tail);  // the unacknowledged tail was zeroed
  auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 1 << 20), id, r->end_lsn);
  const Lsn lsn = AppendN(log.get(), 99, 50);
  REQUIRE(lsn != 0);
  REQUIRE(log->CommitUpTo(lsn, FlushPolicy::kSyncAtCommit).ok());
  log.reset();
  got.clear();
  auto again = ScanAll(tmp.log_dir(), id, 0, &got);
  REQUIRE(again.ok());
  CHECK(got.size() == expect_frames + 1);
  return *r;
}

TEST_CASE("a failed log write or sync fails the log at the failing commit", "[txn][log][fault]") {
  const auto [kind, code] = GENERATE(table<FaultKind, Code>({
      {FaultKind::kShortWrite, Code::kIOError},
      {FaultKind::kNoSpace, Code::kNoSpace},
      {FaultKind::kWriteError, Code::kIOError},
      {FaultKind::kSyncError, Code::kIOError},
  }));
  INFO("fault kind " << static_cast<int>(kind));
  TempLogDir tmp("fault");
  const auto id = DbId(20);
  Lsn acknowledged = 0;
  {
    auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 1 << 20, 64 << 10), id, 0);
    for (uint64_t i = 0; i < 10; ++i) {
      acknowledged = AppendN(log.get(), i, 700);
      REQUIRE(log->CommitUpTo(acknowledged, FlushPolicy::kSyncAtCommit).ok());
    }
    for (uint64_t i = 10; i < 15; ++i) REQUIRE(AppendN(log.get(), i, 3000) != 0);  // uncommitted
    const Lsn doomed = AppendN(log.get(), 15, 700);
    ArmFault({.kind = kind, .path_contains = ".redo/"});
    Status st = log->CommitUpTo(doomed, FlushPolicy::kSyncAtCommit);
    CHECK(FaultsFired() == 1);
    ClearFaults();
    INFO(st.ToString());
    REQUIRE_FALSE(st.ok());
    CHECK(st.code() == code);
    CHECK(log->durable_lsn() == acknowledged);
    RequireFailedState(log.get(), code, acknowledged);
  }
  const LogScanResult r = RecoverAndReopen(tmp, id, 10);
  CHECK(r.end_lsn == acknowledged);
}

TEST_CASE("commits acknowledged at write (policy 2) survive a later failed sync",
          "[txn][log][fault]") {
  TempLogDir tmp("fault-policy2");
  const auto id = DbId(21);
  Lsn acknowledged = 0;
  {
    auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 1 << 20, 64 << 10), id, 0);
    for (uint64_t i = 0; i < 5; ++i) {
      REQUIRE(log->CommitUpTo(AppendN(log.get(), i, 500), FlushPolicy::kSyncAtCommit).ok());
    }
    for (uint64_t i = 5; i < 10; ++i) {
      acknowledged = AppendN(log.get(), i, 500);
      REQUIRE(log->CommitUpTo(acknowledged, FlushPolicy::kWriteAtCommit).ok());
    }
    CHECK(log->durable_lsn() < acknowledged);
    for (uint64_t i = 10; i < 13; ++i) AppendN(log.get(), i, 500);  // never acknowledged
    ArmFault({.kind = FaultKind::kSyncError, .path_contains = ".redo/"});
    CHECK(log->FlushUpTo(log->current_lsn()).code() == Code::kIOError);
    ClearFaults();
    // Acknowledged before the failure, so it stands; a later LSN does not.
    CHECK(log->CommitUpTo(acknowledged, FlushPolicy::kWriteAtCommit).ok());
    CHECK_FALSE(log->CommitUpTo(log->current_lsn(), FlushPolicy::kWriteAtCommit).ok());
  }
  const LogScanResult r = RecoverAndReopen(tmp, id, 10);
  CHECK(r.end_lsn == acknowledged);
}

TEST_CASE("a segment that cannot be created fails the log cleanly", "[txn][log][fault]") {
  TempLogDir tmp("fault-segment");
  const auto id = DbId(22);
  Lsn acknowledged = 0;
  size_t committed = 0;
  {
    auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 64 << 10, 16 << 10), id, 0);
    // Every write to a half-created segment (its header) fails, as a full disk would.
    ArmFault({.kind = FaultKind::kNoSpace, .path_contains = ".log.tmp", .sticky = true});
    Status st;
    for (uint64_t i = 0; i < 200 && st.ok(); ++i) {
      const Lsn lsn = AppendN(log.get(), i, 900);  // frames straddle the segment end
      REQUIRE(lsn != 0);
      st = log->CommitUpTo(lsn, FlushPolicy::kSyncAtCommit);
      if (st.ok()) {
        acknowledged = lsn;
        ++committed;
      }
    }
    CHECK(FaultsFired() == 1);
    ClearFaults();
    CHECK(st.code() == Code::kNoSpace);
    CHECK(log->failed_status().code() == Code::kNoSpace);
  }
  for (const auto& e : std::filesystem::directory_iterator(tmp.log_dir())) {
    CHECK(e.path().extension() != ".tmp");
  }
  const LogScanResult r = RecoverAndReopen(tmp, id, committed);
  CHECK(r.end_lsn == acknowledged);
}

TEST_CASE("when zeroing the tail fails too, the status says so", "[txn][log][fault]") {
  TempLogDir tmp("fault-sticky");
  const auto id = DbId(23);
  auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 1 << 20, 64 << 10), id, 0);
  REQUIRE(log->CommitUpTo(AppendN(log.get(), 0, 100), FlushPolicy::kSyncAtCommit).ok());
  const Lsn lsn = AppendN(log.get(), 1, 100);
  ArmFault({.kind = FaultKind::kShortWrite, .path_contains = ".redo/", .sticky = true});
  Status st = log->CommitUpTo(lsn, FlushPolicy::kSyncAtCommit);
  ClearFaults();
  CHECK(st.code() == Code::kIOError);
  CHECK_THAT(st.message(), Catch::Contains("zeroing"));
}

}  // namespace
}  // namespace minnow
