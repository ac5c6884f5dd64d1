// The table-locking engine's tables: the heap catalog, DDL, crash repair (HeapTables) and the
// public handles of minnow/table_lock_engine.h. Formats and crash ordering are in
// engine/heap_table_internal.h.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "btree/cursor.h"
#include "buffer_pool/file_header.h"
#include "buffer_pool/mtr.h"
#include "common/crash_point.h"
#include "engine/catalog_internal.h"
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

namespace {

constexpr uint8_t kHeapEntryVersion = 1;
constexpr size_t kMaxIndexNameLength = 64;
constexpr size_t kMaxHeapKeyBytes = kMaxKeySize - kRowPositionSize;

RowPosition ToPos(HeapRowId id) { return RowPosition{id.page, id.slot}; }
HeapRowId ToId(RowPosition p) { return HeapRowId{p.page, p.slot}; }

// The catalog record's value.
std::string EncodeEntry(PageNo heap_header, const std::vector<HeapIndexSpec>& specs,
                        const std::vector<PageNo>& roots) {
  std::string v;
  v.push_back(static_cast<char>(kHeapEntryVersion));
  std::array<std::byte, 4> b;
  Store32(b.data(), heap_header);
  v.append(reinterpret_cast<const char*>(b.data()), 4);
  v.push_back(static_cast<char>(specs.size()));
  for (size_t i = 0; i < specs.size(); ++i) {
    Store32(b.data(), roots[i]);
    v.append(reinterpret_cast<const char*>(b.data()), 4);
    v.push_back(specs[i].unique ? 1 : 0);
    v.push_back(static_cast<char>(specs[i].name.size()));
    v.append(specs[i].name);
  }
  return v;
}

struct DecodedEntry {
  PageNo heap_header = kInvalidPageNo;
  std::vector<HeapIndexSpec> specs;
  std::vector<PageNo> roots;
};

Result<DecodedEntry> DecodeEntry(std::string_view name, ConstBytes value) {
  std::string_view v = AsStringView(value);
  auto bad = [&] {
    return Status::Corruption(fmt::format("heap catalog entry of table '{}' is malformed", name));
  };
  if (v.size() < 6 || static_cast<uint8_t>(v[0]) != kHeapEntryVersion) return bad();
  DecodedEntry e;
  e.heap_header = Load32(reinterpret_cast<const std::byte*>(v.data() + 1));
  const size_t n = static_cast<uint8_t>(v[5]);
  if (n > kMaxHeapIndexes || e.heap_header == 0 || e.heap_header == kInvalidPageNo) return bad();
  size_t off = 6;
  for (size_t i = 0; i < n; ++i) {
    if (off + 6 > v.size()) return bad();
    const PageNo root = Load32(reinterpret_cast<const std::byte*>(v.data() + off));
    const uint8_t unique = static_cast<uint8_t>(v[off + 4]);
    const size_t len = static_cast<uint8_t>(v[off + 5]);
    off += 6;
    if (off + len > v.size() || len == 0 || unique > 1 || root == 0 || root == kInvalidPageNo) {
      return bad();
    }
    e.specs.push_back(HeapIndexSpec{std::string(v.substr(off, len)), unique == 1});
    e.roots.push_back(root);
    off += len;
  }
  if (off != v.size()) return bad();
  return e;
}

Status ValidateSpec(const HeapTableSpec& spec) {
  if (spec.indexes.size() > kMaxHeapIndexes) {
    return Status::InvalidArgument(
        fmt::format("{} indexes; at most {}", spec.indexes.size(), kMaxHeapIndexes));
  }
  for (size_t i = 0; i < spec.indexes.size(); ++i) {
    const std::string& n = spec.indexes[i].name;
    if (n.empty() || n.size() > kMaxIndexNameLength) {
      return Status::InvalidArgument(
          fmt::format("index {} has a name of {} characters; 1 to {} allowed", i, n.size(),
                      kMaxIndexNameLength));
    }
    for (size_t j = 0; j < i; ++j) {
      if (spec.indexes[j].name == n) {
        return Status::InvalidArgument(fmt::format("two indexes are named '{}'", n));
      }
    }
  }
  return Status::OK();
}

// A stored heap record: the index keys, then the row.
Status EncodeRecord(std::string_view row, const std::vector<std::string>& keys, size_t n,
                    std::string* out) {
  if (keys.size() != n) {
    return Status::InvalidArgument(
        fmt::format("{} index keys given; the table has {} indexes", keys.size(), n));
  }
  out->clear();
  for (size_t i = 0; i < n; ++i) {
    if (keys[i].size() > kMaxHeapKeyBytes) {
      return Status::InvalidArgument(fmt::format("key of index {} is {} bytes; at most {}", i,
                                                 keys[i].size(), kMaxHeapKeyBytes));
    }
    std::array<std::byte, 2> b;
    Store16(b.data(), static_cast<uint16_t>(keys[i].size()));
    out->append(reinterpret_cast<const char*>(b.data()), 2);
    out->append(keys[i]);
  }
  out->append(row);
  if (out->size() > kMaxHeapRowSize) {
    return Status::InvalidArgument(
        fmt::format("row of {} bytes with its keys ({} stored); at most {}", row.size(),
                    out->size(), kMaxHeapRowSize));
  }
  return Status::OK();
}

Status DecodeRecord(std::string_view rec, size_t n, std::vector<std::string_view>* keys,
                    std::string_view* row) {
  keys->clear();
  size_t off = 0;
  for (size_t i = 0; i < n; ++i) {
    if (off + 2 > rec.size()) return Status::Corruption("heap row too short for its keys");
    const size_t len = Load16(reinterpret_cast<const std::byte*>(rec.data() + off));
    off += 2;
    if (off + len > rec.size()) return Status::Corruption("heap row too short for its keys");
    keys->push_back(rec.substr(off, len));
    off += len;
  }
  *row = rec.substr(off);
  return Status::OK();
}

// The index record of (key, pos).
struct IndexRecord {
  std::string key;
  std::string value;
};

IndexRecord MakeIndexRecord(const HeapIndexState& idx, std::string_view key, RowPosition pos) {
  IndexRecord r;
  r.key = std::string(key);
  if (idx.spec.unique) {
    r.value = EncodeRowPosition(pos);
  } else {
    AppendRowPositionSuffix(&r.key, pos);
  }
  return r;
}

Status InsertEntry(const HeapIndexState& idx, std::string_view key, RowPosition pos) {
  IndexRecord r = MakeIndexRecord(idx, key, pos);
  Status st = idx.tree->Insert(AsBytes(r.key), AsBytes(r.value));
  if (st.code() == Code::kDuplicateKey) {
    return Status::DuplicateKey(fmt::format("duplicate entry for key '{}'", idx.spec.name));
  }
  return st;
}

Status RemoveEntry(const HeapIndexState& idx, std::string_view key, RowPosition pos) {
  IndexRecord r = MakeIndexRecord(idx, key, pos);
  return idx.tree->Remove(AsBytes(r.key));
}

// kDuplicateKey if a unique index holds `key` for a row other than `self`.
Status CheckUnique(const HeapIndexState& idx, std::string_view key, RowPosition self) {
  std::string value;
  ASSIGN_OR_RETURN(bool found, idx.tree->Get(AsBytes(key), &value));
  if (!found) return Status::OK();
  ASSIGN_OR_RETURN(RowPosition pos, DecodeRowPosition(AsBytes(value)));
  if (pos == self) return Status::OK();
  return Status::DuplicateKey(fmt::format("duplicate entry for key '{}'", idx.spec.name));
}

bool IsExclusive(TableLockType t) {
  return t == TableLockType::kReadNoInsert || t == TableLockType::kWriteLowPriority ||
         t == TableLockType::kWrite || t == TableLockType::kWriteOnly;
}

}  // namespace

