#pragma once
// The lock system: InnoDB's table and record locks (lock/lock_mode.h has the rules).
//
// A record is known only as RecordId{page_no, heap_no}: page numbers are unique in minnow's one
// file, heap numbers are stable while the record stays on its page (btree/page_format.h). When
// records move (split, merge, redistribute, update that grows a record, purge) the engine
// forwards btree's RecordMoveListener events here and the locks follow.
//
// Lock structs. One struct per (transaction, page, mode, type) for granted record locks; a
// waiting request always gets a struct of its own. A struct holds the *set* of heap numbers it
// covers, stored in the smallest exact form:
//   run form     heap numbers [run_lo, run_hi) plus a supremum bit: a scan that locks a
//                page's records in heap order (bulk-built and split pages), or whose batch
//                is a run in any order, costs only the 24-byte header, however many records
//                the page holds;
//   holes form   [run_lo, run_hi) less a list of holes coded a nibble each (the gap from the
//                last), plus a supremum bit: a leaf filled by random inserts, whose inserts
//                reused the heap numbers its splits freed, is a run with a hole every few
//                heap numbers;
//   bitmap form  the header plus a bitmap over heap numbers 0 .. n_bits-1; the lock system
//                does not know the page's heap size, so n_bits covers the highest heap
//                number needed, rounded up to 64.
// A scan's batch (LockRecords) that the page's struct cannot take in place is gathered first
// and its struct made once, in the smallest form that holds the whole set. A single lock or a
// move that a struct cannot take in place (a bit outside the run or a hole set, a bit inside
// a run cleared, a bit beyond a bitmap) copies the set into a new struct, in bitmap form, that
// takes the old one's place in its queue. (The run grows at either end, so descending scans
// stay in run form too; a move that takes a prefix or suffix of the run away shrinks it in
// place.) Every form is exact: no struct ever covers a record that was not locked, so other
// transactions can lock the rest.
// A waiting request that is granted puts its bit into the transaction's granted struct for
// (page, mode, type) if it fits in place (a scan that waited resumes its run); otherwise it
// keeps its struct as a granted one (InnoDB's lock_grant), and later locks extend the first.
// Structs are carved from the transaction's lock heap (chunks malloc'd as it grows, like
// InnoDB's trx lock heap): the first chunk, 1 KiB, at its first lock, each next one an eighth
// of the heap so far in whole KiB, from 1 KiB to 64 KiB, so the unused tail of the last chunk
// stays under max(1 KiB, heap / 8); a chunk's first 16 bytes are its header. "heap size" is the
// bytes of those chunks, headers and unused tail included, counted where they are malloc'd: a
// scan locking every record of 100 bulk-built 250-record pages plus a table lock takes 101
// structs in 3,072 bytes, 0.98 bits per row. A struct replaced by a larger one stays in the
// heap as dead bytes until the transaction ends (InnoDB's heap never shrinks either).
//
// Sharding: 512 shards by page number (options.shards, rounded up to a power of two), each a
// latch plus 256 cells of page queues (chains in arrival order) and 16 cells of table queues;
// a table's locks live in the shard of its table id. No operation holds two shard latches except
// moves between pages, which take them in shard order. The lock system never calls out while
// holding a shard latch.
//
// Waiting (the DB_LOCK_WAIT dance, style notes 2.4): a Lock* call that must wait enqueues a
// waiting request and returns kLockWait. The caller then releases every page latch and calls
// Wait(), which sleeps on the transaction's own condition variable until the request is
// granted, times out (kLockWaitTimeout: the request is removed, other locks stay), or the
// transaction is chosen as a deadlock victim (kDeadlock: the caller must roll the whole
// transaction back). Deadlock detection (when enabled) runs in Wait() before sleeping: it
// follows waits-for edges from the waiter; on a cycle (its edges checked once more) the lighter
// transaction (undo records + lock structs held, TrxLocks::set_weight) is the victim, a tie
// going to the requester; if that is another transaction its wait is cancelled and it wakes
// with kDeadlock. A search deeper than 200 or wider than 10,000 transactions gives up and
// leaves the wait to its timeout.
//
// Metadata locks in the same graph (AttachMetadataLocks). A transaction's TrxLocks may name its
// metadata-lock owner (Register's mdl_owner); the detector then walks one graph of
// transactions whose out-edges are its record or table lock wait's blockers (as above) or its
// metadata-lock wait's (MetadataLockSys::WaitOf: the holders, and for an S request the pending
// X requests), so that a cycle through metadata locks alone, or through metadata and row locks,
// ends in kDeadlock at once instead of a timeout. A transaction that holds only metadata locks
// (a DDL statement's, a consistent reader's) has no TrxLocks and is a node by its owner id.
// Every metadata-lock wait runs the detector too (before it sleeps), whatever
// deadlock_detect says (MySQL's MDL detector cannot be turned off); with deadlock_detect off it
// follows only metadata-lock edges. Victim: a transaction waiting for an exclusive metadata
// lock (DDL: MySQL's MDL gives DDL the highest deadlock weight) only if every transaction of
// the cycle does; among the rest the lightest as above, a tie going to the requester. A victim
// waiting for a metadata lock wakes with kDeadlock from MetadataLockSys::Acquire.
//
// Latch order: page latches, then a shard latch (then a second shard latch in shard order for
// moves). The wait registry latch (deadlock detection) is taken with no shard latch held. The
// detector asks each subsystem for one transaction's out-edges in turn, holding the registry
// latch and then either one shard latch or the metadata-lock leaf latch, never both; a
// metadata-lock wait releases its leaf latch before it runs the detector.
//
// Thread safety: every method is thread-safe. A TrxLocks is used by its transaction's thread,
// except that other threads may convert its implicit locks, cancel its wait and interrupt it
// (internally synchronized).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/types.h"
#include "lock/lock_mode.h"
#include "lock/metadata_lock.h"
#include "minnow/status.h"

