// The pool's frames: construction, the page map, and fetching a page into a frame.

#include <fmt/format.h>
#include <sys/mman.h>

#include <cstring>
#include <thread>

#include "buffer_pool/buffer_pool_internal.h"
#include "buffer_pool/memory_redo_log.h"
#include "common/check.h"

namespace minnow {

PageMap::PageMap() : dir_(new std::atomic<std::atomic<FrameNo>*>[kDirSize]) {
  for (uint32_t i = 0; i < kDirSize; ++i) dir_[i].store(nullptr, std::memory_order_relaxed);
}

PageMap::~PageMap() {
  for (uint32_t i = 0; i < kDirSize; ++i) delete[] dir_[i].load(std::memory_order_relaxed);
}

void PageMap::Set(PageNo p, FrameNo f) {
  std::atomic<FrameNo>* chunk = dir_[p >> kChunkBits].load(std::memory_order_acquire);
  if (chunk == nullptr) {
    LatchGuard g(chunk_latch_);
    chunk = dir_[p >> kChunkBits].load(std::memory_order_acquire);
    if (chunk == nullptr) {
      chunk = new std::atomic<FrameNo>[kChunkSize];
      for (uint32_t i = 0; i < kChunkSize; ++i) chunk[i].store(kNoFrame, std::memory_order_relaxed);
      dir_[p >> kChunkBits].store(chunk, std::memory_order_release);
    }
  }
  chunk[p & (kChunkSize - 1)].store(f, std::memory_order_release);
}

void PageMap::ClearIf(PageNo p, FrameNo f) {
  std::atomic<FrameNo>* chunk = dir_[p >> kChunkBits].load(std::memory_order_acquire);
  if (chunk == nullptr) return;
  FrameNo expected = f;
  chunk[p & (kChunkSize - 1)].compare_exchange_strong(expected, kNoFrame,
                                                      std::memory_order_acq_rel);
}

BufferPool::Impl::Impl(std::unique_ptr<DiskBackend> disk_in, const BufferPoolOptions& options_in,
                       size_t n)
    : disk(std::move(disk_in)), options(options_in), nframes(n), frames(new Frame[n]) {
  void* mem = mmap(nullptr, nframes * kPageSize, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  MINNOW_CHECK(mem != MAP_FAILED, "mmap of {} frames failed", nframes);
  memory = static_cast<std::byte*>(mem);
  LatchGuard g(free_latch_);
  free_frames_.reserve(nframes);
  for (size_t i = 0; i < nframes; ++i) {
    frames[i].index = static_cast<FrameNo>(i);
    frames[i].data = memory + i * kPageSize;
    free_frames_.push_back(static_cast<FrameNo>(nframes - 1 - i));  // frame 0 first
  }
  for (auto& r : roots) r.store(kInvalidPageNo, std::memory_order_relaxed);
}

BufferPool::Impl::~Impl() {
  StopReadAhead();
  StopFlusher();
  munmap(memory, nframes * kPageSize);
}

Status BufferPool::Impl::ReadOnlyError() const {
  return Status::ReadOnly(fmt::format("{}: the database is open read-only", disk->name()));
}

Status BufferPool::Impl::Closed() const {
  return Status::Closed(fmt::format("{}: buffer pool is closed", disk->name()));
}

namespace {

bool LatchFrame(Frame* f, LatchMode mode) NO_THREAD_SAFETY_ANALYSIS {
  switch (mode) {
    case LatchMode::kShared:
      f->latch.AcquireShared();
      return true;
    case LatchMode::kExclusive:
      f->latch.Acquire();
      return true;
    case LatchMode::kTryShared:
      return f->latch.TryAcquireShared();
  }
  return false;
}

void UnlatchFrame(Frame* f, LatchMode mode) NO_THREAD_SAFETY_ANALYSIS {
  if (mode == LatchMode::kExclusive) {
    f->latch.Release();
  } else {
    f->latch.ReleaseShared();
  }
}

}  // namespace

// Publishes the free frame `v` (X-latched by the caller) as page `page_no` in `state`: pinned
// once, in the page map and at the LRU midpoint. If another thread installed the page first,
// gives `v` back to the free list, releases its latch and returns false: the caller retries.
bool BufferPool::Impl::InstallFrame(Frame* v, PageNo page_no,
                                    FrameState state) NO_THREAD_SAFETY_ANALYSIS {
  Latch& install = install_latches[page_no % kInstallShards];
  install.Acquire();
  Frame* f = nullptr;
  if (TryPinResident(page_no, &f) == PinResult::kPinned) {
    install.Release();
    v->latch.Release();
    Unpin(f);
    ReturnToFreeList(v);
    return false;
  }
  v->page_no.store(page_no, std::memory_order_relaxed);
  v->state.store(state, std::memory_order_relaxed);
  v->disk_lsn.store(0, std::memory_order_relaxed);
  v->read_ahead.store(false, std::memory_order_relaxed);
  v->pin.fetch_add(1 - kEvictBit, std::memory_order_release);
  map.Set(page_no, v->index);
  LruInsertMidpoint(v);
  install.Release();
  return true;
}

Result<Frame*> BufferPool::Impl::Fetch(PageNo page_no, LatchMode mode) NO_THREAD_SAFETY_ANALYSIS {
  if (closed.load(std::memory_order_relaxed)) [[unlikely]]
    return Closed();
  if (mode == LatchMode::kExclusive && options.read_only) [[unlikely]]
    return ReadOnlyError();
  for (;;) {
    Frame* f = nullptr;
    PinResult r = TryPinResident(page_no, &f);
    if (r == PinResult::kPinned) {
      if (!LatchFrame(f, mode)) {
        Unpin(f);
        return Status::Busy(fmt::format("{}: page {} is latched", disk->name(), page_no));
      }
      if (f->state.load(std::memory_order_acquire) == FrameState::kValid) [[likely]] {
        hits.Add();
        if (f->read_ahead.load(std::memory_order_relaxed)) [[unlikely]] {
          f->read_ahead.store(false, std::memory_order_relaxed);  // read ahead, now used
        }
        Touch(f);
        return f;
      }
      UnlatchFrame(f, mode);  // its read failed: try the read again ourselves
      Unpin(f);
      continue;
    }
    if (r == PinResult::kRetry) {
      std::this_thread::yield();
      continue;
    }
    // In recovery page 0's count may be older than the log, and the file shorter than it.
    const bool recovery = recovering.load(std::memory_order_relaxed);
    const uint32_t count = page_count.load(std::memory_order_acquire);
    if (page_no >= count && !recovery) {
      return Status::Corruption(fmt::format("{}: page {}: beyond the end of the file ({} pages)",
                                            disk->name(), page_no, count));
    }
    ASSIGN_OR_RETURN(Frame * v, GetVictim());
    v->latch.Acquire();  // uncontended: the frame is ours; frame latch before install latch
    if (!InstallFrame(v, page_no, FrameState::kLoading)) continue;  // someone else read it first

    misses.fetch_add(1, std::memory_order_relaxed);
    Status st;
    if (recovery && page_no >= file_pages.load(std::memory_order_acquire)) {
      // Never written before the crash: an unused zero page.
      std::memset(v->data, 0, kPageSize);
      Store32(v->data + page_offset::kPageNo, page_no);
    } else {
      st = ReadPage(page_no, v->data);
    }
    if (!st.ok()) {
      FailLoad(v, page_no);
      return st;
    }
    reads.fetch_add(1, std::memory_order_relaxed);
    v->state.store(FrameState::kValid, std::memory_order_release);
    if (mode == LatchMode::kExclusive) return v;
    v->latch.Release();
    if (!LatchFrame(v, mode)) {
      Unpin(v);
      return Status::Busy(fmt::format("{}: page {} is latched", disk->name(), page_no));
    }
    return v;
  }
}

void BufferPool::Impl::FailLoad(Frame* v, PageNo page_no) NO_THREAD_SAFETY_ANALYSIS {
  {
    LatchGuard g(install_latches[page_no % kInstallShards]);
    map.ClearIf(page_no, v->index);
  }
  v->read_ahead.store(false, std::memory_order_relaxed);
  v->state.store(FrameState::kFailed, std::memory_order_release);
  v->page_no.store(kInvalidPageNo, std::memory_order_release);
  v->latch.Release();
  LruMoveToTail(v);
  Unpin(v);
}

Result<Frame*> BufferPool::Impl::NewPage(PageNo page_no) NO_THREAD_SAFETY_ANALYSIS {
  if (closed.load(std::memory_order_relaxed)) return Closed();
  if (options.read_only) return ReadOnlyError();
  for (;;) {
    Frame* f = nullptr;
    PinResult r = TryPinResident(page_no, &f);
    if (r == PinResult::kPinned) {
      f->latch.Acquire();
      if (f->state.load(std::memory_order_acquire) != FrameState::kValid) {
        f->latch.Release();
        Unpin(f);
        continue;
      }
      std::memset(f->data, 0, kPageHeaderSize);
      Store32(f->data + page_offset::kPageNo, page_no);
      return f;
    }
    if (r == PinResult::kRetry) {
      std::this_thread::yield();
      continue;
    }
    ASSIGN_OR_RETURN(Frame * v, GetVictim());
    std::memset(v->data, 0, kPageHeaderSize);
    Store32(v->data + page_offset::kPageNo, page_no);
    v->latch.Acquire();
    if (!InstallFrame(v, page_no, FrameState::kValid)) continue;
    return v;
  }
}

void BufferPool::Impl::MarkDirty(Frame* f, Lsn start_lsn) {
  if (f->oldest_modification.load(std::memory_order_relaxed) == 0) {
    f->oldest_modification.store(start_lsn + 1, std::memory_order_release);
    dirty_pages.fetch_add(1, std::memory_order_relaxed);
  }
}

void BufferPool::Impl::ClearDirty(Frame* f) {
  if (f->oldest_modification.exchange(0, std::memory_order_acq_rel) != 0) {
    dirty_pages.fetch_sub(1, std::memory_order_relaxed);
  }
}

}  // namespace minnow
