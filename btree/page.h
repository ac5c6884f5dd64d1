#pragma once
// A read-only view of B+tree pages (btree/page_format.h): decoding, searching, validation.
// Changes go through btree/page_edit.h.
//
// Offsets read from a page are validated before use: the checked accessors return false /
// kCorruption instead of reading out of bounds. The unchecked ones (suffix Unchecked) are for
// pages that passed ValidatePage().

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "btree/page_format.h"
#include "common/coding.h"
#include "common/types.h"
#include "minnow/status.h"

namespace minnow {

// Compares two keys: memcmp order, then the shorter first. <0, 0, >0.
inline int CompareKeys(ConstBytes a, ConstBytes b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// The first min(len, 8) bytes at `p` as a big-endian integer, zero-padded: a difference
// between two keys' prefixes orders them as CompareKeys does (a tie says nothing).
// REQUIRES: 8 bytes readable at `p` (bytes past `len` are ignored).
inline uint64_t KeyPrefix8(const std::byte* p, size_t len) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  v = __builtin_bswap64(v);
  if (len >= 8) return v;
  if (len == 0) return 0;
  return v & (~uint64_t{0} << (8 * (8 - len)));
}

// One record decoded in place: spans point into the page.
struct RecordView {
  uint8_t flags = 0;
  HeapNo heap_no = 0;
  uint16_t size = 0;  // record bytes, slot excluded
  ConstBytes key;
  ConstBytes sys;    // empty unless kRecSys
  ConstBytes value;  // the inline value, or the overflow reference if kRecOverflow
  bool delete_marked() const { return (flags & kRecDeleteMark) != 0; }
  bool overflow() const { return (flags & kRecOverflow) != 0; }
};

// What to write as a record.
struct RecordSpec {
  uint8_t flags = 0;  // kRecDeleteMark | kRecOverflow; kRecSys is set from `sys`
  ConstBytes key;
  ConstBytes sys;  // empty or kSysLen bytes
  ConstBytes value;
  size_t size() const { return kRecordHeaderSize + key.size() + sys.size() + value.size(); }
};

// Decodes the record at page offset `off`; false if it does not lie inside [lo, kPageSize).
bool DecodeRecordAt(const std::byte* page, size_t off, size_t lo, RecordView* out);

// A read-only view of a B+tree page. Cheap to copy; does not own the bytes.
class PageView {
 public:
  explicit PageView(const std::byte* page) : p_(page) {}
  const std::byte* data() const { return p_; }

  PageNo page_no() const { return HeaderPageNo(p_); }
  PageType page_type() const { return HeaderPageType(p_); }
  uint16_t level() const { return Load16(p_ + btree_offset::kLevel); }
  bool is_leaf() const { return level() == 0; }
  uint16_t n_slots() const { return Load16(p_ + btree_offset::kNSlots); }
  uint16_t n_heap() const { return Load16(p_ + btree_offset::kNHeap); }
  uint16_t heap_top() const { return Load16(p_ + btree_offset::kHeapTop); }
  uint16_t garbage() const { return Load16(p_ + btree_offset::kGarbage); }
  uint16_t free_heap_hint() const { return Load16(p_ + btree_offset::kFreeHeapHint); }
  uint16_t n_free_heap() const { return Load16(p_ + btree_offset::kNFreeHeap); }
  uint16_t tree_flags() const { return Load16(p_ + btree_offset::kTreeFlags); }
  PageNo index_id() const { return Load32(p_ + btree_offset::kIndexId); }
  PageNo prev() const { return Load32(p_ + btree_offset::kPrev); }
  PageNo next() const { return Load32(p_ + btree_offset::kNext); }
  HeapNo last_insert() const { return Load16(p_ + btree_offset::kLastInsert); }

  uint16_t slot(size_t i) const { return Load16(p_ + btree_offset::kSlots + kSlotSize * i); }
  // Contiguous free bytes between the slot directory and the heap.
  size_t contiguous_free() const {
    return heap_top() - (btree_offset::kSlots + kSlotSize * n_slots());
  }
  // Free bytes after a reorganize: contiguous free space plus garbage.
  size_t available() const { return contiguous_free() + garbage(); }
  // Bytes used by slots and live records.
  size_t used() const { return kUsableSize - available(); }
  // Whether a record of `record_size` bytes (plus its slot) fits, reorganizing if needed.
  bool Fits(size_t record_size) const { return record_size + kSlotSize <= available(); }

