#pragma once
// Read-ahead for a forward walk over a tree's leaves (Cursor::Next leaving a leaf, and
// Cursor::WalkRightLatched). The leaves ahead are the children of the level-1 node above the
// walk, then of its right siblings, in key order: their page numbers are taken from those child
// lists and handed to BufferPool::ReadAhead a window ahead of the walk, so the pool reads them
// (close ones with one request) while the walk works on the leaves before. The window starts
// at 4 leaves and doubles with each batch up to BufferPool::kMaxReadAhead, so a short range scan
// reads little in vain.
//
// A hint only: the walk itself fetches and checks every leaf as before. The lists may go stale
// while writers split or merge; a leaf the walk reaches that is not among the next few of the
// list makes the list start over from that leaf's parent, and pages no longer the tree's leaves
// are read for nothing. Errors (a damaged node, a busy latch) stop or pause the read-ahead,
// never the walk. Used by one cursor, from one thread at a time.

#include <cstddef>
#include <vector>

#include "btree/btree_internal.h"

namespace minnow {

struct LeafImage;

class LeafReadAhead {
 public:
  explicit LeafReadAhead(const BTree::Impl* tree) : tree_(tree) {}
  // The walk has reached `leaf` (its page number and records). With `latched`, the caller holds
  // a page latch: nodes are then only try-latched (never waited for: latch order).
  void At(const LeafImage& leaf, bool latched);

  // For tests: the leaves requested so far.
  size_t requested() const { return requested_; }

 private:
  // Positions on `leaf` if it is among the next few of the list.
  bool Find(PageNo leaf);
  // Fills the list with the leaves from `leaf` on, found under its parent by descending with
  // `key` (a key of the leaf).
  void Restart(PageNo leaf, ConstBytes key, bool latched);
  // Appends the children of the next level-1 node; false if there is none or it is busy.
  bool AppendNextParent(bool latched);
  Result<ReadPageGuard> Fetch(PageNo page_no, bool latched) const;
  void AppendChildren(const PageView& node, size_t from);

  const BTree::Impl* tree_;
  std::vector<PageNo> ahead_;  // leaves in walk order; ahead_[pos_] is the walk's leaf
  size_t pos_ = 0;
  size_t issued_ = 0;  // ahead_[.. issued_) have been requested (or passed)
  size_t window_ = 4;
  PageNo next_parent_ = kInvalidPageNo;
  bool off_ = false;  // read-ahead is off in the pool, or the tree is a single leaf
  size_t requested_ = 0;
};

}  // namespace minnow
