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

// Folds `right` into `left` or moves records between them. *merged tells which happened
// (nothing happens if redistribution would not fit the parent's new separator).
static Status MergeOrRedistribute(BTree::Impl* t, MiniTransaction* mtr, MtrPage left, MtrPage right,
                                  MtrPage parent, size_t right_slot, bool* merged) {
  *merged = false;
  auto lcopy = CopyPage(left.data());
  auto rcopy = CopyPage(right.data());
  PageView lv(lcopy.get());
  PageView rv(rcopy.get());
  const bool leaf = lv.is_leaf();
  std::vector<RecordEntry> le, re;
  RETURN_IF_ERROR(CollectRecords(lcopy.get(), &le));
  RETURN_IF_ERROR(CollectRecords(rcopy.get(), &re));
  // A node's first record stands for minus infinity; next to the left page it needs the real
  // lower bound, which is the parent's separator.
  std::string parent_sep;
  {
    PageView pv(parent.data());
    RecordView sep;
    if (!pv.Record(right_slot, &sep) || sep.value.size() != kChildRefSize ||
        Load32(sep.value.data()) != right.page_no()) {
      return Status::Corruption(fmt::format("page {}: slot {} does not point to page {}",
                                            parent.page_no(), right_slot, right.page_no()));
    }
    parent_sep.assign(reinterpret_cast<const char*>(sep.key.data()), sep.key.size());
  }
  if (!leaf && !re.empty()) re[0].spec.key = AsBytes(parent_sep);
  std::vector<Side> all;
  for (const RecordEntry& e : le) all.push_back({e, true});
  for (const RecordEntry& e : re) all.push_back({e, false});
  size_t total = 0;
  for (const Side& s : all) total += EntryBytes(s);
  const uint16_t level = lv.level();
  std::vector<RecordMove> moves;

  if (total <= kUsableSize) {
    MtrPage next;  // latched before the first change: everything that can fail comes first
    if (rv.next() != kInvalidPageNo) {
      // Latched by the descent, top-down (see InsertWithSplit).
      MINNOW_DCHECK(mtr->holds(rv.next()), "merge of {}: right neighbour {} not latched",
                    right.page_no(), rv.next());
      ASSIGN_OR_RETURN(next, mtr->Write(rv.next()));
      RETURN_IF_ERROR(t->CheckTreePage(next.data(), rv.next(), level));
    }
    PageBuilder b;
    b.Reset(t->Init(level, lv.prev(), rv.next()));
    HeapNoAllocator heaps;
    for (const RecordEntry& e : le) {
      b.Append(e.spec, e.heap_no);
      heaps.MarkUsed(e.heap_no);
    }
    for (const RecordEntry& e : re) {
      HeapNo h = heaps.Next();
      b.Append(e.spec, h);
      if (leaf) moves.push_back({{right.page_no(), e.heap_no}, {left.page_no(), h}});
    }
    MtrEditor led(left);
    b.CopyTo(&led);
    if (next.valid()) {
      MtrEditor ned(next);
      SetPrev(&ned, left.page_no());
    }
    MtrEditor ped(parent);
    RemoveRecord(&ped, right_slot);
    if (leaf) {
      moves.push_back({{right.page_no(), kSupremumHeapNo}, {left.page_no(), kSupremumHeapNo}});
      t->ReportMoves(moves);
    }
    if (t->listener != nullptr) t->listener->OnPageFreed(right.page_no());
    RETURN_IF_ERROR(mtr->Free(right));
    BTree::Impl::Bump(t->counters.merges);
    *merged = true;
    return Status::OK();
  }

  // Redistribute: m entries go left, as balanced in bytes as the parent's room for the new
  // separator allows; nodes keep at least two records each (a node with one child would leave
  // that child without a sibling to merge with).
  const size_t n = all.size();
  const size_t min_side = leaf ? 1 : 2;
  if (n < 2 * min_side) return Status::OK();
  std::vector<size_t> prefix(n + 1, 0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + EntryBytes(all[i]);
  size_t balanced = n - min_side;
  for (size_t i = 0; i < n; ++i) {
    if (prefix[i + 1] * 2 >= total) {
      balanced = i + 1;
      break;
    }
  }
  balanced = std::clamp(balanced, min_side, n - min_side);
  auto sep_for = [&](size_t m) {
    return leaf ? ShortestSeparator(all[m - 1].e.spec.key, all[m].e.spec.key)
                : std::string(reinterpret_cast<const char*>(all[m].e.spec.key.data()),
                              all[m].e.spec.key.size());
  };
  const size_t room = PageView(parent.data()).available() + parent_sep.size();
  size_t m = 0;
  std::string sep;
  for (size_t d = 0; d < n && m == 0; ++d) {
    for (size_t c : {balanced + d, balanced - d}) {  // (balanced - d may wrap: out of range)
      if (c < min_side || c > n - min_side || c == le.size()) continue;
      if (prefix[c] > kUsableSize || prefix[n] - prefix[c] > kUsableSize) continue;
      std::string candidate = sep_for(c);
      if (candidate.size() > room) continue;
      m = c;
      sep = std::move(candidate);
      break;
    }
  }
  if (m == 0) return Status::OK();  // nothing fits: the page stays underfull (never empty)
  auto build = [&](MtrPage page, size_t from, size_t to, bool left_side, PageNo prev, PageNo next) {
    HeapNoAllocator heaps;
    for (size_t i = from; i < to; ++i) {
      if (all[i].from_left == left_side) heaps.MarkUsed(all[i].e.heap_no);
    }
    PageBuilder b;
    b.Reset(t->Init(level, prev, next));
    for (size_t i = from; i < to; ++i) {
      const Side& s = all[i];
      if (s.from_left == left_side) {
        b.Append(s.e.spec, s.e.heap_no);
      } else {
        HeapNo h = heaps.Next();
        b.Append(s.e.spec, h);
        PageNo from_page = s.from_left ? left.page_no() : right.page_no();
        if (leaf) moves.push_back({{from_page, s.e.heap_no}, {page.page_no(), h}});
      }
    }
    MtrEditor ed(page);
    b.CopyTo(&ed);
  };
  build(left, 0, m, true, lv.prev(), right.page_no());
  build(right, m, n, false, left.page_no(), rv.next());
  std::byte child_ref[kChildRefSize];
  Store32(child_ref, right.page_no());
  MtrEditor ped(parent);
  ReplaceRecord(&ped, right_slot,
                RecordSpec{.key = AsBytes(sep), .value = ConstBytes(child_ref, kChildRefSize)});
  t->ReportMoves(moves);
  BTree::Impl::Bump(t->counters.redistributions);
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