// ---- HeapTableLock ----

struct HeapTableLock::Impl {
  HeapTableState* table = nullptr;
  TableLockTicket ticket;
  bool reader = false;      // counted in table->readers
  bool concurrent = false;  // a granted concurrent insert
  Status end_status;        // End() at grant, for readers
  HeapEnd end;

  void Release() {
    if (!ticket.held()) return;
    if (reader) {
      table->readers.fetch_sub(1, std::memory_order_acq_rel);
      reader = false;
    }
    ticket.Release();
  }
};

HeapTableLock::HeapTableLock() = default;
HeapTableLock::HeapTableLock(HeapTableLock&&) noexcept = default;
HeapTableLock& HeapTableLock::operator=(HeapTableLock&& other) noexcept {
  if (this != &other) {
    Release();
    impl_ = std::move(other.impl_);
  }
  return *this;
}
HeapTableLock::~HeapTableLock() { Release(); }
bool HeapTableLock::held() const { return impl_ != nullptr && impl_->ticket.held(); }
HeapLockType HeapTableLock::type() const {
  return held() ? static_cast<HeapLockType>(impl_->ticket.type()) : HeapLockType::kRead;
}
bool HeapTableLock::concurrent_insert() const { return held() && impl_->concurrent; }
void HeapTableLock::Release() {
  if (impl_ != nullptr) impl_->Release();
}

