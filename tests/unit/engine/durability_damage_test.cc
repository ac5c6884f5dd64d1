// Damaged durability files: torn data pages are repaired from the doublewrite buffer (and a
// damaged page without a copy is reported, never used); a foreign log, a log with a bad frame
// in the middle or a missing log is a clear kCorruption, never a database opened in a silently
// wrong state; a torn log tail is the normal end of a crash's log.
#include "durability_test_util.h"

namespace minnow {
namespace {

using testing::Child;
using testing::ChildOutcome;
using testing::CommitNumbered;
using testing::CopyDir;
using testing::CreateDatabase;
using testing::DurableOptions;
using testing::Frame;
using testing::Key;
using testing::kKeyspace;
using testing::ListSegments;
using testing::LocateLsn;
using testing::LogDir;
using testing::MustOpen;
using testing::PatchFile;
using testing::ReadAt;
using testing::ReadDoublewrite;
using testing::ReadFile;
using testing::ReadFileHeader;
using testing::RunChild;
using testing::Snapshot;
using testing::Take;
using testing::TempDir;
using testing::TinyPoolOptions;
using testing::TornPagesWithCopies;
using testing::VerifyNumbered;
using testing::WalkFrames;

// A child that commits 0..count-1 and dies.
ChildOutcome CrashAfterCommits(const Options& o, uint64_t count) {
  return RunChild([&](Child& c) {
    auto db = c.OpenAndRun(o, 0, count);
    c.Crash();
  });
}

// Commits 0..count-1 and closes cleanly.
void CommitAndClose(const Options& o, uint64_t count) {
  auto db = MustOpen(o);
  auto s = Take(db->NewSession());
  Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
  for (uint64_t i = 0; i < count; ++i) REQUIRE_OK(CommitNumbered(s.get(), ks, i));
  s.reset();
  REQUIRE_OK(db->Close());
}

// Flips the bits of `mask` in the bytes [from, to) of the file.
void XorRange(const std::string& path, uint64_t from, uint64_t to, uint8_t mask) {
  std::string bytes = ReadAt(path, from, to - from);
  for (char& b : bytes) b = static_cast<char>(b ^ mask);
  PatchFile(path, from, bytes);
}

std::string ExpectOpenFails(const Options& o, Code code) {
  auto db = Database::Open(o);
  INFO("Open: " << db.status().ToString());
  REQUIRE_FALSE(db.ok());
  CHECK(db.status().code() == code);
  return db.status().message();
}

// ---------------------------------------------------------------------------------------------
// Torn pages.

// page.torn_write writes the first half of a page image, then kills. Half an image is not
// always a torn page (when the changes lie in the first half, the half-written page is the new
// page), so the test tries successive page writes until the data file really holds a page that
// fails its checksum and has its copy, then requires recovery to repair it.
TEST_CASE("a page torn by a crash is repaired from the doublewrite buffer",
          "[engine][durability]") {
  bool tested = false;
  for (uint64_t n = 1; n <= 12 && !tested; ++n) {
    INFO("killed at the page write number " << n);
    TempDir dir;
    const Options o = TinyPoolOptions(dir.file("db.minnow"));
    CreateDatabase(o);
    const ChildOutcome out = RunChild([&](Child& c) {
      ArmCrashPoint("page.torn_write", n);
      c.OpenAndRun(o, 0, 600);
      c.Fail("page.torn_write was not reached");
    });
    INFO(out.Describe());
    REQUIRE(out.crashed());
    const std::vector<PageNo> torn = TornPagesWithCopies(o.path);
    if (torn.empty()) continue;
    tested = true;
    auto db = MustOpen(o);
    const RecoveryReport& r = db->recovery_report();
    INFO(r.ToString() << "; torn page " << torn.front());
    CHECK(r.recovered);
    CHECK(r.pages_repaired >= torn.size());
    VerifyNumbered(db.get(), out.last_ack(), out.acks.size() + 1);
    REQUIRE_OK(db->Close());
    CHECK(TornPagesWithCopies(o.path).empty());
  }
  CHECK(tested);
}

// After a kill right after pages were written in place, the second half of one of them is
// destroyed (as a torn write would leave it); its doublewrite copy, which the data file held
// byte for byte, restores it.
TEST_CASE("a page with its second half lost is restored from its doublewrite copy",
          "[engine][durability]") {
  TempDir dir;
  const Options o = TinyPoolOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  const ChildOutcome out = RunChild([&](Child& c) {
    auto db = c.OpenAndRun(o, 0, 60);
    ArmCrashPoint("page.after_write", 1);
    Keyspace ks = c.Take(db->OpenKeyspace(kKeyspace), "keyspace");
    auto s = c.Take(db->NewSession(), "session");
    for (uint64_t i = 60; i < 1000; ++i) {
      c.Ok(CommitNumbered(s.get(), ks, i), "commit");
      c.Ack(i);
    }
    c.Fail("page.after_write was not reached");
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());

  const std::string data = ReadFile(o.path);
  const auto copies = ReadDoublewrite(o.path);
  INFO(copies.size() << " valid doublewrite slots");
  std::optional<PageNo> victim;
  for (const auto& c : copies) {
    if (c.compressed || c.page_no == 0 || (c.page_no + 1) * kPageSize > data.size()) continue;
    bool newest = true;
    for (const auto& d : copies) newest &= !(d.page_no == c.page_no && d.page_lsn > c.page_lsn);
    if (newest && data.compare(c.page_no * kPageSize, kPageSize, c.image) == 0) victim = c.page_no;
  }
  REQUIRE(victim.has_value());
  INFO("page " << *victim << " loses its second half");
  XorRange(o.path, *victim * kPageSize + kPageSize / 2, (*victim + 1) * kPageSize, 0x5a);

  auto db = MustOpen(o);
  const RecoveryReport& r = db->recovery_report();
  INFO(r.ToString());
  CHECK(r.recovered);
  CHECK(r.pages_repaired >= 1);
  VerifyNumbered(db.get(), out.last_ack(), out.acks.size() + 1);
}

// A page damaged the same way but with no copy in the doublewrite file (and, after a clean
// close, no redo to rewrite it): Open or the first read of the page reports kCorruption
// naming it.
TEST_CASE("a damaged page without a doublewrite copy is reported, never used",
          "[engine][durability]") {
  TempDir dir;
  Options o = DurableOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  CommitAndClose(o, 400);  // ~1.2 MB: more pages than the 64 doublewrite slots
  const auto copies = ReadDoublewrite(o.path);
  const std::string data = ReadFile(o.path);
  const uint32_t pages = ReadFileHeader(o.path).page_count;
  std::optional<PageNo> victim;
  for (PageNo p = pages - 1; p > 0 && !victim; --p) {
    bool has_copy = false;
    for (const auto& c : copies) has_copy |= c.page_no == p;
    const auto* page = reinterpret_cast<const std::byte*>(data.data() + p * kPageSize);
    if (!has_copy && HeaderPageType(page) == PageType::kBtreeLeaf) victim = p;
  }
  INFO(copies.size() << " doublewrite copies, " << pages << " pages");
  REQUIRE(victim.has_value());
  const std::string page_name = "page " + std::to_string(*victim);
  INFO(page_name << " loses its second half");
  XorRange(o.path, *victim * kPageSize + kPageSize / 2, (*victim + 1) * kPageSize, 0x5a);

  auto db = Database::Open(o);
  if (!db.ok()) {
    INFO("Open: " << db.status().ToString());
    CHECK(db.status().code() == Code::kCorruption);
    CHECK(db.status().message().find(page_name) != std::string::npos);
    return;
  }
  CHECK((*db)->recovery_report().pages_repaired == 0);
  const Status check = (*db)->CheckIntegrity();
  INFO("CheckIntegrity: " << check.ToString());
  CHECK(check.code() == Code::kCorruption);
  CHECK(check.message().find(page_name) != std::string::npos);
  // Reading every key meets the page too: an error, never wrong data.
  auto s = Take((*db)->NewSession());
  auto txn = testing::MustBegin(s.get());
  Keyspace ks = Take((*db)->OpenKeyspace(kKeyspace));
  Status first_error;
  std::string v;
  for (uint64_t k = 0; k < 400 * testing::kKeysPerCommit && first_error.ok(); ++k) {
    auto found = txn->Get(ks, Key(k), &v);
    if (!found.ok()) {
      first_error = found.status();
    } else {
      REQUIRE(*found);
      REQUIRE(v == testing::Val(k));
    }
  }
  INFO("reading every key: " << first_error.ToString());
  CHECK(first_error.code() == Code::kCorruption);
}

// ---------------------------------------------------------------------------------------------
// Bad logs.

TEST_CASE("a log from another database is refused", "[engine][durability]") {
  TempDir dir;
  const Options a = DurableOptions(dir.file("a.minnow"));
  const Options b = DurableOptions(dir.file("b.minnow"));
  CreateDatabase(a);
  CreateDatabase(b);
  CommitAndClose(b, 5);
  bool crashed = false;
  SECTION("after a crash") {
    const ChildOutcome out = CrashAfterCommits(a, 20);
    INFO(out.Describe());
    REQUIRE(out.crashed());
    crashed = true;
  }
  SECTION("after a clean close") { CommitAndClose(a, 20); }
  CopyDir(LogDir(a.path), dir.file("a.saved"));
  CopyDir(LogDir(b.path), LogDir(a.path));
  const std::string msg = ExpectOpenFails(a, Code::kCorruption);
  CHECK(msg.find("another database") != std::string::npos);
  // The refused open changed nothing: with its own log back the database opens as it was.
  CopyDir(dir.file("a.saved"), LogDir(a.path));
  auto db = MustOpen(a);
  INFO(db->recovery_report().ToString());
  CHECK(db->recovery_report().recovered == crashed);
  VerifyNumbered(db.get(), 19, 20);
}

// An invalid frame with valid frames after it that were synced later (policy 1: every commit
// syncs, each frame's durable_hint names what was synced before it) is damage, not a tail.
TEST_CASE("a bad checksum in the middle of the log is corruption", "[engine][durability]") {
  TempDir dir;
  const Options o = DurableOptions(dir.file("db.minnow"));  // no checkpoint in the child's run
  CreateDatabase(o);
  const ChildOutcome out = CrashAfterCommits(o, 60);
  INFO(out.Describe());
  REQUIRE(out.crashed());
  const Lsn scan_from = ReadFileHeader(o.path).checkpoint_lsn;
  const std::vector<Frame> frames = WalkFrames(o.path, scan_from);
  INFO(frames.size() << " frames from LSN " << scan_from);
  REQUIRE(frames.size() > 40);
  // An early frame with a payload, well before the end.
  size_t pick = frames.size() / 4;
  while (frames[pick].len < 8) ++pick;
  const Frame bad = frames[pick];
  REQUIRE(frames.back().durable_hint > bad.start);
  const auto segs = ListSegments(o.path);
  SECTION("a payload byte") {
    const testing::LogPos pos = LocateLsn(segs, bad.start + kFrameHeaderSize + bad.len / 2);
    XorRange(pos.path, pos.offset, pos.offset + 1, 0x01);
  }
  SECTION("a header byte (the length)") {
    const testing::LogPos pos = LocateLsn(segs, bad.start);
    XorRange(pos.path, pos.offset, pos.offset + 1, 0x01);
  }
  const std::string msg = ExpectOpenFails(o, Code::kCorruption);
  CHECK(msg.find(std::to_string(bad.start)) != std::string::npos);  // names the LSN
  CHECK(msg.find("checksum") != std::string::npos);
}

TEST_CASE("a missing log is refused", "[engine][durability]") {
  TempDir dir;
  const Options o = DurableOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  bool crashed = false;
  SECTION("after a crash") {
    const ChildOutcome out = CrashAfterCommits(o, 20);
    INFO(out.Describe());
    REQUIRE(out.crashed());
    crashed = true;
  }
  SECTION("after a clean close") { CommitAndClose(o, 20); }
  SECTION("a new database, closed without a write") {
    // Its log holds only the creation; the engine does not tell it from any other log.
    MustOpen(o).reset();
    std::filesystem::remove_all(LogDir(o.path));
    const std::string msg = ExpectOpenFails(o, Code::kCorruption);
    CHECK(msg.find("redo log missing") != std::string::npos);
    return;
  }
  const Snapshot saved(o.path, dir.file("saved"));
  for (bool whole_directory : {true, false}) {
    INFO((whole_directory ? "the log directory" : "every segment file") << " removed");
    if (whole_directory) {
      std::filesystem::remove_all(LogDir(o.path));
    } else {
      for (const auto& seg : ListSegments(o.path)) std::filesystem::remove(seg.path);
    }
    const std::string msg = ExpectOpenFails(o, Code::kCorruption);
    CHECK(msg.find("redo log missing") != std::string::npos);
    // The refused open changed nothing: with the log back the database opens as it was.
    saved.Restore();
    {
      auto db = MustOpen(o);
      CHECK(db->recovery_report().recovered == crashed);
      VerifyNumbered(db.get(), 19, 20);
    }
    saved.Restore();
  }
}

TEST_CASE("a missing segment in the middle of the log is refused", "[engine][durability]") {
  TempDir dir;
  Options o = TinyPoolOptions(dir.file("db.minnow"));
  o.log_file_bytes = 64 << 10;  // many segments, none trimmed (no checkpoint)
  CreateDatabase(o);
  const ChildOutcome out = CrashAfterCommits(o, 150);
  INFO(out.Describe());
  REQUIRE(out.crashed());
  const auto segs = ListSegments(o.path);
  INFO(segs.size() << " segments");
  REQUIRE(segs.size() >= 3);
  std::filesystem::remove(segs[segs.size() / 2].path);
  const std::string msg = ExpectOpenFails(o, Code::kCorruption);
  CHECK(msg.find("segment missing") != std::string::npos);
}

// The last frame half-written (the rest zeros, as a crash in the middle of a write leaves it),
// or the segment file cut in the middle of it: the normal end of a crash's log.
TEST_CASE("a torn log tail is cut off and the log resumes there", "[engine][durability]") {
  TempDir dir;
  const Options o = DurableOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  const ChildOutcome out = CrashAfterCommits(o, 30);
  INFO(out.Describe());
  REQUIRE(out.crashed());
  const std::vector<Frame> frames = WalkFrames(o.path, ReadFileHeader(o.path).checkpoint_lsn);
  REQUIRE(!frames.empty());
  const Frame last = frames.back();
  const Lsn mid = last.start + (kFrameHeaderSize + last.len) / 2;
  const testing::LogPos pos = LocateLsn(ListSegments(o.path), mid);
  bool zeroed = false;
  SECTION("zeros after the middle of the last frame") {
    PatchFile(pos.path, pos.offset, std::string(last.end() - mid, '\0'));
    zeroed = true;
  }
  SECTION("the segment file cut in the middle of the last frame") {
    std::filesystem::resize_file(pos.path, pos.offset);
  }
  int64_t counter;
  {
    auto db = MustOpen(o);
    const RecoveryReport& r = db->recovery_report();
    INFO(r.ToString());
    CHECK(r.recovered);
    if (zeroed) CHECK(r.torn_log_tail);
    CHECK(r.end_lsn <= last.start);
    counter = VerifyNumbered(db.get(), 28, 30);  // commit 29 is all or nothing
    auto s = Take(db->NewSession());
    Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
    for (uint64_t i = 1; i <= 3; ++i) {
      REQUIRE_OK(CommitNumbered(s.get(), ks, static_cast<uint64_t>(counter) + i));
    }
    s.reset();
    REQUIRE_OK(db->Close());
  }
  // The log resumed at the cut: the torn bytes are not taken for damage now.
  auto db = MustOpen(o);
  CHECK_FALSE(db->recovery_report().recovered);
  VerifyNumbered(db.get(), counter + 3, static_cast<uint64_t>(counter) + 4);
}

// The other way round: the log is there, the data file is gone (an empty file, or none): the
// log belongs to a lost database, and opening must not make a new one beside it.
TEST_CASE("a log without its data file is refused", "[engine][durability]") {
  TempDir dir;
  const Options o = DurableOptions(dir.file("db.minnow"));
  CreateDatabase(o);
  CommitAndClose(o, 5);
  SECTION("the data file removed") { std::filesystem::remove(o.path); }
  SECTION("the data file emptied") { std::filesystem::resize_file(o.path, 0); }
  const std::string msg = ExpectOpenFails(o, Code::kCorruption);
  CHECK(msg.find(LogDir(o.path)) != std::string::npos);
  CHECK(std::filesystem::is_directory(LogDir(o.path)));  // the log is left alone
}

}  // namespace
}  // namespace minnow
