#pragma once
// A frame: one kPageSize slot of the pool plus the bookkeeping that says which page it holds.
// Directory-private (only buffer_pool/*.cc include it).
//
// Frame states (`state`):
//
//   kFree ----(a loader takes it, installs page p)----> kLoading (pinned + X-latched by loader)
//   kLoading --(read + checksum ok)--> kValid            kLoading --(read failed)--> kFailed
//   kValid  --(evicted: unpinned, clean, at the LRU tail)--> kFree
//   kFailed --(evicted once every waiter has unpinned)--> kFree
//
// Pinning without a latch (the hit path takes no mutex): `pin` counts pins; its top bit
// (kEvictBit) means "owned by an evictor or on the free list, do not pin". A fetcher reads the
// page map, does pin.fetch_add(1), and backs off if it sees kEvictBit or if `page_no` is not the
// page it looked up (the map was stale). An evictor claims a frame only with
// CAS(pin, 0 -> kEvictBit), so a pinned frame is never evicted, and it clears the map entry
// afterwards. A new owner publishes the frame with pin.fetch_add(1 - kEvictBit) after setting
// `page_no` (never with a store, which would lose a concurrent fetcher's transient +1).
//
// Dirty state: `oldest_modification` is 1 + the start LSN of the first mini-transaction that
// changed the page since it was last written (0: clean; the +1 lets LSN 0 be a real LSN). It is set
// by mtr commit under the frame's X latch and cleared by write-back under the frame's S (or X)
// latch, so the two never race; other threads only read it.
//
// Invariants:
//   (1) pin & ~kEvictBit > 0  =>  the frame is not evicted and `page_no` does not change.
//   (2) holding the frame latch  =>  holding a pin.
//   (3) state == kValid and page p mapped to this frame  =>  page_no == p.
//   (4) a frame is on the free list or in the LRU list (or owned by one evictor/loader).

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/latch.h"
#include "common/types.h"

namespace minnow {

using FrameNo = uint32_t;
inline constexpr FrameNo kNoFrame = UINT32_MAX;
inline constexpr uint32_t kEvictBit = 1u << 31;

enum class FrameState : uint8_t { kFree = 0, kLoading, kValid, kFailed };

struct alignas(64) Frame {
  SharedLatch latch;  // the frame latch: S to read the page, X to change it
  std::atomic<uint32_t> pin{kEvictBit};
  std::atomic<PageNo> page_no{kInvalidPageNo};
  std::atomic<FrameState> state{FrameState::kFree};
  std::atomic<Lsn> oldest_modification{0};  // 1 + start LSN of the first unwritten change
  // With a doublewrite file: page_lsn of the newest image of this page written in place since
  // the frame was installed (0: none). Read and written under the pool's doublewrite latch while
  // the frame is pinned; reset when a page is installed. A batch never writes an image older
  // than this (doublewrite.cc says why).
  std::atomic<Lsn> disk_lsn{0};
  // Read by read-ahead and not fetched since (set by the reader under the X latch, cleared by
  // the first fetch, or by eviction, which counts it as read ahead in vain).
  std::atomic<bool> read_ahead{false};
  std::byte* data = nullptr;  // kPageSize bytes, fixed for the pool's life
  FrameNo index = 0;

  // LRU bookkeeping: links are guarded by the pool's LRU latch; the atomics are also read
  // without it on the hit path to decide whether the latch is needed at all.
  FrameNo lru_prev = kNoFrame;
  FrameNo lru_next = kNoFrame;
  bool in_lru = false;
  std::atomic<bool> in_old{false};
  std::atomic<uint64_t> young_stamp{0};      // LRU clock when last put at the young head
  std::atomic<uint64_t> first_access_ms{0};  // when loaded into the old sublist
};

}  // namespace minnow
