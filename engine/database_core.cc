#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "buffer_pool/disk_backend.h"
#include "buffer_pool/doublewrite.h"
#include "engine/database_core_internal.h"
#include "txn/transaction_core.h"

namespace minnow {
namespace {

constexpr std::string_view kMemoryPath = ":memory:";
std::atomic<uint64_t> next_db_tag{1};

// Takes an advisory exclusive lock on the file so that a second Open (in this process or
// another) fails cleanly instead of two pools writing one file; a read-only open takes a shared
// one (read-only opens may share the file, not with a writer).
Result<int> LockFile(const std::string& path, bool shared) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status::IOError(fmt::format("open {}: {}", path, std::strerror(errno)));
  }
  if (::flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy(fmt::format("{} is already open (locked by another Database{})", path,
                                      shared ? " that writes it" : ""));
    }
    return Status::IOError(fmt::format("flock {}: {}", path, std::strerror(err)));
  }
  return fd;
}

// `*created`: the file did not exist and this call created it.
Result<std::unique_ptr<DiskBackend>> OpenBackend(const Options& o, bool* created) {
  if (o.path == kMemoryPath) return NewMemoryBackend(NewMemoryDisk(std::string(kMemoryPath)));
  std::error_code ec;
  const auto st = std::filesystem::status(o.path, ec);
  const bool exists = std::filesystem::exists(st);
  if (exists && o.error_if_exists) {
    return Status::InvalidArgument(fmt::format("{} exists (error_if_exists is set)", o.path));
  }
  if (exists && !std::filesystem::is_regular_file(st)) {
    return Status::InvalidArgument(fmt::format("{} is not a regular file", o.path));
  }
  if (!exists && o.read_only) {
    return Status::NotFound(
        fmt::format("{} does not exist (a read-only open creates nothing)", o.path));
  }
  if (!exists && !o.create_if_missing) {
    return Status::NotFound(fmt::format("{} does not exist (create_if_missing is off)", o.path));
  }
  if (o.read_only) return OpenFileBackend(o.path, FileOpenMode::kReadOnly);
  if (!exists) {
    // O_EXCL: only a file this call made is ever removed again by a failed Open.
    auto file = OpenFileBackend(o.path, FileOpenMode::kCreateNew);
    if (file.ok()) *created = true;
    if (file.ok() || file.status().code() != Code::kBusy) return file;
  }
  auto file = OpenFileBackend(o.path, FileOpenMode::kExisting);
  if (!file.ok() && file.status().code() == Code::kIOError && ::access(o.path.c_str(), W_OK) != 0 &&
      (errno == EACCES || errno == EROFS || errno == EPERM)) {
    return Status::ReadOnly(fmt::format(
        "{} cannot be opened for writing ({}); to read it, open it read-only (Options::read_only, "
        "minnow_shell --read-only)",
        o.path, std::strerror(errno)));
  }
  return file;
}

}  // namespace

// Removes what a failed Open made (best effort), never a file that existed before it: the log
// directory and the doublewrite file if they were made while this Open held the file lock (no
// other Open can have made them then), and the data file if this Open created it. The data file
// goes last: a data file without its log is a new database, which a later Open formats again.
// The lock is still held (through lock_fd), so no other Open is using the files meanwhile.
void DatabaseCore::NewFiles::RemoveAfterFailure(const std::string& path) const {
  std::error_code ec;
  if (lock_fd >= 0 && !log_dir_existed) std::filesystem::remove_all(LogDirFor(path), ec);
  if (lock_fd >= 0 && !dblwr_existed) std::filesystem::remove(DoublewritePathFor(path), ec);
  if (data_file) std::filesystem::remove(path, ec);
}

DatabaseCore::NewFiles::~NewFiles() {
  if (lock_fd >= 0) ::close(lock_fd);
}

