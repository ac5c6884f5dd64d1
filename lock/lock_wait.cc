// Queues and waits: enqueueing a waiting request, granting waiters when locks go away,
// Wait() with timeout, deadlock check and shutdown, and cancelling a wait.

#include <algorithm>

#include "common/check.h"
#include "lock/lock_sys_internal.h"

namespace minnow {

using lock_internal::LockStruct;
using lock_internal::WaitState;

bool LockSys::Impl::Blocked(LockStruct* head, const LockStruct* w) const {
  return ForEachBlocker(head, w, [](const LockStruct*) { return false; });
}

void LockSys::Impl::GrantWaiters(LockStruct** head) {
  for (LockStruct** pp = head; *pp != nullptr;) {
    LockStruct* w = *pp;
    if (!w->waiting() || Blocked(*head, w)) {
      pp = &w->hash_next;
      continue;
    }
    TrxImpl* owner = Owner(w);
    if (!w->is_table()) {
      // If the bit fits the transaction's granted struct for (page, mode, type) in place (a
      // scan that waited resumes its run), it goes there and the request's struct dies.
      // Otherwise the request keeps its struct as a granted one, as InnoDB's lock_grant does
      // (the transaction then has two granted structs for the key; later locks extend the
      // first). Either way the counts stay exact.
      const auto h = static_cast<HeapNo>(lock_internal::FirstBit(w));
      LockStruct* g = FindGranted(*head, w->page_no, w->owner, w->kind);
      if (g != nullptr && lock_internal::TrySetBit(g, h) != lock_internal::BitEdit::kNeedsBitmap) {
        *pp = w->hash_next;
        w->hash_next = nullptr;
        EndWait(owner, w, WaitState::kGranted);
        Kill(w);  // waiting: no row lock to take back
        owner->row_locks.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      owner->row_locks.fetch_add(1, std::memory_order_relaxed);
    }
    w->flags &= static_cast<uint8_t>(~lock_internal::kFlagWaiting);
    EndWait(owner, w, WaitState::kGranted);
    pp = &w->hash_next;
  }
}

LockRow LockSys::Impl::RowOf(const LockStruct* s, HeapNo heap_no) const {
  LockRow row;
  row.trx_id = Owner(s)->trx_id;
  row.is_table = s->is_table();
  if (row.is_table) {
    row.table_id = s->page_no;
  } else {
    row.rec = RecordId{s->page_no, heap_no};
    row.type = s->type();
  }
  row.mode = s->mode();
  row.waiting = s->waiting();
  return row;
}

void LockSys::Impl::EnqueueWaiting(const Cell& cell, TrxImpl* trx, PageNo page_no, HeapNo heap_no,
                                   uint8_t kind) {
  LockStruct* w = NewStruct(trx, page_no, kind, 0, lock_internal::kFlagWaiting);
  if (!w->is_table()) lock_internal::TrySetBit(w, heap_no);
  Link(cell.head, w);
  waits.fetch_add(1, std::memory_order_relaxed);
  waiting_now.fetch_add(1, std::memory_order_relaxed);
  LatchGuard guard(trx->wait_latch);
  MINNOW_DCHECK(trx->wait_lock == nullptr, "trx {} already waits", trx->trx_id);
  trx->wait_lock = w;
  trx->wait_state = WaitState::kWaiting;
  trx->wait_row = RowOf(w, heap_no);
  trx->wait_start = std::chrono::steady_clock::now();
  trx->wait_started_wall = std::chrono::system_clock::now();
  if (!w->is_table()) trx->waiting_rows.store(1, std::memory_order_relaxed);
}

void LockSys::Impl::EndWait(TrxImpl* trx, const LockStruct* w, WaitState state) {
  LatchGuard guard(trx->wait_latch);
  if (trx->wait_lock != w) return;
  trx->wait_lock = nullptr;
  trx->waiting_rows.store(0, std::memory_order_relaxed);
  trx->wait_state = state;
  const auto micros = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                                std::chrono::steady_clock::now() - trx->wait_start)
                                                .count());
  wait_micros.fetch_add(micros, std::memory_order_relaxed);
  uint64_t max = max_wait_micros.load(std::memory_order_relaxed);
  while (micros > max && !max_wait_micros.compare_exchange_weak(max, micros)) {
  }
  waiting_now.fetch_sub(1, std::memory_order_relaxed);
  trx->wait_cv.notify_all();
}

