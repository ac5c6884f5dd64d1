#pragma once
// The durable redo log: the RedoLog the buffer pool writes mini-transaction redo to,
// kept in segment files on disk. It holds nothing else: undo lives in undo pages
// (mvcc/undo_store.h), which are redo-logged like any page.
//
// Files. A database file P has its log in the directory P + ".redo/", one file per segment,
// named "redo-<start LSN as 16 hex digits>.log". A segment is a 4 KiB header block followed by
// up to `segment_bytes` of log stream:
//
//   header: magic "MINNOWLG"  version:u32  database_id[16]  start_lsn:u64  capacity:u64
//           crc32c:u32 (of the bytes before it)                       (rest of the block zero)
//
// LSN = byte position in the log stream: the byte at LSN L of a segment starting at S with
// capacity C (S <= L < S + C) is at file offset 4096 + (L - S). Frames may straddle segments
// (the stream is continuous); segment k + 1 starts where segment k's data ends. A segment is
// synced in full before the next one is created, so an invalid frame in a segment that has a
// successor is corruption, never a torn tail. Segments are created with their full length
// (fallocate, or ftruncate where the file system cannot) so that fdatasync at commit does not
// have to write file-size metadata; a new segment is written under a temporary name, synced and
// renamed into place, then the directory is synced, so a crash never leaves a segment without a
// valid header. durable_lsn is always a frame boundary (a frame's durable_hint must never cover
// a frame whose tail might still be torn).
//
// Reopening. Open appends at the recovered end E of the log in the segment that holds E, if its
// header is valid and E is before its end: reopening a database needs no new disk space. First
// the segments starting after E are removed (a torn tail's leftovers) and the directory synced,
// then every non-zero byte of that segment from E on is overwritten with zeros and the segment
// synced (so the frames before E, which a process crash may have left in the page cache only,
// are durable, as durable_lsn = E says); only then is anything appended. So beyond the end of the
// log the last segment holds only zeros or a tail torn by the latest crash, never a stale frame of
// an earlier run at an LSN new frames could reach (a stale frame lined up behind new ones would be
// replayed, and its durable_hint could make a later torn tail look like corruption). A crash during
// the zeroing leaves E where it was: the zeroing only removes bytes past the end. A new segment is
// created only when no segment holds E (a new log, a segment that ended exactly at E, or a damaged
// header).
//
// Segment sizes grow with the load: a new log's first segment holds min(segment_bytes,
// kFirstSegmentBytes) and each next one twice its predecessor, up to segment_bytes
// (NextSegmentBytes), so an empty database costs about 1 MiB of log on disk, not a full
// segment, and a busy one reaches full-size segments after a few switches.
//
// Frames. Each Append or AppendEncoded writes one frame (one mini-transaction's redo):
//
//   len:u32  kind:u8  reserved[3]  durable_hint:u64  payload_crc:u32  header_crc:u32
//   payload[len]
//
//   kind          LogFrameKind (kMtr; any other value does not validate)
//   durable_hint  the log's durable LSN when the frame was appended: a frame can only name as
//                 durable what was synced before it was written
//   payload_crc   crc32c of the payload
//   header_crc    crc32c of (the frame's start LSN as u64, then the 20 header bytes before
//                 header_crc): a stale frame from another LSN never validates, and a reader can
//                 test any position cheaply
//
// A frame that starts at LSN s with len n ends at s + kFrameHeaderSize + n; Append* returns that
// end LSN, and current_lsn() is always a frame boundary.
//
// Tail or corruption. A reader (log/log_reader.h) stops at the first frame that does not
// validate. It is a torn tail (the normal end after a crash) unless a later valid frame in the
// log carries durable_hint > the bad frame's start: then the bad bytes had once been synced,
// and the log is corrupt in the middle (kCorruption, naming the LSN).
//
// Durability (innodb_flush_log_at_trx_commit):
//   FlushUpTo(lsn)  writes and fdatasyncs everything up to lsn (the WAL rule and policy 1).
//                   Group commit: one thread at a time is the leader; it takes the whole log
//                   buffer appended so far (swapping in the spare buffer, so appends go on),
//                   writes it, syncs once, and every waiter whose LSN that covered returns.
//   WriteUpTo(lsn)  writes without syncing (policy 2 at commit).
//   A background thread writes and syncs once every `background_interval_ms` (policies 0, 2).
//
// Failure. The first failed write or sync puts the log into the failed state: every later
// Append*, WriteUpTo and FlushUpTo returns that error (Append* returns 0 as LSN and records
// nothing), and so does failed_status(); only a reopen (recovery) clears it. Before it reports
// the failure, the log overwrites with zeros, best effort, the frame headers of the bytes
// beyond the last LSN it ever reported written-and-acknowledged (max_acknowledged_lsn: what a
// committer was told succeeded by CommitUpTo, and at least durable_lsn), so that a commit told
// "failed" is not found by recovery. If
// even that write fails, the outcome of those commits is unknown (documented in ARCHITECTURE),
// and the status's message says so. (The whole range [max_acknowledged_lsn, written end) is
// zeroed, not only the frame headers.) A commit racing with the failure gets a consistent
// answer: CommitUpTo returns OK after the failure only for an LSN the failure kept (durable, for
// kSyncAtCommit; written and not zeroed, for the other policies), the error otherwise.
//
// Thread safety: every method may be called concurrently. Append* may be called with page
// latches held (the mtr commit path): they never wait for a sync, only, when the log buffer is
// full, for a write of the buffer.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "buffer_pool/redo_log.h"
#include "common/latch.h"
#include "minnow/status.h"

