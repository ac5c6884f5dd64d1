// The table-locking engine's public handles of minnow/table_lock_engine.h (HeapTableLock,
// HeapTable, HeapTableScan); the catalog behind them is engine/heap_tables.cc. Formats and
// crash ordering are in engine/heap_table_internal.h.
#include <fmt/format.h>

#include <utility>

#include "btree/cursor.h"
#include "common/check.h"
#include "common/crash_point.h"
#include "engine/heap_table_internal.h"
#include "myisam/row_position.h"

namespace minnow {

#define MINNOW_SAME_LOCK_TYPE(x) \
  static_assert(static_cast<uint8_t>(HeapLockType::x) == static_cast<uint8_t>(TableLockType::x))
MINNOW_SAME_LOCK_TYPE(kRead);
MINNOW_SAME_LOCK_TYPE(kReadWithSharedLocks);
MINNOW_SAME_LOCK_TYPE(kReadHighPriority);
MINNOW_SAME_LOCK_TYPE(kReadNoInsert);
MINNOW_SAME_LOCK_TYPE(kWriteAllowWrite);
MINNOW_SAME_LOCK_TYPE(kWriteConcurrentInsert);
MINNOW_SAME_LOCK_TYPE(kWriteLowPriority);
MINNOW_SAME_LOCK_TYPE(kWrite);
MINNOW_SAME_LOCK_TYPE(kWriteOnly);
#undef MINNOW_SAME_LOCK_TYPE

using heap_internal::AddEntries;
using heap_internal::CheckUnique;
using heap_internal::DecodeRecord;
using heap_internal::EncodeEntry;
using heap_internal::EncodeRecord;
using heap_internal::ExcludesWriters;
using heap_internal::InsertEntry;
using heap_internal::NewIndexTrees;
using heap_internal::RemoveEntry;
using heap_internal::ToId;
using heap_internal::ToPos;

// ---- HeapTableLock ----

struct HeapTableLock::Impl {
  HeapTableState* table = nullptr;
  TableLockTicket ticket;
  bool reader = false;      // a read lock: reads stop at `end`
  bool concurrent = false;  // a granted concurrent insert
  Status end_status;        // End() at grant, for readers
  HeapEnd end;
  HeapTables* tables = nullptr;  // outlives the lock (the database's), unlike `table`
  Lsn unflushed = 0;  // the log's end after the last write under the lock not yet durable

  // The writes under the lock made durable (HeapTableLock::WaitDurable).
  Status WaitDurable() {
    const Lsn lsn = std::exchange(unflushed, 0);
    return tables == nullptr ? Status::OK() : tables->WaitDurable(lsn);
  }

