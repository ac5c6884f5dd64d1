// Undo records in pages: creating a log, appending, popping and reading records
// (undo_page_format.h has the formats).
//
// An append of a record that fits in the log's last page is one mini-transaction changing
// one page: the record bytes and the page's free / last_rec fields. Only an append that needs
// new pages also changes the log's first page (last_page, page_count).

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "common/check.h"
#include "mvcc/undo_log_internal.h"

namespace minnow {

namespace {

namespace pg = undo_page_offset;
namespace lg = undo_log_offset;
namespace rc = undo_rec_offset;

constexpr size_t kPageCapacity = kPageSize - pg::kData;  // data bytes of a non-first page

// Fills a freshly allocated page as a non-first page of log `log_first` after `prev`, with
// `data` at its data start; `starts_record`: a record starts there.
void FillNewPage(MtrPage page, PageNo log_first, PageNo prev, ConstBytes data, bool starts_record) {
  Bytes b = page.Mutate(pg::kLogFirst, pg::kData - pg::kLogFirst + data.size());
  std::byte* base = b.data() - pg::kLogFirst;
  Store32(base + pg::kLogFirst, log_first);
  Store32(base + pg::kPrev, prev);
  Store32(base + pg::kNext, kInvalidPageNo);
  Store16(base + pg::kFree, static_cast<uint16_t>(pg::kData + data.size()));
  Store16(base + pg::kLastRec, starts_record ? static_cast<uint16_t>(pg::kData) : 0);
  std::memcpy(base + pg::kData, data.data(), data.size());
}

// Allocates `n` undo pages in `mtr`; on failure frees those it got (in `mtr`).
Status AllocatePages(MiniTransaction* mtr, size_t n, std::vector<MtrPage>* out) {
  out->clear();
  for (size_t i = 0; i < n; ++i) {
    Result<MtrPage> p = mtr->Allocate(PageType::kUndo);
    if (!p.ok()) {
      for (MtrPage& q : *out) (void)mtr->Free(q);
      out->clear();
      return p.status();
    }
    out->push_back(*p);
  }
  return Status::OK();
}

}  // namespace

Status UndoStore::Impl::Corrupt(PageNo page_no, const std::string& what) const {
  return Status::Corruption(fmt::format("{}: undo page {}: {}", pool->file_name(), page_no, what));
}

Status UndoStore::Impl::CheckUndoPage(const std::byte* page, PageNo page_no,
                                      PageNo log_first) const {
  if (HeaderPageType(page) != PageType::kUndo) {
    return Corrupt(page_no,
                   fmt::format("type is {}, not undo", static_cast<int>(HeaderPageType(page))));
  }
  const PageNo first = Load32(page + pg::kLogFirst);
  if (log_first != kInvalidPageNo && first != log_first) {
    return Corrupt(page_no, fmt::format("belongs to the log at {}, not {}", first, log_first));
  }
  const size_t free = Load16(page + pg::kFree);
  if (free < UndoDataStart(first == page_no) || free > kPageSize) {
    return Corrupt(page_no, fmt::format("free offset {} out of range", free));
  }
  return Status::OK();
}

void UndoStore::Impl::StartLog(PageNo first, uint32_t slot, UndoLogMem* log) {
  log->first = log->last = first;
  log->free = static_cast<uint16_t>(lg::kData);
  log->pages = 1;
  log->slot = slot;
  log->top_page = kInvalidPageNo;
  log->records = 0;
  active_logs.fetch_add(1, std::memory_order_relaxed);
  undo_pages.fetch_add(1, std::memory_order_relaxed);
}

Status UndoStore::Impl::ReuseLog(TrxId trx_id, PageNo first, uint32_t slot, UndoLogMem* log) {
  MiniTransaction mtr(pool);
  ASSIGN_OR_RETURN(MtrPage fp, mtr.Write(first));
  RETURN_IF_ERROR(CheckUndoPage(fp.data(), first, first));
  const std::byte* p = fp.data();
  if (std::to_integer<uint8_t>(p[lg::kState]) != static_cast<uint8_t>(UndoLogState::kCached) ||
      Load32(p + lg::kSlot) != slot || Load32(p + lg::kPageCount) != 1 ||
      Load16(p + pg::kFree) != lg::kData) {
    return Corrupt(first, "cached for reuse, but not a free one-page log");
  }
  Bytes ks = fp.Mutate(lg::kKind, 2);
  ks[0] = std::byte{static_cast<uint8_t>(log->kind)};
  ks[1] = std::byte{static_cast<uint8_t>(UndoLogState::kActive)};
  fp.Write64(lg::kTrxId, trx_id);
  mtr.Commit();
  StartLog(first, slot, log);
  return Status::OK();
}

Status UndoStore::Impl::CreateLog(TrxId trx_id, UndoLogMem* log) {
  std::pair<PageNo, uint32_t> cached{kInvalidPageNo, 0};
  {
    LatchGuard g(cache_latch);
    if (!cache.empty()) {
      cached = cache.back();
      cache.pop_back();
    }
  }
  if (cached.first != kInvalidPageNo) return ReuseLog(trx_id, cached.first, cached.second, log);
  MiniTransaction mtr(pool);
  ASSIGN_OR_RETURN(MtrPage page, mtr.Allocate(PageType::kUndo));
  const PageNo page_no = page.page_no();
  Result<MtrPage> rseg = mtr.Write(rseg_page);
  if (!rseg.ok()) {
    (void)mtr.Free(page);
    return rseg.status();
  }
  uint32_t slot = 0;
  while (slot < kRsegSlots &&
         Load32(rseg->data() + rseg_offset::kSlots + 4 * slot) != kInvalidPageNo) {
    ++slot;
  }
  if (slot == kRsegSlots) {
    (void)mtr.Free(page);
    return Status::NoSpace(
        fmt::format("{}: all {} undo log slots are in use", pool->file_name(), kRsegSlots));
  }
  std::byte* base = page.MutateAll().data();  // a new page: logged as an image anyway
  Store32(base + pg::kLogFirst, page_no);
  Store32(base + pg::kPrev, kInvalidPageNo);
  Store32(base + pg::kNext, kInvalidPageNo);
  Store16(base + pg::kFree, static_cast<uint16_t>(lg::kData));
  Store16(base + pg::kLastRec, 0);
  base[lg::kKind] = std::byte{static_cast<uint8_t>(log->kind)};
  base[lg::kState] = std::byte{static_cast<uint8_t>(UndoLogState::kActive)};
  Store32(base + lg::kSlot, slot);
  Store64(base + lg::kTrxId, trx_id);
  Store64(base + lg::kTrxNo, 0);
  Store32(base + lg::kLastPage, page_no);
  Store32(base + lg::kPageCount, 1);
  Store32(base + lg::kHistoryNext, kInvalidPageNo);
  rseg->Write32(rseg_offset::kSlots + 4 * slot, page_no);
  mtr.Commit();
  StartLog(page_no, slot, log);
  return Status::OK();
}

Status UndoStore::Impl::AppendRecord(UndoLogMem* log, const UndoRecord& r, size_t payload_len,
                                     MiniTransaction* mtr, std::string* scratch) {
  const size_t size = kUndoRecHeaderSize + payload_len;
  auto put_header = [&](std::byte* hdr) {
    Store32(hdr + rc::kPayloadLen, static_cast<uint32_t>(payload_len));
    Store32(hdr + rc::kPrevPage, log->top_page);
    Store16(hdr + rc::kPrevOffset, log->has_records() ? log->top_offset : 0);
  };
  if (size <= kPageSize - log->free) {
    // The common case: one page, two byte ranges in the redo, the record encoded in place.
    if (mtr == nullptr) {
      // A mini-transaction of its own, kept off the write hook's path (which passes its mtr).
      MiniTransaction own(pool);
      return AppendRecord(log, r, payload_len, &own, scratch);  // `own` commits on return
    }
    ASSIGN_OR_RETURN(MtrPage page, mtr->Write(log->last));
    MINNOW_DCHECK(Load16(page.data() + pg::kFree) == log->free, "undo page {} free {} != {}",
                  log->last, Load16(page.data() + pg::kFree), log->free);
    const uint16_t off = log->free;
    std::byte* rec = page.Mutate(off, size).data();
    put_header(rec);
    EncodeUndoRecordTo(r, rec + kUndoRecHeaderSize);
    Bytes f = page.Mutate(pg::kFree, 4);
    Store16(f.data(), static_cast<uint16_t>(off + size));
    Store16(f.data() + 2, off);
    log->free = static_cast<uint16_t>(off + size);
    log->top_page = log->last;
    log->top_offset = off;
    return Status::OK();
  }
  // New pages, in mini-transactions of their own (the caller's holds no page of this log).
  MINNOW_DCHECK(mtr == nullptr || !mtr->holds(log->last), "mtr holds undo page {}", log->last);
  scratch->assign(kUndoRecHeaderSize, '\0');
  EncodeUndoRecord(r, scratch);
  put_header(reinterpret_cast<std::byte*>(scratch->data()));
  return AppendSpill(log, AsBytes(*scratch));
}

namespace {

// A record that spills out of its log's last page: the new pages it needs, written in
// order, each after `prev_new` (or after the log's last page for the first one).
struct Spill {
  UndoStore::Impl* store;
  const UndoLogMem* log;
  ConstBytes bytes;
  bool start_new;  // the record starts at the data start of its first new page
  size_t pos;      // bytes of the record written so far
  size_t written = 0;
  PageNo first_new = kInvalidPageNo;
  PageNo prev_new = kInvalidPageNo;

