// The durable redo log: frames round-trip, segments, reopen, checkpoint trimming, torn tails and
// corruption, group commit, flush policies, big frames.

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

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

struct Appended {
  Lsn start;
  Lsn end;
  std::string payload;
};

// Appends frame i (Append for even i, AppendEncoded for odd i) of `len` bytes.
Appended AppendOne(DurableRedoLog* log, uint64_t i, size_t len) {
  const std::string p = Payload(i, len);
  const Lsn start = log->current_lsn();
  Lsn end = 0;
  if (i % 2 == 0) {
    end = log->Append(AsBytes(p));
  } else {
    end = log->AppendEncoded(len, [&](Bytes dst) {
      REQUIRE(dst.size() == len);
      std::memcpy(dst.data(), p.data(), len);
    });
  }
  REQUIRE(end == start + kFrameHeaderSize + len);
  return {start, end, p};
}

void RequireSame(const std::vector<ScannedFrame>& got, const std::vector<Appended>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("frame " << i);
    CHECK(got[i].kind == LogFrameKind::kMtr);
    CHECK(got[i].start == want[i].start);
    CHECK(got[i].end == want[i].end);
    CHECK(got[i].payload == want[i].payload);
  }
}

void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f);
  f.seekg(static_cast<std::streamoff>(offset));
  char c;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

// The file and offset of stream byte `lsn` (the last segment starting at or before it).
std::pair<std::string, uint64_t> Locate(const std::string& dir, Lsn lsn) {
  auto segs = Segments(dir);
  for (size_t i = segs.size(); i-- > 0;) {
    if (segs[i].start <= lsn) return {segs[i].path, kLogSegmentHeaderSize + (lsn - segs[i].start)};
  }
  FAIL("no segment holds LSN " << lsn);
  return {};
}

TEST_CASE("frames round-trip exactly through the segment files", "[txn][log]") {
  TempLogDir tmp("roundtrip");
  const auto id = DbId(1);
  auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 1 << 20), id, 0);
  CHECK(log->current_lsn() == 0);
  std::vector<Appended> want;
  const size_t sizes[] = {0, 1, 7, 100, 4000, 16 << 10, 3};
  for (uint64_t i = 0; i < 200; ++i) want.push_back(AppendOne(log.get(), i, sizes[i % 7]));
  CHECK(log->current_lsn() == want.back().end);
  REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
  CHECK(log->durable_lsn() == log->current_lsn());
  const DurableLogStats st = log->stats();
  CHECK(st.frames == 200);
  CHECK(st.bytes_written == log->current_lsn());
  CHECK(st.syncs >= 1);

  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  RequireSame(got, want);
  CHECK(r->end_lsn == want.back().end);
  CHECK_FALSE(r->torn_tail);
  CHECK(r->frames == 200);
  CHECK(r->first_lsn == 0);
  CHECK(r->bytes == r->end_lsn);

  // From a frame boundary in the middle.
  got.clear();
  r = ScanAll(tmp.log_dir(), id, want[100].start, &got);
  REQUIRE(r.ok());
  CHECK(got.size() == 100);
  CHECK(got.front().start == want[100].start);
}

TEST_CASE("frames straddle 64 KiB segments", "[txn][log]") {
  TempLogDir tmp("straddle");
  const auto id = DbId(2);
  auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir()), id, 0);
  std::vector<Appended> want;
  for (uint64_t i = 0; i < 400; ++i) {
    want.push_back(AppendOne(log.get(), i, (i * 7919) % 9000));
    if (i % 37 == 0) REQUIRE(log->FlushUpTo(want.back().end).ok());
  }
  REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
  const uint64_t nseg = log->current_lsn() / (64 << 10) + 1;
  CHECK(log->stats().segments_created == nseg);
  CHECK(Segments(tmp.log_dir()).size() == nseg);
  log.reset();

  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  RequireSame(got, want);
  CHECK(r->segments == nseg);
  CHECK_FALSE(r->torn_tail);
}

