#pragma once
// The lock struct (lock/ internal): a 24-byte header, followed in the same allocation by a
// bitmap when the struct is in bitmap form. See lock/lock_sys.h for the two forms.
//
// Invariants (checks cite them):
//   (1) page_no, owner, the kind byte and n_bitmap_bytes never change after the struct is made
//       (ReleaseAll reads them under the owner's heap latch only); everything else is guarded
//       by the latch of the shard the struct hashes to.
//   (2) A struct is linked in exactly one cell chain while live; a dead struct is in no chain
//       and stays in its owner's heap until ReleaseAll.
//   (3) A live record struct covers at least one heap number; a waiting one exactly one.
//   (4) Run form (n_bitmap_bytes == 0): the set is [run_lo, run_hi) plus the supremum if
//       kFlagSupremum. Bitmap form: bit h of the bitmap, for h < 8 * n_bitmap_bytes.

#include <bit>
#include <cstdint>
#include <cstring>

#include "common/types.h"
#include "lock/lock_mode.h"

namespace minnow::lock_internal {

// The kind byte: mode in bits 0-2, record type in bits 3-4, table lock in bit 5.
inline constexpr uint8_t kKindTable = 1u << 5;
// The flags byte.
inline constexpr uint8_t kFlagWaiting = 1u << 0;
inline constexpr uint8_t kFlagSupremum = 1u << 1;  // run form only
inline constexpr uint8_t kFlagDead = 1u << 2;

struct LockStruct {
  LockStruct* hash_next;  // next in the cell chain (arrival order)
  PageNo page_no;         // table id for table locks
  uint32_t owner;         // the owner's slot in the LockSys registry
  uint8_t kind;           // mode | type << 3 | kKindTable
  uint8_t flags;          // kFlag*
  uint16_t run_lo;        // run form: [run_lo, run_hi)
  uint16_t run_hi;
  uint16_t n_bitmap_bytes;  // 0: run form; else the bitmap's size (a multiple of 8)

