#pragma once
// A B+tree cursor (InnoDB's persistent cursor). It holds no latch between calls: positioning
// copies the current leaf into the cursor (one memcpy of 16 KiB) and releases it, so a caller may
// hold a cursor while writing the same tree from the same thread. Moving past the copied leaf
// follows the sibling link, or re-seeks from the root past the last key seen if the leaf changed
// meanwhile. It therefore sees each key at most once and in order, but is not a snapshot: a
// record inserted behind it is not seen, one inserted ahead may be.
//
// key(), value(), sys() point into the cursor's copy and stay valid until the next move.
// Errors: kCorruption for a damaged page; kInvalidArgument for Next()/Prev() on a cursor that
// is not Valid(); kBusy if repositioning kept failing because the tree changed under it
// thousands of times in a row. A cursor is used by one thread at a time.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "btree/btree.h"
#include "btree/page.h"

namespace minnow {

// Decodes slot i of the leaf image `page` (records lie in [heap_top, kPageSize)) into `rec`
// (heap number, key, sys, inline value or overflow reference, flags; `size` is not set);
// false if the slot points outside the page. Inline: a scan runs it once per record.
inline bool DecodeLeafSlot(const std::byte* page, size_t heap_top, int i, RecordView* rec) {
  const size_t off = Load16(page + btree_offset::kSlots + kSlotSize * static_cast<size_t>(i));
  if (off < heap_top || off + kRecordHeaderSize > kPageSize) return false;
  const std::byte* r = page + off;
  const uint8_t flags = std::to_integer<uint8_t>(r[record_offset::kFlags]);
  const size_t key_len = Load16(r + record_offset::kKeyLen);
  const size_t value_len = Load16(r + record_offset::kValueLen);
  const size_t sys_len = (flags & kRecSys) != 0 ? kSysLen : 0;
  if (off + kRecordHeaderSize + key_len + sys_len + value_len > kPageSize ||
      (flags & ~kRecKnownFlags) != 0) {
    return false;
  }
  rec->flags = flags;
  rec->heap_no = Load16(r + record_offset::kHeapNo);
  rec->key = {r + record_offset::kKey, key_len};
  rec->sys = {rec->key.data() + key_len, sys_len};
  rec->value = {rec->sys.data() + sys_len, value_len};
  return true;
}

// A leaf page read in place: the cursor's copy (Cursor::leaf()) or a leaf latched during
// Cursor::WalkRightLatched. Slots 0 .. n-1 in key order.
struct LeafImage {
  const std::byte* data = nullptr;
  size_t heap_top = kPageSize;
  int n = 0;
  PageNo page_no = kInvalidPageNo;

  bool Decode(int i, RecordView* rec) const { return DecodeLeafSlot(data, heap_top, i, rec); }
  // A counting scan's per-record read: slot i's flags and the first 8 bytes of its hidden
  // fields (0 without them), with a minimal decode (no key or value); false if they lie
  // outside the page.
  bool Peek(int i, uint8_t* flags, uint64_t* sys8) const {
    const size_t off = Load16(data + btree_offset::kSlots + kSlotSize * static_cast<size_t>(i));
    if (off < heap_top || off + kRecordHeaderSize > kPageSize) return false;
    const std::byte* r = data + off;
    *flags = std::to_integer<uint8_t>(r[record_offset::kFlags]);
    if ((*flags & kRecSys) == 0) {
      *sys8 = 0;
      return true;
    }
    const size_t key_len = Load16(r + record_offset::kKeyLen);
    if (off + kRecordHeaderSize + key_len + kSysLen > kPageSize) return false;
    *sys8 = Load64(r + record_offset::kKey + key_len);
    return true;
  }
  // A hint: starts loading slot i's record header into the cache (for loops over slots).
  void Prefetch(int i) const {
    const size_t off = Load16(data + btree_offset::kSlots + kSlotSize * static_cast<size_t>(i));
    if (off < kPageSize) __builtin_prefetch(data + off);
  }
  // Locking scans: the heap numbers of slots [from, n) in key order, and the first 8 bytes of
  // each one's hidden fields (0 without them), read with a minimal decode (no values). Both
  // are cleared first. A slot outside the page ends the lists (reading it reports the
  // corruption). With `live`, also 1 per record that is not delete-marked, else 0 (a locking
  // count needs no second pass over the records).
  void HeapNos(int from, std::vector<HeapNo>* heap_nos, std::vector<uint64_t>* sys8,
               std::vector<uint8_t>* live = nullptr) const;
};

class Cursor {
 public:
  ~Cursor();
  // Positions on the first record >= key. Not Valid() if there is none.
  Status Seek(ConstBytes key);
  // Positions on the last record <= key. Not Valid() if there is none.
  Status SeekForPrev(ConstBytes key);
  Status SeekToFirst();
  Status SeekToLast();
  // Inline while the next record is in the copied leaf (the common case of a scan).
  Status Next() {
    if (NextInLeaf()) [[likely]]
      return Status::OK();
    return NextSlow();
  }
  // Next()'s fast path alone: moves to the next record if it is in the copied leaf and decodes
  // cleanly, and returns true; otherwise changes nothing and returns false (then call Next()).
  bool NextInLeaf() {
    State& s = *st_;
    if (s.valid && s.idx + 1 < s.n && s.Decode(s.idx + 1)) [[likely]] {
      ++s.idx;
      return true;
    }
    return false;
  }
  Status Prev();
  bool Valid() const { return st_->valid; }