// ---- HeapTables ----

HeapTables::~HeapTables() = default;

Result<std::unique_ptr<HeapTables>> HeapTables::Open(BufferPool* pool, TxnServices* svc,
                                                     std::chrono::milliseconds timeout) {
  std::unique_ptr<HeapTables> t(new HeapTables(pool, svc, timeout));
  LatchGuard guard(t->latch_);
  const PageNo root = pool->system_root(kHeapCatalogRootSlot);
  if (root == kInvalidPageNo) return t;  // no heap table yet: the catalog comes with the first
  auto tree = BTree::Open(pool, root);
  if (!tree.ok() || (*tree)->options().sys_fields) {
    return Status::Corruption(
        fmt::format("page {} of {} is not the heap table catalog: {}", root, pool->file_name(),
                    tree.ok() ? "it has hidden fields" : tree.status().message()));
  }
  t->catalog_ = std::move(*tree);
  auto cur = t->catalog_->NewCursor();
  RETURN_IF_ERROR(cur->SeekToFirst());
  while (cur->Valid()) {
    std::string name(AsStringView(cur->key()));
    if (!ValidateKeyspaceName(name).ok()) {
      return Status::Corruption("heap catalog holds an invalid table name");
    }
    ASSIGN_OR_RETURN(ConstBytes value, cur->value());
    ASSIGN_OR_RETURN(DecodedEntry e, DecodeEntry(name, value));
    auto heap = RowHeap::Open(pool, e.heap_header);
    if (!heap.ok()) {
      return Status(heap.status().code(), fmt::format("heap table '{}' (header page {}): {}", name,
                                                      e.heap_header, heap.status().message()));
    }
    std::vector<HeapIndexState> indexes;
    for (size_t i = 0; i < e.specs.size(); ++i) {
      auto itree = BTree::Open(pool, e.roots[i]);
      if (!itree.ok() || (*itree)->options().sys_fields) {
        return Status::Corruption(
            fmt::format("heap table '{}': index '{}' (root page {}) is not "
                        "an index tree",
                        name, e.specs[i].name, e.roots[i]));
      }
      indexes.push_back(HeapIndexState{e.specs[i], std::move(*itree)});
    }
    t->AddState(std::move(name), std::move(*heap), std::move(indexes));
    RETURN_IF_ERROR(cur->Next());
  }
  return t;
}

HeapTableState* HeapTables::AddState(std::string name, std::unique_ptr<RowHeap> heap,
                                     std::vector<HeapIndexState> indexes) {
  auto s = std::make_unique<HeapTableState>();
  s->name = std::move(name);
  s->owner = this;
  s->lock = std::make_unique<TableLock>(s->name, &globals_);
  s->heap = std::move(heap);
  for (const HeapIndexState& i : indexes) s->specs.push_back(i.spec);
  s->indexes = std::move(indexes);
  auto st = s->heap->stats();
  s->holes.store(st.ok() ? st->holes : 0);
  HeapTableState* p = s.get();
  all_.push_back(std::move(s));
  by_name_.emplace(p->name, p);
  return p;
}

Status HeapTables::BeforeWrite() const {
  if (svc_->is_closed()) return Status::Closed("the database is closed");
  RETURN_IF_ERROR(svc_->WritableStatus());
  return svc_->LogFreeCheck();
}