  TrxLockMode mode() const { return static_cast<TrxLockMode>(kind & 7); }
  RecLockType type() const { return static_cast<RecLockType>((kind >> 3) & 3); }
  bool is_table() const { return (kind & kKindTable) != 0; }
  bool waiting() const { return (flags & kFlagWaiting) != 0; }
  bool dead() const { return (flags & kFlagDead) != 0; }
  bool is_bitmap() const { return n_bitmap_bytes != 0; }
  uint32_t n_bits() const { return 8u * n_bitmap_bytes; }
  // The struct's bytes in the heap.
  uint32_t size() const { return sizeof(LockStruct) + n_bitmap_bytes; }
  uint64_t* words() { return reinterpret_cast<uint64_t*>(this + 1); }
  const uint64_t* words() const { return reinterpret_cast<const uint64_t*>(this + 1); }
};
static_assert(sizeof(LockStruct) == 24, "the lock struct header is 24 bytes");

inline uint8_t MakeKind(TrxLockMode mode, RecLockType type, bool table) {
  return static_cast<uint8_t>(static_cast<uint8_t>(mode) | (static_cast<uint8_t>(type) << 3) |
                              (table ? kKindTable : 0));
}

// Bitmap bytes for heap numbers 0 .. max_heap_no, rounded up to 64 bits.
inline uint16_t BitmapBytesFor(uint32_t max_heap_no) {
  return static_cast<uint16_t>(((max_heap_no + 64) / 64) * 8);
}

inline bool Contains(const LockStruct* s, HeapNo h) {
  if (!s->is_bitmap()) {
    if (h == kSupremumHeapNo) return (s->flags & kFlagSupremum) != 0;
    return h >= s->run_lo && h < s->run_hi;
  }
  return h < s->n_bits() && ((s->words()[h >> 6] >> (h & 63)) & 1) != 0;
}

// Number of heap numbers in the set.
inline uint64_t CountBits(const LockStruct* s) {
  if (!s->is_bitmap()) {
    return static_cast<uint64_t>(s->run_hi - s->run_lo) + ((s->flags & kFlagSupremum) ? 1 : 0);
  }
  uint64_t n = 0;
  for (uint32_t i = 0; i < s->n_bitmap_bytes / 8u; ++i) n += std::popcount(s->words()[i]);
  return n;
}

// The lowest heap number in the set, or -1 (used for waiting structs, which hold one).
inline int FirstBit(const LockStruct* s) {
  if (!s->is_bitmap()) {
    if (s->flags & kFlagSupremum) return kSupremumHeapNo;
    return s->run_lo < s->run_hi ? s->run_lo : -1;
  }
  for (uint32_t i = 0; i < s->n_bitmap_bytes / 8u; ++i) {
    if (s->words()[i] != 0) return static_cast<int>(i * 64 + std::countr_zero(s->words()[i]));
  }
  return -1;
}

// Calls f(heap_no) for each heap number in the set, in ascending order (supremum first).
template <typename F>
void ForEachBit(const LockStruct* s, F&& f) {
  if (!s->is_bitmap()) {
    if (s->flags & kFlagSupremum) f(kSupremumHeapNo);
    for (uint32_t h = s->run_lo; h < s->run_hi; ++h) f(static_cast<HeapNo>(h));
    return;
  }
  for (uint32_t i = 0; i < s->n_bitmap_bytes / 8u; ++i) {
    uint64_t w = s->words()[i];
    while (w != 0) {
      f(static_cast<HeapNo>(i * 64 + std::countr_zero(w)));
      w &= w - 1;
    }
  }
}

// Outcome of an in-place set or clear.
enum class BitEdit : uint8_t {
  kDone,         // the set changed in place
  kUnchanged,    // the bit already had the wanted value
  kNeedsBitmap,  // the run form cannot hold the result: a (bigger) bitmap struct is needed
};

// Sets h in place if the form allows. The run grows at either end (ascending and descending
// scans); the supremum has its own bit.
inline BitEdit TrySetBit(LockStruct* s, HeapNo h) {
  if (!s->is_bitmap()) {
    if (h == kSupremumHeapNo) {
      if (s->flags & kFlagSupremum) return BitEdit::kUnchanged;
      s->flags |= kFlagSupremum;
      return BitEdit::kDone;
    }
    if (h == s->run_hi && h != 0xFFFF && s->run_lo < s->run_hi) {
      ++s->run_hi;
      return BitEdit::kDone;
    }
    if (h >= s->run_lo && h < s->run_hi) return BitEdit::kUnchanged;
    if (s->run_lo == s->run_hi && h != kInfimumHeapNo && h != 0xFFFF) {
      s->run_lo = h;
      s->run_hi = static_cast<uint16_t>(h + 1);
      return BitEdit::kDone;
    }
    if (h + 1 == s->run_lo && h >= kFirstUserHeapNo) {
      --s->run_lo;
      return BitEdit::kDone;
    }
    return BitEdit::kNeedsBitmap;
  }
  if (h >= s->n_bits()) return BitEdit::kNeedsBitmap;
  uint64_t& w = s->words()[h >> 6];
  const uint64_t bit = uint64_t{1} << (h & 63);
  if (w & bit) return BitEdit::kUnchanged;
  w |= bit;
  return BitEdit::kDone;
}

// Clears h in place if the form allows (a run shrinks at either end).
inline BitEdit TryClearBit(LockStruct* s, HeapNo h) {
  if (!s->is_bitmap()) {
    if (h == kSupremumHeapNo) {
      if (!(s->flags & kFlagSupremum)) return BitEdit::kUnchanged;
      s->flags &= static_cast<uint8_t>(~kFlagSupremum);
      return BitEdit::kDone;
    }
    if (h < s->run_lo || h >= s->run_hi) return BitEdit::kUnchanged;
    if (h == s->run_lo) {
      ++s->run_lo;
    } else if (h + 1 == s->run_hi) {
      --s->run_hi;
    } else {
      return BitEdit::kNeedsBitmap;
    }
    if (s->run_lo == s->run_hi) s->run_lo = s->run_hi = 0;
    return BitEdit::kDone;
  }
  if (h >= s->n_bits()) return BitEdit::kUnchanged;
  uint64_t& w = s->words()[h >> 6];
  const uint64_t bit = uint64_t{1} << (h & 63);
  if (!(w & bit)) return BitEdit::kUnchanged;
  w &= ~bit;
  return BitEdit::kDone;
}

// The highest heap number a run-form struct holds (for sizing its bitmap), or 1.
inline uint32_t RunMax(const LockStruct* s) {
  return s->run_lo < s->run_hi ? s->run_hi - 1u : kSupremumHeapNo;
}

// Copies the set of `from` into the (zeroed) bitmap of `to`. REQUIRES: to's bitmap is big enough.
inline void CopySet(const LockStruct* from, LockStruct* to) {
  ForEachBit(from, [to](HeapNo h) { to->words()[h >> 6] |= uint64_t{1} << (h & 63); });
}

}  // namespace minnow::lock_internal
