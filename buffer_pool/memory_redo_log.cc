#include "buffer_pool/memory_redo_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "common/check.h"

namespace minnow {

MemoryRedoLog::MemoryRedoLog(Lsn start_lsn)
    : first_lsn_(start_lsn), current_(start_lsn), checkpoint_(start_lsn), flushed_(start_lsn) {}

std::byte* MemoryRedoLog::Reserve(size_t len) {
  MINNOW_CHECK(len <= UINT32_MAX, "redo group of {} bytes", len);
  const size_t need = kLenSize + len;
  if (chunks_.empty() || chunks_.back().capacity - chunks_.back().used < need) {
    Chunk c;
    if (need > kChunkSize) {
      c.data = std::make_unique_for_overwrite<std::byte[]>(need);
      c.capacity = need;
    } else {
      if (spare_.empty()) {
        c.data = std::make_unique_for_overwrite<std::byte[]>(kChunkSize);
      } else {
        c.data = std::move(spare_.back());
        spare_.pop_back();
      }
      c.capacity = kChunkSize;
    }
    chunks_.push_back(std::move(c));
  }
  Chunk& c = chunks_.back();
  std::byte* p = c.data.get() + c.used;
  Store32(p, static_cast<uint32_t>(len));
  c.used += need;
  current_ += len;
  ++groups_;
  return p + kLenSize;
}

Lsn MemoryRedoLog::Append(ConstBytes mtr_records) {
  LatchGuard g(latch_);
  std::memcpy(Reserve(mtr_records.size()), mtr_records.data(), mtr_records.size());
  return current_;
}

Lsn MemoryRedoLog::AppendEncoded(size_t len, const std::function<void(Bytes dst)>& encode) {
  LatchGuard g(latch_);
  encode(Bytes(Reserve(len), len));
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
  while (groups_ > 0) {
    Chunk& front = chunks_.front();
    if (head_ == front.used) {  // the rest of this chunk was too small for the next group
      if (front.capacity == kChunkSize) spare_.push_back(std::move(front.data));
      chunks_.pop_front();
      head_ = 0;
      continue;
    }
    const Lsn end = first_lsn_ + Load32(front.data.get() + head_);
    if (end > lsn) break;
    head_ += kLenSize + (end - first_lsn_);
    first_lsn_ = end;
    --groups_;
  }
  if (groups_ == 0) {  // keep the last chunk (appends continue there), recycle the rest
    while (chunks_.size() > 1) {
      if (chunks_.front().capacity == kChunkSize) spare_.push_back(std::move(chunks_.front().data));
      chunks_.pop_front();
    }
    if (!chunks_.empty()) chunks_.front().used = 0;
    head_ = 0;
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
  return groups_;
}

Status MemoryRedoLog::ForEach(
    const std::function<Status(Lsn end_lsn, ConstBytes records)>& fn) const {
  LatchGuard g(latch_);
  Lsn start = first_lsn_;
  size_t pos = head_;
  size_t left = groups_;
  for (auto c = chunks_.begin(); left > 0; ++c, pos = 0) {
    for (; pos < c->used && left > 0; --left) {
      const std::byte* p = c->data.get() + pos;
      const size_t len = Load32(p);
      RETURN_IF_ERROR(fn(start + len, ConstBytes(p + kLenSize, len)));
      start += len;
      pos += kLenSize + len;
    }
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
