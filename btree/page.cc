// Read side of the B+tree page views: decoding, searching, validation.

#include "btree/page.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace minnow {

bool DecodeRecordAt(const std::byte* page, size_t off, size_t lo, RecordView* out) {
  if (off < lo || off + kRecordHeaderSize > kPageSize) return false;
  const std::byte* r = page + off;
  uint8_t flags = std::to_integer<uint8_t>(r[record_offset::kFlags]);
  if ((flags & ~kRecKnownFlags) != 0) return false;
  size_t key_len = Load16(r + record_offset::kKeyLen);
  size_t value_len = Load16(r + record_offset::kValueLen);
  size_t sys_len = (flags & kRecSys) != 0 ? kSysLen : 0;
  size_t size = kRecordHeaderSize + key_len + sys_len + value_len;
  if (off + size > kPageSize) return false;
  if ((flags & kRecOverflow) != 0 && value_len != kOverflowRefSize) return false;
  out->flags = flags;
  out->heap_no = Load16(r + record_offset::kHeapNo);
  out->size = static_cast<uint16_t>(size);
  out->key = {r + record_offset::kKey, key_len};
  out->sys = {r + record_offset::kKey + key_len, sys_len};
  out->value = {r + record_offset::kKey + key_len + sys_len, value_len};
  return true;
}

RecordView PageView::RecordUnchecked(size_t i) const {
  const std::byte* r = p_ + slot(i);
  RecordView v;
  v.flags = std::to_integer<uint8_t>(r[record_offset::kFlags]);
  v.heap_no = Load16(r + record_offset::kHeapNo);
  size_t key_len = Load16(r + record_offset::kKeyLen);
  size_t value_len = Load16(r + record_offset::kValueLen);
  size_t sys_len = (v.flags & kRecSys) != 0 ? kSysLen : 0;
  v.size = static_cast<uint16_t>(kRecordHeaderSize + key_len + sys_len + value_len);
  v.key = {r + record_offset::kKey, key_len};
  v.sys = {r + record_offset::kKey + key_len, sys_len};
  v.value = {r + record_offset::kKey + key_len + sys_len, value_len};
  return v;
}

Status PageView::CheckHeaderSlow() const {
  PageType type = page_type();
  uint16_t lvl = level();
  if (type != PageType::kBtreeLeaf && type != PageType::kBtreeNode) {
    return Status::Corruption(
        fmt::format("page {}: not a B+tree page (type {})", page_no(), static_cast<int>(type)));
  }
  if ((type == PageType::kBtreeLeaf) != (lvl == 0) || lvl > 64) {
    return Status::Corruption(
        fmt::format("page {}: page type {} at level {}", page_no(), static_cast<int>(type), lvl));
  }
  size_t top = heap_top();
  // Invariant (1).
  if (top > kPageSize || btree_offset::kSlots + kSlotSize * size_t{n_slots()} > top) {
    return Status::Corruption(
        fmt::format("page {}: {} slots and heap top {} overlap", page_no(), n_slots(), top));
  }
  if (garbage() > kPageSize - top || n_heap() < kFirstUserHeapNo || n_heap() > kMaxHeapNo) {
    return Status::Corruption(fmt::format("page {}: bad heap header (garbage {}, n_heap {})",
                                          page_no(), garbage(), n_heap()));
  }
  if (n_free_heap() > n_heap() - kFirstUserHeapNo || free_heap_hint() >= n_heap() ||
      n_slots() > n_heap() - kFirstUserHeapNo) {
    return Status::Corruption(
        fmt::format("page {}: bad heap header ({} slots, n_heap {}, "
                    "{} free, hint {})",
                    page_no(), n_slots(), n_heap(), n_free_heap(), free_heap_hint()));
  }
  if (lvl > 0 && n_slots() == 0) {
    return Status::Corruption(fmt::format("page {}: node page without records", page_no()));
  }
  return Status::OK();
}

