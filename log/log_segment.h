#pragma once
// Segment files and frame headers of the durable redo log (formats in log/durable_redo_log.h),
// shared by the writer (log/durable_redo_log.cc) and the reader (log/log_reader.cc).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "buffer_pool/disk_backend.h"
#include "common/coding.h"
#include "common/crc32c.h"
#include "common/types.h"
#include "log/durable_redo_log.h"
#include "minnow/status.h"

namespace minnow::log_format {

inline constexpr uint32_t kSegmentVersion = 1;
inline constexpr uint64_t kMinSegmentBytes = uint64_t{64} << 10;
inline constexpr uint64_t kMaxSegmentBytes = uint64_t{1} << 40;
// Segment header layout: magic[8] version:u32 database_id[16] start_lsn:u64 capacity:u64 crc:u32.
inline constexpr size_t kSegmentHeaderBytes = 48;

// "redo-<16 hex digits>.log"
std::string SegmentFileName(Lsn start);
std::string SegmentPath(const std::string& dir, Lsn start);
// True for a name SegmentFileName produced (and sets *start).
bool ParseSegmentFileName(std::string_view name, Lsn* start);

struct SegmentFile {
  Lsn start = 0;
  std::string path;
};
// The segment files of `dir`, oldest first. kNotFound if `dir` does not exist.
Result<std::vector<SegmentFile>> ListSegments(const std::string& dir);

// Fills a kLogSegmentHeaderSize block.
void EncodeSegmentHeader(ConstBytes database_id, Lsn start, uint64_t capacity, std::byte* block);
// Validates a segment's header block (magic, version, crc, start LSN against the file name,
// database id) and returns its capacity; kCorruption naming `path` otherwise.
Result<uint64_t> DecodeSegmentHeader(const std::string& path, ConstBytes block,
                                     ConstBytes database_id, Lsn expected_start);

// Creates the segment file of `start` at full length with its header, synced, under a temporary
// name renamed into place (so a crash never leaves a segment without a valid header), then syncs
// the directory. The file is opened with OpenFileBackend (I/O fault injection applies).
Result<std::unique_ptr<DiskBackend>> CreateSegment(const std::string& dir, ConstBytes database_id,
                                                   Lsn start, uint64_t capacity);
// The segment `f` opened for appending at `append_at` (f.start <= append_at), if its header is
// valid for `database_id` and it has room after append_at: sets *file and returns its capacity.
// Otherwise leaves *file null and returns 0 (the caller creates a new segment); kIOError only
// for a failed open or read.
Result<uint64_t> OpenForAppend(const SegmentFile& f, ConstBytes database_id, Lsn append_at,
                               std::unique_ptr<DiskBackend>* file);
// Overwrites with zeros every non-zero byte of the segment `file` from stream offset `from`
// (relative to the segment's start) to `capacity`, then syncs the file (what lies before `from`
// is named durable by the reopened log, and may have been in the page cache only). Only the
// preallocated body is written: no new space is needed.
Status ZeroTail(DiskBackend* file, uint64_t from, uint64_t capacity);
// Removes "*.tmp" files (segments a crash left half-created); sets *removed if any was.
Status RemoveTempFiles(const std::string& dir, bool* removed);
// fsync of a directory (after creating, renaming or removing files in it).
Status SyncDir(const std::string& dir);

// Frame header: len:u32 kind:u8 reserved[3] durable_hint:u64 payload_crc:u32 header_crc:u32.
inline uint32_t FrameHeaderCrc(Lsn start, const std::byte* header) {
  std::byte lsn[8];
  Store64(lsn, start);
  return crc32c::Extend(crc32c::Value(ConstBytes(lsn, 8)),
                        ConstBytes(header, kFrameHeaderSize - 4));
}

inline void EncodeFrameHeader(std::byte* h, Lsn start, LogFrameKind kind, uint32_t len,
                              Lsn durable_hint, uint32_t payload_crc) {
  Store32(h, len);
  h[4] = std::byte{static_cast<uint8_t>(kind)};
  h[5] = h[6] = h[7] = std::byte{0};
  Store64(h + 8, durable_hint);
  Store32(h + 16, payload_crc);
  Store32(h + 20, FrameHeaderCrc(start, h));
}

struct FrameHeader {
  uint32_t len = 0;
  LogFrameKind kind = LogFrameKind::kMtr;
  Lsn durable_hint = 0;
  uint32_t payload_crc = 0;
};

// Cheap pre-test for a header at any position: a known kind and zero reserved bytes.
inline bool PlausibleFrameHeader(const std::byte* h) {
  const auto kind = std::to_integer<uint8_t>(h[4]);
  return kind == static_cast<uint8_t>(LogFrameKind::kMtr) && h[5] == std::byte{0} &&
         h[6] == std::byte{0} && h[7] == std::byte{0};
}

// True if `h` is a valid frame header for a frame starting at `start`.
inline bool DecodeFrameHeader(const std::byte* h, Lsn start, FrameHeader* out) {
  if (!PlausibleFrameHeader(h) || Load32(h + 20) != FrameHeaderCrc(start, h)) return false;
  out->len = Load32(h);
  out->kind = static_cast<LogFrameKind>(std::to_integer<uint8_t>(h[4]));
  out->durable_hint = Load64(h + 8);
  out->payload_crc = Load32(h + 16);
  return true;
}

}  // namespace minnow::log_format