  // Writes the next pieces of the record into `fresh` (allocated in one mtr), linking them
  // after `prev` (the previous new page, latched in that mtr; invalid: none yet).
  void Fill(const std::vector<MtrPage>& fresh, MtrPage prev) {
    for (const MtrPage& p : fresh) {
      const size_t n = std::min(kPageCapacity, bytes.size() - pos);
      FillNewPage(p, log->first, prev.valid() ? prev.page_no() : log->last, bytes.subspan(pos, n),
                  start_new && written == 0);
      if (prev.valid()) prev.Write32(pg::kNext, p.page_no());
      if (first_new == kInvalidPageNo) first_new = p.page_no();
      pos += n;
      ++written;
      prev = p;
    }
    prev_new = prev.page_no();
  }
  // Latches the previous new page (if any) in `mtr` and allocates `n` more.
  Status Extend(MiniTransaction* mtr, size_t n, MtrPage* prev, std::vector<MtrPage>* fresh) {
    if (prev_new != kInvalidPageNo) {
      ASSIGN_OR_RETURN(*prev, mtr->Write(prev_new));
    }
    return AllocatePages(mtr, n, fresh);
  }
  // Commits `mtr` (releasing its latches), then frees the new pages no log links to.
  Status Fail(MiniTransaction* mtr, Status st) {
    mtr->Commit();
    if (first_new != kInvalidPageNo) (void)store->FreeDetached(first_new);
    return st;
  }
};

}  // namespace

Status UndoStore::Impl::AppendSpill(UndoLogMem* log, ConstBytes bytes) {
  const size_t avail = kPageSize - log->free;
  const bool start_new = avail < kMinRecordStart;
  const size_t in_last = start_new ? 0 : avail;
  const size_t npages = (bytes.size() - in_last + kPageCapacity - 1) / kPageCapacity;
  Spill sp{this, log, bytes, start_new, in_last};
  std::vector<MtrPage> fresh;
  // New pages of a long record, kPagesPerMtr per mtr, not yet reachable from the log.
  while (npages - sp.written > kPagesPerMtr) {
    MiniTransaction mtr(pool);
    MtrPage prev;
    Status st = sp.Extend(&mtr, kPagesPerMtr, &prev, &fresh);
    if (!st.ok()) return sp.Fail(&mtr, st);
    sp.Fill(fresh, prev);
  }
  // The last mtr: the remaining new pages, then the record becomes part of the log.
  MiniTransaction mtr(pool);
  Result<MtrPage> fp = mtr.Write(log->first);
  if (!fp.ok()) return sp.Fail(&mtr, fp.status());
  Result<MtrPage> lp = mtr.Write(log->last);
  if (!lp.ok()) return sp.Fail(&mtr, lp.status());
  MtrPage prev;
  Status st = sp.Extend(&mtr, npages - sp.written, &prev, &fresh);
  if (!st.ok()) return sp.Fail(&mtr, st);
  const uint16_t start_off = log->free;
  sp.Fill(fresh, prev);
  if (!start_new) {
    lp->Write(start_off, bytes.first(in_last));
    Bytes f = lp->Mutate(pg::kFree, 4);
    Store16(f.data(), static_cast<uint16_t>(kPageSize));
    Store16(f.data() + 2, start_off);
  }
  lp->Write32(pg::kNext, sp.first_new);
  fp->Write32(lg::kLastPage, sp.prev_new);
  fp->Write32(lg::kPageCount, static_cast<uint32_t>(log->pages + npages));
  mtr.Commit();
  log->top_page = start_new ? sp.first_new : log->last;
  log->top_offset = static_cast<uint16_t>(start_new ? pg::kData : start_off);
  log->last = sp.prev_new;
  log->free = static_cast<uint16_t>(pg::kData + (bytes.size() - in_last - 1) % kPageCapacity + 1);
  log->pages += static_cast<uint32_t>(npages);
  undo_pages.fetch_add(npages, std::memory_order_relaxed);
  return Status::OK();
}

Status UndoStore::Impl::PopRecord(UndoLogMem* log) {
  MINNOW_DCHECK(log->has_records(), "PopRecord of an empty log at {}", log->first);
  const PageNo p = log->top_page;
  const uint16_t o = log->top_offset;
  PageNo prev_rec_page = kInvalidPageNo;
  uint16_t prev_rec_off = 0;
  PageNo page_prev = kInvalidPageNo;
  PageNo page_next = kInvalidPageNo;
  {
    ASSIGN_OR_RETURN(ReadPageGuard g, pool->FetchRead(p));
    RETURN_IF_ERROR(CheckUndoPage(g.data(), p, log->first));
    prev_rec_page = Load32(g.data() + o + rc::kPrevPage);
    prev_rec_off = Load16(g.data() + o + rc::kPrevOffset);
    page_prev = Load32(g.data() + pg::kPrev);
    page_next = Load32(g.data() + pg::kNext);
  }
  // A non-first page whose first record is popped holds nothing any more.
  const bool p_empty = p != log->first && o == pg::kData;
  const PageNo new_last = p_empty ? page_prev : p;
  std::vector<PageNo> tail;  // pages after new_last: freed
  for (PageNo cur = p_empty ? p : page_next; cur != kInvalidPageNo;) {
    if (tail.size() >= log->pages) return Corrupt(p, "the log's page chain loops");
    tail.push_back(cur);
    if (cur == log->last) break;
    ASSIGN_OR_RETURN(ReadPageGuard g, pool->FetchRead(cur));
    RETURN_IF_ERROR(CheckUndoPage(g.data(), cur, log->first));
    cur = Load32(g.data() + pg::kNext);
  }
  // Latch first (first page, new last page, the pages to free: first to last), then change.
  MiniTransaction mtr(pool);
  MtrPage fp;
  if (!tail.empty()) {
    ASSIGN_OR_RETURN(fp, mtr.Write(log->first));
  }
  ASSIGN_OR_RETURN(MtrPage np, mtr.Write(new_last));
  std::vector<MtrPage> freed;
  for (size_t i = 0; i < tail.size() && tail.size() <= kPagesPerMtr; ++i) {
    ASSIGN_OR_RETURN(MtrPage tp, mtr.Write(tail[i]));
    freed.push_back(tp);
  }
  if (!tail.empty()) {
    fp.Write32(lg::kLastPage, new_last);
    fp.Write32(lg::kPageCount, static_cast<uint32_t>(log->pages - tail.size()));
    np.Write32(pg::kNext, kInvalidPageNo);
  }
  if (!p_empty) {
    Bytes f = np.Mutate(pg::kFree, 4);
    Store16(f.data(), o);
    Store16(f.data() + 2, prev_rec_page == p ? prev_rec_off : 0);
  }
  const uint16_t new_free = Load16(np.data() + pg::kFree);
  for (MtrPage& tp : freed) RETURN_IF_ERROR(mtr.Free(tp));
  mtr.Commit();
  if (tail.size() > kPagesPerMtr) RETURN_IF_ERROR(FreeDetached(tail.front()));
  undo_pages.fetch_sub(tail.size(), std::memory_order_relaxed);
  log->last = new_last;
  log->free = new_free;
  log->pages -= static_cast<uint32_t>(tail.size());
  log->top_page = prev_rec_page;
  log->top_offset = prev_rec_off;
  log->top_known = prev_rec_page == kInvalidPageNo;
  log->top_undo_no = 0;
  --log->records;
  return Status::OK();
}

Status UndoStore::Impl::ReadStored(PageNo page_no, uint16_t offset, std::string* payload,
                                   RollPtr* prev, UndoRecordEnd* end) const {
  ASSIGN_OR_RETURN(ReadPageGuard g, pool->FetchRead(page_no));
  RETURN_IF_ERROR(CheckUndoPage(g.data(), page_no, kInvalidPageNo));
  const PageNo log_first = Load32(g.data() + pg::kLogFirst);
  size_t free = Load16(g.data() + pg::kFree);
  if (offset < UndoDataStart(log_first == page_no) || offset + kMinRecordStart > free) {
    return Corrupt(page_no, fmt::format("no record at offset {} (free {})", offset, free));
  }
  const std::byte* r = g.data() + offset;
  const size_t len = Load32(r + rc::kPayloadLen);
  if (len < kMinRecordStart - kUndoRecHeaderSize || len > kMaxUndoPayload) {
    return Corrupt(page_no, fmt::format("record at {} has length {}", offset, len));
  }
  if (prev != nullptr) {
    const PageNo pp = Load32(r + rc::kPrevPage);
    *prev = pp == kInvalidPageNo ? 0 : MakeRollPtr(false, pp, Load16(r + rc::kPrevOffset));
  }
  payload->clear();
  payload->reserve(len);
  size_t pos = offset + kUndoRecHeaderSize;
  size_t take = std::min(len, free - pos);
  payload->append(reinterpret_cast<const char*>(g.data() + pos), take);
  size_t left = len - take;
  PageNo cur = page_no;
  size_t cur_end = pos + take;
  while (left > 0) {
    const PageNo next = Load32(g.data() + pg::kNext);
    if (next == kInvalidPageNo) {
      return Corrupt(cur,
                     fmt::format("record at {}:{} continues past the log's end", page_no, offset));
    }
    g.Release();
    ASSIGN_OR_RETURN(g, pool->FetchRead(next));
    RETURN_IF_ERROR(CheckUndoPage(g.data(), next, log_first));
    free = Load16(g.data() + pg::kFree);
    take = std::min(left, free - pg::kData);
    if (take == 0) return Corrupt(next, "an empty page inside a record");
    payload->append(reinterpret_cast<const char*>(g.data() + pg::kData), take);
    left -= take;
    cur = next;
    cur_end = pg::kData + take;
  }
  if (end != nullptr) {
    *end = {cur, static_cast<uint16_t>(cur_end), static_cast<uint16_t>(free),
            Load32(g.data() + pg::kNext)};
  }
  return Status::OK();
}

Result<uint64_t> UndoStore::Impl::ReadUndoNo(PageNo page_no, uint16_t offset) const {
  ASSIGN_OR_RETURN(ReadPageGuard g, pool->FetchRead(page_no));
  RETURN_IF_ERROR(CheckUndoPage(g.data(), page_no, kInvalidPageNo));
  const size_t free = Load16(g.data() + pg::kFree);
  if (offset < UndoDataStart(Load32(g.data() + pg::kLogFirst) == page_no) ||
      offset + kMinRecordStart > free) {
    return Corrupt(page_no, fmt::format("no record at offset {} (free {})", offset, free));
  }
  return Load64(g.data() + offset + kUndoRecHeaderSize + 1);
}

}  // namespace minnow
