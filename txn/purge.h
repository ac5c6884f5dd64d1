#pragma once
// Purge (InnoDB's purge coordinator, one thread): committed update undo logs wait in the
// history list until no read view can need them (TrxSys::PurgeLimit); then their delete-mark
// records name the records to remove for good, and the logs are freed.
//
// A delete-marked record is removed only if it is still the version the undo record left:
// delete-marked, with DB_TRX_ID = the purged transaction's id. A later change (an insert
// over it, which clears the mark and stamps a newer id) keeps it. The removal goes through
// the B+tree, which passes the record's locks to its successor as gap locks (the lock
// system's RecordMoveListener).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <thread>

#include "common/latch.h"
#include "mvcc/undo_record.h"
#include "txn/txn_services.h"

namespace minnow {

class Purge {
 public:
  // `drop_latch`: held shared by each pass, exclusive by a keyspace drop while it frees a
  // tree's pages (transactions keep drops out with table locks; purge takes none).
  Purge(TxnServices* services, SharedLatch* drop_latch, std::chrono::milliseconds interval)
      : services_(services), drop_latch_(drop_latch), interval_(interval) {}
  ~Purge() { Stop(); }
  Purge(const Purge&) = delete;
  Purge& operator=(const Purge&) = delete;

  // Starts the thread: a pass every `interval`, or at once when woken.
  void Start();
  void Wake() EXCLUDES(latch_);
  // Stops and joins the thread (a pass in progress finishes its log first). Idempotent.
  void Stop() EXCLUDES(latch_);

 private:
  void Loop() EXCLUDES(latch_);
  // One pass: frees the undo no read view needs and removes the delete-marked records it
  // names. Returns the logs purged.
  Result<uint64_t> Pass();
  Status PurgeRecord(const UndoRecord& r, TrxId trx_id);

  TxnServices* const services_;
  SharedLatch* const drop_latch_;
  const std::chrono::milliseconds interval_;
  Latch latch_;  // a leaf latch: the wake-up flags
  std::condition_variable_any cv_;
  bool stop_ GUARDED_BY(latch_) = false;
  bool wake_ GUARDED_BY(latch_) = false;
  std::thread thread_;
};

}  // namespace minnow
