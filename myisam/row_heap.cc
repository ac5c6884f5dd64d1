// RowHeap writes: insert (fill a hole or append), delete, update in place or by moving, and the
// page-level edits they share. Each public write is one mini-transaction.

#include "myisam/row_heap.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>
#include <vector>

#include "buffer_pool/mtr.h"
#include "common/check.h"
#include "myisam/heap_page_internal.h"

namespace minnow {

namespace hf = heap_format;

static_assert(kMaxHeapRowSize == kPageSize - hf::data::kSlots - hf::data::kSlotSize);

namespace {

// The header page's counters, read from and written back to an MtrPage.
struct HeaderFields {
  PageNo first_page;
  PageNo last_page;
  uint32_t page_count;
  RowPosition hole_head;
  uint64_t rows;
  uint64_t row_bytes;
  uint64_t data_free;
  uint64_t holes;

  static HeaderFields Load(const std::byte* p) {
    HeaderFields h;
    h.first_page = Load32(p + hf::hdr::kFirstPage);
    h.last_page = Load32(p + hf::hdr::kLastPage);
    h.page_count = Load32(p + hf::hdr::kPageCount);
    h.hole_head.page = Load32(p + hf::hdr::kHoleHeadPage);
    h.hole_head.slot = Load16(p + hf::hdr::kHoleHeadSlot);
    h.rows = Load64(p + hf::hdr::kRows);
    h.row_bytes = Load64(p + hf::hdr::kRowBytes);
    h.data_free = Load64(p + hf::hdr::kDataFree);
    h.holes = Load64(p + hf::hdr::kHoles);
    return h;
  }
  // Writes only the fields that differ from the page, so the redo stays small.
  void Store(MtrPage* page) const {
    const HeaderFields old = Load(page->data());
    if (old.first_page != first_page) page->Write32(hf::hdr::kFirstPage, first_page);
    if (old.last_page != last_page) page->Write32(hf::hdr::kLastPage, last_page);
    if (old.page_count != page_count) page->Write32(hf::hdr::kPageCount, page_count);
    if (old.hole_head != hole_head) {
      page->Write32(hf::hdr::kHoleHeadPage, hole_head.page);
      page->Write16(hf::hdr::kHoleHeadSlot, hole_head.slot);
    }
    if (old.rows != rows) page->Write64(hf::hdr::kRows, rows);
    if (old.row_bytes != row_bytes) page->Write64(hf::hdr::kRowBytes, row_bytes);
    if (old.data_free != data_free) page->Write64(hf::hdr::kDataFree, data_free);
    if (old.holes != holes) page->Write64(hf::hdr::kHoles, holes);
  }
};

void StoreLiveSlot(MtrPage* page, size_t slot, uint16_t offset, uint16_t len) {
  Bytes s = page->Mutate(hf::SlotOffset(slot), hf::data::kSlotSize);
  Store16(s.data(), offset);
  Store16(s.data() + 2, len);
  Store32(s.data() + 4, 0);
}

void StoreHoleSlot(MtrPage* page, size_t slot, uint16_t former_len, RowPosition next) {
  Bytes s = page->Mutate(hf::SlotOffset(slot), hf::data::kSlotSize);
  Store16(s.data(), static_cast<uint16_t>(hf::kHoleFlag | (next.valid() ? next.slot : 0)));
  Store16(s.data() + 2, former_len);
  Store32(s.data() + 4, next.page);
}

// Rewrites the page with its live records packed at the end (garbage 0). Slot numbers stay;
// `dead_slot`, if set, is a live slot whose bytes are being replaced and is left with length 0.
// Logged as one page image.
void Reorganize(MtrPage* page, int dead_slot = -1) {
  std::vector<std::byte> old(page->data(), page->data() + kPageSize);
  const hf::DataPageView view{old.data()};
  Bytes all = page->MutateAll();
  size_t top = kPageSize;
  for (size_t i = 0; i < view.n_slots(); ++i) {
    const hf::Slot s = hf::LoadSlot(old.data(), i);
    if (s.hole) continue;
    std::byte* slot = all.data() + hf::SlotOffset(i);
    if (static_cast<int>(i) == dead_slot) {
      Store16(slot, static_cast<uint16_t>(kPageSize));
      Store16(slot + 2, 0);
      continue;
    }
    top -= s.len;
    std::memcpy(all.data() + top, old.data() + s.offset, s.len);
    Store16(slot, static_cast<uint16_t>(top));
  }
  std::memset(all.data() + view.slots_end(), 0, top - view.slots_end());
  Store16(all.data() + hf::data::kHeapTop, static_cast<uint16_t>(top));
  Store16(all.data() + hf::data::kGarbage, 0);
}

// Places `row` in the record area of `page` for `slot` (which must already exist), packing the
// page first when the contiguous free space is too small. REQUIRES: free + garbage >= len.
void PutRecord(MtrPage* page, size_t slot, ConstBytes row) {
  hf::DataPageView view{page->data()};
  if (view.free_bytes() < row.size()) {
    Reorganize(page);
    view = hf::DataPageView{page->data()};
  }
  MINNOW_DCHECK(view.free_bytes() >= row.size(), "no room after reorganize");
  const auto offset = static_cast<uint16_t>(view.heap_top() - row.size());
  if (!row.empty()) page->Write(offset, row);
  page->Write16(hf::data::kHeapTop, offset);
  StoreLiveSlot(page, slot, offset, static_cast<uint16_t>(row.size()));
}

// Frees the bytes of live slot `slot` (they become garbage).
void AddGarbage(MtrPage* page, size_t bytes) {
  hf::DataPageView view{page->data()};
  page->Write16(hf::data::kGarbage, static_cast<uint16_t>(view.garbage() + bytes));
}

// A live row's slot: kNotFound for a hole or a slot past the directory.
Result<hf::Slot> LiveSlot(const std::byte* page, RowPosition pos) {
  const hf::DataPageView view{page};
  if (pos.slot >= view.n_slots()) {
    return Status::NotFound(fmt::format("row position ({}, {}): no such slot", pos.page, pos.slot));
  }
  hf::Slot s = hf::LoadSlot(page, pos.slot);
  if (s.hole) {
    return Status::NotFound(
        fmt::format("row position ({}, {}): the row was deleted", pos.page, pos.slot));
  }
  return s;
}

Status CheckRowSize(size_t n) {
  if (n > kMaxHeapRowSize) {
    return Status::InvalidArgument(fmt::format(
        "row of {} bytes is larger than the heap's limit of {} bytes", n, kMaxHeapRowSize));
  }
  return Status::OK();
}

}  // namespace

// The pages one write holds, and the steps writes share. Lives for one mini-transaction.
// A mini-transaction cannot be abandoned (its destructor commits what it changed), so every
// check that can fail (page validation, counters, the hole list, allocation) comes before a
// write's first page change: a write that fails changes nothing.
class HeapWrite {
 public:
  HeapWrite(const RowHeap* heap, MiniTransaction* mtr) : heap_(heap), mtr_(mtr) {}

