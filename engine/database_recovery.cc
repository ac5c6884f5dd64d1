// Opening a file database: crash recovery.
//
//   1. torn pages: RepairTornPages restores pages torn by the crash from the doublewrite file;
//   2. page 0 gives the checkpoint LSN and the database id;
//   3. pass 1 scans the log from the checkpoint LSN: it validates every frame and finds the end
//      of the log (a torn tail is cut off);
//   4. the log is reopened for appending at that end, and the pool opened in recovery mode;
//   5. pass 2 replays every mini-transaction that ends after the checkpoint (pages whose
//      page_lsn shows they have it already are skipped), then the pool leaves recovery mode;
//   6. the trees are opened; the undo logs (mvcc/undo_store.h, recovered by redo like any page)
//      name the transactions left active, which are rolled back (OpenTransactions);
//   7. a checkpoint makes all of it durable, so the next open has nothing to do.
// A crash at any step is recovered by running them again: redo is idempotent (page LSNs) and so
// is the rollback (each undo record is popped only after it was applied, and applying one
// twice changes nothing: ApplyUndoRecord).

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "buffer_pool/doublewrite.h"
#include "common/crash_point.h"
#include "engine/database_core_internal.h"
#include "log/log_reader.h"
#include "txn/transaction_core.h"

namespace minnow {

namespace {

bool LogDirHasSegments(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return false;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".log") return true;
  }
  return false;
}

// Writes page 0 of a new database file (a pool formats an empty file when it opens).
Status FormatNewFile(const std::string& path) {
  ASSIGN_OR_RETURN(auto disk, OpenFileBackend(path, /*create=*/false));
  BufferPoolOptions o;
  o.pool_bytes = 0;  // the minimum
  o.background_flusher = false;
  ASSIGN_OR_RETURN(auto pool, BufferPool::Open(std::move(disk), o));
  return Status::OK();  // Format synced page 0; nothing else was written
}

Status WithPath(const std::string& path, const Status& st) {
  if (st.ok()) return st;
  return Status(st.code(), fmt::format("opening {}: {}", path, st.message()));
}

// A read-only open of a database that needs recovery: recovery writes.
Status NeedsRecovery(const std::string& path, const std::string& why) {
  return Status::ReadOnly(fmt::format(
      "{} needs crash recovery ({}), which writes: open it once without read-only mode first", path,
      why));
}

}  // namespace

std::string RecoveryReport::ToString() const {
  if (!recovered) return fmt::format("clean (checkpoint at LSN {})", checkpoint_lsn);
  std::string s = fmt::format("recovered log {}..{} ({} bytes scanned): {} redo groups applied",
                              checkpoint_lsn, end_lsn, log_bytes, redo_groups_applied);
  if (torn_log_tail) s += ", torn log tail cut off";
  s += fmt::format(", {} torn page{} repaired", pages_repaired, pages_repaired == 1 ? "" : "s");
  s += fmt::format(", {} transaction{} rolled back", transactions_rolled_back,
                   transactions_rolled_back == 1 ? "" : "s");
  if (heap_tables_repaired > 0) {
    s += fmt::format(", {} heap table{} repaired", heap_tables_repaired,
                     heap_tables_repaired == 1 ? "" : "s");
  }
  s += fmt::format(", in {:.1f} ms", millis);
  return s;
}