bool LockSys::Impl::CancelWait(TrxImpl* trx, WaitState state) {
  for (;;) {
    LockStruct* w;
    PageNo page_no;
    bool table;
    {
      LatchGuard guard(trx->wait_latch);
      w = trx->wait_lock;
      if (w == nullptr) return false;
      page_no = w->page_no;  // invariant (1): immutable
      table = w->is_table();
    }
    const Cell cell = table ? TableCell(page_no) : RecordCell(page_no);
    LatchGuard shard_guard(cell.shard->latch);
    {
      LatchGuard guard(trx->wait_latch);
      if (trx->wait_lock != w) continue;  // granted, cancelled or moved meanwhile: look again
    }
    Unlink(cell.head, w);
    Kill(w);
    EndWait(trx, w, state);
    GrantWaiters(cell.head);
    return true;
  }
}

namespace {

// Takes the outcome of a wait that ended (kNone after).
Status TakeOutcome(TrxLocks::Impl* trx) REQUIRES(trx->wait_latch) {
  const WaitState st = trx->wait_state;
  trx->wait_state = WaitState::kNone;
  if (st == WaitState::kVictim) {
    return Status(Code::kDeadlock,
                  "deadlock found when trying to get lock; try restarting "
                  "transaction");
  }
  return Status::OK();
}

}  // namespace

Status LockSys::Wait(TrxLocks* trx_locks, std::chrono::milliseconds timeout) {
  TrxLocks::Impl* trx = trx_locks->impl_.get();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool interrupted;
  {
    LatchGuard guard(trx->wait_latch);
    if (trx->wait_state != WaitState::kWaiting) {
      if (impl_->closed.load() && trx->wait_state == WaitState::kNone) {
        return Status::Closed("lock system shut down");
      }
      return TakeOutcome(trx);
    }
    interrupted = trx->interrupted;
  }
  if (!interrupted && impl_->options.deadlock_detect && !impl_->closed.load()) {
    DeadlockInfo found;
    bool any = false;
    Status st;
    {
      lock_internal::Registry::Guard guard(impl_->registry.latch);
      st = impl_->CheckDeadlock({trx, trx->mdl_owner}, &found, &any);
    }
    if (any && impl_->options.on_deadlock) impl_->options.on_deadlock(found);
    if (!st.ok()) return st;
  }
  {
    LatchGuard guard(trx->wait_latch);
    while (trx->wait_state == WaitState::kWaiting && !trx->interrupted && !impl_->closed.load()) {
      // condition_variable_any releases and retakes the Latch itself.
      if (trx->wait_cv.wait_until(trx->wait_latch, deadline) == std::cv_status::timeout) break;
    }
    if (trx->wait_state != WaitState::kWaiting) return TakeOutcome(trx);
    interrupted = trx->interrupted;
  }
  // Timed out, interrupted or shut down: the request leaves the queue.
  const bool closed = impl_->closed.load();
  if (impl_->CancelWait(trx, WaitState::kNone)) {
    LatchGuard guard(trx->wait_latch);
    trx->wait_state = WaitState::kNone;
    if (closed) return Status::Closed("lock system shut down");
    if (interrupted) return Status(Code::kAborted, "Query execution was interrupted");
    impl_->timeouts.fetch_add(1, std::memory_order_relaxed);
    return Status(Code::kLockWaitTimeout, "lock wait timeout exceeded; try restarting transaction");
  }
  LatchGuard guard(trx->wait_latch);  // granted or chosen as a victim just before the cancel
  return TakeOutcome(trx);
}

void LockSys::SetInterrupted(TrxLocks* trx_locks, bool interrupted) {
  TrxLocks::Impl* trx = trx_locks->impl_.get();
  LatchGuard guard(trx->wait_latch);
  trx->interrupted = interrupted;
  if (interrupted) trx->wait_cv.notify_all();
}

void LockSys::Shutdown() {
  impl_->closed.store(true);
  lock_internal::Registry::Guard guard(impl_->registry.latch);
  impl_->registry.ForEach([](TrxLocks::Impl* trx) {
    { LatchGuard wait_guard(trx->wait_latch); }  // a waiter is either asleep or sees `closed`
    trx->wait_cv.notify_all();
  });
}

}  // namespace minnow