Status HeapTables::AfterWrite() const {
  DurableRedoLog* log = svc_->log;
  if (log == nullptr) return Status::OK();
  return log->CommitUpTo(log->current_lsn(), svc_->flush_policy);
}

Status HeapTables::Create(std::string_view name, const HeapTableSpec& spec) {
  RETURN_IF_ERROR(ValidateKeyspaceName(name));
  RETURN_IF_ERROR(ValidateSpec(spec));
  RETURN_IF_ERROR(BeforeWrite());
  LatchGuard guard(latch_);
  if (by_name_.count(name) != 0) {
    return Status::DuplicateKey(fmt::format("table '{}' already exists", name));
  }
  if (catalog_ == nullptr) {
    // The first heap table of the file: the catalog tree, then page 0 names it (a crash in
    // between leaks the tree's page).
    ASSIGN_OR_RETURN(PageNo root, BTree::Create(pool_, TreeOptions{}));
    MiniTransaction mtr(pool_);
    RETURN_IF_ERROR(pool_->SetSystemRoot(&mtr, kHeapCatalogRootSlot, root));
    mtr.Commit();
    ASSIGN_OR_RETURN(catalog_, BTree::Open(pool_, root));
  }
  // The pages first, the catalog record last: a crash in between leaks them, nothing else.
  std::vector<PageNo> made;  // index roots
  std::unique_ptr<RowHeap> heap;
  std::vector<HeapIndexState> indexes;
  auto undo = [&]() {
    for (HeapIndexState& i : indexes) (void)i.tree->Drop();
    if (heap != nullptr) (void)heap->Drop();
  };
  Status st;
  auto header = RowHeap::Create(pool_);
  if (!header.ok()) return header.status();
  auto opened = RowHeap::Open(pool_, *header);
  if (!opened.ok()) return opened.status();
  heap = std::move(*opened);
  for (const HeapIndexSpec& s : spec.indexes) {
    auto root = BTree::Create(pool_, TreeOptions{});
    auto tree =
        root.ok() ? BTree::Open(pool_, *root) : Result<std::unique_ptr<BTree>>(root.status());
    if (!tree.ok()) {
      undo();
      return tree.status();
    }
    made.push_back(*root);
    indexes.push_back(HeapIndexState{s, std::move(*tree)});
  }
  const std::string value = EncodeEntry(*header, spec.indexes, made);
  st = catalog_->Insert(AsBytes(name), AsBytes(value));
  if (!st.ok()) {
    undo();
    return st;
  }
  AddState(std::string(name), std::move(heap), std::move(indexes));
  return AfterWrite();
}

Status HeapTables::Drop(std::string_view name) {
  RETURN_IF_ERROR(BeforeWrite());
  ASSIGN_OR_RETURN(HeapTableState * t, Find(name));
  TableLockOwner dropper(0);
  ASSIGN_OR_RETURN(TableLockTicket ticket,
                   t->lock->Lock(&dropper, TableLockType::kWrite, lock_wait_timeout_));
  {
    LatchGuard guard(latch_);
    auto it = by_name_.find(name);
    if (it == by_name_.end() || it->second != t) {
      return Status::NotFound(fmt::format("table '{}' does not exist", name));
    }
    RETURN_IF_ERROR(catalog_->Remove(AsBytes(name)));
    by_name_.erase(it);
    t->dropped.store(true, std::memory_order_release);
  }
  // The name is gone; a failure below only leaks pages.
  Status st;
  for (HeapIndexState& i : t->indexes) {
    Status s = i.tree->Drop();
    if (st.ok()) st = s;
  }
  Status s = t->heap->Drop();
  if (st.ok()) st = s;
  ticket.Release();
  s = AfterWrite();
  return st.ok() ? s : st;
}

Result<HeapTableState*> HeapTables::Find(std::string_view name) {
  if (svc_->is_closed()) return Status::Closed("the database is closed");
  LatchGuard guard(latch_);
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return Status::NotFound(fmt::format("table '{}' does not exist", name));
  return it->second;
}

Result<std::vector<std::string>> HeapTables::List() {
  if (svc_->is_closed()) return Status::Closed("the database is closed");
  LatchGuard guard(latch_);
  std::vector<std::string> names;
  for (const auto& [n, t] : by_name_) names.push_back(n);
  return names;
}