  void Release() {
    if (!ticket.held()) return;
    // Its writes are done and published in complete_end as each finished.
    if (concurrent) table->appenders.fetch_sub(1, std::memory_order_acq_rel);
    ticket.Release();
  }
};

HeapTableLock::HeapTableLock() = default;
HeapTableLock::HeapTableLock(HeapTableLock&&) noexcept = default;
HeapTableLock& HeapTableLock::operator=(HeapTableLock&& other) noexcept {
  if (this != &other) {
    (void)Release();  // a failed wait leaves the log failed: later writes report it
    impl_ = std::move(other.impl_);
  }
  return *this;
}
HeapTableLock::~HeapTableLock() { (void)Release(); }  // as operator=
bool HeapTableLock::held() const { return impl_ != nullptr && impl_->ticket.held(); }
HeapLockType HeapTableLock::type() const {
  return held() ? static_cast<HeapLockType>(impl_->ticket.type()) : HeapLockType::kRead;
}
bool HeapTableLock::concurrent_insert() const { return held() && impl_->concurrent; }
Status HeapTableLock::Release() {
  if (impl_ == nullptr) return Status::OK();
  impl_->Release();  // first: the lock's waiters need not wait for the log (as InnoDB's commit)
  return impl_->WaitDurable();
}
Status HeapTableLock::WaitDurable() {
  return impl_ == nullptr ? Status::OK() : impl_->WaitDurable();
}

// ---- HeapTable (public handle) ----

namespace {

// What a call needs of its lock: any; a write lock; one that may change rows (not a granted
// concurrent insert); one that keeps writers out (Check); one that keeps everyone out
// (Compact).
enum class Need { kAny, kWrite, kChange, kNoWriters, kAlone };

Status CheckLock(const HeapTableState* t, const HeapTableLock::Impl* lock, bool held, Need need) {
  if (t == nullptr) return Status::InvalidArgument("empty HeapTable handle (use HeapTable::Open)");
  if (t->owner->services()->is_closed()) return Status::Closed("the database is closed");
  if (t->dropped.load(std::memory_order_acquire)) {
    return Status::InvalidArgument(fmt::format("table '{}' was dropped", t->name));
  }
  if (!held || lock == nullptr) return Status::InvalidArgument("the table lock is not held");
  if (lock->table != t) {
    return Status::InvalidArgument(
        fmt::format("the lock is on table '{}', not '{}'", lock->table->name, t->name));
  }
  const TableLockType type = lock->ticket.type();
  if ((need == Need::kWrite || need == Need::kAlone) && !IsWriteLock(type)) {
    return Status::InvalidArgument(
        fmt::format("table '{}' was locked with a READ lock and can't be updated", t->name));
  }
  // A concurrent insert runs beside readers: it may only append (MyISAM takes it for INSERT
  // alone), never change a row a reader may be looking at.
  if (need == Need::kChange && (!IsWriteLock(type) || lock->concurrent)) {
    return Status::InvalidArgument(fmt::format(
        "table '{}': UPDATE and DELETE need a write lock that is not a concurrent insert",
        t->name));
  }
  if (need == Need::kNoWriters && !ExcludesWriters(type)) {
    return Status::InvalidArgument(
        fmt::format("table '{}': this needs READ_NO_INSERT or WRITE, not {}", t->name,
                    TableLockTypeName(type)));
  }
  if (need == Need::kAlone && !ExcludesWriters(type)) {
    return Status::InvalidArgument(
        fmt::format("table '{}': this needs WRITE, not {}", t->name, TableLockTypeName(type)));
  }
  return Status::OK();
}

}  // namespace

Status HeapTable::Create(Database* db, std::string_view name, const HeapTableSpec& spec) {
  return db->heap_tables_internal()->Create(name, spec);
}

Status HeapTable::Drop(Database* db, std::string_view name) {
  return db->heap_tables_internal()->Drop(name);
}

Result<HeapTable> HeapTable::Open(Database* db, std::string_view name) {
  ASSIGN_OR_RETURN(HeapTableState * t, db->heap_tables_internal()->Find(name));
  return HeapTable(t);
}

Result<std::vector<std::string>> HeapTable::List(Database* db) {
  return db->heap_tables_internal()->List();
}

const std::string& HeapTable::name() const {
  static const std::string kEmpty;
  return state_ != nullptr ? state_->name : kEmpty;
}

const std::vector<HeapIndexSpec>& HeapTable::indexes() const {
  static const std::vector<HeapIndexSpec> kNone;
  return state_ != nullptr ? state_->specs : kNone;
}

Result<HeapTableLock> HeapTable::Lock(Session* session, const HeapLockOptions& options) const {
  HeapTableState* t = state_;
  if (t == nullptr) return Status::InvalidArgument("empty HeapTable handle (use HeapTable::Open)");
  if (t->owner->services()->is_closed()) return Status::Closed("the database is closed");
  if (t->dropped.load(std::memory_order_acquire)) {
    return Status::InvalidArgument(fmt::format("table '{}' was dropped", t->name));
  }
  if (static_cast<uint8_t>(options.type) > static_cast<uint8_t>(HeapLockType::kWriteOnly)) {
    return Status::InvalidArgument("unknown HeapLockType");
  }
  HeapTableLock out;
  out.impl_ = std::make_unique<HeapTableLock::Impl>();
  HeapTableLock::Impl* impl = out.impl_.get();
  impl->table = t;
  impl->tables = t->owner;
  const auto type = static_cast<TableLockType>(options.type);
  const ConcurrentInsert mode = options.concurrent_insert;
  TableLockHooks hooks;
  // MyISAM's mi_check_status: refuse a concurrent insert when the file has holes, unless
  // concurrent_insert=ALWAYS and readers hold the table (then it appends).
  hooks.allow_concurrent_insert = [t, mode](bool readers_hold) {
    if (mode == ConcurrentInsert::kNever) return false;
    if (t->holes.load(std::memory_order_acquire) == 0) return true;
    return mode == ConcurrentInsert::kAlways && readers_hold;
  };
  // MyISAM's get_status: a reader takes the end of file at grant, under the table lock's
  // latch, so that no concurrent insert granted later comes before it. Beside appenders it
  // takes the end of their complete rows (HeapTableState::complete_end).
  const bool read = !IsWriteLock(type);
  hooks.on_grant = [impl, t, read](bool concurrent_insert) {
    impl->concurrent = concurrent_insert;
    if (concurrent_insert && t->appenders.fetch_add(1, std::memory_order_acq_rel) == 0) {
      // The first appender: no append is under way, so the heap's end is complete.
      auto end = t->heap->End();
      LatchGuard guard(t->end_latch);
      t->complete_end_status = end.ok() ? Status::OK() : end.status();
      if (end.ok()) t->complete_end = *end;
    }
    if (read) {
      impl->reader = true;
      if (t->appenders.load(std::memory_order_acquire) > 0) {
        LatchGuard guard(t->end_latch);
        impl->end = t->complete_end;
        impl->end_status = t->complete_end_status;
        return;
      }
      auto end = t->heap->End();
      if (end.ok()) {
        impl->end = *end;
      } else {
        impl->end_status = end.status();
      }
    }
  };
  const std::chrono::milliseconds timeout =
      options.timeout.count() != 0 ? options.timeout : t->owner->lock_wait_timeout();
  ASSIGN_OR_RETURN(impl->ticket,
                   t->lock->Lock(session->table_lock_owner_internal(), type, timeout, hooks));
  if (t->dropped.load(std::memory_order_acquire)) {
    (void)out.Release();  // nothing was written under it
    return Status::InvalidArgument(fmt::format("table '{}' was dropped", t->name));
  }
  if (!impl->end_status.ok()) {
    Status st = impl->end_status;
    (void)out.Release();  // nothing was written under it
    return st;
  }
  return out;
}

Result<bool> HeapTable::has_holes() const {
  if (state_ == nullptr) return Status::InvalidArgument("empty HeapTable handle");
  return state_->holes.load(std::memory_order_acquire) > 0;
}

namespace {

void RefreshHoles(HeapTableState* t) {
  auto st = t->heap->stats();
  if (st.ok()) t->holes.store(st->holes, std::memory_order_release);
}

// After an append under a concurrent insert, its row complete (or undone): readers granted
// from now on may see every row up to the heap's end. REQUIRES: t->write_latch held, so that
// no other append is half done and the published end only moves forward.
void PublishCompleteEnd(HeapTableState* t) {
  auto end = t->heap->End();
  LatchGuard guard(t->end_latch);
  if (end.ok()) {
    t->complete_end = *end;
  } else {
    t->complete_end_status = end.status();
  }
}

}  // namespace

Result<HeapRowId> HeapTable::Insert(const HeapTableLock& lock, std::string_view row,
                                    const std::vector<std::string>& keys,
                                    const std::function<Status()>& check_first) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kWrite));
  std::string rec;
  RETURN_IF_ERROR(EncodeRecord(row, keys, t->indexes.size(), &rec));
  RETURN_IF_ERROR(t->owner->BeforeWrite());
  RowPosition pos;
  {
    LatchGuard guard(t->write_latch);
    if (check_first) RETURN_IF_ERROR(check_first());
    for (const HeapIndexState& i : t->indexes) {
      if (i.spec.unique) RETURN_IF_ERROR(CheckUnique(i, keys[&i - t->indexes.data()], {}));
    }
    const bool concurrent = lock.impl_->concurrent;
    const InsertMode mode = concurrent ? InsertMode::kAppend : InsertMode::kFillHoles;
    HeapAfterInsert after;
    ASSIGN_OR_RETURN(pos, t->heap->Insert(AsBytes(rec), mode, &after));
    for (size_t i = 0; i < t->indexes.size(); ++i) {
      // Reached only by heap table workloads (the heap table crash tests arm it), so it is not
      // in CrashPointNames(), whose every name the keyspace crash workload must reach.
      MINNOW_CRASH_POINT("heap_table.insert.index");
      Status st = InsertEntry(t->indexes[i], keys[i], pos);
      if (!st.ok()) {
        for (size_t j = 0; j < i; ++j) (void)RemoveEntry(t->indexes[j], keys[j], pos);
        (void)t->heap->Delete(pos);
        RefreshHoles(t);
        if (concurrent) PublishCompleteEnd(t);
        return st;
      }
    }
    // What the heap insert left, without reading its header and last page back.
    t->holes.store(after.holes, std::memory_order_release);
    if (concurrent) {
      MINNOW_DCHECK(after.appended, "a concurrent insert appends");
      LatchGuard end_guard(t->end_latch);
      t->complete_end = after.end;
    }
  }
  lock.impl_->unflushed = t->owner->WrittenLsn();
  return ToId(pos);
}