// Options::read_only: recovery's checks without its writes. A database with anything to
// repair, redo or roll back is refused; a torn log tail alone is harmless (nothing is appended
// after it) and is only reported.
Status DatabaseCore::OpenReadOnly(std::unique_ptr<DiskBackend> backend, BufferPoolOptions bpo) {
  const std::string log_dir = LogDirFor(path_);
  ASSIGN_OR_RETURN(uint64_t size, backend->Size());
  if (size == 0) {
    return Status::NotFound(
        fmt::format("{} is empty: no database yet (a read-only open creates nothing)", path_));
  }
  std::error_code ec;
  const bool had_dblwr = std::filesystem::exists(DoublewritePathFor(path_), ec);
  if (had_dblwr) {
    ASSIGN_OR_RETURN(auto dblwr,
                     OpenFileBackend(DoublewritePathFor(path_), FileOpenMode::kReadOnly));
    auto torn = RepairTornPages(dblwr.get(), backend.get(), /*check_only=*/true);
    if (!torn.ok()) return WithPath(path_, torn.status());
    if (!torn->repaired.empty()) {
      return NeedsRecovery(path_,
                           fmt::format("{} torn page(s) to restore from the doublewrite file",
                                       torn->repaired.size()));
    }
  }
  ASSIGN_OR_RETURN(const FileHeaderInfo h, ReadFileHeader(backend.get()));
  const ConstBytes db_id(h.database_id.data(), h.database_id.size());
  report_.checkpoint_lsn = h.checkpoint_lsn;
  if (had_dblwr || LogDirHasSegments(log_dir) || h.checkpoint_lsn != 0 || h.page_count != 1) {
    uint64_t groups = 0;
    auto scan = ScanLog(log_dir, db_id, h.checkpoint_lsn, [&](const LogFrame& f) -> Status {
      if (f.kind == LogFrameKind::kMtr && f.end_lsn > h.checkpoint_lsn) ++groups;
      return Status::OK();
    });
    if (!scan.ok()) return WithPath(path_, scan.status());
    if (groups > 0) {
      return NeedsRecovery(path_, fmt::format("{} redo group{} after the checkpoint at LSN {}",
                                              groups, groups == 1 ? "" : "s", h.checkpoint_lsn));
    }
    report_.end_lsn = scan->end_lsn;
    report_.log_bytes = scan->bytes;
    report_.torn_log_tail = scan->torn_tail;
  }
  bpo.recovery = false;
  ASSIGN_OR_RETURN(pool_, BufferPool::Open(std::move(backend), bpo));  // no log: nothing written
  RETURN_IF_ERROR(OpenKeyspaces());
  return WithPath(path_, OpenTransactions());
}

Status DatabaseCore::OpenDurable(const Options& options, std::unique_ptr<DiskBackend> backend,
                                 BufferPoolOptions bpo) {
  if (options.read_only) return OpenReadOnly(std::move(backend), bpo);
  const auto started = std::chrono::steady_clock::now();
  const std::string log_dir = LogDirFor(path_);
  DurableLogOptions lo;
  lo.dir = log_dir;
  lo.segment_bytes = options.log_file_bytes;
  lo.background_interval_ms = options.log_flush_interval_ms;

  ASSIGN_OR_RETURN(uint64_t size, backend->Size());
  if (size == 0) {
    // A new database. A log without its data file is somebody's lost database: never reuse it.
    if (LogDirHasSegments(log_dir)) {
      return Status::Corruption(fmt::format(
          "{} is empty but its redo log {} exists: the data file was lost or replaced; remove "
          "the log directory to create a new database",
          path_, log_dir));
    }
    RETURN_IF_ERROR(WithPath(path_, FormatNewFile(path_)));
  }
  // Creation order: data file, log, doublewrite file. A file without the last two was never used.
  std::error_code ec;
  const bool had_dblwr = std::filesystem::exists(DoublewritePathFor(path_), ec);
  std::unique_ptr<DiskBackend> dblwr;
  if (had_dblwr) {
    ASSIGN_OR_RETURN(dblwr, OpenFileBackend(DoublewritePathFor(path_), /*create=*/false));
    auto repair = RepairTornPages(dblwr.get(), backend.get());
    if (!repair.ok()) return WithPath(path_, repair.status());
    report_.pages_repaired = repair->repaired.size();
  }

  auto header = ReadFileHeader(backend.get());
  if (!header.ok()) return header.status();
  const FileHeaderInfo& h = *header;
  const ConstBytes db_id(h.database_id.data(), h.database_id.size());
  report_.checkpoint_lsn = h.checkpoint_lsn;

  // Pass 1 (skipped for a new file): validate the log and find its end.
  uint64_t groups = 0;  // mini-transactions after the checkpoint
  Lsn end_lsn = 0;
  if (had_dblwr || LogDirHasSegments(log_dir) || h.checkpoint_lsn != 0 || h.page_count != 1) {
    auto scan = ScanLog(log_dir, db_id, h.checkpoint_lsn, [&](const LogFrame& f) -> Status {
      if (f.kind == LogFrameKind::kMtr && f.end_lsn > h.checkpoint_lsn) ++groups;
      return Status::OK();
    });
    if (!scan.ok()) return WithPath(path_, scan.status());
    end_lsn = scan->end_lsn;
    report_.end_lsn = end_lsn;
    report_.log_bytes = scan->bytes;
    report_.torn_log_tail = scan->torn_tail;
  }
  // Otherwise the file is new, or was formatted and then a crash came before the log was made:
  // nothing was ever written, and the log starts at 0.
  ASSIGN_OR_RETURN(log_, DurableRedoLog::Open(lo, db_id, end_lsn));
  if (dblwr == nullptr) {
    ASSIGN_OR_RETURN(dblwr, OpenFileBackend(DoublewritePathFor(path_), /*create=*/true));
  }

  // Pass 2: redo. With nothing to redo the pool opens normally, and so also checks that the file
  // is as long as page 0 says (in recovery mode pages past the end may be missing: they were
  // allocated after the checkpoint, and redo re-creates them).
  bpo.recovery = groups > 0;
  ASSIGN_OR_RETURN(pool_, BufferPool::Open(std::move(backend), bpo, log_.get(), std::move(dblwr)));
  if (groups > 0) {
    auto redo = ScanLog(log_dir, db_id, h.checkpoint_lsn, [&](const LogFrame& f) -> Status {
      if (f.kind != LogFrameKind::kMtr || f.end_lsn <= h.checkpoint_lsn) return Status::OK();
      MINNOW_CRASH_POINT("recovery.redo");
      auto applied = pool_->ApplyLogRecords(f.payload, f.start_lsn, f.end_lsn);
      if (!applied.ok()) {
        return Status(applied.status().code(),
                      fmt::format("redo of the mini-transaction at LSN {}: {}", f.start_lsn,
                                  applied.status().message()));
      }
      ++report_.redo_groups_applied;
      return Status::OK();
    });
    if (!redo.ok()) return WithPath(path_, redo.status());
    RETURN_IF_ERROR(pool_->EndRecovery());
  }
  RETURN_IF_ERROR(OpenKeyspaces());
  RETURN_IF_ERROR(WithPath(path_, OpenTransactions()));
  // Heap tables have no undo: a crash between a row's heap change and its index entries leaves
  // them apart, and the indexes are rebuilt from the heap (MyISAM's automatic repair).
  if (report_.redo_groups_applied > 0 || report_.pages_repaired > 0) {
    auto repaired = heap_tables_->RepairAfterCrash();
    if (!repaired.ok()) return WithPath(path_, repaired.status());
    report_.heap_tables_repaired = *repaired;
  }
  report_.recovered = report_.redo_groups_applied > 0 || report_.pages_repaired > 0 ||
                      report_.transactions_rolled_back > 0 || report_.torn_log_tail;
  // The end-of-recovery checkpoint: the next open starts from here.
  if (report_.recovered) RETURN_IF_ERROR(pool_->FlushAll());
  if (services_.flush_policy != FlushPolicy::kSyncAtCommit) log_->StartBackground();
  report_.millis =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return Status::OK();
}