Status HeapTables::Persist(HeapTableState* t) {
  std::vector<PageNo> roots;
  for (const HeapIndexState& i : t->indexes) roots.push_back(i.tree->root());
  return PersistRaw(t->name, EncodeEntry(t->heap->header_page(), t->specs, roots));
}

Status HeapTables::PersistRaw(std::string_view name, std::string_view value) {
  LatchGuard guard(latch_);
  return catalog_->Upsert(AsBytes(name), AsBytes(value));
}

namespace {

// New, empty index trees for `specs`; on failure none are left.
Result<std::vector<HeapIndexState>> NewIndexTrees(BufferPool* pool,
                                                  const std::vector<HeapIndexSpec>& specs) {
  std::vector<HeapIndexState> out;
  for (const HeapIndexSpec& s : specs) {
    auto root = BTree::Create(pool, TreeOptions{});
    auto tree =
        root.ok() ? BTree::Open(pool, *root) : Result<std::unique_ptr<BTree>>(root.status());
    if (!tree.ok()) {
      for (HeapIndexState& i : out) (void)i.tree->Drop();
      return tree.status();
    }
    out.push_back(HeapIndexState{s, std::move(*tree)});
  }
  return out;
}

// Adds the entries of the row stored at `rec` (read from `heap` at `from`) as at `to`.
Status AddEntries(std::vector<HeapIndexState>* indexes, std::string_view rec, RowPosition to) {
  std::vector<std::string_view> keys;
  std::string_view row;
  RETURN_IF_ERROR(DecodeRecord(rec, indexes->size(), &keys, &row));
  for (size_t i = 0; i < indexes->size(); ++i) {
    RETURN_IF_ERROR(InsertEntry((*indexes)[i], keys[i], to));
  }
  return Status::OK();
}

}  // namespace

Status HeapTables::RebuildIndexes(HeapTableState* t) {
  ASSIGN_OR_RETURN(std::vector<HeapIndexState> fresh, NewIndexTrees(pool_, t->specs));
  auto fail = [&](Status st) {
    for (HeapIndexState& i : fresh) (void)i.tree->Drop();
    return st;
  };
  auto scan = t->heap->NewScan();
  if (!scan.ok()) return fail(scan.status());
  RowPosition pos;
  std::string rec;
  for (;;) {
    auto more = (*scan)->Next(&pos, &rec);
    if (!more.ok()) return fail(more.status());
    if (!*more) break;
    Status st = AddEntries(&fresh, rec, pos);
    if (!st.ok()) return fail(st);
  }
  // Publish: the catalog names the new trees (one mini-transaction), then the old ones go.
  std::vector<HeapIndexState> old = std::move(t->indexes);
  t->indexes = std::move(fresh);
  Status st = Persist(t);
  if (!st.ok()) {
    fresh = std::move(t->indexes);
    t->indexes = std::move(old);
    return fail(st);
  }
  for (HeapIndexState& i : old) (void)i.tree->Drop();  // a failure only leaks pages
  return Status::OK();
}

