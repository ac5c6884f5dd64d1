#include "buffer_pool/memory_redo_log.h"

#include <fmt/format.h>

#include <algorithm>

namespace minnow {

MemoryRedoLog::MemoryRedoLog(Lsn start_lsn)
    : first_lsn_(start_lsn), current_(start_lsn), checkpoint_(start_lsn), flushed_(start_lsn) {}

Lsn MemoryRedoLog::Append(ConstBytes mtr_records) {
  LatchGuard g(latch_);
  current_ += mtr_records.size();
  bytes_.append(AsStringView(mtr_records));
  ends_.push_back(current_);
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
  while (!ends_.empty() && ends_.front() <= lsn) {
    skip_ += ends_.front() - first_lsn_;
    first_lsn_ = ends_.front();
    ends_.pop_front();
  }
  if (skip_ > bytes_.size() / 2) {
    bytes_.erase(0, skip_);
    skip_ = 0;
  }
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
  return ends_.size();
}

Status MemoryRedoLog::ForEach(
    const std::function<Status(Lsn end_lsn, ConstBytes records)>& fn) const {
  LatchGuard g(latch_);
  size_t pos = skip_;
  Lsn start = first_lsn_;
  for (Lsn end : ends_) {
    RETURN_IF_ERROR(fn(end, AsBytes(std::string_view(bytes_).substr(pos, end - start))));
    pos += end - start;
    start = end;
  }
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
