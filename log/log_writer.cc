// The durable redo log's write side: buffer write-out, segment switches, group commit and the
// failure state (latching in log/durable_redo_log_internal.h).

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <mutex>

#include "common/crash_point.h"
#include "log/durable_redo_log_internal.h"

namespace minnow {

Status DurableRedoLog::Impl::FailedStatus() {
  LatchGuard w(write_latch);  // waits for a failure being handled (zeroing) to finish
  return failed_status;
}

// ---- writing -----------------------------------------------------------------------------

Status DurableRedoLog::Impl::WriteUpTo(Lsn lsn) {
  if (failed.load(std::memory_order_acquire)) return FailedStatus();
  lsn = std::min(lsn, current.load(std::memory_order_acquire));
  if (lsn <= written.load(std::memory_order_acquire)) return Status::OK();
  LatchGuard w(write_latch);
  if (!failed_status.ok()) return failed_status;
  if (lsn <= written.load(std::memory_order_relaxed)) return Status::OK();
  return WriteOutLocked();
}

// Swaps the buffers and writes the full one; appends go on into the other meanwhile.
Status DurableRedoLog::Impl::WriteOutLocked() {
  Buffer* b;
  {
    LatchGuard a(append_latch);
    b = active;
    if (b->used == 0) return Status::OK();
    active = spare;
    active->start = b->start + b->used;
    active->used = 0;
    spare = b;
  }
  const Lsn end = b->start + b->used;
  MINNOW_CRASH_POINT("log.before_write");
  Status st = WriteStream(b->start, ConstBytes(b->data.get(), b->used));
  if (!st.ok()) {
    FailLocked(st, end);
    return failed_status;
  }
  MINNOW_CRASH_POINT("log.after_write");
  written.store(end, std::memory_order_release);
  b->used = 0;
  if (b->capacity != options.buffer_bytes) {
    b->data = std::make_unique_for_overwrite<std::byte[]>(options.buffer_bytes);
    b->capacity = options.buffer_bytes;
  }
  return Status::OK();
}

Status DurableRedoLog::Impl::WriteStream(Lsn pos, ConstBytes data) {
  const Lsn first = pos;
  while (!data.empty()) {
    const Segment& seg = segments.back();
    const Lsn seg_end = seg.start + seg.capacity;
    if (pos == seg_end) {
      RETURN_IF_ERROR(SwitchSegment(first));
      continue;
    }
    const size_t n = static_cast<size_t>(std::min<uint64_t>(data.size(), seg_end - pos));
    RETURN_IF_ERROR(current_file->Write(kLogSegmentHeaderSize + (pos - seg.start), data.first(n)));
    writes.fetch_add(1, std::memory_order_relaxed);
    bytes_written.fetch_add(n, std::memory_order_relaxed);
    pos += n;
    data = data.subspan(n);
  }
  return Status::OK();
}

// The current segment is full: sync it (so an invalid frame in a segment with a successor is
// corruption, never a torn tail), then create the next one. `frame_boundary` (<= the segment's
// end) is the start of the buffer being written: everything before it is now durable. The
// segment's end itself may be inside a frame, and durable_lsn is always a frame boundary (a
// frame's durable_hint must never cover a frame whose tail may still be torn).
Status DurableRedoLog::Impl::SwitchSegment(Lsn frame_boundary) {
  const Segment& seg = segments.back();
  const Lsn end = seg.start + seg.capacity;
  RETURN_IF_ERROR(current_file->Sync());
  syncs.fetch_add(1, std::memory_order_relaxed);
  AtomicMax(durable, frame_boundary);  // earlier segments were synced at their own switch
  MINNOW_CRASH_POINT("log.segment_switch");
  const uint64_t bytes = NextSegmentBytes(seg.capacity, options.segment_bytes);
  ASSIGN_OR_RETURN(std::unique_ptr<DiskBackend> file,
                   log_format::CreateSegment(options.dir, database_id, end, bytes));
  segments.push_back({end, bytes, log_format::SegmentPath(options.dir, end)});
  current_file = std::move(file);
  segments_created.fetch_add(1, std::memory_order_relaxed);
  return Status::OK();
}

// ---- failure -----------------------------------------------------------------------------

// The first failure: no append, write or sync happens after it. Zeroes what a committer was
// never told succeeded, so that recovery ends before it.
void DurableRedoLog::Impl::FailLocked(const Status& st, Lsn attempted_end) {
  if (failed.load(std::memory_order_relaxed)) return;
  failed_status = st;
  failed.store(true, std::memory_order_seq_cst);
  // Pairs with CommitUpTo's ack-then-check: a commit acknowledged before this load is kept.
  const Lsn from =
      std::max(max_ack.load(std::memory_order_seq_cst), durable.load(std::memory_order_seq_cst));
  kept_end = std::min(from, written.load(std::memory_order_relaxed));
  if (attempted_end > from) {
    Status z = ZeroRange(from, attempted_end);
    if (!z.ok()) {
      failed_status = Status(st.code(), fmt::format("{} (zeroing the log beyond LSN {} failed too, "
                                                    "so commits after it may survive: {})",
                                                    st.message(), from, z.ToString()));
    }
  }
}

Status DurableRedoLog::Impl::ZeroRange(Lsn from, Lsn to) {
  static const std::array<std::byte, 64 << 10> kZeros{};
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& seg = segments[i];
    const bool last = i + 1 == segments.size();
    const Lsn seg_end = last ? seg.start + seg.capacity : segments[i + 1].start;
    const Lsn lo = std::max(from, seg.start);
    const Lsn hi = std::min(to, seg_end);
    if (lo >= hi || seg.capacity == 0) continue;
    std::shared_ptr<DiskBackend> file = current_file;
    if (!last) {
      ASSIGN_OR_RETURN(std::unique_ptr<DiskBackend> f, OpenFileBackend(seg.path, false));
      file = std::move(f);
    }
    for (Lsn p = lo; p < hi;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kZeros.size(), hi - p));
      RETURN_IF_ERROR(
          file->Write(kLogSegmentHeaderSize + (p - seg.start), ConstBytes(kZeros.data(), n)));
      p += n;
    }
    RETURN_IF_ERROR(file->Sync());
  }
  return Status::OK();
}

