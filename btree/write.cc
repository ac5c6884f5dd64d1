// Insert, Update, Upsert, SetDeleteMark and Remove: one optimistic attempt at the leaf, then
// the pessimistic path when the leaf must split or merge.

#include <fmt/format.h>

#include <cstring>

#include "btree/btree_internal.h"

namespace minnow {
namespace {

Status CheckKey(ConstBytes key) {
  if (key.size() > kMaxKeySize) {
    return Status::InvalidArgument(
        fmt::format("key of {} bytes is longer than {}", key.size(), kMaxKeySize));
  }
  return Status::OK();
}

Status CheckSys(const TreeOptions& options, ConstBytes sys) {
  if (sys.empty()) return Status::OK();
  if (!options.sys_fields) {
    return Status::InvalidArgument("sys bytes given for a tree without sys fields");
  }
  if (sys.size() != kSysFieldsSize) {
    return Status::InvalidArgument(
        fmt::format("sys bytes must be {} bytes, not {}", kSysFieldsSize, sys.size()));
  }
  return Status::OK();
}

// The hidden bytes a stored record will get, for the notice to set (null without sys fields).
std::byte* RecordSys(WriteOp* op) {
  return op->rec->spec.sys.empty() ? nullptr : op->rec->sys.data();
}

// Tells the write's hook (btree.h WriteHook), if it has one, what is about to change in tree
// `index`. For a transaction's write this is where its lock-and-undo hook runs
// (txn/transaction_write.cc TransactionCore::OnWrite): under the leaf's X latch, before the
// first page change, so a lock wait or an undo failure leaves the page untouched.
Status Notify(MiniTransaction* mtr, WriteOp* op, PageNo index, WriteChange change,
              const RecordData* old, RecordLocation where, std::byte* sys) {
  if (op->hook == nullptr) return Status::OK();
  WriteNotice notice{.change = change,
                     .index = index,
                     .key = op->key,
                     .old = old,
                     .where = where,
                     .sys = sys,
                     .mtr = mtr};
  return op->hook->BeforeWrite(&notice);
}

// Notify for an insert at slot `idx` of leaf `v`, telling its neighbours (WriteNotice::before,
// after).
Status NotifyInsert(MiniTransaction* mtr, WriteOp* op, PageNo index, const PageView& v, size_t idx,
                    RecordLocation successor) {
  if (op->hook == nullptr) return Status::OK();
  WriteNotice notice{.change = WriteChange::kInsert,
                     .index = index,
                     .key = op->key,
                     .where = successor,
                     .sys = RecordSys(op),
                     .mtr = mtr};
  RecordView rec;
  if (idx > 0 && v.Record(idx - 1, &rec)) {
    notice.before = rec.key;
  } else {
    notice.before_elsewhere = v.prev() != kInvalidPageNo;
  }
  if (idx < v.n_slots() && v.Record(idx, &rec)) {
    notice.after = rec.key;
  } else {
    notice.after_elsewhere = v.next() != kInvalidPageNo;
  }
  return op->hook->BeforeWrite(&notice);
}

// Points op->old at scratch space when a hook needs the old record and the caller gave none.
void NeedOld(WriteOp* op) {
  if (op->hook != nullptr && op->old == nullptr) op->old = &op->old_scratch;
}

}  // namespace

Status BTree::Impl::FillRecordData(const RecordView& rec, PageNo page_no, RecordData* out) const {
  out->value.clear();
  if (rec.overflow()) {
    RETURN_IF_ERROR(ReadChain(rec.value, &out->value));
  } else {
    out->value.assign(reinterpret_cast<const char*>(rec.value.data()), rec.value.size());
  }
  out->sys.fill(std::byte{0});
  if (rec.sys.size() == kSysFieldsSize) std::memcpy(out->sys.data(), rec.sys.data(), kSysLen);
  out->delete_marked = rec.delete_marked();
  out->location = RecordLocation{page_no, rec.heap_no};
  return Status::OK();
}

Result<bool> BTree::Impl::ApplyAtLeaf(MiniTransaction* mtr, MtrPage leaf,
                                      std::vector<PathLevel>* path, WriteOp* op) {
  MtrEditor ed(leaf);
  PageView v = ed.view();
  // A change that reorganizes the page trusts every slot: validate them all first (the
  // reorganize itself costs as much).
  auto check_before_reorganize = [&](size_t size) -> Status {
    std::string why;
    if (v.contiguous_free() >= size + kSlotSize || v.Validate(&why)) return Status::OK();
    return Status::Corruption(
        fmt::format("{}: page {}: {}", pool->file_name(), leaf.page_no(), why));
  };
  bool found = false;
  ASSIGN_OR_RETURN(size_t idx, v.LowerBound(op->key, &found));
  OpKind kind = op->kind;
  if (kind == OpKind::kUpsert) kind = found ? OpKind::kUpdate : OpKind::kInsert;
  if (op->existed != nullptr) *op->existed = found;
  if (kind == OpKind::kInsert) {
    if (found) return Status::DuplicateKey("key exists");
    const RecordSpec& spec = op->rec->spec;
    RecordLocation successor{leaf.page_no(), kSupremumHeapNo};
    if (RecordView next; idx < v.n_slots() && v.Record(idx, &next))
      successor.heap_no = next.heap_no;
    if (v.Fits(spec.size())) {
      RETURN_IF_ERROR(check_before_reorganize(spec.size()));
      // The transaction's lock-and-undo hook runs here (and at each Notify below): leaf X
      // latched, nothing changed yet.
      RETURN_IF_ERROR(NotifyInsert(mtr, op, root, v, idx, successor));
      op->applied = true;
      HeapNo h = InsertRecord(&ed, idx, spec);
      if (listener != nullptr) listener->OnRecordInserted({leaf.page_no(), h}, successor);
      return true;
    }
    if (path == nullptr) return false;
    RETURN_IF_ERROR(NotifyInsert(mtr, op, root, v, idx, successor));
    std::vector<MtrPage> reserve;
    RETURN_IF_ERROR(ReserveForSplit(mtr, *path, &reserve));  // before the first change
    op->applied = true;
    Result<RecordLocation> loc =
        InsertWithSplit(mtr, path, &reserve, path->size() - 1, idx, spec, 0, RecordLocation{});
    for (MtrPage page : reserve) RETURN_IF_ERROR(mtr->Free(page));
    RETURN_IF_ERROR(loc.status());
    if (listener != nullptr) RETURN_IF_ERROR(ReportInserted(mtr, *loc));
    return true;
  }
  if (!found) return Status::NotFound("key not found");
  RecordView rec;
  if (!v.Record(idx, &rec)) {
    return Status::Corruption(fmt::format("page {}: slot {} out of range", leaf.page_no(), idx));
  }
  if (kind == OpKind::kDeleteMark) {
    if (!op->sys.empty() && rec.sys.size() != kSysLen) {
      return Status::Corruption(
          fmt::format("page {}: record without sys fields in a clustered tree", leaf.page_no()));
    }
    ConstBytes sys = op->sys;
    std::array<std::byte, kSysLen> notice_sys{};
    if (op->hook != nullptr) {
      NeedOld(op);
      RETURN_IF_ERROR(FillRecordData(rec, leaf.page_no(), op->old));
      std::byte* out = nullptr;
      if (rec.sys.size() == kSysLen) {
        std::memcpy(notice_sys.data(), (sys.empty() ? rec.sys : sys).data(), kSysLen);
        out = notice_sys.data();
        sys = ConstBytes(notice_sys.data(), kSysLen);
      }
      RETURN_IF_ERROR(
          Notify(mtr, op, root, WriteChange::kDeleteMark, op->old, op->old->location, out));
    }
    ::minnow::SetDeleteMark(&ed, idx, op->mark, sys);
    return true;
  }
  if (kind == OpKind::kUpdate) {
    const RecordSpec& spec = op->rec->spec;
    if (!op->rec->sys_given && rec.sys.size() == kSysLen && !spec.sys.empty()) {
      std::memcpy(op->rec->sys.data(), rec.sys.data(), kSysLen);  // keep the old sys bytes
    }
    bool in_place = spec.size() <= rec.size + v.available();
    if (!in_place && path == nullptr) return false;
    NeedOld(op);
    if (op->old != nullptr) RETURN_IF_ERROR(FillRecordData(rec, leaf.page_no(), op->old));
    RETURN_IF_ERROR(Notify(mtr, op, root, WriteChange::kUpdate, op->old,
                           RecordLocation{leaf.page_no(), rec.heap_no}, RecordSys(op)));
    if (rec.overflow()) op->chains_to_free.push_back(OverflowFirst(rec.value));
    if (in_place) {
      if (spec.size() > rec.size) RETURN_IF_ERROR(check_before_reorganize(spec.size()));
      op->applied = true;
      ReplaceRecord(&ed, idx, spec);
      return true;
    }
    HeapNo heap_no = rec.heap_no;
    std::vector<MtrPage> reserve;
    RETURN_IF_ERROR(ReserveForSplit(mtr, *path, &reserve));  // before the first change
    op->applied = true;
    RemoveRecord(&ed, idx);
    Result<RecordLocation> loc = InsertWithSplit(mtr, path, &reserve, path->size() - 1, idx, spec,
                                                 heap_no, RecordLocation{leaf.page_no(), heap_no});
    for (MtrPage page : reserve) RETURN_IF_ERROR(mtr->Free(page));
    RETURN_IF_ERROR(loc.status());
    return true;
  }
  // kRemove.
  bool is_root = leaf.page_no() == root;
  bool underflow = !is_root && v.used() - rec.size - kSlotSize < kMinFillBytes;
  if (underflow && path == nullptr) return false;
  NeedOld(op);
  if (op->old != nullptr) RETURN_IF_ERROR(FillRecordData(rec, leaf.page_no(), op->old));
  RETURN_IF_ERROR(Notify(mtr, op, root, WriteChange::kRemove, op->old,
                         RecordLocation{leaf.page_no(), rec.heap_no}, nullptr));
  if (rec.overflow()) op->chains_to_free.push_back(OverflowFirst(rec.value));
  RecordLocation removed{leaf.page_no(), rec.heap_no};
  RecordLocation successor{leaf.page_no(), kSupremumHeapNo};
  RecordView next;
  if (idx + 1 < v.n_slots() && v.Record(idx + 1, &next)) successor.heap_no = next.heap_no;
  RemoveRecord(&ed, idx);
  if (listener != nullptr) listener->OnRecordRemoved(removed, successor);
  if (underflow) RETURN_IF_ERROR(Rebalance(mtr, path, path->size() - 1));
  return true;
}

Status BTree::Impl::ReportInserted(MiniTransaction* mtr, RecordLocation loc) {
  // The page the record landed on is still held by the mtr (Write returns it again).
  ASSIGN_OR_RETURN(MtrPage page, mtr->Write(loc.page_no));
  PageView v(page.data());
  size_t idx = v.FindHeapNo(loc.heap_no);
  RecordLocation successor{loc.page_no, kSupremumHeapNo};
  if (RecordView next; idx + 1 < v.n_slots() && v.Record(idx + 1, &next)) {
    successor.heap_no = next.heap_no;
  }
  listener->OnRecordInserted(loc, successor);
  return Status::OK();
}

Status BTree::Impl::RunWrite(WriteOp* op) {
  Status st;
  {
    MiniTransaction mtr(pool);
    Result<MtrPage> leaf = FindLeafOptimistic(&mtr, op->key);
    if (!leaf.ok()) return leaf.status();
    Result<bool> done = ApplyAtLeaf(&mtr, *leaf, nullptr, op);
    if (!done.ok()) {
      st = done.status();
    } else if (!*done) {
      mtr.Commit();  // nothing changed: just releases the leaf
      Bump(counters.pessimistic);
      size_t need = op->rec != nullptr ? op->rec->spec.size() : 0;
      bool remove_mode = op->kind == OpKind::kRemove;
      std::vector<PathLevel> path;
      st = DescendPessimistic(&mtr, op->key, need, remove_mode, &path);
      if (st.ok()) {
        Result<bool> again = ApplyAtLeaf(&mtr, path.back().page, &path, op);
        st = again.status();
      }
    }
    // A failed structure change cannot be undone page by page; buffer_pool's mtr has no
    // rollback. Errors here come from corrupt pages or allocation failures.
    mtr.Commit();
  }
  for (PageNo chain : op->chains_to_free) {
    Status fst = FreeChain(chain);
    if (st.ok()) st = fst;
  }
  return st;
}

// ---- public write API

Status BTree::Insert(ConstBytes key, ConstBytes value, ConstBytes sys, const WriteHook* hook) {
  RETURN_IF_ERROR(CheckKey(key));
  RETURN_IF_ERROR(CheckSys(impl_->options, sys));
  PreparedRecord rec;
  RETURN_IF_ERROR(impl_->Prepare(key, value, sys, &rec));
  WriteOp op{.kind = OpKind::kInsert, .key = key, .rec = &rec, .hook = hook};
  Status st = impl_->RunWrite(&op);
  if (!op.applied && rec.chain != kInvalidPageNo) (void)impl_->FreeChain(rec.chain);
  return st;
}

Status BTree::Update(ConstBytes key, ConstBytes value, ConstBytes sys, RecordData* old,
                     const WriteHook* hook, bool delete_marked) {
  RETURN_IF_ERROR(CheckKey(key));
  RETURN_IF_ERROR(CheckSys(impl_->options, sys));
  PreparedRecord rec;
  RETURN_IF_ERROR(impl_->Prepare(key, value, sys, &rec));
  if (delete_marked) rec.spec.flags |= kRecDeleteMark;
  WriteOp op{
      .kind = OpKind::kUpdate, .key = key, .rec = &rec, .sys = sys, .old = old, .hook = hook};
  Status st = impl_->RunWrite(&op);
  if (!op.applied && rec.chain != kInvalidPageNo) (void)impl_->FreeChain(rec.chain);
  return st;
}

Status BTree::Upsert(ConstBytes key, ConstBytes value, ConstBytes sys, RecordData* old,
                     bool* existed, const WriteHook* hook) {
  RETURN_IF_ERROR(CheckKey(key));
  RETURN_IF_ERROR(CheckSys(impl_->options, sys));
  PreparedRecord rec;
  RETURN_IF_ERROR(impl_->Prepare(key, value, sys, &rec));
  bool found = false;
  WriteOp op{.kind = OpKind::kUpsert,
             .key = key,
             .rec = &rec,
             .sys = sys,
             .old = old,
             .existed = &found,
             .hook = hook};
  Status st = impl_->RunWrite(&op);
  if (!op.applied && rec.chain != kInvalidPageNo) (void)impl_->FreeChain(rec.chain);
  if (existed != nullptr) *existed = found;
  return st;
}

Status BTree::SetDeleteMark(ConstBytes key, bool marked, ConstBytes sys, const WriteHook* hook) {
  RETURN_IF_ERROR(CheckKey(key));
  RETURN_IF_ERROR(CheckSys(impl_->options, sys));
  WriteOp op{.kind = OpKind::kDeleteMark, .key = key, .sys = sys, .mark = marked, .hook = hook};
  return impl_->RunWrite(&op);
}

Status BTree::Remove(ConstBytes key, RecordData* old, const WriteHook* hook) {
  RETURN_IF_ERROR(CheckKey(key));
  WriteOp op{.kind = OpKind::kRemove, .key = key, .old = old, .hook = hook};
  return impl_->RunWrite(&op);
}

}  // namespace minnow
