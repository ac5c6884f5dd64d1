#include "mvcc/trx_sys.h"

#include <algorithm>

namespace minnow {

TrxSys::TrxSys(TrxId next_id, std::function<Status(TrxId bound)> reserve, uint64_t reserve_every)
    : next_id_(next_id),
      reserved_bound_(next_id),
      reserve_(std::move(reserve)),
      reserve_every_(reserve_every == 0 ? 1 : reserve_every) {
  min_active_id_.store(next_id, std::memory_order_release);
}

Status TrxSys::ReserveLocked(TrxId id) {
  if (id < reserved_bound_) return Status::OK();
  const TrxId bound = id + reserve_every_;
  if (reserve_) RETURN_IF_ERROR(reserve_(bound));
  reserved_bound_ = bound;
  return Status::OK();
}

// min_active_id_ only grows between calls except when an id below it becomes active, which
// cannot happen: ids are handed out in increasing order.
void TrxSys::UpdateMinActive() {
  TrxId m = active_.empty() ? next_id_ : active_.begin()->first;
  min_active_id_.store(m, std::memory_order_release);
}

Result<TrxId> TrxSys::Begin(void* owner) {
  LatchGuard g(latch_);
  const TrxId id = next_id_;
  RETURN_IF_ERROR(ReserveLocked(id));
  ++next_id_;
  active_.emplace(id, owner);
  UpdateMinActive();
  return id;
}

TrxId TrxSys::AssignTrxNo(TrxId id) {
  LatchGuard g(latch_);
  // The bound covers commit numbers too; a failure to raise it only delays the next Begin,
  // which reports it (the number is still unique and increasing in this process).
  (void)ReserveLocked(next_id_);
  const TrxId no = next_id_++;
  serialising_.insert(no);
  trx_no_of_[id] = no;
  return no;
}

void TrxSys::Remove(TrxId id) {
  LatchGuard g(latch_);
  active_.erase(id);
  if (auto it = trx_no_of_.find(id); it != trx_no_of_.end()) {
    serialising_.erase(it->second);
    trx_no_of_.erase(it);
  }
  UpdateMinActive();
}

void TrxSys::OpenView(ReadView* view, TrxId creator) {
  LatchGuard g(latch_);
  view->creator_id_ = creator;
  view->low_limit_id_ = next_id_;
  view->low_limit_no_ = serialising_.empty() ? next_id_ : *serialising_.begin();
  view->active_.clear();
  view->active_.reserve(active_.size());
  for (const auto& [id, owner] : active_) {
    if (id != creator) view->active_.push_back(id);  // std::map: already ascending
  }
  view->up_limit_id_ = view->active_.empty() ? view->low_limit_id_ : view->active_.front();
  view->open_ = true;
  view->prev_ = nullptr;
  view->next_ = views_;
  if (views_ != nullptr) views_->prev_ = view;
  views_ = view;
  ++n_views_;
}

void TrxSys::CloseView(ReadView* view) {
  LatchGuard g(latch_);
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
  LatchGuard g(latch_);
  return active_.contains(id);
}

bool TrxSys::WithActive(TrxId id, const std::function<void(void* owner)>& f) const {
  LatchGuard g(latch_);
  auto it = active_.find(id);
  if (it == active_.end()) return false;
  f(it->second);
  return true;
}

TrxId TrxSys::PurgeLimit() const {
  LatchGuard g(latch_);
  TrxId limit = serialising_.empty() ? next_id_ : *serialising_.begin();
  for (const ReadView* v = views_; v != nullptr; v = v->next_) {
    limit = std::min(limit, v->low_limit_no_);
  }
  return limit;
}

TrxId TrxSys::next_id() const {
  LatchGuard g(latch_);
  return next_id_;
}

uint64_t TrxSys::active_count() const {
  LatchGuard g(latch_);
  return active_.size();
}

uint64_t TrxSys::open_views() const {
  LatchGuard g(latch_);
  return n_views_;
}

void TrxSys::ForEachActive(const std::function<void(TrxId id, void* owner)>& f) const {
  LatchGuard g(latch_);
  for (const auto& [id, owner] : active_) f(id, owner);
}

}  // namespace minnow
