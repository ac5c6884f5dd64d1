// Reopening the durable log appends to the segment that holds the recovered end (no new disk
// space), after zeroing what lies beyond it: a stale frame of a torn tail is never replayed.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

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

struct Frame {
  Lsn end;
  std::string payload;
};

Frame AppendN(DurableRedoLog* log, uint64_t i, size_t len) {
  const std::string p = Payload(i, len);
  const Lsn end = log->Append(AsBytes(p));
  REQUIRE(end != 0);
  return {end, p};
}

// Clears every armed fault when the test leaves its scope.
struct ClearOnExit {
  ~ClearOnExit() { ClearFaults(); }
};

void XorByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f);
  f.seekg(static_cast<std::streamoff>(offset));
  char c;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

TEST_CASE("reopening appends to the last segment and allocates nothing", "[txn][log]") {
  ClearOnExit clear;
  TempLogDir tmp("reopen-same-segment");
  const auto id = DbId(40);
  const DurableLogOptions o = SmallLogOptions(tmp.log_dir(), 1 << 20);
  std::vector<std::string> want;
  {
    auto log = OpenLogOrDie(o, id, 0);
    for (uint64_t i = 0; i < 10; ++i) want.push_back(AppendN(log.get(), i, 300).payload);
    REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
    CHECK(log->stats().segments_created == 1);
  }
  const auto before = Segments(tmp.log_dir());
  REQUIRE(before.size() == 1);
  const auto size_before = std::filesystem::file_size(before[0].path);
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    std::vector<ScannedFrame> got;
    auto r = ScanAll(tmp.log_dir(), id, 0, &got);
    REQUIRE(r.ok());
    REQUIRE(got.size() == want.size());
    // A full disk: a new segment could not be preallocated, and none is needed.
    ArmFault({.kind = FaultKind::kNoSpace, .sticky = true, .allocate = true});
    auto log = OpenLogOrDie(o, id, r->end_lsn);
    CHECK(log->stats().segments_created == 0);
    CHECK(log->current_lsn() == r->end_lsn);
    for (uint64_t i = 0; i < 5; ++i) {
      want.push_back(AppendN(log.get(), 100 * (round + 1) + i, 200).payload);
    }
    REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
    CHECK(FaultsFired() == 0);
    ClearFaults();
  }
  const auto after = Segments(tmp.log_dir());
  REQUIRE(after.size() == 1);
  CHECK(after[0].path == before[0].path);
  CHECK(std::filesystem::file_size(after[0].path) == size_before);
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  REQUIRE(r.ok());
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i].payload == want[i]);
}

TEST_CASE("a new log on a full disk fails with kNoSpace and leaves no file", "[txn][log][fault]") {
  ClearOnExit clear;
  TempLogDir tmp("reopen-nospace");
  ArmFault({.kind = FaultKind::kNoSpace, .sticky = true, .allocate = true});
  auto log = DurableRedoLog::Open(SmallLogOptions(tmp.log_dir()), DbId(41), 0);
  CHECK(FaultsFired() == 1);
  REQUIRE_FALSE(log.ok());
  CHECK(log.status().code() == Code::kNoSpace);
  CHECK(std::filesystem::is_empty(tmp.log_dir()));
}

TEST_CASE("a full last segment is followed by a new one at reopen", "[txn][log]") {
  TempLogDir tmp("reopen-full");
  const auto id = DbId(42);
  const DurableLogOptions o = SmallLogOptions(tmp.log_dir());  // 64 KiB segments
  Lsn end = 0;
  {
    auto log = OpenLogOrDie(o, id, 0);
    // Exactly one segment's worth: 64 KiB = 16 frames of 4096 bytes.
    for (uint64_t i = 0; i < 16; ++i) end = AppendN(log.get(), i, 4096 - kFrameHeaderSize).end;
    REQUIRE(end == o.segment_bytes);
    REQUIRE(log->FlushUpTo(end).ok());
  }
  REQUIRE(Segments(tmp.log_dir()).size() == 1);
  {
    auto log = OpenLogOrDie(o, id, end);
    CHECK(log->stats().segments_created == 1);
    REQUIRE(log->FlushUpTo(AppendN(log.get(), 99, 10).end).ok());
  }
  CHECK(Segments(tmp.log_dir()).size() == 2);
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  REQUIRE(r.ok());
  CHECK(got.size() == 17);
}

// Frames A B C were written; B is torn (its payload damaged), so recovery ends after A, and C
// (still valid at its own LSN) lies beyond the end. New frames appended from A's end that end
// exactly where C starts must not bring C back: reopening zeroed it.
TEST_CASE("a stale frame beyond a torn tail is zeroed, never replayed", "[txn][log]") {
  TempLogDir tmp("reopen-stale");
  const auto id = DbId(43);
  const DurableLogOptions o = SmallLogOptions(tmp.log_dir(), 1 << 20);
  Frame a, b, c;
  {
    auto log = OpenLogOrDie(o, id, 0);
    a = AppendN(log.get(), 1, 500);
    b = AppendN(log.get(), 2, 500);
    c = AppendN(log.get(), 3, 500);
    REQUIRE(log->FlushUpTo(c.end).ok());
  }
  const std::string seg = Segments(tmp.log_dir()).back().path;
  XorByte(seg, kLogSegmentHeaderSize + a.end + kFrameHeaderSize + 10);  // B's payload
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE(got.size() == 1);
  CHECK(r->end_lsn == a.end);
  CHECK(r->torn_tail);
  {
    auto log = OpenLogOrDie(o, id, r->end_lsn);
    const Frame d = AppendN(log.get(), 4, 500);  // as long as B: ends where C starts
    REQUIRE(d.end == b.end);
    REQUIRE(log->FlushUpTo(d.end).ok());
  }
  got.clear();
  r = ScanAll(tmp.log_dir(), id, 0, &got);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE(got.size() == 2);
  CHECK(got[1].payload == Payload(4, 500));
  CHECK(r->end_lsn == b.end);
  CHECK_FALSE(r->torn_tail);  // nothing but zeros after the end
}

// Segments after the recovered end (a torn frame straddled into them) are removed, and the
// segment holding the end is appended to.
TEST_CASE("reopening in a segment before the last removes the later ones", "[txn][log]") {
  TempLogDir tmp("reopen-straddle");
  const auto id = DbId(44);
  const DurableLogOptions o = SmallLogOptions(tmp.log_dir());
  Frame a, b;
  {
    auto log = OpenLogOrDie(o, id, 0);
    for (uint64_t i = 0; i < 15; ++i) a = AppendN(log.get(), i, 4096 - kFrameHeaderSize);
    b = AppendN(log.get(), 50, 8000);  // straddles into the second segment
    REQUIRE(log->FlushUpTo(b.end).ok());
  }
  auto segs = Segments(tmp.log_dir());
  REQUIRE(segs.size() == 2);
  XorByte(segs[1].path, kLogSegmentHeaderSize + 100);  // B's part in the second segment
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  REQUIRE(r.ok());
  REQUIRE(r->end_lsn == a.end);
  {
    auto log = OpenLogOrDie(o, id, r->end_lsn);
    CHECK(log->stats().segments_created == 0);
    CHECK(Segments(tmp.log_dir()).size() == 1);
    REQUIRE(log->FlushUpTo(AppendN(log.get(), 60, 100).end).ok());
  }
  got.clear();
  r = ScanAll(tmp.log_dir(), id, 0, &got);
  REQUIRE(r.ok());
  CHECK(got.size() == 16);
  CHECK_FALSE(r->torn_tail);
}

}  // namespace
}  // namespace minnow
