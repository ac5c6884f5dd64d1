// Counts and the data_locks / data_lock_waits views.

#include "lock/lock_sys_internal.h"

namespace minnow {

using lock_internal::LockStruct;
using lock_internal::Shard;
using lock_internal::WaitState;

TrxLockStats TrxLocks::stats() const {
  TrxLockStats s;
  s.structs = impl_->structs.load(std::memory_order_relaxed);
  s.heap_bytes = impl_->heap_bytes.load(std::memory_order_relaxed);
  s.row_locks = impl_->RowLocks();
  return s;
}

bool TrxLocks::waiting(LockRow* request, std::chrono::system_clock::time_point* since) const {
  LatchGuard guard(impl_->wait_latch);
  if (impl_->wait_state != WaitState::kWaiting || impl_->wait_lock == nullptr) return false;
  if (request != nullptr) *request = impl_->wait_row;
  if (since != nullptr) *since = impl_->wait_started_wall;
  return true;
}

LockSysStats LockSys::stats() const {
  LockSysStats s;
  {
    lock_internal::Registry::Guard guard(impl_->registry.latch);
    impl_->registry.ForEach([&s](TrxLocks::Impl* t) {
      s.structs += t->structs.load(std::memory_order_relaxed);
      s.record_structs += t->record_structs.load(std::memory_order_relaxed);
      s.heap_bytes += t->heap_bytes.load(std::memory_order_relaxed);
      s.row_locks += t->RowLocks();
    });
  }
  s.waits = impl_->waits.load();
  s.waiting_now = impl_->waiting_now.load();
  s.wait_micros = impl_->wait_micros.load();
  s.max_wait_micros = impl_->max_wait_micros.load();
  s.timeouts = impl_->timeouts.load();
  s.deadlocks = impl_->deadlocks.load();
  return s;
}

namespace {

// Calls f(head) for every cell chain of the shard, record cells first.
template <typename F>
void ForEachChain(Shard& shard, F&& f) {
  for (LockStruct*& head : shard.cells) f(head);
  for (LockStruct*& head : shard.table_cells) f(head);
}

}  // namespace

void LockSys::ForEachLock(const std::function<void(const LockRow&)>& row) const {
  for (size_t i = 0; i < impl_->options.shards; ++i) {
    Shard& shard = impl_->shards[i];
    LatchGuard guard(shard.latch);
    ForEachChain(shard, [&](LockStruct* head) {
      for (const LockStruct* s = head; s != nullptr; s = s->hash_next) {
        if (s->is_table()) {
          row(impl_->RowOf(s, 0));
        } else if (s->waiting()) {
          row(impl_->RowOf(s, static_cast<HeapNo>(lock_internal::FirstBit(s))));
        } else {
          lock_internal::ForEachBit(s, [&](HeapNo h) { row(impl_->RowOf(s, h)); });
        }
      }
    });
  }
}

void LockSys::ForEachWait(const std::function<void(const LockWaitRow&)>& row) const {
  for (size_t i = 0; i < impl_->options.shards; ++i) {
    Shard& shard = impl_->shards[i];
    LatchGuard guard(shard.latch);
    ForEachChain(shard, [&](LockStruct* head) {
      for (const LockStruct* w = head; w != nullptr; w = w->hash_next) {
        if (!w->waiting()) continue;
        const auto h = static_cast<HeapNo>(w->is_table() ? 0 : lock_internal::FirstBit(w));
        const LockRow requesting = impl_->RowOf(w, h);
        impl_->ForEachBlocker(head, w, [&](const LockStruct* s) {
          row(LockWaitRow{requesting, impl_->RowOf(s, h)});
          return true;
        });
      }
    });
  }
}

}  // namespace minnow
