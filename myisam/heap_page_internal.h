#pragma once
// The on-page format of a RowHeap (private to myisam/). Every offset is from the start of the
// page; bytes 0..31 are the buffer pool's page header (buffer_pool/page_header.h).
//
// Header page (one per heap; its page number is the heap's identity):
//
//   offset size field
//   32     4    magic            kHeapMagic
//   36     4    version          kHeapVersion
//   40     4    first_page       first data page (the chain is never empty)
//   44     4    last_page        where appends go
//   48     4    page_count       data pages in the chain
//   52     4    hole_head_page   first hole of the hole list (kInvalidPageNo: no holes)
//   56     2    hole_head_slot
//   64     8    rows             live rows
//   72     8    row_bytes        sum of the live rows' lengths
//   80     8    data_free        sum of the holes' former row lengths (MyISAM's Data_free)
//   88     8    holes            holes on the hole list
//
// Data page (chained in position order; the chain only grows at its end, except compaction):
//
//   32     4    heap_id          the header page number of the heap owning the page
//   36     4    next_page        kInvalidPageNo on the last page
//   40     4    prev_page        kInvalidPageNo on the first page
//   44     4    seq              0 on the first page, +1 along the chain (orders positions)
//   48     2    n_slots          slots in the directory
//   50     2    heap_top         lowest byte of the record area; records grow down from the end
//   52     2    garbage          bytes in [heap_top, kPageSize) that no live row uses
//   56     8*n  slot directory   slot i at kSlots + 8*i
//
//   live slot:  offset:u16 (>= heap_top)  len:u16  zero:u32
//   hole:       kHoleFlag|next_slot:u16   former_len:u16  next_page:u32 (kInvalidPageNo: last)
//
// Invariants (Check() verifies each and cites its number):
//   (1) every data page names the heap, and the chain from first_page follows next/prev links
//       with seq 0, 1, 2, ... and ends at last_page after page_count pages;
//   (2) kSlots + 8*n_slots <= heap_top <= kPageSize;
//   (3) live records lie in [heap_top, kPageSize), do not overlap, and
//       kPageSize - heap_top == garbage + sum of live lengths;
//   (4) the hole list from the header visits every hole slot of the chain exactly once;
//   (5) rows, row_bytes, holes and data_free in the header equal the counts over the chain.
// A slot never disappears: its number is a row position that indexes hold.

#include <cstdint>

#include "buffer_pool/page_header.h"
#include "common/coding.h"
#include "common/types.h"
#include "myisam/row_position.h"

namespace minnow::heap_format {

inline constexpr PageType kHeaderPageType = PageType::kRowHeapHeader;
inline constexpr PageType kDataPageType = PageType::kRowHeapData;

inline constexpr uint32_t kHeapMagic = 0x5048594d;  // "MYHP" in little-endian byte order
inline constexpr uint32_t kHeapVersion = 1;

namespace hdr {
inline constexpr size_t kMagic = 32;
inline constexpr size_t kVersion = 36;
inline constexpr size_t kFirstPage = 40;
inline constexpr size_t kLastPage = 44;
inline constexpr size_t kPageCount = 48;
inline constexpr size_t kHoleHeadPage = 52;
inline constexpr size_t kHoleHeadSlot = 56;
inline constexpr size_t kRows = 64;
inline constexpr size_t kRowBytes = 72;
inline constexpr size_t kDataFree = 80;
inline constexpr size_t kHoles = 88;
}  // namespace hdr

namespace data {
inline constexpr size_t kHeapId = 32;
inline constexpr size_t kNext = 36;
inline constexpr size_t kPrev = 40;
inline constexpr size_t kSeq = 44;
inline constexpr size_t kNSlots = 48;
inline constexpr size_t kHeapTop = 50;
inline constexpr size_t kGarbage = 52;
inline constexpr size_t kSlots = 56;
inline constexpr size_t kSlotSize = 8;
}  // namespace data

inline constexpr uint16_t kHoleFlag = 0x8000;
// The most slots a page can have (empty rows cost a slot each).
inline constexpr size_t kMaxSlots = (kPageSize - data::kSlots) / data::kSlotSize;
static_assert(kMaxSlots < kHoleFlag);

inline size_t SlotOffset(size_t slot) { return data::kSlots + data::kSlotSize * slot; }

// A decoded slot.
struct Slot {
  bool hole = false;
  uint16_t offset = 0;  // live: where the row starts
  uint16_t len = 0;     // live: row length; hole: the former row's length
  RowPosition next;     // hole: the next hole (page kInvalidPageNo: none)
};

inline Slot LoadSlot(const std::byte* page, size_t slot) {
  const std::byte* p = page + SlotOffset(slot);
  const uint16_t w0 = Load16(p);
  Slot s;
  s.len = Load16(p + 2);
  if ((w0 & kHoleFlag) != 0) {
    s.hole = true;
    s.next.page = Load32(p + 4);
    s.next.slot = static_cast<uint16_t>(w0 & ~kHoleFlag);
  } else {
    s.offset = w0;
  }
  return s;
}

// Read-only view of a data page's fixed fields.
struct DataPageView {
  const std::byte* p;
  PageNo heap_id() const { return Load32(p + data::kHeapId); }
  PageNo next() const { return Load32(p + data::kNext); }
  PageNo prev() const { return Load32(p + data::kPrev); }
  uint32_t seq() const { return Load32(p + data::kSeq); }
  uint16_t n_slots() const { return Load16(p + data::kNSlots); }
  uint16_t heap_top() const { return Load16(p + data::kHeapTop); }
  uint16_t garbage() const { return Load16(p + data::kGarbage); }
  size_t slots_end() const { return SlotOffset(n_slots()); }
  // Contiguous free bytes between the slot directory and the record area.
  size_t free_bytes() const { return heap_top() - slots_end(); }
};

}  // namespace minnow::heap_format