TEST_CASE("a reopened log continues at the recovered end and ignores the old tail", "[txn][log]") {
  TempLogDir tmp("reopen");
  const auto id = DbId(3);
  const auto opts = SmallLogOptions(tmp.log_dir());
  std::vector<Appended> a;
  Lsn a_end;
  {
    auto log = OpenLogOrDie(opts, id, 0);
    for (uint64_t i = 0; i < 30; ++i) a.push_back(AppendOne(log.get(), i, 1000));
    a_end = log->current_lsn();
    // B: written and synced, but recovery will decide the log ends at a_end (as if torn).
    for (uint64_t i = 30; i < 50; ++i) AppendOne(log.get(), i, 1000);
    REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
  }
  std::vector<Appended> c;
  {
    auto log = OpenLogOrDie(opts, id, a_end);
    CHECK(log->current_lsn() == a_end);
    CHECK(log->bytes_since_checkpoint() == 0);
    for (uint64_t i = 100; i < 160; ++i) c.push_back(AppendOne(log.get(), i, 3000));
    REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
  }
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  std::vector<Appended> want = a;
  want.insert(want.end(), c.begin(), c.end());
  RequireSame(got, want);

  SECTION("reopening at an earlier LSN removes the segments after it and appends in its own") {
    const Lsn mid = c[20].start;  // in a later segment than a_end's
    REQUIRE(Segments(tmp.log_dir()).size() > 2);
    {
      auto log = OpenLogOrDie(opts, id, mid);
      CHECK(log->stats().segments_created == 0);
      for (const auto& s : Segments(tmp.log_dir())) CHECK(s.start <= mid);
      CHECK(Segments(tmp.log_dir()).back().start + opts.segment_bytes > mid);
    }
    got.clear();
    r = ScanAll(tmp.log_dir(), id, 0, &got);
    REQUIRE(r.ok());
    CHECK(r->end_lsn == mid);
    CHECK(got.size() == a.size() + 20);
    CHECK_FALSE(r->torn_tail);
  }
}

TEST_CASE("Checkpoint trims whole segments below its LSN", "[txn][log]") {
  TempLogDir tmp("checkpoint");
  const auto id = DbId(4);
  auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir()), id, 0);
  for (uint64_t i = 0; i < 100; ++i) AppendOne(log.get(), i, 2000);  // ~200 KiB: 4 segments
  const Lsn mid = log->current_lsn();
  for (uint64_t i = 100; i < 200; ++i) AppendOne(log.get(), i, 2000);
  REQUIRE(log->WriteUpTo(log->current_lsn()).ok());
  const auto before = Segments(tmp.log_dir());
  REQUIRE(before.size() >= 6);
  {
    log->Checkpoint(mid);
    CHECK(log->checkpoint_lsn() == mid);
    CHECK(log->bytes_since_checkpoint() == log->current_lsn() - mid);
    // The segment holding mid is kept, and every earlier one is gone.
    auto segs = Segments(tmp.log_dir());
    CHECK(segs.front().start <= mid);
    CHECK(segs.front().start > before.front().start);
    CHECK(segs.size() > 1);
    CHECK(segs[1].start > mid);
    std::vector<ScannedFrame> got;
    REQUIRE(ScanAll(tmp.log_dir(), id, mid, &got).ok());
    CHECK(got.size() == 100);
    // An older checkpoint LSN changes nothing.
    log->Checkpoint(mid / 2);
    CHECK(log->checkpoint_lsn() == mid);
    CHECK(Segments(tmp.log_dir()).size() == segs.size());
  }
  log->Checkpoint(log->current_lsn());
  const auto after = Segments(tmp.log_dir());
  REQUIRE(after.size() == 1);  // only the one being appended to
  CHECK(after.front().start <= log->current_lsn());
  CHECK(log->bytes_since_checkpoint() == 0);
  CHECK(log->checkpoint_lsn() == log->current_lsn());
  CHECK(log->stats().segments_removed == before.size() - 1);
  AppendOne(log.get(), 999, 10);
  CHECK(log->bytes_since_checkpoint() == kFrameHeaderSize + 10);

  // Scanning from a trimmed LSN: the segment is missing.
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kCorruption);
  CHECK_THAT(r.status().message(), Catch::Contains("segment missing"));
}

// Writes `n` frames of 1000 bytes, each flushed on its own (so every frame names the previous
// ones durable), and returns them.
std::vector<Appended> WriteSynced(const std::string& dir, ConstBytes id, int n,
                                  uint64_t segment_bytes = 1 << 20) {
  auto log = OpenLogOrDie(SmallLogOptions(dir, segment_bytes), id, 0);
  std::vector<Appended> want;
  for (int i = 0; i < n; ++i) {
    want.push_back(AppendOne(log.get(), static_cast<uint64_t>(i), 1000));
    REQUIRE(log->FlushUpTo(want.back().end).ok());
  }
  return want;
}

