// RowHeap::Check: invariants (1)-(5) of myisam/heap_page_internal.h, each finding reported as
// kCorruption naming the page and the invariant.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "myisam/heap_page_internal.h"
#include "myisam/row_heap.h"

namespace minnow {

namespace hf = heap_format;

namespace {

// What Check() gathers while it walks the chain.
struct Walk {
  HeapCheckReport report;
  std::map<RowPosition, RowPosition> holes;  // hole -> the next hole it links to
  std::set<PageNo> seen;
};

// The header's fields as Check() compares them.
struct HeaderImage {
  PageNo first;
  PageNo last;
  RowPosition hole_head;
  HeapStats stats;
};

// Invariant (3) and the page's share of (4) and (5), on one data page.
Status CheckSlots(const std::string& where, const std::byte* p, PageNo page_no, Walk* walk) {
  const hf::DataPageView view{p};
  std::vector<std::pair<size_t, size_t>> extents;
  size_t live_bytes = 0;
  HeapStats& c = walk->report.stats;
  for (size_t i = 0; i < view.n_slots(); ++i) {
    const hf::Slot s = hf::LoadSlot(p, i);
    if (s.hole) {
      walk->holes.emplace(RowPosition{page_no, static_cast<uint16_t>(i)}, s.next);
      c.holes += 1;
      c.data_free += s.len;
      continue;
    }
    if (s.offset < view.heap_top() || size_t{s.offset} + s.len > kPageSize) {
      return Status::Corruption(
          fmt::format("{}: slot {} at offset {} length {} is outside [{}, {}) (invariant 3)", where,
                      i, s.offset, s.len, view.heap_top(), kPageSize));
    }
    if (s.len > 0) extents.emplace_back(s.offset, s.offset + s.len);
    live_bytes += s.len;
    c.rows += 1;
    c.row_bytes += s.len;
  }
  std::sort(extents.begin(), extents.end());
  for (size_t i = 1; i < extents.size(); ++i) {
    if (extents[i].first < extents[i - 1].second) {
      return Status::Corruption(
          fmt::format("{}: records at offsets {} and {} overlap (invariant 3)", where,
                      extents[i - 1].first, extents[i].first));
    }
  }
  if (kPageSize - view.heap_top() != view.garbage() + live_bytes) {
    return Status::Corruption(
        fmt::format("{}: record area of {} bytes holds {} live and {} garbage bytes (invariant 3)",
                    where, kPageSize - view.heap_top(), live_bytes, view.garbage()));
  }
  walk->report.reorganizable_bytes += view.garbage();
  return Status::OK();
}

// Invariant (4): the list from `head` visits every hole once. A list that terminates after
// exactly as many entries as there are holes, each a hole, has no repeat (a repeat would be a
// cycle and never terminate), so it visits each hole once.
Status CheckHoleList(const std::string& where, RowPosition head,
                     const std::map<RowPosition, RowPosition>& holes) {
  size_t visited = 0;
  for (RowPosition at = head; at.valid(); ++visited) {
    if (visited == holes.size()) {
      return Status::Corruption(
          fmt::format("{}: the hole list is longer than the {} holes of the pages: it has a cycle "
                      "(invariant 4)",
                      where, holes.size()));
    }
    auto it = holes.find(at);
    if (it == holes.end()) {
      return Status::Corruption(fmt::format(
          "{}: hole list entry (page {}, slot {}) is not a hole of the heap (invariant 4)", where,
          at.page, at.slot));
    }
    at = it->second;
  }
  if (visited != holes.size()) {
    return Status::Corruption(
        fmt::format("{}: the hole list has {} entries, the pages have {} holes (invariant 4)",
                    where, visited, holes.size()));
  }
  return Status::OK();
}

}  // namespace

Result<HeapCheckReport> RowHeap::Check() const {
  HeaderImage h;
  {
    ASSIGN_OR_RETURN(ReadPageGuard hg, pool_->FetchRead(header_));
    const std::byte* p = hg.data();
    if (HeaderPageType(p) != hf::kHeaderPageType || Load32(p + hf::hdr::kMagic) != hf::kHeapMagic) {
      return Status::Corruption(fmt::format("{}: not a heap header page", Where(header_)));
    }
    h.first = Load32(p + hf::hdr::kFirstPage);
    h.last = Load32(p + hf::hdr::kLastPage);
    h.hole_head = {Load32(p + hf::hdr::kHoleHeadPage), Load16(p + hf::hdr::kHoleHeadSlot)};
    h.stats = {Load64(p + hf::hdr::kRows), Load64(p + hf::hdr::kRowBytes),
               Load64(p + hf::hdr::kDataFree), Load64(p + hf::hdr::kHoles),
               Load32(p + hf::hdr::kPageCount)};
  }
  Walk walk;
  HeapStats& c = walk.report.stats;
  PageNo prev = kInvalidPageNo;
  for (PageNo page_no = h.first; page_no != kInvalidPageNo;) {
    const auto seq = static_cast<uint32_t>(c.pages);
    if (page_no == 0 || page_no == header_ || !walk.seen.insert(page_no).second ||
        seq >= h.stats.pages) {
      return Status::Corruption(
          fmt::format("{}: the chain is longer than {} pages or revisits a page (invariant 1)",
                      Where(page_no), h.stats.pages));
    }
    ASSIGN_OR_RETURN(ReadPageGuard g, pool_->FetchRead(page_no));
    RETURN_IF_ERROR(ValidateDataPage(page_no, g.data()));
    const hf::DataPageView view{g.data()};
    if (view.seq() != seq || view.prev() != prev) {
      return Status::Corruption(
          fmt::format("{}: seq {} prev {}, expected seq {} prev {} (invariant 1)", Where(page_no),
                      view.seq(), view.prev(), seq, prev));
    }
    RETURN_IF_ERROR(CheckSlots(Where(page_no), g.data(), page_no, &walk));
    c.pages += 1;
    prev = page_no;
    page_no = view.next();
  }
  if (prev != h.last || c.pages != h.stats.pages) {
    return Status::Corruption(fmt::format(
        "{}: the chain ends at page {} after {} pages, the header says page {} after {} "
        "(invariant 1)",
        Where(header_), prev, c.pages, h.last, h.stats.pages));
  }
  RETURN_IF_ERROR(CheckHoleList(Where(header_), h.hole_head, walk.holes));
  if (c.rows != h.stats.rows || c.row_bytes != h.stats.row_bytes || c.holes != h.stats.holes ||
      c.data_free != h.stats.data_free) {
    return Status::Corruption(fmt::format(
        "{}: the header counts rows {} row_bytes {} holes {} data_free {}, the pages hold {} {} "
        "{} {} (invariant 5)",
        Where(header_), h.stats.rows, h.stats.row_bytes, h.stats.holes, h.stats.data_free, c.rows,
        c.row_bytes, c.holes, c.data_free));
  }
  return walk.report;
}

}  // namespace minnow