  Status Begin() {
    ASSIGN_OR_RETURN(header_, mtr_->Write(heap_->header_page()));
    if (header_.type() != hf::kHeaderPageType ||
        Load32(header_.data() + hf::hdr::kMagic) != hf::kHeapMagic) {
      return Status::Corruption(
          fmt::format("{}: not a heap header page", Where(heap_->header_page())));
    }
    h_ = HeaderFields::Load(header_.data());
    return Status::OK();
  }
  void Finish() { h_.Store(&header_); }

  Result<MtrPage> DataPage(PageNo page_no) {
    if (page_no == 0 || page_no == kInvalidPageNo || page_no == heap_->header_page()) {
      return Status::Corruption(
          fmt::format("{}: page {} is not a data page of the heap", Where(page_no), page_no));
    }
    ASSIGN_OR_RETURN(MtrPage page, mtr_->Write(page_no));
    RETURN_IF_ERROR(Validate(page_no, page.data()));
    return page;
  }

  // Stores a new row (counted in the header), where `mode` says.
  Result<RowPosition> Place(ConstBytes row, InsertMode mode) {
    if (mode == InsertMode::kFillHoles && h_.hole_head.valid()) {
      const RowPosition pos = h_.hole_head;
      ASSIGN_OR_RETURN(MtrPage page, DataPage(pos.page));
      const hf::DataPageView view{page.data()};
      if (pos.slot >= view.n_slots() || !hf::LoadSlot(page.data(), pos.slot).hole) {
        return Status::Corruption(fmt::format("{}: hole list names slot {}, which is not a hole",
                                              Where(pos.page), pos.slot));
      }
      if (view.free_bytes() + view.garbage() >= row.size()) {
        const hf::Slot hole = hf::LoadSlot(page.data(), pos.slot);
        if (h_.holes == 0 || h_.data_free < hole.len) {
          return Status::Corruption(
              fmt::format("{}: hole counters below the hole list's", Where(heap_->header_page())));
        }
        h_.hole_head = hole.next;
        h_.holes -= 1;
        h_.data_free -= hole.len;
        PutRecord(&page, pos.slot, row);
        CountRow(row.size());
        return pos;
      }
      // MyISAM looks at the newest hole only, then appends; so does this heap.
    }
    return Append(row);
  }

