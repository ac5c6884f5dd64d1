// The public Transaction and Iterator handles. These are the per-call paths (Get/Put/...), kept
// thin: check the transaction is open, resolve the Keyspace handle through the lock-free table,
// check sizes, then one B+tree call.
#include <fmt/format.h>

#include "engine/transaction_impl_internal.h"
#include "minnow/db.h"

namespace minnow {

Transaction::Transaction(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Transaction::~Transaction() = default;  // TransactionCore's destructor rolls back

Result<bool> Transaction::Get(const Keyspace& ks, std::string_view key, std::string* value,
                              const ReadOptions& ro) {
  TransactionCore& t = impl_->core;
  RETURN_IF_ERROR(t.CheckOpen());
  ASSIGN_OR_RETURN(KeyspaceState * s, impl_->db->Resolve(ks.id_, ks.db_tag_));
  RETURN_IF_ERROR(CheckKeySize(key));
  return t.Get(s, key, value, ro.lock_mode, ro.wait);
}

Result<std::string> Transaction::Get(const Keyspace& ks, std::string_view key,
                                     const ReadOptions& ro) {
  std::string value;
  ASSIGN_OR_RETURN(bool found, Get(ks, key, &value, ro));
  if (!found) {
    return Status::NotFound(
        fmt::format("key ({} bytes) not found in keyspace '{}'", key.size(), ks.name()));
  }
  return value;
}

Status Transaction::Put(const Keyspace& ks, std::string_view key, std::string_view value) {
  TransactionCore& t = impl_->core;
  RETURN_IF_ERROR(t.CheckOpen());
  ASSIGN_OR_RETURN(KeyspaceState * s, impl_->db->Resolve(ks.id_, ks.db_tag_));
  RETURN_IF_ERROR(CheckKeySize(key));
  RETURN_IF_ERROR(CheckValueSize(value));
  return t.Put(s, key, value);
}

Status Transaction::Insert(const Keyspace& ks, std::string_view key, std::string_view value) {
  return Insert(ks, key, value, InsertOptions{});
}

Status Transaction::Insert(const Keyspace& ks, std::string_view key, std::string_view value,
                           const InsertOptions& options) {
  TransactionCore& t = impl_->core;
  RETURN_IF_ERROR(t.CheckOpen());
  ASSIGN_OR_RETURN(KeyspaceState * s, impl_->db->Resolve(ks.id_, ks.db_tag_));
  RETURN_IF_ERROR(CheckKeySize(key));
  RETURN_IF_ERROR(CheckValueSize(value));
  if (options.unique_prefix > key.size()) {
    return Status::InvalidArgument("InsertOptions::unique_prefix is longer than the key");
  }
  return t.Insert(s, key, value, options);
}

Status Transaction::Erase(const Keyspace& ks, std::string_view key) {
  TransactionCore& t = impl_->core;
  RETURN_IF_ERROR(t.CheckOpen());
  ASSIGN_OR_RETURN(KeyspaceState * s, impl_->db->Resolve(ks.id_, ks.db_tag_));
  RETURN_IF_ERROR(CheckKeySize(key));
  return t.Erase(s, key);
}

Status Transaction::BulkInsert(
    const Keyspace& ks,
    const std::function<bool(std::string_view* key, std::string_view* value)>& next) {
  TransactionCore& t = impl_->core;
  RETURN_IF_ERROR(t.CheckOpen());
  ASSIGN_OR_RETURN(KeyspaceState * s, impl_->db->Resolve(ks.id_, ks.db_tag_));
  return t.BulkInsert(s, next);
}

Result<std::unique_ptr<Iterator>> Transaction::NewIterator(const Keyspace& ks,
                                                           const ReadOptions& ro) {
  TransactionCore& t = impl_->core;
  RETURN_IF_ERROR(t.CheckOpen());
  ASSIGN_OR_RETURN(KeyspaceState * s, impl_->db->Resolve(ks.id_, ks.db_tag_));
  if (t.EffectiveMode(ro.lock_mode) != LockMode::kNone) {
    RETURN_IF_ERROR(t.PrepareLocking(s, t.EffectiveMode(ro.lock_mode)));
  }
  auto impl = std::make_unique<Iterator::Impl>(&t, s, ro);
  return std::unique_ptr<Iterator>(new Iterator(std::move(impl)));
}

Status Transaction::UnlockLastGet(const Keyspace& ks) {
  TransactionCore& t = impl_->core;
  RETURN_IF_ERROR(t.CheckOpen());
  ASSIGN_OR_RETURN(KeyspaceState * s, impl_->db->Resolve(ks.id_, ks.db_tag_));
  return t.UnlockLastGet(s);
}

Result<uint64_t> Transaction::Count(const Keyspace& ks, std::string_view lo, std::string_view hi,
                                    const ReadOptions& ro) {
  TransactionCore& t = impl_->core;
  RETURN_IF_ERROR(t.CheckOpen());
  ASSIGN_OR_RETURN(KeyspaceState * s, impl_->db->Resolve(ks.id_, ks.db_tag_));
  return t.Count(s, lo, hi, ro);
}

Status Transaction::Commit() { return impl_->core.Commit(); }
Status Transaction::Rollback() { return impl_->core.Rollback(); }
bool Transaction::active() const { return impl_->core.active(); }
TransactionLockInfo Transaction::lock_info() const { return impl_->core.lock_info(); }
uint64_t Transaction::id() const { return impl_->core.public_id(); }
uint64_t Transaction::Savepoint() const { return impl_->core.Savepoint(); }
Status Transaction::RollbackToSavepoint(uint64_t savepoint) {
  return impl_->core.RollbackToSavepoint(savepoint);
}

Status Transaction::AssignReadView() {
  TransactionCore& t = impl_->core;
  RETURN_IF_ERROR(t.CheckOpen());
  if (t.isolation() >= IsolationLevel::kRepeatableRead) (void)t.TransactionView();
  return Status::OK();
}

void Transaction::SetSnapshotIsolation(bool on) { impl_->core.set_snapshot_isolation(on); }

Status Transaction::LockMetadata(std::string_view name, LockMode mode,
                                 const MetadataLockLabel& label) {
  return impl_->core.LockMetadata(name, mode, MdlLabel{label.type, label.duration});
}
uint64_t Transaction::metadata_lock_owner() const { return impl_->core.metadata_lock_owner(); }
bool Transaction::waiting_for_metadata_lock() const {
  return impl_->core.waiting_for_metadata_lock();
}

void Transaction::Interrupt() { impl_->core.SetInterrupted(true); }
void Transaction::ClearInterrupt() { impl_->core.SetInterrupted(false); }

Status Transaction::LockTable(const Keyspace& ks, LockMode mode) {
  TransactionCore& t = impl_->core;
  RETURN_IF_ERROR(t.CheckOpen());
  ASSIGN_OR_RETURN(KeyspaceState * s, impl_->db->Resolve(ks.id_, ks.db_tag_));
  return t.LockTable(s, mode);
}

// ---- the public Iterator handle: forwards to its TxnIterator (txn/txn_iterator.h), inline on
// the per-row calls (Next, Valid, key, value).

Iterator::Iterator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Iterator::~Iterator() = default;

Status Iterator::Seek(std::string_view key) { return impl_->it.Seek(key); }
Status Iterator::SeekForPrev(std::string_view key) { return impl_->it.SeekForPrev(key); }
Status Iterator::SeekToFirst() { return impl_->it.SeekToFirst(); }
Status Iterator::SeekToLast() { return impl_->it.SeekToLast(); }
Status Iterator::Next() { return impl_->it.Next(); }
Status Iterator::Prev() { return impl_->it.Prev(); }
bool Iterator::Valid() const { return impl_->it.Valid(); }
std::string_view Iterator::key() const { return impl_->it.Key(); }
Result<std::string_view> Iterator::value() { return impl_->it.Value(); }
Status Iterator::UnlockCurrent() { return impl_->it.UnlockCurrent(); }
bool Iterator::semi_consistent() const { return impl_->it.Valid() && impl_->it.semi_current; }
Status Iterator::LockCurrent() { return impl_->it.LockCurrent(); }

}  // namespace minnow
