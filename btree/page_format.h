#pragma once
// The on-page format of B+tree pages and overflow pages.
//
// A B+tree page (page type kBtreeLeaf or kBtreeNode) starts with buffer_pool's 32-byte common
// header (buffer_pool/page_header.h), followed by the B+tree header, the slot directory growing
// up, free space, and the record heap growing down from the end of the page:
//
//   offset size field
//   0      32   common page header (checksum, page_no, page_lsn, page_type, flags)
//   32     2    level          0 for a leaf, the node's height above the leaves otherwise
//   34     2    n_slots        user records on the page (the slot directory's length)
//   36     2    n_heap         heap numbers in use are < n_heap (2 when the page is empty)
//   38     2    heap_top       lowest byte of the record heap; records lie in [heap_top, 16384)
//   40     2    garbage        bytes in [heap_top, 16384) that belong to no live record
//   42     2    free_heap_hint a heap number < n_heap not in use, or 0 if none is known
//   44     2    n_free_heap    heap numbers in [2, n_heap) not in use
//   46     2    tree_flags     kTreeFlagSysFields | kTreeFlagCompressLz4 (the tree's options;
//                              authoritative in the root, copied into every page)
//   48     4    index_id       the tree's root page number: which tree the page belongs to
//   52     4    prev           left sibling on the same level (kInvalidPageNo: none)
//   56     4    next           right sibling on the same level (kInvalidPageNo: none)
//   60     2    last_insert    heap number of the last record inserted (split heuristic, and
//                              searches try the last slot first when it holds it), or 0
//   62     2    reserved       zero
//   64     2*n  slots          record offsets (u16), sorted by the records' keys
//   ...         free space     [64 + 2*n_slots, heap_top)
//   heap_top    record heap    records and garbage, up to the end of the page
//
// A record (all integers little-endian):
//
//   offset size field
//   0      1    flags          kRecDeleteMark | kRecOverflow | kRecSys
//   1      1    reserved       zero
//   2      2    heap_no        the record's heap number (stable while it lives on the page)
//   4      2    key_len
//   6      2    value_len      bytes of value stored in the record
//   8      k    key
//   8+k    13   sys            DB_TRX_ID (6) + DB_ROLL_PTR (7), only if kRecSys
//   ...    v    value          the value, or if kRecOverflow an overflow reference:
//                              first_page:u32 total_len:u64 (kOverflowRefSize bytes)
//
// Node records use the same format: the value is the child's page number (u32), no flags.
// The child of slot i holds the keys in [key(i), key(i+1)); the key of slot 0 is treated as
// minus infinity by searches (it equals the parent's separator for this page, and is empty on
// the leftmost page of each level).
//
// Overflow pages (page type kOverflow) hold a value too big for a record, as a chain:
//
//   offset size field
//   32     4    next           next page of the chain (kInvalidPageNo: last)
//   36     4    data_len       bytes of value on this page
//   40     4    index_id       the tree that owns the chain
//   44     4    reserved
//   48     ...  data           up to kOverflowDataCapacity bytes
//
// Record size policy: a record is at most kMaxRecordSize bytes (a quarter of the usable page,
// slot included), so every page holds at least four records and a split of a full page plus
// one record always succeeds. When key + sys + value would exceed it, the whole value moves to
// an overflow chain and the record keeps only the 12-byte reference. Keys are at most
// kMaxKeyLen (2048) bytes, so a record with an overflow reference always fits.
//
// Invariants (Check() and the page validators verify them; code cites them by number):
//   (1) 64 + 2*n_slots <= heap_top <= kPageSize.
//   (2) every slot points to a record lying entirely in [heap_top, kPageSize); live records do
//       not overlap.
//   (3) slots are in strictly ascending key order (memcmp, then length).
//   (4) heap numbers of live records are unique, >= 2 and < n_heap; n_free_heap counts the
//       others in [2, n_heap); free_heap_hint is 0 or one of them.
//   (5) garbage == (kPageSize - heap_top) - sum of live record sizes.
//   (6) a node page has at least one record; a non-root page of any level has at least one
//       record (empty non-root pages are merged away in the same mini-transaction), and a
//       non-root node at least two (so every non-root page has a sibling under its parent to
//       merge with).
//   (7) pages of one level form a doubly linked list in key order (prev/next), ending with
//       kInvalidPageNo at both ends; every page's index_id is the root's page number.
//   (8) keys of child i lie in [key(i), key(i+1)) of the parent (slot 0: the parent's own
//       lower bound), and all leaves are at level 0.
//   (9) the root page never changes its page number; the tree's options live in its header.

