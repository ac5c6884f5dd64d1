// Read-ahead (BufferPool::ReadAhead): pages a scan will fetch next, read into frames before it
// asks, pages at most kMaxGap apart with one vectored read, on a thread of the pool's own.
//
// A page read ahead goes through the same states as a fetch's miss (frame.h): the reader takes a
// free frame (GetVictim), X-latches it, installs it as kLoading (InstallFrame, which gives it
// back if the page got in first), reads, verifies and publishes it as kValid, and only then
// releases the latch and its pin. A fetch that finds the page meanwhile waits on the latch, as it
// waits for any reader. Claiming all frames of a batch before reading lets one ReadV fill a run
// of close pages (the frames are not adjacent in memory: one iovec each, and one into a scratch
// buffer for each gap between them).

#include <algorithm>
#include <vector>

#include "buffer_pool/buffer_pool_internal.h"
#include "buffer_pool/page_codec.h"

namespace minnow {

namespace {

constexpr size_t kMaxQueued = 4 * BufferPool::kMaxReadAhead;
constexpr PageNo kMaxGap = 8;  // pages read and dropped between two pages read ahead

// Where the pages between two read-ahead pages are read to (and dropped): every gap of a read
// shares it.
std::byte* GapScratch() {
  thread_local std::vector<std::byte> scratch(size_t{kMaxGap} * kPageSize);
  return scratch.data();
}

}  // namespace

bool BufferPool::read_ahead_enabled() const { return impl_->options.read_ahead; }

void BufferPool::ReadAhead(std::span<const PageNo> pages) {
  Impl& impl = *impl_;
  if (!impl.options.read_ahead || impl.closed.load(std::memory_order_relaxed) ||
      impl.recovering.load(std::memory_order_relaxed)) {
    return;
  }
  const uint32_t count = impl.page_count.load(std::memory_order_acquire);
  std::vector<PageNo> want;
  want.reserve(std::min(pages.size(), kMaxReadAhead));
  for (PageNo p : pages) {
    if (want.size() == kMaxReadAhead) break;
    if (p == 0 || p >= count || impl.map.Get(p) != kNoFrame) continue;  // page 0 stays pinned
    want.push_back(p);
  }
  if (want.empty()) return;
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  if (!impl.options.background_read_ahead) {
    impl.ReadAheadNow(std::move(want));
    return;
  }
  if (!impl.read_ahead_running_.load(std::memory_order_acquire)) return;  // stopped by Close
  {
    LatchGuard g(impl.read_ahead_latch_);
    if (impl.read_ahead_queue_.size() + want.size() > kMaxQueued) return;  // the thread lags
    impl.read_ahead_queue_.insert(impl.read_ahead_queue_.end(), want.begin(), want.end());
  }
  impl.read_ahead_cv_.notify_one();
}

void BufferPool::WaitForReadAhead() NO_THREAD_SAFETY_ANALYSIS {
  Impl& impl = *impl_;
  std::unique_lock<Latch> l(impl.read_ahead_latch_);
  impl.read_ahead_cv_.wait(l, [&]() REQUIRES(impl.read_ahead_latch_) {
    return impl.read_ahead_stop_ || (impl.read_ahead_queue_.empty() && !impl.read_ahead_busy_);
  });
}

void BufferPool::Impl::ReadAheadNow(std::vector<PageNo> pages) NO_THREAD_SAFETY_ANALYSIS {
  // Claim the frames first (never more than a quarter of the pool, so that fetches still find
  // victims while these are pinned).
  const size_t cap = std::min(kMaxReadAhead, std::max<size_t>(1, nframes / 4));
  std::vector<Frame*> claimed;
  claimed.reserve(std::min(cap, pages.size()));
  for (PageNo p : pages) {
    if (claimed.size() == cap || closed.load(std::memory_order_relaxed)) break;
    if (map.Get(p) != kNoFrame) continue;
    Result<Frame*> v = GetVictim();
    if (!v.ok()) break;     // every frame pinned, or a dirty victim could not be written: a hint
    (*v)->latch.Acquire();  // uncontended: the frame is ours
    if (!InstallFrame(*v, p, FrameState::kLoading)) continue;  // a fetch read it first
    (*v)->read_ahead.store(true, std::memory_order_relaxed);
    claimed.push_back(*v);
  }
  // One read per span of pages at most kMaxGap apart: the pages between go to a scratch buffer
  // and are dropped (a tree's leaves lie among other trees' pages; one large sequential read
  // costs the disk far less than one read per leaf).
  std::vector<Bytes> bufs;
  for (size_t i = 0; i < claimed.size();) {
    const PageNo first = claimed[i]->page_no.load(std::memory_order_relaxed);
    size_t j = i + 1;
    while (j < claimed.size() && claimed[j]->page_no.load(std::memory_order_relaxed) -
                                         claimed[j - 1]->page_no.load(std::memory_order_relaxed) <=
                                     kMaxGap + 1) {
      ++j;
    }
    bufs.clear();
    for (size_t k = i; k < j; ++k) {
      if (k > i) {
        const PageNo gap = claimed[k]->page_no.load(std::memory_order_relaxed) -
                           claimed[k - 1]->page_no.load(std::memory_order_relaxed) - 1;
        if (gap > 0) bufs.emplace_back(GapScratch(), size_t{gap} * kPageSize);
      }
      bufs.emplace_back(claimed[k]->data, kPageSize);
    }
    read_calls.fetch_add(1, std::memory_order_relaxed);
    const Status st = disk->ReadV(uint64_t{first} * kPageSize, bufs);
    for (size_t k = i; k < j; ++k) {
      Frame* f = claimed[k];
      const PageNo p = f->page_no.load(std::memory_order_relaxed);
      if (!st.ok() || !DecodePageImage(disk->name(), p, f->data).ok()) {
        FailLoad(f, p);  // its fetch reads it again and reports what is wrong
        continue;
      }
      reads.fetch_add(1, std::memory_order_relaxed);
      read_ahead_pages.fetch_add(1, std::memory_order_relaxed);
      f->state.store(FrameState::kValid, std::memory_order_release);
      f->latch.Release();
      Unpin(f);
    }
    i = j;
  }
}

void BufferPool::Impl::StartReadAhead() {
  if (!options.read_ahead || !options.background_read_ahead || read_ahead_thread.joinable()) {
    return;
  }
  read_ahead_running_.store(true, std::memory_order_release);
  read_ahead_thread = std::thread([this] { ReadAheadLoop(); });
}

void BufferPool::Impl::StopReadAhead() {
  if (!read_ahead_thread.joinable()) return;
  read_ahead_running_.store(false, std::memory_order_release);
  {
    LatchGuard g(read_ahead_latch_);
    read_ahead_stop_ = true;
  }
  read_ahead_cv_.notify_all();
  read_ahead_thread.join();
}

void BufferPool::Impl::ReadAheadLoop() NO_THREAD_SAFETY_ANALYSIS {
  std::vector<PageNo> batch;
  for (;;) {
    {
      std::unique_lock<Latch> l(read_ahead_latch_);
      read_ahead_busy_ = false;
      read_ahead_cv_.notify_all();  // WaitForReadAhead
      read_ahead_cv_.wait(l, [&]() REQUIRES(read_ahead_latch_) {
        return read_ahead_stop_ || !read_ahead_queue_.empty();
      });
      if (read_ahead_stop_) return;
      const size_t n = std::min(kMaxReadAhead, read_ahead_queue_.size());
      batch.assign(read_ahead_queue_.begin(), read_ahead_queue_.begin() + n);
      read_ahead_queue_.erase(read_ahead_queue_.begin(), read_ahead_queue_.begin() + n);
      read_ahead_busy_ = true;
    }
    // Requests are sorted one by one; several queued ones may interleave.
    std::sort(batch.begin(), batch.end());
    batch.erase(std::unique(batch.begin(), batch.end()), batch.end());
    ReadAheadNow(batch);
  }
}

}  // namespace minnow
