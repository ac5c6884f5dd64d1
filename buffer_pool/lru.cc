// Frame pinning, the LRU list with its midpoint, and eviction (frame.h explains the protocol).

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "buffer_pool/buffer_pool_internal.h"

namespace minnow {

namespace {

// Keeps the old sublist at 3/8 of the LRU (InnoDB's innodb_old_blocks_pct default, 37).
size_t OldTarget(size_t len) { return len * 3 / 8; }

}  // namespace

uint64_t NowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// ---- LRU list primitives; all REQUIRE lru_latch_.

namespace {

struct Lru {
  BufferPool::Impl& p;

  Frame& F(FrameNo i) { return p.frames[i]; }

  void LinkBefore(Frame* f, FrameNo next) NO_THREAD_SAFETY_ANALYSIS {
    f->lru_next = next;
    if (next == kNoFrame) {
      f->lru_prev = p.tail_;
      if (p.tail_ != kNoFrame) F(p.tail_).lru_next = f->index;
      p.tail_ = f->index;
    } else {
      f->lru_prev = F(next).lru_prev;
      F(next).lru_prev = f->index;
    }
    if (f->lru_prev == kNoFrame) {
      p.head_ = f->index;
    } else {
      F(f->lru_prev).lru_next = f->index;
    }
    f->in_lru = true;
    ++p.lru_len_;
  }

  void Unlink(Frame* f) NO_THREAD_SAFETY_ANALYSIS {
    if (p.old_head_ == f->index) p.old_head_ = f->lru_next;
    if (f->in_old.load(std::memory_order_relaxed)) --p.old_len_;
    if (f->lru_prev == kNoFrame) {
      p.head_ = f->lru_next;
    } else {
      F(f->lru_prev).lru_next = f->lru_next;
    }
    if (f->lru_next == kNoFrame) {
      p.tail_ = f->lru_prev;
    } else {
      F(f->lru_next).lru_prev = f->lru_prev;
    }
    f->lru_prev = f->lru_next = kNoFrame;
    f->in_lru = false;
    f->in_old.store(false, std::memory_order_relaxed);
    --p.lru_len_;
  }

  // Keeps the young sublist at most 5/8 of the pool (so the old sublist is at least 3/8): when a
  // promotion makes it longer, its tail page becomes the first old page. The boundary never
  // moves the other way, so a page is young only if it was touched again after
  // old_blocks_time (InnoDB instead keeps old at 3/8 of the current list, which carries
  // unread pages into the young list while the young list is short).
  void Rebalance() NO_THREAD_SAFETY_ANALYSIS {
    const size_t young_max = p.nframes - OldTarget(p.nframes);
    while (p.lru_len_ - p.old_len_ > young_max) {
      FrameNo cand = p.old_head_ == kNoFrame ? p.tail_ : F(p.old_head_).lru_prev;
      if (cand == kNoFrame) break;
      F(cand).in_old.store(true, std::memory_order_relaxed);
      p.old_head_ = cand;
      ++p.old_len_;
    }
    p.young_len_.store(p.lru_len_ - p.old_len_, std::memory_order_relaxed);
  }

  void InsertMidpoint(Frame* f) NO_THREAD_SAFETY_ANALYSIS {
    LinkBefore(f, p.old_head_);
    f->in_old.store(true, std::memory_order_relaxed);
    f->first_access_ms.store(NowMs(), std::memory_order_relaxed);
    p.old_head_ = f->index;
    ++p.old_len_;
    Rebalance();
  }

