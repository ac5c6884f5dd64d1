// The durable redo log: Open, the public methods and the background writer (the write side is
// in log/log_writer.cc, the state in durable_redo_log_internal.h).

#include "log/durable_redo_log.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "log/durable_redo_log_internal.h"

namespace minnow {

// ---- the background writer ---------------------------------------------------------------

void DurableRedoLog::Impl::BackgroundLoop() NO_THREAD_SAFETY_ANALYSIS {
  const auto interval = std::chrono::milliseconds(options.background_interval_ms);
  for (;;) {
    {
      std::unique_lock<Latch> l(bg_latch);
      const auto deadline = std::chrono::steady_clock::now() + interval;
      while (!bg_stop && bg_cv.wait_until(l, deadline) != std::cv_status::timeout) {
      }
      if (bg_stop) return;
    }
    const Lsn now = current.load(std::memory_order_acquire);
    if (now > durable.load(std::memory_order_acquire)) (void)FlushSlow(now);  // errors: failed
  }
}

// ---- DurableRedoLog ----------------------------------------------------------------------

uint64_t NextSegmentBytes(uint64_t previous, uint64_t segment_bytes) {
  return std::min(segment_bytes, std::max(kFirstSegmentBytes, 2 * previous));
}

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

  // Leftovers: half-created segment files, and a torn tail's segments after start_lsn. The
  // segment holding start_lsn, if its header is ours and it has room, is appended to again (an
  // open needs no new disk space); its bytes from start_lsn on are zeroed first, so that no
  // stale frame of the torn tail can ever line up behind new frames and be replayed. Without
  // such a segment a new one is created; one that starts exactly at start_lsn is kept until its
  // replacement is renamed over it (deleting it first would leave no segment at all if we
  // crashed before creating the new one).
  bool removed = false;
  RETURN_IF_ERROR(log_format::RemoveTempFiles(options.dir, &removed));
  ASSIGN_OR_RETURN(std::vector<log_format::SegmentFile> existing,
                   log_format::ListSegments(options.dir));
  std::unique_ptr<DiskBackend> reused;
  uint64_t reused_capacity = 0;
  for (size_t i = existing.size(); i-- > 0;) {
    if (existing[i].start > start_lsn) continue;
    ASSIGN_OR_RETURN(reused_capacity,
                     log_format::OpenForAppend(existing[i], database_id, start_lsn, &reused));
    break;
  }
  for (const log_format::SegmentFile& f : existing) {
    if (f.start == start_lsn && reused == nullptr) continue;  // replaced by CreateSegment's rename
    if (f.start > start_lsn) {
      if (::unlink(f.path.c_str()) != 0) {
        return Status::IOError(fmt::format("{}: unlink: {}", f.path, std::strerror(errno)));
      }
      removed = true;
    } else {
      impl->segments.push_back({f.start, 0, f.path});
    }
  }
  if (removed) RETURN_IF_ERROR(log_format::SyncDir(options.dir));
  if (reused != nullptr) {
    Impl::Segment& last = impl->segments.back();
    RETURN_IF_ERROR(log_format::ZeroTail(reused.get(), start_lsn - last.start, reused_capacity));
    last.capacity = reused_capacity;
    impl->current_file = std::move(reused);
  } else {
    // After a segment that ended exactly at start_lsn, the next size up from its size.
    const uint64_t previous = impl->segments.empty() ? 0 : start_lsn - impl->segments.back().start;
    const uint64_t bytes = NextSegmentBytes(previous, options.segment_bytes);
    ASSIGN_OR_RETURN(std::unique_ptr<DiskBackend> file,
                     log_format::CreateSegment(options.dir, database_id, start_lsn, bytes));
    impl->current_file = std::move(file);
    impl->segments.push_back({start_lsn, bytes, log_format::SegmentPath(options.dir, start_lsn)});
    impl->segments_created = 1;
  }

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
  const uint32_t crc = crc32c::Value(mtr_records);  // outside the latch
  return impl_->AppendFrame(
      LogFrameKind::kMtr, mtr_records.size(),
      [&](Bytes dst) {
        if (!dst.empty()) std::memcpy(dst.data(), mtr_records.data(), dst.size());
      },
      &crc);
}

Lsn DurableRedoLog::AppendEncoded(size_t len, const std::function<void(Bytes dst)>& encode) {
  return impl_->AppendFrame(LogFrameKind::kMtr, len, encode, nullptr);
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

Status DurableRedoLog::CommitUpTo(Lsn lsn, FlushPolicy policy) {
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

void DurableRedoLog::Checkpoint(Lsn lsn) {
  Impl& d = *impl_;
  lsn = std::min(lsn, d.current.load(std::memory_order_acquire));
  AtomicMax(d.checkpoint, lsn);
  std::vector<Impl::Segment> doomed;
  {
    LatchGuard w(d.write_latch);
    while (d.segments.size() > 1 && d.segments[1].start <= lsn) {
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
