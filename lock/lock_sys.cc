// LockSys: registration, table locks, record locks (one and a scan's batch), implicit-to-
// explicit conversion and conflict queries. Queues and waits are in lock_wait.cc, deadlock
// detection in deadlock.cc, moves in lock_moves.cc, release in lock_release.cc.

#include "lock/lock_sys.h"

#include <algorithm>
#include <bit>

#include "common/check.h"
#include "lock/lock_sys_internal.h"

namespace minnow {

using lock_internal::BitEdit;
using lock_internal::Cell;
using lock_internal::LockStruct;

namespace {

// murmur3's finalizer: neighbouring page numbers land in unrelated shards and cells.
uint32_t Mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

// InnoDB stores every lock on the supremum as a gap-type lock (lock_rec_add_to_queue clears
// GAP and REC_NOT_GAP there): a GAP or REC_NOT_GAP request on it is an ordinary one.
RecLockType Normalize(RecLockType type, HeapNo heap_no) {
  if (heap_no == kSupremumHeapNo && type != RecLockType::kInsertIntention) {
    return RecLockType::kOrdinary;
  }
  return type;
}

// Does the transaction's granted lock `held` (on the record) make the request redundant?
// Types are normalized; an insert intention is never redundant and covers nothing.
bool Covers(const LockStruct* held, TrxLockMode mode, RecLockType type) {
  if (type == RecLockType::kInsertIntention) return false;
  if (held->mode() != TrxLockMode::kX && held->mode() != mode) return false;
  switch (held->type()) {
    case RecLockType::kOrdinary:
      return true;
    case RecLockType::kGap:
      return type == RecLockType::kGap;
    case RecLockType::kRecNotGap:
      return type == RecLockType::kRecNotGap;
    case RecLockType::kInsertIntention:
      return false;
  }
  return false;
}

// How many leading elements of v are first, first + 1, first + 2, ... (the run stays below
// 0xFFFF, run_hi's limit). Blocks of 8 are checked without branches, so the compiler
// vectorizes them: a scan of a bulk-built page costs a fraction of a cycle per record here.
size_t RunLength(std::span<const HeapNo> v, uint32_t first) {
  const size_t n = std::min<size_t>(v.size(), 0xFFFFu - first);
  size_t m = 0;
  while (m + 8 <= n) {
    uint32_t diff = 0;
    for (uint32_t j = 0; j < 8; ++j) diff |= v[m + j] ^ (first + static_cast<uint32_t>(m) + j);
    if (diff != 0) break;
    m += 8;
  }
  while (m < n && v[m] == first + m) ++m;
  return m;
}

Status LockWaitStatus() { return Status(Code::kLockWait, "lock wait"); }

}  // namespace

LockSys::Impl::Impl(const LockSysOptions& opts) : options(opts) {
  const size_t n = std::bit_ceil(std::max<size_t>(options.shards, 1));
  options.shards = n;
  shard_bits = static_cast<uint32_t>(std::countr_zero(n));
  shards.reset(new lock_internal::Shard[n]);
}

Cell LockSys::Impl::RecordCell(PageNo page_no) const {
  const uint32_t h = Mix(page_no);
  const uint32_t index = h & static_cast<uint32_t>(options.shards - 1);
  lock_internal::Shard* shard = &shards[index];
  return Cell{shard, &shard->cells[(h >> shard_bits) % lock_internal::kCellsPerShard], index};
}

Cell LockSys::Impl::TableCell(uint32_t table_id) const {
  const uint32_t h = Mix(table_id ^ 0x9e3779b9u);
  const uint32_t index = h & static_cast<uint32_t>(options.shards - 1);
  lock_internal::Shard* shard = &shards[index];
  return Cell{shard, &shard->table_cells[(h >> shard_bits) % lock_internal::kTableCellsPerShard],
              index};
}

LockSys::LockSys(const LockSysOptions& options) : impl_(std::make_unique<Impl>(options)) {}
LockSys::~LockSys() = default;

TrxLocks::TrxLocks(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TrxLocks::~TrxLocks() {
  MINNOW_CHECK(impl_->structs.load() == 0, "trx {} destroyed holding {} lock structs",
               impl_->trx_id, impl_->structs.load());
  impl_->FreeChunks();
  impl_->sys->registry.Remove(impl_->slot);
}

TrxId TrxLocks::trx_id() const { return impl_->trx_id; }

void TrxLocks::set_weight(uint64_t undo_records) {
  impl_->weight.store(undo_records, std::memory_order_relaxed);
}

std::unique_ptr<TrxLocks> LockSys::Register(TrxId trx_id, uint64_t mdl_owner) {
  auto impl = std::make_unique<TrxLocks::Impl>();
  impl->sys = impl_.get();
  impl->trx_id = trx_id;
  impl->mdl_owner = mdl_owner;
  impl->slot = impl_->registry.Add(impl.get());
  return std::unique_ptr<TrxLocks>(new TrxLocks(std::move(impl)));
}

Status LockSys::LockTable(TrxLocks* trx_locks, uint32_t table_id, TrxLockMode mode) {
  TrxLocks::Impl* trx = trx_locks->impl_.get();
  const Cell cell = impl_->TableCell(table_id);
  LatchGuard guard(cell.shard->latch);
  bool blocked = false;
  for (LockStruct* s = *cell.head; s != nullptr; s = s->hash_next) {
    if (s->page_no != table_id) continue;
    if (s->owner == trx->slot) {
      if (!s->waiting() && TableLockCovers(s->mode(), mode)) return Status::OK();
    } else if (!TableLockCompatible(mode, s->mode())) {
      blocked = true;  // granted, or waiting ahead
    }
  }
  // InnoDB lock_table: one struct per mode asked for that no held lock covers (IS then IX
  // gives two structs; data_locks shows both).
  const uint8_t kind = lock_internal::MakeKind(mode, RecLockType::kOrdinary, true);
  if (blocked) {
    impl_->EnqueueWaiting(cell, trx, table_id, 0, kind);
    return LockWaitStatus();
  }
  impl_->Link(cell.head, impl_->NewStruct(trx, table_id, kind, 0, 0));
  return Status::OK();
}

// One record under the shard latch: true if granted (a bit set, or redundant, or an insert
// intention that need not wait), false if it must wait (nothing changed).
bool LockSys::Impl::LockOne(const Cell& cell, TrxImpl* trx, PageNo page_no, HeapNo h,
                            TrxLockMode mode, RecLockType type, bool implicit) {
  MINNOW_DCHECK(h != kInfimumHeapNo, "the infimum is never locked");
  type = Normalize(type, h);
  const uint8_t kind = lock_internal::MakeKind(mode, type, false);
  const bool sup = h == kSupremumHeapNo;
  LockStruct* own = nullptr;
  bool blocked = false;
  for (LockStruct* s = *cell.head; s != nullptr; s = s->hash_next) {
    if (s->page_no != page_no) continue;
    if (s->owner == trx->slot) {
      if (s->waiting()) continue;
      if (own == nullptr && s->kind == kind) own = s;
      if (lock_internal::Contains(s, h) && Covers(s, mode, type)) return true;
    } else if (!blocked && lock_internal::Contains(s, h) &&
               RecordLockConflicts(mode, type, sup, s->mode(), s->type())) {
      blocked = true;
    }
  }
  if (blocked) return false;
  if (type == RecLockType::kInsertIntention) return true;  // InnoDB makes no struct for it
  if (implicit) return true;                               // the caller's write is the lock
  if (own == nullptr) {
    own = NewStruct(trx, page_no, kind, 0, 0);
    Link(cell.head, own);
  }
  SetBit(cell.head, own, h);
  return true;
}

// The scan's hot path: when the transaction is alone on the page with at most its struct for
// (mode, type), no record can conflict or be covered by another struct, so the batch only
// sets bits. Returns how many leading records it did (0: the general path must run).
//
// A batch that its struct cannot take in place (a leaf whose heap numbers are not in key
// order: an index built by random inserts) is gathered into a scratch bitmap first, and the
// struct is made once, in the smaller form that holds the whole set: no run struct dies on
// the way to a bitmap, and no bitmap dies outgrown by the next higher heap number.
size_t LockSys::Impl::LockBatchAlone(const Cell& cell, TrxImpl* trx, PageNo page_no,
                                     std::span<const HeapNo> heap_nos, TrxLockMode mode,
                                     RecLockType type) {
  if (type == RecLockType::kInsertIntention) return 0;
  const uint8_t kind = lock_internal::MakeKind(mode, type, false);
  LockStruct* own = nullptr;
  for (LockStruct* s = *cell.head; s != nullptr; s = s->hash_next) {
    if (s->page_no != page_no) continue;
    if (s->owner != trx->slot || s->waiting() || s->kind != kind || own != nullptr) return 0;
    own = s;
  }
  // A supremum of another type than ordinary goes to another struct: the general path.
  size_t end = heap_nos.size();
  if (type != RecLockType::kOrdinary) {
    end = static_cast<size_t>(std::find(heap_nos.begin(), heap_nos.end(), kSupremumHeapNo) -
                              heap_nos.begin());
  }
  uint64_t added = 0;
  size_t k = 0;
  if (own == nullptr && end > 0 && heap_nos[0] >= kFirstUserHeapNo) {
    // A page scanned in heap order: one run, perhaps ending at the supremum.
    const size_t m = RunLength(heap_nos.first(end), heap_nos[0]);
    if (m == end || (m + 1 == end && heap_nos[m] == kSupremumHeapNo)) {
      own = NewStruct(trx, page_no, kind, 0, m < end ? lock_internal::kFlagSupremum : 0);
      own->run_lo = heap_nos[0];
      own->run_hi = static_cast<uint16_t>(heap_nos[0] + m);
      Link(cell.head, own);
      trx->row_locks.fetch_add(end, std::memory_order_relaxed);
      return end;
    }
  }
  if (own != nullptr) {
    while (k < end) {
      const HeapNo h = heap_nos[k];
      if (!own->is_bitmap() && h == own->run_hi && own->run_lo < own->run_hi) {
        // The scan continues the run: consume the whole ascending stretch in registers (a
        // store to run_hi may alias heap_nos, so the loop must not write through `own`).
        const size_t m = RunLength(heap_nos.subspan(k, end - k), h);
        own->run_hi = static_cast<uint16_t>(h + m);
        added += m;
        k += m;
        continue;
      }
      MINNOW_DCHECK(h != kInfimumHeapNo, "the infimum is never locked");
      const BitEdit e = lock_internal::TrySetBit(own, h);
      if (e == BitEdit::kNeedsBitmap) break;
      if (e == BitEdit::kDone) ++added;
      ++k;
    }
  }
  if (k < end) {
    // Gather the struct's set and the rest of the batch; then one struct of the final size.
    uint32_t max_h = own != nullptr
                         ? (own->is_bitmap() ? own->n_bits() - 1 : lock_internal::RunMax(own))
                         : kSupremumHeapNo;
    for (size_t i = k; i < end; ++i) max_h = std::max<uint32_t>(max_h, heap_nos[i]);
    const uint32_t n_words = max_h / 64 + 1;
    uint64_t scratch[(0xFFFFu + 64) / 64];
    std::fill_n(scratch, n_words, uint64_t{0});
    uint64_t before = 0;
    if (own != nullptr) {
      lock_internal::ForEachBit(own, [&](HeapNo h) { scratch[h >> 6] |= uint64_t{1} << (h & 63); });
      before = lock_internal::CountBits(own);
    }
    for (size_t i = k; i < end; ++i) {
      MINNOW_DCHECK(heap_nos[i] != kInfimumHeapNo, "the infimum is never locked");
      scratch[heap_nos[i] >> 6] |= uint64_t{1} << (heap_nos[i] & 63);
    }
    const lock_internal::SetShape shape = lock_internal::ShapeOf(scratch, n_words);
    added += shape.count - before;
    LockStruct* made;
    if (shape.is_run) {
      made = NewStruct(trx, page_no, kind, 0, shape.supremum ? lock_internal::kFlagSupremum : 0);
      made->run_lo = shape.lo;
      made->run_hi = shape.hi;
    } else {
      // The smaller of the bitmap and the holes form (the bitmap on a tie: its tests are
      // cheaper).
      const uint16_t bitmap_bytes = lock_internal::BitmapBytesFor(max_h);
      const uint32_t hole_bytes =
          shape.fits_u16 ? lock_internal::HoleCodeBytes(scratch, shape.lo, shape.hi) : UINT32_MAX;
      if (hole_bytes < bitmap_bytes) {
        made = NewStruct(trx, page_no, kind, static_cast<uint16_t>(hole_bytes),
                         static_cast<uint8_t>(lock_internal::kFlagHoles |
                                              (shape.supremum ? lock_internal::kFlagSupremum : 0)));
        made->run_lo = shape.lo;
        made->run_hi = shape.hi;
        lock_internal::WriteHoleCode(scratch, made);
      } else {
        made = NewStruct(trx, page_no, kind, bitmap_bytes, 0);
        std::copy_n(scratch, bitmap_bytes / 8u, made->words());
      }
    }
    if (own != nullptr) {
      ReplaceWith(cell.head, own, made);
    } else {
      Link(cell.head, made);
    }
    k = end;
  }
  trx->row_locks.fetch_add(added, std::memory_order_relaxed);
  return k;
}

Status LockSys::LockRecord(TrxLocks* trx, RecordId rec, TrxLockMode mode, RecLockType type,
                           bool may_wait) {
  size_t granted;
  return LockRecords(trx, rec.page_no, std::span<const HeapNo>(&rec.heap_no, 1), mode, type,
                     &granted, may_wait);
}

Status LockSys::LockRecords(TrxLocks* trx_locks, PageNo page_no, std::span<const HeapNo> heap_nos,
                            TrxLockMode mode, RecLockType type, size_t* granted, bool may_wait) {
  MINNOW_DCHECK(mode == TrxLockMode::kS || mode == TrxLockMode::kX, "record locks are S or X");
  TrxLocks::Impl* trx = trx_locks->impl_.get();
  const Cell cell = impl_->RecordCell(page_no);
  LatchGuard guard(cell.shard->latch);
  size_t k = impl_->LockBatchAlone(cell, trx, page_no, heap_nos, mode, type);
  for (; k < heap_nos.size(); ++k) {
    const HeapNo h = heap_nos[k];
    if (!impl_->LockOne(cell, trx, page_no, h, mode, type)) {
      *granted = k;
      if (!may_wait) return Status::LockNoWait("the record is locked by another transaction");
      impl_->EnqueueWaiting(cell, trx, page_no, h,
                            lock_internal::MakeKind(mode, Normalize(type, h), false));
      return LockWaitStatus();
    }
  }
  *granted = k;
  return Status::OK();
}

bool LockSys::LockRunIfAlone(TrxLocks* trx_locks, PageNo page_no, HeapNo lo, size_t n,
                             bool supremum, TrxLockMode mode, RecLockType type) {
  MINNOW_DCHECK(mode == TrxLockMode::kS || mode == TrxLockMode::kX, "record locks are S or X");
  if (n == 0 || lo < kFirstUserHeapNo || lo + n > 0xFFFFu ||
      type == RecLockType::kInsertIntention || (supremum && type != RecLockType::kOrdinary)) {
    return false;
  }
  TrxLocks::Impl* trx = trx_locks->impl_.get();
  const Cell cell = impl_->RecordCell(page_no);
  LatchGuard guard(cell.shard->latch);
  for (const LockStruct* s = *cell.head; s != nullptr; s = s->hash_next) {
    if (s->page_no == page_no) return false;
  }
  // What LockBatchAlone makes of this list on a page with no struct: one run struct.
  LockStruct* own = impl_->NewStruct(trx, page_no, lock_internal::MakeKind(mode, type, false), 0,
                                     supremum ? lock_internal::kFlagSupremum : 0);
  own->run_lo = lo;
  own->run_hi = static_cast<uint16_t>(lo + n);
  impl_->Link(cell.head, own);
  trx->row_locks.fetch_add(n + (supremum ? 1 : 0), std::memory_order_relaxed);
  return true;
}

Status LockSys::LockRecordImplicit(TrxLocks* trx_locks, RecordId rec, TrxLockMode mode) {
  MINNOW_DCHECK(mode == TrxLockMode::kS || mode == TrxLockMode::kX, "record locks are S or X");
  MINNOW_DCHECK(rec.heap_no >= kFirstUserHeapNo, "only user records have implicit locks");
  TrxLocks::Impl* trx = trx_locks->impl_.get();
  const Cell cell = impl_->RecordCell(rec.page_no);
  LatchGuard guard(cell.shard->latch);
  if (impl_->LockOne(cell, trx, rec.page_no, rec.heap_no, mode, RecLockType::kRecNotGap,
                     /*implicit=*/true)) {
    return Status::OK();
  }
  impl_->EnqueueWaiting(cell, trx, rec.page_no, rec.heap_no,
                        lock_internal::MakeKind(mode, RecLockType::kRecNotGap, false));
  return LockWaitStatus();
}

void LockSys::ConvertImplicit(TrxLocks* holder_locks, RecordId rec) {
  TrxLocks::Impl* holder = holder_locks->impl_.get();
  const HeapNo h = rec.heap_no;
  MINNOW_DCHECK(h >= kFirstUserHeapNo, "only user records have implicit locks");
  const uint8_t kind = lock_internal::MakeKind(TrxLockMode::kX, RecLockType::kRecNotGap, false);
  const Cell cell = impl_->RecordCell(rec.page_no);
  LatchGuard guard(cell.shard->latch);
  LockStruct* own = nullptr;
  for (LockStruct* s = *cell.head; s != nullptr; s = s->hash_next) {
    if (s->page_no != rec.page_no || s->owner != holder->slot || s->waiting()) continue;
    if (s->mode() == TrxLockMode::kX && lock_internal::Contains(s, h) &&
        (s->type() == RecLockType::kOrdinary || s->type() == RecLockType::kRecNotGap)) {
      return;
    }
    if (own == nullptr && s->kind == kind) own = s;
  }
  // Granted even if others wait: the holder had the record first.
  if (own == nullptr) {
    own = impl_->NewStruct(holder, rec.page_no, kind, 0, 0);
    impl_->Link(cell.head, own);
  }
  impl_->SetBit(cell.head, own, h);
}

void LockSys::HeldAmong(const TrxLocks* trx_locks, PageNo page_no, std::span<const HeapNo> heap_nos,
                        TrxLockMode mode, RecLockType type, std::vector<uint8_t>* held) const {
  const uint32_t me = trx_locks->impl_->slot;
  held->assign(heap_nos.size(), 0);
  const Cell cell = impl_->RecordCell(page_no);
  LatchGuard guard(cell.shard->latch);
  for (const LockStruct* s = *cell.head; s != nullptr; s = s->hash_next) {
    if (s->page_no != page_no || s->owner != me || s->waiting()) continue;
    for (size_t i = 0; i < heap_nos.size(); ++i) {
      const HeapNo h = heap_nos[i];
      if ((*held)[i] == 0 && lock_internal::Contains(s, h) && Covers(s, mode, Normalize(type, h))) {
        (*held)[i] = 1;
      }
    }
  }
}

bool LockSys::HasConflict(const TrxLocks* trx, RecordId rec, TrxLockMode mode,
                          RecLockType type) const {
  const uint32_t me = trx != nullptr ? trx->impl_->slot : UINT32_MAX;
  const HeapNo h = rec.heap_no;
  type = Normalize(type, h);
  const Cell cell = impl_->RecordCell(rec.page_no);
  LatchGuard guard(cell.shard->latch);
  for (const LockStruct* s = *cell.head; s != nullptr; s = s->hash_next) {
    if (s->page_no == rec.page_no && s->owner != me && lock_internal::Contains(s, h) &&
        RecordLockConflicts(mode, type, h == kSupremumHeapNo, s->mode(), s->type())) {
      return true;
    }
  }
  return false;
}

}  // namespace minnow
