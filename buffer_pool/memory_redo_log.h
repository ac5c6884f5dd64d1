#pragma once
// A RedoLog kept in memory (log/ brings the durable one). It keeps every mtr group
// appended since the last checkpoint with its end LSN, so tests can replay the log onto an older
// copy of the file with ApplyRedo and get identical pages. LSN = byte position in the stream:
// a group of n bytes appended at LSN s ends at s + n.
//
// Storage: groups sit in fixed-size chunks (kChunkSize), each as [len:u32][len bytes], never
// straddling two chunks (a group larger than a chunk gets a chunk of its own). Checkpoint()
// recycles the chunks it empties instead of freeing them, so once the log has reached its
// high-water mark appends neither allocate nor touch fresh memory. Memory stays at that
// high-water mark (the pool bounds it: it checkpoints when the log passes log_capacity_bytes).
//
// Thread safety: all methods may be called concurrently.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "buffer_pool/redo_log.h"
#include "common/latch.h"

namespace minnow {

class MemoryRedoLog final : public RedoLog {
 public:
  // The stream starts at `start_lsn` (a reopened pool starts at its file's checkpoint LSN, so
  // LSNs keep growing across reopens).
  explicit MemoryRedoLog(Lsn start_lsn = 0);

  Lsn Append(ConstBytes mtr_records) override;
  Lsn AppendEncoded(size_t len, const std::function<void(Bytes dst)>& encode) override;
  // Memory is "durable" at once; records the high-water mark (tests check the WAL rule with
  // it). Fails with kIOError while a fault is set by FailFlush().
  Status FlushUpTo(Lsn lsn) override;
  // Drops groups that end at or before `lsn` (unless RetainAll is set).
  void Checkpoint(Lsn lsn) override;
  Lsn current_lsn() const override;
  uint64_t bytes_since_checkpoint() const override;

  Lsn checkpoint_lsn() const;
  Lsn flushed_lsn() const;  // the largest LSN FlushUpTo was asked for
  size_t group_count() const;

  // Calls `fn(end_lsn, records)` for each kept group in LSN order and stops at the first error.
  // `fn` must not call back into this log.
  Status ForEach(const std::function<Status(Lsn end_lsn, ConstBytes records)>& fn) const;

  // Tests: keep groups across checkpoints (replay from the very beginning).
  void SetRetainAll(bool retain);
  // Tests: make FlushUpTo fail (the WAL rule must then stop page writes).
  void FailFlush(bool fail);

 private:
  static constexpr size_t kChunkSize = size_t{1} << 20;
  static constexpr size_t kLenSize = 4;  // the u32 length before each group
  struct Chunk {
    std::unique_ptr<std::byte[]> data;
    size_t capacity = 0;
    size_t used = 0;  // groups fill [0, used)
  };
  // Returns kLenSize + len bytes at the end of the last chunk (starting a chunk if needed),
  // with the length stored, and counts the group. The caller fills the group bytes.
  std::byte* Reserve(size_t len) REQUIRES(latch_);

  // chunks_.front() holds the first kept group at head_, which starts at LSN first_lsn_; groups
  // continue to the chunk's `used`, then in the next chunk from 0. spare_ holds emptied
  // kChunkSize chunks for reuse.
  mutable Latch latch_;
  std::deque<Chunk> chunks_ GUARDED_BY(latch_);
  std::vector<std::unique_ptr<std::byte[]>> spare_ GUARDED_BY(latch_);
  size_t head_ GUARDED_BY(latch_) = 0;
  size_t groups_ GUARDED_BY(latch_) = 0;
  Lsn first_lsn_ GUARDED_BY(latch_);
  Lsn current_ GUARDED_BY(latch_);
  Lsn checkpoint_ GUARDED_BY(latch_);
  Lsn flushed_ GUARDED_BY(latch_);
  bool retain_all_ GUARDED_BY(latch_) = false;
  bool fail_flush_ GUARDED_BY(latch_) = false;
};

}  // namespace minnow
