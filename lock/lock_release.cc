// ReleaseAll: walks the transaction's lock heap to learn which cells hold its structs, unlinks
// them cell by cell (one shard latch per shard, cells in order), grants the waiters that no
// longer conflict, then frees the heap. No per-transaction list of structs is kept.
//
// Other threads may add structs to the heap meanwhile (a move or an insert gives the
// transaction a struct on another page while it has a live one on the source page). Each pass
// resumes the walk where the last one ended; the loop ends when a pass finds no new struct.
// That is final: once every struct is unlinked, no other thread can find one to copy.
//
// Table locks go last, after every record lock: a DROP waiting for the table's X lock may free
// the table's pages as soon as it is granted, and no record-lock struct may still name them.

#include <algorithm>
#include <utility>
#include <vector>

#include "common/check.h"
#include "lock/lock_sys_internal.h"

namespace minnow {

using lock_internal::Cell;
using lock_internal::Chunk;
using lock_internal::LockStruct;
using lock_internal::Shard;
using lock_internal::WaitState;

namespace {

struct CellKey {
  uint32_t shard_index;
  LockStruct** head;
  friend bool operator<(const CellKey& a, const CellKey& b) {
    return a.shard_index != b.shard_index ? a.shard_index < b.shard_index
                                          : std::less<LockStruct**>()(a.head, b.head);
  }
  friend bool operator==(const CellKey& a, const CellKey& b) = default;
};

// Unlinks the transaction's structs from the cells `keys` name (one shard latch at a time,
// cells in order) and grants the waiters that no longer conflict.
void Unlink(LockSys::Impl* impl, TrxLocks::Impl* trx, std::vector<CellKey>* keys) {
  std::sort(keys->begin(), keys->end());
  keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
  size_t i = 0;
  while (i < keys->size()) {
    Shard* shard = &impl->shards[(*keys)[i].shard_index];
    LatchGuard guard(shard->latch);
    for (; i < keys->size() && &impl->shards[(*keys)[i].shard_index] == shard; ++i) {
      LockStruct** head = (*keys)[i].head;
      bool removed = false;
      for (LockStruct** pp = head; *pp != nullptr;) {
        LockStruct* s = *pp;
        if (s->owner != trx->slot) {
          pp = &s->hash_next;
          continue;
        }
        *pp = s->hash_next;
        s->hash_next = nullptr;
        if (s->waiting()) impl->EndWait(trx, s, WaitState::kNone);
        impl->Kill(s);
        removed = true;
      }
      if (removed) impl->GrantWaiters(head);
    }
  }
}

}  // namespace

bool LockSys::ReleaseRecord(TrxLocks* trx_locks, RecordId rec, TrxLockMode mode) {
  MINNOW_DCHECK(rec.heap_no >= kFirstUserHeapNo, "only user records are released one by one");
  TrxLocks::Impl* trx = trx_locks->impl_.get();
  const uint8_t kind = lock_internal::MakeKind(mode, RecLockType::kRecNotGap, false);
  const Cell cell = impl_->RecordCell(rec.page_no);
  LatchGuard guard(cell.shard->latch);
  for (LockStruct* s = *cell.head; s != nullptr; s = s->hash_next) {
    if (s->page_no != rec.page_no || s->owner != trx->slot || s->kind != kind || s->waiting() ||
        !lock_internal::Contains(s, rec.heap_no)) {
      continue;
    }
    impl_->ClearBitKeep(cell.head, s, rec.heap_no);
    impl_->GrantWaiters(cell.head);
    return true;
  }
  return false;
}

void LockSys::ReleaseAll(TrxLocks* trx_locks) {
  TrxLocks::Impl* trx = trx_locks->impl_.get();
  Chunk* chunk = nullptr;  // the walk's position: chunk and offset of the next struct
  uint32_t offset = 0;
  std::vector<CellKey> keys;
  std::vector<CellKey> table_keys;  // unlinked once no record lock is left
  for (;;) {
    keys.clear();
    {
      LatchGuard guard(trx->heap_latch);
      if (chunk == nullptr) {
        chunk = trx->first_chunk;
        offset = sizeof(Chunk);
      }
      while (chunk != nullptr) {
        while (offset < chunk->used) {
          const auto* s =
              reinterpret_cast<const LockStruct*>(reinterpret_cast<char*>(chunk) + offset);
          offset += s->size();  // invariant (1): size, page_no and kind are immutable
          if (s->is_table()) {
            const Cell cell = impl_->TableCell(s->page_no);
            table_keys.push_back({cell.shard_index, cell.head});
          } else {
            const Cell cell = impl_->RecordCell(s->page_no);
            keys.push_back({cell.shard_index, cell.head});
          }
        }
        if (chunk->next == nullptr) break;
        chunk = chunk->next;
        offset = sizeof(Chunk);
      }
    }
    if (keys.empty()) break;
    Unlink(impl_.get(), trx, &keys);
  }
  Unlink(impl_.get(), trx, &table_keys);
  trx->FreeChunks();
  LatchGuard guard(trx->wait_latch);
  trx->wait_state = WaitState::kNone;
}

}  // namespace minnow
