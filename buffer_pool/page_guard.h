#pragma once
// RAII page guards: the only way to touch a frame's bytes (BusTub's rule). A guard is a pin plus
// the frame's latch, shared (ReadPageGuard) or exclusive (WritePageGuard); move-only; released at
// destruction or by Release(). Page changes go through a MiniTransaction (buffer_pool/mtr.h),
// which holds WritePageGuards and logs what changed; nobody writes through a bare guard.

#include <cstddef>
#include <utility>

#include "buffer_pool/page_header.h"
#include "common/coding.h"
#include "common/types.h"

namespace minnow {

class BufferPool;
struct Frame;

class ReadPageGuard {
 public:
  ReadPageGuard() = default;
  ReadPageGuard(ReadPageGuard&& o) noexcept { *this = std::move(o); }
  ReadPageGuard& operator=(ReadPageGuard&& o) noexcept;
  ReadPageGuard(const ReadPageGuard&) = delete;
  ReadPageGuard& operator=(const ReadPageGuard&) = delete;
  ~ReadPageGuard() { Release(); }

  void Release();
  bool valid() const { return frame_ != nullptr; }
  PageNo page_no() const { return page_no_; }
  const std::byte* data() const { return data_; }
  ConstBytes bytes() const { return {data_, kPageSize}; }

 private:
  friend class BufferPool;
  ReadPageGuard(BufferPool* pool, Frame* frame, PageNo page_no, const std::byte* data)
      : pool_(pool), frame_(frame), page_no_(page_no), data_(data) {}
  BufferPool* pool_ = nullptr;
  Frame* frame_ = nullptr;
  PageNo page_no_ = kInvalidPageNo;
  const std::byte* data_ = nullptr;
};

// Exclusive access. Writing marks nothing by itself: MiniTransaction records the changed ranges
// and marks the frame dirty at commit with the mtr's LSN.
class WritePageGuard {
 public:
  WritePageGuard() = default;
  WritePageGuard(WritePageGuard&& o) noexcept { *this = std::move(o); }
  WritePageGuard& operator=(WritePageGuard&& o) noexcept;
  WritePageGuard(const WritePageGuard&) = delete;
  WritePageGuard& operator=(const WritePageGuard&) = delete;
  ~WritePageGuard() { Release(); }

  void Release();
  bool valid() const { return frame_ != nullptr; }
  PageNo page_no() const { return page_no_; }
  const std::byte* data() const { return data_; }
  std::byte* mutable_data() { return data_; }
  ConstBytes bytes() const { return {data_, kPageSize}; }

 private:
  friend class BufferPool;
  friend class MiniTransaction;
  WritePageGuard(BufferPool* pool, Frame* frame, PageNo page_no, std::byte* data)
      : pool_(pool), frame_(frame), page_no_(page_no), data_(data) {}
  BufferPool* pool_ = nullptr;
  Frame* frame_ = nullptr;
  PageNo page_no_ = kInvalidPageNo;
  std::byte* data_ = nullptr;
};

}  // namespace minnow