Status HeapTable::ReadRecord(const HeapTableLock& lock, HeapRowId id, std::string* rec,
                             std::vector<std::string_view>* keys, std::string_view* row) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kAny));
  if (!id.valid()) return Status::NotFound("no row at an invalid position");
  const HeapEnd* bound = lock.impl_->reader ? &lock.impl_->end : nullptr;
  RETURN_IF_ERROR(t->heap->Get(ToPos(id), rec, bound));
  return DecodeRecord(*rec, t->indexes.size(), keys, row);
}

Status HeapTable::Get(const HeapTableLock& lock, HeapRowId id, std::string* row) const {
  std::string rec;
  std::vector<std::string_view> keys;
  std::string_view r;
  RETURN_IF_ERROR(ReadRecord(lock, id, &rec, &keys, &r));
  row->assign(r);
  return Status::OK();
}

Result<std::vector<std::string>> HeapTable::GetKeys(const HeapTableLock& lock, HeapRowId id) const {
  std::string rec;
  std::vector<std::string_view> keys;
  std::string_view r;
  RETURN_IF_ERROR(ReadRecord(lock, id, &rec, &keys, &r));
  return std::vector<std::string>(keys.begin(), keys.end());
}

struct HeapTableScan::Impl {
  const HeapTableLock::Impl* lock = nullptr;
  size_t n_indexes = 0;
  std::unique_ptr<HeapScan> scan;
  std::string rec;
};