namespace minnow {

struct RecordId {
  PageNo page_no = kInvalidPageNo;
  HeapNo heap_no = 0;
  friend bool operator==(const RecordId&, const RecordId&) = default;
};

struct RecordIdMove {
  RecordId from;
  RecordId to;
};

// Counts of one transaction's locks, from its live structs.
struct TrxLockStats {
  uint64_t structs = 0;     // lock structs: table and record, granted and waiting
  uint64_t heap_bytes = 0;  // bytes of the lock heap's chunks ("heap size")
  // Record locks: granted bits (supremum included) plus the waiting request's, as InnoDB's
  // lock_number_of_rows_locked ("M row lock(s)") counts them.
  uint64_t row_locks = 0;
};

struct LockSysStats {
  uint64_t structs = 0;         // live lock structs of all transactions (table + record)
  uint64_t record_structs = 0;  // InnoDB's "lock structs in row lock hash table"
  uint64_t heap_bytes = 0;      // sum of all transactions' lock heaps
  uint64_t row_locks = 0;       // TrxLockStats::row_locks summed
  uint64_t waits = 0;           // requests that had to wait (Innodb_row_lock_waits)
  uint64_t waiting_now = 0;     // Innodb_row_lock_current_waits
  uint64_t wait_micros = 0;     // total time spent waiting (Innodb_row_lock_time, in µs)
  uint64_t max_wait_micros = 0;
  uint64_t timeouts = 0;
  uint64_t deadlocks = 0;
};

// One row of performance_schema.data_locks: one per table lock, one per locked record (a
// struct with n bits set gives n rows). The engine adds table, index and key names.
struct LockRow {
  TrxId trx_id = 0;
  bool is_table = false;
  uint32_t table_id = 0;  // is_table
  RecordId rec;           // !is_table
  TrxLockMode mode = TrxLockMode::kS;
  RecLockType type = RecLockType::kOrdinary;  // records only
  bool waiting = false;
};

// One row of performance_schema.data_lock_waits: `requesting` waits for `blocking`.
struct LockWaitRow {
  LockRow requesting;
  LockRow blocking;
};

// A deadlock the detector found (SHOW ENGINE INNODB STATUS's LATEST DETECTED DEADLOCK), taken
// just before the victim's wait was cancelled.
struct DeadlockTrxInfo {
  TrxId trx_id = 0;        // 0 for a transaction holding only metadata locks (no TrxLocks)
  uint64_t mdl_owner = 0;  // its metadata-lock owner, if attached
  TrxLockStats locks;
  uint64_t undo_records = 0;  // TrxLocks::set_weight's, as of its wait
  LockRow waiting_for;        // its waiting request (unless waits_for_metadata)
  // Its granted locks on the record (or table) that the previous transaction of the cycle
  // waits for: the locks through which that one waits for this one.
  std::vector<LockRow> holds;
  bool waits_for_metadata = false;
  MdlLockRow metadata_wait;  // waits_for_metadata: its waiting metadata-lock request
  // When the previous transaction waits for a metadata lock: this one's request on that object
  // that blocks it (granted, or a pending X that the priority rule puts first).
  std::vector<MdlLockRow> metadata_holds;
};
struct DeadlockInfo {
  std::vector<DeadlockTrxInfo> cycle;  // cycle[i] waits for cycle[i + 1], the last for the first
  TrxId victim = 0;
  size_t victim_index = 0;  // cycle[victim_index] is the victim
};

struct LockSysOptions {
  size_t shards = 512;
  bool deadlock_detect = true;  // innodb_deadlock_detect; OFF leaves cycles to the timeout
  // Called for every deadlock found, by the Wait() that found it, with no latch held (so it
  // may latch pages, e.g. to read the records' keys). Must not call Wait().
  std::function<void(const DeadlockInfo&)> on_deadlock;
};

class LockSys;

// A transaction's locks and its wait slot. Created by LockSys::Register, owned by the
// transaction; REQUIRES before destruction: ReleaseAll().
class TrxLocks {
 public:
  ~TrxLocks();
  TrxId trx_id() const;
  // The deadlock victim weight besides the locks held: InnoDB uses the undo records written.
  void set_weight(uint64_t undo_records);
  TrxLockStats stats() const;
  // The record (or table) this transaction waits for, if it waits now, and (wall clock) when
  // that wait began.
  bool waiting(LockRow* request, std::chrono::system_clock::time_point* since = nullptr) const;

