// HeapTables: the catalog of a database's heap tables, their DDL, checks and crash repair.
// Formats and crash ordering are in engine/heap_table_internal.h.
#include <fmt/format.h>

#include "btree/cursor.h"
#include "buffer_pool/file_header.h"
#include "buffer_pool/mtr.h"
#include "common/crash_point.h"
#include "engine/catalog_internal.h"
#include "engine/heap_table_internal.h"
#include "myisam/row_position.h"

namespace minnow {

using heap_internal::AddEntries;
using heap_internal::DecodedEntry;
using heap_internal::DecodeEntry;
using heap_internal::DecodeRecord;
using heap_internal::EncodeEntry;
using heap_internal::IndexRecord;
using heap_internal::MakeIndexRecord;
using heap_internal::NewIndexTrees;
using heap_internal::ValidateSpec;

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

Lsn HeapTables::WrittenLsn() const { return svc_->log == nullptr ? 0 : svc_->log->current_lsn(); }

Status HeapTables::WaitDurable(Lsn lsn) const {
  if (svc_->log == nullptr || lsn == 0) return Status::OK();
  return svc_->log->CommitUpTo(lsn, svc_->flush_policy);
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
  MINNOW_CRASH_POINT("heap_table.create.record");  // as heap_table.insert.index
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
  // The name is gone; a failure below only leaks pages. The write latch waits out a
  // HeapTable::stats reading the pages (it holds no table lock).
  MINNOW_CRASH_POINT("heap_table.drop.free");  // as heap_table.insert.index
  Status st;
  {
    LatchGuard write(t->write_latch);
    for (HeapIndexState& i : t->indexes) {
      Status s = i.tree->Drop();
      if (st.ok()) st = s;
    }
    Status s = t->heap->Drop();
    if (st.ok()) st = s;
  }
  ticket.Release();
  Status s = AfterWrite();
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
    if (reports != nullptr) reports->push_back(ToKeyspaceCheck(t->name + "." + i.spec.name, 0, *r));
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
    if (reports != nullptr) reports->push_back(ToKeyspaceCheck("(heap catalog)", 0, *r));
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

}  // namespace minnow
