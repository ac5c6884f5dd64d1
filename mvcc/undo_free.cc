// Freeing undo pages. A mini-transaction latches and pins every page it frees until it
// commits, so a log of thousands of pages is freed kPagesPerMtr pages per mtr: a large log is
// first cut down to its first page (which stays reachable from its slot or the history list,
// its state saying why it is being freed), then the first page goes in the mtr that unlinks
// the log. A crash in between leaves a reachable log that recovery or purge frees again.

#include <fmt/format.h>

#include "mvcc/undo_log_internal.h"

namespace minnow {

namespace pg = undo_page_offset;
namespace lg = undo_log_offset;

Status UndoStore::Impl::FreeAfterFirst(PageNo first, UndoLogState state) {
  bool state_set = static_cast<uint8_t>(state) == 0;
  for (;;) {
    MiniTransaction mtr(pool);
    ASSIGN_OR_RETURN(MtrPage fp, mtr.Write(first));
    RETURN_IF_ERROR(CheckUndoPage(fp.data(), first, first));
    PageNo cur = Load32(fp.data() + pg::kNext);
    if (cur == kInvalidPageNo && state_set) return Status::OK();
    std::vector<MtrPage> pages;  // latched before anything changes
    for (; cur != kInvalidPageNo && pages.size() < kPagesPerMtr;) {
      ASSIGN_OR_RETURN(MtrPage p, mtr.Write(cur));
      RETURN_IF_ERROR(CheckUndoPage(p.data(), cur, first));
      pages.push_back(p);
      cur = Load32(p.data() + pg::kNext);
    }
    if (!state_set) {
      fp.Mutate(lg::kState, 1)[0] = std::byte{static_cast<uint8_t>(state)};
      state_set = true;
    }
    for (MtrPage& p : pages) RETURN_IF_ERROR(mtr.Free(p));
    const size_t freed = pages.size();
    if (freed == 0) return Status::OK();
    // The remaining pages' prev links are stale: a log being freed is only walked forward.
    fp.Write32(pg::kNext, cur);
    if (cur == kInvalidPageNo) fp.Write32(lg::kLastPage, first);
    fp.Write32(lg::kPageCount, Load32(fp.data() + lg::kPageCount) - static_cast<uint32_t>(freed));
    mtr.Commit();
    undo_pages.fetch_sub(freed, std::memory_order_relaxed);
  }
}

Status UndoStore::Impl::FreeLogInSlot(PageNo first, uint32_t slot) {
  RETURN_IF_ERROR(FreeAfterFirst(first, UndoLogState{0}));
  MiniTransaction mtr(pool);
  ASSIGN_OR_RETURN(MtrPage fp, mtr.Write(first));
  RETURN_IF_ERROR(CheckUndoPage(fp.data(), first, first));
  ASSIGN_OR_RETURN(MtrPage rseg, mtr.Write(rseg_page));
  const size_t at = rseg_offset::kSlots + 4 * size_t{slot};
  if (slot >= kRsegSlots || Load32(rseg.data() + at) != first) {
    return Corrupt(first, fmt::format("its slot {} does not name it", slot));
  }
  rseg.Write32(at, kInvalidPageNo);
  RETURN_IF_ERROR(mtr.Free(fp));
  mtr.Commit();
  active_logs.fetch_sub(1, std::memory_order_relaxed);
  undo_pages.fetch_sub(1, std::memory_order_relaxed);
  return Status::OK();
}

Status UndoStore::Impl::FreeDetached(PageNo start) {
  PageNo cur = start;
  uint64_t guard = 0;
  const uint64_t max_pages = kMaxUndoPayload / (kPageSize - pg::kData) + 2;
  while (cur != kInvalidPageNo) {
    MiniTransaction mtr(pool);
    for (size_t i = 0; i < kPagesPerMtr && cur != kInvalidPageNo; ++i) {
      if (++guard > max_pages) return Corrupt(start, "a detached page chain loops");
      ASSIGN_OR_RETURN(MtrPage p, mtr.Write(cur));
      RETURN_IF_ERROR(CheckUndoPage(p.data(), cur, kInvalidPageNo));
      const PageNo next = Load32(p.data() + pg::kNext);
      RETURN_IF_ERROR(mtr.Free(p));
      cur = next;
    }
  }
  return Status::OK();
}

bool UndoStore::Impl::WantCache() {
  LatchGuard g(cache_latch);
  return cache.size() < kMaxCachedLogs;
}

void UndoStore::Impl::ResetToCached(MtrPage fp) {
  Bytes f = fp.Mutate(pg::kFree, 4);
  Store16(f.data(), static_cast<uint16_t>(lg::kData));
  Store16(f.data() + 2, 0);
  fp.Mutate(lg::kState, 1)[0] = std::byte{static_cast<uint8_t>(UndoLogState::kCached)};
}

void UndoStore::Impl::AddToCache(PageNo first, uint32_t slot) {
  LatchGuard g(cache_latch);
  cache.emplace_back(first, slot);
}

}  // namespace minnow
