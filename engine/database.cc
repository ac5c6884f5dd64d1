// The public Database and Session handles: thin forwards to DatabaseCore.
#include <fmt/format.h>

#include "engine/database_core_internal.h"
#include "engine/heap_table_internal.h"
#include "engine/transaction_impl_internal.h"
#include "lock/table_lock.h"
#include "minnow/db.h"

namespace minnow {

struct Database::Impl {
  std::unique_ptr<DatabaseCore> core;
};

struct Session::Impl {
  DatabaseCore* db;
  TransactionOptions autocommit{.autocommit = true};
  // Made with the session, so other threads (KILL QUERY, processlist) may ask it at any time.
  std::unique_ptr<TableLockOwner> table_lock_owner;
};

namespace {

// One autocommit statement: a transaction of its own, committed, or rolled back on an error.
Status Autocommit(Session* s, const TransactionOptions& o,
                  const std::function<Status(Transaction*)>& statement) {
  ASSIGN_OR_RETURN(std::unique_ptr<Transaction> txn, s->Begin(o));
  Status st = statement(txn.get());
  if (!st.ok()) {
    if (txn->active()) (void)txn->Rollback();  // a deadlock victim is rolled back already
    return st;
  }
  return txn->Commit();
}

}  // namespace

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;  // DatabaseCore's destructor closes

Result<std::unique_ptr<Database>> Database::Open(const Options& options) {
  auto core = DatabaseCore::Open(options);
  if (!core.ok()) return core.status();
  auto impl = std::make_unique<Impl>();
  impl->core = std::move(*core);
  return std::unique_ptr<Database>(new Database(std::move(impl)));
}

Status Database::Close() { return impl_->core->Close(); }

Status Database::CreateKeyspace(std::string_view name, const KeyspaceOptions& options) {
  return impl_->core->CreateKeyspace(name, options);
}

Status Database::DropKeyspace(std::string_view name) { return impl_->core->DropKeyspace(name); }

Result<Keyspace> Database::OpenKeyspace(std::string_view name) {
  ASSIGN_OR_RETURN(uint32_t id, impl_->core->FindKeyspace(name));
  return Keyspace(std::string(name), id, impl_->core->tag());
}

Result<std::vector<std::string>> Database::ListKeyspaces() { return impl_->core->ListKeyspaces(); }

void Database::set_max_write_lock_count(uint64_t n) {
  impl_->core->heap_tables()->globals()->set_max_write_lock_count(n);
}

Result<std::unique_ptr<Session>> Database::NewSession() {
  if (impl_->core->closed()) return Status::Closed("the database is closed");
  auto impl = std::make_unique<Session::Impl>();
  impl->db = impl_->core.get();
  impl->table_lock_owner = std::make_unique<TableLockOwner>(impl->db->heap_tables()->NextOwnerId());
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

Status Database::CheckIntegrity() { return impl_->core->CheckIntegrity(nullptr); }
Status Database::CheckIntegrity(std::vector<KeyspaceCheck>* reports) {
  return impl_->core->CheckIntegrity(reports);
}

DatabaseStats Database::stats() const { return impl_->core->stats(); }
Result<std::vector<DataLock>> Database::DataLocks() { return impl_->core->DataLocks(); }
Result<std::vector<MetadataLock>> Database::MetadataLocks() { return impl_->core->MetadataLocks(); }
Result<std::vector<DataLockWait>> Database::DataLockWaits() { return impl_->core->DataLockWaits(); }
Result<std::vector<TransactionInfo>> Database::Transactions() {
  return impl_->core->Transactions();
}

const RecoveryReport& Database::recovery_report() const { return impl_->core->recovery_report(); }
const Options& Database::options() const { return impl_->core->options(); }
Result<KeyspaceCheck> Database::InspectKeyspace(const Keyspace& ks) {
  return impl_->core->CheckKeyspace(ks.id_, ks.db_tag_);
}
Result<KeyspaceCheck> Database::CheckKeyspace(const Keyspace& ks) {
  return impl_->core->CheckKeyspace(ks.id_, ks.db_tag_);
}
std::optional<DeadlockReport> Database::LatestDeadlock() const {
  return impl_->core->LatestDeadlock();
}

HeapTables* Database::heap_tables_internal() const { return impl_->core->heap_tables(); }

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

TableLockOwner* Session::table_lock_owner_internal() { return impl_->table_lock_owner.get(); }

void Session::InterruptTableLockWait(bool interrupted) {
  table_lock_owner_internal()->SetInterrupted(interrupted);
}

bool Session::waiting_for_table_lock() { return table_lock_owner_internal()->waiting(); }

Result<std::unique_ptr<Transaction>> Session::Begin(const TransactionOptions& options) {
  if (impl_->db->closed()) return Status::Closed("the database is closed");
  auto impl = std::make_unique<Transaction::Impl>(impl_->db, options);
  return std::unique_ptr<Transaction>(new Transaction(std::move(impl)));
}

void Session::set_autocommit_options(const TransactionOptions& options) {
  impl_->autocommit = options;
  impl_->autocommit.autocommit = true;  // each call is a statement of its own
}

Result<bool> Session::Get(const Keyspace& ks, std::string_view key, std::string* value,
                          const ReadOptions& ro) {
  bool found = false;
  RETURN_IF_ERROR(Autocommit(this, impl_->autocommit, [&](Transaction* t) {
    ASSIGN_OR_RETURN(found, t->Get(ks, key, value, ro));
    return Status::OK();
  }));
  return found;
}

Status Session::Put(const Keyspace& ks, std::string_view key, std::string_view value) {
  return Autocommit(this, impl_->autocommit,
                    [&](Transaction* t) { return t->Put(ks, key, value); });
}

Status Session::Insert(const Keyspace& ks, std::string_view key, std::string_view value) {
  return Autocommit(this, impl_->autocommit,
                    [&](Transaction* t) { return t->Insert(ks, key, value); });
}

Status Session::Erase(const Keyspace& ks, std::string_view key) {
  return Autocommit(this, impl_->autocommit, [&](Transaction* t) { return t->Erase(ks, key); });
}

}  // namespace minnow