  // kCorruption if the header's counters could not hold `live` (checked before any change).
  Status CanFree(const hf::Slot& live) const {
    if (h_.rows == 0 || h_.row_bytes < live.len) {
      return Status::Corruption(fmt::format("{}: the header counts fewer rows than the pages hold",
                                            Where(heap_->header_page())));
    }
    return Status::OK();
  }

  // Turns live row `pos` into the newest hole. REQUIRES: CanFree(live) passed.
  void FreeSlot(MtrPage* page, RowPosition pos, const hf::Slot& live) {
    AddGarbage(page, live.len);
    StoreHoleSlot(page, pos.slot, live.len, h_.hole_head);
    h_.hole_head = pos;
    h_.holes += 1;
    h_.data_free += live.len;
    h_.rows -= 1;
    h_.row_bytes -= live.len;
  }

  void CountRow(size_t len) {
    h_.rows += 1;
    h_.row_bytes += len;
  }
  HeaderFields& fields() { return h_; }
  // Set by an append: the heap's end just after the appended row.
  const std::optional<HeapEnd>& appended_end() const { return appended_end_; }

 private:
  Result<RowPosition> Append(ConstBytes row) {
    ASSIGN_OR_RETURN(MtrPage last, DataPage(h_.last_page));
    hf::DataPageView view{last.data()};
    const size_t need = row.size() + hf::data::kSlotSize;
    if (view.n_slots() >= hf::kMaxSlots || view.free_bytes() + view.garbage() < need) {
      ASSIGN_OR_RETURN(MtrPage fresh, mtr_->Allocate(hf::kDataPageType));
      fresh.Write32(hf::data::kHeapId, heap_->header_page());
      fresh.Write32(hf::data::kNext, kInvalidPageNo);
      fresh.Write32(hf::data::kPrev, last.page_no());
      fresh.Write32(hf::data::kSeq, view.seq() + 1);
      fresh.Write16(hf::data::kHeapTop, static_cast<uint16_t>(kPageSize));
      last.Write32(hf::data::kNext, fresh.page_no());
      h_.last_page = fresh.page_no();
      h_.page_count += 1;
      last = fresh;
      view = hf::DataPageView{last.data()};
    } else if (view.free_bytes() < need) {
      Reorganize(&last);
      view = hf::DataPageView{last.data()};
    }
    const uint16_t slot = view.n_slots();
    last.Write16(hf::data::kNSlots, static_cast<uint16_t>(slot + 1));
    PutRecord(&last, slot, row);
    CountRow(row.size());
    appended_end_ = HeapEnd{last.page_no(), hf::DataPageView{last.data()}.seq(),
                            static_cast<uint16_t>(slot + 1)};
    return RowPosition{last.page_no(), slot};
  }

  Status Validate(PageNo page_no, const std::byte* page) const {
    return heap_->ValidateDataPage(page_no, page);
  }
  std::string Where(PageNo page_no) const { return heap_->Where(page_no); }