  struct Impl;  // lock/ internal

 private:
  friend class LockSys;
  explicit TrxLocks(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class LockSys {
 public:
  explicit LockSys(const LockSysOptions& options = {});
  ~LockSys();  // REQUIRES: every TrxLocks has released its locks and been destroyed

  // A new transaction's lock state; `trx_id` is what introspection prints. `mdl_owner`: the
  // transaction's MdlContext::owner_id(), which joins its metadata-lock waits to its row-lock
  // waits in deadlock detection (0: none).
  std::unique_ptr<TrxLocks> Register(TrxId trx_id, uint64_t mdl_owner = 0);

  // Includes `mdl`'s waits in deadlock detection (installs the detector as its deadlock check).
  // REQUIRES: before any metadata lock is asked for; `mdl` is not used after this LockSys is
  // destroyed.
  void AttachMetadataLocks(MetadataLockSys* mdl);

  // Table lock. OK when granted (at once if a lock held covers it); kLockWait when a waiting
  // request was enqueued (then: release latches, Wait()); kDeadlock is never returned here.
  // As InnoDB's lock_table, each mode asked for that no held lock covers gets its own struct
  // (IS then IX: two structs, two data_locks rows).
  Status LockTable(TrxLocks* trx, uint32_t table_id, TrxLockMode mode);

  // Record lock (mode kS or kX). OK when granted: the bit is set in the transaction's struct
  // for (page, mode, type), created if needed, unless a lock it already holds covers the
  // request (X covers S; ordinary covers GAP and REC_NOT_GAP). An INSERT_INTENTION request
  // that does not wait creates no struct (InnoDB). A GAP or REC_NOT_GAP request on the
  // supremum is stored as an ordinary one (InnoDB lock_rec_add_to_queue). kLockWait as
  // LockTable. With `may_wait` false (NOWAIT, SKIP LOCKED: InnoDB's SELECT_NOWAIT and
  // SELECT_SKIP_LOCKED) a conflict enqueues nothing and returns kLockNoWait instead, changing
  // nothing: no waiting request, no wait counted (GAP requests and locks on the supremum never
  // conflict, so they never get kLockNoWait).
  // REQUIRES: the caller holds the page's latch (so the record cannot move meanwhile).
  Status LockRecord(TrxLocks* trx, RecordId rec, TrxLockMode mode, RecLockType type,
                    bool may_wait = true);

  // A write's lock on a record whose DB_TRX_ID the caller is about to set to its own id (an
  // update or delete-mark in a secondary index: InnoDB's lock_rec_lock with impl = true).
  // As LockRecord(rec, mode, kRecNotGap) but a grant creates no struct: the record's trx id is
  // the implicit lock, which others turn explicit with ConvertImplicit. kLockWait when a
  // conflicting lock (granted, or waiting ahead) is there: the waiting request, once granted,
  // is an explicit lock held to the end as any other. REQUIRES as LockRecord; rec is a user
  // record (not the supremum).
  Status LockRecordImplicit(TrxLocks* trx, RecordId rec, TrxLockMode mode);

  // A scan's batch: locks heap_nos[0], heap_nos[1], ... of one page (in the order the scan
  // reads them; kSupremumHeapNo allowed) under one shard latch. Sets *granted to the number
  // of leading records granted; if it stopped at a conflict, a waiting request for
  // heap_nos[*granted] is enqueued and kLockWait returned (with `may_wait` false: nothing is
  // enqueued and kLockNoWait returned, as LockRecord). REQUIRES as LockRecord.
  Status LockRecords(TrxLocks* trx, PageNo page_no, std::span<const HeapNo> heap_nos,
                     TrxLockMode mode, RecLockType type, size_t* granted, bool may_wait = true);

  // A scan's batch that is the ascending run of heap numbers [lo, lo + n), plus the page's
  // supremum with `supremum`, on a page where no transaction holds or waits for any record
  // lock: locks it as LockRecords on that list would (nothing can conflict; one struct in run
  // form) and returns true. Returns false, changing nothing, if any lock struct is on the
  // page or the batch is not such a run (n = 0, lo below kFirstUserHeapNo, past 0xFFFF, a
  // supremum with a type other than ordinary, INSERT_INTENTION): then call LockRecords with
  // the list. Saves the caller listing, and the lock system reading, a heap number per record.
  // REQUIRES as LockRecord.
  bool LockRunIfAlone(TrxLocks* trx, PageNo page_no, HeapNo lo, size_t n, bool supremum,
                      TrxLockMode mode, RecLockType type);

  // Sleeps until the transaction's waiting request is granted (OK), `timeout` passes
  // (kLockWaitTimeout, the request removed), it is chosen as a deadlock victim (kDeadlock,
  // the request removed; its other locks stay until ReleaseAll), or Shutdown() (kClosed).
  // Returns OK at once if nothing is waiting. REQUIRES: the caller holds no latch.
  // While the transaction is interrupted (SetInterrupted), the wait ends at once with kAborted
  // ("Query execution was interrupted"), the request removed as a timeout removes it.
  Status Wait(TrxLocks* trx, std::chrono::milliseconds timeout);

  // KILL QUERY, from any thread: sets or clears the transaction's interrupt flag. Setting it
  // wakes a Wait() in progress, which ends with kAborted; so does every Wait() that finds the
  // flag set. Granted locks stay. REQUIRES: `trx` is not destroyed meanwhile.
  void SetInterrupted(TrxLocks* trx, bool interrupted);

  // Implicit to explicit (InnoDB lock_rec_convert_impl_to_expl): `holder` modified the record
  // and is still active, so it holds an implicit X lock; give it a granted X,REC_NOT_GAP lock
  // unless it already holds an X lock covering the record. REQUIRES: the caller holds the
  // page latch and guarantees `holder` does not end meanwhile.
  void ConvertImplicit(TrxLocks* holder, RecordId rec);

  // True if a transaction other than `trx` holds or waits for a lock on `rec` that conflicts
  // with (mode, type). For callers that only need to know (purge, tests).
  bool HasConflict(const TrxLocks* trx, RecordId rec, TrxLockMode mode, RecLockType type) const;

  // READ COMMITTED's release of a row the WHERE rejected (InnoDB's lock_rec_unlock): clears
  // `rec` from the transaction's granted REC_NOT_GAP lock of `mode` and grants the waiters
  // that no longer conflict. The struct stays even when left empty, as InnoDB's does, so the
  // struct count (trx_lock_structs) is unchanged and the row lock count drops by one. Returns
  // false, changing nothing, if the transaction holds no such lock on `rec`.
  // REQUIRES: the caller holds the page's latch; rec is a user record.
  bool ReleaseRecord(TrxLocks* trx, RecordId rec, TrxLockMode mode);

  // For each heap number of the batch, whether a granted lock of the transaction already
  // covers (mode, type) on it (as LockRecord would find it redundant): held[i] is 1 or 0
  // (resized to the batch). What a caller that may release its new locks later
  // (ReleaseRecord) asks before locking, so that it releases only the locks it created.
  // REQUIRES: the caller holds the page's latch.
  void HeldAmong(const TrxLocks* trx, PageNo page_no, std::span<const HeapNo> heap_nos,
                 TrxLockMode mode, RecLockType type, std::vector<uint8_t>* held) const;

  // Releases every lock of the transaction (commit, rollback) and grants the waiters that no
  // longer conflict. The TrxLocks may then be destroyed.
  void ReleaseAll(TrxLocks* trx);

  // Locks follow records. REQUIRES: the pages involved are X-latched by the caller.
  // Records moved (split, merge, redistribute, root raise/collapse, an update that moved a
  // record): each lock bit on `from` moves to `to` (same transaction, mode and type), waiting
  // requests included; a move from the supremum to a supremum moves the gap locks. Consecutive
  // moves between the same two pages apply at once (a permutation within a page is exact). A
  // waiting request gets a new struct at the tail of the new record's queue.
  void OnRecordsMoved(std::span<const RecordIdMove> moves);
  // A record was inserted before `successor`: every granted GAP or ordinary lock on
  // `successor` is inherited by `inserted` as a GAP lock (the gap is split in two). As InnoDB's
  // lock_rec_inherit_to_gap_if_gap_lock, this does not ask whose: the inserter's own gap
  // locks, if any, are inherited too.
  void OnRecordInserted(RecordId inserted, RecordId successor);
  // A record was removed (purge, rollback of an insert): every lock on it passes to
  // `successor` as a GAP lock (insert intentions excepted; a waiting request on it is removed,
  // leaves its GAP lock there granted, as InnoDB's lock_rec_inherit_to_gap, and its Wait()
  // returns OK, so that its transaction re-reads and finds the record gone); its bits are
  // cleared.
  void OnRecordRemoved(RecordId removed, RecordId successor);
  // The page was freed: no lock may remain on it (the moves were reported first). Debug
  // builds check it; release builds drop any lock left.
  void OnPageFreed(PageNo page_no);

  // Wakes every waiter with kClosed; later waits fail with kClosed.
  void Shutdown();

  LockSysStats stats() const;
  // Calls `row` for every lock (data_locks), shard by shard; a shard's latch is held during its
  // calls, so `row` must not call into the LockSys.
  void ForEachLock(const std::function<void(const LockRow&)>& row) const;
  // Calls `row` for each (waiting request, lock that blocks it) pair (data_lock_waits).
  void ForEachWait(const std::function<void(const LockWaitRow&)>& row) const;

  struct Impl;  // lock/ internal

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace minnow