Status HeapTables::CrossCheck(HeapTableState* t, std::vector<KeyspaceCheck>* reports) {
  auto where = [&](const Status& st) {
    return Status(st.code(), fmt::format("heap table '{}': {}", t->name, st.message()));
  };
  auto heap_report = t->heap->Check();
  if (!heap_report.ok()) return where(heap_report.status());
  const uint64_t rows = heap_report->stats.rows;
  if (reports != nullptr) {
    KeyspaceCheck k;
    k.name = t->name;
    k.records = rows;
    k.leaf_pages = heap_report->stats.pages;
    k.height = 1;
    reports->push_back(std::move(k));
  }
  for (const HeapIndexState& i : t->indexes) {
    auto r = i.tree->Check();
    if (!r.ok()) {
      return where(Status(r.status().code(),
                          fmt::format("index '{}': {}", i.spec.name, r.status().message())));
    }
    if (r->records != rows) {
      return where(Status::Corruption(
          fmt::format("index '{}' has {} entries for {} rows", i.spec.name, r->records, rows)));
    }
    if (reports != nullptr) {
      KeyspaceCheck k;
      k.name = t->name + "." + i.spec.name;
      k.records = r->records;
      k.delete_marked = r->delete_marked;
      k.leaf_pages = r->leaf_pages;
      k.node_pages = r->node_pages;
      k.overflow_pages = r->overflow_pages;
      k.height = r->height;
      k.avg_leaf_fill = r->avg_leaf_fill;
      reports->push_back(std::move(k));
    }
  }
  // Every row's entry is in every index, pointing at it; with the counts equal, the indexes
  // hold exactly the rows' entries.
  ASSIGN_OR_RETURN(auto scan, t->heap->NewScan());
  RowPosition pos;
  std::string rec, value;
  std::vector<std::string_view> keys;
  std::string_view row;
  for (;;) {
    ASSIGN_OR_RETURN(bool more, scan->Next(&pos, &rec));
    if (!more) break;
    Status st = DecodeRecord(rec, t->indexes.size(), &keys, &row);
    if (!st.ok()) return where(st);
    for (size_t i = 0; i < t->indexes.size(); ++i) {
      const HeapIndexState& idx = t->indexes[i];
      IndexRecord r = MakeIndexRecord(idx, keys[i], pos);
      ASSIGN_OR_RETURN(bool found, idx.tree->Get(AsBytes(r.key), &value));
      bool ok = found;
      if (found && idx.spec.unique) {
        auto p = DecodeRowPosition(AsBytes(value));
        ok = p.ok() && *p == pos;
      }
      if (!ok) {
        return where(
            Status::Corruption(fmt::format("the row at page {} slot {} has no entry in index '{}'",
                                           pos.page, pos.slot, idx.spec.name)));
      }
    }
  }
  return Status::OK();
}

Status HeapTables::CheckAll(std::vector<KeyspaceCheck>* reports) {
  std::vector<HeapTableState*> live;
  {
    LatchGuard guard(latch_);
    if (catalog_ == nullptr) return Status::OK();  // no heap table was ever created
    auto r = catalog_->Check();
    if (!r.ok()) {
      return Status(r.status().code(), fmt::format("heap catalog: {}", r.status().message()));
    }
    if (r->records != by_name_.size()) {
      return Status::Corruption(
          fmt::format("heap catalog lists {} tables, {} are open", r->records, by_name_.size()));
    }
    if (reports != nullptr) {
      KeyspaceCheck k;
      k.name = "(heap catalog)";
      k.records = r->records;
      k.leaf_pages = r->leaf_pages;
      k.node_pages = r->node_pages;
      k.overflow_pages = r->overflow_pages;
      k.height = r->height;
      k.avg_leaf_fill = r->avg_leaf_fill;
      reports->push_back(std::move(k));
    }
    for (const auto& [n, t] : by_name_) live.push_back(t);
  }
  // Each table under a lock that keeps writers out (no latch held while waiting).
  TableLockOwner checker(0);
  for (HeapTableState* t : live) {
    ASSIGN_OR_RETURN(TableLockTicket ticket,
                     t->lock->Lock(&checker, TableLockType::kReadNoInsert, lock_wait_timeout_));
    if (t->dropped.load(std::memory_order_acquire)) continue;
    RETURN_IF_ERROR(CrossCheck(t, reports));
  }
  return Status::OK();
}

Result<uint64_t> HeapTables::RepairAfterCrash() {
  std::vector<HeapTableState*> live;
  {
    LatchGuard guard(latch_);
    for (const auto& [n, t] : by_name_) live.push_back(t);
  }
  uint64_t repaired = 0;
  for (HeapTableState* t : live) {
    // The heap itself is consistent (each change is one mini-transaction): its Check failing is
    // damage that a rebuild cannot mend.
    Status st = CrossCheck(t, nullptr);
    if (st.ok()) continue;
    RETURN_IF_ERROR(t->heap->Check().status());
    RETURN_IF_ERROR(RebuildIndexes(t));
    RETURN_IF_ERROR(CrossCheck(t, nullptr));
    ++repaired;
  }
  return repaired;
}

// ---- HeapTable (public handle) ----

