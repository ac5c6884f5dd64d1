// ScanLog: segment validation, the frame stream across segments, tail versus corruption.

#include "log/log_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "buffer_pool/disk_backend.h"
#include "common/crc32c.h"
#include "log/log_segment.h"

namespace minnow {

namespace {

struct ScanSegment {
  Lsn start = 0;
  Lsn end = 0;  // its data ends at min(next start, start + capacity)
  uint64_t capacity = 0;
  uint64_t file_bytes = 0;  // stream bytes present in the file (a truncated file has fewer)
  std::string path;
  std::unique_ptr<DiskBackend> file;
};

// The log stream [segs.front().start, log_end) as one byte sequence, read through a window.
// Bytes a truncated file lacks read as zeros.
class StreamReader {
 public:
  static constexpr size_t kWindow = size_t{1} << 20;

  StreamReader(std::vector<ScanSegment>* segs, Lsn log_end) : segs_(segs), log_end_(log_end) {}

  // Bytes [lsn, lsn + n); REQUIRES: lsn + n <= log_end. Valid until the next call.
  Result<const std::byte*> Get(Lsn lsn, size_t n) {
    if (lsn >= win_start_ && lsn + n <= win_start_ + win_len_) [[likely]] {
      return buf_.data() + (lsn - win_start_);
    }
    return Refill(lsn, n);
  }
  // The end of the bytes the last Get made available.
  Lsn window_end() const { return win_start_ + win_len_; }

 private:
  Result<const std::byte*> Refill(Lsn lsn, size_t n) {
    const size_t want =
        static_cast<size_t>(std::min<uint64_t>(std::max(n, kWindow), log_end_ - lsn));
    if (buf_.size() < want) buf_.resize(want);
    size_t keep = 0;
    if (lsn >= win_start_ && lsn < window_end()) {
      keep = static_cast<size_t>(window_end() - lsn);
      std::memmove(buf_.data(), buf_.data() + (lsn - win_start_), keep);
    }
    RETURN_IF_ERROR(Fill(lsn + keep, Bytes(buf_.data() + keep, want - keep)));
    win_start_ = lsn;
    win_len_ = want;
    return static_cast<const std::byte*>(buf_.data());
  }

  Status Fill(Lsn lsn, Bytes dst) {
    while (!dst.empty()) {
      while (seg_ + 1 < segs_->size() && (*segs_)[seg_ + 1].start <= lsn) ++seg_;
      while (seg_ > 0 && (*segs_)[seg_].start > lsn) --seg_;
      ScanSegment& s = (*segs_)[seg_];
      const size_t n = static_cast<size_t>(std::min<uint64_t>(dst.size(), s.end - lsn));
      const uint64_t off = lsn - s.start;
      const size_t present =
          off >= s.file_bytes ? 0 : static_cast<size_t>(std::min<uint64_t>(n, s.file_bytes - off));
      if (present > 0)
        RETURN_IF_ERROR(s.file->Read(kLogSegmentHeaderSize + off, dst.first(present)));
      if (present < n) std::memset(dst.data() + present, 0, n - present);
      lsn += n;
      dst = dst.subspan(n);
    }
    return Status::OK();
  }