namespace {

Status ValidateOptions(const Options& o) {
  if (o.path.empty()) return Status::InvalidArgument("Options::path is empty");
  if (o.flush_log_at_trx_commit > 2) {
    return Status::InvalidArgument(fmt::format(
        "Options::flush_log_at_trx_commit is {}; it must be 0, 1 or 2", o.flush_log_at_trx_commit));
  }
  constexpr uint64_t kMinLog = 64 << 10;
  if (o.log_file_bytes < kMinLog) {
    return Status::InvalidArgument(fmt::format(
        "Options::log_file_bytes is {}; it must be at least {}", o.log_file_bytes, kMinLog));
  }
  if (o.log_capacity_bytes < kMinLog) {
    return Status::InvalidArgument(
        fmt::format("Options::log_capacity_bytes is {}; it must be at least {}",
                    o.log_capacity_bytes, kMinLog));
  }
  if (o.log_flush_interval_ms == 0) {
    return Status::InvalidArgument("Options::log_flush_interval_ms must be at least 1");
  }
  if (o.read_only && o.path == kMemoryPath) {
    return Status::InvalidArgument("Options::read_only needs a database file, not \":memory:\"");
  }
  if (o.read_only && o.error_if_exists) {
    return Status::InvalidArgument(
        "Options::read_only opens an existing database: error_if_exists cannot be set with it");
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<DatabaseCore>> DatabaseCore::Open(const Options& options) {
  RETURN_IF_ERROR(ValidateOptions(options));
  NewFiles made;
  if (options.path != kMemoryPath) {
    std::error_code ec;
    made.log_dir_existed = std::filesystem::exists(LogDirFor(options.path), ec);
    made.dblwr_existed = std::filesystem::exists(DoublewritePathFor(options.path), ec);
  }
  auto db = OpenFiles(options, &made);
  // On an error the half-opened DatabaseCore is gone already: its files are closed.
  if (!db.ok()) made.RemoveAfterFailure(options.path);
  return db;
}

Result<std::unique_ptr<DatabaseCore>> DatabaseCore::OpenFiles(const Options& options,
                                                              NewFiles* made) {
  std::unique_ptr<DatabaseCore> db(new DatabaseCore());
  db->path_ = options.path;
  db->options_ = options;
  db->options_.purge_interval_ms = std::max<uint32_t>(1, options.purge_interval_ms);
  db->lock_wait_timeout_ = std::chrono::milliseconds(options.lock_wait_timeout_ms);
  db->deadlock_detect_ = options.deadlock_detect;
  db->purge_interval_ = std::chrono::milliseconds(std::max<uint32_t>(1, options.purge_interval_ms));
  DatabaseCore* core = db.get();
  db->lock_sys_ = std::make_unique<LockSys>(LockSysOptions{
      .deadlock_detect = options.deadlock_detect,
      .on_deadlock = [core](const DeadlockInfo& info) { core->RecordDeadlock(info); }});
  // Metadata-lock waits join row-lock waits in deadlock detection (lock/lock_sys.h).
  db->lock_sys_->AttachMetadataLocks(db->mdl_.get());
  db->lock_listener_ = std::make_unique<LockListener>(db->lock_sys_.get());
  TxnServices& svc = db->services_;
  svc.lock_sys = db->lock_sys_.get();
  svc.mdl = db->mdl_.get();
  svc.keyspaces = &db->keyspaces_;
  svc.lock_wait_timeout = db->lock_wait_timeout_;
  svc.metadata_lock_wait_timeout = std::chrono::milliseconds(options.metadata_lock_wait_timeout_ms);
  svc.flush_policy = static_cast<FlushPolicy>(options.flush_log_at_trx_commit);
  // The background flusher checkpoints past the capacity; writers step in at twice it.
  svc.log_free_check_bytes =
      options.background_flusher ? 2 * options.log_capacity_bytes : options.log_capacity_bytes;
  ASSIGN_OR_RETURN(auto backend, OpenBackend(options, &made->data_file));
  BufferPoolOptions bpo;
  bpo.pool_bytes = options.buffer_pool_bytes;
  bpo.background_flusher = options.background_flusher;
  bpo.read_ahead = options.read_ahead;
  bpo.create_if_missing = options.create_if_missing;
  bpo.log_capacity_bytes = options.log_capacity_bytes;
  bpo.read_only = options.read_only;
  svc.read_only = options.read_only;
  if (options.path == kMemoryPath) {
    ASSIGN_OR_RETURN(db->pool_, BufferPool::Open(std::move(backend), bpo));
    RETURN_IF_ERROR(db->OpenKeyspaces());
    RETURN_IF_ERROR(db->OpenTransactions());
  } else {
    auto lock = LockFile(options.path, options.read_only);
    if (!lock.ok()) {
      made->data_file = false;  // another Open holds the file now: it is that one's to keep
      return lock.status();
    }
    db->lock_fd_ = *lock;
    made->lock_fd = ::dup(*lock);  // the same flock: held until a failed Open has cleaned up
    if (made->lock_fd < 0) made->data_file = false;  // cannot clean up safely: keep it
    RETURN_IF_ERROR(db->OpenDurable(options, std::move(backend), bpo));
  }
  db->tag_ = next_db_tag.fetch_add(1, std::memory_order_relaxed);
  return db;
}

Status DatabaseCore::OpenKeyspaces() {
  LatchGuard guard(catalog_latch_);
  ASSIGN_OR_RETURN(catalog_, Catalog::OpenOrCreate(pool_.get()));
  ASSIGN_OR_RETURN(std::vector<CatalogEntry> entries, catalog_->LoadAll());
  ASSIGN_OR_RETURN(heap_tables_, HeapTables::Open(pool_.get(), &services_, lock_wait_timeout_));
  for (CatalogEntry& e : entries) {
    auto tree = BTree::Open(pool_.get(), e.root, lock_listener_.get());
    if (!tree.ok()) {
      return Status(tree.status().code(), fmt::format("keyspace '{}' (root page {}): {}", e.name,
                                                      e.root, tree.status().message()));
    }
    const TreeOptions& to = (*tree)->options();
    if (!to.sys_fields || to.compress_lz4 != (e.options.compression == Compression::kLz4)) {
      return Status::Corruption(fmt::format(
          "keyspace '{}': root page {} has options that do not match the catalog", e.name, e.root));
    }
    AddState(std::move(e), std::move(*tree));
  }
  return Status::OK();
}

KeyspaceState* DatabaseCore::AddState(CatalogEntry entry, std::unique_ptr<BTree> tree) {
  auto state = std::make_unique<KeyspaceState>();
  state->name = std::move(entry.name);
  state->id = entry.id;
  state->table_id = entry.owner_id != 0 ? entry.owner_id : entry.id;
  state->options = entry.options;
  state->tree = std::move(tree);
  KeyspaceState* s = keyspaces_.Add(std::move(state));
  by_name_.emplace(s->name, s);
  return s;
}

DatabaseCore::~DatabaseCore() {
  // A half-opened database (Open failed) has no pool, or a pool nobody wrote through: it is
  // dropped without a flush.
  if (!closed() && pool_ != nullptr && catalog_ != nullptr && trx_sys_ != nullptr) (void)Close();
  StopPurge();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Status DatabaseCore::Close() {
  LatchGuard guard(catalog_latch_);
  if (closed()) return Status::Closed("the database is already closed");
  StopPurge();
  // The Close() contract: no thread is inside a call now, so no active transaction's thread is
  // either; roll them back (a waiter would have been inside a call).
  std::vector<TransactionCore*> active;  // each trx_sys owner is a TransactionCore
  trx_sys_->ForEachActive(
      [&](TrxId, void* owner) { active.push_back(static_cast<TransactionCore*>(owner)); });
  for (TransactionCore* t : active) t->RollbackForClose();
  lock_sys_->Shutdown();
  mdl_->Shutdown();
  final_stats_ = LiveStats();
  services_.closed.store(true, std::memory_order_release);
  // A clean close leaves nothing to recover: the whole log durable, every page written, and a
  // checkpoint at the end of the log. After a write failure only recovery can be trusted: the
  // pool refuses to write, and the next Open recovers.
  Status st;
  if (log_ != nullptr) {
    log_->StopBackground();
    st = log_->FlushUpTo(log_->current_lsn());
  }
  Status pool_st = pool_->Close();
  if (st.ok()) st = pool_st;
  final_stats_.dirty_pages = 0;
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);  // releases the flock
    lock_fd_ = -1;
  }
  return st;
}

Status DatabaseCore::BadHandle(uint32_t id, uint64_t db_tag) const {
  if (id == 0) return Status::InvalidArgument("empty Keyspace handle (use OpenKeyspace)");
  if (db_tag != tag_) {
    return Status::InvalidArgument("Keyspace handle belongs to another Database");
  }
  KeyspaceState* s = keyspaces_.Find(id);
  if (s == nullptr) return Status::InvalidArgument(fmt::format("no keyspace with id {}", id));
  return Status::InvalidArgument(fmt::format("keyspace '{}' was dropped", s->name));
}

Status DatabaseCore::CreateKeyspace(std::string_view name, const KeyspaceOptions& options) {
  RETURN_IF_ERROR(ValidateKeyspaceName(name));
  if (options.compression != Compression::kNone && options.compression != Compression::kLz4) {
    return Status::InvalidArgument("unknown KeyspaceOptions::compression");
  }
  LatchGuard guard(catalog_latch_);
  if (closed()) return Status::Closed("the database is closed");
  RETURN_IF_ERROR(WritableStatus());
  TreeOptions to;
  to.sys_fields = true;
  to.compress_lz4 = options.compression == Compression::kLz4;
  CatalogEntry entry;
  entry.name = std::string(name);
  entry.options = options;
  // Name check first, so a duplicate allocates no tree.
  auto dup = catalog_->tree()->Get(AsBytes(name));
  if (dup.ok()) return Status::DuplicateKey(fmt::format("keyspace '{}' already exists", name));
  if (!dup.status().IsNotFound()) return dup.status();
  if (!options.secondary_of.empty()) {
    auto owner = by_name_.find(options.secondary_of);
    if (owner == by_name_.end()) {
      return Status::InvalidArgument(
          fmt::format("keyspace '{}': secondary_of names '{}', which does not exist", name,
                      options.secondary_of));
    }
    if (owner->second->secondary()) {
      return Status::InvalidArgument(
          fmt::format("keyspace '{}': secondary_of names '{}', itself a secondary index", name,
                      options.secondary_of));
    }
    entry.owner_id = owner->second->id;
  }
  ASSIGN_OR_RETURN(entry.root, BTree::Create(pool_.get(), to));
  auto tree = BTree::Open(pool_.get(), entry.root, lock_listener_.get());
  Status st = tree.ok() ? catalog_->Add(&entry) : tree.status();
  if (!st.ok()) {
    if (tree.ok()) {
      (void)(*tree)->Drop();
    } else if (auto t = BTree::Open(pool_.get(), entry.root); t.ok()) {
      (void)(*t)->Drop();
    }
    return st;
  }
  AddState(std::move(entry), std::move(*tree));
  return Status::OK();
}

Status DatabaseCore::DropKeyspace(std::string_view name) {
  if (closed()) return Status::Closed("the database is closed");
  RETURN_IF_ERROR(WritableStatus());
  // Like DDL behind a metadata lock: an X table lock waits (holding no latch) until no
  // transaction holds a lock on the keyspace; concurrent drops queue for it too.
  // A secondary index's is its owner's table lock (InnoDB's DROP INDEX also excludes the table).
  uint32_t table_id;
  {
    LatchGuard guard(catalog_latch_);
    auto it = by_name_.find(name);
    if (it == by_name_.end()) {
      return Status::NotFound(fmt::format("keyspace '{}' does not exist", name));
    }
    table_id = it->second->table_id;
  }
  std::unique_ptr<TrxLocks> ddl = lock_sys_->Register(0);
  Status st = lock_sys_->LockTable(ddl.get(), table_id, TrxLockMode::kX);
  if (st.code() == Code::kLockWait) st = lock_sys_->Wait(ddl.get(), lock_wait_timeout_);
  if (st.ok()) {
    drop_latch_.Acquire();
    st = DropLocked(name);
    drop_latch_.Release();
  }
  lock_sys_->ReleaseAll(ddl.get());
  return st;
}

Status DatabaseCore::DropLocked(std::string_view name) {
  LatchGuard guard(catalog_latch_);
  if (closed()) return Status::Closed("the database is closed");
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    return Status::NotFound(fmt::format("keyspace '{}' does not exist", name));
  }
  KeyspaceState* s = it->second;
  RETURN_IF_ERROR(catalog_->Remove(name));
  by_name_.erase(it);
  s->dropped.store(true, std::memory_order_release);
  return s->tree->Drop();  // the name is gone either way; a failure only leaks pages
}

Result<uint32_t> DatabaseCore::FindKeyspace(std::string_view name) {
  LatchGuard guard(catalog_latch_);
  if (closed()) return Status::Closed("the database is closed");
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    return Status::NotFound(fmt::format("keyspace '{}' does not exist", name));
  }
  return it->second->id;
}