bool PageView::ValidateSlots() const {
  if (!CheckHeader().ok()) return false;
  size_t n = n_slots();
  size_t top = heap_top();
  RecordView rec;
  for (size_t i = 0; i < n; ++i) {
    if (!DecodeRecordAt(p_, slot(i), top, &rec)) return false;
  }
  return true;
}

bool PageView::Validate(std::string* why) const {
  Status st = CheckHeader();
  if (!st.ok()) {
    *why = st.message();
    return false;
  }
  size_t n = n_slots();
  size_t top = heap_top();
  std::vector<std::pair<uint16_t, uint16_t>> extents;  // (offset, size)
  extents.reserve(n);
  std::vector<bool> seen(n_heap(), false);
  size_t live_bytes = 0;
  RecordView prev_rec;
  for (size_t i = 0; i < n; ++i) {
    RecordView rec;
    if (!DecodeRecordAt(p_, slot(i), top, &rec)) {  // invariant (2)
      *why = fmt::format("slot {} points to offset {} outside the heap [{}, {})", i, slot(i), top,
                         kPageSize);
      return false;
    }
    if (rec.heap_no < kFirstUserHeapNo || rec.heap_no >= n_heap() || seen[rec.heap_no]) {
      *why = fmt::format("slot {}: heap number {} duplicate or out of [2, {})", i, rec.heap_no,
                         n_heap());  // invariant (4)
      return false;
    }
    seen[rec.heap_no] = true;
    if (i > 0 && CompareKeys(prev_rec.key, rec.key) >= 0) {  // invariant (3)
      *why = fmt::format("slot {}: key not greater than the key of slot {}", i, i - 1);
      return false;
    }
    if (!is_leaf() && (rec.flags != 0 || rec.value.size() != kChildRefSize)) {
      *why = fmt::format("slot {}: node record with flags {} and value of {} bytes", i, rec.flags,
                         rec.value.size());
      return false;
    }
    extents.emplace_back(slot(i), rec.size);
    live_bytes += rec.size;
    prev_rec = rec;
  }
  std::sort(extents.begin(), extents.end());
  for (size_t i = 1; i < extents.size(); ++i) {
    if (extents[i - 1].first + extents[i - 1].second > extents[i].first) {
      *why = fmt::format("records at offsets {} and {} overlap", extents[i - 1].first,
                         extents[i].first);  // invariant (2)
      return false;
    }
  }
  if (garbage() != kPageSize - top - live_bytes) {  // invariant (5)
    *why = fmt::format("garbage is {} in the header but {} by the records", garbage(),
                       kPageSize - top - live_bytes);
    return false;
  }
  size_t free_heap = n_heap() - kFirstUserHeapNo - n;
  if (n_free_heap() != free_heap) {  // invariant (4)
    *why = fmt::format("{} free heap numbers in the header, {} by the records", n_free_heap(),
                       free_heap);
    return false;
  }
  HeapNo hint = free_heap_hint();
  if (hint != 0 && (hint < kFirstUserHeapNo || hint >= n_heap() || seen[hint])) {
    *why = fmt::format("free heap hint {} is not a free heap number", hint);
    return false;
  }
  return true;
}