TEST_CASE("a torn tail ends the scan cleanly at the last good frame", "[txn][log]") {
  TempLogDir tmp("torn");
  const auto id = DbId(6);
  const auto want = WriteSynced(tmp.log_dir(), id, 20);
  const auto [path, off] = Locate(tmp.log_dir(), want.back().start);
  bool expect_torn = true;
  SECTION("truncated mid-frame") { REQUIRE(::truncate(path.c_str(), off + 500) == 0); }
  SECTION("truncated mid-header") { REQUIRE(::truncate(path.c_str(), off + 10) == 0); }
  SECTION("overwritten with garbage") {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(off + 300));
    const std::string junk = Payload(77, 5000);
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  SECTION("truncated at the frame boundary") {
    REQUIRE(::truncate(path.c_str(), off) == 0);
    expect_torn = false;
  }
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(got.size() == want.size() - 1);
  CHECK(r->end_lsn == want.back().start);
  CHECK(r->torn_tail == expect_torn);
}

TEST_CASE("a damaged frame followed by synced frames is corruption", "[txn][log]") {
  TempLogDir tmp("corrupt");
  const auto id = DbId(7);
  const auto want = WriteSynced(tmp.log_dir(), id, 20);
  const Lsn bad = want[3].start;
  const auto [path, off] = Locate(tmp.log_dir(), bad);
  SECTION("payload byte") { FlipByte(path, off + kFrameHeaderSize + 17); }
  SECTION("length byte") { FlipByte(path, off + 1); }
  SECTION("header crc byte") { FlipByte(path, off + 21); }
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kCorruption);
  CHECK_THAT(r.status().message(), Catch::Contains(fmt::format("bad checksum at LSN {}", bad)));
  CHECK_THAT(r.status().message(), Catch::Contains("valid records follow at LSN"));
  CHECK(got.size() == 3);  // the frames before it were delivered
}

TEST_CASE("damage in the last frame, or in frames never named durable, is a torn tail",
          "[txn][log]") {
  TempLogDir tmp("tail-vs-corrupt");
  const auto id = DbId(8);
  std::vector<Appended> want;
  {
    auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 1 << 20), id, 0);
    for (uint64_t i = 0; i < 5; ++i) want.push_back(AppendOne(log.get(), i, 1000));
    REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
    // One write and one sync: the later frames name only LSN want[4].end durable.
    for (uint64_t i = 5; i < 15; ++i) want.push_back(AppendOne(log.get(), i, 1000));
    REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
  }
  const auto [path, off] = Locate(tmp.log_dir(), want[7].start);
  FlipByte(path, off + kFrameHeaderSize + 5);
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  INFO(r.status().ToString());
  REQUIRE(r.ok());  // nothing after frame 7 claims it durable
  CHECK(r->end_lsn == want[7].start);
  CHECK(r->torn_tail);

  // But frame 3 was durable when frames 5..14 were appended.
  const auto [path3, off3] = Locate(tmp.log_dir(), want[3].start);
  FlipByte(path3, off3 + kFrameHeaderSize + 5);
  got.clear();
  r = ScanAll(tmp.log_dir(), id, 0, &got);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(),
             Catch::Contains(fmt::format("bad checksum at LSN {}", want[3].start)));
}

TEST_CASE("a bad frame in a segment that has a successor is corruption", "[txn][log]") {
  TempLogDir tmp("corrupt-early-segment");
  const auto id = DbId(9);
  std::vector<Appended> want;
  {
    auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir()), id, 0);
    for (uint64_t i = 0; i < 100; ++i) want.push_back(AppendOne(log.get(), i, 2000));
    REQUIRE(log->WriteUpTo(log->current_lsn()).ok());  // no FlushUpTo: hints are 0
  }
  const auto [path, off] = Locate(tmp.log_dir(), want[2].start);
  FlipByte(path, off + kFrameHeaderSize + 1);
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kCorruption);
  CHECK_THAT(r.status().message(),
             Catch::Contains(fmt::format("bad checksum at LSN {}", want[2].start)));
}

