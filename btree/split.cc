// Page splits. A full page P gets a new right sibling N: the records are divided by bytes (or,
// for ascending inserts, the new record goes alone to N), N is linked between P and P's old
// right neighbour (latched rightward), and a separator for N goes into the parent, which may
// split in turn. The root never moves: a full root first copies itself into a new child and
// becomes a node with that single child (RaiseRoot), then the child splits as any page.

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "btree/btree_internal.h"
#include "common/check.h"
#include "common/crash_point.h"

namespace minnow {

std::string ShortestSeparator(ConstBytes left, ConstBytes right) {
  size_t n = std::min(left.size(), right.size());
  size_t lcp = 0;
  while (lcp < n && left[lcp] == right[lcp]) ++lcp;
  size_t len = std::min(right.size(), lcp + 1);
  return std::string(reinterpret_cast<const char*>(right.data()), len);
}

Status CollectRecords(const std::byte* copy, std::vector<RecordEntry>* out) {
  PageView v(copy);
  out->clear();
  out->reserve(v.n_slots() + 1);
  for (size_t i = 0; i < v.n_slots(); ++i) {
    RecordView rec;
    if (!v.Record(i, &rec)) {
      return Status::Corruption(fmt::format("page {}: slot {} out of range", v.page_no(), i));
    }
    RecordEntry e;
    e.spec.flags = rec.flags & (kRecDeleteMark | kRecOverflow);
    e.spec.key = rec.key;
    e.spec.sys = rec.sys;
    e.spec.value = rec.value;
    e.heap_no = rec.heap_no;
    out->push_back(e);
  }
  return Status::OK();
}

namespace {

// Number of entries that stay on the left page.
size_t ChooseSplit(const std::vector<RecordEntry>& entries, size_t new_idx, HeapNo last_insert,
                   bool leaf) {
  size_t n = entries.size();
  size_t total = 0;
  for (const RecordEntry& e : entries) total += e.spec.size() + kSlotSize;
  size_t m;
  if (new_idx == n - 1 && n >= 2 && last_insert != 0 && entries[n - 2].heap_no == last_insert) {
    m = n - 1;  // ascending inserts: keep the left page full
  } else {
    size_t acc = 0;
    m = n - 1;
    for (size_t i = 0; i < n; ++i) {
      acc += entries[i].spec.size() + kSlotSize;
      if (acc * 2 >= total) {
        m = i + 1;
        break;
      }
    }
  }
  // Nodes keep at least two children on each side (a full node has at least seven).
  const size_t min_side = leaf || n < 4 ? 1 : 2;
  m = std::clamp<size_t>(m, min_side, n - min_side);
  auto bytes = [&](size_t from, size_t to) {
    size_t b = 0;
    for (size_t i = from; i < to; ++i) b += entries[i].spec.size() + kSlotSize;
    return b;
  };
  while (m > min_side && bytes(0, m) > kUsableSize) --m;
  while (m < n - min_side && bytes(m, n) > kUsableSize) ++m;
  return m;
}

std::unique_ptr<std::byte[]> CopyPage(const std::byte* page) {
  std::unique_ptr<std::byte[]> copy(new std::byte[kPageSize]);
  std::memcpy(copy.get(), page, kPageSize);
  return copy;
}

}  // namespace

// Moves the root's contents into a new child; the root becomes a node one level up whose only
// record points to the child. path[level] is the root; the child is inserted after it.
static Result<MtrPage> TakePage(BTree::Impl* t, MiniTransaction* mtr,
                                std::vector<MtrPage>* reserve) {
  if (!reserve->empty()) {
    MtrPage page = reserve->back();
    reserve->pop_back();
    return page;
  }
  return mtr->Allocate(PageType::kBtreeLeaf, t->page_flags());  // the type is set by the caller
}

static Status RaiseRoot(BTree::Impl* t, MiniTransaction* mtr, std::vector<PathLevel>* path,
                        std::vector<MtrPage>* reserve, size_t level) {
  MtrPage root = (*path)[level].page;
  PageView rv(root.data());
  uint16_t lvl = rv.level();
  ASSIGN_OR_RETURN(MtrPage child, TakePage(t, mtr, reserve));
  Bytes all = child.MutateAll();
  std::memcpy(all.data() + page_offset::kPageType, root.data() + page_offset::kPageType, 2);
  std::memcpy(all.data() + kPageHeaderSize, root.data() + kPageHeaderSize,
              kPageSize - kPageHeaderSize);
  if (lvl == 0 && t->listener != nullptr) {
    std::vector<RecordMove> moves;
    for (size_t i = 0; i < rv.n_slots(); ++i) {
      RecordView rec;
      if (rv.Record(i, &rec)) {
        moves.push_back({{root.page_no(), rec.heap_no}, {child.page_no(), rec.heap_no}});
      }
    }
    moves.push_back({{root.page_no(), kSupremumHeapNo}, {child.page_no(), kSupremumHeapNo}});
    t->ReportMoves(moves);
  }
  PageBuilder b;
  b.Reset(t->Init(static_cast<uint16_t>(lvl + 1)));
  std::byte child_ref[kChildRefSize];
  Store32(child_ref, child.page_no());
  b.Append(RecordSpec{.key = {}, .value = ConstBytes(child_ref, kChildRefSize)});
  MtrEditor red(root);
  b.CopyTo(&red);
  (*path)[level].child_slot = 0;
  path->insert(path->begin() + static_cast<ptrdiff_t>(level) + 1, PathLevel{child});
  t->height_hint.store(lvl + 2u, std::memory_order_relaxed);
  BTree::Impl::Bump(t->counters.root_raises);
  return Status::OK();
}

Status BTree::Impl::ReserveForSplit(MiniTransaction* mtr, const std::vector<PathLevel>& path,
                                    std::vector<MtrPage>* reserve) {
  size_t count = 0;
  for (size_t i = path.size(); i-- > 0;) {
    PageView v(path[i].page.data());
    if (i + 1 < path.size() && v.available() >= kMaxNodeEntry) break;  // absorbs a separator
    ++count;                                                           // (the leaf always splits)
    if (path[i].page.page_no() == root) ++count;                       // root raise
    // (The right neighbours whose prev links the splits fix were latched by the descent.)
  }
  for (size_t i = 0; i < count; ++i) {
    ASSIGN_OR_RETURN(MtrPage page, mtr->Allocate(PageType::kBtreeLeaf, page_flags()));
    reserve->push_back(page);
  }
  return Status::OK();
}

Result<RecordLocation> BTree::Impl::InsertWithSplit(MiniTransaction* mtr,
                                                    std::vector<PathLevel>* path,
                                                    std::vector<MtrPage>* reserve, size_t level,
                                                    size_t idx, const RecordSpec& rec,
                                                    HeapNo heap_no, RecordLocation moved_from) {
  MINNOW_CRASH_POINT("btree.split");  // pages latched, nothing of the split committed
  MtrPage page = (*path)[level].page;
  {
    MtrEditor ed(page);
    if (ed.view().Fits(rec.size())) {
      HeapNo h = InsertRecord(&ed, idx, rec, heap_no);
      RecordLocation loc{page.page_no(), h};
      if (moved_from.page_no != kInvalidPageNo && !(moved_from == loc)) {
        ReportMoves({RecordMove{moved_from, loc}});
      }
      return loc;
    }
  }
  if (page.page_no() == root) {
    RETURN_IF_ERROR(RaiseRoot(this, mtr, path, reserve, level));
    ++level;
    page = (*path)[level].page;
  }
  if (level == 0) {
    return Status::Internal(
        fmt::format("split of page {} without its parent latched", page.page_no()));
  }
  // Everything that can fail comes before the first change.
  ASSIGN_OR_RETURN(MtrPage right, TakePage(this, mtr, reserve));
  const PageNo old_next = PageView(page.data()).next();
  if (old_next != kInvalidPageNo) {
    // Latched by the descent (top-down, before this page's children): latching it only now,
    // after pages below it, could deadlock with a reader coupling from it to its first child.
    MINNOW_DCHECK(mtr->holds(old_next), "split of {}: right neighbour {} not latched",
                  page.page_no(), old_next);
    ASSIGN_OR_RETURN(MtrPage next, mtr->Write(old_next));
    RETURN_IF_ERROR(CheckTreePage(next.data(), old_next, PageView(page.data()).level()));
  }
  auto copy = CopyPage(page.data());
  PageView old(copy.get());
  const bool leaf = old.is_leaf();
  std::vector<RecordEntry> entries;
  RETURN_IF_ERROR(CollectRecords(copy.get(), &entries));
  RecordEntry fresh;
  fresh.spec = rec;
  fresh.heap_no = heap_no;
  fresh.is_new = true;
  entries.insert(entries.begin() + static_cast<ptrdiff_t>(idx), fresh);
  const size_t n = entries.size();
  const size_t m = ChooseSplit(entries, idx, old.last_insert(), leaf);
  {
    size_t left_bytes = 0, right_bytes = 0;
    for (size_t i = 0; i < n; ++i)
      (i < m ? left_bytes : right_bytes) += entries[i].spec.size() + kSlotSize;
    if (left_bytes > kUsableSize || right_bytes > kUsableSize) {  // only overlapping records can
      return Status::Corruption(
          fmt::format("{}: page {}: records overlap", pool->file_name(), page.page_no()));
    }
  }
  Bump(counters.splits);

  RecordLocation new_loc{};
  std::vector<RecordMove> moves;
  std::vector<RecordMove> left_moves;

  // Left page: the first m entries, renumbered densely from kFirstUserHeapNo so that the page
  // keeps no free heap numbers (InsertRecord then never scans for one). Renumbered records are
  // reported as moves within the page, after the moves to the right page (those name the old
  // numbers, which the renumbering reuses).
  MtrEditor led(page);
  if (idx == n - 1 && m == n - 1) {
    SetNext(&led, right.page_no());  // nothing leaves the page
  } else {
    PageBuilder b;
    b.Reset(Init(old.level(), old.prev(), right.page_no()));
    for (size_t i = 0; i < m; ++i) {
      const RecordEntry& e = entries[i];
      HeapNo h = b.Append(e.spec);
      if (e.is_new) {
        new_loc = {page.page_no(), h};
      } else if (leaf && h != e.heap_no) {
        left_moves.push_back({{page.page_no(), e.heap_no}, {page.page_no(), h}});
      }
    }
    b.CopyTo(&led);
  }
  // Right page: entries m.. get fresh heap numbers.
  {
    PageBuilder b;
    b.Reset(Init(old.level(), page.page_no(), old_next));
    for (size_t i = m; i < n; ++i) {
      const RecordEntry& e = entries[i];
      HeapNo h = b.Append(e.spec);
      if (e.is_new) {
        new_loc = {right.page_no(), h};
      } else if (leaf) {
        moves.push_back({{page.page_no(), e.heap_no}, {right.page_no(), h}});
      }
    }
    MtrEditor red(right);
    b.CopyTo(&red);
  }
  if (old_next != kInvalidPageNo) {
    ASSIGN_OR_RETURN(MtrPage next, mtr->Write(old_next));  // already held: cannot fail
    MtrEditor ned(next);
    SetPrev(&ned, right.page_no());
  }
  if (leaf) {
    moves.push_back({{page.page_no(), kSupremumHeapNo}, {right.page_no(), kSupremumHeapNo}});
    const bool moved = moved_from.page_no != kInvalidPageNo && !(moved_from == new_loc);
    // A moved record landing on the right page leaves by its old number, before the left page
    // reuses the numbers; landing on the left page it joins the renumbering (one permutation)
    // or, from another page, comes after it.
    if (moved && new_loc.page_no == right.page_no()) moves.push_back({moved_from, new_loc});
    moves.insert(moves.end(), left_moves.begin(), left_moves.end());
    if (moved && new_loc.page_no == page.page_no()) moves.push_back({moved_from, new_loc});
    ReportMoves(moves);
  }

  // Separator into the parent.
  std::string sep = leaf ? ShortestSeparator(entries[m - 1].spec.key, entries[m].spec.key)
                         : std::string(reinterpret_cast<const char*>(entries[m].spec.key.data()),
                                       entries[m].spec.key.size());
  copy.reset();  // entries' spans die here
  std::byte child_ref[kChildRefSize];
  Store32(child_ref, right.page_no());
  RecordSpec sep_rec{.key = AsBytes(sep), .value = ConstBytes(child_ref, kChildRefSize)};
  size_t parent_idx = (*path)[level - 1].child_slot + 1;
  ASSIGN_OR_RETURN(RecordLocation unused, InsertWithSplit(mtr, path, reserve, level - 1, parent_idx,
                                                          sep_rec, 0, RecordLocation{}));
  (void)unused;
  return new_loc;
}

}  // namespace minnow