// ---- group commit ------------------------------------------------------------------------

Status DurableRedoLog::Impl::FlushSlow(Lsn lsn) NO_THREAD_SAFETY_ANALYSIS {
  if (failed.load(std::memory_order_acquire)) return FailedStatus();
  lsn = std::min(lsn, current.load(std::memory_order_acquire));
  if (lsn <= durable.load(std::memory_order_acquire)) return Status::OK();
  flush_requests.fetch_add(1, std::memory_order_relaxed);
  {
    std::unique_lock<Latch> l(sync_latch);
    for (;;) {
      if (lsn <= durable.load(std::memory_order_acquire)) return Status::OK();
      if (failed.load(std::memory_order_acquire)) {
        l.unlock();
        return FailedStatus();
      }
      if (!leader_active) break;
      sync_cv.wait(l);
    }
    leader_active = true;
  }
  Status st = LeadSync();  // covers lsn: it writes everything appended so far
  {
    LatchGuard g(sync_latch);
    leader_active = false;
  }
  sync_cv.notify_all();
  return st;
}

// Writes everything appended so far and syncs once, without holding the write latch across the
// fdatasync (so appends that fill a buffer can still write it out).
Status DurableRedoLog::Impl::LeadSync() {
  Lsn target;
  std::shared_ptr<DiskBackend> file;
  {
    LatchGuard w(write_latch);
    if (!failed_status.ok()) return failed_status;
    RETURN_IF_ERROR(WriteOutLocked());
    target = written.load(std::memory_order_relaxed);
    file = current_file;  // earlier segments were synced at their switch
  }
  if (target <= durable.load(std::memory_order_acquire)) return Status::OK();
  Status st = file->Sync();
  syncs.fetch_add(1, std::memory_order_relaxed);
  if (!st.ok()) {
    LatchGuard w(write_latch);
    FailLocked(st, written.load(std::memory_order_relaxed));
    return failed_status;
  }
  MINNOW_CRASH_POINT("log.after_sync");
  AtomicMax(durable, target);
  return Status::OK();
}

}  // namespace minnow
