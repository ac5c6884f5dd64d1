#pragma once
// BufferPool::Impl: the pool's state and the helpers its .cc files share. Directory-private.
//
// Latch order (leaf latches last):
//   frame latches (btree order; page 0 after tree pages, then free-list pages)
//   -> install_latches_[shard]  (serializes installing a page into a frame)
//   -> lru_latch_ -> free_latch_
// commit_latch_ (shared by mtr commit, exclusive for computing a checkpoint LSN) is taken with
// frame latches held and nothing is acquired under it except the log's own latch.
// flush_latch_ serializes whole flush passes (FlushAll, checkpoints, the flusher's batches); it is
// taken with no frame latch held and held across their I/O.
// dblwr_latch_ serializes doublewrite batches (one doublewrite file): taken after any frame
// latches (an eviction holds the victim's S latch, a checkpoint page 0's X latch) and held
// across the batch's disk I/O (write and sync the doublewrite file, write and sync the data
// file); nothing is acquired under it. It is the one pool latch held across disk I/O; frame
// latches are too (S or X while writing one page back).
// fatal_latch_, bg_error_latch_ and read_ahead_latch_ are leaves.
// The read-ahead thread X-latches the free frames it claims for its pages (as a fetch's miss
// does) and, while it holds them, takes only pool latches and try-latches (eviction).

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/doublewrite.h"
#include "buffer_pool/file_header.h"
#include "buffer_pool/frame.h"
#include "common/latch.h"
#include "common/striped_counter.h"
#include "common/thread_annotations.h"

namespace minnow {

// PageNo -> FrameNo, read without any latch: a two-level array of atomics (chunks of 64 Ki
// entries allocated on first use). Writers of one page are serialized by the install latch.
class PageMap {
 public:
  PageMap();
  ~PageMap();
  FrameNo Get(PageNo p) const {
    std::atomic<FrameNo>* chunk = dir_[p >> kChunkBits].load(std::memory_order_acquire);
    if (chunk == nullptr) return kNoFrame;
    return chunk[p & (kChunkSize - 1)].load(std::memory_order_acquire);
  }
  void Set(PageNo p, FrameNo f);
  // Clears the entry if it still maps to `f`.
  void ClearIf(PageNo p, FrameNo f);

 private:
  static constexpr uint32_t kChunkBits = 16;
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr uint32_t kDirSize = 1u << (32 - kChunkBits);
  std::unique_ptr<std::atomic<std::atomic<FrameNo>*>[]> dir_;
  Latch chunk_latch_;
};

enum class LatchMode : uint8_t { kShared, kExclusive, kTryShared };

struct BufferPool::Impl {
  Impl(std::unique_ptr<DiskBackend> disk_in, const BufferPoolOptions& options_in, size_t frames);
  ~Impl();

  // ---- page access (buffer_pool.cc)
  // Pins and latches `page_no`, reading it on a miss. With kTryShared returns kBusy instead of
  // waiting for a latched page.
  Result<Frame*> Fetch(PageNo page_no, LatchMode mode);
  // Pins and X-latches a frame for `page_no` without reading it (a page beyond the old end of
  // the file); the page header is zero except the page number, the body is left as it was
  // (MiniTransaction::Allocate, the only caller, zeroes it: one 16 KiB memset, not two).
  Result<Frame*> NewPage(PageNo page_no);
  void Unpin(Frame* f) { f->pin.fetch_sub(1, std::memory_order_release); }
  // REQUIRES: X latch on f. Records the first unwritten change's start LSN.
  void MarkDirty(Frame* f, Lsn start_lsn);
  // Clears the dirty state after a write-back. REQUIRES: the frame latch (S or X).
  void ClearDirty(Frame* f);
  Status Closed() const;
  Status ReadOnlyError() const;  // kReadOnly: a write to a read-only pool

  // Undoes a failed read into `v` (X-latched and pinned by the caller, installed as page_no):
  // unmaps it, marks it failed, releases its latch and pin and sends it to the LRU tail.
  void FailLoad(Frame* v, PageNo page_no);

  // ---- read-ahead (read_ahead.cc)
  // Reads `pages` (sorted, unique, at most kMaxReadAhead) that are not in the pool into frames
  // of their own: claims and X-latches the frames first, then reads each span of close pages
  // with one ReadV, checks each page and publishes it. Pages it cannot read are skipped.
  void ReadAheadNow(std::vector<PageNo> pages);
  void StartReadAhead();
  void StopReadAhead();
  void ReadAheadLoop();

