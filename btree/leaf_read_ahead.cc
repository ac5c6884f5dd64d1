// LeafReadAhead: the leaves ahead of a forward walk, from the level-1 nodes' child lists.

#include "btree/leaf_read_ahead.h"

#include <algorithm>
#include <span>

#include "btree/cursor.h"

namespace minnow {

namespace {

constexpr size_t kFindSpan = 8;   // how far ahead in the list a reached leaf may be
constexpr size_t kTrimAt = 4096;  // drop passed entries once this many have piled up

}  // namespace

Result<ReadPageGuard> LeafReadAhead::Fetch(PageNo page_no, bool latched) const {
  return latched ? tree_->pool->TryFetchRead(page_no) : tree_->pool->FetchRead(page_no);
}

void LeafReadAhead::AppendChildren(const PageView& node, size_t from) {
  const size_t n = static_cast<size_t>(node.n_slots());
  for (size_t i = from; i < n; ++i) {
    Result<PageNo> child = node.Child(i);
    if (!child.ok()) return;
    ahead_.push_back(*child);
  }
}

bool LeafReadAhead::Find(PageNo leaf) {
  const size_t end = std::min(ahead_.size(), pos_ + kFindSpan);
  for (size_t i = pos_; i < end; ++i) {
    if (ahead_[i] == leaf) {
      pos_ = i;
      return true;
    }
  }
  return false;
}

void LeafReadAhead::Restart(PageNo leaf, ConstBytes key, bool latched) {
  ahead_.clear();
  pos_ = issued_ = 0;
  next_parent_ = kInvalidPageNo;
  // S-coupled from the root (try-latched when the caller holds a latch), as FindLeafRead.
  Result<ReadPageGuard> g = Fetch(tree_->root, latched);
  if (!g.ok() || !tree_->CheckTreePage(g->data(), tree_->root, -1).ok()) return;
  for (;;) {
    const PageView v(g->data());
    if (v.is_leaf()) {
      off_ = true;  // a single leaf: nothing ahead
      return;
    }
    Result<size_t> slot = v.ChildSlot(key);
    if (!slot.ok()) return;
    if (v.level() == 1) {
      AppendChildren(v, *slot);
      next_parent_ = v.next();
      if (!Find(leaf)) ahead_.clear();  // the key's leaf is not this one: the tree changed
      issued_ = pos_ + 1;
      return;
    }
    Result<PageNo> child = v.Child(*slot);
    if (!child.ok()) return;
    Result<ReadPageGuard> c = Fetch(*child, latched);
    if (!c.ok() || !tree_->CheckTreePage(c->data(), *child, v.level() - 1).ok()) return;
    g = std::move(c);
  }
}

bool LeafReadAhead::AppendNextParent(bool latched) {
  if (next_parent_ == kInvalidPageNo) return false;
  Result<ReadPageGuard> g = Fetch(next_parent_, latched);
  if (!g.ok()) {
    if (g.status().code() != Code::kBusy) next_parent_ = kInvalidPageNo;
    return false;
  }
  if (!tree_->CheckTreePage(g->data(), next_parent_, 1).ok()) {
    next_parent_ = kInvalidPageNo;  // freed or reused since: the walk restarts if need be
    return false;
  }
  const PageView v(g->data());
  AppendChildren(v, 0);
  next_parent_ = v.next();
  return true;
}

void LeafReadAhead::At(const LeafImage& leaf, bool latched) {
  if (off_) return;
  if (!tree_->pool->read_ahead_enabled()) {
    off_ = true;
    return;
  }
  if (!Find(leaf.page_no)) {
    RecordView first;
    if (leaf.n == 0 || !leaf.Decode(0, &first)) return;
    Restart(leaf.page_no, first.key, latched);
    if (ahead_.empty()) return;
  }
  while (ahead_.size() < pos_ + 1 + window_ && AppendNextParent(latched)) {
  }
  issued_ = std::max(issued_, pos_ + 1);
  const size_t end = std::min(ahead_.size(), pos_ + 1 + window_);
  // In batches of half a window or more, except at the end of the list.
  if (end > issued_ && (end - issued_ >= window_ / 2 || end == ahead_.size())) {
    tree_->pool->ReadAhead(std::span<const PageNo>(ahead_.data() + issued_, end - issued_));
    requested_ += end - issued_;
    issued_ = end;
    window_ = std::min(window_ * 2, BufferPool::kMaxReadAhead);
  }
  if (pos_ >= kTrimAt) {
    ahead_.erase(ahead_.begin(), ahead_.begin() + static_cast<std::ptrdiff_t>(pos_));
    issued_ -= pos_;
    pos_ = 0;
  }
}

}  // namespace minnow
