#pragma once
// Reading the durable log back (recovery, tests, tools). See log/durable_redo_log.h for the
// file and frame formats and for the tail-versus-corruption rule.
//
// ScanLog validates the segment files of `dir` against `database_id` and calls `fn` for every
// valid frame from `from` (a frame boundary: a checkpoint LSN or an LSN a transaction's records
// start at) in LSN order, up to the end of the log. It returns where the log ends.
//
// Errors (the database must not be opened in a silently wrong state):
//   kCorruption "redo log missing": `dir` does not exist or holds no segment
//   kCorruption "... belongs to another database": a segment's database_id differs
//   kCorruption "... segment missing": no segment contains `from`, or two consecutive segments
//               leave a gap (a deleted file in the middle)
//   kCorruption "... bad checksum at LSN x ... (valid records follow)": an invalid frame that
//               is not the torn tail (rule in durable_redo_log.h)
//   kCorruption for a bad segment header; kIOError for a failed read.
// An invalid frame at the tail is not an error: the scan ends there (LogScanResult::torn_tail
// says whether bytes were cut off).
//
// Looking for valid frames after an invalid one (log/log_reader.cc): if the bad frame's header
// validated, its length says where the next frame starts, which is tried first; then every
// position from the bad frame (at least the last segment's start) up to the last non-zero byte
// of the last segment is tested (kind byte, reserved bytes, then header crc with that
// position's LSN, then payload crc). No heuristic stops it early: a frame has a non-zero kind
// byte, so nothing after the last non-zero byte can be one. The cost is one read of the rest of
// the last segment, once per recovery.

#include <cstdint>
#include <functional>
#include <string>

#include "common/coding.h"
#include "common/types.h"
#include "log/durable_redo_log.h"
#include "minnow/status.h"

namespace minnow {

struct LogFrame {
  LogFrameKind kind;
  Lsn start_lsn;       // where the frame's header starts
  Lsn end_lsn;         // start + kFrameHeaderSize + payload.size()
  ConstBytes payload;  // valid only during the callback
};

struct LogScanResult {
  Lsn first_lsn = 0;       // start of the oldest segment on disk
  Lsn end_lsn = 0;         // end of the last valid frame (where appending resumes)
  uint64_t frames = 0;     // frames passed to fn
  uint64_t bytes = 0;      // end_lsn - from
  uint64_t segments = 0;   // segment files read
  bool torn_tail = false;  // an invalid frame (not all zeros) was cut off at the end
};

Result<LogScanResult> ScanLog(const std::string& dir, ConstBytes database_id, Lsn from,
                              const std::function<Status(const LogFrame&)>& fn);

}  // namespace minnow