  const RowHeap* heap_;
  MiniTransaction* mtr_;
  MtrPage header_;
  HeaderFields h_{};
  std::optional<HeapEnd> appended_end_;
};

std::string RowHeap::Where(PageNo page_no) const {
  return fmt::format("{}: heap {}: page {}", pool_->file_name(), header_, page_no);
}

Status RowHeap::ValidateDataPage(PageNo page_no, const std::byte* page) const {
  if (HeaderPageType(page) != hf::kDataPageType) {
    return Status::Corruption(fmt::format("{}: type {} is not a heap data page", Where(page_no),
                                          static_cast<int>(HeaderPageType(page))));
  }
  const hf::DataPageView view{page};
  if (view.heap_id() != header_) {
    return Status::Corruption(
        fmt::format("{}: the page belongs to heap {}", Where(page_no), view.heap_id()));
  }
  if (view.n_slots() > hf::kMaxSlots || view.heap_top() < view.slots_end() ||
      view.heap_top() > kPageSize || view.garbage() > kPageSize - view.heap_top()) {
    return Status::Corruption(
        fmt::format("{}: {} slots, heap_top {}, garbage {} are inconsistent (invariant 2)",
                    Where(page_no), view.n_slots(), view.heap_top(), view.garbage()));
  }
  return Status::OK();
}

Result<PageNo> RowHeap::Create(BufferPool* pool) {
  MiniTransaction mtr(pool);
  ASSIGN_OR_RETURN(MtrPage header, mtr.Allocate(hf::kHeaderPageType));
  ASSIGN_OR_RETURN(MtrPage first, mtr.Allocate(hf::kDataPageType));
  first.Write32(hf::data::kHeapId, header.page_no());
  first.Write32(hf::data::kNext, kInvalidPageNo);
  first.Write32(hf::data::kPrev, kInvalidPageNo);
  first.Write16(hf::data::kHeapTop, static_cast<uint16_t>(kPageSize));
  header.Write32(hf::hdr::kMagic, hf::kHeapMagic);
  header.Write32(hf::hdr::kVersion, hf::kHeapVersion);
  header.Write32(hf::hdr::kFirstPage, first.page_no());
  header.Write32(hf::hdr::kLastPage, first.page_no());
  header.Write32(hf::hdr::kPageCount, 1);
  header.Write32(hf::hdr::kHoleHeadPage, kInvalidPageNo);
  const PageNo header_no = header.page_no();
  mtr.Commit();
  return header_no;
}

Result<std::unique_ptr<RowHeap>> RowHeap::Open(BufferPool* pool, PageNo header) {
  if (header == 0 || header == kInvalidPageNo) {
    return Status::InvalidArgument(fmt::format("heap header page {} is invalid", header));
  }
  ASSIGN_OR_RETURN(ReadPageGuard g, pool->FetchRead(header));
  if (HeaderPageType(g.data()) != hf::kHeaderPageType ||
      Load32(g.data() + hf::hdr::kMagic) != hf::kHeapMagic) {
    return Status::Corruption(
        fmt::format("{}: page {} is not a heap header page", pool->file_name(), header));
  }
  const uint32_t version = Load32(g.data() + hf::hdr::kVersion);
  if (version != hf::kHeapVersion) {
    return Status::NotSupported(fmt::format("{}: heap {}: format version {} (this build reads {})",
                                            pool->file_name(), header, version, hf::kHeapVersion));
  }
  return std::unique_ptr<RowHeap>(new RowHeap(pool, header));
}

Result<RowPosition> RowHeap::Insert(ConstBytes row, InsertMode mode, HeapAfterInsert* after) {
  RETURN_IF_ERROR(CheckRowSize(row.size()));
  MiniTransaction mtr(pool_);
  HeapWrite w(this, &mtr);
  RETURN_IF_ERROR(w.Begin());
  ASSIGN_OR_RETURN(RowPosition pos, w.Place(row, mode));
  w.Finish();
  if (after != nullptr) {
    after->holes = w.fields().holes;
    after->appended = w.appended_end().has_value();
    if (after->appended) after->end = *w.appended_end();
  }
  mtr.Commit();
  return pos;
}

Status RowHeap::Delete(RowPosition pos) {
  MiniTransaction mtr(pool_);
  HeapWrite w(this, &mtr);
  RETURN_IF_ERROR(w.Begin());
  ASSIGN_OR_RETURN(MtrPage page, w.DataPage(pos.page));
  ASSIGN_OR_RETURN(hf::Slot live, LiveSlot(page.data(), pos));
  RETURN_IF_ERROR(w.CanFree(live));
  w.FreeSlot(&page, pos, live);
  w.Finish();
  mtr.Commit();
  return Status::OK();
}

Result<RowPosition> RowHeap::Update(RowPosition pos, ConstBytes row, InsertMode mode) {
  RETURN_IF_ERROR(CheckRowSize(row.size()));
  MiniTransaction mtr(pool_);
  HeapWrite w(this, &mtr);
  RETURN_IF_ERROR(w.Begin());
  ASSIGN_OR_RETURN(MtrPage page, w.DataPage(pos.page));
  ASSIGN_OR_RETURN(hf::Slot live, LiveSlot(page.data(), pos));
  const hf::DataPageView view{page.data()};
  const size_t n = row.size();
  if (n <= live.len || view.free_bytes() + view.garbage() + live.len >= n) {
    if (n <= live.len) {  // shrinks or stays: same bytes, the tail becomes garbage
      if (n > 0) page.Write(live.offset, row);
      StoreLiveSlot(&page, pos.slot, live.offset, static_cast<uint16_t>(n));
      if (live.len > n) AddGarbage(&page, live.len - n);
    } else if (view.free_bytes() >= n) {
      AddGarbage(&page, live.len);
      PutRecord(&page, pos.slot, row);
    } else {  // fits once the page is packed without the old bytes
      Reorganize(&page, pos.slot);
      PutRecord(&page, pos.slot, row);
    }
    HeaderFields& h = w.fields();
    h.row_bytes = h.row_bytes - live.len + n;
    w.Finish();
    mtr.Commit();
    return pos;
  }
  // Move: store the new version elsewhere, then free the old slot, in the same mtr.
  RETURN_IF_ERROR(w.CanFree(live));
  ASSIGN_OR_RETURN(RowPosition moved, w.Place(row, mode));
  w.FreeSlot(&page, pos, live);
  w.Finish();
  mtr.Commit();
  return moved;
}

Status RowHeap::Get(RowPosition pos, std::string* row, const HeapEnd* bound) const {
  if (pos.page == 0 || pos.page == kInvalidPageNo || pos.page == header_) {
    return Status::Corruption(
        fmt::format("{}: page {} is not a data page of the heap", Where(pos.page), pos.page));
  }
  ASSIGN_OR_RETURN(ReadPageGuard g, pool_->FetchRead(pos.page));
  RETURN_IF_ERROR(ValidateDataPage(pos.page, g.data()));
  if (bound != nullptr) {
    const hf::DataPageView view{g.data()};
    if (view.seq() > bound->seq || (view.seq() == bound->seq && pos.slot >= bound->slots)) {
      return Status::NotFound(
          fmt::format("row position ({}, {}): after the reader's end of file", pos.page, pos.slot));
    }
  }
  ASSIGN_OR_RETURN(hf::Slot live, LiveSlot(g.data(), pos));
  if (size_t{live.offset} + live.len > kPageSize ||
      live.offset < hf::DataPageView{g.data()}.heap_top()) {
    return Status::Corruption(fmt::format("{}: slot {} has offset {} length {} outside the records",
                                          Where(pos.page), pos.slot, live.offset, live.len));
  }
  row->assign(reinterpret_cast<const char*>(g.data() + live.offset), live.len);
  return Status::OK();
}

Result<HeapStats> RowHeap::stats() const {
  ASSIGN_OR_RETURN(ReadPageGuard g, pool_->FetchRead(header_));
  const HeaderFields h = HeaderFields::Load(g.data());
  HeapStats s;
  s.rows = h.rows;
  s.row_bytes = h.row_bytes;
  s.data_free = h.data_free;
  s.holes = h.holes;
  s.pages = h.page_count;
  return s;
}

}  // namespace minnow