HeapTableScan::HeapTableScan(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HeapTableScan::~HeapTableScan() = default;

Result<bool> HeapTableScan::Next(HeapRowId* id, std::string* row) {
  if (!impl_->lock->ticket.held()) return Status::InvalidArgument("the table lock is not held");
  if (impl_->lock->table->owner->services()->is_closed()) {
    return Status::Closed("the database is closed");
  }
  RowPosition pos;
  ASSIGN_OR_RETURN(bool more, impl_->scan->Next(&pos, &impl_->rec));
  if (!more) return false;
  std::vector<std::string_view> keys;
  std::string_view r;
  RETURN_IF_ERROR(DecodeRecord(impl_->rec, impl_->n_indexes, &keys, &r));
  *id = ToId(pos);
  row->assign(r);
  return true;
}

Result<std::unique_ptr<HeapTableScan>> HeapTable::Scan(const HeapTableLock& lock) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kAny));
  auto impl = std::make_unique<HeapTableScan::Impl>();
  impl->lock = lock.impl_.get();
  impl->n_indexes = t->indexes.size();
  if (lock.impl_->reader) {
    ASSIGN_OR_RETURN(impl->scan, t->heap->NewScan(lock.impl_->end));
  } else {
    ASSIGN_OR_RETURN(impl->scan, t->heap->NewScan());
  }
  return std::unique_ptr<HeapTableScan>(new HeapTableScan(std::move(impl)));
}

