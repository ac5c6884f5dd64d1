// Locks follow records (InnoDB lock_move_rec_list_end, lock_rec_inherit_to_gap,
// lock_update_insert, lock_update_delete). Each event latches the shards of the pages it
// touches, in shard order, and works in phases: collect the affected structs, clear the old
// bits, then set the new ones, so that a move within a page (a permutation) is exact.

#include <algorithm>
#include <utility>
#include <vector>

#include "common/check.h"
#include "lock/lock_sys_internal.h"

namespace minnow {

using lock_internal::Cell;
using lock_internal::LockStruct;
using lock_internal::WaitState;

namespace {

// Holds the latches of two shards, in shard order, once if they are the same.
class TwoShardGuard {
 public:
  TwoShardGuard(const Cell& a, const Cell& b) NO_THREAD_SAFETY_ANALYSIS
      : first_(a.shard_index <= b.shard_index ? a.shard : b.shard),
        second_(a.shard == b.shard ? nullptr
                                   : (a.shard_index <= b.shard_index ? b.shard : a.shard)) {
    first_->latch.Acquire();
    if (second_ != nullptr) second_->latch.Acquire();
  }
  ~TwoShardGuard() NO_THREAD_SAFETY_ANALYSIS {
    if (second_ != nullptr) second_->latch.Release();
    first_->latch.Release();
  }
  TwoShardGuard(const TwoShardGuard&) = delete;
  TwoShardGuard& operator=(const TwoShardGuard&) = delete;

