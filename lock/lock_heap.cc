// Lock structs: the per-transaction lock heap, the slot registry, and the struct operations
// that may need a new struct (a run broken into a bitmap, a bitmap outgrown).

#include <algorithm>
#include <cstdlib>
#include <new>

#include "common/check.h"
#include "common/thread_index.h"
#include "lock/lock_sys_internal.h"

namespace minnow {

using lock_internal::BitEdit;
using lock_internal::Chunk;
using lock_internal::LockStruct;

namespace lock_internal {

Registry::Registry() {
  for (auto& b : blocks_) b.store(nullptr, std::memory_order_relaxed);
}

Registry::~Registry() {
  for (auto& b : blocks_) delete[] b.load(std::memory_order_relaxed);
}

uint32_t Registry::Add(TrxLocks::Impl* trx) {
  const uint32_t part = ThreadIndex() % kParts;
  Part& p = parts_[part];
  LatchGuard guard(p.latch);
  uint32_t slot;
  if (!p.free.empty()) {
    slot = p.free.back() * kParts + part;
    p.free.pop_back();
  } else {
    slot = p.n_slots++ * kParts + part;
    MINNOW_CHECK(slot < kBlockSlots * kMaxBlocks, "more than {} transactions", slot);
    auto& block = blocks_[slot / kBlockSlots];
    if (block.load(std::memory_order_acquire) == nullptr) {
      // Parts share blocks: the first to need one installs it.
      auto* fresh = new std::atomic<TrxLocks::Impl*>[kBlockSlots];
      for (uint32_t i = 0; i < kBlockSlots; ++i) fresh[i].store(nullptr, std::memory_order_relaxed);
      std::atomic<TrxLocks::Impl*>* expected = nullptr;
      if (!block.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
        delete[] fresh;
      }
    }
  }
  blocks_[slot / kBlockSlots].load(std::memory_order_acquire)[slot % kBlockSlots].store(
      trx, std::memory_order_release);
  if (trx->mdl_owner != 0) p.by_mdl_owner[trx->mdl_owner] = slot;
  return slot;
}

void Registry::Remove(uint32_t slot) {
  Part& p = parts_[slot % kParts];
  LatchGuard guard(p.latch);
  if (const TrxLocks::Impl* trx = Get(slot); trx != nullptr && trx->mdl_owner != 0) {
    p.by_mdl_owner.erase(trx->mdl_owner);
  }
  blocks_[slot / kBlockSlots].load(std::memory_order_acquire)[slot % kBlockSlots].store(
      nullptr, std::memory_order_release);
  p.free.push_back(slot / kParts);
}

}  // namespace lock_internal

void* TrxLocks::Impl::Allocate(uint32_t bytes) {
  Chunk* c = last_chunk;
  if (c == nullptr || c->size - c->used < bytes) {
    uint32_t size = next_chunk_bytes;
    while (size - sizeof(Chunk) < bytes) size *= 2;
    void* mem = std::malloc(size);
    MINNOW_CHECK(mem != nullptr, "lock heap: malloc({}) failed", size);
    c = new (mem) Chunk{nullptr, size, static_cast<uint32_t>(sizeof(Chunk))};
    if (last_chunk != nullptr) {
      last_chunk->next = c;
    } else {
      first_chunk = c;
    }
    last_chunk = c;
    const uint64_t heap = heap_bytes.fetch_add(size, std::memory_order_relaxed) + size;
    next_chunk_bytes = lock_internal::NextChunkBytes(heap);
  }
  void* p = reinterpret_cast<char*>(c) + c->used;
  c->used += bytes;
  return p;
}

void TrxLocks::Impl::FreeChunks() {
  LatchGuard guard(heap_latch);
  for (Chunk* c = first_chunk; c != nullptr;) {
    Chunk* next = c->next;
    heap_bytes.fetch_sub(c->size, std::memory_order_relaxed);
    std::free(c);
    c = next;
  }
  first_chunk = last_chunk = nullptr;
  next_chunk_bytes = lock_internal::kFirstChunkBytes;
}

LockStruct* LockSys::Impl::NewStruct(TrxImpl* owner, PageNo page_no, uint8_t kind,
                                     uint16_t bitmap_bytes, uint8_t flags) {
  const uint32_t bytes = sizeof(LockStruct) + bitmap_bytes;
  LockStruct* s;
  {
    // Invariant (1): the immutable fields are written under the heap latch, so ReleaseAll's
    // walk may read them under it.
    LatchGuard guard(owner->heap_latch);
    s = new (owner->Allocate(bytes))
        LockStruct{nullptr, page_no, owner->slot, kind, flags, 0, 0, bitmap_bytes};
    if (bitmap_bytes != 0) std::fill_n(s->words(), bitmap_bytes / 8, uint64_t{0});
  }
  owner->structs.fetch_add(1, std::memory_order_relaxed);
  if (!s->is_table()) owner->record_structs.fetch_add(1, std::memory_order_relaxed);
  return s;
}

void LockSys::Impl::Link(LockStruct** head, LockStruct* s) {
  LockStruct** pp = head;
  while (*pp != nullptr) pp = &(*pp)->hash_next;
  s->hash_next = nullptr;
  *pp = s;
}

void LockSys::Impl::Unlink(LockStruct** head, LockStruct* s) {
  LockStruct** pp = head;
  while (*pp != s) {
    MINNOW_DCHECK(*pp != nullptr, "struct not in its chain");  // invariant (2)
    pp = &(*pp)->hash_next;
  }
  *pp = s->hash_next;
  s->hash_next = nullptr;
}

void LockSys::Impl::Kill(LockStruct* s) {
  TrxImpl* owner = Owner(s);
  if (!s->is_table() && !s->waiting()) {
    owner->row_locks.fetch_sub(lock_internal::CountBits(s), std::memory_order_relaxed);
  }
  owner->structs.fetch_sub(1, std::memory_order_relaxed);
  if (!s->is_table()) owner->record_structs.fetch_sub(1, std::memory_order_relaxed);
  s->flags |= lock_internal::kFlagDead;
}

LockStruct* LockSys::Impl::Replace(LockStruct** head, LockStruct* s, uint32_t max_heap_no) {
  LockStruct* n =
      NewStruct(Owner(s), s->page_no, s->kind, lock_internal::BitmapBytesFor(max_heap_no),
                static_cast<uint8_t>(s->flags & lock_internal::kFlagWaiting));
  lock_internal::CopySet(s, n);
  ReplaceWith(head, s, n);
  return n;
}

void LockSys::Impl::ReplaceWith(LockStruct** head, LockStruct* s, LockStruct* n) {
  TrxImpl* owner = Owner(s);
  LockStruct** pp = head;
  while (*pp != s) pp = &(*pp)->hash_next;
  n->hash_next = s->hash_next;
  *pp = n;
  // The old struct dies; its bits live on in n, so only the struct count changes.
  owner->structs.fetch_sub(1, std::memory_order_relaxed);
  owner->record_structs.fetch_sub(1, std::memory_order_relaxed);
  s->flags |= lock_internal::kFlagDead | lock_internal::kFlagForwarded;
  s->hash_next = n;
}

LockStruct* LockSys::Impl::SetBit(LockStruct** head, LockStruct* s, HeapNo h) {
  BitEdit e = lock_internal::TrySetBit(s, h);
  if (e == BitEdit::kNeedsBitmap) {
    const uint32_t max = s->is_bitmap() ? s->n_bits() - 1 : lock_internal::RunMax(s);
    s = Replace(head, s, std::max<uint32_t>(max, h));
    e = lock_internal::TrySetBit(s, h);
    MINNOW_DCHECK(e == BitEdit::kDone, "a new bitmap must take the bit");
  }
  if (e == BitEdit::kDone && !s->waiting()) {
    Owner(s)->row_locks.fetch_add(1, std::memory_order_relaxed);
  }
  return s;
}

LockStruct* LockSys::Impl::ClearBits(LockStruct** head, LockStruct* s,
                                     std::span<const HeapNo> sorted) {
  // A run loses a prefix and a suffix in place (a split moves one end of a bulk-built page);
  // anything else needs the bitmap form.
  size_t i = 0;
  size_t j = sorted.size();
  uint64_t cleared = 0;
  if (!s->is_bitmap()) {
    while (i < j && lock_internal::TryClearBit(s, sorted[i]) == BitEdit::kDone) ++i, ++cleared;
    while (j > i && lock_internal::TryClearBit(s, sorted[j - 1]) == BitEdit::kDone) --j, ++cleared;
    if (i < j) s = Replace(head, s, lock_internal::RunMax(s));
  }
  for (; i < j; ++i) {
    if (lock_internal::TryClearBit(s, sorted[i]) == BitEdit::kDone) ++cleared;
  }
  if (!s->waiting()) Owner(s)->row_locks.fetch_sub(cleared, std::memory_order_relaxed);
  if (lock_internal::CountBits(s) == 0) {
    Unlink(head, s);
    Kill(s);
    return nullptr;
  }
  return s;
}

void LockSys::Impl::ClearBitKeep(LockStruct** head, LockStruct* s, HeapNo h) {
  BitEdit e = lock_internal::TryClearBit(s, h);
  if (e == BitEdit::kNeedsBitmap) {
    s = Replace(head, s, lock_internal::RunMax(s));
    e = lock_internal::TryClearBit(s, h);
  }
  MINNOW_DCHECK(e == BitEdit::kDone, "heap number {} was not in the struct", h);
  Owner(s)->row_locks.fetch_sub(1, std::memory_order_relaxed);
}

LockStruct* LockSys::Impl::FindGranted(LockStruct* head, PageNo page_no, uint32_t owner,
                                       uint8_t kind) {
  for (LockStruct* s = head; s != nullptr; s = s->hash_next) {
    if (s->page_no == page_no && s->owner == owner && s->kind == kind && !s->waiting()) return s;
  }
  return nullptr;
}

}  // namespace minnow
