// Merge, redistribute and root collapse after removals. A non-root page that falls under a
// quarter full (or a node left with one child) is rebalanced with the sibling latched during
// the pessimistic descent: if both fit in one page the right page is folded into the left one
// and freed (its right neighbour's prev link is fixed, latched rightward) and the parent loses
// the right page's separator, possibly underflowing in turn; otherwise records move across to
// balance the bytes and the parent's separator is replaced. A root node left with one child
// takes over the child's contents (the root page never moves).

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "btree/btree_internal.h"
#include "common/check.h"
#include "common/crash_point.h"

namespace minnow {
namespace {

std::unique_ptr<std::byte[]> CopyPage(const std::byte* page) {
  std::unique_ptr<std::byte[]> copy(new std::byte[kPageSize]);
  std::memcpy(copy.get(), page, kPageSize);
  return copy;
}

struct Side {
  RecordEntry e;
  bool from_left;
};

size_t EntryBytes(const Side& s) { return s.e.spec.size() + kSlotSize; }

// Two siblings' records side by side, read from copies before anything changes. Entries are
// spans into the copies and into `parent_sep`, so the struct stays where it was filled.
struct Siblings {
  Siblings() = default;
  Siblings(const Siblings&) = delete;
  Siblings& operator=(const Siblings&) = delete;