 private:
  lock_internal::Shard* first_;
  lock_internal::Shard* second_;
};

struct MoveEntry {
  LockStruct* s;
  HeapNo from;
  HeapNo to;
};

struct Grant {
  uint32_t owner;
  TrxLockMode mode;
};

RecLockType GapOn(HeapNo heap_no) {
  return heap_no == kSupremumHeapNo ? RecLockType::kOrdinary : RecLockType::kGap;
}

}  // namespace

// Sets h in owner's granted struct of `kind` on the page, creating it. REQUIRES: shard latch.
static void SetGranted(LockSys::Impl* impl, LockStruct** head, uint32_t owner, PageNo page_no,
                       uint8_t kind, HeapNo h) {
  LockStruct* t = LockSys::Impl::FindGranted(*head, page_no, owner, kind);
  if (t == nullptr) {
    t = impl->NewStruct(impl->registry.Get(owner), page_no, kind, 0, 0);
    LockSys::Impl::Link(head, t);
  }
  impl->SetBit(head, t, h);
}

void LockSys::Impl::MoveGroup(std::span<const RecordIdMove> moves) {
  const PageNo from_page = moves[0].from.page_no;
  const PageNo to_page = moves[0].to.page_no;
  const Cell from = RecordCell(from_page);
  const Cell to = RecordCell(to_page);
  TwoShardGuard guard(from, to);
  std::vector<MoveEntry> entries;
  for (const RecordIdMove& m : moves) {
    for (LockStruct* s = *from.head; s != nullptr; s = s->hash_next) {
      if (s->page_no == from_page && lock_internal::Contains(s, m.from.heap_no)) {
        entries.push_back({s, m.from.heap_no, m.to.heap_no});
      }
    }
  }
  if (entries.empty()) return;
  // Clear: granted structs lose their moved bits in one call each.
  std::vector<MoveEntry> by_struct = entries;
  std::sort(by_struct.begin(), by_struct.end(), [](const MoveEntry& a, const MoveEntry& b) {
    return a.s != b.s ? std::less<LockStruct*>()(a.s, b.s) : a.from < b.from;
  });
  std::vector<HeapNo> heap_nos;
  for (size_t i = 0; i < by_struct.size();) {
    LockStruct* s = by_struct[i].s;
    heap_nos.clear();
    for (; i < by_struct.size() && by_struct[i].s == s; ++i) heap_nos.push_back(by_struct[i].from);
    if (s->waiting()) continue;  // moved whole below
    ClearBits(from.head, s, heap_nos);
  }
  // Set, in collection order (a record's queue order is kept).
  for (const MoveEntry& e : entries) {
    if (!e.s->waiting()) {
      SetGranted(this, to.head, e.s->owner, to_page, e.s->kind, e.to);
      continue;
    }
    // A waiting request gets a new struct at the new place (page_no never changes, invariant
    // (1)), at the tail of the new queue, behind the granted locks just moved.
    TrxImpl* owner = Owner(e.s);
    LockStruct* w = NewStruct(owner, to_page, e.s->kind, 0, lock_internal::kFlagWaiting);
    lock_internal::TrySetBit(w, e.to);
    Link(to.head, w);
    {
      LatchGuard wait_guard(owner->wait_latch);
      if (owner->wait_lock == e.s) {
        owner->wait_lock = w;
        owner->wait_row.rec = RecordId{to_page, e.to};
      }
    }
    Unlink(from.head, e.s);
    Kill(e.s);
  }
}

void LockSys::OnRecordsMoved(std::span<const RecordIdMove> moves) {
  // Moves between the same two pages are applied together.
  size_t i = 0;
  while (i < moves.size()) {
    size_t j = i + 1;
    while (j < moves.size() && moves[j].from.page_no == moves[i].from.page_no &&
           moves[j].to.page_no == moves[i].to.page_no) {
      ++j;
    }
    impl_->MoveGroup(moves.subspan(i, j - i));
    i = j;
  }
}

void LockSys::OnRecordInserted(RecordId inserted, RecordId successor) {
  const Cell succ = impl_->RecordCell(successor.page_no);
  const Cell ins = impl_->RecordCell(inserted.page_no);
  TwoShardGuard guard(succ, ins);
  std::vector<Grant> grants;
  for (const LockStruct* s = *succ.head; s != nullptr; s = s->hash_next) {
    if (s->page_no == successor.page_no && !s->waiting() &&
        (s->type() == RecLockType::kGap || s->type() == RecLockType::kOrdinary) &&
        lock_internal::Contains(s, successor.heap_no)) {
      grants.push_back({s->owner, s->mode()});
    }
  }
  for (const Grant& g : grants) {
    SetGranted(impl_.get(), ins.head, g.owner, inserted.page_no,
               lock_internal::MakeKind(g.mode, GapOn(inserted.heap_no), false), inserted.heap_no);
  }
}

void LockSys::OnRecordRemoved(RecordId removed, RecordId successor) {
  const Cell rem = impl_->RecordCell(removed.page_no);
  const Cell succ = impl_->RecordCell(successor.page_no);
  TwoShardGuard guard(rem, succ);
  const HeapNo h = removed.heap_no;
  std::vector<Grant> grants;
  std::vector<LockStruct*> holders;
  std::vector<LockStruct*> waiters;
  for (LockStruct* s = *rem.head; s != nullptr; s = s->hash_next) {
    if (s->page_no != removed.page_no || !lock_internal::Contains(s, h)) continue;
    if (s->waiting()) {
      waiters.push_back(s);
      continue;
    }
    holders.push_back(s);
    if (s->type() != RecLockType::kInsertIntention) grants.push_back({s->owner, s->mode()});
  }
  for (LockStruct* s : holders) impl_->ClearBits(rem.head, s, std::span<const HeapNo>(&h, 1));
  // A waiter's record is gone: its wait ends as granted, with the gap lock its request
  // leaves on the successor as a granted one's does (InnoDB's lock_rec_inherit_to_gap takes
  // waiting requests too), so waiters that then insert there conflict, as in InnoDB; it
  // re-reads the page.
  for (LockStruct* w : waiters) {
    if (w->type() != RecLockType::kInsertIntention) grants.push_back({w->owner, w->mode()});
    impl_->Unlink(rem.head, w);
    impl_->EndWait(impl_->Owner(w), w, WaitState::kGranted);
    impl_->Kill(w);
  }
  for (const Grant& g : grants) {
    SetGranted(impl_.get(), succ.head, g.owner, successor.page_no,
               lock_internal::MakeKind(g.mode, GapOn(successor.heap_no), false), successor.heap_no);
  }
}

void LockSys::OnPageFreed(PageNo page_no) {
  const Cell cell = impl_->RecordCell(page_no);
  LatchGuard guard(cell.shard->latch);
  for (LockStruct** pp = cell.head; *pp != nullptr;) {
    LockStruct* s = *pp;
    if (s->page_no != page_no) {
      pp = &s->hash_next;
      continue;
    }
    // The engine reports moves before freeing a page; a lock left here is its bug (a struct
    // ReleaseRecord emptied is not: it holds nothing to move). Release builds drop it so the
    // chain holds no struct of a page that no longer exists.
    MINNOW_DCHECK(!s->waiting() && lock_internal::CountBits(s) == 0,
                  "page {} freed with a lock of trx {}", page_no, impl_->Owner(s)->trx_id);
    *pp = s->hash_next;
    s->hash_next = nullptr;
    if (s->waiting()) impl_->EndWait(impl_->Owner(s), s, WaitState::kGranted);
    impl_->Kill(s);
  }
}

}  // namespace minnow
