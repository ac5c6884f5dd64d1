#include "buffer_pool/memory_redo_log.h"

#include <fmt/format.h>

#include <algorithm>

namespace minnow {

MemoryRedoLog::MemoryRedoLog(Lsn start_lsn)
    : current_(start_lsn), checkpoint_(start_lsn), flushed_(start_lsn) {}

Lsn MemoryRedoLog::Append(ConstBytes mtr_records) {
  LatchGuard g(latch_);
  current_ += mtr_records.size();
  groups_.push_back(Group{current_, std::string(AsStringView(mtr_records))});
  return current_;
}

Status MemoryRedoLog::FlushUpTo(Lsn lsn) {
  LatchGuard g(latch_);
  if (fail_flush_) return Status::IOError(fmt::format("memory redo log: flush to {} failed", lsn));
  flushed_ = std::max(flushed_, std::min(lsn, current_));
  return Status::OK();
}

void MemoryRedoLog::Checkpoint(Lsn lsn) {
  LatchGuard g(latch_);
  lsn = std::min(lsn, current_);
  if (lsn <= checkpoint_) return;
  checkpoint_ = lsn;
  if (retain_all_) return;
  while (!groups_.empty() && groups_.front().end_lsn <= lsn) groups_.pop_front();
}

Lsn MemoryRedoLog::current_lsn() const {
  LatchGuard g(latch_);
  return current_;
}

uint64_t MemoryRedoLog::bytes_since_checkpoint() const {
  LatchGuard g(latch_);
  return current_ - checkpoint_;
}

Lsn MemoryRedoLog::checkpoint_lsn() const {
  LatchGuard g(latch_);
  return checkpoint_;
}

Lsn MemoryRedoLog::flushed_lsn() const {
  LatchGuard g(latch_);
  return flushed_;
}

size_t MemoryRedoLog::group_count() const {
  LatchGuard g(latch_);
  return groups_.size();
}

Status MemoryRedoLog::ForEach(
    const std::function<Status(Lsn end_lsn, ConstBytes records)>& fn) const {
  LatchGuard g(latch_);
  for (const Group& group : groups_) RETURN_IF_ERROR(fn(group.end_lsn, AsBytes(group.bytes)));
  return Status::OK();
}

void MemoryRedoLog::SetRetainAll(bool retain) {
  LatchGuard g(latch_);
  retain_all_ = retain;
}

void MemoryRedoLog::FailFlush(bool fail) {
  LatchGuard g(latch_);
  fail_flush_ = fail;
}

}  // namespace minnow