  // ---- frames and replacement (lru.cc)
  enum class PinResult { kPinned, kAbsent, kRetry };
  PinResult TryPinResident(PageNo page_no, Frame** out);
  bool InstallFrame(Frame* v, PageNo page_no, FrameState state);
  // A frame owned by the caller (pin == kEvictBit), from the free list or by eviction.
  Result<Frame*> GetVictim();
  void ReturnToFreeList(Frame* f);
  void LruInsertMidpoint(Frame* f) EXCLUDES(lru_latch_);
  void LruMoveToTail(Frame* f) EXCLUDES(lru_latch_);
  // The hit path's LRU update: usually reads two atomics and does nothing.
  void Touch(Frame* f);

  // ---- disk images (page_io.cc)
  // Reads page `page_no` into `dst` (kPageSize), verifying checksum and page number and
  // decompressing an lz4-stored page.
  Status ReadPage(PageNo page_no, std::byte* dst);
  // Writes the frame's page (REQUIRES: caller holds the frame latch, S or X, and a pin),
  // obeying the WAL rule, and marks it clean: in place, or with a doublewrite file as a batch
  // of one (eviction, page 0 at a checkpoint). Returns the fatal error once there is one.
  Status WriteBack(Frame* f);
  // Makes sure the file is at least `pages` pages long (extends in chunks).
  Status EnsureFileSize(uint64_t pages);
  // Raises file_pages to at least `pages` (after a page was written in place: recovery writes
  // pages beyond the end of a short file, and EnsureFileSize must not overwrite them).
  void RaiseFilePages(uint64_t pages);

  // ---- doublewrite and the fatal I/O state (doublewrite.cc)
  // One page of a write-back batch: its image sits in the batch's slot buffer.
  struct PageImage {
    Frame* frame;  // pinned by the caller for the whole batch
    PageNo page_no;
    Lsn lsn;     // page_lsn of the image
    size_t len;  // bytes to write in place (< kPageSize: compressed, punch the rest)
    bool compressed;
  };
  // Builds f's image into `slot` (kPageSize bytes, zero-padded). REQUIRES: f latched (S or X).
  static void CaptureImage(Frame* f, std::byte* slot, PageImage* out);
  // Writes `n` captured images (slot i at slots + i * kPageSize) through the doublewrite file:
  // WAL flush, doublewrite write + sync, in-place writes (+ hole punching), data sync. Images
  // older than one already written in place are dropped. Does not touch dirty state. The first
  // failed write or sync becomes the fatal error. REQUIRES: n <= kDoublewriteSlots.
  Status WriteThroughDoublewrite(PageImage* images, std::byte* slots, size_t n)
      EXCLUDES(dblwr_latch_);
  // OK, or the fatal error (fast path: one relaxed atomic load).
  Status FatalError() const;
  // Records `st` as the fatal error if it is the first; returns it.
  Status SetFatal(Status st);

  // ---- flushing (flusher.cc)
  // Writes every page whose oldest modification is below `below` (all dirty pages if
  // `below` is UINT64_MAX), in page order.
  Status FlushDirty(Lsn below);
  // Writes up to `max` dirty pages, oldest modification first.
  Status FlushOldest(size_t max);
  struct DirtyRef {
    Lsn oldest;  // 1 + start LSN
    PageNo page_no;
    FrameNo frame;
  };
  std::vector<DirtyRef> CollectDirty(Lsn below);
  // Writes one dirty frame if it still holds d.page_no. REQUIRES: no frame latch held.
  Status FlushOne(const DirtyRef& d);
  // Writes `refs` through the doublewrite file in batches of up to kDoublewriteSlots: images
  // are copied under each frame's S latch, written with no frame latch held, and a frame is
  // marked clean only if its page_lsn is still the image's. REQUIRES: no frame latch held.
  Status FlushBatches(const std::vector<DirtyRef>& refs);
  // FlushOne for each, or FlushBatches with a doublewrite file. REQUIRES: flush_latch_.
  Status FlushRefs(const std::vector<DirtyRef>& refs);
  // Writes the pages dirtied before `below`, syncs, and checkpoints the log at the oldest
  // change still unwritten (recorded in page 0 first). REQUIRES: no frame latch held.
  Status FlushAndCheckpoint(Lsn below = UINT64_MAX);
  // Keeps the first error of work nobody waits for (flusher, commit-time free-list linking).
  void RecordBackgroundError(const Status& st);
  void StartFlusher();
  void StopFlusher();
  void WakeFlusher();
  void FlusherLoop();

