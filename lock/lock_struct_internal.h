#pragma once
// The lock struct (lock/ internal): a 24-byte header, followed in the same allocation by a
// bitmap (bitmap form) or a hole code (holes form). See lock/lock_sys.h for the three forms.
//
// Invariants (checks cite them):
//   (1) page_no, owner, the kind byte and n_bitmap_bytes never change after the struct is made
//       (ReleaseAll reads them under the owner's heap latch only); everything else is guarded
//       by the latch of the shard the struct hashes to.
//   (2) A struct is linked in exactly one cell chain while live; a dead struct is in no chain
//       and stays in its owner's heap until ReleaseAll.
//   (3) A live record struct covers at least one heap number, except a granted one that
//       LockSys::ReleaseRecord emptied (kept, as InnoDB keeps its struct); a waiting one
//       covers exactly one.
//   (4) Run form (n_bitmap_bytes == 0): the set is [run_lo, run_hi) plus the supremum if
//       kFlagSupremum. Bitmap form: bit h of the bitmap, for h < 8 * n_bitmap_bytes.
//       Holes form (kFlagHoles): [run_lo, run_hi) less the holes coded in the n_bitmap_bytes
//       after the header, plus the supremum if kFlagSupremum (see ForEachHole).

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
inline constexpr uint8_t kFlagSupremum = 1u << 1;  // run and holes forms
inline constexpr uint8_t kFlagDead = 1u << 2;
// Bit 3 is lock_sys_internal.h's kFlagForwarded. Set at creation only.
inline constexpr uint8_t kFlagHoles = 1u << 4;

struct LockStruct {
  LockStruct* hash_next;  // next in the cell chain (arrival order)
  PageNo page_no;         // table id for table locks
  uint32_t owner;         // the owner's slot in the LockSys registry
  uint8_t kind;           // mode | type << 3 | kKindTable
  uint8_t flags;          // kFlag*
  uint16_t run_lo;        // run form: [run_lo, run_hi)
  uint16_t run_hi;
  uint16_t n_bitmap_bytes;  // 0: run form; else the bitmap's or hole code's size (a multiple of 8)