TEST_CASE("missing segments, a missing directory and a foreign log are errors", "[txn][log]") {
  TempLogDir tmp("missing");
  const auto id = DbId(10);
  std::vector<ScannedFrame> got;
  SECTION("no directory") {
    auto r = ScanAll(tmp.log_dir(), id, 0, &got);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kCorruption);
    CHECK_THAT(r.status().message(), Catch::Contains("redo log missing"));
  }
  SECTION("an empty directory") {
    std::filesystem::create_directories(tmp.log_dir());
    auto r = ScanAll(tmp.log_dir(), id, 0, &got);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("redo log missing"));
  }
  SECTION("a deleted middle segment") {
    WriteSynced(tmp.log_dir(), id, 300, 64 << 10);
    auto segs = Segments(tmp.log_dir());
    REQUIRE(segs.size() >= 4);
    REQUIRE(std::filesystem::remove(segs[2].path));
    auto r = ScanAll(tmp.log_dir(), id, 0, &got);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kCorruption);
    CHECK_THAT(r.status().message(), Catch::Contains("segment missing"));
  }
  SECTION("another database's log") {
    WriteSynced(tmp.log_dir(), id, 3);
    auto r = ScanAll(tmp.log_dir(), DbId(11), 0, &got);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kCorruption);
    CHECK_THAT(r.status().message(), Catch::Contains("belongs to another database"));
  }
  SECTION("a damaged segment header") {
    WriteSynced(tmp.log_dir(), id, 3);
    FlipByte(Segments(tmp.log_dir()).front().path, 30);
    auto r = ScanAll(tmp.log_dir(), id, 0, &got);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kCorruption);
    CHECK_THAT(r.status().message(), Catch::Contains("checksum mismatch"));
  }
}

TEST_CASE("Open validates its options", "[txn][log]") {
  TempLogDir tmp("options");
  const auto id = DbId(12);
  auto o = SmallLogOptions(tmp.log_dir());
  SECTION("segment too small") { o.segment_bytes = 32 << 10; }
  SECTION("buffer too small") { o.buffer_bytes = 100; }
  SECTION("no directory") { o.dir.clear(); }
  SECTION("zero interval") { o.background_interval_ms = 0; }
  auto log = DurableRedoLog::Open(o, id, 0);
  REQUIRE_FALSE(log.ok());
  CHECK(log.status().code() == Code::kInvalidArgument);
  CHECK(DurableRedoLog::Open(SmallLogOptions(tmp.log_dir()), ConstBytes(id).first(8), 0)
            .status()
            .code() == Code::kInvalidArgument);
  CHECK(LogDirFor("/x/db.minnow") == "/x/db.minnow.redo");
}

TEST_CASE("group commit: concurrent committers share syncs", "[txn][log]") {
  TempLogDir tmp("group");
  const auto id = DbId(13);
  auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 4 << 20, 1 << 20), id, 0);
  constexpr int kThreads = 8;
  constexpr int kCommits = 200;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCommits; ++i) {
        const std::string p = Payload(static_cast<uint64_t>(t * 1000 + i), 100);
        const Lsn lsn = log->Append(AsBytes(p));
        if (lsn == 0 || !log->FlushUpTo(lsn).ok() || log->durable_lsn() < lsn) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  const DurableLogStats s = log->stats();
  CHECK(s.durable_lsn == s.current_lsn);
  CHECK(s.frames == kThreads * kCommits);
  CHECK(s.syncs < kThreads * kCommits);
  CHECK(s.flush_requests <= kThreads * kCommits);
  WARN("group commit: " << kThreads * kCommits << " FlushUpTo calls, " << s.flush_requests
                        << " waited, " << s.syncs << " syncs, " << s.writes << " writes");
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  REQUIRE(r.ok());
  CHECK(got.size() == kThreads * kCommits);
}

