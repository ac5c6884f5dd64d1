// RowHeap work that walks the chain: the end of file, bounded scans, Drop and Compact.

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "buffer_pool/mtr.h"
#include "myisam/heap_page_internal.h"
#include "myisam/row_heap.h"

namespace minnow {

namespace hf = heap_format;

Result<HeapEnd> RowHeap::End() const {
  // Header, then the last page (the writers' latch order), so the two agree.
  ASSIGN_OR_RETURN(ReadPageGuard h, pool_->FetchRead(header_));
  const PageNo last = Load32(h.data() + hf::hdr::kLastPage);
  if (last == 0 || last == kInvalidPageNo || last == header_) {
    return Status::Corruption(fmt::format("{}: bad last page {}", Where(header_), last));
  }
  ASSIGN_OR_RETURN(ReadPageGuard g, pool_->FetchRead(last));
  RETURN_IF_ERROR(ValidateDataPage(last, g.data()));
  const hf::DataPageView view{g.data()};
  return HeapEnd{last, view.seq(), view.n_slots()};
}

Result<std::unique_ptr<HeapScan>> RowHeap::NewScan(const HeapEnd& end) const {
  ASSIGN_OR_RETURN(ReadPageGuard h, pool_->FetchRead(header_));
  const PageNo first = Load32(h.data() + hf::hdr::kFirstPage);
  return std::unique_ptr<HeapScan>(new HeapScan(this, first, end));
}

Result<std::unique_ptr<HeapScan>> RowHeap::NewScan() const {
  ASSIGN_OR_RETURN(HeapEnd end, End());
  return NewScan(end);
}

HeapScan::HeapScan(const RowHeap* heap, PageNo first, HeapEnd end)
    : heap_(heap), end_(end), next_page_(first), copy_(new std::byte[kPageSize]) {}

Status HeapScan::LoadPage(PageNo page_no) {
  if (page_no == 0 || page_no == kInvalidPageNo || page_no == heap_->header_) {
    return Status::Corruption(fmt::format("{}: the chain ends before the scan's end (seq {})",
                                          heap_->Where(page_no_), end_.seq));
  }
  {
    ASSIGN_OR_RETURN(ReadPageGuard g, heap_->pool_->FetchRead(page_no));
    std::memcpy(copy_.get(), g.data(), kPageSize);
  }
  RETURN_IF_ERROR(heap_->ValidateDataPage(page_no, copy_.get()));
  const hf::DataPageView view{copy_.get()};
  page_no_ = page_no;
  slot_ = 0;
  loaded_ = true;
  if (view.seq() > end_.seq) {  // cannot happen on an intact chain: the end page stops it
    return Status::Corruption(fmt::format("{}: seq {} is past the scan's end page {} (seq {})",
                                          heap_->Where(page_no), view.seq(), end_.page, end_.seq));
  }
  const bool last = view.seq() == end_.seq;
  if (last && page_no != end_.page) {
    return Status::Corruption(fmt::format("{}: seq {} but the scan's end page is {}",
                                          heap_->Where(page_no), view.seq(), end_.page));
  }
  limit_ = last ? std::min<size_t>(view.n_slots(), end_.slots) : view.n_slots();
  next_page_ = last ? kInvalidPageNo : view.next();
  if (!last && next_page_ == kInvalidPageNo) {
    return Status::Corruption(fmt::format("{}: seq {} is the last page, the scan's end is seq {}",
                                          heap_->Where(page_no), view.seq(), end_.seq));
  }
  return Status::OK();
}

Result<bool> HeapScan::Next(RowPosition* pos, std::string* row) {
  while (!done_) {
    if (!loaded_ || slot_ >= limit_) {
      if (loaded_ && next_page_ == kInvalidPageNo) {
        done_ = true;
        break;
      }
      RETURN_IF_ERROR(LoadPage(next_page_));
      continue;
    }
    const size_t i = slot_++;
    const hf::Slot s = hf::LoadSlot(copy_.get(), i);
    if (s.hole) continue;
    if (s.offset < hf::DataPageView{copy_.get()}.heap_top() ||
        size_t{s.offset} + s.len > kPageSize) {
      return Status::Corruption(
          fmt::format("{}: slot {} has offset {} length {} outside the records",
                      heap_->Where(page_no_), i, s.offset, s.len));
    }
    *pos = RowPosition{page_no_, static_cast<uint16_t>(i)};
    row->assign(reinterpret_cast<const char*>(copy_.get() + s.offset), s.len);
    return true;
  }
  return false;
}

Status RowHeap::Drop() {
  std::vector<PageNo> pages;
  {
    ASSIGN_OR_RETURN(ReadPageGuard hg, pool_->FetchRead(header_));
    PageNo p = Load32(hg.data() + hf::hdr::kFirstPage);
    const uint32_t count = Load32(hg.data() + hf::hdr::kPageCount);
    hg.Release();
    while (p != kInvalidPageNo) {
      if (pages.size() >= count) {
        return Status::Corruption(fmt::format("{}: chain longer than {} pages", Where(p), count));
      }
      ASSIGN_OR_RETURN(ReadPageGuard g, pool_->FetchRead(p));
      RETURN_IF_ERROR(ValidateDataPage(p, g.data()));
      pages.push_back(p);
      p = hf::DataPageView{g.data()}.next();
    }
  }
  // The data pages in batches (an mtr holds its pages until commit), then the header.
  constexpr size_t kBatch = 16;
  for (size_t i = 0; i < pages.size(); i += kBatch) {
    MiniTransaction mtr(pool_);
    for (size_t j = i; j < std::min(pages.size(), i + kBatch); ++j) {
      ASSIGN_OR_RETURN(MtrPage page, mtr.Write(pages[j]));
      RETURN_IF_ERROR(mtr.Free(page));
    }
    mtr.Commit();
  }
  MiniTransaction mtr(pool_);
  ASSIGN_OR_RETURN(MtrPage header, mtr.Write(header_));
  RETURN_IF_ERROR(mtr.Free(header));
  mtr.Commit();
  return pool_->background_error();
}

Result<PageNo> RowHeap::Compact(RowHeap* old, const MoveFn& on_move, const PublishFn& publish) {
  ASSIGN_OR_RETURN(PageNo fresh_header, Create(old->pool_));
  ASSIGN_OR_RETURN(std::unique_ptr<RowHeap> fresh, Open(old->pool_, fresh_header));
  Status st = [&]() -> Status {
    ASSIGN_OR_RETURN(std::unique_ptr<HeapScan> scan, old->NewScan());
    RowPosition pos;
    std::string row;
    for (;;) {
      ASSIGN_OR_RETURN(bool more, scan->Next(&pos, &row));
      if (!more) break;
      ASSIGN_OR_RETURN(RowPosition moved, fresh->Insert(AsBytes(row), InsertMode::kAppend));
      if (on_move) RETURN_IF_ERROR(on_move(pos, moved, row));
    }
    return publish ? publish(fresh_header) : Status::OK();
  }();
  if (!st.ok()) {
    (void)fresh->Drop();  // the original error matters more; a failed drop only leaks pages
    return st;
  }
  // Published: the caller's record names the new heap, so nothing may undo it now; the old
  // heap's pages are unreferenced and a failure to free them only leaks them.
  (void)old->Drop();
  return fresh_header;
}

}  // namespace minnow
