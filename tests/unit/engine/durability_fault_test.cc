// Durability under I/O faults (common/fault_injection.h) on real files: a short write, ENOSPC,
// EIO or an fsync error in the redo log or in a page write-back is reported to the committer
// (the commit did not happen), every later write is refused until the database is reopened
// (PostgreSQL after an fsync failure), and the reopen recovers exactly the acknowledged commits.
#include <chrono>
#include <thread>

#include "durability_test_util.h"

namespace minnow {
namespace {

using testing::CommitNumbered;
using testing::CreateDatabase;
using testing::DurableOptions;
using testing::FaultGuard;
using testing::Key;
using testing::kKeyspace;
using testing::MustBegin;
using testing::MustOpen;
using testing::Take;
using testing::TempDir;
using testing::TinyPoolOptions;
using testing::VerifyNumbered;

const char* KindName(FaultKind k) {
  switch (k) {
    case FaultKind::kShortWrite:
      return "short write";
    case FaultKind::kNoSpace:
      return "ENOSPC";
    case FaultKind::kWriteError:
      return "write EIO";
    case FaultKind::kSyncError:
      return "fsync EIO";
    default:
      return "none";
  }
}

// In the failed state: every write and commit of a new transaction fails, with no fault armed.
void ExpectWritesRefused(Database* db) {
  ClearFaults();
  auto s = Take(db->NewSession());
  auto txn = MustBegin(s.get());
  Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
  const Status put = txn->Put(ks, Key(5'000'000), "after the failure");
  INFO("Put after the failure: " << put.ToString());
  CHECK_FALSE(put.ok());
  // Its Commit has nothing to make durable (the Put changed nothing): whatever it returns, no
  // durable commit is counted.
  const uint64_t durable_commits = db->stats().durable_commits;
  const Status commit = txn->Commit();
  INFO("Commit after the failure: " << commit.ToString());
  CHECK(db->stats().durable_commits == durable_commits);
  const Status create = db->CreateKeyspace("after_failure");
  INFO("CreateKeyspace after the failure: " << create.ToString());
  CHECK_FALSE(create.ok());
}

// Reopens with no fault armed: recovery brings back exactly commits 0..last_acked, the
// database passes its check, takes new commits and then closes clean. `must_recover`: the
// failure left log records past the checkpoint (false where the fault may have hit after the
// last checkpoint was complete).
void ExpectRecovered(const Options& o, int64_t last_acked, uint64_t attempts,
                     bool must_recover = true) {
  ClearFaults();
  {
    auto db = MustOpen(o);
    const RecoveryReport& r = db->recovery_report();
    INFO(r.ToString());
    if (must_recover) CHECK(r.recovered);
    CHECK(VerifyNumbered(db.get(), last_acked, attempts) == last_acked);
    auto s = Take(db->NewSession());
    Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
    REQUIRE_OK(CommitNumbered(s.get(), ks, static_cast<uint64_t>(last_acked) + 1));
    s.reset();
    REQUIRE_OK(db->Close());
  }
  auto db = MustOpen(o);
  INFO(db->recovery_report().ToString());
  CHECK_FALSE(db->recovery_report().recovered);
  VerifyNumbered(db.get(), last_acked + 1, static_cast<uint64_t>(last_acked) + 2);
  REQUIRE_OK(db->Close());
}

// A log fault at Commit (policy 1: the commit writes and fsyncs the log).
TEST_CASE("a log write or fsync failure fails the commit and stops writes until reopened",
          "[engine][durability][fault]") {
  struct Case {
    FaultKind kind;
    bool sticky;
  };
  const Case cases[] = {
      {FaultKind::kShortWrite, false}, {FaultKind::kNoSpace, false},
      {FaultKind::kNoSpace, true},     {FaultKind::kWriteError, false},
      {FaultKind::kSyncError, false},  {FaultKind::kSyncError, true},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(KindName(c.kind) << (c.sticky ? " (sticky)" : "")) {
      FaultGuard guard;
      TempDir dir;
      const Options o = DurableOptions(dir.file("db.minnow"));
      CreateDatabase(o);
      constexpr uint64_t kAcked = 20;
      {
        auto db = MustOpen(o);
        Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
        auto s = Take(db->NewSession());
        for (uint64_t i = 0; i < kAcked; ++i) REQUIRE_OK(CommitNumbered(s.get(), ks, i));
        // Commit kAcked: its changes are made, then the log fails under its Commit.
        auto txn = MustBegin(s.get());
        for (uint64_t k = kAcked * testing::kKeysPerCommit;
             k < (kAcked + 1) * testing::kKeysPerCommit; ++k) {
          REQUIRE_OK(txn->Put(ks, Key(k), testing::Val(k)));
        }
        REQUIRE_OK(txn->Put(ks, Key(0), "overwritten by the failed commit"));
        REQUIRE_OK(txn->Put(ks, testing::kCounterKey, std::to_string(kAcked)));
        ArmFault({.kind = c.kind, .path_contains = ".redo/", .skip = 0, .sticky = c.sticky});
        const Status st = txn->Commit();
        INFO("the failed Commit: " << st.ToString());
        REQUIRE(FaultsFired() > 0);
        REQUIRE_FALSE(st.ok());
        CHECK(st.code() == (c.kind == FaultKind::kNoSpace ? Code::kNoSpace : Code::kIOError));
        CHECK_FALSE(txn->active());
        txn.reset();
        ExpectWritesRefused(db.get());
        s.reset();
        if (c.sticky) ArmFault({.kind = c.kind, .path_contains = ".redo/", .sticky = true});
        const Status close = db->Close();
        INFO("Close: " << close.ToString());
        ClearFaults();
      }
      ExpectRecovered(o, kAcked - 1, kAcked + 1);
    }
  }
}

// Policy 2 commits write the log but fsync it in the background: a failed background fsync
// puts the database in the failed state too, and the commits acknowledged before it (whose
// bytes the file holds) are recovered.
TEST_CASE("a failed background log fsync (policy 2) stops writes until reopened",
          "[engine][durability][fault]") {
  FaultGuard guard;
  TempDir dir;
  Options o = DurableOptions(dir.file("db.minnow"));
  o.flush_log_at_trx_commit = 2;
  o.log_flush_interval_ms = 10;
  CreateDatabase(o);
  constexpr uint64_t kAcked = 10;
  bool acked_again = false;  // commit kAcked succeeded (at least once) before the failure
  {
    auto db = MustOpen(o);
    Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
    auto s = Take(db->NewSession());
    for (uint64_t i = 0; i < kAcked; ++i) REQUIRE_OK(CommitNumbered(s.get(), ks, i));
    ArmFault({.kind = FaultKind::kSyncError, .path_contains = ".redo/"});
    // Commit kAcked (the same keys each time) until the background thread's fsync of it fails
    // and writes are refused.
    Status st;
    for (int i = 0; i < 1000 && st.ok(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      st = CommitNumbered(s.get(), ks, kAcked);
      if (st.ok()) acked_again = true;
    }
    INFO("the first refused commit: " << st.ToString());
    REQUIRE(FaultsFired() > 0);
    REQUIRE_FALSE(st.ok());
    ExpectWritesRefused(db.get());
    s.reset();
    const Status close = db->Close();
    INFO("Close: " << close.ToString());
  }
  // An acknowledged policy-2 commit was written to the file; the failed fsync does not take it
  // back (the log zeroes only frames beyond what was acknowledged).
  ClearFaults();
  auto db = MustOpen(o);
  INFO(db->recovery_report().ToString());
  CHECK(db->recovery_report().recovered);
  VerifyNumbered(db.get(), acked_again ? kAcked : kAcked - 1, kAcked + 1);
}

// Which file a fault message names (the backend's messages start with the file's path).
enum class Hit { kLog, kDoublewrite, kData, kUnknown };
Hit FileNamed(const std::string& msg, const std::string& path) {
  if (msg.find(path + ".redo") != std::string::npos) return Hit::kLog;
  if (msg.find(path + ".dblwr") != std::string::npos) return Hit::kDoublewrite;
  if (msg.find(path + ":") != std::string::npos) return Hit::kData;
  return Hit::kUnknown;
}

// Page write-back faults. The data file's path is a prefix of the log's and the doublewrite
// file's, so no path_contains picks the data file alone: the test arms the fault on all three
// (path_contains = the database path) and sweeps `skip` over the writes (or fsyncs) of a
// workload whose 16-frame pool evicts dirty pages (log flush for the WAL rule, doublewrite
// write and fsync, in-place write and fsync). Every fault, wherever it lands, must fail the
// transaction and stop writes, and the reopen must recover exactly the acknowledged commits;
// the sweep must land on the data file itself at least once.
TEST_CASE("a page write-back failure fails the transaction and stops writes until reopened",
          "[engine][durability][fault]") {
  for (FaultKind kind : {FaultKind::kWriteError, FaultKind::kSyncError, FaultKind::kShortWrite,
                         FaultKind::kNoSpace}) {
    DYNAMIC_SECTION(KindName(kind)) {
      FaultGuard guard;
      int data_hits = 0;
      std::string hits;
      for (uint64_t skip = 0; skip < 16; ++skip) {
        INFO("skip " << skip);
        TempDir dir;
        const Options o = TinyPoolOptions(dir.file("db.minnow"));
        CreateDatabase(o);
        constexpr uint64_t kAcked = 30;
        {
          auto db = MustOpen(o);
          Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
          auto s = Take(db->NewSession());
          for (uint64_t i = 0; i < kAcked; ++i) REQUIRE_OK(CommitNumbered(s.get(), ks, i));
          ArmFault({.kind = kind, .path_contains = o.path, .skip = skip});
          auto txn = MustBegin(s.get());
          Status first;  // the first error of the transaction
          for (uint64_t j = 0; j < 600 && first.ok(); ++j) {
            first = txn->Put(ks, Key(1'000'000 + j), std::string(1000, 'f'));
          }
          if (first.ok()) first = txn->Put(ks, Key(0), "overwritten by the failed transaction");
          const Status commit = txn->Commit();
          if (first.ok()) first = commit;
          INFO("first error: " << first.ToString() << "; Commit: " << commit.ToString());
          if (FaultsFired() == 0) {
            // The sweep went past the workload's last write: nothing failed.
            REQUIRE_OK(first);
            REQUIRE_OK(db->Close());
            break;
          }
          REQUIRE_FALSE(first.ok());
          REQUIRE_FALSE(commit.ok());
          const Hit hit = FileNamed(first.message(), o.path);
          hits += "\n  skip " + std::to_string(skip) + ": " + first.ToString();
          if (hit == Hit::kData) ++data_hits;
          txn.reset();
          ExpectWritesRefused(db.get());
          s.reset();
          const Status close = db->Close();
          INFO("Close: " << close.ToString());
        }
        ClearFaults();
        ExpectRecovered(o, kAcked - 1, kAcked);
        // ExpectRecovered checked the numbered keys; the failed transaction's own keys are gone.
        auto db = MustOpen(o);
        Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
        auto s = Take(db->NewSession());
        auto txn = MustBegin(s.get());
        std::string v;
        for (uint64_t j = 0; j < 600; ++j) {
          REQUIRE_FALSE(Take(txn->Get(ks, Key(1'000'000 + j), &v)));
        }
      }
      INFO("faults seen:" << hits);
      CHECK(data_hits >= 1);
    }
  }
}

// The same faults in Close's final write-back (every dirty page, then the checkpoint): Close
// reports the error, and the reopen recovers every commit from the log.
TEST_CASE("a write-back failure at Close is reported and recovered from at the next open",
          "[engine][durability][fault]") {
  for (FaultKind kind : {FaultKind::kWriteError, FaultKind::kSyncError}) {
    DYNAMIC_SECTION(KindName(kind)) {
      FaultGuard guard;
      int data_hits = 0;
      std::string hits;
      for (uint64_t skip = 0; skip < 6; ++skip) {
        INFO("skip " << skip);
        TempDir dir;
        const Options o = DurableOptions(dir.file("db.minnow"));  // 8 MiB: no eviction
        CreateDatabase(o);
        constexpr uint64_t kAcked = 100;
        {
          auto db = MustOpen(o);
          Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
          auto s = Take(db->NewSession());
          for (uint64_t i = 0; i < kAcked; ++i) REQUIRE_OK(CommitNumbered(s.get(), ks, i));
          s.reset();
          ArmFault({.kind = kind, .path_contains = o.path, .skip = skip});
          const Status close = db->Close();
          INFO("Close: " << close.ToString());
          if (FaultsFired() == 0) {
            REQUIRE_OK(close);
            break;
          }
          REQUIRE_FALSE(close.ok());
          hits += "\n  skip " + std::to_string(skip) + ": " + close.ToString();
          if (FileNamed(close.message(), o.path) == Hit::kData) ++data_hits;
        }
        ClearFaults();
        // A failed fsync after page 0's checkpoint was written leaves a clean file behind.
        ExpectRecovered(o, kAcked - 1, kAcked, /*must_recover=*/false);
      }
      INFO("faults seen:" << hits);
      CHECK(data_hits >= 1);
    }
  }
}

}  // namespace
}  // namespace minnow
