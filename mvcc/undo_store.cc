// UndoStore: the rollback segment header page (open, create, the id bound), MVCC reads and
// statistics. Appends and rollback are in undo_trx.cc, purge in undo_purge.cc, recovery in
// undo_recovery.cc.

#include "mvcc/undo_store.h"

#include <fmt/format.h>

#include "mvcc/undo_log_internal.h"

namespace minnow {

namespace {

namespace rs = rseg_offset;
namespace lg = undo_log_offset;

Result<PageNo> CreateRseg(BufferPool* pool) {
  MiniTransaction mtr(pool);
  ASSIGN_OR_RETURN(MtrPage page, mtr.Allocate(PageType::kUndoRsegHeader));
  std::byte* base = page.MutateAll().data();
  Store32(base + rs::kMagic, kRsegMagic);
  Store32(base + rs::kSlotCount, kRsegSlots);
  Store64(base + rs::kTrxIdBound, 0);
  Store64(base + rs::kHistoryLength, 0);
  Store32(base + rs::kHistoryFirst, kInvalidPageNo);
  Store32(base + rs::kHistoryLast, kInvalidPageNo);
  for (size_t i = 0; i < kRsegSlots; ++i) Store32(base + rs::kSlots + 4 * i, kInvalidPageNo);
  const PageNo page_no = page.page_no();
  RETURN_IF_ERROR(pool->SetSystemRoot(&mtr, kRsegRootSlot, page_no));  // last: page 0
  mtr.Commit();
  return page_no;
}

// Loads the cached fields of the header page; counts the pages of the logs in slots and in
// the history list (one page read per log) and collects the cached logs.
Status LoadRseg(UndoStore::Impl* s) {
  std::vector<std::pair<uint32_t, PageNo>> logs;  // (slot, first page)
  PageNo hist = kInvalidPageNo;
  {
    ASSIGN_OR_RETURN(ReadPageGuard g, s->pool->FetchRead(s->rseg_page));
    const std::byte* p = g.data();
    if (HeaderPageType(p) != PageType::kUndoRsegHeader || Load32(p + rs::kMagic) != kRsegMagic ||
        Load32(p + rs::kSlotCount) != kRsegSlots) {
      return Status::Corruption(fmt::format("{}: page {} is not a rollback segment header",
                                            s->pool->file_name(), s->rseg_page));
    }
    s->trx_id_bound.store(Load64(p + rs::kTrxIdBound));
    s->history_length.store(Load64(p + rs::kHistoryLength));
    for (size_t i = 0; i < kRsegSlots; ++i) {
      const PageNo first = Load32(p + rs::kSlots + 4 * i);
      if (first != kInvalidPageNo) logs.emplace_back(static_cast<uint32_t>(i), first);
    }
    hist = Load32(p + rs::kHistoryFirst);
  }
  const uint64_t history = s->history_length.load();
  uint64_t pages = 0;
  uint64_t active = 0;
  for (uint64_t n = 0; hist != kInvalidPageNo; ++n) {
    if (n >= history) return s->Corrupt(hist, "the history list is longer than its length");
    ASSIGN_OR_RETURN(ReadPageGuard g, s->pool->FetchRead(hist));
    RETURN_IF_ERROR(s->CheckUndoPage(g.data(), hist, hist));
    pages += Load32(g.data() + lg::kPageCount);
    hist = Load32(g.data() + lg::kHistoryNext);
  }
  for (const auto& [slot, first] : logs) {
    ASSIGN_OR_RETURN(ReadPageGuard g, s->pool->FetchRead(first));
    RETURN_IF_ERROR(s->CheckUndoPage(g.data(), first, first));
    if (std::to_integer<uint8_t>(g.data()[lg::kState]) ==
        static_cast<uint8_t>(UndoLogState::kCached)) {
      s->AddToCache(first, slot);  // counted in neither statistic
      continue;
    }
    pages += Load32(g.data() + lg::kPageCount);
    ++active;
  }
  s->active_logs.store(active);
  s->undo_pages.store(pages);
  return Status::OK();
}

}  // namespace

UndoStore::UndoStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
UndoStore::~UndoStore() = default;

Result<std::unique_ptr<UndoStore>> UndoStore::Open(BufferPool* pool) {
  auto impl = std::make_unique<Impl>();
  impl->pool = pool;
  impl->rseg_page = pool->system_root(kRsegRootSlot);
  if (impl->rseg_page == kInvalidPageNo) {
    ASSIGN_OR_RETURN(impl->rseg_page, CreateRseg(pool));
  }
  RETURN_IF_ERROR(LoadRseg(impl.get()));
  return std::unique_ptr<UndoStore>(new UndoStore(std::move(impl)));
}

std::unique_ptr<TrxUndo> UndoStore::NewTrxUndo(TrxId trx_id) {
  auto t = std::make_unique<TrxUndo::Impl>();
  t->store = impl_.get();
  t->trx_id = trx_id;
  t->insert_log().kind = UndoLogKind::kInsert;
  t->update_log().kind = UndoLogKind::kUpdate;
  return Impl::MakeTrxUndo(std::move(t));
}

Status UndoStore::Read(RollPtr roll_ptr, std::string* buf, UndoRecord* out) const {
  if (RollPtrIsInsert(roll_ptr) || (roll_ptr >> 48) != 0 || RollPtrPage(roll_ptr) == 0) {
    return Status::Corruption(
        fmt::format("{}: roll pointer {:#x} does not lead to an update "
                    "undo record",
                    impl_->pool->file_name(), roll_ptr));
  }
  RETURN_IF_ERROR(
      impl_->ReadStored(RollPtrPage(roll_ptr), RollPtrOffset(roll_ptr), buf, nullptr, nullptr));
  return DecodeUndoRecord(AsBytes(*buf), out);
}

TrxId UndoStore::trx_id_bound() const { return impl_->trx_id_bound.load(); }

Status UndoStore::SetTrxIdBound(TrxId bound) {
  MiniTransaction mtr(impl_->pool);
  ASSIGN_OR_RETURN(MtrPage page, mtr.Write(impl_->rseg_page));
  // Under the header page's latch, so concurrent raises never lower it.
  if (bound > Load64(page.data() + rs::kTrxIdBound)) {
    page.Write64(rs::kTrxIdBound, bound);
    impl_->trx_id_bound.store(bound);
  }
  mtr.Commit();
  return Status::OK();
}

uint64_t UndoStore::history_length() const { return impl_->history_length.load(); }

UndoStoreStats UndoStore::stats() const {
  UndoStoreStats s;
  s.history_length = impl_->history_length.load();
  s.active_logs = impl_->active_logs.load(std::memory_order_relaxed);
  s.undo_pages = impl_->undo_pages.load(std::memory_order_relaxed);
  s.logs_purged = impl_->logs_purged.load(std::memory_order_relaxed);
  return s;
}

}  // namespace minnow