namespace {

enum class Need { kAny, kWrite, kChange, kExclusive };

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
  if (need == Need::kWrite && !IsWriteLock(type)) {
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
  if (need == Need::kExclusive && !IsExclusive(type)) {
    return Status::InvalidArgument(
        fmt::format("table '{}': this needs READ_NO_INSERT or WRITE, not {}", t->name,
                    TableLockTypeName(type)));
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
  const auto type = static_cast<TableLockType>(options.type);
  const ConcurrentInsert mode = options.concurrent_insert;
  TableLockHooks hooks;
  // MyISAM's mi_check_status: refuse a concurrent insert when the file has holes, unless
  // concurrent_insert=ALWAYS and readers hold the table (then it appends).
  hooks.allow_concurrent_insert = [t, mode]() {
    if (mode == ConcurrentInsert::kNever) return false;
    if (t->holes.load(std::memory_order_acquire) == 0) return true;
    return mode == ConcurrentInsert::kAlways && t->readers.load(std::memory_order_acquire) > 0;
  };
  // MyISAM's get_status: a reader takes the end of file at grant, under the table lock's
  // latch, so that no concurrent insert granted later comes before it.
  const bool read = !IsWriteLock(type);
  hooks.on_grant = [impl, t, read](bool concurrent_insert) {
    impl->concurrent = concurrent_insert;
    if (read) {
      t->readers.fetch_add(1, std::memory_order_acq_rel);
      impl->reader = true;
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
    out.Release();
    return Status::InvalidArgument(fmt::format("table '{}' was dropped", t->name));
  }
  if (!impl->end_status.ok()) {
    Status st = impl->end_status;
    out.Release();
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

}  // namespace

Result<HeapRowId> HeapTable::Insert(const HeapTableLock& lock, std::string_view row,
                                    const std::vector<std::string>& keys) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kWrite));
  std::string rec;
  RETURN_IF_ERROR(EncodeRecord(row, keys, t->indexes.size(), &rec));
  RETURN_IF_ERROR(t->owner->BeforeWrite());
  RowPosition pos;
  {
    LatchGuard guard(t->write_latch);
    for (const HeapIndexState& i : t->indexes) {
      if (i.spec.unique) RETURN_IF_ERROR(CheckUnique(i, keys[&i - t->indexes.data()], {}));
    }
    const InsertMode mode = lock.impl_->concurrent ? InsertMode::kAppend : InsertMode::kFillHoles;
    ASSIGN_OR_RETURN(pos, t->heap->Insert(AsBytes(rec), mode));
    for (size_t i = 0; i < t->indexes.size(); ++i) {
      // Reached only by heap table workloads (the heap table crash tests arm it), so it is not
      // in CrashPointNames(), whose every name the keyspace crash workload must reach.
      MINNOW_CRASH_POINT("heap_table.insert.index");
      Status st = InsertEntry(t->indexes[i], keys[i], pos);
      if (!st.ok()) {
        for (size_t j = 0; j < i; ++j) (void)RemoveEntry(t->indexes[j], keys[j], pos);
        (void)t->heap->Delete(pos);
        RefreshHoles(t);
        return st;
      }
    }
    RefreshHoles(t);
  }
  RETURN_IF_ERROR(t->owner->AfterWrite());
  return ToId(pos);
}

Status HeapTable::Get(const HeapTableLock& lock, HeapRowId id, std::string* row) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kAny));
  if (!id.valid()) return Status::NotFound("no row at an invalid position");
  std::string rec;
  const HeapEnd* bound = lock.impl_->reader ? &lock.impl_->end : nullptr;
  RETURN_IF_ERROR(t->heap->Get(ToPos(id), &rec, bound));
  std::vector<std::string_view> keys;
  std::string_view r;
  RETURN_IF_ERROR(DecodeRecord(rec, t->indexes.size(), &keys, &r));
  row->assign(r);
  return Status::OK();
}

Result<std::vector<std::string>> HeapTable::GetKeys(const HeapTableLock& lock, HeapRowId id) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kAny));
  if (!id.valid()) return Status::NotFound("no row at an invalid position");
  std::string rec;
  const HeapEnd* bound = lock.impl_->reader ? &lock.impl_->end : nullptr;
  RETURN_IF_ERROR(t->heap->Get(ToPos(id), &rec, bound));
  std::vector<std::string_view> keys;
  std::string_view r;
  RETURN_IF_ERROR(DecodeRecord(rec, t->indexes.size(), &keys, &r));
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

