// The durable redo log: double-buffered appends, group commit, segment files, failure state.
//
// Latch order: write_latch → append_latch. sync_latch (the group-commit leader election),
// trx_latch and bg_latch are leaves, never held while taking another latch.
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

#include "txn/durable_redo_log.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

#include "common/check.h"
#include "common/crash_point.h"
#include "common/crc32c.h"
#include "txn/log_segment.h"

namespace minnow {

namespace {

void AtomicMax(std::atomic<Lsn>& a, Lsn v) {
  Lsn cur = a.load(std::memory_order_relaxed);
  while (cur < v && !a.compare_exchange_weak(cur, v, std::memory_order_seq_cst)) {
  }
}

}  // namespace

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

  Latch trx_latch;
  std::multiset<Lsn> open_trx GUARDED_BY(trx_latch);
  std::vector<std::pair<Lsn, Lsn>> ended_trx GUARDED_BY(trx_latch);  // (first_lsn, end_lsn)

  Latch bg_control_latch;  // Start/StopBackground, held across join
  Latch bg_latch;
  std::condition_variable_any bg_cv;
  bool bg_stop GUARDED_BY(bg_latch) = false;
  std::thread bg GUARDED_BY(bg_control_latch);

  template <typename Fill>
  Lsn AppendFrame(LogFrameKind kind, size_t len, const Fill& fill);
  Status WriteUpTo(Lsn lsn);
  Status WriteOutLocked() REQUIRES(write_latch);
  Status WriteStream(Lsn pos, ConstBytes data) REQUIRES(write_latch);  // pos: a frame boundary
  Status SwitchSegment(Lsn frame_boundary) REQUIRES(write_latch);
  Status FlushSlow(Lsn lsn);
  Status LeadSync();
  void FailLocked(const Status& st, Lsn attempted_end) REQUIRES(write_latch);
  Status ZeroRange(Lsn from, Lsn to) REQUIRES(write_latch);
  Status FailedStatus();
  Lsn RetainFrom();
  void BackgroundLoop();
};

// ---- appending ---------------------------------------------------------------------------

template <typename Fill>
Lsn DurableRedoLog::Impl::AppendFrame(LogFrameKind kind, size_t len, const Fill& fill) {
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
        log_format::EncodeFrameHeader(h, start, kind, static_cast<uint32_t>(len),
                                      durable.load(std::memory_order_relaxed),
                                      crc32c::Value(payload));
        b->used += need;
        ++frames;
        current.store(start + need, std::memory_order_release);
        return start + need;
      }
    }
    if (!WriteUpTo(target).ok()) return 0;
  }
}

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
  ASSIGN_OR_RETURN(std::unique_ptr<DiskBackend> file,
                   log_format::CreateSegment(options.dir, database_id, end, options.segment_bytes));
  segments.push_back({end, options.segment_bytes, log_format::SegmentPath(options.dir, end)});
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

// ---- transactions ------------------------------------------------------------------------

Lsn DurableRedoLog::Impl::RetainFrom() {
  const Lsn d = durable.load(std::memory_order_acquire);
  LatchGuard g(trx_latch);
  Lsn least = open_trx.empty() ? UINT64_MAX : *open_trx.begin();
  size_t keep = 0;
  for (size_t i = 0; i < ended_trx.size(); ++i) {
    if (ended_trx[i].second <= d) continue;  // its end record is durable: nothing to undo
    least = std::min(least, ended_trx[i].first);
    ended_trx[keep++] = ended_trx[i];
  }
  ended_trx.resize(keep);
  return least;
}

void DurableRedoLog::Impl::BackgroundLoop() NO_THREAD_SAFETY_ANALYSIS {
  const auto interval = std::chrono::milliseconds(options.background_interval_ms);
  for (;;) {
    {
      std::unique_lock<Latch> l(bg_latch);
      bg_cv.wait_for(l, interval, [&] { return bg_stop; });
      if (bg_stop) return;
    }
    const Lsn now = current.load(std::memory_order_acquire);
    if (now > durable.load(std::memory_order_acquire)) (void)FlushSlow(now);  // errors: failed
  }
}

// ---- DurableRedoLog ----------------------------------------------------------------------

