#pragma once
// Undo logs in pages (InnoDB's rollback segment, trx0rseg / trx0undo): a transaction's undo
// records live in undo pages of the database file, changed through mini-transactions like any
// page (so redo-logged and recovered), cached and evicted by the buffer pool like any page.
// One transaction can therefore change more rows than the pool holds undo for.
//
// The rollback segment header page (page 0's system root slot kRsegRootSlot) holds:
//   - slots: the first page of every undo log in use (a transaction's insert log and update
//     log take one slot each while it is active);
//   - the history list: committed update logs, oldest trx_no first, waiting for purge
//     ("History list length" is its length);
//   - the bound on transaction ids handed out (TrxSys's reserve).
// A transaction's insert log (kInsert, kBulkLoad records) is freed when it commits: no read view
// ever needs it (an insert roll pointer means "no older version"). Its update log (kUpdate,
// kDeleteMark) joins the history list at commit and stays until purge frees it, once no read
// view can need it.
//
// Commit is one mini-transaction (header states, the history list, the slots): its redo is
// the commit record. Recovery, after redo, finds the logs still active in the slots and rolls
// their transactions back (RecoverActive); a crash during that rollback is recovered again the
// same way (each undone record is popped in its own mini-transaction after it was applied, so
// callers make applying a record idempotent).
//
// Latch order: B+tree page latches, then undo pages of logs not in the history list (a log's
// pages first-to-last), then the rollback segment header page, then first pages of history
// logs (Commit links its update log after the old tail; purge unlinks the head). Purge frees
// a history log's pages first-to-last without the header page. Read holds one S latch at a
// time. An Append may run while the caller holds B+tree latches.
//
// Large logs (more pages than one mini-transaction should pin, undo_page_format.h) are freed
// in several mini-transactions after the one that commits, discards or purges them; the log
// stays reachable (committed in its slot, or kPurging in the history list) until its last
// page goes, so a crash in between leaves work for recovery / purge, never a dangling log.
//
// Thread safety: UndoStore's methods are thread-safe. A TrxUndo belongs to one thread at a
// time; Read() may run on any thread concurrently with Append/Commit/purge of other logs.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "buffer_pool/buffer_pool.h"
#include "common/types.h"
#include "minnow/status.h"
#include "mvcc/undo_record.h"

namespace minnow {

inline constexpr size_t kRsegRootSlot = 1;  // page 0 system root slot (0 is the catalog)

struct UndoStoreStats {
  uint64_t history_length = 0;  // committed update logs not yet purged
  uint64_t active_logs = 0;     // slots in use (free logs cached for reuse not counted)
  uint64_t undo_pages = 0;      // pages of those logs and of the history list
  uint64_t logs_purged = 0;     // since open
};

class MiniTransaction;
class UndoStore;

// One transaction's two undo logs (created on first use).
class TrxUndo {
 public:
  ~TrxUndo();
  TrxId trx_id() const;

  // Appends `r` with undo_no = next_undo_no() (r.undo_no is ignored) to the insert log
  // (kInsert, kBulkLoad) or the update log (kUpdate, kDeleteMark), creating the log and taking
  // a slot on first use. With `mtr` (the caller's change's mini-transaction), a record that
  // fits in the log's last page is written in it: the undo and the change it takes back are
  // one unit of redo, as atomic as either. Without, or for a record that needs new pages, in
  // mini-transactions of its own committed before returning: the undo precedes the caller's
  // page change in the redo stream. Either way it is write-ahead undo. Returns the roll
  // pointer (insert bit set for the insert log). kNoSpace if every slot is in use or the file
  // is full. REQUIRES: the caller holds no undo page latch (B+tree latches are fine; `mtr`
  // may hold B+tree pages, and then holds this log's page until the caller commits it).
  Result<RollPtr> Append(const UndoRecord& r, MiniTransaction* mtr = nullptr);
  uint64_t next_undo_no() const;
  uint64_t records() const;  // records in the logs now (weight for deadlock victims)
  bool empty() const;
  bool has_update_log() const;

  // Rollback, newest first: the newest record with undo_no >= `savepoint` across both logs,
  // decoded into *out (spans into *buf); false when none is left. After applying it, the
  // caller calls PopNewest(), which removes it in its own mini-transaction (freeing a page
  // that becomes empty).
  Result<bool> PeekNewest(uint64_t savepoint, std::string* buf, UndoRecord* out);
  Status PopNewest();

  // The commit mini-transaction: the insert log is freed, the update log is stamped with
  // `trx_no` and appended to the history list, the slots are cleared. Returns the mtr's end
  // LSN: the commit is durable once the log is flushed to it (0 if no undo was written).
  Result<Lsn> Commit(TrxId trx_no);
  // After a complete rollback (PeekNewest returned false for savepoint 0): frees both logs and
  // their slots in one mini-transaction. Returns its end LSN (0 if no undo was written).
  Result<Lsn> Discard();

  struct Impl;  // mvcc/ internal

 private:
  friend class UndoStore;
  explicit TrxUndo(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class UndoStore {
 public:
  // Opens the rollback segment in `pool`'s file, creating it (and setting the system root) if
  // the file has none. kCorruption for a damaged header page.
  static Result<std::unique_ptr<UndoStore>> Open(BufferPool* pool);
  ~UndoStore();

  // Undo logs for a transaction (nothing is allocated until its first Append).
  std::unique_ptr<TrxUndo> NewTrxUndo(TrxId trx_id);

  // MVCC: the update-log record `roll_ptr` points to (no insert bit), into *buf, decoded into
  // *out. REQUIRES: a read view that needs it is open (so purge has not freed it). kCorruption
  // for a pointer that does not lead to a record.
  Status Read(RollPtr roll_ptr, std::string* buf, UndoRecord* out) const;

  // Ids: every transaction id handed out is below this bound (kept in the header page).
  TrxId trx_id_bound() const;
  // Raises the bound in a mini-transaction. Not flushed: any record carrying an id above the
  // old bound is written later in the redo stream, so recovery sees the new bound first.
  Status SetTrxIdBound(TrxId bound);

  // Recovery, after redo, before any new transaction: the transactions whose logs are still
  // active, each as a TrxUndo to roll back (PeekNewest/PopNewest, then Discard). Their ids
  // are also below trx_id_bound().
  Result<std::vector<std::unique_ptr<TrxUndo>>> RecoverActive();

  // Purge: if the oldest log of the history list has trx_no < `limit`, calls `f(record,
  // trx_id)` for each of its records (undo_no order), then unlinks and frees the log in one
  // mini-transaction, and returns true. False if the list is empty or its oldest log is not
  // below `limit`. If `f` fails, the log stays and the error is returned.
  Result<bool> PurgeOldest(TrxId limit,
                           const std::function<Status(const UndoRecord&, TrxId trx_id)>& f);

  uint64_t history_length() const;
  UndoStoreStats stats() const;

  struct Impl;  // mvcc/ internal

 private:
  explicit UndoStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace minnow
