// Check() (SQLite's integrity_check for one tree) and Drop(): walks of the whole tree.
//
// Check descends depth first with S latches held on the path (parent before children,
// children left to right, overflow pages last: the usual order), verifying on every page the
// invariants of page_format.h, and across pages the key ranges given by the parents and the
// sibling links of every level.

#include <fmt/format.h>

#include <optional>

#include "btree/btree_internal.h"

namespace minnow {
namespace {

struct LevelLinks {
  bool seen = false;
  PageNo last_page = kInvalidPageNo;
  PageNo last_next = kInvalidPageNo;
};

class Checker {
 public:
  explicit Checker(const BTree::Impl* t) : t_(t) {}

  // `level` -1 (the root): the page's own level, read under the latch the walk holds, so a
  // concurrent root raise or collapse cannot make the walk expect a stale height.
  Status Walk(PageNo page_no, int level, const std::optional<std::string>& lo,
              const std::optional<std::string>& hi) {
    ASSIGN_OR_RETURN(ReadPageGuard g, t_->pool->FetchRead(page_no));
    RETURN_IF_ERROR(t_->CheckTreePage(g.data(), page_no, level));
    PageView v(g.data());
    if (level < 0) root_level_ = v.level();
    std::string why;
    if (!v.Validate(&why)) return Bad(page_no, why);
    bool is_root = page_no == t_->root;
    if (!is_root && v.n_slots() == 0) return Bad(page_no, "non-root page without records");
    if (!is_root && !v.is_leaf() && v.n_slots() < 2) {
      return Bad(page_no, "non-root node with a single child");
    }
    if (is_root && (v.prev() != kInvalidPageNo || v.next() != kInvalidPageNo)) {
      return Bad(page_no, "the root has siblings");
    }
    RETURN_IF_ERROR(CheckLinks(page_no, v));
    size_t n = v.n_slots();
    RecordView first, last;
    if (n > 0 && (!v.Record(0, &first) || !v.Record(n - 1, &last))) {
      return Bad(page_no, "bad slot");
    }
    if (v.is_leaf()) {
      if (n > 0 && lo && CompareKeys(first.key, AsBytes(*lo)) < 0) {
        return Bad(page_no, "first key is below the parent's separator");
      }
      if (n > 0 && hi && CompareKeys(last.key, AsBytes(*hi)) >= 0) {
        return Bad(page_no, "last key is not below the parent's next separator");
      }
      return CheckLeaf(page_no, v);
    }
    // Node: slot 0 holds the page's lower bound (empty on the leftmost page of a level).
    std::string_view lower = lo ? std::string_view(*lo) : std::string_view();
    if (AsStringView(first.key) != lower) {
      return Bad(page_no, "first key differs from the parent's separator");
    }
    if (hi && CompareKeys(last.key, AsBytes(*hi)) >= 0) {
      return Bad(page_no, "last key is not below the parent's next separator");
    }
    ++report_.node_pages;
    for (size_t i = 0; i < n; ++i) {
      RecordView rec, next;
      v.Record(i, &rec);
      std::optional<std::string> clo = lo;
      if (i > 0) clo = std::string(AsStringView(rec.key));
      std::optional<std::string> chi = hi;
      if (i + 1 < n) {
        v.Record(i + 1, &next);
        chi = std::string(AsStringView(next.key));
      }
      PageNo child = Load32(rec.value.data());
      RETURN_IF_ERROR(Walk(child, v.level() - 1, clo, chi));
    }
    return Status::OK();
  }

  // After a Walk from the root.
  Status Finish() {
    const uint16_t root_level = root_level_;
    for (size_t l = 0; l < links_.size(); ++l) {
      if (links_[l].seen && links_[l].last_next != kInvalidPageNo) {
        return Bad(links_[l].last_page, "last page of its level has a next link");
      }
    }
    report_.height = root_level + 1u;
    report_.avg_leaf_fill =
        report_.leaf_pages == 0
            ? 0.0
            : static_cast<double>(leaf_used_) /
                  (static_cast<double>(report_.leaf_pages) * static_cast<double>(kUsableSize));
    return Status::OK();
  }

