// Purge's thread and passes (purge.h).

#include "txn/purge.h"

#include <fmt/format.h>

#include <mutex>

#include "btree/btree.h"

namespace minnow {

void TxnServices::WakePurge() const {
  if (purge != nullptr) purge->Wake();  // none in a read-only database
}

void Purge::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void Purge::Wake() {
  LatchGuard g(latch_);
  wake_ = true;
  cv_.notify_one();
}

void Purge::Stop() {
  {
    LatchGuard g(latch_);
    stop_ = true;
    cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

void Purge::Loop() {
  for (;;) {
    {
      LatchGuard g(latch_);  // annotated, unlike std::unique_lock; the wait takes the Latch
      cv_.wait_for(latch_, interval_, [&]() REQUIRES(latch_) { return stop_ || wake_; });
      if (stop_) return;
      wake_ = false;
    }
    // Errors (an I/O failure) leave the logs in the history list for the next pass; the
    // database's writable status reports the failure to the transactions.
    for (int i = 0; i < 1000; ++i) {
      Result<uint64_t> n = Pass();
      if (!n.ok() || *n == 0) break;
      LatchGuard g(latch_);
      if (stop_) return;
    }
  }
}

Result<uint64_t> Purge::Pass() {
  SharedLatchGuard no_drops(*drop_latch_);  // no tree is freed under us
  const TrxId limit = services_->trx_sys->PurgeLimit();
  uint64_t logs = 0;
  for (; logs < 64; ++logs) {
    ASSIGN_OR_RETURN(bool purged, services_->undo_store->PurgeOldest(
                                      limit, [this](const UndoRecord& r, TrxId trx_id) {
                                        return PurgeRecord(r, trx_id);
                                      }));
    if (!purged) break;
  }
  return logs;
}

Status Purge::PurgeRecord(const UndoRecord& r, TrxId trx_id) {
  if (r.type != UndoType::kDeleteMark) return Status::OK();  // old versions just go
  KeyspaceState* ks = services_->keyspaces->FindLive(r.table_id);
  if (ks == nullptr) return Status::OK();  // dropped: its pages are gone already
  const Status still_ours(Code::kAborted, "changed since");
  const BeforeChange only_if_unchanged = [&](WriteNotice* n) -> Status {
    if (n->old == nullptr || !n->old->delete_marked || SysTrxId(n->old->sys.data()) != trx_id) {
      return still_ours;
    }
    return Status::OK();
  };
  Status st = ks->tree->Remove(r.key, nullptr, &only_if_unchanged);
  if (st.ok()) {
    services_->counters.CountPurged(1);
    return st;
  }
  if (st.code() == Code::kAborted || st.IsNotFound()) return Status::OK();
  return Status(st.code(),
                fmt::format("purge of a record of keyspace '{}': {}", ks->name, st.message()));
}

}  // namespace minnow