Result<std::unique_ptr<DurableRedoLog>> DurableRedoLog::Open(const DurableLogOptions& options,
                                                             ConstBytes database_id, Lsn start_lsn)
    NO_THREAD_SAFETY_ANALYSIS {
  if (options.dir.empty()) return Status::InvalidArgument("redo log: empty directory name");
  if (options.segment_bytes < log_format::kMinSegmentBytes ||
      options.segment_bytes > log_format::kMaxSegmentBytes) {
    return Status::InvalidArgument(fmt::format("redo log: segment_bytes {} is outside [{}, {}]",
                                               options.segment_bytes, log_format::kMinSegmentBytes,
                                               log_format::kMaxSegmentBytes));
  }
  if (options.buffer_bytes < 4096 || options.buffer_bytes > (size_t{1} << 30)) {
    return Status::InvalidArgument(
        fmt::format("redo log: buffer_bytes {} is outside [4096, 1 GiB]", options.buffer_bytes));
  }
  if (options.background_interval_ms == 0) {
    return Status::InvalidArgument("redo log: background_interval_ms must be at least 1");
  }
  if (database_id.size() != kDatabaseIdSize) {
    return Status::InvalidArgument(fmt::format("redo log: database id of {} bytes (want {})",
                                               database_id.size(), kDatabaseIdSize));
  }
  std::error_code ec;
  std::filesystem::create_directories(options.dir, ec);
  if (ec)
    return Status::IOError(fmt::format("{}: create directory: {}", options.dir, ec.message()));

  auto impl = std::make_unique<Impl>();
  impl->options = options;
  std::memcpy(impl->database_id.data(), database_id.data(), kDatabaseIdSize);

  // Leftovers: half-created segment files, and a torn tail's segments at or after start_lsn.
  bool removed = false;
  RETURN_IF_ERROR(log_format::RemoveTempFiles(options.dir, &removed));
  ASSIGN_OR_RETURN(std::vector<log_format::SegmentFile> existing,
                   log_format::ListSegments(options.dir));
  for (const log_format::SegmentFile& f : existing) {
    if (f.start >= start_lsn) {
      if (::unlink(f.path.c_str()) != 0) {
        return Status::IOError(fmt::format("{}: unlink: {}", f.path, std::strerror(errno)));
      }
      removed = true;
    } else {
      impl->segments.push_back({f.start, 0, f.path});
    }
  }
  if (removed) RETURN_IF_ERROR(log_format::SyncDir(options.dir));
  ASSIGN_OR_RETURN(
      std::unique_ptr<DiskBackend> file,
      log_format::CreateSegment(options.dir, database_id, start_lsn, options.segment_bytes));
  impl->current_file = std::move(file);
  impl->segments.push_back(
      {start_lsn, options.segment_bytes, log_format::SegmentPath(options.dir, start_lsn)});
  impl->segments_created = 1;

  for (Impl::Buffer& b : impl->buffers) {
    b.data = std::make_unique_for_overwrite<std::byte[]>(options.buffer_bytes);
    b.capacity = options.buffer_bytes;
    b.start = start_lsn;
  }
  impl->current = start_lsn;
  impl->written = start_lsn;
  impl->durable = start_lsn;
  impl->checkpoint = start_lsn;
  impl->max_ack = start_lsn;
  return std::unique_ptr<DurableRedoLog>(new DurableRedoLog(std::move(impl)));
}