namespace {

// Index `index` of `t`, once `lock` is checked to be held on it.
Result<const HeapIndexState*> LockedIndex(const HeapTableState* t, const HeapTableLock::Impl* lock,
                                          bool held, size_t index) {
  RETURN_IF_ERROR(CheckLock(t, lock, held, Need::kAny));
  if (index >= t->indexes.size()) {
    return Status::InvalidArgument(fmt::format("table '{}' has no index {}", t->name, index));
  }
  return &t->indexes[index];
}

// The cursor's entry taken apart: a unique index keeps the position as the value, a
// non-unique one at the end of the key.
Result<KeyWithPosition> EntryAt(const HeapIndexState& idx, Cursor& cur) {
  if (!idx.spec.unique) return SplitRowPositionSuffix(cur.key());
  ASSIGN_OR_RETURN(ConstBytes v, cur.value());
  ASSIGN_OR_RETURN(RowPosition pos, DecodeRowPosition(v));
  return KeyWithPosition{cur.key(), pos};
}

}  // namespace

Result<std::vector<HeapRowId>> HeapTable::Lookup(const HeapTableLock& lock, size_t index,
                                                 std::string_view key) const {
  ASSIGN_OR_RETURN(const HeapIndexState* found_index,
                   LockedIndex(state_, lock.impl_.get(), lock.held(), index));
  const HeapIndexState& idx = *found_index;
  std::vector<HeapRowId> out;
  if (idx.spec.unique) {
    std::string value;
    ASSIGN_OR_RETURN(bool found, idx.tree->Get(AsBytes(key), &value));
    if (found) {
      ASSIGN_OR_RETURN(RowPosition pos, DecodeRowPosition(AsBytes(value)));
      out.push_back(ToId(pos));
    }
    return out;
  }
  auto cur = idx.tree->NewCursor();
  RETURN_IF_ERROR(cur->Seek(AsBytes(key)));
  // Entries key || position; others that start with `key` (longer keys) may lie between.
  for (; cur->Valid();) {
    std::string_view k = AsStringView(cur->key());
    if (k.substr(0, key.size()) != key) break;
    if (k.size() == key.size() + kRowPositionSize) {
      ASSIGN_OR_RETURN(KeyWithPosition kp, SplitRowPositionSuffix(cur->key()));
      out.push_back(ToId(kp.pos));
    }
    RETURN_IF_ERROR(cur->Next());
  }
  return out;
}

Result<std::vector<HeapRowId>> HeapTable::Range(const HeapTableLock& lock, size_t index,
                                                std::string_view lo, std::string_view hi,
                                                size_t limit) const {
  ASSIGN_OR_RETURN(const HeapIndexState* idx,
                   LockedIndex(state_, lock.impl_.get(), lock.held(), index));
  std::vector<HeapRowId> out;
  auto cur = idx->tree->NewCursor();
  RETURN_IF_ERROR(cur->Seek(AsBytes(lo)));
  for (; cur->Valid() && out.size() < limit;) {
    ASSIGN_OR_RETURN(KeyWithPosition e, EntryAt(*idx, *cur));
    const std::string_view k = AsStringView(e.key);
    if (!hi.empty() && k >= hi) break;
    // A key below lo here is a prefix of lo whose position suffix sorts after it: skipped.
    if (k >= lo) out.push_back(ToId(e.pos));
    RETURN_IF_ERROR(cur->Next());
  }
  return out;
}

