#include "mvcc/trx_sys.h"

#include <algorithm>

#include "common/thread_index.h"

namespace minnow {

TrxSys::TrxSys(TrxId next_id, std::function<Status(TrxId bound)> reserve, uint64_t reserve_every)
    : next_id_(next_id),
      reserved_bound_(next_id),
      reserve_(std::move(reserve)),
      reserve_every_(reserve_every == 0 ? 1 : reserve_every) {}

TrxId TrxSys::DrawId() { return next_id_.fetch_add(1, std::memory_order_acq_rel); }

// Ids at or past the bound wait here until a bound above them is durable; ids below it pass
// without a latch.
Status TrxSys::Reserve(TrxId id) {
  if (id < reserved_bound_.load(std::memory_order_acquire)) [[likely]]
    return Status::OK();
  LatchGuard g(reserve_latch_);
  if (id < reserved_bound_.load(std::memory_order_relaxed)) return Status::OK();
  const TrxId bound = id + reserve_every_;
  if (reserve_) RETURN_IF_ERROR(reserve_(bound));
  reserved_bound_.store(bound, std::memory_order_release);
  return Status::OK();
}

void TrxSys::UpdateMinActive(Shard* shard) {
  const TrxId m = shard->active.empty() ? kNoneActive : shard->active.front().id;
  shard->min_active.store(m, std::memory_order_release);
}

void TrxSys::AcquireAll() const NO_THREAD_SAFETY_ANALYSIS {
  for (const Shard& s : shards_) s.latch.Acquire();
}

void TrxSys::ReleaseAll() const NO_THREAD_SAFETY_ANALYSIS {
  for (const Shard& s : shards_) s.latch.Release();
}

TrxId TrxSys::OldestSerialising() const NO_THREAD_SAFETY_ANALYSIS {
  TrxId oldest = next_id_.load(std::memory_order_relaxed);
  for (const Shard& s : shards_) {
    for (const Entry& e : s.active) {
      if (e.trx_no != 0) oldest = std::min(oldest, e.trx_no);
    }
  }
  return oldest;
}

Result<TrxSys::Active> TrxSys::Begin(void* owner) {
  const uint32_t index = ThreadIndex() % kShards;
  Shard& shard = shards_[index];
  LatchGuard g(shard.latch);
  if (shard.active.empty()) {
    // Announce the id before drawing it (min_active_id reads the counter first).
    shard.min_active.store(next_id_.load(std::memory_order_acquire), std::memory_order_release);
  }
  const TrxId id = DrawId();
  // A failed reserve wastes the id: it is never used, and later ids are larger.
  Status st = Reserve(id);
  if (st.ok()) shard.active.push_back(Entry{id, owner, 0});
  UpdateMinActive(&shard);
  RETURN_IF_ERROR(st);
  return Active{id, index};
}

TrxId TrxSys::AssignTrxNo(const Active& trx) {
  Shard& shard = shards_[trx.shard];
  LatchGuard g(shard.latch);
  const TrxId no = DrawId();
  // The bound covers commit numbers too; a failure to raise it only delays the next Begin,
  // which reports it (the number is still unique and increasing in this process).
  (void)Reserve(no);
  auto it = std::lower_bound(shard.active.begin(), shard.active.end(), trx.id,
                             [](const Entry& e, TrxId id) { return e.id < id; });
  if (it != shard.active.end() && it->id == trx.id) it->trx_no = no;
  return no;
}

void TrxSys::Remove(const Active& trx) {
  Shard& shard = shards_[trx.shard];
  LatchGuard g(shard.latch);
  auto it = std::lower_bound(shard.active.begin(), shard.active.end(), trx.id,
                             [](const Entry& e, TrxId id) { return e.id < id; });
  if (it != shard.active.end() && it->id == trx.id) shard.active.erase(it);
  UpdateMinActive(&shard);
}

void TrxSys::OpenView(ReadView* view, TrxId creator) NO_THREAD_SAFETY_ANALYSIS {
  AcquireAll();  // the instant of the view: nothing begins or ends meanwhile
  const TrxId next = next_id_.load(std::memory_order_relaxed);
  view->creator_id_ = creator;
  view->low_limit_id_ = next;
  view->low_limit_no_ = OldestSerialising();
  view->active_.clear();
  size_t n = 0;
  for (const Shard& s : shards_) n += s.active.size();
  view->active_.reserve(n);
  for (const Shard& s : shards_) {
    for (const Entry& e : s.active) {
      if (e.id != creator) view->active_.push_back(e.id);
    }
  }
  std::sort(view->active_.begin(), view->active_.end());
  view->up_limit_id_ = view->active_.empty() ? view->low_limit_id_ : view->active_.front();
  {
    LatchGuard g(views_latch_);
    view->open_ = true;
    view->prev_ = nullptr;
    view->next_ = views_;
    if (views_ != nullptr) views_->prev_ = view;
    views_ = view;
    ++n_views_;
  }
  ReleaseAll();
}

void TrxSys::CloseView(ReadView* view) {
  LatchGuard g(views_latch_);
  if (!view->open_) return;
  if (view->prev_ != nullptr) {
    view->prev_->next_ = view->next_;
  } else {
    views_ = view->next_;
  }
  if (view->next_ != nullptr) view->next_->prev_ = view->prev_;
  view->prev_ = view->next_ = nullptr;
  view->open_ = false;
  --n_views_;
}

bool TrxSys::IsActive(TrxId id) const {
  return WithActive(id, [](void*) {});
}

bool TrxSys::WithActive(TrxId id, const std::function<void(void* owner)>& f) const {
  // An id lives in one shard and never moves: ask each in turn.
  for (const Shard& s : shards_) {
    LatchGuard g(s.latch);
    auto it = std::lower_bound(s.active.begin(), s.active.end(), id,
                               [](const Entry& e, TrxId x) { return e.id < x; });
    if (it != s.active.end() && it->id == id) {
      f(it->owner);
      return true;
    }
  }
  return false;
}

TrxId TrxSys::PurgeLimit() const NO_THREAD_SAFETY_ANALYSIS {
  AcquireAll();
  TrxId limit = OldestSerialising();
  {
    LatchGuard g(views_latch_);
    for (const ReadView* v = views_; v != nullptr; v = v->next_) {
      limit = std::min(limit, v->low_limit_no_);
    }
  }
  ReleaseAll();
  return limit;
}

uint64_t TrxSys::active_count() const {
  uint64_t n = 0;
  for (const Shard& s : shards_) {
    LatchGuard g(s.latch);
    n += s.active.size();
  }
  return n;
}

uint64_t TrxSys::open_views() const {
  LatchGuard g(views_latch_);
  return n_views_;
}

void TrxSys::ForEachActive(const std::function<void(TrxId id, void* owner)>& f) const
    NO_THREAD_SAFETY_ANALYSIS {
  AcquireAll();
  std::vector<std::pair<TrxId, void*>> all;
  for (const Shard& s : shards_) {
    for (const Entry& e : s.active) all.emplace_back(e.id, e.owner);
  }
  std::sort(all.begin(), all.end());
  for (const auto& [id, owner] : all) f(id, owner);
  ReleaseAll();
}

}  // namespace minnow