  // The whole current record in one call (key, sys, inline value or overflow reference, flags,
  // heap number; `size` is not set), or null if not Valid(). Spans as for key().
  const RecordView* current() const { return st_->valid ? &st_->rec : nullptr; }
  ConstBytes key() const { return st_->rec.key; }
  // The value; reads an overflow chain on first access (then kept until the next move). The
  // chain is read through the tree (under the leaf's latch), so it is the record's value now:
  // kNotFound if the record has been removed since the cursor moved to it.
  Result<ConstBytes> value();
  // The inline part only (no I/O): the whole value unless has_overflow().
  ConstBytes inline_value() const { return st_->rec.value; }
  bool has_overflow() const { return st_->rec.overflow(); }
  ConstBytes sys() const { return st_->rec.sys; }
  bool delete_marked() const { return st_->rec.delete_marked(); }
  RecordLocation location() const;

  // How many times the cursor has copied a leaf: a change says the records shown now come
  // from a new copy (locking scans lock each copy's records once).
  uint64_t leaf_copies() const { return st_->copies; }  // inline: checked once per row
  // Locking scans: the heap numbers of the current record and the records after it in the
  // copied leaf, in key order, and the first 8 bytes of each one's hidden fields (0 without
  // them), read with a minimal decode (no values). Both are cleared first; empty unless
  // Valid(). A slot outside the page ends the lists (the move onto it reports the corruption).
  void RemainingHeapNos(std::vector<HeapNo>* heap_nos, std::vector<uint64_t>* sys8) const;
  // Calls `f` under the S latch of the copied leaf if the leaf is unchanged since the copy
  // (so every record is where the copy says: a lock taken in `f` by heap number is on the
  // record the cursor shows) and returns true; returns false without calling `f` if the leaf
  // changed (re-Seek to the current key to refresh the copy). `f`'s error is returned.
  // REQUIRES: Valid(); the caller holds no page latch.
  Result<bool> WithLeafLatched(const std::function<Status()>& f) const;

  // The copied leaf and the current record's slot in it (counting scans read the rest of the
  // copy through it). Valid until the next move.
  LeafImage leaf() const;
  int slot() const { return st_->idx; }
  // Counting scans read leaves in place, without copies. Walks right from the copied leaf
  // (whose records the caller has read), S-latching each next leaf before releasing the one
  // before it, and calls `visit` on each non-empty leaf while it is latched. `visit` returns
  // kNextLeaf to go on, kStopWalk to end the walk (kStopped), or a slot i: the leaf is copied
  // and the cursor positioned on slot i (kCopied: go on from current()). Its error ends the
  // walk and is returned (latches released). If the copied leaf changed since the copy, the
  // cursor re-seeks past the copy's last record instead (kCopied, or kEnd if nothing
  // follows). kEnd: no leaf follows (the cursor is then not Valid()). `visit` must not call
  // into the tree. REQUIRES: Valid(); the caller holds no page latch.
  static constexpr int kNextLeaf = -1;
  static constexpr int kStopWalk = -2;
  enum class Walk { kEnd, kStopped, kCopied };
  Result<Walk> WalkRightLatched(const std::function<Result<int>(const LeafImage& leaf)>& visit);

 private:
  friend class BTree;
  // The part of the cursor's state the inline accessors read: the copied leaf and the current
  // record decoded from it. Cursor::Impl extends it.
  struct State {
    const std::byte* data = nullptr;  // the copied leaf
    size_t heap_top = kPageSize;
    int n = 0;
    int idx = 0;
    bool valid = false;
    bool big_loaded = false;
    uint64_t copies = 0;  // leaf_copies()
    RecordView rec;

    // Decodes slot i of the copy into `rec`; false if it points outside the page.
    bool Decode(int i) {
      if (!DecodeLeafSlot(data, heap_top, i, &rec)) return false;
      big_loaded = false;
      return true;
    }
  };
  struct Impl;
  explicit Cursor(std::unique_ptr<Impl> impl);
  Status NextSlow();
  std::unique_ptr<Impl> impl_;
  State* st_;  // impl_, as its State
};

}  // namespace minnow