Result<std::vector<std::string>> DatabaseCore::ListKeyspaces() {
  LatchGuard guard(catalog_latch_);
  if (closed()) return Status::Closed("the database is closed");
  std::vector<std::string> names;
  names.reserve(by_name_.size());
  for (const auto& [name, state] : by_name_) names.push_back(name);
  return names;
}

namespace {

// One tree's Check(), as CheckIntegrity and CheckKeyspace report it.
Result<KeyspaceCheck> CheckTree(const std::string& name, uint32_t id, const BTree& tree) {
  Result<CheckReport> r = tree.Check();
  if (!r.ok()) {
    return Status(r.status().code(), fmt::format("keyspace '{}': {}", name, r.status().message()));
  }
  return ToKeyspaceCheck(name, id, *r);
}

}  // namespace

Status DatabaseCore::CheckIntegrity(std::vector<KeyspaceCheck>* reports) {
  RETURN_IF_ERROR(CheckKeyspaces(reports));
  // After the keyspaces, outside the catalog latch: each heap table is checked under its table
  // lock, and lock waits come before latches.
  return heap_tables_->CheckAll(reports);
}

Status DatabaseCore::CheckKeyspaces(std::vector<KeyspaceCheck>* reports) {
  LatchGuard guard(catalog_latch_);
  if (closed()) return Status::Closed("the database is closed");
  auto add = [&](const std::string& name, uint32_t id, const BTree& tree) -> Status {
    ASSIGN_OR_RETURN(KeyspaceCheck k, CheckTree(name, id, tree));
    if (reports != nullptr) reports->push_back(std::move(k));
    return Status::OK();
  };
  RETURN_IF_ERROR(add("(catalog)", 0, *catalog_->tree()));
  // The catalog must name exactly the live keyspaces.
  ASSIGN_OR_RETURN(std::vector<CatalogEntry> entries, catalog_->LoadAll());
  size_t live = 0;
  for (KeyspaceState* s : keyspaces_.All()) {
    if (s->dropped.load(std::memory_order_acquire)) continue;
    ++live;
    RETURN_IF_ERROR(add(s->name, s->id, *s->tree));
  }
  if (live != entries.size()) {
    return Status::Corruption(
        fmt::format("catalog lists {} keyspaces, {} are open", entries.size(), live));
  }
  return Status::OK();
}

