// Writes: record locks, write-ahead undo and the hidden fields, in the B+tree write's hook
// (transaction_core.h); the lock-wait loop; rollback from the undo logs (also recovery's).
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "btree/cursor.h"
#include "common/crash_point.h"
#include "txn/transaction_core.h"

namespace minnow {

namespace {

constexpr std::array<std::byte, kSysFieldsSize> kNoSys{};

}  // namespace

// One B+tree write's hook: a stack object per write (no allocation), carrying what the tree
// does not know to OnWrite.
class TransactionCore::RecordWriteHook final : public WriteHook {
 public:
  // `refuse_duplicate`: Insert, which refuses a live record with the key (Put replaces it),
  // locking it `dup_lock` first. `unique_prefix` > 0: an insert into a unique secondary index
  // that gives up (unique_check_needed()) when a record might share the key's first
  // `unique_prefix` bytes (InsertOptions::unique_prefix).
  RecordWriteHook(TransactionCore* trx, const KeyspaceState& ks, bool refuse_duplicate,
                  TrxLockMode dup_lock = TrxLockMode::kS, size_t unique_prefix = 0)
      : trx_(trx),
        ks_(ks),
        refuse_duplicate_(refuse_duplicate),
        dup_lock_(dup_lock),
        unique_prefix_(unique_prefix) {}
  Status BeforeWrite(WriteNotice* n) const override {
    if (unique_prefix_ > 0 && MightShareUniquePart(*n)) {
      unique_check_needed_ = true;
      return Status::DuplicateKey("unique check needed");
    }
    return trx_->OnWrite(ks_, refuse_duplicate_, dup_lock_, n);
  }
  bool unique_check_needed() const { return unique_check_needed_; }

 private:
  // Whether a record next to the insert (the only places one sharing the unique part can be:
  // such records are adjacent in key order) shares it, or is not known here.
  bool MightShareUniquePart(const WriteNotice& n) const {
    if (n.old != nullptr || n.before_elsewhere || n.after_elsewhere) return true;
    const auto part = n.key.first(unique_prefix_);
    auto shares = [&](ConstBytes k) {
      return k.size() >= part.size() && std::equal(part.begin(), part.end(), k.begin());
    };
    return shares(n.before) || shares(n.after);
  }

