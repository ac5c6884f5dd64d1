// Metadata locks: grants, waits with timeout, interrupt and deadlock check, release, and the
// deadlock detector's view of a wait (metadata_lock.h).

#include "lock/metadata_lock.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "common/check.h"

namespace minnow {

namespace {

std::atomic<uint64_t> next_owner_id{1};

bool SameLabel(MdlLabel a, MdlLabel b) {
  auto same = [](const char* x, const char* y) {
    return x == y || (x != nullptr && y != nullptr && std::strcmp(x, y) == 0);
  };
  return same(a.type, b.type) && same(a.duration, b.duration);
}

}  // namespace

MdlContext::MdlContext(MetadataLockSys* sys)
    : sys_(sys), owner_id_(next_owner_id.fetch_add(1, std::memory_order_relaxed)) {}

MdlContext::~MdlContext() { ReleaseAll(); }

Status MdlContext::Acquire(std::string_view name, MdlMode mode, std::chrono::milliseconds timeout,
                           MdlLabel label) {
  return sys_->Acquire(this, name, mode, timeout, label);
}

void MdlContext::ReleaseAll() {
  if (held_.empty()) return;  // only the owner's thread adds to held_
  sys_->ReleaseAll(this);
}

void MdlContext::SetInterrupted(bool interrupted) { sys_->SetInterrupted(this, interrupted); }

bool MdlContext::Holds(std::string_view name, MdlMode mode) const {
  auto it = held_.find(name);
  return it != held_.end() && (it->second.mode == MdlMode::kExclusive || mode == MdlMode::kShared);
}

size_t MdlContext::held_count() const { return held_.size(); }

MetadataLockSys::~MetadataLockSys() {
  LatchGuard guard(latch_);
  MINNOW_DCHECK(objects_.empty(), "{} metadata lock objects still in use", objects_.size());
}

bool MetadataLockSys::Grantable(const Object& o, const MdlContext* ctx, MdlMode mode) const {
  if (o.exclusive != nullptr && o.exclusive != ctx) return false;
  if (mode == MdlMode::kShared) {
    // A waiting X blocks new S requests (pending-exclusive priority).
    return o.pending_exclusive == 0;
  }
  // X: no other holder of S (an upgrade waits until it is the only one).
  return std::all_of(o.shared.begin(), o.shared.end(),
                     [ctx](const MdlContext* h) { return h == ctx; });
}

const uint64_t* MetadataLockSys::TicketOf(const MdlContext::Held& h, MdlLabel label) {
  for (const auto& [l, ticket] : h.tickets) {
    if (SameLabel(l, label)) return &ticket;
  }
  return nullptr;
}

void MetadataLockSys::Grant(Object* o, MdlContext* ctx, std::string_view name, MdlMode mode,
                            MdlLabel label, uint64_t ticket) {
  auto it = ctx->held_.find(name);
  if (mode == MdlMode::kExclusive) {
    o->exclusive = ctx;
    // An upgrade gives up its S: X covers it.
    o->shared.erase(std::remove(o->shared.begin(), o->shared.end(), ctx), o->shared.end());
  } else {
    o->shared.push_back(ctx);
  }
  if (it == ctx->held_.end()) {
    it = ctx->held_.emplace(std::string(name), MdlContext::Held{}).first;
    stats_.held++;
  }
  it->second.mode = mode;
  it->second.tickets.emplace_back(label, ticket);
  stats_.granted++;
}

Status MetadataLockSys::Acquire(MdlContext* ctx, std::string_view name, MdlMode mode,
                                std::chrono::milliseconds timeout, MdlLabel label) {
  LatchGuard guard(latch_);
  auto held = ctx->held_.find(name);
  if (held != ctx->held_.end() &&
      (held->second.mode == MdlMode::kExclusive || mode == MdlMode::kShared)) {
    stats_.granted++;  // reentrant: covered by what the owner holds (a new label: a new ticket)
    if (TicketOf(held->second, label) == nullptr) {
      held->second.tickets.emplace_back(label, next_ticket_++);
    }
    return Status::OK();
  }
  auto it = objects_.find(name);
  if (it == objects_.end()) it = objects_.emplace(std::string(name), Object{}).first;
  Object* o = &it->second;
  if (Grantable(*o, ctx, mode)) {
    Grant(o, ctx, name, mode, label, next_ticket_++);
    return Status::OK();
  }
  return WaitFor(o, ctx, name, mode, timeout, label);
}

Status MetadataLockSys::WaitFor(Object* o, MdlContext* ctx, std::string_view name, MdlMode mode,
                                std::chrono::milliseconds timeout, MdlLabel label) {
  Status outcome;
  if (ctx->interrupted_) {
    outcome = Status(Code::kAborted, "Query execution was interrupted");
  } else if (closed_) {
    outcome = Status::Closed("metadata lock system shut down");
  }
  if (!outcome.ok()) {
    EraseIfUnused(name);
    return outcome;
  }
  stats_.waits++;
  stats_.waiting_now++;
  o->waiters++;
  const uint64_t ticket = next_ticket_++;
  o->waiting.push_back(Waiter{ctx, mode, label, ticket});
  if (mode == MdlMode::kExclusive) o->pending_exclusive++;
  ctx->waiting_.store(true, std::memory_order_release);
  waiting_owners_[ctx->owner_id_] =
      WaitingAt{&objects_.find(name)->first, o, ctx, mode, label, ticket};
  CheckDeadlock(ctx);
  // At most a century, so that the deadline cannot overflow the clock.
  const auto deadline = std::chrono::steady_clock::now() +
                        std::min<std::chrono::milliseconds>(timeout, std::chrono::hours(876000));
  bool granted = false;
  for (;;) {
    if (ctx->victim_ticket_ == ticket) {  // before Grantable: the victim's rollback is under way
      stats_.deadlocks++;
      outcome = Status(Code::kDeadlock,
                       "Deadlock found when trying to get lock; try restarting transaction "
                       "(metadata lock on " +
                           std::string(name) + ")");
      break;
    }
    if (Grantable(*o, ctx, mode)) {
      granted = true;
      break;
    }
    if (ctx->interrupted_) {
      stats_.interrupts++;
      outcome = Status(Code::kAborted, "Query execution was interrupted");
      break;
    }
    if (closed_) {
      outcome = Status::Closed("metadata lock system shut down");
      break;
    }
    if (cv_.wait_until(latch_, deadline) == std::cv_status::timeout &&
        ctx->victim_ticket_ != ticket && !Grantable(*o, ctx, mode)) {
      stats_.timeouts++;
      outcome = Status(Code::kLockWaitTimeout,
                       "Lock wait timeout exceeded; try restarting transaction (metadata lock on " +
                           std::string(name) + ")");
      break;
    }
  }
  ctx->waiting_.store(false, std::memory_order_release);
  ctx->victim_ticket_ = 0;
  waiting_owners_.erase(ctx->owner_id_);
  stats_.waiting_now--;
  o->waiters--;
  o->waiting.erase(std::find_if(o->waiting.begin(), o->waiting.end(),
                                [&](const Waiter& w) { return w.ticket == ticket; }));
  if (mode == MdlMode::kExclusive) {
    o->pending_exclusive--;
    // S requests that this pending X held back may go now (granted or not: a granted X
    // blocks them anyway, but a failed one must not leave them asleep).
    if (o->pending_exclusive == 0) cv_.notify_all();
  }
  if (granted) {
    Grant(o, ctx, name, mode, label, ticket);
    return Status::OK();
  }
  EraseIfUnused(name);
  return outcome;
}

void MetadataLockSys::EraseIfUnused(std::string_view name) {
  auto it = objects_.find(name);
  if (it == objects_.end()) return;
  const Object& o = it->second;
  if (o.shared.empty() && o.exclusive == nullptr && o.waiters == 0) objects_.erase(it);
}

void MetadataLockSys::ReleaseAll(MdlContext* ctx) {
  bool wake = false;
  {
    LatchGuard guard(latch_);
    for (const auto& [name, held] : ctx->held_) {
      auto it = objects_.find(name);
      MINNOW_CHECK(it != objects_.end(), "metadata lock on '{}' held but not known", name);
      Object& o = it->second;
      if (held.mode == MdlMode::kExclusive) {
        o.exclusive = nullptr;
      } else {
        o.shared.erase(std::remove(o.shared.begin(), o.shared.end(), ctx), o.shared.end());
      }
      wake |= o.waiters != 0;
      stats_.held--;
      EraseIfUnused(name);
    }
    ctx->held_.clear();
  }
  if (wake) cv_.notify_all();
}

void MetadataLockSys::SetInterrupted(MdlContext* ctx, bool interrupted) {
  {
    LatchGuard guard(latch_);
    ctx->interrupted_ = interrupted;
  }
  if (interrupted) cv_.notify_all();
}

void MetadataLockSys::Shutdown() {
  {
    LatchGuard guard(latch_);
    closed_ = true;
  }
  cv_.notify_all();
}

void MetadataLockSys::ForEachLock(const std::function<void(const MdlLockRow&)>& fn) const {
  LatchGuard guard(latch_);
  MdlLockRow row;
  auto held_rows = [&](const std::string& name, const MdlContext* ctx) {
    auto h = ctx->held_.find(name);
    if (h == ctx->held_.end()) return;
    row.name = name;
    row.mode = h->second.mode;
    row.granted = true;
    row.owner = ctx->owner_id_;
    for (const auto& [label, ticket] : h->second.tickets) {
      row.label = label;
      row.ticket = ticket;
      fn(row);
    }
  };
  for (const auto& [name, o] : objects_) {
    if (o.exclusive != nullptr) held_rows(name, o.exclusive);
    for (const MdlContext* ctx : o.shared) held_rows(name, ctx);
    for (const Waiter& w : o.waiting) {
      row.name = name;
      row.mode = w.mode;
      row.label = w.label;
      row.granted = false;
      row.owner = w.ctx->owner_id_;
      row.ticket = w.ticket;
      fn(row);
    }
  }
}

void MetadataLockSys::SetDeadlockCheck(std::function<void(uint64_t owner)> check) {
  LatchGuard guard(latch_);
  deadlock_check_ = std::move(check);
}

void MetadataLockSys::CheckDeadlock(MdlContext* ctx) {
  if (!deadlock_check_) return;
  // A copy: the check runs without the latch. The wait stays queued meanwhile, so its object
  // (a std::map node) stays where it is.
  std::function<void(uint64_t)> check = deadlock_check_;
  latch_.Release();
  check(ctx->owner_id_);
  latch_.Acquire();
}

bool MetadataLockSys::WaitOf(uint64_t owner, MdlWaitEdges* out) const {
  LatchGuard guard(latch_);
  auto it = waiting_owners_.find(owner);
  if (it == waiting_owners_.end()) return false;
  const WaitingAt& w = it->second;
  const Object& o = *w.object;
  out->request = MdlLockRow{*w.name, w.mode, w.label, false, owner, w.ticket};
  out->blockers.clear();
  auto held = [&](const MdlContext* h) {
    const MdlContext::Held& mine = h->held_.find(*w.name)->second;
    MdlLockRow row{*w.name, mine.mode, {}, true, h->owner_id_, 0};
    if (!mine.tickets.empty()) std::tie(row.label, row.ticket) = mine.tickets.front();
    out->blockers.push_back(std::move(row));
  };
  // As Grantable: what keeps the request from being granted now.
  if (o.exclusive != nullptr && o.exclusive != w.ctx) held(o.exclusive);
  if (w.mode == MdlMode::kShared) {
    for (const Waiter& x : o.waiting) {
      if (x.mode != MdlMode::kExclusive || x.ctx == w.ctx) continue;
      out->blockers.push_back(
          MdlLockRow{*w.name, x.mode, x.label, false, x.ctx->owner_id_, x.ticket});
    }
  } else {
    for (const MdlContext* h : o.shared) {
      if (h != w.ctx) held(h);
    }
  }
  return true;
}

bool MetadataLockSys::CancelWaitAsVictim(uint64_t owner, uint64_t ticket) {
  {
    LatchGuard guard(latch_);
    auto it = waiting_owners_.find(owner);
    if (it == waiting_owners_.end() || it->second.ticket != ticket) return false;
    it->second.ctx->victim_ticket_ = ticket;
  }
  cv_.notify_all();
  return true;
}

MdlStats MetadataLockSys::stats() const {
  LatchGuard guard(latch_);
  return stats_;
}

}  // namespace minnow
