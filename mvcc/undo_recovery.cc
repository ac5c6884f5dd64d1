// Recovery of the undo logs after redo: the logs in the slots are either active (their
// transactions are rolled back by the caller) or committed logs whose freeing a crash cut
// short (freed here). The in-memory state of an active log is rebuilt from its pages.

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "mvcc/undo_log_internal.h"

namespace minnow {

namespace {

namespace rs = rseg_offset;
namespace pg = undo_page_offset;
namespace lg = undo_log_offset;
namespace rc = undo_rec_offset;

// Counts the records of a log by their prev pointers, newest first from `top`.
Result<uint64_t> CountRecords(const UndoStore::Impl& s, PageNo first, uint32_t pages,
                              PageNo top_page, uint16_t top_offset) {
  const uint64_t max_records = uint64_t{pages} * (kPageSize / kMinRecordStart + 1);
  uint64_t n = 0;
  ReadPageGuard g;
  for (PageNo page = top_page; page != kInvalidPageNo; ++n) {
    if (n > max_records) return s.Corrupt(first, "the log's records loop");
    if (!g.valid() || g.page_no() != page) {
      g.Release();
      ASSIGN_OR_RETURN(g, s.pool->FetchRead(page));
      RETURN_IF_ERROR(s.CheckUndoPage(g.data(), page, first));
    }
    if (top_offset + kMinRecordStart > Load16(g.data() + pg::kFree)) {
      return s.Corrupt(page, fmt::format("no record at offset {}", top_offset));
    }
    page = Load32(g.data() + top_offset + rc::kPrevPage);
    top_offset = Load16(g.data() + top_offset + rc::kPrevOffset);
  }
  return n;
}

}  // namespace

Result<UndoLogMem> UndoStore::Impl::LoadLog(PageNo first, uint32_t slot) const {
  UndoLogMem log;
  {
    ASSIGN_OR_RETURN(ReadPageGuard g, pool->FetchRead(first));
    RETURN_IF_ERROR(CheckUndoPage(g.data(), first, first));
    const uint8_t kind = std::to_integer<uint8_t>(g.data()[lg::kKind]);
    if (kind != static_cast<uint8_t>(UndoLogKind::kInsert) &&
        kind != static_cast<uint8_t>(UndoLogKind::kUpdate)) {
      return Corrupt(first, fmt::format("unknown log kind {}", kind));
    }
    if (Load32(g.data() + lg::kSlot) != slot) {
      return Corrupt(first, fmt::format("names slot {}, found in slot {}",
                                        Load32(g.data() + lg::kSlot), slot));
    }
    log.kind = static_cast<UndoLogKind>(kind);
    log.first = first;
    log.slot = slot;
    log.last = Load32(g.data() + lg::kLastPage);
    log.pages = Load32(g.data() + lg::kPageCount);
  }
  // The newest record: the last_rec of the last page that has one.
  PageNo cur = log.last;
  for (uint32_t n = 0; cur != kInvalidPageNo; ++n) {
    if (n >= log.pages) return Corrupt(first, "the log's page chain is longer than it says");
    ASSIGN_OR_RETURN(ReadPageGuard g, pool->FetchRead(cur));
    RETURN_IF_ERROR(CheckUndoPage(g.data(), cur, first));
    if (cur == log.last) {
      if (Load32(g.data() + pg::kNext) != kInvalidPageNo) {
        return Corrupt(cur, "the log's last page has a next page");
      }
      log.free = Load16(g.data() + pg::kFree);
    }
    const uint16_t last_rec = Load16(g.data() + pg::kLastRec);
    if (last_rec != 0) {
      log.top_page = cur;
      log.top_offset = last_rec;
      break;
    }
    cur = cur == first ? kInvalidPageNo : Load32(g.data() + pg::kPrev);
  }
  if (log.has_records()) {
    ASSIGN_OR_RETURN(log.top_undo_no, ReadUndoNo(log.top_page, log.top_offset));
    ASSIGN_OR_RETURN(log.records,
                     CountRecords(*this, first, log.pages, log.top_page, log.top_offset));
  }
  log.top_known = true;
  return log;
}

Result<std::vector<std::unique_ptr<TrxUndo>>> UndoStore::RecoverActive() {
  Impl& s = *impl_;
  std::vector<std::pair<uint32_t, PageNo>> slots;
  {
    ASSIGN_OR_RETURN(ReadPageGuard g, s.pool->FetchRead(s.rseg_page));
    for (uint32_t i = 0; i < kRsegSlots; ++i) {
      const PageNo first = Load32(g.data() + rs::kSlots + 4 * size_t{i});
      if (first != kInvalidPageNo) slots.emplace_back(i, first);
    }
  }
  std::map<TrxId, std::unique_ptr<TrxUndo::Impl>> trxs;
  TrxId max_id = 0;
  for (const auto& [slot, first] : slots) {
    TrxId trx_id = 0;
    UndoLogState state{};
    {
      ASSIGN_OR_RETURN(ReadPageGuard g, s.pool->FetchRead(first));
      RETURN_IF_ERROR(s.CheckUndoPage(g.data(), first, first));
      trx_id = Load64(g.data() + lg::kTrxId);
      state = static_cast<UndoLogState>(std::to_integer<uint8_t>(g.data()[lg::kState]));
    }
    if (state == UndoLogState::kCached) continue;  // in the cache since Open
    if (state == UndoLogState::kCommitted) {       // its commit freed it only in part
      RETURN_IF_ERROR(s.FreeLogInSlot(first, slot));
      continue;
    }
    if (state != UndoLogState::kActive) {
      return s.Corrupt(first, fmt::format("in slot {} in state {}", slot, static_cast<int>(state)));
    }
    ASSIGN_OR_RETURN(UndoLogMem log, s.LoadLog(first, slot));
    std::unique_ptr<TrxUndo::Impl>& t = trxs[trx_id];
    if (t == nullptr) {
      t = std::make_unique<TrxUndo::Impl>();
      t->store = &s;
      t->trx_id = trx_id;
      t->insert_log().kind = UndoLogKind::kInsert;
      t->update_log().kind = UndoLogKind::kUpdate;
    }
    UndoLogMem& into = log.kind == UndoLogKind::kInsert ? t->insert_log() : t->update_log();
    if (into.exists()) {
      return s.Corrupt(first, fmt::format("transaction {} has two logs of one kind", trx_id));
    }
    into = log;
    max_id = std::max(max_id, trx_id);
  }
  if (!trxs.empty() && max_id >= trx_id_bound()) RETURN_IF_ERROR(SetTrxIdBound(max_id + 1));
  std::vector<std::unique_ptr<TrxUndo>> out;
  for (auto& [id, t] : trxs) {
    for (const UndoLogMem& log : t->logs) {
      if (log.has_records()) t->next_undo_no = std::max(t->next_undo_no, log.top_undo_no + 1);
    }
    out.push_back(Impl::MakeTrxUndo(std::move(t)));
  }
  return out;
}

}  // namespace minnow