Status DatabaseCore::OpenTransactions() {
  services_.pool = pool_.get();
  services_.log = log_.get();
  ASSIGN_OR_RETURN(undo_store_, UndoStore::Open(pool_.get()));
  services_.undo_store = undo_store_.get();
  ASSIGN_OR_RETURN(std::vector<std::unique_ptr<TrxUndo>> active, undo_store_->RecoverActive());
  if (services_.read_only && !active.empty()) {
    return NeedsRecovery(path_, fmt::format("{} transaction{} left active to roll back",
                                            active.size(), active.size() == 1 ? "" : "s"));
  }
  // Ids restart above every id handed out before (the bound was raised before they were).
  // Id 0 means "none" (a transaction that never wrote; rows written before MVCC).
  const TrxId first_id = std::max<TrxId>(1, undo_store_->trx_id_bound());
  trx_sys_ = std::make_unique<TrxSys>(
      first_id, [this](TrxId bound) { return undo_store_->SetTrxIdBound(bound); });
  services_.trx_sys = trx_sys_.get();
  for (std::unique_ptr<TrxUndo>& undo : active) {
    // No lock is needed: nothing else runs yet, and the records' DB_TRX_IDs are below every
    // new id. The changes are redo-logged; a crash here rolls back again from what is left.
    Status st = RollBackUndo(keyspaces_, undo.get(), 0, /*recovering=*/true);
    Result<Lsn> end = st.ok() ? undo->Discard() : Result<Lsn>(st);
    if (!end.ok()) {
      return Status(end.status().code(),
                    fmt::format("rolling back transaction {} left active by a crash: {}",
                                undo->trx_id(), end.status().message()));
    }
    ++report_.transactions_rolled_back;
  }
  if (services_.read_only) return Status::OK();  // purge writes: none in a read-only database
  purge_ = std::make_unique<Purge>(&services_, &drop_latch_, purge_interval_);
  services_.purge = purge_.get();
  purge_->Start();
  return Status::OK();
}

}  // namespace minnow
