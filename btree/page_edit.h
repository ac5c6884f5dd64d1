#pragma once
// Changing B+tree pages: an editor interface through which every change is made (so that tree
// code logs redo through a mini-transaction while unit tests work on plain buffers), the
// page-level operations (insert, remove, replace, delete mark, reorganize), and a builder that
// lays out a whole page at once (splits, merges, bulk load).

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include "btree/page.h"
#include "buffer_pool/mtr.h"

namespace minnow {

// Where page changes go. MtrEditor logs them through a mini-transaction; BufferEditor writes a
// plain buffer (unit tests, page building).
class PageEditor {
 public:
  virtual ~PageEditor() = default;
  virtual const std::byte* data() const = 0;
  // [offset, offset+len) for writing; the range is recorded for redo.
  virtual Bytes Mutate(size_t offset, size_t len) = 0;
  // The whole page for writing, logged as one image.
  virtual Bytes MutateAll() = 0;
  // memmove within the page (the slot directory shifting by a slot); an mtr logs it as a move.
  virtual void Move(size_t dst, size_t src, size_t len) = 0;
  PageView view() const { return PageView(data()); }
};

class BufferEditor final : public PageEditor {
 public:
  explicit BufferEditor(std::byte* page) : p_(page) {}
  const std::byte* data() const override { return p_; }
  Bytes Mutate(size_t offset, size_t len) override { return {p_ + offset, len}; }
  Bytes MutateAll() override { return {p_, kPageSize}; }
  void Move(size_t dst, size_t src, size_t len) override { std::memmove(p_ + dst, p_ + src, len); }

 private:
  std::byte* p_;
};

class MtrEditor final : public PageEditor {
 public:
  explicit MtrEditor(MtrPage page) : page_(page) {}
  const std::byte* data() const override { return page_.data(); }
  Bytes Mutate(size_t offset, size_t len) override { return page_.Mutate(offset, len); }
  Bytes MutateAll() override { return page_.MutateAll(); }
  void Move(size_t dst, size_t src, size_t len) override { page_.Move(dst, src, len); }
  MtrPage page() const { return page_; }

 private:
  MtrPage page_;
};

// Header fields every page of a tree carries.
struct PageInit {
  uint16_t level = 0;
  PageNo index_id = kInvalidPageNo;
  uint16_t tree_flags = 0;
  PageNo prev = kInvalidPageNo;
  PageNo next = kInvalidPageNo;
};

// Makes the page an empty B+tree page (page type from the level). Common header fields other
// than the type are left alone.
void InitPage(PageEditor* ed, const PageInit& init);
// Inserts a record at slot `idx` (the caller found the position). REQUIRES: view().Fits(size).
// Reorganizes first when the contiguous space is short. Uses heap number `heap_no` if non-zero
// (REQUIRES: not in use), else a free or new one. Returns the record's heap number.
HeapNo InsertRecord(PageEditor* ed, size_t idx, const RecordSpec& rec, HeapNo heap_no = 0);
// Removes the record at slot `idx`; its bytes become garbage and its heap number free.
void RemoveRecord(PageEditor* ed, size_t idx);
// Replaces the record at slot `idx` keeping its heap number (its key must keep the slot's order).
// REQUIRES: the new record fits once the old one is gone (size <= old size + available()).
void ReplaceRecord(PageEditor* ed, size_t idx, const RecordSpec& rec);
// Sets or clears the record's delete mark and, if `sys` is not empty, overwrites its sys bytes.
// REQUIRES: the record has sys fields if `sys` is given.
void SetDeleteMark(PageEditor* ed, size_t idx, bool marked, ConstBytes sys = {});
// Rewrites a node record's child pointer.
void SetChild(PageEditor* ed, size_t idx, PageNo child);
// Compacts the heap (garbage becomes contiguous free space). Heap numbers are kept, so nothing
// needs reporting.
void Reorganize(PageEditor* ed);
void SetPrev(PageEditor* ed, PageNo prev);
void SetNext(PageEditor* ed, PageNo next);

// Lays out a page from scratch in a private buffer, records appended in key order; then
// CopyTo() writes it through an editor as one page image.
class PageBuilder {
 public:
  PageBuilder();
  void Reset(const PageInit& init);
  // Appends a record after the last one. heap_no 0: the next fresh heap number.
  // REQUIRES: Fits(rec.size()).
  HeapNo Append(const RecordSpec& rec, HeapNo heap_no = 0);
  bool Fits(size_t record_size) const { return view().Fits(record_size); }
  size_t used() const { return view().used(); }
  PageView view() const { return PageView(buf_.get()); }
  // Sets n_heap / n_free_heap from the heap numbers used (explicit ones may leave holes).
  void Finish();
  // Writes the page body (and page type) through `ed` as one image. Keeps ed's page_no, LSN
  // and flags. Calls Finish().
  void CopyTo(PageEditor* ed);
  std::byte* data() { return buf_.get(); }

 private:
  struct Deleter {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t(64)); }
  };
  std::unique_ptr<std::byte[], Deleter> buf_;
  HeapNo max_heap_ = kSupremumHeapNo;
};

// Hands out the lowest heap numbers not taken by records that keep theirs, so that a page's
// n_heap stays bounded by the most records it ever held at once (invariant (4), kMaxHeapNo).
class HeapNoAllocator {
 public:
  void MarkUsed(HeapNo h) {
    if (h < kMaxHeapNo) used_[h / 64] |= uint64_t{1} << (h % 64);
  }
  HeapNo Next() {
    while (next_ < kMaxHeapNo && (used_[next_ / 64] & (uint64_t{1} << (next_ % 64))) != 0) {
      ++next_;
    }
    MarkUsed(next_);
    return next_++;
  }

 private:
  std::array<uint64_t, (kMaxHeapNo + 64) / 64> used_{};
  HeapNo next_ = kFirstUserHeapNo;
};

}  // namespace minnow