namespace minnow {

inline constexpr size_t kLogSegmentHeaderSize = 4096;
inline constexpr size_t kFrameHeaderSize = 24;
inline constexpr size_t kDatabaseIdSize = 16;

enum class LogFrameKind : uint8_t {
  kMtr = 1,  // one mini-transaction's redo records (buffer_pool/redo_log.h format)
};

enum class FlushPolicy : uint8_t {
  kWriteAndSyncEverySecond = 0,  // innodb_flush_log_at_trx_commit = 0
  kSyncAtCommit = 1,             // = 1 (default)
  kWriteAtCommit = 2,            // = 2
};

// The capacity of a new log's first segment (less if segment_bytes is less).
inline constexpr uint64_t kFirstSegmentBytes = 1ull << 20;
// The capacity of the segment after one of `previous` bytes (0: none): twice it, at least
// kFirstSegmentBytes, at most `segment_bytes`.
uint64_t NextSegmentBytes(uint64_t previous, uint64_t segment_bytes);

struct DurableLogOptions {
  std::string dir;                         // P + ".redo"
  uint64_t segment_bytes = 64ull << 20;    // the largest segment's capacity (>= 64 KiB)
  size_t buffer_bytes = 4u << 20;          // each of the two log buffers (grown for a big frame)
  uint32_t background_interval_ms = 1000;  // the once-a-second write+sync of policies 0 and 2
};

struct DurableLogStats {
  uint64_t frames = 0;          // frames appended
  uint64_t bytes_written = 0;   // stream bytes written to segment files
  uint64_t writes = 0;          // pwrite calls
  uint64_t syncs = 0;           // fdatasync calls
  uint64_t flush_requests = 0;  // FlushUpTo calls that had to wait for a sync
  uint64_t segments_created = 0;
  uint64_t segments_removed = 0;
  Lsn durable_lsn = 0;
  Lsn written_lsn = 0;
  Lsn current_lsn = 0;
};

class DurableRedoLog final : public RedoLog {
 public:
  // Starts appending at `start_lsn` (the directory is created if missing). Used for a new
  // database (start_lsn = 0) and after recovery (start_lsn = the recovered end of the log, a
  // frame boundary): segments that start after start_lsn are removed first (a torn tail's
  // leftovers), and earlier ones are kept for trimming by Checkpoint. The segment holding
  // start_lsn is appended to after its bytes from start_lsn on are zeroed ("Reopening" above);
  // only if there is none is a new segment file created. `database_id` is page 0's (16 bytes).
  // kIOError if a file cannot be created or written, kNoSpace if the disk is full.
  static Result<std::unique_ptr<DurableRedoLog>> Open(const DurableLogOptions& options,
                                                      ConstBytes database_id, Lsn start_lsn);
  ~DurableRedoLog() override;  // stops the background thread; does not sync

  // RedoLog: mtr redo as a kMtr frame.
  Lsn Append(ConstBytes mtr_records) override;
  Lsn AppendEncoded(size_t len, const std::function<void(Bytes dst)>& encode) override;
  Status FlushUpTo(Lsn lsn) override;
  // Removes segment files that end at or before `lsn`; never the segment being appended to.
  void Checkpoint(Lsn lsn) override;
  Lsn current_lsn() const override;
  uint64_t bytes_since_checkpoint() const override;

  // Writes (no sync) everything up to `lsn`.
  Status WriteUpTo(Lsn lsn);
  // Commit waiting by policy: kSyncAtCommit → FlushUpTo, kWriteAtCommit → WriteUpTo,
  // kWriteAndSyncEverySecond → nothing. Records `lsn` as acknowledged on success.
  Status CommitUpTo(Lsn lsn, FlushPolicy policy);

  // Starts / stops the once-a-second writer (policies 0 and 2). Stop is idempotent.
  void StartBackground();
  void StopBackground();

  Status failed_status() const;
  DurableLogStats stats() const;
  Lsn durable_lsn() const;
  Lsn checkpoint_lsn() const;
  const DurableLogOptions& options() const;

  struct Impl;  // log/durable_redo_log.cc

 private:
  explicit DurableRedoLog(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The log directory of database file `db_path`.
std::string LogDirFor(const std::string& db_path);

}  // namespace minnow