  // Cheap header sanity check (invariant (1), page type vs level): run on every page fetched.
  Status CheckHeader() const {
    if (HeaderOk()) [[likely]]
      return Status::OK();
    return CheckHeaderSlow();
  }
  // The conditions CheckHeader() checks, without building a Status.
  bool HeaderOk() const {
    PageType type = page_type();
    uint16_t lvl = level();
    size_t top = heap_top();
    size_t slots = n_slots(), heap = n_heap();
    bool leaf_type = type == PageType::kBtreeLeaf;
    return (leaf_type || type == PageType::kBtreeNode) & (leaf_type == (lvl == 0)) & (lvl <= 64) &
               (top <= kPageSize) & (btree_offset::kSlots + kSlotSize * slots <= top) &
               (garbage() <= kPageSize - top) & (heap >= kFirstUserHeapNo) & (heap <= kMaxHeapNo) &&
           (n_free_heap() <= heap - kFirstUserHeapNo) & (free_heap_hint() < heap) &
               (slots <= heap - kFirstUserHeapNo) & (lvl == 0 || slots != 0);
  }
  // Full structural validation (invariants (1)-(5)); `why` says what is wrong.
  bool Validate(std::string* why) const;
  // Light validation: the header and every slot's record lie inside the page (what the
  // unchecked accessors need). O(n_slots), no allocation.
  bool ValidateSlots() const;

  // Record at slot i, bounds-checked (false: corrupt).
  bool Record(size_t i, RecordView* out) const {
    return i < n_slots() && DecodeRecordAt(p_, slot(i), heap_top(), out);
  }
  RecordView RecordUnchecked(size_t i) const;

  // First slot whose key is >= key (n_slots() if none); *found if equal.
  Result<size_t> LowerBound(ConstBytes key, bool* found) const;
  // Node pages: the child slot to follow for `key` (slot 0 stands for minus infinity).
  Result<size_t> ChildSlot(ConstBytes key) const;
  // Node pages: the child page number of slot i.
  Result<PageNo> Child(size_t i) const;
  // Index of the record with heap number `heap_no`, or n_slots() if none (linear).
  size_t FindHeapNo(HeapNo heap_no) const;

 private:
  Status CheckHeaderSlow() const;
  static constexpr size_t kSearchCorrupt = ~size_t{0};
  // Whether the last slot holds the page's last insert and `key` sorts after its key (or equals
  // it, with `or_equal`): an insert in key order appends at the right edge, and the next one
  // finds its place without a binary search. False when the hint does not apply (or the slot
  // is out of bounds: Search reports that). Inline: on random inserts the hint rarely applies.
  bool AfterLastInsert(ConstBytes key, size_t n, bool or_equal) const {
    const HeapNo last = last_insert();
    if (last == 0 || n == 0) return false;
    const size_t off = slot(n - 1);
    if (off < heap_top() || off + kRecordHeaderSize > kPageSize) return false;
    if (Load16(p_ + off + record_offset::kHeapNo) != last) return false;
    return KeyAfterRecordAt(off, key, or_equal);
  }
  // Whether `key` sorts after (or equals, with `or_equal`) the key of the record at `off`.
  // REQUIRES: the record header lies inside the page.
  bool KeyAfterRecordAt(size_t off, ConstBytes key, bool or_equal) const;
  // First slot in [lo, hi) whose key is >= key (> key if strict); stops early at an equal key
  // (not strict) setting *equal. kSearchCorrupt if a probed slot is out of bounds.
  size_t Search(size_t lo, size_t hi, ConstBytes key, bool strict, bool* equal) const;

  const std::byte* p_;
};

// Encodes and decodes the overflow reference kept in a record.
inline void EncodeOverflowRef(std::byte* dst, PageNo first, uint64_t total_len) {
  Store32(dst, first);
  Store64(dst + 4, total_len);
}
inline PageNo OverflowFirst(ConstBytes ref) { return Load32(ref.data()); }
inline uint64_t OverflowLen(ConstBytes ref) { return Load64(ref.data() + 4); }

}  // namespace minnow