  void MoveToYoungHead(Frame* f) NO_THREAD_SAFETY_ANALYSIS {
    Unlink(f);
    LinkBefore(f, p.head_);
    f->young_stamp.store(p.lru_clock_.fetch_add(1, std::memory_order_relaxed) + 1,
                         std::memory_order_relaxed);
    Rebalance();
  }
};

}  // namespace

void BufferPool::Impl::LruInsertMidpoint(Frame* f) {
  LatchGuard g(lru_latch_);
  Lru{*this}.InsertMidpoint(f);
}

void BufferPool::Impl::LruMoveToTail(Frame* f) {
  LatchGuard g(lru_latch_);
  Lru lru{*this};
  if (f->in_lru) lru.Unlink(f);
  lru.LinkBefore(f, kNoFrame);
  // The tail is old by definition when an old sublist exists.
  if (old_head_ == kNoFrame) old_head_ = f->index;
  f->in_old.store(true, std::memory_order_relaxed);
  ++old_len_;
  lru.Rebalance();
}

void BufferPool::Impl::Touch(Frame* f) {
  if (f->in_old.load(std::memory_order_relaxed)) {
    // innodb_old_blocks_time: an old page becomes young only when touched again later.
    const uint64_t wait = options.old_blocks_time_ms;
    if (wait != 0 && NowMs() - f->first_access_ms.load(std::memory_order_relaxed) < wait) return;
    LatchGuard g(lru_latch_);
    if (!f->in_lru || !f->in_old.load(std::memory_order_relaxed)) return;
    Lru{*this}.MoveToYoungHead(f);
    young_moves.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // A young page moves to the head only once it has drifted past a quarter of the young
  // list (InnoDB buf_page_peek_if_young): hot pages cost no latch at all.
  const uint64_t clock = lru_clock_.load(std::memory_order_relaxed);
  const uint64_t stamp = f->young_stamp.load(std::memory_order_relaxed);
  if (clock - stamp <= young_len_.load(std::memory_order_relaxed) / 4) return;
  LatchGuard g(lru_latch_);
  if (!f->in_lru || f->in_old.load(std::memory_order_relaxed)) return;
  Lru{*this}.MoveToYoungHead(f);
}

BufferPool::Impl::PinResult BufferPool::Impl::TryPinResident(PageNo page_no, Frame** out) {
  const FrameNo i = map.Get(page_no);
  if (i == kNoFrame) return PinResult::kAbsent;
  // The caller reads the page right after pinning and latching, and the page is usually cold:
  // start loading its header and first slots now, so that the loads overlap the pin and latch
  // (the frame's memory is fixed for the pool's life, so this is safe even if it is evicted).
  const std::byte* data = memory + size_t{i} * kPageSize;
  for (size_t line = 0; line < 10; ++line) __builtin_prefetch(data + 64 * line);
  Frame* f = &frames[i];
  const uint32_t v = f->pin.fetch_add(1, std::memory_order_acq_rel);
  if ((v & kEvictBit) != 0) {
    f->pin.fetch_sub(1, std::memory_order_release);
    return PinResult::kRetry;
  }
  if (f->page_no.load(std::memory_order_acquire) != page_no) {
    Unpin(f);
    return PinResult::kRetry;
  }
  *out = f;
  return PinResult::kPinned;
}

void BufferPool::Impl::ReturnToFreeList(Frame* f) {
  f->page_no.store(kInvalidPageNo, std::memory_order_relaxed);
  f->state.store(FrameState::kFree, std::memory_order_relaxed);
  LatchGuard g(free_latch_);
  free_frames_.push_back(f->index);
}

Result<Frame*> BufferPool::Impl::GetVictim() {
  // Write-back candidates are pinned while we write them: few, so that other threads are not
  // starved of frames in a small pool.
  constexpr size_t kMaxDirtyCap = 16;
  const size_t kMaxDirty = std::clamp<size_t>(nframes / 16, 1, kMaxDirtyCap);
  int all_pinned_passes = 0;
  for (;;) {
    {
      LatchGuard g(free_latch_);
      if (!free_frames_.empty()) {
        Frame* f = &frames[free_frames_.back()];
        free_frames_.pop_back();
        return f;
      }
    }
    Frame* victim = nullptr;
    Frame* dirty[kMaxDirtyCap];
    size_t ndirty = 0;
    size_t scanned = 0;
    size_t pinned = 0;
    {
      LatchGuard g(lru_latch_);
      for (FrameNo i = tail_; i != kNoFrame && ndirty < kMaxDirty; i = frames[i].lru_prev) {
        Frame* f = &frames[i];
        ++scanned;
        if (f->pin.load(std::memory_order_acquire) != 0) {
          ++pinned;
          continue;
        }
        if (f->oldest_modification.load(std::memory_order_acquire) != 0) {
          // Pin it so it stays put while we write it back without the LRU latch.
          if ((f->pin.fetch_add(1, std::memory_order_acq_rel) & kEvictBit) != 0) {
            f->pin.fetch_sub(1, std::memory_order_release);
          } else {
            dirty[ndirty++] = f;
          }
          continue;
        }
        uint32_t expected = 0;
        if (!f->pin.compare_exchange_strong(expected, kEvictBit, std::memory_order_acq_rel)) {
          ++pinned;
          continue;
        }
        if (f->oldest_modification.load(std::memory_order_acquire) != 0) {
          f->pin.fetch_sub(kEvictBit, std::memory_order_release);  // a commit got in first
          continue;
        }
        Lru{*this}.Unlink(f);
        Lru{*this}.Rebalance();
        victim = f;
        break;
      }
    }
    if (victim != nullptr) {
      for (size_t k = 0; k < ndirty; ++k) Unpin(dirty[k]);
      const PageNo old = victim->page_no.load(std::memory_order_relaxed);
      if (old != kInvalidPageNo) {
        LatchGuard g(install_latches[old % kInstallShards]);
        map.ClearIf(old, victim->index);
        evictions.fetch_add(1, std::memory_order_relaxed);
      }
      if (victim->read_ahead.exchange(false, std::memory_order_relaxed)) {
        read_ahead_evicted.fetch_add(1, std::memory_order_relaxed);
      }
      victim->page_no.store(kInvalidPageNo, std::memory_order_relaxed);
      victim->state.store(FrameState::kFree, std::memory_order_relaxed);
      return victim;
    }
    if (ndirty > 0) {
      // Single-page flushes from the tail (the flusher normally keeps the tail clean).
      WakeFlusher();
      Status first_error;
      for (size_t k = 0; k < ndirty; ++k) {
        Frame* f = dirty[k];
        if (f->state.load(std::memory_order_acquire) == FrameState::kValid &&
            f->latch.TryAcquireShared()) {
          if (f->oldest_modification.load(std::memory_order_acquire) != 0) {
            Status st = WriteBack(f);
            if (!st.ok() && first_error.ok()) first_error = std::move(st);
          }
          f->latch.ReleaseShared();
        }
        Unpin(f);
      }
      if (!first_error.ok()) return first_error;
      continue;
    }
    // Pins by other evictors (their write-back candidates) and loaders are brief: only call
    // the pool full when every frame stays pinned for a while (~50 ms).
    if (scanned == pinned) {
      if (++all_pinned_passes >= 100) {
        return Status::NoSpace(fmt::format("buffer pool full: all {} frames pinned", nframes));
      }
      if (all_pinned_passes > 10) {
        std::this_thread::sleep_for(std::chrono::microseconds(500));
        continue;
      }
    } else {
      all_pinned_passes = 0;
    }
    std::this_thread::yield();
  }
}

}  // namespace minnow
