// Write side of the B+tree page views: insert, remove, replace, reorganize, and the builder.
// Every change goes through a PageEditor, one Mutate() per contiguous range, so a
// mini-transaction logs few and small ranges.

#include "btree/page_edit.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "common/check.h"

namespace minnow {
namespace {

struct HeaderFields {
  uint16_t n_slots, n_heap, heap_top, garbage, hint, n_free;
  HeapNo last_insert;
};

HeaderFields ReadHeader(const PageView& v) {
  return {v.n_slots(),        v.n_heap(),      v.heap_top(),   v.garbage(),
          v.free_heap_hint(), v.n_free_heap(), v.last_insert()};
}

void WriteHeader(PageEditor* ed, const HeaderFields& h) {
  // Only the fields that can change; one range from kNSlots to kLastInsert+2.
  Bytes b =
      ed->Mutate(btree_offset::kNSlots, btree_offset::kLastInsert + 2 - btree_offset::kNSlots);
  std::byte* base = b.data() - btree_offset::kNSlots;
  Store16(base + btree_offset::kNSlots, h.n_slots);
  Store16(base + btree_offset::kNHeap, h.n_heap);
  Store16(base + btree_offset::kHeapTop, h.heap_top);
  Store16(base + btree_offset::kGarbage, h.garbage);
  Store16(base + btree_offset::kFreeHeapHint, h.hint);
  Store16(base + btree_offset::kNFreeHeap, h.n_free);
  // kTreeFlags, kIndexId, kPrev, kNext lie inside the range and keep their bytes.
  Store16(base + btree_offset::kLastInsert, h.last_insert);
}

void EncodeRecord(std::byte* dst, const RecordSpec& rec, HeapNo heap_no) {
  uint8_t flags = static_cast<uint8_t>(rec.flags & (kRecDeleteMark | kRecOverflow));
  if (!rec.sys.empty()) flags |= kRecSys;
  dst[record_offset::kFlags] = std::byte{flags};
  dst[1] = std::byte{0};
  Store16(dst + record_offset::kHeapNo, heap_no);
  Store16(dst + record_offset::kKeyLen, static_cast<uint16_t>(rec.key.size()));
  Store16(dst + record_offset::kValueLen, static_cast<uint16_t>(rec.value.size()));
  std::byte* p = dst + record_offset::kKey;
  if (!rec.key.empty()) std::memcpy(p, rec.key.data(), rec.key.size());
  p += rec.key.size();
  if (!rec.sys.empty()) std::memcpy(p, rec.sys.data(), rec.sys.size());
  p += rec.sys.size();
  if (!rec.value.empty()) std::memcpy(p, rec.value.data(), rec.value.size());
}

// Picks a heap number for a new record and updates the header fields accordingly.
HeapNo AllocHeapNo(const PageView& v, HeaderFields* h) {
  if (h->hint != 0) {
    HeapNo heap_no = h->hint;
    h->hint = 0;
    --h->n_free;
    return heap_no;
  }
  if (h->n_free > 0) {
    std::array<uint64_t, (kMaxHeapNo + 64) / 64> used{};
    size_t n = v.n_slots();
    for (size_t i = 0; i < n; ++i) {
      size_t off = v.slot(i);
      if (off + kRecordHeaderSize > kPageSize) continue;  // corrupt: Check() reports it
      HeapNo hn = Load16(v.data() + off + record_offset::kHeapNo);
      if (hn < kMaxHeapNo) used[hn / 64] |= uint64_t{1} << (hn % 64);
    }
    HeapNo found = 0;
    for (HeapNo hn = kFirstUserHeapNo; hn < h->n_heap; ++hn) {
      if ((used[hn / 64] & (uint64_t{1} << (hn % 64))) != 0) continue;
      if (found == 0) {
        found = hn;
        --h->n_free;
        if (h->n_free == 0) return found;
      } else {
        h->hint = hn;  // the next allocation needs no scan
        return found;
      }
    }
    if (found != 0) return found;
    h->n_free = 0;  // the header lied (a damaged page): Check() reports the duplicate
  }
  return h->n_heap++;
}

// Takes a specific heap number (not in use) for a new record.
void ClaimHeapNo(HeapNo heap_no, HeaderFields* h) {
  if (heap_no >= h->n_heap) {
    h->n_free = static_cast<uint16_t>(h->n_free + (heap_no - h->n_heap));
    h->n_heap = static_cast<uint16_t>(heap_no + 1);
  } else {
    --h->n_free;
    if (h->hint == heap_no) h->hint = 0;
  }
}

}  // namespace

void InitPage(PageEditor* ed, const PageInit& init) {
  Store16(ed->Mutate(page_offset::kPageType, 2).data(),
          static_cast<uint16_t>(init.level == 0 ? PageType::kBtreeLeaf : PageType::kBtreeNode));
  Bytes b = ed->Mutate(btree_offset::kLevel, kBtreeHeaderEnd - btree_offset::kLevel);
  std::memset(b.data(), 0, b.size());
  std::byte* base = b.data() - btree_offset::kLevel;
  Store16(base + btree_offset::kLevel, init.level);
  Store16(base + btree_offset::kNHeap, kFirstUserHeapNo);
  Store16(base + btree_offset::kHeapTop, static_cast<uint16_t>(kPageSize));
  Store16(base + btree_offset::kTreeFlags, init.tree_flags);
  Store32(base + btree_offset::kIndexId, init.index_id);
  Store32(base + btree_offset::kPrev, init.prev);
  Store32(base + btree_offset::kNext, init.next);
}

HeapNo InsertRecord(PageEditor* ed, size_t idx, const RecordSpec& rec, HeapNo heap_no) {
  size_t size = rec.size();
  {
    PageView v = ed->view();
    MINNOW_CHECK(v.Fits(size) && idx <= v.n_slots(), "page {}: insert of {} bytes at {}",
                 v.page_no(), size, idx);
    if (v.contiguous_free() < size + kSlotSize) Reorganize(ed);
  }
  PageView v = ed->view();
  HeaderFields h = ReadHeader(v);
  if (heap_no == 0) {
    heap_no = AllocHeapNo(v, &h);
  } else {
    ClaimHeapNo(heap_no, &h);
  }
  h.heap_top = static_cast<uint16_t>(h.heap_top - size);
  EncodeRecord(ed->Mutate(h.heap_top, size).data(), rec, heap_no);
  size_t n = h.n_slots;
  const size_t at = btree_offset::kSlots + kSlotSize * idx;
  ed->Move(at + kSlotSize, at, kSlotSize * (n - idx));
  Store16(ed->Mutate(at, kSlotSize).data(), h.heap_top);
  h.n_slots = static_cast<uint16_t>(n + 1);
  h.last_insert = heap_no;
  WriteHeader(ed, h);
  return heap_no;
}

void RemoveRecord(PageEditor* ed, size_t idx) {
  PageView v = ed->view();
  RecordView rec;
  MINNOW_CHECK(v.Record(idx, &rec), "page {}: remove of bad slot {}", v.page_no(), idx);
  HeaderFields h = ReadHeader(v);
  size_t off = v.slot(idx);
  if (off == h.heap_top) {
    h.heap_top = static_cast<uint16_t>(h.heap_top + rec.size);
  } else {
    h.garbage = static_cast<uint16_t>(h.garbage + rec.size);
  }
  if (rec.heap_no == h.n_heap - 1) {
    --h.n_heap;
    while (h.hint != 0 && h.hint == h.n_heap - 1) {  // the hint was the new top: drop it too
      --h.n_heap;
      --h.n_free;
      h.hint = 0;
    }
  } else {
    ++h.n_free;
    h.hint = rec.heap_no;
  }
  if (h.last_insert == rec.heap_no) h.last_insert = 0;
  size_t n = h.n_slots;
  if (idx + 1 < n) {
    const size_t at = btree_offset::kSlots + kSlotSize * idx;
    ed->Move(at, at + kSlotSize, kSlotSize * (n - idx - 1));
  }
  h.n_slots = static_cast<uint16_t>(n - 1);
  if (h.n_slots == 0) {  // an empty page: every heap number is free again
    h = HeaderFields{0, kFirstUserHeapNo, static_cast<uint16_t>(kPageSize), 0, 0, 0, 0};
  }
  WriteHeader(ed, h);
}

void ReplaceRecord(PageEditor* ed, size_t idx, const RecordSpec& rec) {
  PageView v = ed->view();
  RecordView old;
  MINNOW_CHECK(v.Record(idx, &old), "page {}: replace of bad slot {}", v.page_no(), idx);
  size_t size = rec.size();
  if (size > old.size) {
    MINNOW_CHECK(size - old.size <= v.available(), "page {}: replacement does not fit",
                 v.page_no());
    HeapNo heap_no = old.heap_no;
    RemoveRecord(ed, idx);
    InsertRecord(ed, idx, rec, heap_no);
    return;
  }
  size_t off = v.slot(idx);
  HeaderFields h = ReadHeader(v);
  EncodeRecord(ed->Mutate(off, size).data(), rec, old.heap_no);
  if (size < old.size) {
    h.garbage = static_cast<uint16_t>(h.garbage + (old.size - size));
    WriteHeader(ed, h);
  }
}

void SetDeleteMark(PageEditor* ed, size_t idx, bool marked, ConstBytes sys) {
  PageView v = ed->view();
  RecordView rec;
  MINNOW_CHECK(v.Record(idx, &rec), "page {}: bad slot {}", v.page_no(), idx);
  size_t off = v.slot(idx);
  uint8_t flags = marked ? (rec.flags | kRecDeleteMark) : (rec.flags & ~kRecDeleteMark);
  ed->Mutate(off + record_offset::kFlags, 1)[0] = std::byte{flags};
  if (!sys.empty()) {
    MINNOW_CHECK(rec.sys.size() == sys.size(), "page {}: sys bytes on a record without them",
                 v.page_no());
    size_t sys_off = off + record_offset::kKey + rec.key.size();
    std::memcpy(ed->Mutate(sys_off, sys.size()).data(), sys.data(), sys.size());
  }
}

void SetChild(PageEditor* ed, size_t idx, PageNo child) {
  PageView v = ed->view();
  RecordView rec;
  MINNOW_CHECK(v.Record(idx, &rec) && rec.value.size() == kChildRefSize, "page {}: slot {}",
               v.page_no(), idx);
  size_t off = static_cast<size_t>(rec.value.data() - v.data());
  Store32(ed->Mutate(off, kChildRefSize).data(), child);
}

void SetPrev(PageEditor* ed, PageNo prev) {
  Store32(ed->Mutate(btree_offset::kPrev, 4).data(), prev);
}
void SetNext(PageEditor* ed, PageNo next) {
  Store32(ed->Mutate(btree_offset::kNext, 4).data(), next);
}

void Reorganize(PageEditor* ed) {
  alignas(64) std::byte tmp[kPageSize];
  const std::byte* src = ed->data();
  PageView v(src);
  size_t n = v.n_slots();
  size_t top = kPageSize;
  for (size_t i = 0; i < n; ++i) {
    RecordView rec;
    MINNOW_CHECK(v.Record(i, &rec), "page {}: reorganize of bad slot {}", v.page_no(), i);
    top -= rec.size;
    std::memcpy(tmp + top, src + v.slot(i), rec.size);
    Store16(tmp + btree_offset::kSlots + kSlotSize * i, static_cast<uint16_t>(top));
  }
  Bytes all = ed->MutateAll();
  std::memcpy(all.data() + btree_offset::kSlots, tmp + btree_offset::kSlots, kSlotSize * n);
  std::memset(all.data() + btree_offset::kSlots + kSlotSize * n, 0,
              top - (btree_offset::kSlots + kSlotSize * n));
  std::memcpy(all.data() + top, tmp + top, kPageSize - top);
  Store16(all.data() + btree_offset::kHeapTop, static_cast<uint16_t>(top));
  Store16(all.data() + btree_offset::kGarbage, 0);
}

// Only the header is cleared: the slots and records below heap_top are written by Append, and
// the free space between them is never read here and is zeroed by CopyTo in the page itself.
PageBuilder::PageBuilder()
    : buf_(static_cast<std::byte*>(::operator new[](kPageSize, std::align_val_t(64)))) {
  std::memset(buf_.get(), 0, kBtreeHeaderEnd);
}

void PageBuilder::Reset(const PageInit& init) {
  std::memset(buf_.get(), 0, kBtreeHeaderEnd);
  BufferEditor ed(buf_.get());
  InitPage(&ed, init);
  max_heap_ = kSupremumHeapNo;
}

HeapNo PageBuilder::Append(const RecordSpec& rec, HeapNo heap_no) {
  PageView v = view();
  size_t size = rec.size();
  MINNOW_CHECK(v.contiguous_free() >= size + kSlotSize, "builder: {} bytes do not fit", size);
  if (heap_no == 0) heap_no = static_cast<HeapNo>(max_heap_ + 1);
  max_heap_ = std::max(max_heap_, heap_no);
  std::byte* p = buf_.get();
  size_t n = v.n_slots();
  uint16_t top = static_cast<uint16_t>(v.heap_top() - size);
  EncodeRecord(p + top, rec, heap_no);
  Store16(p + btree_offset::kSlots + kSlotSize * n, top);
  Store16(p + btree_offset::kHeapTop, top);
  Store16(p + btree_offset::kNSlots, static_cast<uint16_t>(n + 1));
  return heap_no;
}

void PageBuilder::Finish() {
  std::byte* p = buf_.get();
  size_t n = view().n_slots();
  uint16_t n_heap = static_cast<uint16_t>(max_heap_ + 1);
  Store16(p + btree_offset::kNHeap, n_heap);
  Store16(p + btree_offset::kNFreeHeap, static_cast<uint16_t>(n_heap - kFirstUserHeapNo - n));
  Store16(p + btree_offset::kFreeHeapHint, 0);
  Store16(p + btree_offset::kGarbage, 0);
  Store16(p + btree_offset::kLastInsert, 0);
}

void PageBuilder::CopyTo(PageEditor* ed) {
  Finish();
  const std::byte* src = buf_.get();
  const size_t slots_end = btree_offset::kSlots + kSlotSize * view().n_slots();
  const size_t top = view().heap_top();
  Bytes all = ed->MutateAll();
  std::memcpy(all.data() + page_offset::kPageType, src + page_offset::kPageType, 2);
  std::memcpy(all.data() + kPageHeaderSize, src + kPageHeaderSize, slots_end - kPageHeaderSize);
  std::memset(all.data() + slots_end, 0, top - slots_end);
  std::memcpy(all.data() + top, src + top, kPageSize - top);
}

}  // namespace minnow
