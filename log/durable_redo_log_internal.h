#pragma once
// Private to log/: the durable redo log's state, shared by durable_redo_log.cc (appends, the
// public methods) and log_writer.cc (writing, group commit, the failure state).
//
// Latch order: write_latch → append_latch. sync_latch (the group-commit leader election) and
// bg_latch are leaves, never held while taking another latch.
//
//   append_latch  the active buffer (appends copy into it) and the frame count; held for one
//                 frame's encode + crc, never across I/O.
//   write_latch   the spare buffer (being written), the segment list, the current segment file
//                 and the failure state; held across pwrite (and a segment switch's fsync), but
//                 never across the group-commit fdatasync, so a full buffer can be written
//                 while the leader syncs.
//
// LSNs: current (appended) >= written (in the segment files) >= durable (synced), all atomics so
// that the common "already durable" FlushUpTo and current_lsn() are one load.

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "buffer_pool/disk_backend.h"
#include "common/check.h"
#include "common/crc32c.h"
#include "common/latch.h"
#include "log/durable_redo_log.h"
#include "log/log_segment.h"

namespace minnow {

inline void AtomicMax(std::atomic<Lsn>& a, Lsn v) {
  Lsn cur = a.load(std::memory_order_relaxed);
  while (cur < v && !a.compare_exchange_weak(cur, v, std::memory_order_seq_cst)) {
  }
}

struct DurableRedoLog::Impl {
  struct Buffer {
    std::unique_ptr<std::byte[]> data;
    size_t capacity = 0;
    size_t used = 0;  // stream bytes [start, start + used)
    Lsn start = 0;
  };
  struct Segment {
    Lsn start = 0;
    uint64_t capacity = 0;  // 0 for segments kept from before Open (only trimmed, never written)
    std::string path;
  };

  DurableLogOptions options;
  std::array<std::byte, kDatabaseIdSize> database_id{};

  Latch write_latch;
  Latch append_latch;
  Buffer buffers[2];
  Buffer* active GUARDED_BY(append_latch) = &buffers[0];
  Buffer* spare GUARDED_BY(write_latch) = &buffers[1];
  uint64_t frames GUARDED_BY(append_latch) = 0;

  std::deque<Segment> segments GUARDED_BY(write_latch);  // oldest first; back() is appended to
  std::shared_ptr<DiskBackend> current_file GUARDED_BY(write_latch);
  Status failed_status GUARDED_BY(write_latch);
  Lsn kept_end GUARDED_BY(write_latch) = 0;  // failed: bytes below were written and not zeroed

  std::atomic<Lsn> current{0};
  std::atomic<Lsn> written{0};
  std::atomic<Lsn> durable{0};
  std::atomic<Lsn> checkpoint{0};
  std::atomic<Lsn> max_ack{0};
  std::atomic<bool> failed{false};
  std::atomic<uint64_t> bytes_written{0}, writes{0}, syncs{0}, flush_requests{0};
  std::atomic<uint64_t> segments_created{0}, segments_removed{0};

  Latch sync_latch;
  std::condition_variable_any sync_cv;
  bool leader_active GUARDED_BY(sync_latch) = false;

  Latch bg_control_latch;  // Start/StopBackground, held across join
  Latch bg_latch;
  std::condition_variable_any bg_cv;
  bool bg_stop GUARDED_BY(bg_latch) = false;
  std::thread bg GUARDED_BY(bg_control_latch);

  template <typename Fill>
  // Appends one frame whose payload `fill` writes in place. `payload_crc`: the payload's crc if
  // the caller computed it outside the latch (Append of bytes it already has), else null.
  Lsn AppendFrame(LogFrameKind kind, size_t len, const Fill& fill, const uint32_t* payload_crc);
  Status WriteUpTo(Lsn lsn);
  Status WriteOutLocked() REQUIRES(write_latch);
  Status WriteStream(Lsn pos, ConstBytes data) REQUIRES(write_latch);  // pos: a frame boundary
  Status SwitchSegment(Lsn frame_boundary) REQUIRES(write_latch);
  Status FlushSlow(Lsn lsn);
  Status LeadSync();
  void FailLocked(const Status& st, Lsn attempted_end) REQUIRES(write_latch);
  Status ZeroRange(Lsn from, Lsn to) REQUIRES(write_latch);
  Status FailedStatus();
  void BackgroundLoop();
};

// ---- appending ---------------------------------------------------------------------------

template <typename Fill>
Lsn DurableRedoLog::Impl::AppendFrame(LogFrameKind kind, size_t len, const Fill& fill,
                                      const uint32_t* payload_crc) {
  MINNOW_CHECK(len <= UINT32_MAX - kFrameHeaderSize, "log frame of {} bytes", len);
  const size_t need = kFrameHeaderSize + len;
  for (;;) {
    Lsn target;
    {
      LatchGuard g(append_latch);
      if (failed.load(std::memory_order_relaxed)) return 0;
      Buffer* b = active;
      if (need > b->capacity - b->used && need <= options.buffer_bytes) {
        target = b->start + b->used;  // full: write it out (without this latch), then retry
      } else {
        if (need > b->capacity - b->used) {
          // A frame bigger than a buffer: grow this one (rare; the writer shrinks it again).
          auto bigger = std::make_unique_for_overwrite<std::byte[]>(b->used + need);
          if (b->used > 0) std::memcpy(bigger.get(), b->data.get(), b->used);
          b->data = std::move(bigger);
          b->capacity = b->used + need;
        }
        std::byte* h = b->data.get() + b->used;
        const Lsn start = b->start + b->used;
        const Bytes payload(h + kFrameHeaderSize, len);
        fill(payload);
        log_format::EncodeFrameHeader(
            h, start, kind, static_cast<uint32_t>(len), durable.load(std::memory_order_relaxed),
            payload_crc != nullptr ? *payload_crc : crc32c::Value(payload));
        b->used += need;
        ++frames;
        current.store(start + need, std::memory_order_release);
        return start + need;
      }
    }
    if (!WriteUpTo(target).ok()) return 0;
  }
}

}  // namespace minnow
