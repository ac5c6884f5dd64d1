// TrxUndo: one transaction's insert and update logs: append, rollback (peek / pop), commit
// and discard.

#include <fmt/format.h>

#include "common/check.h"
#include "mvcc/undo_log_internal.h"

namespace minnow {

namespace {

namespace rs = rseg_offset;
namespace pg = undo_page_offset;
namespace lg = undo_log_offset;

bool GoesToInsertLog(UndoType t) { return t == UndoType::kInsert || t == UndoType::kBulkLoad; }

size_t SlotAt(uint32_t slot) { return rs::kSlots + 4 * size_t{slot}; }

// Latches every page of a small `log` in `mtr`, first to last, into *pages (nothing changes
// yet: a failure leaves the mtr unchanged).
Status LatchSmallLog(UndoStore::Impl* s, MiniTransaction* mtr, const UndoLogMem& log,
                     std::vector<MtrPage>* pages) {
  PageNo cur = log.first;
  for (uint32_t n = 0; cur != kInvalidPageNo; ++n) {
    if (n >= log.pages) return s->Corrupt(log.first, "the log has more pages than it says");
    ASSIGN_OR_RETURN(MtrPage p, mtr->Write(cur));
    RETURN_IF_ERROR(s->CheckUndoPage(p.data(), cur, log.first));
    pages->push_back(p);
    cur = Load32(p.data() + pg::kNext);
  }
  return Status::OK();
}

Status FreeAll(MiniTransaction* mtr, const std::vector<MtrPage>& pages) {
  for (const MtrPage& p : pages) RETURN_IF_ERROR(mtr->Free(p));
  return Status::OK();
}

// Appends the update log `first` at the tail of the history list: `rseg` and `tail` (the
// old tail's first page, invalid if the list is empty) are X-latched in the mtr. History
// pages come after the header page in the latch order.
void LinkHistory(UndoStore::Impl* s, MtrPage rseg, MtrPage tail, PageNo first) {
  if (!tail.valid()) {
    rseg.Write32(rs::kHistoryFirst, first);
  } else {
    tail.Write32(lg::kHistoryNext, first);
  }
  rseg.Write32(rs::kHistoryLast, first);
  const uint64_t len = Load64(rseg.data() + rs::kHistoryLength) + 1;
  rseg.Write64(rs::kHistoryLength, len);
  s->history_length.store(len);
}

// The mini-transaction that ends both logs of `t` as `how` says (Commit and Discard): latch
// everything first (undo pages, the header page, the history tail), then change.
Result<Lsn> EndLogs(TrxUndo::Impl* t, const EndHow how[2], TrxId trx_no) {
  UndoStore::Impl* s = t->store;
  MiniTransaction mtr(s->pool);
  std::vector<MtrPage> to_free;
  MtrPage first_pages[2];
  bool need_rseg = false;
  for (int i = 0; i < 2; ++i) {
    if (how[i] == EndHow::kNone) continue;
    if (how[i] == EndHow::kFreeNow) {
      RETURN_IF_ERROR(LatchSmallLog(s, &mtr, t->logs[i], &to_free));
    } else {
      ASSIGN_OR_RETURN(first_pages[i], mtr.Write(t->logs[i].first));
    }
    need_rseg |= how[i] == EndHow::kFreeNow || how[i] == EndHow::kHistory;
  }
  MtrPage rseg;
  MtrPage tail;
  if (need_rseg) {
    ASSIGN_OR_RETURN(rseg, mtr.Write(s->rseg_page));
    const PageNo tail_no = Load32(rseg.data() + rs::kHistoryLast);
    if (how[1] == EndHow::kHistory && tail_no != kInvalidPageNo) {
      ASSIGN_OR_RETURN(tail, mtr.Write(tail_no));
      RETURN_IF_ERROR(s->CheckUndoPage(tail.data(), tail_no, tail_no));
    }
  }
  uint64_t ended = 0;
  uint64_t pages = 0;
  for (int i = 0; i < 2; ++i) {
    const UndoLogMem& log = t->logs[i];
    MtrPage fp = first_pages[i];
    switch (how[i]) {
      case EndHow::kNone:
        continue;
      case EndHow::kCache:
        UndoStore::Impl::ResetToCached(fp);
        break;
      case EndHow::kFreeAfter:
        fp.Mutate(lg::kState, 1)[0] = std::byte{static_cast<uint8_t>(UndoLogState::kCommitted)};
        continue;  // still in its slot, counted, until FreeLogInSlot
      case EndHow::kHistory:
        fp.Mutate(lg::kState, 1)[0] = std::byte{static_cast<uint8_t>(UndoLogState::kCommitted)};
        fp.Write64(lg::kTrxNo, trx_no);
        fp.Write32(lg::kHistoryNext, kInvalidPageNo);
        rseg.Write32(SlotAt(log.slot), kInvalidPageNo);
        LinkHistory(s, rseg, tail, log.first);
        break;
      case EndHow::kFreeNow:
        rseg.Write32(SlotAt(log.slot), kInvalidPageNo);
        pages += log.pages;
        break;
    }
    ++ended;
  }
  RETURN_IF_ERROR(FreeAll(&mtr, to_free));
  const Lsn lsn = mtr.Commit();
  s->active_logs.fetch_sub(ended, std::memory_order_relaxed);
  s->undo_pages.fetch_sub(pages + (how[0] == EndHow::kCache) + (how[1] == EndHow::kCache),
                          std::memory_order_relaxed);
  // Large logs left committed in their slots are freed now, after the commit (a crash leaves
  // them to recovery, which frees committed logs it finds in slots). A failure here does not
  // undo the commit.
  for (int i = 0; i < 2; ++i) {
    if (how[i] == EndHow::kCache) s->AddToCache(t->logs[i].first, t->logs[i].slot);
    if (how[i] == EndHow::kFreeAfter) (void)s->FreeLogInSlot(t->logs[i].first, t->logs[i].slot);
  }
  return lsn;
}

}  // namespace

TrxUndo::TrxUndo(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TrxUndo::~TrxUndo() = default;

TrxId TrxUndo::trx_id() const { return impl_->trx_id; }
uint64_t TrxUndo::next_undo_no() const { return impl_->next_undo_no; }
uint64_t TrxUndo::records() const { return impl_->logs[0].records + impl_->logs[1].records; }
bool TrxUndo::empty() const { return records() == 0; }
bool TrxUndo::has_update_log() const { return impl_->update_log().exists(); }

Result<RollPtr> TrxUndo::Append(const UndoRecord& r, MiniTransaction* mtr) {
  Impl& t = *impl_;
  if (t.ended) return Status::InvalidArgument("Append to the undo of an ended transaction");
  const bool insert = GoesToInsertLog(r.type);
  UndoLogMem& log = insert ? t.insert_log() : t.update_log();
  UndoRecord copy = r;
  copy.undo_no = t.next_undo_no;
  const size_t payload_len = UndoRecordSize(copy);
  if (payload_len > kMaxUndoPayload) {
    return Status::InvalidArgument(fmt::format("undo record of {} bytes is longer than {}",
                                               payload_len + kUndoRecHeaderSize, kMaxUndoPayload));
  }
  if (!log.exists()) RETURN_IF_ERROR(t.store->CreateLog(t.trx_id, &log));
  RETURN_IF_ERROR(t.store->AppendRecord(&log, copy, payload_len, mtr, &t.scratch));
  log.top_undo_no = copy.undo_no;
  log.top_known = true;
  ++log.records;
  ++t.next_undo_no;
  if (t.scratch.capacity() > (size_t{1} << 20)) std::string().swap(t.scratch);
  return MakeRollPtr(insert, log.top_page, log.top_offset);
}

Result<UndoLogMem*> TrxUndo::Impl::NewestLog() {
  UndoLogMem* best = nullptr;
  for (UndoLogMem& log : logs) {
    if (!log.has_records()) continue;
    if (!log.top_known) {
      ASSIGN_OR_RETURN(log.top_undo_no, store->ReadUndoNo(log.top_page, log.top_offset));
      log.top_known = true;
    }
    if (best == nullptr || log.top_undo_no > best->top_undo_no) best = &log;
  }
  return best;
}

Result<bool> TrxUndo::PeekNewest(uint64_t savepoint, std::string* buf, UndoRecord* out) {
  ASSIGN_OR_RETURN(UndoLogMem * log, impl_->NewestLog());
  if (log == nullptr || log->top_undo_no < savepoint) return false;
  RETURN_IF_ERROR(impl_->store->ReadStored(log->top_page, log->top_offset, buf, nullptr, nullptr));
  RETURN_IF_ERROR(DecodeUndoRecord(AsBytes(*buf), out));
  if (out->undo_no != log->top_undo_no) {
    return impl_->store->Corrupt(log->top_page,
                                 fmt::format("record at {} has undo_no {}, not {}", log->top_offset,
                                             out->undo_no, log->top_undo_no));
  }
  return true;
}

Status TrxUndo::PopNewest() {
  ASSIGN_OR_RETURN(UndoLogMem * log, impl_->NewestLog());
  if (log == nullptr) return Status::InvalidArgument("PopNewest of an empty undo");
  return impl_->store->PopRecord(log);
}

Result<Lsn> TrxUndo::Commit(TrxId trx_no) {
  Impl& t = *impl_;
  if (t.ended) return Status::InvalidArgument("Commit of an ended transaction's undo");
  t.ended = true;
  // An empty update log (rolled back to a savepoint) needs no purge: ended like an insert log.
  EndHow how[2];
  for (int i = 0; i < 2; ++i) {
    how[i] = i == 1 && t.logs[i].has_records() ? EndHow::kHistory : t.store->HowToEnd(t.logs[i]);
  }
  return EndLogs(&t, how, trx_no);
}

Result<Lsn> TrxUndo::Discard() {
  Impl& t = *impl_;
  if (t.ended) return Status::InvalidArgument("Discard of an ended transaction's undo");
  for (const UndoLogMem& log : t.logs) {
    if (log.exists() && (log.has_records() || log.pages > kPagesPerMtr)) {
      return Status::InvalidArgument(
          fmt::format("Discard of undo with {} records left", log.records));
    }
  }
  t.ended = true;
  const EndHow how[2] = {t.store->HowToEnd(t.logs[0]), t.store->HowToEnd(t.logs[1])};
  return EndLogs(&t, how, 0);
}

}  // namespace minnow
