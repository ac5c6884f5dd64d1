// Write-back in bulk: FlushAll, checkpoints and the background flusher thread.

#include <algorithm>
#include <chrono>
#include <mutex>
#include <utility>
#include <vector>

#include "buffer_pool/buffer_pool_internal.h"
#include "common/crash_point.h"

namespace minnow {

Status BufferPool::Impl::FlushOne(const DirtyRef& d) NO_THREAD_SAFETY_ANALYSIS {
  Impl& impl = *this;
  Frame* f = &impl.frames[d.frame];
  if ((f->pin.fetch_add(1, std::memory_order_acq_rel) & kEvictBit) != 0) {
    f->pin.fetch_sub(1, std::memory_order_release);
    return Status::OK();  // being evicted, so it is clean
  }
  Status st;
  if (f->page_no.load(std::memory_order_acquire) == d.page_no &&
      f->state.load(std::memory_order_acquire) == FrameState::kValid) {
    f->latch.AcquireShared();
    if (f->oldest_modification.load(std::memory_order_acquire) != 0) st = impl.WriteBack(f);
    f->latch.ReleaseShared();
  }
  impl.Unpin(f);
  return st;
}

std::vector<BufferPool::Impl::DirtyRef> BufferPool::Impl::CollectDirty(Lsn below) {
  Impl& impl = *this;
  std::vector<DirtyRef> out;
  for (size_t i = 0; i < impl.nframes; ++i) {
    Frame& f = impl.frames[i];
    const Lsn om = f.oldest_modification.load(std::memory_order_acquire);
    if (om == 0 || om - 1 >= below) continue;
    const PageNo p = f.page_no.load(std::memory_order_acquire);
    if (p != kInvalidPageNo) out.push_back(DirtyRef{om, p, static_cast<FrameNo>(i)});
  }
  return out;
}

Status BufferPool::Impl::FlushBatches(const std::vector<DirtyRef>& refs) NO_THREAD_SAFETY_ANALYSIS {
  thread_local std::vector<std::byte> slots;
  slots.resize(std::min(refs.size(), kDoublewriteSlots) * kPageSize);
  PageImage images[kDoublewriteSlots];
  Status first_error;
  for (size_t next = 0; next < refs.size();) {
    // (a) Copy the images out, each under its frame's S latch; the pins stay until the end.
    size_t n = 0;
    for (; next < refs.size() && n < kDoublewriteSlots; ++next) {
      const DirtyRef& d = refs[next];
      Frame* f = &frames[d.frame];
      if ((f->pin.fetch_add(1, std::memory_order_acq_rel) & kEvictBit) != 0) {
        f->pin.fetch_sub(1, std::memory_order_release);
        continue;  // being evicted, so it is clean
      }
      bool captured = false;
      if (f->page_no.load(std::memory_order_acquire) == d.page_no &&
          f->state.load(std::memory_order_acquire) == FrameState::kValid) {
        f->latch.AcquireShared();
        if (f->oldest_modification.load(std::memory_order_acquire) != 0) {
          CaptureImage(f, slots.data() + n * kPageSize, &images[n]);
          captured = true;
        }
        f->latch.ReleaseShared();
      }
      if (captured) {
        ++n;
      } else {
        Unpin(f);
      }
    }
    // (b)-(d)
    Status st = WriteThroughDoublewrite(images, slots.data(), n);
    // (e) Clean only if unchanged since the copy (and written: on an error all stay dirty).
    for (size_t i = 0; i < n; ++i) {
      Frame* f = images[i].frame;
      if (st.ok()) {
        f->latch.AcquireShared();
        if (HeaderPageLsn(f->data) == images[i].lsn &&
            f->disk_lsn.load(std::memory_order_relaxed) == images[i].lsn) {
          ClearDirty(f);
        }
        f->latch.ReleaseShared();
      }
      Unpin(f);
    }
    if (!st.ok()) {
      if (first_error.ok()) first_error = std::move(st);
      if (!FatalError().ok()) break;
    }
  }
  return first_error;
}

Status BufferPool::Impl::FlushRefs(const std::vector<DirtyRef>& refs) {
  RETURN_IF_ERROR(FatalError());
  if (dblwr != nullptr) return FlushBatches(refs);
  Status first_error;
  for (const DirtyRef& d : refs) {
    Status st = FlushOne(d);
    if (!st.ok() && first_error.ok()) first_error = std::move(st);
    if (!FatalError().ok()) break;
  }
  return first_error;
}

Status BufferPool::Impl::FlushDirty(Lsn below) {
  std::vector<DirtyRef> todo = CollectDirty(below);
  std::sort(todo.begin(), todo.end(),
            [](const DirtyRef& a, const DirtyRef& b) { return a.page_no < b.page_no; });
  return FlushRefs(todo);
}

Status BufferPool::Impl::FlushOldest(size_t max) {
  LatchGuard serial(flush_latch_);
  std::vector<DirtyRef> todo = CollectDirty(UINT64_MAX);
  if (todo.size() > max) {
    std::nth_element(todo.begin(), todo.begin() + static_cast<ptrdiff_t>(max), todo.end(),
                     [](const DirtyRef& a, const DirtyRef& b) { return a.oldest < b.oldest; });
    todo.resize(max);
  }
  std::sort(todo.begin(), todo.end(),
            [](const DirtyRef& a, const DirtyRef& b) { return a.page_no < b.page_no; });
  return FlushRefs(todo);
}

Status BufferPool::Impl::FlushAndCheckpoint(Lsn below) NO_THREAD_SAFETY_ANALYSIS {
  LatchGuard serial(flush_latch_);
  RETURN_IF_ERROR(FatalError());
  RETURN_IF_ERROR(FlushDirty(below));
  if (Status st = disk->Sync(); !st.ok()) return SetFatal(std::move(st));
  // Every mtr that appended before `ckpt` has marked its pages dirty (commit_latch_), so the
  // pages still dirty bound what the file lacks. `ckpt` is a group boundary: the log's current
  // end, or the start of the oldest unwritten mtr.
  Lsn ckpt;
  commit_latch.Acquire();
  ckpt = log->current_lsn();
  for (size_t i = 0; i < nframes; ++i) {
    const Lsn om = frames[i].oldest_modification.load(std::memory_order_acquire);
    if (om != 0) ckpt = std::min(ckpt, om - 1);
  }
  commit_latch.Release();
  MINNOW_CRASH_POINT("checkpoint.before_header");
  // Page 0 records the checkpoint (unlogged: redo never touches this field); recovery reads the
  // log from there.
  ASSIGN_OR_RETURN(Frame * f0, Fetch(0, LatchMode::kExclusive));
  std::byte* field = f0->data + file_header_offset::kCheckpointLsn;
  if (Load64(field) < ckpt) Store64(field, ckpt);
  const Lsn recorded = Load64(field);
  Status st = WriteBack(f0);
  f0->latch.Release();
  Unpin(f0);
  RETURN_IF_ERROR(st);
  if (st = disk->Sync(); !st.ok()) return SetFatal(std::move(st));
  MINNOW_CRASH_POINT("checkpoint.after_header");
  log->Checkpoint(ckpt);  // only now: until page 0 is synced, recovery reads from the old one
  checkpoints.fetch_add(1, std::memory_order_relaxed);
  checkpoint_lsn.store(recorded, std::memory_order_relaxed);
  return Status::OK();
}

void BufferPool::Impl::RecordBackgroundError(const Status& st) {
  LatchGuard g(bg_error_latch_);
  if (bg_error_.ok()) bg_error_ = st;
}

void BufferPool::Impl::StartFlusher() {
  if (!options.background_flusher) return;
  flusher = std::thread([this] { FlusherLoop(); });
}

void BufferPool::Impl::StopFlusher() {
  if (!flusher.joinable()) return;
  {
    LatchGuard g(flusher_latch_);
    flusher_stop_ = true;
  }
  flusher_cv_.notify_all();
  flusher.join();
}

void BufferPool::Impl::WakeFlusher() {
  if (!flusher.joinable() || wake_pending_.exchange(true, std::memory_order_acq_rel)) return;
  {
    LatchGuard g(flusher_latch_);
    flusher_wake_ = true;
  }
  flusher_cv_.notify_one();
}

void BufferPool::Impl::FlusherLoop() NO_THREAD_SAFETY_ANALYSIS {
  const auto interval =
      std::chrono::milliseconds(std::max<uint32_t>(1, options.flusher_interval_ms));
  for (;;) {
    {
      std::unique_lock<Latch> l(flusher_latch_);
      flusher_cv_.wait_for(
          l, interval, [&]() REQUIRES(flusher_latch_) { return flusher_stop_ || flusher_wake_; });
      if (flusher_stop_) return;
      flusher_wake_ = false;
    }
    wake_pending_.store(false, std::memory_order_release);
    if (!FatalError().ok()) continue;  // recorded once below; retrying cannot help
    Status st;
    if (log->bytes_since_checkpoint() > options.log_capacity_bytes) {
      // Write the pages that hold the oldest half of the log back, then move the checkpoint
      // to the oldest change still unwritten (InnoDB's log_checkpoint_margin).
      const Lsn now = log->current_lsn();
      const Lsn half = options.log_capacity_bytes / 2;
      st = FlushAndCheckpoint(now > half ? now - half : 0);
    } else {
      const auto limit = static_cast<uint64_t>(options.max_dirty_fraction * nframes);
      const uint64_t dirty = dirty_pages.load(std::memory_order_relaxed);
      if (dirty > limit) {
        // Down to 90% of the limit, oldest first (they hold the checkpoint back).
        st = FlushOldest(static_cast<size_t>(dirty - limit * 9 / 10));
      }
    }
    if (!st.ok()) RecordBackgroundError(st);
  }
}

}  // namespace minnow