  TransactionCore* const trx_;
  const KeyspaceState& ks_;
  const bool refuse_duplicate_;
  const TrxLockMode dup_lock_;
  const size_t unique_prefix_;
  mutable bool unique_check_needed_ = false;
};

Status TransactionCore::OnWrite(const KeyspaceState& ks, bool refuse_duplicate,
                                TrxLockMode dup_lock, WriteNotice* n) {
  LockSys* locks = svc_->lock_sys;
  const RecordId rec = LockRecordId(n->where);
  // A secondary index (KeyspaceState::secondary()) keeps implicit locks and counts no row.
  const bool secondary = ks.secondary();
  UndoRecord u;
  u.table_id = ks.id;
  u.key = n->key;
  if (n->old != nullptr) {
    // The record exists (perhaps delete-marked): lock it, as the latest version we change.
    ConvertImplicit(SysTrxId(n->old->sys.data()), rec);
    if (refuse_duplicate && !secondary) {
      // InnoDB's row_ins_duplicate_error_in_clust: the possible duplicate is locked S (X for
      // REPLACE and ON DUPLICATE KEY UPDATE), record only, before it is judged.
      RETURN_IF_ERROR(locks->LockRecord(locks_.get(), rec, dup_lock, RecLockType::kRecNotGap));
      if (!n->old->delete_marked) return Status::DuplicateKey("duplicate key");
    }
    if (secondary) {
      // InnoDB's lock_sec_rec_modify_check_and_lock: wait for a conflicting lock, else no
      // struct; the DB_TRX_ID written below is our implicit lock (ConvertImplicit above is
      // how a later locker makes it explicit).
      RETURN_IF_ERROR(locks->LockRecordImplicit(locks_.get(), rec, TrxLockMode::kX));
    } else {
      RETURN_IF_ERROR(
          locks->LockRecord(locks_.get(), rec, TrxLockMode::kX, RecLockType::kRecNotGap));
      // Snapshot isolation: an update or delete of a row changed since the view (an insert's
      // duplicate is judged as before).
      const ReadView* snapshot = refuse_duplicate ? nullptr : snapshot_view();
      if (snapshot != nullptr && !snapshot->Sees(SysTrxId(n->old->sys.data()))) {
        return RecordChanged(ks);
      }
    }
    if (refuse_duplicate && !n->old->delete_marked) return Status::DuplicateKey("duplicate key");
    const bool delete_mark = n->change == WriteChange::kDeleteMark;  // Erase
    if (delete_mark && n->old->delete_marked) return Status::NotFound("deleted");
    u.type = delete_mark ? UndoType::kDeleteMark : UndoType::kUpdate;
    u.old_trx_id = SysTrxId(n->old->sys.data());
    u.old_roll_ptr = SysRollPtr(n->old->sys.data());
    u.old_delete_marked = n->old->delete_marked;
    u.old_value = AsBytes(n->old->value);
  } else {
    // An insert waits only for gap locks on the record it goes before.
    RETURN_IF_ERROR(
        locks->LockRecord(locks_.get(), rec, TrxLockMode::kX, RecLockType::kInsertIntention));
    u.type = UndoType::kInsert;
  }
  // In the write's own mini-transaction: the undo record and the change are one unit of redo.
  ASSIGN_OR_RETURN(RollPtr roll_ptr, undo_->Append(u, n->mtr));
  // InnoDB writes undo for the clustered index only: a secondary change is no row modified.
  if (!secondary) rows_modified_.fetch_add(1, std::memory_order_relaxed);
  if (n->sys != nullptr) EncodeSysFields(n->sys, id_, roll_ptr);
  return Status::OK();
}

template <typename Write>
Status TransactionCore::RunWrite(KeyspaceState* ks, const Write& write) {
  RETURN_IF_ERROR(PrepareLocking(ks, LockMode::kExclusive));
  for (;;) {
    Status st = write();
    if (st.code() != Code::kLockWait) [[likely]] {
      if (st.code() == Code::kRecordChanged) return RollBackChanged(st);
      return st;
    }
    RETURN_IF_ERROR(WaitForLock());  // latches are released: the B+tree write gave up
  }
}

Status TransactionCore::Put(KeyspaceState* ks, std::string_view key, std::string_view value) {
  const RecordWriteHook hook(this, *ks, /*refuse_duplicate=*/false);
  return RunWrite(ks, [&] {
    return ks->tree->Upsert(AsBytes(key), AsBytes(value), kNoSys, nullptr, nullptr, &hook);
  });
}

Status TransactionCore::Insert(KeyspaceState* ks, std::string_view key, std::string_view value,
                               const InsertOptions& io) {
  const TrxLockMode dup_lock =
      io.duplicate_lock == LockMode::kExclusive ? TrxLockMode::kX : TrxLockMode::kS;
  // A unique secondary key: first an insert that gives up if a record might share the unique
  // part (checked under the leaf latch, so nothing sharing it can appear meanwhile); then, if
  // it gave up, the locking scan for a live one, whose next-key locks keep every record that
  // could share the part out until we end, and the insert.
  size_t unique_prefix = io.unique_prefix;
  Status st;
  for (;;) {
    const RecordWriteHook hook(this, *ks, /*refuse_duplicate=*/true, dup_lock, unique_prefix);
    st = RunWrite(ks, [&] {
      // Upsert, so that an insert over a delete-marked record updates it in place (InnoDB);
      // the hook refuses a live duplicate.
      return ks->tree->Upsert(AsBytes(key), AsBytes(value), kNoSys, nullptr, nullptr, &hook);
    });
    if (!hook.unique_check_needed()) break;
    ASSIGN_OR_RETURN(bool dup,
                     ScanForDuplicate(ks, key.substr(0, unique_prefix), dup_lock, io.duplicate));
    if (dup)
      return Status::DuplicateKey(fmt::format("duplicate unique part ({} bytes) in keyspace '{}'",
                                              unique_prefix, ks->name));
    unique_prefix = 0;  // checked: the locks keep it so
  }
  if (st.code() == Code::kDuplicateKey) {
    if (io.duplicate != nullptr) io.duplicate->assign(key);
    return Status::DuplicateKey(
        fmt::format("duplicate key ({} bytes) in keyspace '{}'", key.size(), ks->name));
  }
  return st;
}

Result<bool> TransactionCore::ScanForDuplicate(KeyspaceState* ks, std::string_view prefix,
                                               TrxLockMode mode, std::string* duplicate) {
  auto cur = ks->tree->NewCursor();
  std::string at(prefix);
  // Positions the cursor on the first record >= `at`, and locks the supremum of the leaf `at`
  // belongs to when no record >= at is on it (the cursor went on to the next leaf, or found
  // nothing): an insert there goes before that supremum.
  auto seek = [&]() -> Status {
    RETURN_IF_ERROR(cur->Seek(AsBytes(at)));
    for (;;) {
      Result<bool> r = ks->tree->ReadLatched(AsBytes(at), nullptr, [&](const LatchedRead& lr) {
        if (lr.where.heap_no != kSupremumHeapNo) return Status::OK();
        return svc_->lock_sys->LockRecord(locks_.get(), LockRecordId(lr.where), mode,
                                          RecLockType::kOrdinary);
      });
      if (r.ok()) return Status::OK();
      if (r.status().code() != Code::kLockWait) return r.status();
      RETURN_IF_ERROR(WaitForLock());
    }
  };
  RETURN_IF_ERROR(seek());
  for (;;) {
    if (!cur->Valid()) return false;  // past the last record: its leaf's supremum is locked
    const RecordView& rec = *cur->current();
    const RecordLocation where = cur->location();
    const std::string_view key = AsStringView(rec.key);
    const bool shares = key.substr(0, prefix.size()) == prefix;
    const bool live = !rec.delete_marked();
    const bool last_on_leaf = cur->slot() + 1 == cur->leaf().n;
    const TrxId writer = SysTrxId(rec.sys.data());
    Result<bool> locked = cur->WithLeafLatched([&] {
      ConvertImplicit(writer, LockRecordId(where));
      RETURN_IF_ERROR(svc_->lock_sys->LockRecord(locks_.get(), LockRecordId(where), mode,
                                                 RecLockType::kOrdinary));
      if (!shares || live || !last_on_leaf) return Status::OK();
      // On to the next leaf: the gap after this one's last record is passed too (a supremum
      // lock never waits).
      return svc_->lock_sys->LockRecord(locks_.get(), {where.page_no, kSupremumHeapNo}, mode,
                                        RecLockType::kOrdinary);
    });
    if (!locked.ok() && locked.status().code() != Code::kLockWait) return locked.status();
    if (!locked.ok() || !*locked) {
      // We waited, or the leaf changed since the copy: read it again from this key.
      at.assign(key);
      if (!locked.ok()) RETURN_IF_ERROR(WaitForLock());
      RETURN_IF_ERROR(seek());
      continue;
    }
    if (!shares) return false;
    if (live) {
      if (duplicate != nullptr) duplicate->assign(key);
      return true;
    }
    RETURN_IF_ERROR(cur->Next());
  }
}

Status TransactionCore::Erase(KeyspaceState* ks, std::string_view key) {
  const RecordWriteHook hook(this, *ks, /*refuse_duplicate=*/false);
  Status st = RunWrite(ks, [&] { return ks->tree->SetDeleteMark(AsBytes(key), true, {}, &hook); });
  if (st.IsNotFound()) {
    return Status::NotFound(
        fmt::format("key ({} bytes) not found in keyspace '{}'", key.size(), ks->name));
  }
  return st;
}

Status TransactionCore::BulkInsert(
    KeyspaceState* ks, const std::function<bool(std::string_view*, std::string_view*)>& next) {
  RETURN_IF_ERROR(PrepareLocking(ks, LockMode::kExclusive));
  const uint64_t savepoint = this->savepoint();
  auto cur = ks->tree->NewCursor();
  Status st = cur->SeekToFirst();
  // An empty keyspace is built bottom-up under a table X lock (no one else can insert
  // meanwhile); otherwise record by record.
  if (st.ok()) st = cur->Valid() ? InsertEach(ks, next) : BulkBuild(ks, next);
  if (!st.ok() && st.code() != Code::kDeadlock) {
    Status undo_st = UndoTo(savepoint);
    if (!undo_st.ok()) {
      return Status(st.code(), st.message() + "; undoing it failed too: " + undo_st.ToString());
    }
  }
  return st;
}

namespace {

// The previous key of a sorted load, kept in a fixed buffer (the caller's views die at its next
// call): a per-row check without allocation or a Status.
class SortedCheck {
 public:
  // True if `key`/`value` fit and `key` is above the previous one; remembers `key`.
  bool Accept(std::string_view key, std::string_view value) {
    if (key.size() > kMaxKeySize || value.size() > kMaxValueSize) [[unlikely]]
      return false;
    if (len_ != kNone && !(std::string_view(prev_.data(), len_) < key)) [[unlikely]]
      return false;
    std::memcpy(prev_.data(), key.data(), key.size());
    len_ = key.size();
    return true;
  }
  // Why Accept() said no.
  static Status Why(std::string_view key, std::string_view value) {
    RETURN_IF_ERROR(CheckKeySize(key));
    RETURN_IF_ERROR(CheckValueSize(value));
    return Status::InvalidArgument("BulkInsert keys are not in strictly ascending order");
  }

