// Sorted bulk build: leaves are filled left to right to the fill factor in a private buffer and
// each is written once, as one page image in the mini-transaction that allocates it; its
// separator goes to the level above, built the same way. The topmost level's single page is
// written into the root (which never moves). Sibling links: a page is written with next =
// none, and the link from its left neighbour is set in the same mini-transaction.

#include <fmt/format.h>

#include <cstring>

#include "btree/btree_internal.h"

namespace minnow {
namespace {

struct LevelBuild {
  PageBuilder builder;
  bool has_records = false;
  PageNo last_written = kInvalidPageNo;  // the previous page of this level, once written
  std::string last_key;                  // leaves: last key of the previous page
};

class BulkBuilder {
 public:
  BulkBuilder(BTree::Impl* t, double fill)
      : t_(t), limit_(static_cast<size_t>(static_cast<double>(kUsableSize) * fill)) {}

  Status Add(size_t level, const RecordSpec& rec) {
    if (level == levels_.size()) {
      levels_.push_back(std::make_unique<LevelBuild>());
      levels_.back()->builder.Reset(t_->Init(static_cast<uint16_t>(level)));
    }
    LevelBuild& l = *levels_[level];
    PageBuilder& b = l.builder;
    size_t need = rec.size() + kSlotSize;
    if (l.has_records && (b.used() + need > limit_ || !b.Fits(rec.size()))) {
      // The page is full: write it and start the next one.
      std::string first_next(reinterpret_cast<const char*>(rec.key.data()), rec.key.size());
      RETURN_IF_ERROR(WritePage(level));
      LevelBuild& l2 = *levels_[level];  // WritePage may grow levels_
      l2.builder.Reset(t_->Init(static_cast<uint16_t>(level), l2.last_written));
      l2.has_records = false;
      RecordSpec r = rec;
      r.key = AsBytes(first_next);
      return AppendTo(level, r);
    }
    return AppendTo(level, rec);
  }

  // Writes the last page of each level; the top level's page becomes the root.
  Status Finish() {
    for (size_t level = 0; level < levels_.size(); ++level) {
      LevelBuild& l = *levels_[level];
      if (l.last_written == kInvalidPageNo) {  // the only page of its level: the root
        MiniTransaction mtr(t_->pool);
        ASSIGN_OR_RETURN(MtrPage root, mtr.Write(t_->root));
        MtrEditor ed(root);
        l.builder.CopyTo(&ed);
        t_->height_hint.store(static_cast<uint32_t>(level + 1));
        return Status::OK();
      }
      if (level > 0 && l.builder.view().n_slots() == 1) RETURN_IF_ERROR(BorrowOne(level));
      RETURN_IF_ERROR(WritePage(level));
    }
    return Status::OK();
  }

 private:
  Status AppendTo(size_t level, const RecordSpec& rec) {
    LevelBuild& l = *levels_[level];
    l.builder.Append(rec);
    l.has_records = true;
    return Status::OK();
  }

  // A non-root node needs two children (merges need a sibling): the last node page of a level
  // takes the last entry of the page before it (which keeps at least two: it was filled to at
  // least half a page with entries of at most a quarter page... minus the slot, so three).
  Status BorrowOne(size_t level) {
    LevelBuild& l = *levels_[level];
    RecordView only;
    if (!l.builder.view().Record(0, &only)) return Status::Internal("bulk load: bad builder");
    std::string only_key(AsStringView(only.key));
    std::string only_child(AsStringView(only.value));
    MiniTransaction mtr(t_->pool);
    ASSIGN_OR_RETURN(MtrPage prev, mtr.Write(l.last_written));
    PageView pv(prev.data());
    RecordView last;
    if (pv.n_slots() < 3 || !pv.Record(pv.n_slots() - 1u, &last)) {
      return Status::Internal("bulk load: node page with fewer than three entries");
    }
    l.builder.Reset(t_->Init(static_cast<uint16_t>(level), l.last_written));
    l.builder.Append(RecordSpec{.key = last.key, .value = last.value});
    l.builder.Append(RecordSpec{.key = AsBytes(only_key), .value = AsBytes(only_child)});
    MtrEditor ped(prev);
    RemoveRecord(&ped, pv.n_slots() - 1u);
    return Status::OK();
  }

