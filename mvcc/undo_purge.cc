// Purge: the oldest committed update log of the history list, once no read view can need it,
// is handed record by record (oldest first) to the caller, then freed.
//
// Steps, each crash-safe: (1) f for every record (f must be idempotent: a crash before (3)
// calls it again); (2) the log's pages after the first are freed, the first mtr marking the
// log kPurging (a purge after a crash then skips (1)); (3) one mtr unlinks the log from the
// history list and frees its first page.

#include <fmt/format.h>

#include "mvcc/undo_log_internal.h"

namespace minnow {

namespace {

namespace rs = rseg_offset;
namespace pg = undo_page_offset;
namespace lg = undo_log_offset;

// Calls f for each record of the log at `first`, oldest first.
Status ForEachRecord(const UndoStore::Impl& s, PageNo first, TrxId trx_id,
                     const std::function<Status(const UndoRecord&, TrxId)>& f) {
  PageNo page = first;
  size_t off = lg::kData;
  size_t free = 0;
  PageNo next = kInvalidPageNo;
  uint32_t page_count = 0;
  {
    ASSIGN_OR_RETURN(ReadPageGuard g, s.pool->FetchRead(first));
    RETURN_IF_ERROR(s.CheckUndoPage(g.data(), first, first));
    free = Load16(g.data() + pg::kFree);
    next = Load32(g.data() + pg::kNext);
    page_count = Load32(g.data() + lg::kPageCount);
  }
  std::string buf;
  UndoRecord rec;
  uint32_t pages_seen = 1;
  for (;;) {
    while (off >= free) {  // no record starts here: on to the next page
      if (next == kInvalidPageNo) return Status::OK();
      if (++pages_seen > page_count) return s.Corrupt(first, "the log's page chain is too long");
      page = next;
      off = pg::kData;
      ASSIGN_OR_RETURN(ReadPageGuard g, s.pool->FetchRead(page));
      RETURN_IF_ERROR(s.CheckUndoPage(g.data(), page, first));
      free = Load16(g.data() + pg::kFree);
      next = Load32(g.data() + pg::kNext);
    }
    UndoRecordEnd end;
    RETURN_IF_ERROR(s.ReadStored(page, static_cast<uint16_t>(off), &buf, nullptr, &end));
    RETURN_IF_ERROR(DecodeUndoRecord(AsBytes(buf), &rec));
    RETURN_IF_ERROR(f(rec, trx_id));
    if (end.page != page && ++pages_seen > page_count) {
      return s.Corrupt(first, "the log's page chain is too long");
    }
    page = end.page;
    off = end.offset;
    free = end.free;
    next = end.next;
  }
}

// Unlinks the history list's head `head` and frees its (only remaining) page.
Status UnlinkHead(UndoStore::Impl* s, PageNo head) {
  MiniTransaction mtr(s->pool);
  ASSIGN_OR_RETURN(MtrPage rseg, mtr.Write(s->rseg_page));
  ASSIGN_OR_RETURN(MtrPage hp, mtr.Write(head));
  RETURN_IF_ERROR(s->CheckUndoPage(hp.data(), head, head));
  if (Load32(rseg.data() + rs::kHistoryFirst) != head) {
    return s->Corrupt(head, "purged, but no longer the head of the history list");
  }
  const PageNo next = Load32(hp.data() + lg::kHistoryNext);
  const uint64_t len = Load64(rseg.data() + rs::kHistoryLength);
  if (len == 0) return s->Corrupt(head, "in the history list, whose length is 0");
  rseg.Write32(rs::kHistoryFirst, next);
  if (next == kInvalidPageNo) rseg.Write32(rs::kHistoryLast, kInvalidPageNo);
  rseg.Write64(rs::kHistoryLength, len - 1);
  RETURN_IF_ERROR(mtr.Free(hp));
  s->history_length.store(len - 1);
  mtr.Commit();
  return Status::OK();
}

}  // namespace

Result<bool> UndoStore::PurgeOldest(
    TrxId limit, const std::function<Status(const UndoRecord&, TrxId trx_id)>& f) {
  Impl& s = *impl_;
  LatchGuard guard(s.purge_latch);
  PageNo head = kInvalidPageNo;
  {
    ASSIGN_OR_RETURN(ReadPageGuard g, s.pool->FetchRead(s.rseg_page));
    head = Load32(g.data() + rs::kHistoryFirst);
  }
  if (head == kInvalidPageNo) return false;
  TrxId trx_id = 0;
  TrxId trx_no = 0;
  UndoLogState state{};
  {
    ASSIGN_OR_RETURN(ReadPageGuard g, s.pool->FetchRead(head));
    RETURN_IF_ERROR(s.CheckUndoPage(g.data(), head, head));
    trx_id = Load64(g.data() + lg::kTrxId);
    trx_no = Load64(g.data() + lg::kTrxNo);
    state = static_cast<UndoLogState>(std::to_integer<uint8_t>(g.data()[lg::kState]));
  }
  if (state == UndoLogState::kCommitted) {
    if (trx_no >= limit) return false;
    RETURN_IF_ERROR(ForEachRecord(s, head, trx_id, f));
  } else if (state != UndoLogState::kPurging) {
    return s.Corrupt(head, fmt::format("in the history list in state {}", static_cast<int>(state)));
  }
  RETURN_IF_ERROR(s.FreeAfterFirst(head, UndoLogState::kPurging));
  RETURN_IF_ERROR(UnlinkHead(&s, head));
  s.undo_pages.fetch_sub(1, std::memory_order_relaxed);
  s.logs_purged.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace minnow