#include <cstddef>
#include <cstdint>

#include "buffer_pool/page_header.h"
#include "common/types.h"

namespace minnow {

namespace btree_offset {
inline constexpr size_t kLevel = 32;
inline constexpr size_t kNSlots = 34;
inline constexpr size_t kNHeap = 36;
inline constexpr size_t kHeapTop = 38;
inline constexpr size_t kGarbage = 40;
inline constexpr size_t kFreeHeapHint = 42;
inline constexpr size_t kNFreeHeap = 44;
inline constexpr size_t kTreeFlags = 46;
inline constexpr size_t kIndexId = 48;
inline constexpr size_t kPrev = 52;
inline constexpr size_t kNext = 56;
inline constexpr size_t kLastInsert = 60;
inline constexpr size_t kSlots = 64;
}  // namespace btree_offset

namespace record_offset {
inline constexpr size_t kFlags = 0;
inline constexpr size_t kHeapNo = 2;
inline constexpr size_t kKeyLen = 4;
inline constexpr size_t kValueLen = 6;
inline constexpr size_t kKey = 8;
}  // namespace record_offset

namespace overflow_offset {
inline constexpr size_t kNext = 32;
inline constexpr size_t kDataLen = 36;
inline constexpr size_t kIndexId = 40;
inline constexpr size_t kData = 48;
}  // namespace overflow_offset

inline constexpr size_t kBtreeHeaderEnd = btree_offset::kSlots;
inline constexpr size_t kUsableSize = kPageSize - kBtreeHeaderEnd;  // slots + heap
inline constexpr size_t kRecordHeaderSize = 8;
inline constexpr size_t kSlotSize = 2;
inline constexpr size_t kMaxKeyLen = 2048;
inline constexpr size_t kSysLen = 13;
inline constexpr size_t kOverflowRefSize = 12;
inline constexpr size_t kChildRefSize = 4;
// A quarter of the usable space, slot included (see "Record size policy").
inline constexpr size_t kMaxRecordSize = kUsableSize / 4 - kSlotSize;
// Largest node record (separator of kMaxKeyLen bytes), slot included.
inline constexpr size_t kMaxNodeEntry = kRecordHeaderSize + kMaxKeyLen + kChildRefSize + kSlotSize;
// A non-root page whose used bytes (slots + records) fall below this is merged/redistributed.
inline constexpr size_t kMinFillBytes = kUsableSize / 4;
inline constexpr size_t kOverflowDataCapacity = kPageSize - overflow_offset::kData;

inline constexpr uint8_t kRecDeleteMark = 1u << 0;
inline constexpr uint8_t kRecOverflow = 1u << 1;
inline constexpr uint8_t kRecSys = 1u << 2;
inline constexpr uint8_t kRecKnownFlags = kRecDeleteMark | kRecOverflow | kRecSys;

inline constexpr uint16_t kTreeFlagSysFields = 1u << 0;
inline constexpr uint16_t kTreeFlagCompressLz4 = 1u << 1;

// Heap numbers must fit the worst case: the smallest record (header only) and its slot.
inline constexpr size_t kMaxHeapNo = kUsableSize / (kRecordHeaderSize + kSlotSize) + 2;

static_assert(kMaxRecordSize >= kRecordHeaderSize + kMaxKeyLen + kSysLen + kOverflowRefSize);
static_assert(kPageSize <= 65535 + 1, "u16 offsets");

}  // namespace minnow