  TrxLockMode mode() const { return static_cast<TrxLockMode>(kind & 7); }
  RecLockType type() const { return static_cast<RecLockType>((kind >> 3) & 3); }
  bool is_table() const { return (kind & kKindTable) != 0; }
  bool waiting() const { return (flags & kFlagWaiting) != 0; }
  bool dead() const { return (flags & kFlagDead) != 0; }
  bool is_bitmap() const { return n_bitmap_bytes != 0 && (flags & kFlagHoles) == 0; }
  bool is_holes() const { return (flags & kFlagHoles) != 0; }
  uint32_t n_bits() const { return 8u * n_bitmap_bytes; }
  // The struct's bytes in the heap.
  uint32_t size() const { return sizeof(LockStruct) + n_bitmap_bytes; }
  uint64_t* words() { return reinterpret_cast<uint64_t*>(this + 1); }
  const uint64_t* words() const { return reinterpret_cast<const uint64_t*>(this + 1); }
  uint8_t* code() { return reinterpret_cast<uint8_t*>(this + 1); }
  const uint8_t* code() const { return reinterpret_cast<const uint8_t*>(this + 1); }
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

// Holes form: calls f(hole) for the heap numbers of [run_lo, run_hi) outside the set, in
// ascending order, while f returns true. The code is a string of nibbles (low nibble first):
// v in 1..15 says the next hole is v past the last one (run_lo - 1 to begin with), 0 moves 15
// on without a hole; trailing zeros pad it to n_bitmap_bytes. A leaf filled by random inserts
// reuses the heap numbers its splits freed, so a scan of it locks a run with a hole every few
// heap numbers: four bits a hole, against a bit a heap number for a bitmap.
template <typename F>
void ForEachHole(const LockStruct* s, F&& f) {
  const uint8_t* code = s->code();
  uint32_t pos = s->run_lo - 1u;
  for (uint32_t i = 0; i < 2u * s->n_bitmap_bytes; ++i) {
    const uint32_t v = (code[i >> 1] >> ((i & 1) * 4)) & 15u;
    pos += v == 0 ? 15 : v;
    if (pos >= s->run_hi) return;
    if (v != 0 && !f(static_cast<HeapNo>(pos))) return;
  }
}

// Calls f(h) for each h in [lo, hi) whose bit is clear in words, ascending.
template <typename F>
void ForEachClear(const uint64_t* words, uint32_t lo, uint32_t hi, F&& f) {
  for (uint32_t i = lo >> 6; i <= (hi - 1) >> 6; ++i) {
    uint64_t w = ~words[i];
    if (i == lo >> 6) w &= ~uint64_t{0} << (lo & 63);
    if (i == (hi - 1) >> 6 && (hi & 63) != 0) w &= (uint64_t{1} << (hi & 63)) - 1;
    while (w != 0) {
      f(i * 64 + static_cast<uint32_t>(std::countr_zero(w)));
      w &= w - 1;
    }
  }
}

// The hole code's size (rounded up to 8 bytes) for the clear bits of words in [lo, hi).
inline uint32_t HoleCodeBytes(const uint64_t* words, uint32_t lo, uint32_t hi) {
  uint32_t nibbles = 0;
  uint32_t last = lo - 1;
  ForEachClear(words, lo, hi, [&](uint32_t h) {
    nibbles += (h - last - 1) / 15 + 1;
    last = h;
  });
  return (nibbles + 15) / 16 * 8;
}

// Writes the hole code of [s->run_lo, s->run_hi) from words. REQUIRES: s->code() zeroed and
// of HoleCodeBytes' size.
inline void WriteHoleCode(const uint64_t* words, LockStruct* s) {
  uint8_t* code = s->code();
  uint32_t i = 0;
  uint32_t last = s->run_lo - 1u;
  ForEachClear(words, s->run_lo, s->run_hi, [&](uint32_t h) {
    uint32_t gap = h - last;
    for (; gap > 15; gap -= 15) ++i;  // zero nibbles
    code[i >> 1] = static_cast<uint8_t>(code[i >> 1] | (gap << ((i & 1) * 4)));
    ++i;
    last = h;
  });
}

inline bool Contains(const LockStruct* s, HeapNo h) {
  if (s->is_holes()) {
    if (h == kSupremumHeapNo) return (s->flags & kFlagSupremum) != 0;
    if (h < s->run_lo || h >= s->run_hi) return false;
    bool in = true;
    ForEachHole(s, [&](HeapNo hole) {
      if (hole == h) in = false;
      return hole < h;
    });
    return in;
  }
  if (!s->is_bitmap()) {
    if (h == kSupremumHeapNo) return (s->flags & kFlagSupremum) != 0;
    return h >= s->run_lo && h < s->run_hi;
  }
  return h < s->n_bits() && ((s->words()[h >> 6] >> (h & 63)) & 1) != 0;
}

// Number of heap numbers in the set.
inline uint64_t CountBits(const LockStruct* s) {
  if (s->is_holes()) {
    uint64_t holes = 0;
    ForEachHole(s, [&](HeapNo) { return ++holes, true; });
    return static_cast<uint64_t>(s->run_hi - s->run_lo) - holes +
           ((s->flags & kFlagSupremum) ? 1 : 0);
  }
  if (!s->is_bitmap()) {
    return static_cast<uint64_t>(s->run_hi - s->run_lo) + ((s->flags & kFlagSupremum) ? 1 : 0);
  }
  uint64_t n = 0;
  for (uint32_t i = 0; i < s->n_bitmap_bytes / 8u; ++i) n += std::popcount(s->words()[i]);
  return n;
}

// The lowest heap number in the set, or -1 (used for waiting structs, which hold one).
inline int FirstBit(const LockStruct* s) {
  if (s->is_holes()) {
    if (s->flags & kFlagSupremum) return kSupremumHeapNo;
    uint32_t first = s->run_lo;
    ForEachHole(s, [&](HeapNo hole) {
      if (hole != first) return false;
      ++first;
      return true;
    });
    return first < s->run_hi ? static_cast<int>(first) : -1;
  }
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
  if (s->is_holes()) {
    if (s->flags & kFlagSupremum) f(kSupremumHeapNo);
    uint32_t h = s->run_lo;
    ForEachHole(s, [&](HeapNo hole) {
      for (; h < hole; ++h) f(static_cast<HeapNo>(h));
      h = hole + 1u;
      return true;
    });
    for (; h < s->run_hi; ++h) f(static_cast<HeapNo>(h));
    return;
  }
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
  if (s->is_holes()) {
    // Only the supremum and the run's upper end change in place (the code is fixed-size).
    if (h == kSupremumHeapNo) {
      if (s->flags & kFlagSupremum) return BitEdit::kUnchanged;
      s->flags |= kFlagSupremum;
      return BitEdit::kDone;
    }
    if (Contains(s, h)) return BitEdit::kUnchanged;
    if (h == s->run_hi && h != 0xFFFF) {
      ++s->run_hi;
      return BitEdit::kDone;
    }
    return BitEdit::kNeedsBitmap;
  }
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
  if (s->is_holes()) {
    if (h == kSupremumHeapNo) {
      if (!(s->flags & kFlagSupremum)) return BitEdit::kUnchanged;
      s->flags &= static_cast<uint8_t>(~kFlagSupremum);
      return BitEdit::kDone;
    }
    return Contains(s, h) ? BitEdit::kNeedsBitmap : BitEdit::kUnchanged;
  }
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

// The highest heap number a run- or holes-form struct holds (for sizing its bitmap), or 1.
inline uint32_t RunMax(const LockStruct* s) {
  return s->run_lo < s->run_hi ? s->run_hi - 1u : kSupremumHeapNo;
}

// Copies the set of `from` into the (zeroed) bitmap of `to`. REQUIRES: to's bitmap is big enough.
inline void CopySet(const LockStruct* from, LockStruct* to) {
  ForEachBit(from, [to](HeapNo h) { to->words()[h >> 6] |= uint64_t{1} << (h & 63); });
}

// What a set of heap numbers, as a bitmap of n_words words, looks like: its size, and whether
// the run form holds it (its user records are one run [lo, hi), the supremum aside).
struct SetShape {
  uint64_t count = 0;
  bool is_run = false;
  bool supremum = false;
  // The lowest user record and one past the highest (0, 0: none); the run when is_run.
  uint16_t lo = 0, hi = 0;
  bool fits_u16 = true;  // hi fits run_hi (the highest user record is below 0xFFFF)
};

inline SetShape ShapeOf(const uint64_t* words, uint32_t n_words) {
  SetShape shape;
  int64_t first = -1, last = -1;
  for (uint32_t i = 0; i < n_words; ++i) {
    uint64_t w = words[i];
    if (i == 0) {
      shape.supremum = (w >> kSupremumHeapNo) & 1;
      w &= ~((uint64_t{1} << kFirstUserHeapNo) - 1);
    }
    if (w == 0) continue;
    shape.count += std::popcount(w);
    if (first < 0) first = i * 64 + std::countr_zero(w);
    last = i * 64 + 63 - std::countl_zero(w);
  }
  shape.count += shape.supremum ? 1 : 0;
  const uint64_t users = shape.count - (shape.supremum ? 1 : 0);
  if (first < 0) {
    shape.is_run = true;
  } else if (last < 0xFFFF) {
    shape.is_run = static_cast<uint64_t>(last - first + 1) == users;
    shape.lo = static_cast<uint16_t>(first);
    shape.hi = static_cast<uint16_t>(last + 1);
  } else {
    shape.fits_u16 = false;
  }
  return shape;
}

}  // namespace minnow::lock_internal