  BufferPool* pool = nullptr;  // back pointer, for building guards
  std::unique_ptr<DiskBackend> disk;
  BufferPoolOptions options;
  RedoLog* log = nullptr;
  std::unique_ptr<RedoLog> owned_log;

  // Frames.
  const size_t nframes;
  std::byte* memory = nullptr;  // nframes * kPageSize, mmap'ed
  std::unique_ptr<Frame[]> frames;
  PageMap map;
  static constexpr size_t kInstallShards = 64;
  std::array<Latch, kInstallShards> install_latches;

  Latch free_latch_;
  std::vector<FrameNo> free_frames_ GUARDED_BY(free_latch_);

  // LRU: head = most recently used young page; old_head_ = first page of the old sublist
  // (about 3/8 of the list, ending at tail_).
  Latch lru_latch_;
  FrameNo head_ GUARDED_BY(lru_latch_) = kNoFrame;
  FrameNo tail_ GUARDED_BY(lru_latch_) = kNoFrame;
  FrameNo old_head_ GUARDED_BY(lru_latch_) = kNoFrame;
  size_t lru_len_ GUARDED_BY(lru_latch_) = 0;
  size_t old_len_ GUARDED_BY(lru_latch_) = 0;
  std::atomic<uint64_t> lru_clock_{0};  // bumped whenever a page is put at the young head
  std::atomic<uint64_t> young_len_{0};  // copy of lru_len_ - old_len_ for the hit path

  // The file, mirrored from page 0 (page 0 itself is changed only inside mtrs).
  std::atomic<uint32_t> page_count{1};
  std::atomic<uint32_t> free_page_count{0};
  std::array<std::atomic<PageNo>, kSystemRootSlots> roots;
  std::atomic<uint64_t> file_pages{0};  // the file's length in pages, as extended by us
  Latch extend_latch_;
  uint64_t database_id_hash = 0;

  SharedLatch commit_latch;
  Latch flush_latch_;

  // The doublewrite file (nullptr: pages are written in place directly).
  std::unique_ptr<DiskBackend> dblwr;
  Latch dblwr_latch_;
  // The fatal I/O error (BufferPool::fatal_error); fatal_set_ lets hot callers skip the latch.
  std::atomic<bool> fatal_set_{false};
  mutable Latch fatal_latch_;
  Status fatal_ GUARDED_BY(fatal_latch_);
  // Recovery mode (options.recovery until EndRecovery).
  std::atomic<bool> recovering{false};

  // Statistics.
  StripedCounter hits;
  std::atomic<uint64_t> misses{0}, reads{0}, read_calls{0}, writes{0}, evictions{0}, young_moves{0};
  std::atomic<uint64_t> compressed_writes{0}, dirty_pages{0};
  std::atomic<uint64_t> checkpoints{0}, checkpoint_lsn{0}, doublewrite_batches{0};
  std::atomic<uint64_t> pages_created{0};  // MiniTransaction::Allocate

  // Background flusher.
  std::thread flusher;
  Latch flusher_latch_;
  std::condition_variable_any flusher_cv_;
  bool flusher_stop_ GUARDED_BY(flusher_latch_) = false;
  bool flusher_wake_ GUARDED_BY(flusher_latch_) = false;
  std::atomic<bool> wake_pending_{false};  // lets hot callers skip the flusher latch
  Frame* page0 = nullptr;                  // page 0 stays pinned while the pool is open
  Latch bg_error_latch_;
  Status bg_error_ GUARDED_BY(bg_error_latch_);

  // Read-ahead (BufferPool::ReadAhead): requests queued for the read-ahead thread.
  std::thread read_ahead_thread;
  std::atomic<bool> read_ahead_running_{false};  // the thread takes requests
  Latch read_ahead_latch_;
  std::condition_variable_any read_ahead_cv_;
  std::vector<PageNo> read_ahead_queue_ GUARDED_BY(read_ahead_latch_);
  bool read_ahead_busy_ GUARDED_BY(read_ahead_latch_) = false;
  bool read_ahead_stop_ GUARDED_BY(read_ahead_latch_) = false;
  std::atomic<uint64_t> read_ahead_pages{0}, read_ahead_evicted{0};

  std::atomic<bool> closed{false};
};

uint64_t NowMs();

}  // namespace minnow