Result<std::vector<HeapRowId>> HeapTable::RangeDescending(const HeapTableLock& lock, size_t index,
                                                          std::string_view lo, std::string_view hi,
                                                          size_t limit) const {
  ASSIGN_OR_RETURN(const HeapIndexState* idx,
                   LockedIndex(state_, lock.impl_.get(), lock.held(), index));
  std::vector<HeapRowId> out;
  auto cur = idx->tree->NewCursor();
  // A non-unique entry is key || position, so entries whose key is hi sort after hi itself:
  // the last entry <= hi is below them (a unique one equal to hi is skipped below).
  RETURN_IF_ERROR(hi.empty() ? cur->SeekToLast() : cur->SeekForPrev(AsBytes(hi)));
  for (; cur->Valid() && out.size() < limit;) {
    // An entry below lo holds a key below lo (key <= key || position): so do all before it.
    if (AsStringView(cur->key()) < lo) break;
    ASSIGN_OR_RETURN(KeyWithPosition e, EntryAt(*idx, *cur));
    const std::string_view k = AsStringView(e.key);
    // As in Range: a key below lo here is a prefix of lo whose position suffix sorts after it.
    if ((hi.empty() || k < hi) && k >= lo) out.push_back(ToId(e.pos));
    RETURN_IF_ERROR(cur->Prev());
  }
  return out;
}

Result<HeapRowId> HeapTable::Update(const HeapTableLock& lock, HeapRowId id, std::string_view row,
                                    const std::vector<std::string>& keys) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kChange));
  std::string rec;
  RETURN_IF_ERROR(EncodeRecord(row, keys, t->indexes.size(), &rec));
  if (!id.valid()) return Status::NotFound("no row at an invalid position");
  RETURN_IF_ERROR(t->owner->BeforeWrite());
  const RowPosition pos = ToPos(id);
  RowPosition moved;
  {
    LatchGuard guard(t->write_latch);
    std::string old_rec;
    RETURN_IF_ERROR(t->heap->Get(pos, &old_rec));
    std::vector<std::string_view> old_keys;
    std::string_view old_row;
    RETURN_IF_ERROR(DecodeRecord(old_rec, t->indexes.size(), &old_keys, &old_row));
    for (size_t i = 0; i < t->indexes.size(); ++i) {
      if (t->indexes[i].spec.unique && old_keys[i] != keys[i]) {
        RETURN_IF_ERROR(CheckUnique(t->indexes[i], keys[i], pos));
      }
    }
    const InsertMode mode = lock.impl_->concurrent ? InsertMode::kAppend : InsertMode::kFillHoles;
    ASSIGN_OR_RETURN(moved, t->heap->Update(pos, AsBytes(rec), mode));
    for (size_t i = 0; i < t->indexes.size(); ++i) {
      if (old_keys[i] == keys[i] && moved == pos) continue;
      RETURN_IF_ERROR(RemoveEntry(t->indexes[i], old_keys[i], pos));
      MINNOW_CRASH_POINT("heap_table.update.index");  // as heap_table.insert.index
      RETURN_IF_ERROR(InsertEntry(t->indexes[i], keys[i], moved));
    }
    RefreshHoles(t);
  }
  lock.impl_->unflushed = t->owner->WrittenLsn();
  return ToId(moved);
}

Status HeapTable::Delete(const HeapTableLock& lock, HeapRowId id) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kChange));
  if (!id.valid()) return Status::NotFound("no row at an invalid position");
  RETURN_IF_ERROR(t->owner->BeforeWrite());
  const RowPosition pos = ToPos(id);
  {
    LatchGuard guard(t->write_latch);
    std::string rec;
    RETURN_IF_ERROR(t->heap->Get(pos, &rec));
    std::vector<std::string_view> keys;
    std::string_view row;
    RETURN_IF_ERROR(DecodeRecord(rec, t->indexes.size(), &keys, &row));
    // Index entries first: a crash in between leaves a row without entries, which repair at
    // open mends (never an entry pointing at a hole another row may take).
    for (size_t i = 0; i < t->indexes.size(); ++i) {
      RETURN_IF_ERROR(RemoveEntry(t->indexes[i], keys[i], pos));
    }
    RETURN_IF_ERROR(t->heap->Delete(pos));
    RefreshHoles(t);
  }
  lock.impl_->unflushed = t->owner->WrittenLsn();
  return Status::OK();
}

