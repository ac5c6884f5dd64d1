// Deadlock detection (innodb_deadlock_detect): a depth-first walk of waits-for edges from the
// transaction about to sleep, under the registry latch (which serializes detection and keeps
// every registered transaction alive), with no shard latch held between edge computations.
// Each transaction's edges are computed under its request's shard latch, so the graph is a
// collage of moments; a found cycle's edges are computed once more before a victim is chosen,
// and a cycle that no longer holds is searched again (up to kAttempts times).

#include <algorithm>

#include "lock/lock_sys_internal.h"

namespace minnow {

using lock_internal::LockStruct;
using lock_internal::WaitState;

namespace {

constexpr int kAttempts = 3;
// A longer search gives up and leaves the wait to the timeout (InnoDB gives up too, after
// 1,000,000 steps or depth 200, though it then picks the requester as the victim).
constexpr size_t kMaxDepth = 200;
constexpr size_t kMaxVisited = 10000;

bool Contains(const std::vector<uint32_t>& v, uint32_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

std::vector<uint32_t> LockSys::Impl::WaitsFor(TrxImpl* trx) {
  std::vector<uint32_t> out;
  LockStruct* w;
  PageNo page_no;
  bool table;
  {
    LatchGuard guard(trx->wait_latch);
    w = trx->wait_lock;
    if (w == nullptr) return out;
    page_no = w->page_no;
    table = w->is_table();
  }
  const Cell cell = table ? TableCell(page_no) : RecordCell(page_no);
  LatchGuard shard_guard(cell.shard->latch);
  {
    LatchGuard guard(trx->wait_latch);
    if (trx->wait_lock != w) return out;  // no longer waits for w
  }
  ForEachBlocker(*cell.head, w, [&out](const LockStruct* s) {
    if (!Contains(out, s->owner)) out.push_back(s->owner);
    return true;
  });
  return out;
}

namespace {

struct Frame {
  TrxLocks::Impl* trx;
  std::vector<uint32_t> edges;
  size_t next = 0;
};

}  // namespace

DeadlockInfo LockSys::Impl::DescribeCycle(const std::vector<TrxImpl*>& cycle,
                                          const TrxImpl* victim) {
  DeadlockInfo info;
  info.victim = victim->trx_id;
  for (TrxImpl* t : cycle) {
    DeadlockTrxInfo d;
    d.trx_id = t->trx_id;
    d.locks = TrxLockStats{.structs = t->structs.load(std::memory_order_relaxed),
                           .heap_bytes = t->heap_bytes.load(std::memory_order_relaxed),
                           .row_locks = t->RowLocks()};
    d.undo_records = t->weight.load(std::memory_order_relaxed);
    LatchGuard guard(t->wait_latch);
    d.waiting_for = t->wait_row;
    info.cycle.push_back(std::move(d));
  }
  for (size_t i = 0; i < cycle.size(); ++i) {
    const LockRow& wanted = info.cycle[(i + cycle.size() - 1) % cycle.size()].waiting_for;
    const uint32_t owner = cycle[i]->slot;
    const Cell cell = wanted.is_table ? TableCell(wanted.table_id) : RecordCell(wanted.rec.page_no);
    LatchGuard shard_guard(cell.shard->latch);
    for (const LockStruct* s = *cell.head; s != nullptr; s = s->hash_next) {
      if (s->owner != owner || s->waiting() || s->is_table() != wanted.is_table) continue;
      if (wanted.is_table) {
        if (s->page_no == wanted.table_id) info.cycle[i].holds.push_back(RowOf(s, 0));
      } else if (s->page_no == wanted.rec.page_no &&
                 lock_internal::Contains(s, wanted.rec.heap_no)) {
        info.cycle[i].holds.push_back(RowOf(s, wanted.rec.heap_no));
      }
    }
  }
  return info;
}

Status LockSys::Impl::CheckDeadlock(TrxImpl* me, DeadlockInfo* found, bool* any) {
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    // Find a cycle through `me`: cycle[0] = me waits for cycle[1] ... waits for me.
    std::vector<TrxImpl*> cycle;
    std::vector<uint32_t> visited{me->slot};
    std::vector<Frame> stack;
    stack.push_back({me, WaitsFor(me)});
    while (!stack.empty() && cycle.empty()) {
      Frame& top = stack.back();
      if (top.next == top.edges.size()) {
        stack.pop_back();
        continue;
      }
      const uint32_t next = top.edges[top.next++];
      if (next == me->slot) {
        for (const Frame& f : stack) cycle.push_back(f.trx);
        break;
      }
      if (Contains(visited, next) || stack.size() >= kMaxDepth || visited.size() >= kMaxVisited) {
        continue;
      }
      visited.push_back(next);
      TrxImpl* t = registry.Get(next);
      if (t != nullptr) stack.push_back({t, WaitsFor(t)});
    }
    if (cycle.empty()) return Status::OK();
    // Confirm each edge once more.
    bool holds = true;
    for (size_t i = 0; i < cycle.size() && holds; ++i) {
      const TrxImpl* to = cycle[(i + 1) % cycle.size()];
      holds = Contains(WaitsFor(cycle[i]), to->slot);
    }
    if (!holds) continue;
    // The victim: the lightest (undo records + lock structs); a tie goes to the requester.
    TrxImpl* victim = me;
    for (TrxImpl* t : cycle) {
      if (t->Weight() < victim->Weight()) victim = t;
    }
    DeadlockInfo info;
    if (options.on_deadlock) info = DescribeCycle(cycle, victim);
    if (victim == me) {
      if (!CancelWait(me, WaitState::kNone)) return Status::OK();  // granted meanwhile
      deadlocks.fetch_add(1, std::memory_order_relaxed);
      *found = std::move(info);
      *any = true;
      return Status(Code::kDeadlock,
                    "deadlock found when trying to get lock; try restarting transaction");
    }
    if (CancelWait(victim, WaitState::kVictim)) {
      deadlocks.fetch_add(1, std::memory_order_relaxed);
      *found = std::move(info);
      *any = true;
    }
    return Status::OK();
  }
  return Status::OK();
}

}  // namespace minnow