DurableRedoLog::DurableRedoLog(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

DurableRedoLog::~DurableRedoLog() { StopBackground(); }

Lsn DurableRedoLog::Append(ConstBytes mtr_records) {
  return impl_->AppendFrame(LogFrameKind::kMtr, mtr_records.size(), [&](Bytes dst) {
    if (!dst.empty()) std::memcpy(dst.data(), mtr_records.data(), dst.size());
  });
}

Lsn DurableRedoLog::AppendEncoded(size_t len, const std::function<void(Bytes dst)>& encode) {
  return impl_->AppendFrame(LogFrameKind::kMtr, len, encode);
}

Lsn DurableRedoLog::AppendTrx(ConstBytes record) {
  return impl_->AppendFrame(LogFrameKind::kTrx, record.size(), [&](Bytes dst) {
    if (!dst.empty()) std::memcpy(dst.data(), record.data(), dst.size());
  });
}

Status DurableRedoLog::FlushUpTo(Lsn lsn) {
  Impl& d = *impl_;
  if (lsn <= d.durable.load(std::memory_order_acquire) && !d.failed.load(std::memory_order_relaxed))
      [[likely]] {
    return Status::OK();
  }
  return d.FlushSlow(lsn);
}

Status DurableRedoLog::WriteUpTo(Lsn lsn) { return impl_->WriteUpTo(lsn); }

Status DurableRedoLog::CommitUpTo(Lsn lsn, FlushPolicy policy) NO_THREAD_SAFETY_ANALYSIS {
  Impl& d = *impl_;
  if (policy == FlushPolicy::kSyncAtCommit) {
    // A durable LSN is never zeroed, so it needs no acknowledgement record; and it stands even
    // if the log failed after it became durable.
    Status st = FlushUpTo(lsn);
    if (st.ok() || lsn <= d.durable.load(std::memory_order_acquire)) return Status::OK();
    return st;
  }
  Status st = policy == FlushPolicy::kWriteAtCommit      ? d.WriteUpTo(lsn)
              : d.failed.load(std::memory_order_acquire) ? d.FailedStatus()
                                                         : Status::OK();
  if (st.ok()) {
    AtomicMax(d.max_ack, lsn);  // seq_cst, then the failed check: pairs with FailLocked
    if (!d.failed.load(std::memory_order_seq_cst)) return Status::OK();
  }
  // The log failed before or while this commit was acknowledged: it stands only if the failure
  // kept its bytes (written and not zeroed).
  LatchGuard w(d.write_latch);
  if (lsn <= d.kept_end) return Status::OK();
  return d.failed_status;
}

void DurableRedoLog::Checkpoint(Lsn lsn) NO_THREAD_SAFETY_ANALYSIS {
  Impl& d = *impl_;
  lsn = std::min(lsn, d.current.load(std::memory_order_acquire));
  AtomicMax(d.checkpoint, lsn);
  const Lsn limit = std::min(lsn, d.RetainFrom());
  std::vector<Impl::Segment> doomed;
  {
    LatchGuard w(d.write_latch);
    while (d.segments.size() > 1 && d.segments[1].start <= limit) {
      doomed.push_back(std::move(d.segments.front()));
      d.segments.pop_front();
    }
  }
  if (doomed.empty()) return;
  for (const Impl::Segment& s : doomed) {
    if (::unlink(s.path.c_str()) == 0) d.segments_removed.fetch_add(1, std::memory_order_relaxed);
  }
  (void)log_format::SyncDir(
      d.options.dir);  // best effort: a resurrected file is only trimmed again
}

Lsn DurableRedoLog::current_lsn() const { return impl_->current.load(std::memory_order_acquire); }

uint64_t DurableRedoLog::bytes_since_checkpoint() const {
  return impl_->current.load(std::memory_order_acquire) -
         impl_->checkpoint.load(std::memory_order_acquire);
}

void DurableRedoLog::TrxStarted(Lsn first_lsn) {
  LatchGuard g(impl_->trx_latch);
  impl_->open_trx.insert(first_lsn);
}

void DurableRedoLog::TrxEnded(Lsn first_lsn, Lsn end_lsn) {
  Impl& d = *impl_;
  LatchGuard g(d.trx_latch);
  auto it = d.open_trx.find(first_lsn);
  MINNOW_DCHECK(it != d.open_trx.end(), "TrxEnded({}) without TrxStarted", first_lsn);
  if (it != d.open_trx.end()) d.open_trx.erase(it);
  if (end_lsn > d.durable.load(std::memory_order_acquire))
    d.ended_trx.emplace_back(first_lsn, end_lsn);
}

Lsn DurableRedoLog::retain_from() const { return impl_->RetainFrom(); }

void DurableRedoLog::StartBackground() {
  Impl& d = *impl_;
  LatchGuard c(d.bg_control_latch);
  if (d.bg.joinable()) return;
  {
    LatchGuard g(d.bg_latch);
    d.bg_stop = false;
  }
  d.bg = std::thread([&d] { d.BackgroundLoop(); });
}

void DurableRedoLog::StopBackground() {
  Impl& d = *impl_;
  LatchGuard c(d.bg_control_latch);
  if (!d.bg.joinable()) return;
  {
    LatchGuard g(d.bg_latch);
    d.bg_stop = true;
  }
  d.bg_cv.notify_all();
  d.bg.join();
}

Status DurableRedoLog::failed_status() const {
  if (!impl_->failed.load(std::memory_order_acquire)) return Status::OK();
  return impl_->FailedStatus();
}

DurableLogStats DurableRedoLog::stats() const {
  Impl& d = *impl_;
  DurableLogStats s;
  {
    LatchGuard g(d.append_latch);
    s.frames = d.frames;
  }
  s.bytes_written = d.bytes_written.load(std::memory_order_relaxed);
  s.writes = d.writes.load(std::memory_order_relaxed);
  s.syncs = d.syncs.load(std::memory_order_relaxed);
  s.flush_requests = d.flush_requests.load(std::memory_order_relaxed);
  s.segments_created = d.segments_created.load(std::memory_order_relaxed);
  s.segments_removed = d.segments_removed.load(std::memory_order_relaxed);
  s.durable_lsn = d.durable.load(std::memory_order_acquire);
  s.written_lsn = d.written.load(std::memory_order_acquire);
  s.current_lsn = d.current.load(std::memory_order_acquire);
  return s;
}

Lsn DurableRedoLog::durable_lsn() const { return impl_->durable.load(std::memory_order_acquire); }

Lsn DurableRedoLog::checkpoint_lsn() const {
  return impl_->checkpoint.load(std::memory_order_acquire);
}

const DurableLogOptions& DurableRedoLog::options() const { return impl_->options; }

std::string LogDirFor(const std::string& db_path) { return db_path + ".redo"; }

}  // namespace minnow