Result<HeapTableStats> HeapTable::stats() const {
  HeapTableState* t = state_;
  if (t == nullptr) return Status::InvalidArgument("empty HeapTable handle (use HeapTable::Open)");
  if (t->owner->services()->is_closed()) return Status::Closed("the database is closed");
  // No table lock: the write latch keeps writers (between two row operations), Compact's swap
  // and Drop's freeing out while the heap's header and the index trees are read.
  LatchGuard guard(t->write_latch);
  if (t->dropped.load(std::memory_order_acquire)) {
    return Status::InvalidArgument(fmt::format("table '{}' was dropped", t->name));
  }
  ASSIGN_OR_RETURN(HeapStats h, t->heap->stats());
  HeapTableStats s;
  // Data pages are numbered 1 .. kInvalidPageNo - 1 (page 0 describes the file), each holding
  // at most kMaxHeapRowSize bytes of rows.
  s.max_data_length = (uint64_t{kInvalidPageNo} - 1) * kMaxHeapRowSize;
  s.rows = h.rows;
  s.data_length = h.data_length();
  s.data_free = h.data_free;
  s.holes = h.holes;
  s.data_pages = h.pages;
  for (const HeapIndexState& i : t->indexes) {
    ASSIGN_OR_RETURN(CheckReport r, i.tree->Check());
    s.index_length += (r.leaf_pages + r.node_pages + r.overflow_pages) * kPageSize;
  }
  return s;
}

Status HeapTable::Compact(const HeapTableLock& lock) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kAlone));
  RETURN_IF_ERROR(t->owner->BeforeWrite());
  HeapTables* tables = t->owner;
  ASSIGN_OR_RETURN(std::vector<HeapIndexState> fresh, NewIndexTrees(tables->pool(), t->specs));
  auto on_move = [&](RowPosition, RowPosition to, std::string_view rec) -> Status {
    MINNOW_CRASH_POINT("heap_table.compact.move");  // as heap_table.insert.index
    return AddEntries(&fresh, rec, to);
  };
  // All that can fail comes before the catalog record names the new heap and trees (one
  // mini-transaction); after it only the old pages are freed, and a failure there leaks them.
  std::unique_ptr<RowHeap> heap;
  auto publish = [&](PageNo new_header) -> Status {
    ASSIGN_OR_RETURN(heap, RowHeap::Open(tables->pool(), new_header));
    std::vector<PageNo> roots;
    for (const HeapIndexState& i : fresh) roots.push_back(i.tree->root());
    return tables->PersistRaw(t->name, EncodeEntry(new_header, t->specs, roots));
  };
  LatchGuard guard(t->write_latch);
  Status st = RowHeap::Compact(t->heap.get(), on_move, publish).status();
  if (!st.ok()) {
    for (HeapIndexState& i : fresh) (void)i.tree->Drop();  // unpublished: only leaks on failure
    return st;
  }
  t->heap = std::move(heap);
  std::vector<HeapIndexState> old = std::exchange(t->indexes, std::move(fresh));
  MINNOW_CRASH_POINT("heap_table.compact.published");
  for (HeapIndexState& i : old) (void)i.tree->Drop();  // a failure only leaks pages
  RefreshHoles(t);
  return tables->AfterWrite();
}

Status HeapTable::Check(const HeapTableLock& lock) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kNoWriters));
  return t->owner->CrossCheck(t, nullptr);
}

}  // namespace minnow
