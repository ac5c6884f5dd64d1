#include "txn/leaf_lock_pass.h"

#include <algorithm>
#include <numeric>

#include "common/coding.h"
#include "mvcc/undo_record.h"

namespace minnow {
namespace {
// How many records ahead the pass prefetches (the first touch of each record misses the cache).
constexpr int kPrefetchAhead = 8;

// One record of the pass: its heap number and live flag, its DB_TRX_ID into *max_writer;
// false if it (or its hidden fields) lies outside the page.
inline bool ReadOne(const LeafImage& leaf, int i, HeapNo* h, uint64_t* live, TrxId* max_writer) {
  const std::byte* p = leaf.data;
  const size_t off = Load16(p + btree_offset::kSlots + kSlotSize * static_cast<size_t>(i));
  if (off < leaf.heap_top || off + kRecordHeaderSize > kPageSize) [[unlikely]]
    return false;
  const std::byte* r = p + off;
  const uint8_t flags = std::to_integer<uint8_t>(r[record_offset::kFlags]);
  if ((flags & kRecSys) != 0) {
    const size_t key_len = Load16(r + record_offset::kKeyLen);
    if (off + kRecordHeaderSize + key_len + kSysLen > kPageSize) [[unlikely]]
      return false;
    *max_writer = std::max(*max_writer, TrxIdOfSys8(Load64(r + record_offset::kKey + key_len)));
  }
  *live += (flags & kRecDeleteMark) == 0;
  *h = Load16(r + record_offset::kHeapNo);
  return true;
}

}  // namespace

LeafLockPass ReadLeafForLocks(const LeafImage& leaf, int from, int to, int live_to,
                              std::vector<HeapNo>* heap_nos) {
  LeafLockPass out;
  heap_nos->clear();
  uint64_t live = 0;
  TrxId max_writer = 0;
  const int prefetch_end = to - kPrefetchAhead;  // slots below it prefetch 8 ahead
  HeapNo h = 0;
  int i = from;
  // The run: heap numbers first, first + 1, ... kept in a register, no list.
  uint32_t expect = 0;
  if (i < to && ReadOne(leaf, i, &h, &live, &max_writer)) {
    out.first = h;
    expect = h + 1u;
    for (++i; i < to; ++i) {
      if (i < prefetch_end) leaf.Prefetch(i + kPrefetchAhead);
      if (!ReadOne(leaf, i, &h, &live, &max_writer)) break;
      if (h != expect) [[unlikely]] {
        // The run ends here: list what it covered, then every heap number from here on.
        out.run = false;
        heap_nos->reserve(static_cast<size_t>(to - from));
        heap_nos->resize(static_cast<size_t>(i - from));
        std::iota(heap_nos->begin(), heap_nos->end(), out.first);
        heap_nos->push_back(h);
        for (++i; i < to; ++i) {
          if (i < prefetch_end) leaf.Prefetch(i + kPrefetchAhead);
          if (!ReadOne(leaf, i, &h, &live, &max_writer)) break;
          heap_nos->push_back(h);
        }
        break;
      }
      ++expect;
    }
  }
  out.read = i - from;
  // The records read at or past live_to (at most the one that ends a range) are not counted.
  uint8_t flags = 0;
  uint64_t sys8 = 0;
  for (int k = std::max(live_to, from); k < i; ++k) {
    if (leaf.Peek(k, &flags, &sys8)) live -= (flags & kRecDeleteMark) == 0;
  }
  out.live = live;
  out.max_writer = max_writer;
  return out;
}

}  // namespace minnow
