#include "txn/leaf_lock_pass.h"

#include <algorithm>
#include <numeric>

#include "common/coding.h"
#include "mvcc/undo_record.h"

namespace minnow {
namespace {
// How many records ahead the pass prefetches (the first touch of each record misses the cache).
constexpr int kPrefetchAhead = 8;
}  // namespace

LeafLockPass ReadLeafForLocks(const LeafImage& leaf, int from, int to, int live_to,
                              std::vector<HeapNo>* heap_nos) {
  LeafLockPass out;
  heap_nos->clear();
  const std::byte* p = leaf.data;
  const size_t heap_top = leaf.heap_top;
  uint64_t live = 0;
  TrxId max_writer = 0;
  uint32_t expect = 0;  // the heap number the run continues with
  int i = from;
  for (; i < to; ++i) {
    if (i + kPrefetchAhead < to) leaf.Prefetch(i + kPrefetchAhead);
    const size_t off = Load16(p + btree_offset::kSlots + kSlotSize * static_cast<size_t>(i));
    if (off < heap_top || off + kRecordHeaderSize > kPageSize) break;
    const std::byte* r = p + off;
    const uint8_t flags = std::to_integer<uint8_t>(r[record_offset::kFlags]);
    if ((flags & kRecSys) != 0) {
      const size_t key_len = Load16(r + record_offset::kKeyLen);
      if (off + kRecordHeaderSize + key_len + kSysLen > kPageSize) break;
      max_writer = std::max(max_writer, TrxIdOfSys8(Load64(r + record_offset::kKey + key_len)));
    }
    if (i < live_to) live += (flags & kRecDeleteMark) == 0;
    const HeapNo h = Load16(r + record_offset::kHeapNo);
    if (i == from) {
      out.first = h;
      expect = h;
    }
    if (out.run) [[likely]] {
      if (h == expect) [[likely]] {
        ++expect;
        continue;
      }
      // The run ends here: list what it covered, then every heap number from here on.
      out.run = false;
      heap_nos->resize(static_cast<size_t>(i - from));
      std::iota(heap_nos->begin(), heap_nos->end(), out.first);
    }
    heap_nos->push_back(h);
  }
  out.read = i - from;
  out.live = live;
  out.max_writer = max_writer;
  return out;
}

}  // namespace minnow