TEST_CASE("commit policies", "[txn][log]") {
  TempLogDir tmp("policies");
  const auto id = DbId(14);
  auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir()), id, 0);
  SECTION("sync at commit") {
    const Lsn lsn = AppendOne(log.get(), 1, 100).end;
    REQUIRE(log->CommitUpTo(lsn, FlushPolicy::kSyncAtCommit).ok());
    CHECK(log->durable_lsn() >= lsn);
    CHECK(log->stats().syncs == 1);
  }
  SECTION("write at commit, sync in the background") {
    const Lsn lsn = AppendOne(log.get(), 1, 100).end;
    REQUIRE(log->CommitUpTo(lsn, FlushPolicy::kWriteAtCommit).ok());
    CHECK(log->stats().written_lsn >= lsn);
    CHECK(log->durable_lsn() < lsn);
    CHECK(log->stats().syncs == 0);
    log->StartBackground();
    for (int i = 0; i < 200 && log->durable_lsn() < lsn; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    log->StopBackground();
    log->StopBackground();  // idempotent
    CHECK(log->durable_lsn() >= lsn);
  }
  SECTION("write and sync every second") {
    const Lsn lsn = AppendOne(log.get(), 1, 100).end;
    REQUIRE(log->CommitUpTo(lsn, FlushPolicy::kWriteAndSyncEverySecond).ok());
    CHECK(log->stats().written_lsn < lsn);
    log->StartBackground();
    for (int i = 0; i < 200 && log->durable_lsn() < lsn; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(log->durable_lsn() >= lsn);
    CHECK(log->stats().written_lsn >= lsn);
  }
}

TEST_CASE("a frame bigger than the log buffer", "[txn][log]") {
  TempLogDir tmp("big");
  const auto id = DbId(15);
  auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 4 << 20, 4 << 20), id, 0);
  std::vector<Appended> want;
  want.push_back(AppendOne(log.get(), 0, 100));
  want.push_back(AppendOne(log.get(), 1, 8 << 20));  // AppendEncoded, while the buffer holds one
  want.push_back(AppendOne(log.get(), 3, 100));
  want.push_back(AppendOne(log.get(), 4, 8 << 20));  // Append
  REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
  want.push_back(AppendOne(log.get(), 5, 100));  // the buffers are back to normal size
  REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  RequireSame(got, want);
  // Segments of 1, 2 and 4 MiB, then 4 MiB each (NextSegmentBytes): the 16 MiB of frames fill
  // five and reach a sixth.
  CHECK(Segments(tmp.log_dir()).size() == 6);
}

TEST_CASE("segment sizes double from 1 MiB up to segment_bytes", "[txn][log]") {
  CHECK(NextSegmentBytes(0, 64ull << 20) == kFirstSegmentBytes);
  CHECK(NextSegmentBytes(0, 64 << 10) == 64 << 10);
  CHECK(NextSegmentBytes(1 << 20, 64ull << 20) == 2 << 20);
  CHECK(NextSegmentBytes(48ull << 20, 64ull << 20) == 64ull << 20);
  CHECK(NextSegmentBytes(64ull << 20, 64ull << 20) == 64ull << 20);
  TempLogDir tmp("grow");
  const auto id = DbId(17);
  auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 8 << 20, 1 << 20), id, 0);
  for (uint64_t i = 0; i < 22; ++i) AppendOne(log.get(), i, 1 << 20);
  REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
  std::vector<uint64_t> capacities;  // segments are created at their full length
  for (const auto& seg : Segments(tmp.log_dir())) {
    capacities.push_back(std::filesystem::file_size(seg.path) - kLogSegmentHeaderSize);
  }
  // 22 MiB and a little: 1 + 2 + 4 + 8 + 8 MiB.
  CHECK(capacities == std::vector<uint64_t>{1 << 20, 2 << 20, 4 << 20, 8 << 20, 8 << 20});
}

TEST_CASE("appends keep going while the buffer is written out", "[txn][log]") {
  TempLogDir tmp("double-buffer");
  const auto id = DbId(16);
  // A 4 KiB buffer: almost every append finds it full and writes it out first.
  auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 64 << 10, 4096), id, 0);
  std::vector<Appended> want;
  for (uint64_t i = 0; i < 300; ++i) want.push_back(AppendOne(log.get(), i, (i * 131) % 3000));
  CHECK(log->stats().written_lsn > 0);
  REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  REQUIRE(r.ok());
  RequireSame(got, want);
}

}  // namespace
}  // namespace minnow

namespace minnow {
namespace {

TEST_CASE("a frame straddling into the last segment may be a torn tail", "[txn][log]") {
  TempLogDir tmp("straddle-tail");
  const auto id = DbId(17);
  std::vector<Appended> want;
  {
    auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir()), id, 0);
    while (log->current_lsn() + kFrameHeaderSize + 900 < (64 << 10)) {
      want.push_back(AppendOne(log.get(), want.size(), 900));
      REQUIRE(log->FlushUpTo(want.back().end).ok());
    }
    want.push_back(AppendOne(log.get(), want.size(), 3000));  // crosses LSN 64 KiB
    REQUIRE(log->FlushUpTo(want.back().end).ok());
  }
  const Appended& s = want.back();
  REQUIRE(s.start < (64 << 10));
  REQUIRE(s.end > (64 << 10));
  REQUIRE(Segments(tmp.log_dir()).size() == 2);
  const auto [path, off] = Locate(tmp.log_dir(), s.end - 10);  // its tail, in the last segment
  FlipByte(path, off);
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, 0, &got);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->end_lsn == s.start);
  CHECK(r->torn_tail);
  CHECK(got.size() == want.size() - 1);
}

}  // namespace
}  // namespace minnow