  CheckReport report() const { return report_; }

 private:
  Status Bad(PageNo page_no, const std::string& what) const {
    return Status::Corruption(
        fmt::format("{}: tree {}: page {}: {}", t_->pool->file_name(), t_->root, page_no, what));
  }

  Status CheckLinks(PageNo page_no, const PageView& v) {
    size_t level = v.level();
    if (links_.size() <= level) links_.resize(level + 1);
    LevelLinks& l = links_[level];
    if (!l.seen) {
      if (v.prev() != kInvalidPageNo)
        return Bad(page_no, "first page of its level has a prev link");
    } else {
      if (l.last_next != page_no) {
        return Bad(l.last_page,
                   fmt::format("next link is {}, but the next page is {}", l.last_next, page_no));
      }
      if (v.prev() != l.last_page) {
        return Bad(page_no, fmt::format("prev link is {}, but the previous page is {}", v.prev(),
                                        l.last_page));
      }
    }
    l.seen = true;
    l.last_page = page_no;
    l.last_next = v.next();
    return Status::OK();
  }

  Status CheckLeaf(PageNo page_no, const PageView& v) {
    ++report_.leaf_pages;
    leaf_used_ += v.used();
    for (size_t i = 0; i < v.n_slots(); ++i) {
      RecordView rec;
      v.Record(i, &rec);
      ++report_.records;
      if (rec.delete_marked()) ++report_.delete_marked;
      if (t_->options.sys_fields != (rec.sys.size() == kSysLen)) {
        return Bad(page_no, fmt::format("slot {}: sys fields do not match the tree's options", i));
      }
      if (rec.overflow()) {
        Result<uint64_t> pages = t_->CheckChain(rec.value);
        if (!pages.ok())
          return Bad(page_no, fmt::format("slot {}: {}", i, pages.status().message()));
        report_.overflow_pages += *pages;
      }
    }
    return Status::OK();
  }

  const BTree::Impl* t_;
  CheckReport report_;
  uint16_t root_level_ = 0;
  uint64_t leaf_used_ = 0;
  std::vector<LevelLinks> links_;
};

}  // namespace

Result<CheckReport> BTree::Check() const {
  Checker checker(impl_.get());
  RETURN_IF_ERROR(checker.Walk(impl_->root, /*level=*/-1, std::nullopt, std::nullopt));
  RETURN_IF_ERROR(checker.Finish());
  return checker.report();
}

Status BTree::Drop() {
  // Collect every page first (S latches), then free them (REQUIRES: nobody else uses the tree).
  std::vector<PageNo> pages;
  std::vector<PageNo> chains;
  std::vector<PageNo> todo{impl_->root};
  while (!todo.empty()) {
    PageNo page_no = todo.back();
    todo.pop_back();
    ASSIGN_OR_RETURN(ReadPageGuard g, impl_->pool->FetchRead(page_no));
    RETURN_IF_ERROR(impl_->CheckTreePage(g.data(), page_no, -1));
    PageView v(g.data());
    for (size_t i = 0; i < v.n_slots(); ++i) {
      RecordView rec;
      if (!v.Record(i, &rec)) return Status::Corruption(fmt::format("page {}: bad slot", page_no));
      if (!v.is_leaf()) {
        todo.push_back(Load32(rec.value.data()));
      } else if (rec.overflow()) {
        chains.push_back(OverflowFirst(rec.value));
      }
    }
    if (page_no != impl_->root) pages.push_back(page_no);
  }
  for (PageNo chain : chains) RETURN_IF_ERROR(impl_->FreeChain(chain));
  pages.push_back(impl_->root);
  for (PageNo page_no : pages) {
    MiniTransaction mtr(impl_->pool);
    ASSIGN_OR_RETURN(MtrPage page, mtr.Write(page_no));
    if (impl_->listener != nullptr && PageView(page.data()).is_leaf()) {
      impl_->listener->OnPageFreed(page_no);
    }
    RETURN_IF_ERROR(mtr.Free(page));
  }
  return Status::OK();
}

}  // namespace minnow