  // Writes the level's current page as a new page, links it, and adds its separator above.
  Status WritePage(size_t level) {
    LevelBuild* l = levels_[level].get();
    PageView bv = l->builder.view();
    RecordView first, last;
    if (!bv.Record(0, &first) || !bv.Record(bv.n_slots() - 1u, &last)) {
      return Status::Internal("bulk load: page without records");
    }
    std::string sep;
    if (l->last_written == kInvalidPageNo) {
      sep.clear();  // leftmost page: minus infinity
    } else if (level == 0) {
      sep = ShortestSeparator(AsBytes(l->last_key), first.key);
    } else {
      sep.assign(reinterpret_cast<const char*>(first.key.data()), first.key.size());
    }
    PageNo page_no;
    {
      MiniTransaction mtr(t_->pool);
      ASSIGN_OR_RETURN(
          MtrPage page,
          mtr.Allocate(level == 0 ? PageType::kBtreeLeaf : PageType::kBtreeNode, t_->page_flags()));
      page_no = page.page_no();
      MtrEditor ed(page);
      l->builder.CopyTo(&ed);
      if (l->last_written != kInvalidPageNo) {
        ASSIGN_OR_RETURN(MtrPage prev, mtr.Write(l->last_written));
        MtrEditor ped(prev);
        SetNext(&ped, page_no);
      }
    }
    if (level == 0)
      l->last_key.assign(reinterpret_cast<const char*>(last.key.data()), last.key.size());
    bool first_page = l->last_written == kInvalidPageNo;
    l->last_written = page_no;
    std::byte child[kChildRefSize];
    Store32(child, page_no);
    if (first_page && level + 1 < levels_.size()) {
      return Status::Internal("bulk load: level above exists before its first child");
    }
    return Add(level + 1, RecordSpec{.key = AsBytes(sep), .value = ConstBytes(child, 4)});
  }

  BTree::Impl* t_;
  size_t limit_;
  std::vector<std::unique_ptr<LevelBuild>> levels_;
};

}  // namespace

Status BTree::BulkLoad(const std::function<bool(BulkRecord*)>& next, double fill_factor) {
  if (!(fill_factor >= 0.5 && fill_factor <= 1.0)) {
    return Status::InvalidArgument(fmt::format("fill factor {} not in [0.5, 1]", fill_factor));
  }
  {
    ASSIGN_OR_RETURN(ReadPageGuard g, impl_->pool->FetchRead(impl_->root));
    RETURN_IF_ERROR(impl_->CheckTreePage(g.data(), impl_->root, -1));
    PageView v(g.data());
    if (!v.is_leaf() || v.n_slots() != 0) {
      return Status::InvalidArgument("BulkLoad into a tree that is not empty");
    }
  }
  BulkBuilder builder(impl_.get(), fill_factor);
  BulkRecord rec;
  std::string prev_key;
  bool have_prev = false;
  while (next(&rec)) {
    if (rec.key.size() > kMaxKeySize) {
      return Status::InvalidArgument(
          fmt::format("key of {} bytes is longer than {}", rec.key.size(), kMaxKeySize));
    }
    if (!rec.sys.empty() && (!impl_->options.sys_fields || rec.sys.size() != kSysFieldsSize)) {
      return Status::InvalidArgument("bad sys bytes for this tree");
    }
    if (have_prev && CompareKeys(AsBytes(prev_key), rec.key) >= 0) {
      return Status::InvalidArgument("BulkLoad keys are not strictly ascending");
    }
    prev_key.assign(reinterpret_cast<const char*>(rec.key.data()), rec.key.size());
    have_prev = true;
    PreparedRecord prep;
    RETURN_IF_ERROR(impl_->Prepare(rec.key, rec.value, rec.sys, &prep));
    RETURN_IF_ERROR(builder.Add(0, prep.spec));
    rec = BulkRecord{};
  }
  return builder.Finish();
}

}  // namespace minnow
