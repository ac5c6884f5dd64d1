#pragma once
// The buffer pool: the database file as 16 KiB pages cached in a fixed set of frames.
//
// Frame states (buffer_pool/frame.h has the details):
//   free  --fetch miss-->  reading (X-latched by the reader)  --read ok-->  clean
//   clean --mtr commit-->  dirty  --write-back (flusher, eviction, FlushAll)-->  clean
//   clean, unpinned, at the LRU tail  --eviction-->  free
//
// Replacement is InnoDB's LRU with a midpoint: a page read from disk enters the head of the
// "old" sublist (at least the last 3/8 of the LRU; the young part is capped at 5/8 of the
// pool) and moves to the young head only when touched again after old_blocks_time_ms, so one
// full scan cannot flush the hot set. A young page moves to the head only once it has drifted
// past a quarter of the young list, so hits on hot pages take no LRU latch.
//
// The WAL rule: before a dirty page is written, the redo log is made durable up to its
// page_lsn (RedoLog::FlushUpTo). Pages are checksummed (crc32c) when written and verified when
// read; a page that fails, a foreign or newer-format file, or a truncated file gives an error
// naming the file and page, never a crash and never silent use.
//
// Page lookup takes no latch on a hit: a lock-free page map and an atomic pin count per frame
// (frame.h). Page 0 stays pinned while the pool is open.
//
// Thread safety: all public methods are thread-safe. Latch order: frame latches (btree order:
// tree pages top-down and left-to-right, then page 0, then free-list pages; Allocate and Free
// hold page 0 only briefly, see mtr.h) before the pool's internal latches, which are leaves and
// never held across disk I/O except the two that serialize write-back (flush passes, and
// doublewrite batches: buffer_pool_internal.h). A frame latch may be held across I/O (reading
// the page into it, or writing one page back under S).
//
// TSan: frame latches are reused by many pages, so its lock-order checker reports false cycles;
// tests/tsan_suppressions.txt suppresses exactly those.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "buffer_pool/disk_backend.h"
#include "buffer_pool/page_guard.h"
#include "buffer_pool/redo_log.h"
#include "common/types.h"
#include "minnow/status.h"

namespace minnow {

struct BufferPoolOptions {
  size_t pool_bytes = 256u << 20;  // frames = pool_bytes / kPageSize (at least 16)
  bool background_flusher = true;  // a thread that writes dirty pages in the background
  uint32_t flusher_interval_ms = 100;
  double max_dirty_fraction = 0.5;           // the flusher starts writing above this
  uint64_t log_capacity_bytes = 256u << 20;  // checkpoint when the log holds more than this
  uint32_t old_blocks_time_ms = 1000;        // innodb_old_blocks_time
  bool create_if_missing = true;             // an empty backend is formatted
  // ReadAhead() reads pages (off: it does nothing), on a thread of its own unless
  // background_read_ahead is off (then before it returns).
  bool read_ahead = true;
  bool background_read_ahead = true;
  // Recovery mode: the file may be shorter than page 0 says (pages allocated since
  // the last checkpoint were never written) and a page beyond its end reads as an unused zero
  // page; no flusher runs and only ApplyLogRecords changes pages until EndRecovery().
  bool recovery = false;
  // Read-only (Options::read_only): no flusher runs, FetchWrite and new pages fail with
  // kReadOnly, and FlushAll and Close write nothing (no page can be dirty).
  bool read_only = false;
};

struct BufferPoolStats {
  uint64_t hits = 0;                // fetches that found the page in a frame
  uint64_t misses = 0;              // fetches that had to read it
  uint64_t reads = 0;               // pages read from the file
  uint64_t read_calls = 0;          // read requests to the file for them (one per page, or per run)
  uint64_t read_ahead = 0;          // of the pages read, those read by ReadAhead
  uint64_t read_ahead_evicted = 0;  // of those, evicted before any fetch used them
  uint64_t writes = 0;              // pages written to the file
  uint64_t evictions = 0;           // frames reused for another page
  uint64_t young_moves = 0;         // pages moved from the old to the young sublist
  uint64_t dirty_pages = 0;         // now
  uint64_t frames = 0;              // pool size in pages
  uint64_t free_frames = 0;         // frames holding no page ("Free buffers")
  uint64_t lru_pages = 0;           // frames holding a page, on the LRU list ("Database pages")
  uint64_t old_lru_pages = 0;       // of those, in the old sublist ("Old database pages")
  uint64_t pages_created = 0;       // pages allocated (new or from the free list), since open
  uint64_t pages_in_file = 0;
  uint64_t free_pages = 0;  // pages on the file's free list
  uint64_t compressed_writes = 0;
  uint64_t checkpoints = 0;          // checkpoints written to page 0
  uint64_t checkpoint_lsn = 0;       // the last one
  uint64_t doublewrite_batches = 0;  // batches written through the doublewrite file
};

// Page 0's description of the file, read straight from a backend (before any pool exists:
// recovery needs the checkpoint and the database id to find and check the log).
struct FileHeaderInfo {
  uint32_t format_version = 0;
  uint32_t page_count = 0;
  Lsn checkpoint_lsn = 0;
  std::array<std::byte, 16> database_id{};
};
// Validates page 0 (magic, version, page size, checksum) and returns its fields. The file may be
// shorter than page_count pages (that is for recovery to fix). kNotFound for an empty file.
Result<FileHeaderInfo> ReadFileHeader(DiskBackend* disk);

class BufferPool {
 public:
  // Opens the file behind `disk`: formats it if it is empty (and options allow), otherwise
  // checks page 0 (magic, format version, page size, checksum, file length).
  // `log` receives redo; nullptr means a MemoryRedoLog owned by the pool.
  // `doublewrite`, if given, is the doublewrite file (buffer_pool/doublewrite.h): every page
  // write-back then goes through it. Without one (in-memory databases, unit tests) pages are
  // written in place directly.
  static Result<std::unique_ptr<BufferPool>> Open(
      std::unique_ptr<DiskBackend> disk, const BufferPoolOptions& options, RedoLog* log = nullptr,
      std::unique_ptr<DiskBackend> doublewrite = nullptr);
  // Stops the flusher. Does not flush: call Close() for a clean close.
  ~BufferPool();

