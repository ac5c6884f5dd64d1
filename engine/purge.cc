// Purge (InnoDB's purge coordinator, one thread): committed update undo logs wait in the
// history list until no read view can need them (TrxSys::PurgeLimit); then their delete-mark
// records name the records to remove for good, and the logs are freed.
//
// A delete-marked record is removed only if it is still the version the undo record left:
// delete-marked, with DB_TRX_ID = the purged transaction's id. A later change (an insert
// over it, which clears the mark and stamps a newer id) keeps it. The removal goes through
// the B+tree, which passes the record's locks to its successor as gap locks (LockListener).

#include <fmt/format.h>

#include "engine/database_core_internal.h"
#include "mvcc/undo_record.h"

namespace minnow {

void DatabaseCore::WakePurge() {
  LatchGuard g(purge_latch_);
  purge_wake_ = true;
  purge_cv_.notify_one();
}

void DatabaseCore::StopPurge() {
  {
    LatchGuard g(purge_latch_);
    purge_stop_ = true;
    purge_cv_.notify_one();
  }
  if (purge_thread_.joinable()) purge_thread_.join();
}

void DatabaseCore::PurgeLoop() {
  for (;;) {
    {
      LatchGuard g(purge_latch_);  // annotated, unlike std::unique_lock; the wait takes the Latch
      purge_cv_.wait_for(purge_latch_, purge_interval_,
                         [&]() REQUIRES(purge_latch_) { return purge_stop_ || purge_wake_; });
      if (purge_stop_) return;
      purge_wake_ = false;
    }
    // Errors (an I/O failure) leave the logs in the history list for the next pass; the
    // database's writable status reports the failure to the transactions.
    for (int i = 0; i < 1000; ++i) {
      Result<uint64_t> n = PurgePass();
      if (!n.ok() || *n == 0) break;
      LatchGuard g(purge_latch_);
      if (purge_stop_) return;
    }
  }
}

Result<uint64_t> DatabaseCore::PurgePass() {
  SharedLatchGuard no_drops(drop_latch_);  // no tree is freed under us
  const TrxId limit = trx_sys_->PurgeLimit();
  uint64_t logs = 0;
  for (; logs < 64; ++logs) {
    ASSIGN_OR_RETURN(bool purged,
                     undo_store_->PurgeOldest(limit, [this](const UndoRecord& r, TrxId trx_id) {
                       return PurgeRecord(r, trx_id);
                     }));
    if (!purged) break;
  }
  return logs;
}

Status DatabaseCore::PurgeRecord(const UndoRecord& r, TrxId trx_id) {
  if (r.type != UndoType::kDeleteMark) return Status::OK();  // old versions just go
  KeyspaceState* ks = FindLive(r.table_id);
  if (ks == nullptr) return Status::OK();  // dropped: its pages are gone already
  const Status still_ours(Code::kAborted, "changed since");
  BeforeChange only_if_unchanged = [&](WriteNotice* n) -> Status {
    if (n->old == nullptr || !n->old->delete_marked || SysTrxId(n->old->sys.data()) != trx_id) {
      return still_ours;
    }
    return Status::OK();
  };
  Status st = ks->tree->Remove(r.key, nullptr, &only_if_unchanged);
  if (st.ok()) {
    CountPurged(1);
    return st;
  }
  if (st.code() == Code::kAborted || st.IsNotFound()) return Status::OK();
  return Status(st.code(),
                fmt::format("purge of a record of keyspace '{}': {}", ks->name, st.message()));
}

}  // namespace minnow
