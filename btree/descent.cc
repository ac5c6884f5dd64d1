// Descents from the root: S-coupled for readers, optimistic (S then X on the leaf) and
// pessimistic (X-coupled, keeping the unsafe part of the path) for writers.
// btree_internal.h states the latching protocol.

#include <fmt/format.h>

#include "btree/btree_internal.h"

namespace minnow {

Status BTree::Impl::CheckTreePageSlow(const std::byte* page, PageNo page_no, int level) const {
  PageView v(page);
  RETURN_IF_ERROR(v.CheckHeader());
  if (v.index_id() != root) {
    return Status::Corruption(fmt::format("{}: page {} belongs to tree {}, not {}",
                                          pool->file_name(), page_no, v.index_id(), root));
  }
  if (level >= 0 && v.level() != level) {
    return Status::Corruption(fmt::format("{}: page {} is at level {}, expected {}",
                                          pool->file_name(), page_no, v.level(), level));
  }
  return Status::OK();
}

namespace {

Result<size_t> PickChild(const PageView& v, BTree::Impl::Target target, ConstBytes key) {
  switch (target) {
    case BTree::Impl::Target::kFirst:
      return size_t{0};
    case BTree::Impl::Target::kLast:
      return static_cast<size_t>(v.n_slots() - 1);  // CheckHeader: nodes have records
    case BTree::Impl::Target::kKey:
      break;
  }
  return v.ChildSlot(key);
}

}  // namespace

Result<ReadPageGuard> BTree::Impl::FindLeafRead(Target target, ConstBytes key) const {
  ASSIGN_OR_RETURN(ReadPageGuard g, pool->FetchRead(root));
  RETURN_IF_ERROR(CheckTreePage(g.data(), root, -1));
  for (;;) {
    PageView v(g.data());
    if (v.is_leaf()) return g;
    ASSIGN_OR_RETURN(size_t slot, PickChild(v, target, key));
    ASSIGN_OR_RETURN(PageNo child, v.Child(slot));
    ASSIGN_OR_RETURN(ReadPageGuard c, pool->FetchRead(child));
    RETURN_IF_ERROR(CheckTreePage(c.data(), child, v.level() - 1));
    g = std::move(c);  // the parent is released only now: S coupling
  }
}

Result<MtrPage> BTree::Impl::FindLeafOptimistic(MiniTransaction* mtr, ConstBytes key) {
  for (;;) {
    if (height_hint.load(std::memory_order_relaxed) == 1) {
      ASSIGN_OR_RETURN(WritePageGuard w, pool->FetchWrite(root));
      RETURN_IF_ERROR(CheckTreePage(w.data(), root, -1));
      if (PageView(w.data()).is_leaf()) return mtr->Adopt(std::move(w));
      height_hint.store(PageView(w.data()).level() + 1u, std::memory_order_relaxed);
      continue;
    }
    ASSIGN_OR_RETURN(ReadPageGuard g, pool->FetchRead(root));
    RETURN_IF_ERROR(CheckTreePage(g.data(), root, -1));
    if (PageView(g.data()).is_leaf()) {  // the root became a leaf again
      height_hint.store(1, std::memory_order_relaxed);
      continue;
    }
    for (;;) {
      PageView v(g.data());
      ASSIGN_OR_RETURN(size_t slot, v.ChildSlot(key));
      ASSIGN_OR_RETURN(PageNo child, v.Child(slot));
      if (v.level() == 1) {
        // X-latch the leaf while the parent is S-latched: no split or merge can change which
        // leaf covers `key` meanwhile, since both need the parent X-latched.
        ASSIGN_OR_RETURN(WritePageGuard w, pool->FetchWrite(child));
        RETURN_IF_ERROR(CheckTreePage(w.data(), child, 0));
        g.Release();
        return mtr->Adopt(std::move(w));
      }
      ASSIGN_OR_RETURN(ReadPageGuard c, pool->FetchRead(child));
      RETURN_IF_ERROR(CheckTreePage(c.data(), child, v.level() - 1));
      g = std::move(c);
    }
  }
}

namespace {

// Whether `v` surely absorbs the change below it without splitting (insert mode) or
// underflowing (remove mode), so that its ancestors may be released.
bool SafeForInsert(const PageView& v, size_t need) {
  if (v.is_leaf()) return v.Fits(need);
  return v.available() >= kMaxNodeEntry;
}

bool SafeForRemove(const PageView& v, bool is_root, ConstBytes key) {
  if (v.is_leaf()) {
    if (is_root) return true;
    bool found = false;
    Result<size_t> idx = v.LowerBound(key, &found);
    if (!idx.ok() || !found) return true;  // nothing to remove (or corrupt: found at the leaf)
    RecordView rec;
    if (!v.Record(*idx, &rec)) return true;
    return v.used() - rec.size - kSlotSize >= kMinFillBytes;
  }
  if (is_root) return v.n_slots() >= 3;
  return v.n_slots() >= 3 && v.used() >= kMinFillBytes + kMaxNodeEntry;
}

}  // namespace

Status BTree::Impl::DescendPessimistic(MiniTransaction* mtr, ConstBytes key, size_t need,
                                       bool remove_mode, std::vector<PathLevel>* path) {
  path->clear();
  ASSIGN_OR_RETURN(MtrPage page, mtr->Write(root));
  RETURN_IF_ERROR(CheckTreePage(page.data(), root, -1));
  path->push_back(PathLevel{page});
  height_hint.store(PageView(page.data()).level() + 1u, std::memory_order_relaxed);
  for (;;) {
    PageView v(path->back().page.data());
    if (v.is_leaf()) return Status::OK();
    ASSIGN_OR_RETURN(size_t slot, v.ChildSlot(key));
    path->back().child_slot = slot;
    int child_level = v.level() - 1;
    size_t n = v.n_slots();
    PathLevel next;
    if (remove_mode && slot + 1 == n && slot > 0) {
      // The merge partner is the left sibling: latch it first (left-to-right).
      ASSIGN_OR_RETURN(PageNo left_no, v.Child(slot - 1));
      ASSIGN_OR_RETURN(PageNo child_no, v.Child(slot));
      ASSIGN_OR_RETURN(next.sibling, mtr->Write(left_no));
      RETURN_IF_ERROR(CheckTreePage(next.sibling.data(), left_no, child_level));
      ASSIGN_OR_RETURN(next.page, mtr->Write(child_no));
      next.sibling_is_left = true;
    } else {
      ASSIGN_OR_RETURN(PageNo child_no, v.Child(slot));
      ASSIGN_OR_RETURN(next.page, mtr->Write(child_no));
      if (remove_mode && slot + 1 < n) {
        ASSIGN_OR_RETURN(PageNo right_no, v.Child(slot + 1));
        ASSIGN_OR_RETURN(next.sibling, mtr->Write(right_no));
        RETURN_IF_ERROR(CheckTreePage(next.sibling.data(), right_no, child_level));
      }
    }
    RETURN_IF_ERROR(CheckTreePage(next.page.data(), next.page.page_no(), child_level));
    PageView cv(next.page.data());
    bool safe = remove_mode ? SafeForRemove(cv, false, key) : SafeForInsert(cv, need);
    if (safe) {
      for (PathLevel& l : *path) {
        mtr->ReleaseUnchanged(l.page);
        if (l.sibling.valid()) mtr->ReleaseUnchanged(l.sibling);
        if (l.neighbour.valid()) mtr->ReleaseUnchanged(l.neighbour);
      }
      path->clear();
      if (next.sibling.valid()) {
        mtr->ReleaseUnchanged(next.sibling);
        next.sibling = MtrPage();
      }
    } else {
      // This level may split (insert) or merge (remove): latch the right neighbour whose prev
      // link that would change now, before any page below (btree_internal.h).
      MtrPage rightmost = next.page;
      if (remove_mode) rightmost = next.sibling_is_left ? next.page : next.sibling;
      PageNo neighbour = rightmost.valid() ? PageView(rightmost.data()).next() : kInvalidPageNo;
      if (neighbour != kInvalidPageNo) {
        ASSIGN_OR_RETURN(next.neighbour, mtr->Write(neighbour));
        RETURN_IF_ERROR(CheckTreePage(next.neighbour.data(), neighbour, child_level));
      }
    }
    path->push_back(next);
  }
}

}  // namespace minnow
