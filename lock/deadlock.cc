// Deadlock detection (innodb_deadlock_detect): a depth-first walk of waits-for edges from the
// transaction about to sleep, under the registry latch (which serializes detection and keeps
// every registered transaction alive), with no shard latch held between edge computations.
// Each transaction's edges are computed under its request's shard latch, so the graph is a
// collage of moments; a found cycle's edges are computed once more before a victim is chosen,
// and a cycle that no longer holds is searched again (up to kAttempts times).
//
// Nodes are transactions, by their lock state (TrxLocks), their metadata-lock owner, or both
// (lock/lock_sys.h: "Metadata locks in the same graph"). A node's out-edges come from one
// subsystem at a time: its record or table lock wait's under that request's shard latch
// (WaitsFor), else its metadata-lock wait's under the metadata-lock leaf latch
// (MetadataLockSys::WaitOf); the registry latch keeps every TrxLocks met alive, and owners met
// through metadata locks are known by id only, so none of them has to stay alive.

#include <algorithm>

#include "lock/lock_sys_internal.h"

namespace minnow {

using lock_internal::LockStruct;
using lock_internal::NodeWait;
using lock_internal::WaitNode;
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

// A node's name in the walk: its metadata-lock owner if it has one (reached through a metadata
// lock it is known by no other), else its slot.
uint64_t KeyOf(const WaitNode& n) {
  return n.mdl_owner != 0 ? n.mdl_owner : (uint64_t{1} << 63) | n.trx->slot;
}

bool Leads(const NodeWait& w, const WaitNode& to) {
  return std::any_of(w.to.begin(), w.to.end(),
                     [&](const WaitNode& n) { return KeyOf(n) == KeyOf(to); });
}

// The victim order: a transaction waiting for an exclusive metadata lock (DDL) last, then by
// InnoDB's weight (undo records + lock structs; none for a transaction without lock state).
std::pair<int, uint64_t> VictimRank(const WaitNode& n, const NodeWait& w) {
  const bool ddl = w.metadata && w.mdl.request.mode == MdlMode::kExclusive;
  return {ddl ? 1 : 0, n.trx != nullptr ? n.trx->Weight() : 0};
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

NodeWait LockSys::Impl::WaitOf(const WaitNode& n) {
  NodeWait w;
  if (n.trx != nullptr && options.deadlock_detect) {
    for (uint32_t slot : WaitsFor(n.trx)) {
      if (TrxImpl* t = registry.Get(slot)) w.to.push_back({t, t->mdl_owner});
    }
    if (!w.to.empty()) return w;
  }
  if (mdl == nullptr || n.mdl_owner == 0 || !mdl->WaitOf(n.mdl_owner, &w.mdl)) return w;
  w.metadata = true;
  for (const MdlLockRow& b : w.mdl.blockers) {
    const WaitNode to = NodeOfOwner(b.owner);
    if (!Leads(w, to)) w.to.push_back(to);
  }
  return w;
}

namespace {

struct Frame {
  WaitNode node;
  NodeWait wait;
  size_t next = 0;
};

}  // namespace

DeadlockInfo LockSys::Impl::DescribeCycle(const std::vector<WaitNode>& cycle,
                                          const std::vector<NodeWait>& waits, size_t victim) {
  DeadlockInfo info;
  info.victim = cycle[victim].trx != nullptr ? cycle[victim].trx->trx_id : 0;
  info.victim_index = victim;
  for (size_t i = 0; i < cycle.size(); ++i) {
    DeadlockTrxInfo d;
    d.mdl_owner = cycle[i].mdl_owner;
    if (TrxImpl* t = cycle[i].trx) {
      d.trx_id = t->trx_id;
      d.locks = TrxLockStats{.structs = t->structs.load(std::memory_order_relaxed),
                             .heap_bytes = t->heap_bytes.load(std::memory_order_relaxed),
                             .row_locks = t->RowLocks()};
      d.undo_records = t->weight.load(std::memory_order_relaxed);
    }
    if (waits[i].metadata) {
      d.waits_for_metadata = true;
      d.metadata_wait = waits[i].mdl.request;
    } else {
      LatchGuard guard(cycle[i].trx->wait_latch);
      d.waiting_for = cycle[i].trx->wait_row;
    }
    info.cycle.push_back(std::move(d));
  }
  for (size_t i = 0; i < cycle.size(); ++i) {
    const size_t prev = (i + cycle.size() - 1) % cycle.size();
    if (waits[prev].metadata) {
      for (const MdlLockRow& b : waits[prev].mdl.blockers) {
        if (b.owner == cycle[i].mdl_owner) info.cycle[i].metadata_holds.push_back(b);
      }
      continue;
    }
    // The previous one waits for a record or table lock: this one has lock state.
    const LockRow& wanted = info.cycle[prev].waiting_for;
    const uint32_t owner = cycle[i].trx->slot;
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

Status LockSys::Impl::CheckDeadlock(WaitNode me, DeadlockInfo* found, bool* any) {
  const uint64_t me_key = KeyOf(me);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    // Find a cycle through `me`: cycle[0] = me waits for cycle[1] ... waits for me.
    std::vector<WaitNode> cycle;
    std::vector<uint64_t> visited{me_key};
    std::vector<Frame> stack;
    stack.push_back({me, WaitOf(me)});
    while (!stack.empty() && cycle.empty()) {
      Frame& top = stack.back();
      if (top.next == top.wait.to.size()) {
        stack.pop_back();
        continue;
      }
      const WaitNode next = top.wait.to[top.next++];
      const uint64_t key = KeyOf(next);
      if (key == me_key) {
        for (const Frame& f : stack) cycle.push_back(f.node);
        break;
      }
      if (std::find(visited.begin(), visited.end(), key) != visited.end() ||
          stack.size() >= kMaxDepth || visited.size() >= kMaxVisited) {
        continue;
      }
      visited.push_back(key);
      stack.push_back({next, WaitOf(next)});
    }
    if (cycle.empty()) return Status::OK();
    // Confirm each edge once more; the waits seen now are the ones described and cancelled.
    std::vector<NodeWait> waits;
    bool holds = true;
    for (size_t i = 0; i < cycle.size() && holds; ++i) {
      waits.push_back(WaitOf(cycle[i]));
      holds = Leads(waits.back(), cycle[(i + 1) % cycle.size()]);
    }
    if (!holds) continue;
    size_t victim = 0;  // the requester unless another ranks strictly lower
    for (size_t i = 1; i < cycle.size(); ++i) {
      if (VictimRank(cycle[i], waits[i]) < VictimRank(cycle[victim], waits[victim])) victim = i;
    }
    DeadlockInfo info;
    if (options.on_deadlock) info = DescribeCycle(cycle, waits, victim);
    const NodeWait& vw = waits[victim];
    bool cancelled;
    if (vw.metadata) {
      cancelled = mdl->CancelWaitAsVictim(cycle[victim].mdl_owner, vw.mdl.request.ticket);
    } else {
      cancelled =
          CancelWait(cycle[victim].trx, victim == 0 ? WaitState::kNone : WaitState::kVictim);
    }
    if (!cancelled) return Status::OK();  // granted (or ended) meanwhile
    deadlocks.fetch_add(1, std::memory_order_relaxed);
    *found = std::move(info);
    *any = true;
    if (victim == 0 && !vw.metadata) {
      return Status(Code::kDeadlock,
                    "deadlock found when trying to get lock; try restarting transaction");
    }
    return Status::OK();
  }
  return Status::OK();
}

void LockSys::AttachMetadataLocks(MetadataLockSys* mdl) {
  impl_->mdl = mdl;
  mdl->SetDeadlockCheck([impl = impl_.get()](uint64_t owner) {
    if (impl->closed.load()) return;
    DeadlockInfo found;
    bool any = false;
    {
      lock_internal::Registry::Guard guard(impl->registry.latch);
      (void)impl->CheckDeadlock(impl->NodeOfOwner(owner), &found, &any);
    }
    if (any && impl->options.on_deadlock) impl->options.on_deadlock(found);
  });
}

}  // namespace minnow