  std::unique_ptr<std::byte[]> left_copy, right_copy;
  std::vector<RecordEntry> left, right;
  // The parent's separator for the right page: the right node's real lower bound, standing in
  // for its first record's key (minus infinity) when the nodes are put side by side.
  std::string parent_sep;
  std::vector<Side> all;  // the left page's entries, then the right page's: in key order
  size_t total = 0;       // bytes of all entries with their slots
  bool leaf = false;
  uint16_t level = 0;
  PageNo left_prev = kInvalidPageNo;
  PageNo right_next = kInvalidPageNo;
};

Status CollectSiblings(const MtrPage& left, const MtrPage& right, const MtrPage& parent,
                       size_t right_slot, Siblings* s) {
  s->left_copy = CopyPage(left.data());
  s->right_copy = CopyPage(right.data());
  PageView lv(s->left_copy.get());
  PageView rv(s->right_copy.get());
  s->leaf = lv.is_leaf();
  s->level = lv.level();
  s->left_prev = lv.prev();
  s->right_next = rv.next();
  RETURN_IF_ERROR(CollectRecords(s->left_copy.get(), &s->left));
  RETURN_IF_ERROR(CollectRecords(s->right_copy.get(), &s->right));
  PageView pv(parent.data());
  RecordView sep;
  if (!pv.Record(right_slot, &sep) || sep.value.size() != kChildRefSize ||
      Load32(sep.value.data()) != right.page_no()) {
    return Status::Corruption(fmt::format("page {}: slot {} does not point to page {}",
                                          parent.page_no(), right_slot, right.page_no()));
  }
  s->parent_sep.assign(reinterpret_cast<const char*>(sep.key.data()), sep.key.size());
  if (!s->leaf && !s->right.empty()) s->right[0].spec.key = AsBytes(s->parent_sep);
  for (const RecordEntry& e : s->left) s->all.push_back({e, true});
  for (const RecordEntry& e : s->right) s->all.push_back({e, false});
  for (const Side& side : s->all) s->total += EntryBytes(side);
  return Status::OK();
}

// Folds `right` into `left` (they fit one page), frees `right` and removes its separator from
// the parent. Everything that can fail comes before the first change.
Status MergeSiblings(BTree::Impl* t, MiniTransaction* mtr, MtrPage left, MtrPage right,
                     MtrPage parent, size_t right_slot, const Siblings& s) {
  MtrPage next;  // the right page's right neighbour, whose prev link changes
  if (s.right_next != kInvalidPageNo) {
    // Latched by the descent, top-down (see InsertWithSplit).
    MINNOW_DCHECK(mtr->holds(s.right_next), "merge of {}: right neighbour {} not latched",
                  right.page_no(), s.right_next);
    ASSIGN_OR_RETURN(next, mtr->Write(s.right_next));
    RETURN_IF_ERROR(t->CheckTreePage(next.data(), s.right_next, s.level));
  }
  std::vector<RecordMove> moves;
  PageBuilder b;
  b.Reset(t->Init(s.level, s.left_prev, s.right_next));
  HeapNoAllocator heaps;
  for (const RecordEntry& e : s.left) {
    b.Append(e.spec, e.heap_no);
    heaps.MarkUsed(e.heap_no);
  }
  for (const RecordEntry& e : s.right) {
    HeapNo h = heaps.Next();
    b.Append(e.spec, h);
    if (s.leaf) moves.push_back({{right.page_no(), e.heap_no}, {left.page_no(), h}});
  }
  MtrEditor led(left);
  b.CopyTo(&led);
  if (next.valid()) {
    MtrEditor ned(next);
    SetPrev(&ned, left.page_no());
  }
  MtrEditor ped(parent);
  RemoveRecord(&ped, right_slot);
  if (s.leaf) {
    moves.push_back({{right.page_no(), kSupremumHeapNo}, {left.page_no(), kSupremumHeapNo}});
    t->ReportMoves(moves);
  }
  if (t->listener != nullptr) t->listener->OnPageFreed(right.page_no());
  RETURN_IF_ERROR(mtr->Free(right));
  BTree::Impl::Bump(t->counters.merges);
  return Status::OK();
}

// How many entries go left in a redistribution, and the parent's new separator: as balanced in
// bytes as the parent's `room` for the separator allows; nodes keep at least two records each
// (a node with one child would leave that child without a sibling to merge with). 0 if nothing
// fits.
size_t ChooseRedistribution(const Siblings& s, size_t room, std::string* sep) {
  const std::vector<Side>& all = s.all;
  const size_t n = all.size();
  const size_t min_side = s.leaf ? 1 : 2;
  if (n < 2 * min_side) return 0;
  std::vector<size_t> prefix(n + 1, 0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + EntryBytes(all[i]);
  size_t balanced = n - min_side;
  for (size_t i = 0; i < n; ++i) {
    if (prefix[i + 1] * 2 >= s.total) {
      balanced = i + 1;
      break;
    }
  }
  balanced = std::clamp(balanced, min_side, n - min_side);
  auto sep_for = [&](size_t m) {
    return s.leaf ? ShortestSeparator(all[m - 1].e.spec.key, all[m].e.spec.key)
                  : std::string(reinterpret_cast<const char*>(all[m].e.spec.key.data()),
                                all[m].e.spec.key.size());
  };
  for (size_t d = 0; d < n; ++d) {
    for (size_t c : {balanced + d, balanced - d}) {  // (balanced - d may wrap: out of range)
      if (c < min_side || c > n - min_side || c == s.left.size()) continue;
      if (prefix[c] > kUsableSize || prefix[n] - prefix[c] > kUsableSize) continue;
      std::string candidate = sep_for(c);
      if (candidate.size() > room) continue;
      *sep = std::move(candidate);
      return c;
    }
  }
  return 0;
}

// Rebuilds `page` with entries [from, to) of `s.all`: the entries that were on this side keep
// their heap numbers, the ones that cross get fresh ones (reported in `moves` on a leaf).
void BuildSide(const BTree::Impl* t, const Siblings& s, MtrPage page, size_t from, size_t to,
               bool left_side, PageNo prev, PageNo next, PageNo left_no, PageNo right_no,
               std::vector<RecordMove>* moves) {
  HeapNoAllocator heaps;
  for (size_t i = from; i < to; ++i) {
    if (s.all[i].from_left == left_side) heaps.MarkUsed(s.all[i].e.heap_no);
  }
  PageBuilder b;
  b.Reset(t->Init(s.level, prev, next));
  for (size_t i = from; i < to; ++i) {
    const Side& side = s.all[i];
    if (side.from_left == left_side) {
      b.Append(side.e.spec, side.e.heap_no);
    } else {
      HeapNo h = heaps.Next();
      b.Append(side.e.spec, h);
      PageNo from_page = side.from_left ? left_no : right_no;
      if (s.leaf) moves->push_back({{from_page, side.e.heap_no}, {page.page_no(), h}});
    }
  }
  MtrEditor ed(page);
  b.CopyTo(&ed);
}

// Moves records between `left` and `right` (ChooseRedistribution) and replaces the parent's
// separator. Does nothing if no split point fits: the page stays underfull (never empty).
Status Redistribute(BTree::Impl* t, MtrPage left, MtrPage right, MtrPage parent, size_t right_slot,
                    const Siblings& s) {
  const size_t room = PageView(parent.data()).available() + s.parent_sep.size();
  std::string sep;
  const size_t m = ChooseRedistribution(s, room, &sep);
  if (m == 0) return Status::OK();
  std::vector<RecordMove> moves;
  const size_t n = s.all.size();
  BuildSide(t, s, left, 0, m, true, s.left_prev, right.page_no(), left.page_no(), right.page_no(),
            &moves);
  BuildSide(t, s, right, m, n, false, left.page_no(), s.right_next, left.page_no(), right.page_no(),
            &moves);
  std::byte child_ref[kChildRefSize];
  Store32(child_ref, right.page_no());
  MtrEditor ped(parent);
  ReplaceRecord(&ped, right_slot,
                RecordSpec{.key = AsBytes(sep), .value = ConstBytes(child_ref, kChildRefSize)});
  t->ReportMoves(moves);
  BTree::Impl::Bump(t->counters.redistributions);
  return Status::OK();
}

}  // namespace

static Status CollapseRoot(BTree::Impl* t, MiniTransaction* mtr, MtrPage root) {
  for (;;) {
    PageView rv(root.data());
    if (rv.is_leaf() || rv.n_slots() != 1) return Status::OK();
    ASSIGN_OR_RETURN(PageNo child_no, rv.Child(0));
    ASSIGN_OR_RETURN(MtrPage child, mtr->Write(child_no));
    RETURN_IF_ERROR(t->CheckTreePage(child.data(), child_no, rv.level() - 1));
    PageView cv(child.data());
    Bytes all = root.MutateAll();
    std::memcpy(all.data() + page_offset::kPageType, child.data() + page_offset::kPageType, 2);
    std::memcpy(all.data() + kPageHeaderSize, child.data() + kPageHeaderSize,
                kPageSize - kPageHeaderSize);
    Store32(all.data() + btree_offset::kPrev, kInvalidPageNo);
    Store32(all.data() + btree_offset::kNext, kInvalidPageNo);
    if (cv.is_leaf() && t->listener != nullptr) {
      std::vector<RecordMove> moves;
      for (size_t i = 0; i < cv.n_slots(); ++i) {
        RecordView rec;
        if (cv.Record(i, &rec)) {
          moves.push_back({{child_no, rec.heap_no}, {root.page_no(), rec.heap_no}});
        }
      }
      moves.push_back({{child_no, kSupremumHeapNo}, {root.page_no(), kSupremumHeapNo}});
      t->ReportMoves(moves);
    }
    t->height_hint.store(cv.level() + 1u, std::memory_order_relaxed);
    BTree::Impl::Bump(t->counters.root_collapses);
    if (t->listener != nullptr) t->listener->OnPageFreed(child_no);
    RETURN_IF_ERROR(mtr->Free(child));
  }
}

// Folds `right` into `left` if both fit one page, else moves records between them. *merged tells
// which happened (nothing happens if redistribution would not fit the parent's new separator).
static Status MergeOrRedistribute(BTree::Impl* t, MiniTransaction* mtr, MtrPage left, MtrPage right,
                                  MtrPage parent, size_t right_slot, bool* merged) {
  *merged = false;
  Siblings s;
  RETURN_IF_ERROR(CollectSiblings(left, right, parent, right_slot, &s));
  if (s.total > kUsableSize) return Redistribute(t, left, right, parent, right_slot, s);
  RETURN_IF_ERROR(MergeSiblings(t, mtr, left, right, parent, right_slot, s));
  *merged = true;
  return Status::OK();
}

Status BTree::Impl::Rebalance(MiniTransaction* mtr, std::vector<PathLevel>* path, size_t level) {
  MINNOW_CRASH_POINT("btree.merge");  // pages latched, nothing of the merge committed
  for (;;) {
    PathLevel cur = (*path)[level];
    PageView v(cur.page.data());
    if (cur.page.page_no() == root) return CollapseRoot(this, mtr, cur.page);
    bool underfull = v.used() < kMinFillBytes || (!v.is_leaf() && v.n_slots() < 2);
    if (!underfull || level == 0 || !cur.sibling.valid()) return Status::OK();
    PathLevel& parent = (*path)[level - 1];
    MtrPage left = cur.sibling_is_left ? cur.sibling : cur.page;
    MtrPage right = cur.sibling_is_left ? cur.page : cur.sibling;
    size_t right_slot = cur.sibling_is_left ? parent.child_slot : parent.child_slot + 1;
    bool merged = false;
    RETURN_IF_ERROR(MergeOrRedistribute(this, mtr, left, right, parent.page, right_slot, &merged));
    if (!merged) return Status::OK();
    --level;
  }
}

}  // namespace minnow