size_t PageView::Search(size_t lo, size_t hi, ConstBytes key, bool strict, bool* equal) const {
  // The search is bound by cache misses on a cold page: fetch the whole slot directory at once,
  // and at each step prefetch the records of both possible next probes.
  const std::byte* slots = p_ + btree_offset::kSlots;
  for (size_t b = (kSlotSize * lo) & ~size_t{63}; b < kSlotSize * hi; b += 64) {
    __builtin_prefetch(slots + b);
  }
  const size_t top = heap_top();
  uint64_t key_prefix = 0;
  if (!key.empty()) {
    std::byte buf[8] = {};
    std::memcpy(buf, key.data(), key.size() < 8 ? key.size() : 8);
    key_prefix = KeyPrefix8(buf, key.size());
  }
  auto prefetch_record = [&](size_t i) {
    __builtin_prefetch(p_ + (Load16(slots + kSlotSize * i) & (kPageSize - 1)));
  };
  // Prefetch two probes ahead: the first step loads the records of both possible next probes,
  // and every step those of the four possible probes after that (more misses in flight).
  if (hi - lo > 2) {
    size_t mid = lo + (hi - lo) / 2;
    prefetch_record(lo + (mid - lo) / 2);
    prefetch_record(mid + 1 + (hi - mid - 1) / 2);
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (hi - lo > 6) {
      size_t m1 = lo + (mid - lo) / 2, m2 = mid + 1 + (hi - mid - 1) / 2;
      prefetch_record(lo + (m1 - lo) / 2);
      prefetch_record(m1 + 1 + (mid - m1 - 1) / 2);
      prefetch_record(mid + 1 + (m2 - mid - 1) / 2);
      prefetch_record(m2 + 1 + (hi - m2 - 1) / 2);
    }
    size_t off = Load16(slots + kSlotSize * mid);
    if (off < top || off + kRecordHeaderSize > kPageSize) return kSearchCorrupt;
    size_t key_len = Load16(p_ + off + record_offset::kKeyLen);
    if (off + kRecordHeaderSize + key_len > kPageSize) return kSearchCorrupt;
    const std::byte* rk = p_ + off + record_offset::kKey;
    int c;
    // Fast path: the first 8 bytes as big-endian integers decide most probes without memcmp.
    // The 8-byte load stays inside the page; a record near the page end takes the slow path.
    if (off + kRecordHeaderSize + 8 <= kPageSize) [[likely]] {
      uint64_t rp = KeyPrefix8(rk, key_len);
      c = rp < key_prefix ? -1 : (rp > key_prefix ? 1 : 0);
      if (c == 0) c = CompareKeys(ConstBytes(rk, key_len), key);
    } else {
      c = CompareKeys(ConstBytes(rk, key_len), key);
    }
    if (c < 0 || (c == 0 && strict)) {
      lo = mid + 1;
    } else if (c > 0) {
      hi = mid;
    } else {
      *equal = true;
      return mid;
    }
  }
  return lo;
}

bool PageView::KeyAfterRecordAt(size_t off, ConstBytes key, bool or_equal) const {
  const std::byte* r = p_ + off;
  const size_t key_len = Load16(r + record_offset::kKeyLen);
  if (off + kRecordHeaderSize + key_len > kPageSize) return false;
  const int c = CompareKeys(ConstBytes(r + record_offset::kKey, key_len), key);
  return c < 0 || (c == 0 && or_equal);
}

Result<size_t> PageView::LowerBound(ConstBytes key, bool* found) const {
  *found = false;
  const size_t n = n_slots();
  if (AfterLastInsert(key, n, /*or_equal=*/false)) return n;
  size_t i = Search(0, n, key, /*strict=*/false, found);
  if (i == kSearchCorrupt) {
    return Status::Corruption(fmt::format("page {}: a slot points outside the heap", page_no()));
  }
  return i;
}

Result<size_t> PageView::ChildSlot(ConstBytes key) const {
  size_t n = n_slots();
  if (n == 0) return Status::Corruption(fmt::format("page {}: empty node", page_no()));
  // First slot in [1, n) whose key is > key; the child is the one before it.
  if (n > 1 && AfterLastInsert(key, n, /*or_equal=*/true)) return n - 1;
  bool equal = false;
  size_t i = Search(1, n, key, /*strict=*/true, &equal);
  if (i == kSearchCorrupt) {
    return Status::Corruption(fmt::format("page {}: a slot points outside the heap", page_no()));
  }
  return i - 1;
}

Result<PageNo> PageView::Child(size_t i) const {
  RecordView rec;
  if (!Record(i, &rec) || rec.value.size() != kChildRefSize) {
    return Status::Corruption(fmt::format("page {}: bad node record at slot {}", page_no(), i));
  }
  return Load32(rec.value.data());
}

size_t PageView::FindHeapNo(HeapNo heap_no) const {
  size_t n = n_slots();
  RecordView rec;
  for (size_t i = 0; i < n; ++i) {
    if (Record(i, &rec) && rec.heap_no == heap_no) return i;
  }
  return n;
}

}  // namespace minnow