  std::vector<ScanSegment>* segs_;
  const Lsn log_end_;
  std::vector<std::byte> buf_;
  Lsn win_start_ = 0;
  size_t win_len_ = 0;
  size_t seg_ = 0;
};

// Opens and validates every segment of `dir`, oldest first, with their data ranges.
Result<std::vector<ScanSegment>> OpenSegments(const std::string& dir, ConstBytes database_id) {
  auto listed = log_format::ListSegments(dir);
  if (!listed.ok() && listed.status().code() != Code::kNotFound) return listed.status();
  if (!listed.ok() || listed->empty()) {
    return Status::Corruption(fmt::format("{}: redo log missing (no segment files)", dir));
  }
  std::vector<ScanSegment> segs;
  for (const log_format::SegmentFile& f : *listed) {
    ScanSegment s;
    s.start = f.start;
    s.path = f.path;
    ASSIGN_OR_RETURN(s.file, OpenFileBackend(f.path, FileOpenMode::kReadOnly));
    ASSIGN_OR_RETURN(const uint64_t size, s.file->Size());
    if (size < kLogSegmentHeaderSize) {
      return Status::Corruption(
          fmt::format("{}: segment header truncated ({} bytes)", f.path, size));
    }
    std::byte block[kLogSegmentHeaderSize];
    RETURN_IF_ERROR(s.file->Read(0, Bytes(block, sizeof block)));
    ASSIGN_OR_RETURN(s.capacity,
                     log_format::DecodeSegmentHeader(f.path, ConstBytes(block, sizeof block),
                                                     database_id, f.start));
    s.file_bytes = std::min<uint64_t>(size - kLogSegmentHeaderSize, s.capacity);
    segs.push_back(std::move(s));
  }
  for (size_t i = 0; i < segs.size(); ++i) {
    segs[i].end = segs[i].start + segs[i].capacity;
    if (i + 1 < segs.size()) segs[i].end = std::min(segs[i].end, segs[i + 1].start);
  }
  return segs;
}

class Scanner {
 public:
  Scanner(std::vector<ScanSegment>* segs, const std::string& dir)
      : segs_(*segs), dir_(dir), log_end_(segs->back().end), reader_(segs, log_end_) {}

  // Reads frames from `pos` until the end of the log; `result` gets end_lsn, frames, torn_tail.
  Status Run(Lsn pos, const std::function<Status(const LogFrame&)>& fn, LogScanResult* result) {
    for (;;) {
      log_format::FrameHeader fh;
      if (log_end_ - pos < kFrameHeaderSize) return AtInvalid(pos, nullptr, result);
      ASSIGN_OR_RETURN(const std::byte* h, reader_.Get(pos, kFrameHeaderSize));
      if (!log_format::DecodeFrameHeader(h, pos, &fh)) return AtInvalid(pos, nullptr, result);
      if (fh.len > log_end_ - pos - kFrameHeaderSize) return AtInvalid(pos, &fh, result);
      ASSIGN_OR_RETURN(const std::byte* f, reader_.Get(pos, kFrameHeaderSize + fh.len));
      const ConstBytes payload(f + kFrameHeaderSize, fh.len);
      if (crc32c::Value(payload) != fh.payload_crc) return AtInvalid(pos, &fh, result);
      const Lsn end = pos + kFrameHeaderSize + fh.len;
      RETURN_IF_ERROR(fn(LogFrame{fh.kind, pos, end, payload}));
      ++result->frames;
      pos = end;
    }
  }

 private:
  const ScanSegment& SegmentOf(Lsn lsn) const {
    size_t i = segs_.size() - 1;
    while (i > 0 && segs_[i].start > lsn) --i;
    return segs_[i];
  }

  // The frame at `pos` does not validate (`fh`: its header did, the payload not). The end of
  // the log, unless it lies in synced segments or a later valid frame names it durable.
  Status AtInvalid(Lsn pos, const log_format::FrameHeader* fh, LogScanResult* result) {
    const Lsn extent_end =
        fh != nullptr ? pos + kFrameHeaderSize + fh->len : pos + kFrameHeaderSize;
    const Lsn last_start = segs_.back().start;
    if (extent_end <= last_start) {
      // Wholly inside segments that have a successor, so synced: never a torn tail.
      return Status::Corruption(
          fmt::format("{}: bad checksum at LSN {} in {} (a synced segment: later segments follow)",
                      dir_, pos, SegmentOf(pos).path));
    }
    ASSIGN_OR_RETURN(const Lsn last_nonzero, LastNonZero(pos));
    result->end_lsn = pos;
    result->torn_tail = last_nonzero != kNone;
    if (last_nonzero == kNone) return Status::OK();
    // A later frame whose durable_hint > pos proves the bad bytes had been synced. Its own
    // length (if its header validated) says where the next frame would be; try that first,
    // then every position of the rest of the last segment up to its last non-zero byte (a
    // frame header has a non-zero kind byte at +4, so nothing later can be a frame).
    if (fh != nullptr && extent_end + kFrameHeaderSize <= log_end_) {
      ASSIGN_OR_RETURN(const std::optional<log_format::FrameHeader> next, ValidFrameAt(extent_end));
      if (next && next->durable_hint > pos) return FollowedBy(pos, extent_end);
    }
    for (Lsn q = std::max(pos + 1, last_start);
         q + kFrameHeaderSize <= log_end_ && q + 4 <= last_nonzero; ++q) {
      ASSIGN_OR_RETURN(const std::byte* h, reader_.Get(q, kFrameHeaderSize));
      if (!log_format::PlausibleFrameHeader(h)) continue;
      ASSIGN_OR_RETURN(const std::optional<log_format::FrameHeader> later, ValidFrameAt(q));
      if (!later) continue;
      if (later->durable_hint > pos) return FollowedBy(pos, q);
      q += kFrameHeaderSize + later->len - 1;  // skip the valid frame's payload
    }
    return Status::OK();
  }