Result<std::vector<HeapRowId>> HeapTable::Lookup(const HeapTableLock& lock, size_t index,
                                                 std::string_view key) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kAny));
  if (index >= t->indexes.size()) {
    return Status::InvalidArgument(fmt::format("table '{}' has no index {}", t->name, index));
  }
  const HeapIndexState& idx = t->indexes[index];
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
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kAny));
  if (index >= t->indexes.size()) {
    return Status::InvalidArgument(fmt::format("table '{}' has no index {}", t->name, index));
  }
  const HeapIndexState& idx = t->indexes[index];
  std::vector<HeapRowId> out;
  auto cur = idx.tree->NewCursor();
  RETURN_IF_ERROR(cur->Seek(AsBytes(lo)));
  for (; cur->Valid() && out.size() < limit;) {
    std::string_view k;
    RowPosition pos;
    if (idx.spec.unique) {
      k = AsStringView(cur->key());
      ASSIGN_OR_RETURN(ConstBytes v, cur->value());
      ASSIGN_OR_RETURN(pos, DecodeRowPosition(v));
    } else {
      ASSIGN_OR_RETURN(KeyWithPosition kp, SplitRowPositionSuffix(cur->key()));
      k = AsStringView(kp.key);
      pos = kp.pos;
    }
    if (!hi.empty() && k >= hi) break;
    // A key below lo here is a prefix of lo whose position suffix sorts after it: skipped.
    if (k >= lo) out.push_back(ToId(pos));
    RETURN_IF_ERROR(cur->Next());
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
  RETURN_IF_ERROR(t->owner->AfterWrite());
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
  return t->owner->AfterWrite();
}

Result<HeapTableStats> HeapTable::stats(const HeapTableLock& lock) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kAny));
  ASSIGN_OR_RETURN(HeapStats h, t->heap->stats());
  HeapTableStats s;
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
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kExclusive));
  if (lock.impl_->ticket.type() == TableLockType::kReadNoInsert) {
    return Status::InvalidArgument(
        fmt::format("table '{}' was locked with a READ lock and can't be updated", t->name));
  }
  RETURN_IF_ERROR(t->owner->BeforeWrite());
  HeapTables* tables = t->owner;
  ASSIGN_OR_RETURN(std::vector<HeapIndexState> fresh, NewIndexTrees(tables->pool(), t->specs));
  std::string rec;
  auto on_move = [&](RowPosition from, RowPosition to) -> Status {
    RETURN_IF_ERROR(t->heap->Get(from, &rec));
    return AddEntries(&fresh, rec, to);
  };
  auto publish = [&](PageNo new_header) -> Status {
    std::vector<PageNo> roots;
    for (const HeapIndexState& i : fresh) roots.push_back(i.tree->root());
    const std::string value = EncodeEntry(new_header, t->specs, roots);
    return tables->PersistRaw(t->name, value);  // now the record names the new heap and trees
  };
  LatchGuard guard(t->write_latch);
  auto header = RowHeap::Compact(t->heap.get(), on_move, publish);
  if (!header.ok()) {
    for (HeapIndexState& i : fresh) (void)i.tree->Drop();
    return header.status();
  }
  auto heap = RowHeap::Open(tables->pool(), *header);
  if (!heap.ok()) return heap.status();  // the catalog names it: the next open will try again
  t->heap = std::move(*heap);
  std::vector<HeapIndexState> old = std::move(t->indexes);
  t->indexes = std::move(fresh);
  for (HeapIndexState& i : old) (void)i.tree->Drop();  // a failure only leaks pages
  RefreshHoles(t);
  return tables->AfterWrite();
}

Status HeapTable::Check(const HeapTableLock& lock) const {
  HeapTableState* t = state_;
  RETURN_IF_ERROR(CheckLock(t, lock.impl_.get(), lock.held(), Need::kExclusive));
  return t->owner->CrossCheck(t, nullptr);
}

}  // namespace minnow