 private:
  static constexpr size_t kNone = SIZE_MAX;
  std::array<char, kMaxKeySize> prev_;
  size_t len_ = kNone;
};

}  // namespace

Status TransactionCore::BulkBuild(
    KeyspaceState* ks, const std::function<bool(std::string_view*, std::string_view*)>& next) {
  RETURN_IF_ERROR(EnsureTableLock(ks, TrxLockMode::kX));
  UndoRecord u{.type = UndoType::kBulkLoad, .table_id = ks->id};
  RETURN_IF_ERROR(undo_->Append(u).status());
  // The rows carry our id and no undo: a view that does not see us does not see them.
  std::array<std::byte, kSysFieldsSize> sys{};
  EncodeSysFields(sys.data(), id_, 0);
  SortedCheck check;
  Status feed_st;
  auto feed = [&](BTree::BulkRecord* r) {
    std::string_view key, value;
    if (!next(&key, &value)) return false;
    if (!check.Accept(key, value)) [[unlikely]] {
      // Stop feeding: the build ends with what it has, and the caller's undo empties it.
      feed_st = SortedCheck::Why(key, value);
      return false;
    }
    r->key = AsBytes(key);
    r->value = AsBytes(value);
    r->sys = sys;
    return true;
  };
  Status st = ks->tree->BulkLoad(feed, 15.0 / 16.0);
  return st.ok() ? feed_st : st;
}

Status TransactionCore::InsertEach(
    KeyspaceState* ks, const std::function<bool(std::string_view*, std::string_view*)>& next) {
  SortedCheck check;
  std::string_view key, value;
  while (next(&key, &value)) {
    if (!check.Accept(key, value)) [[unlikely]]
      return SortedCheck::Why(key, value);
    RETURN_IF_ERROR(Insert(ks, key, value));
  }
  return Status::OK();
}

// ---- rollback

namespace {

// Removes every record of `tree` (the undo of a bulk build into an empty tree). Collects keys
// a batch at a time: the cursor holds no latch, so removing behind it is allowed.
Status EmptyTree(BTree* tree) {
  auto cur = tree->NewCursor();
  std::vector<std::string> batch;
  for (;;) {
    RETURN_IF_ERROR(cur->SeekToFirst());
    if (!cur->Valid()) return Status::OK();
    batch.clear();
    while (cur->Valid() && batch.size() < 4096) {
      batch.emplace_back(AsStringView(cur->key()));
      RETURN_IF_ERROR(cur->Next());
    }
    for (const std::string& k : batch) RETURN_IF_ERROR(tree->Remove(AsBytes(k)));
  }
}

}  // namespace

Status ApplyUndoRecord(const KeyspaceTable& keyspaces, TrxId trx_id, const UndoRecord& r,
                       bool recovering) {
  if (recovering) MINNOW_CRASH_POINT("recovery.rollback");
  KeyspaceState* ks = keyspaces.FindLive(r.table_id);
  if (ks == nullptr) return Status::OK();  // dropped meanwhile: nothing left to restore
  // Only a record that still carries our change is touched: applying a record twice (a crash
  // between applying and popping it) finds it restored already and changes nothing.
  const Status not_ours(Code::kAborted, "already undone");
  const BeforeChange ours = [&](WriteNotice* n) -> Status {
    if (n->old == nullptr || SysTrxId(n->old->sys.data()) != trx_id) return not_ours;
    return Status::OK();
  };
  Status st;
  switch (r.type) {
    case UndoType::kInsert:
      st = ks->tree->Remove(r.key, nullptr, &ours);
      break;
    case UndoType::kUpdate:
    case UndoType::kDeleteMark: {
      std::array<std::byte, kSysFieldsSize> sys{};
      EncodeSysFields(sys.data(), r.old_trx_id, r.old_roll_ptr);
      // One B+tree write (one mini-transaction) restores value, hidden fields and mark.
      st = ks->tree->Update(r.key, r.old_value, sys, nullptr, &ours, r.old_delete_marked);
      break;
    }
    case UndoType::kBulkLoad:
      return EmptyTree(ks->tree.get());
  }
  if (st.code() == Code::kAborted || st.IsNotFound()) return Status::OK();
  return st;
}

Status RollBackUndo(const KeyspaceTable& keyspaces, TrxUndo* undo, uint64_t savepoint,
                    bool recovering) {
  std::string buf;
  UndoRecord r;
  for (;;) {
    ASSIGN_OR_RETURN(bool any, undo->PeekNewest(savepoint, &buf, &r));
    if (!any) return Status::OK();
    RETURN_IF_ERROR(ApplyUndoRecord(keyspaces, undo->trx_id(), r, recovering));
    RETURN_IF_ERROR(undo->PopNewest());
  }
}

}  // namespace minnow