Result<KeyspaceCheck> DatabaseCore::CheckKeyspace(uint32_t id, uint64_t db_tag) {
  if (closed()) return Status::Closed("the database is closed");
  // Check() S-latches the path from the root down as it walks (so no structure change runs
  // meanwhile, and what it counts is one consistent tree); the drop latch keeps the pages from
  // being freed under it. No catalog latch: DDL on other keyspaces goes on.
  SharedLatchGuard no_drops(drop_latch_);
  ASSIGN_OR_RETURN(KeyspaceState * s, Resolve(id, db_tag));
  return CheckTree(s->name, s->id, *s->tree);
}

DatabaseStats DatabaseCore::LiveStats() const {
  DatabaseStats s;
  const BufferPoolStats p = pool_->stats();
  s.pool_hits = p.hits;
  s.pool_misses = p.misses;
  s.pool_reads = p.reads;
  s.pool_read_calls = p.read_calls;
  s.pool_read_ahead = p.read_ahead;
  s.pool_read_ahead_evicted = p.read_ahead_evicted;
  s.pool_writes = p.writes;
  s.pool_evictions = p.evictions;
  s.dirty_pages = p.dirty_pages;
  s.pool_frames = p.frames;
  s.pool_free_frames = p.free_frames;
  s.pool_pages = p.lru_pages;
  s.pool_old_pages = p.old_lru_pages;
  s.pages_created = p.pages_created;
  s.file_pages = p.pages_in_file;
  s.free_pages = p.free_pages;
  s.logical_bytes = pool_->logical_size();
  auto phys = pool_->physical_size();
  s.physical_bytes = phys.ok() ? *phys : 0;
  s.redo_lsn = pool_->log() != nullptr ? pool_->log()->current_lsn() : 0;
  const TxnCounters& c = services_.counters;
  s.commits = c.commits.Sum();
  s.rollbacks = c.rollbacks.Sum();
  s.durable_commits = c.durable_commits.Sum();
  s.checkpoints = p.checkpoints;
  const LockSysStats l = lock_sys_->stats();
  s.lock_structs = l.structs;
  s.record_lock_structs = l.record_structs;
  s.lock_heap_bytes = l.heap_bytes;
  s.row_locks = l.row_locks;
  s.row_lock_waits = l.waits;
  s.row_lock_current_waits = l.waiting_now;
  s.row_lock_time_us = l.wait_micros;
  s.row_lock_time_max_us = l.max_wait_micros;
  s.lock_wait_timeouts = l.timeouts;
  s.deadlocks = l.deadlocks;
  const MdlStats m = mdl_->stats();
  s.metadata_lock_waits = m.waits;
  s.metadata_lock_current_waits = m.waiting_now;
  s.metadata_lock_timeouts = m.timeouts;
  s.metadata_locks_held = m.held;
  if (trx_sys_ != nullptr) {
    s.trx_id_counter = trx_sys_->next_id();
    s.active_transactions = trx_sys_->active_count();
    s.read_views = trx_sys_->open_views();
  }
  if (undo_store_ != nullptr) s.history_list_length = undo_store_->history_length();
  s.purged_records = c.purged_records.load(std::memory_order_relaxed);
  if (heap_tables_ != nullptr) {
    const TableLockCounters t = heap_tables_->globals()->counters();
    s.table_locks_immediate = t.immediate;
    s.table_locks_waited = t.waited;
  }
  s.checkpoint_lsn = p.checkpoint_lsn;
  if (log_ != nullptr) {
    const DurableLogStats l = log_->stats();
    s.log_durable_lsn = l.durable_lsn;
    s.log_writes = l.writes;
    s.log_syncs = l.syncs;
    s.log_bytes_written = l.bytes_written;
  }
  return s;
}

DatabaseStats DatabaseCore::stats() const {
  if (closed()) {
    DatabaseStats s = final_stats_;
    const TxnCounters& c = services_.counters;
    s.durable_commits = c.durable_commits.Sum();
    s.commits = c.commits.Sum();
    s.rollbacks = c.rollbacks.Sum();
    return s;
  }
  return LiveStats();
}

}  // namespace minnow
