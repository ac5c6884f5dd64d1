#pragma once
// A RedoLog kept in memory (issue #2; txn/ brings the durable one). It keeps every mtr group
// appended since the last checkpoint with its end LSN, so tests can replay the log onto an older
// copy of the file with ApplyRedo and get identical pages. LSN = byte position in the stream:
// a group of n bytes appended at LSN s ends at s + n.
//
// Thread safety: all methods may be called concurrently.

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

#include "buffer_pool/redo_log.h"
#include "common/latch.h"

namespace minnow {

class MemoryRedoLog final : public RedoLog {
 public:
  // The stream starts at `start_lsn` (a reopened pool starts at its file's checkpoint LSN, so
  // LSNs keep growing across reopens).
  explicit MemoryRedoLog(Lsn start_lsn = 0);

  Lsn Append(ConstBytes mtr_records) override;
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
  // Kept groups back to back: bytes_[skip_] is the first kept byte, at LSN first_lsn_; group i
  // ends at ends_[i]. The dropped prefix is erased once it is half the buffer (amortized O(1)).
  mutable Latch latch_;
  std::string bytes_ GUARDED_BY(latch_);
  size_t skip_ GUARDED_BY(latch_) = 0;
  Lsn first_lsn_ GUARDED_BY(latch_);
  std::deque<Lsn> ends_ GUARDED_BY(latch_);
  Lsn current_ GUARDED_BY(latch_);
  Lsn checkpoint_ GUARDED_BY(latch_);
  Lsn flushed_ GUARDED_BY(latch_);
  bool retain_all_ GUARDED_BY(latch_) = false;
  bool fail_flush_ GUARDED_BY(latch_) = false;
};

}  // namespace minnow