  // Stops the flusher, writes every dirty page, syncs the file and checkpoints the log. After
  // Close() fetches return kClosed; only the destructor may be called. REQUIRES: no guard or
  // mtr of this pool is alive.
  Status Close();

  // Pins and S-latches the page. kCorruption if the page fails its checksum or is beyond the
  // end of the file; kInvalidArgument for kInvalidPageNo.
  Result<ReadPageGuard> FetchRead(PageNo page_no);
  // Pins and X-latches the page. Changes must then go through a MiniTransaction (Adopt()).
  // Both return kNoSpace ("buffer pool full: all N frames pinned") when every frame stays
  // pinned, kIOError when a read (or the write-back of an evicted dirty page) fails, kClosed
  // after Close(). REQUIRES: the caller does not hold this page's latch.
  Result<WritePageGuard> FetchWrite(PageNo page_no);
  // Like FetchRead/FetchWrite but returns kBusy instead of waiting for the latch (a thread
  // that holds a right sibling and wants its left one must not wait: latch order).
  Result<ReadPageGuard> TryFetchRead(PageNo page_no);

  // Read-ahead (InnoDB's, for scans): a hint that `pages` will be fetched soon. Those not in
  // the pool are read into frames, on the read-ahead thread (or before ReadAhead returns, see
  // BufferPoolOptions), pages at most 8 apart with one read request (the pages between are read
  // into a scratch buffer and dropped), and enter the LRU at its midpoint as any page read; a
  // fetch that comes while a page is being read waits for it.
  // Each page is checked (checksum, page number) as any read. A page that fails, lies past the
  // end of the file or finds no frame is not read ahead: its fetch reads it and reports the
  // error. At most kMaxReadAhead pages a call and a quarter of the pool at a time; requests
  // beyond what the thread has queued (4 x kMaxReadAhead) are dropped. Does nothing during
  // recovery or after Close(). Takes no page latch in the calling thread: callable holding any.
  static constexpr size_t kMaxReadAhead = 64;
  void ReadAhead(std::span<const PageNo> pages);
  // Waits until the read-ahead thread has done every request made so far (tests).
  void WaitForReadAhead();
  bool read_ahead_enabled() const;

  // Writes all dirty pages (WAL rule first), syncs the file, records the checkpoint LSN in
  // page 0 and checkpoints the log. Concurrent mtrs may go on; pages they dirty meanwhile may
  // stay dirty. REQUIRES: the caller holds no page latch (it waits for S latches).
  Status FlushAll();

  // Recovery (REQUIRES: opened with options.recovery, before EndRecovery, one thread):
  // applies one mini-transaction's redo group read back from the log (redo_log.h format), which
  // started at `start_lsn` and ended at `end_lsn`: each page it names is fetched (a page beyond
  // the file's end as a zero page), changed unless its page_lsn >= end_lsn, stamped and marked
  // dirty. Returns how many pages it changed. kCorruption for a malformed group or a page that
  // fails its checksum (the message names the page and says that no doublewrite copy fixed it).
  Result<size_t> ApplyLogRecords(ConstBytes records, Lsn start_lsn, Lsn end_lsn);
  // Ends recovery: reloads the cached copy of page 0 (page count, free list, system roots),
  // extends the file to the page count and starts the flusher.
  Status EndRecovery();

  // The first failed write or sync of the data or doublewrite file, OK if none. After one, the
  // pool writes no page and checkpoints nothing (FlushAll, Close and eviction of a dirty page
  // return this error): on Linux a failed fsync may already have dropped the unwritten pages, so
  // only recovery from the log, after a reopen, can be trusted (PostgreSQL's rule).
  Status fatal_error() const;

  // Root page of system structure `slot` (file_header.h), kInvalidPageNo if unset. Reads a
  // cached copy: never latches page 0.
  PageNo system_root(size_t slot) const;
  // Sets it inside `mtr` (logged). The mtr holds page 0 X-latched until it commits: do this last
  // in the mtr (or in an mtr of its own), after any tree page latches.
  Status SetSystemRoot(class MiniTransaction* mtr, size_t slot, PageNo root);

  // The first error of background work nobody waited for (the flusher's writes, linking a
  // freed page at commit); OK if none. FlushAll() and Close() report their own errors.
  Status background_error() const;

  BufferPoolStats stats() const;
  RedoLog* log() const { return log_; }
  const std::string& file_name() const;
  uint64_t logical_size() const;           // page_count * kPageSize
  Result<uint64_t> physical_size() const;  // bytes allocated on disk (sparse files)
  uint64_t database_id_hash() const;

  // Opaque outside buffer_pool/ (defined in buffer_pool_internal.h); named here so the
  // directory's helpers can take it.
  struct Impl;

 private:
  friend class ReadPageGuard;
  friend class WritePageGuard;
  friend class MiniTransaction;
  explicit BufferPool(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  RedoLog* log_ = nullptr;
};

}  // namespace minnow