  Status FollowedBy(Lsn bad, Lsn good) const {
    return Status::Corruption(
        fmt::format("{}: bad checksum at LSN {} in {} (valid records follow at LSN {})", dir_, bad,
                    SegmentOf(bad).path, good));
  }

  // The header of a valid frame (header and payload) at q, or nullopt.
  Result<std::optional<log_format::FrameHeader>> ValidFrameAt(Lsn q) {
    using Found = std::optional<log_format::FrameHeader>;
    ASSIGN_OR_RETURN(const std::byte* h, reader_.Get(q, kFrameHeaderSize));
    log_format::FrameHeader fh;
    if (!log_format::DecodeFrameHeader(h, q, &fh)) return Found();
    if (fh.len > log_end_ - q - kFrameHeaderSize) return Found();
    ASSIGN_OR_RETURN(const std::byte* f, reader_.Get(q, kFrameHeaderSize + fh.len));
    if (crc32c::Value(ConstBytes(f + kFrameHeaderSize, fh.len)) != fh.payload_crc) return Found();
    return Found(fh);
  }

  // The last non-zero byte in [from, log_end), or kNone.
  Result<Lsn> LastNonZero(Lsn from) {
    Lsn last = kNone;
    for (Lsn p = from; p < log_end_;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(StreamReader::kWindow, log_end_ - p));
      ASSIGN_OR_RETURN(const std::byte* b, reader_.Get(p, n));
      for (size_t i = n; i-- > 0;) {
        if (b[i] != std::byte{0}) {
          last = p + i;
          break;
        }
      }
      p += n;
    }
    return last;
  }

  static constexpr Lsn kNone = UINT64_MAX;
  const std::vector<ScanSegment>& segs_;
  const std::string& dir_;
  const Lsn log_end_;
  StreamReader reader_;
};

}  // namespace

Result<LogScanResult> ScanLog(const std::string& dir, ConstBytes database_id, Lsn from,
                              const std::function<Status(const LogFrame&)>& fn) {
  ASSIGN_OR_RETURN(std::vector<ScanSegment> segs, OpenSegments(dir, database_id));
  LogScanResult result;
  result.first_lsn = segs.front().start;
  // The segment holding `from`: the last one starting at or before it.
  size_t k = segs.size();
  while (k > 0 && segs[k - 1].start > from) --k;
  if (k == 0) {
    return Status::Corruption(
        fmt::format("{}: segment missing: no segment contains LSN {} (the oldest starts at LSN {})",
                    dir, from, segs.front().start));
  }
  --k;
  const bool last = k + 1 == segs.size();
  if (from > segs[k].end || (from == segs[k].end && !last)) {
    return Status::Corruption(
        fmt::format("{}: segment missing: no segment contains LSN {} ({} ends at LSN {})", dir,
                    from, segs[k].path, segs[k].start + segs[k].capacity));
  }
  for (size_t i = k; i + 1 < segs.size(); ++i) {
    if (segs[i + 1].start > segs[i].start + segs[i].capacity) {
      return Status::Corruption(fmt::format(
          "{}: segment missing: {} ends at LSN {} but the next segment starts at LSN {}", dir,
          segs[i].path, segs[i].start + segs[i].capacity, segs[i + 1].start));
    }
  }
  result.segments = segs.size() - k;
  Scanner scanner(&segs, dir);
  RETURN_IF_ERROR(scanner.Run(from, fn, &result));
  result.bytes = result.end_lsn - from;
  return result;
}

}  // namespace minnow
