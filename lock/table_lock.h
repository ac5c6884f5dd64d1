#pragma once
// Table-level locks for a non-transactional, table-locking engine (MyISAM's way), with the
// rules of MariaDB's thr_lock (mysys/thr_lock.c). They are not the lock system's InnoDB-style
// IS/IX/S/X table locks (lock/lock_sys.h): those live inside transactions next to record
// locks; these are the only locks such an engine has, held for a statement (or from LOCK TABLES
// to UNLOCK TABLES), never deadlock-checked.
//
// One TableLock per table. Each grant is a TableLockTicket of one owner (a session,
// TableLockOwner); an owner may hold several tickets on one table (a self-join, a statement
// under LOCK TABLES). Types, weakest first (the order matters: rules below compare them):
//
//   READ                      a reader; lets a concurrent inserter append
//   READ_WITH_SHARED_LOCKS    as READ (SELECT ... LOCK IN SHARE MODE on this engine)
//   READ_HIGH_PRIORITY        as READ, but passes a waiting writer (SELECT HIGH_PRIORITY)
//   READ_NO_INSERT            a reader that no concurrent insert may overlap (INSERT ... SELECT,
//                             LOCK TABLES ... READ)
//   WRITE_ALLOW_WRITE         a writer that others may read and write beside (engines with
//                             their own row locks)
//   WRITE_CONCURRENT_INSERT   an appender that readers may overlap when the engine's check
//                             allows it (MyISAM: no holes in the data file); else a WRITE
//   WRITE_LOW_PRIORITY        as WRITE, but a waiting one does not hold back new readers
//   WRITE                     excludes everyone
//   WRITE_ONLY                as WRITE, and other owners' new requests fail at once (kAborted)
// (thr_lock's WRITE_DELAYED is left out: it needs INSERT DELAYED's handler thread.)
//
// A request of owner B while owner A holds (A != B; no one waits; the insert check allows):
//
//                 request:  R   RS  RHP RNI AAW CI  WLP W   WO
//     held READ             +   +   +   +   +   +   -   -   -      + granted at once
//     held READ_SH_LOCKS    +   +   +   +   +   +   -   -   -      - waits
//     held READ_HIGH_PRIO   +   +   +   +   +   +   -   -   -      x fails at once (kAborted)
//     held READ_NO_INSERT   +   +   +   +   -   -   -   -   -
//     held WRITE_ALLOW_WR   +   +   +   +   +   -   -   -   -
//     held WRITE_CONC_INS   +   +   +   -   -   +   -   -   -
//     held WRITE_LOW_PRIO   -   -   -   -   -   -   -   -   -
//     held WRITE            -   -   -   -   -   -   -   -   -
//     held WRITE_ONLY       x   x   x   x   x   x   x   x   x
//
// (thr_lock's asymmetry is kept: a held WRITE_ALLOW_WRITE admits READ_NO_INSERT, a held
// READ_NO_INSERT keeps WRITE_ALLOW_WRITE out.) Rules beyond the matrix:
//   (1) Concurrent insert. A WRITE_CONCURRENT_INSERT request without an allow_concurrent_insert
//       hook is a WRITE. With one, the hook is asked when the request arrives while no writer
//       holds or waits, and again when a queued one is about to be granted; on "no" the request
//       becomes a WRITE for good (TableLockTicket::type() says which was granted). Appenders
//       share: while only WRITE_CONCURRENT_INSERTs hold the write side and no writer waits, a
//       new one is asked the check too and, allowed, starts beside them (and beside their
//       readers); on release of any holder the appenders at the head of the writer queue
//       start the same way. Here minnow differs from thr_lock, where a second
//       WRITE_CONCURRENT_INSERT waits for the first (one appender at a time): the engine
//       serializes the appends row by row under a short latch and keeps each reader's view
//       a prefix of completed rows (minnow/table_lock_engine.h), so appenders need not queue
//       on the table lock, where each wait costs a sleep and a wake-up.
//   (2) Write priority. A new read request waits while the first waiting writer is WRITE or
//       WRITE_ONLY, unless it is READ_HIGH_PRIORITY or its owner already holds a read lock here.
//       A waiting WRITE_LOW_PRIORITY, WRITE_CONCURRENT_INSERT or WRITE_ALLOW_WRITE holds back
//       no reader. A new write request waits while any writer waits (writers are FIFO).
//   (3) Wake order on release (thr_lock's wake_up_waiters). Nothing starts while a write lock
//       is held, but appenders beside appenders (rule (1)). When the table falls free, the first
//       waiting writer goes first, except that a
//       WRITE_LOW_PRIORITY one lets the waiting readers go first when the first of them is
//       READ_HIGH_PRIORITY or READ_NO_INSERT; a granted WRITE_ALLOW_WRITE takes the waiting
//       WRITE_ALLOW_WRITEs behind it along, a granted WRITE_CONCURRENT_INSERT the waiting
//       WRITE_CONCURRENT_INSERTs behind it; a granted WRITE_ALLOW_WRITE or
//       WRITE_CONCURRENT_INSERT lets every waiting reader start but READ_NO_INSERT. When readers
//       still hold, a waiting WRITE_ALLOW_WRITE or WRITE_CONCURRENT_INSERT starts beside them
//       (with the appenders queued right behind an appender, rule (1)) unless a READ_NO_INSERT
//       holds (a refused insert check turns it into a waiting WRITE and
//       lets the waiting readers in). Readers are let in all at once, in arrival order.
//   (4) max_write_lock_count (TableLockGlobals). Each writer granted from the queue on a free
//       table counts one; when a writer is about to be so granted while more than
//       max_write_lock_count have been in a row, the count restarts and the waiting readers go
//       instead (so max_write_lock_count + 1 writers pass, then the readers). The count
//       restarts whenever the waiting readers have all been let in.
//   (5) Same owner. An owner holding a write lock here is granted any read lock and any write
//       lock no stronger than one it holds (WRITE and WRITE_LOW_PRIORITY count as equal) at
//       once, whatever others wait. It cannot upgrade to a stronger write lock (kInvalidArgument):
//       take the strongest lock first, as thr_multi_lock's sort does. An owner holding only read
//       locks here cannot take a write lock (kInvalidArgument, "was locked with a READ lock and
//       can't be updated": MySQL's 1099), since it would wait for itself. (thr_lock leaves both
//       refusals to the SQL layer and would grant the upgrade; refusing here keeps the matrix
//       true. It also asks only whether the owner is the *first* write holder; any will do here.)
//
// Waits end when granted (OK), after `timeout` (kLockWaitTimeout: 1205), or when the owner is
// interrupted (kAborted). A wait that ends without a grant leaves nothing queued and wakes what
// its queued request held back. There is no deadlock detection: callers take all their table
// locks for a statement in one fixed order (thr_multi_lock sorts by table, writes first) and a
// cycle ends in a timeout.
//
// Latches: each TableLock has one leaf latch over its queues; each TableLockOwner one latch over
// the table it waits in. Order: owner latch, then table latch (only SetInterrupted holds both).
// A waiter sleeps on its owner's condition variable with the table latch released. Hooks run
// under the table latch: they must not block, must not call into any TableLock, and may take
// only latches never held while calling into one. Callers hold no latch when calling Lock.
//
// Thread safety: every method of TableLock and TableLockGlobals is thread-safe. An owner's Lock
// calls and its tickets are used by one thread at a time; SetInterrupted and waiting() may be
// called from any thread.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/latch.h"
#include "minnow/status.h"

namespace minnow {

enum class TableLockType : uint8_t {
  kRead,
  kReadWithSharedLocks,
  kReadHighPriority,
  kReadNoInsert,
  kWriteAllowWrite,
  kWriteConcurrentInsert,
  kWriteLowPriority,
  kWrite,
  kWriteOnly,
};

constexpr bool IsWriteLock(TableLockType t) { return t >= TableLockType::kWriteAllowWrite; }
// "READ", "READ_NO_INSERT", "WRITE_CONCURRENT_INSERT", ... (thr_lock's names without "TL_").
std::string_view TableLockTypeName(TableLockType t);

// MySQL's Table_locks_immediate / Table_locks_waited, and how the waits ended.
struct TableLockCounters {
  uint64_t immediate = 0;      // requests granted without waiting
  uint64_t waited = 0;         // requests that had to wait (MySQL's meaning: whatever the end)
  uint64_t wait_timeouts = 0;  // of those, ended by the timeout
  uint64_t wait_aborts = 0;    // of those, ended by an interrupt
  // Requests refused at once (rule (5), WRITE_ONLY) count in none of these.
};

// What thr_lock keeps in process globals: the counters and max_write_lock_count, shared by every
// TableLock of a database. REQUIRES: outlives the TableLocks that use it.
class TableLockGlobals {
 public:
  static constexpr uint64_t kNoWriteLimit = ~uint64_t{0};  // MySQL's default

  uint64_t max_write_lock_count() const { return max_write_lock_count_.load(); }
  void set_max_write_lock_count(uint64_t n) { max_write_lock_count_.store(n); }
  TableLockCounters counters() const;

 private:
  friend class TableLock;
  std::atomic<uint64_t> max_write_lock_count_{kNoWriteLimit};
  std::atomic<uint64_t> immediate_{0};
  std::atomic<uint64_t> waited_{0};
  std::atomic<uint64_t> wait_timeouts_{0};
  std::atomic<uint64_t> wait_aborts_{0};
};

class TableLock;

// A session as a lock owner (thr_lock's THR_LOCK_INFO). Identity is the object; id() is what
// status views print. REQUIRES: destroyed only when it holds no ticket and does not wait.
class TableLockOwner {
 public:
  explicit TableLockOwner(uint64_t id) : id_(id) {}
  TableLockOwner(const TableLockOwner&) = delete;
  TableLockOwner& operator=(const TableLockOwner&) = delete;

  uint64_t id() const { return id_; }
  // From any thread: true while a Lock call of this owner waits ("Waiting for table level lock").
  bool waiting() const { return waiting_.load(std::memory_order_acquire); }
  // From any thread (KILL QUERY): while set, a wait in progress ends with kAborted, and so does
  // every request that would have to wait; requests that need no wait are still granted.
  void SetInterrupted(bool interrupted) EXCLUDES(latch_);
  bool interrupted() const { return interrupted_.load(); }

 private:
  friend class TableLock;
  const uint64_t id_;
  std::atomic<bool> interrupted_{false};
  std::atomic<bool> waiting_{false};
  Latch latch_;                                         // before any TableLock's latch
  TableLock* waiting_in_ GUARDED_BY(latch_) = nullptr;  // the table whose queue we sleep in
  std::condition_variable_any wake_;  // waited on with that table's latch; its granters notify
};

// The engine's say in a request (thr_lock's check_status and get_status). Both optional.
struct TableLockHooks {
  // True if a WRITE_CONCURRENT_INSERT may append beside readers now (MyISAM: the data file has
  // no holes, or concurrent_insert=ALWAYS and readers hold). Rule (1); runs under the table
  // latch, maybe on a releasing owner's thread. `readers_hold`: read locks of other owners are
  // granted at this moment, counted from their grant (a reader granted from the queue counts
  // before its thread has woken up and returned from Lock).
  std::function<bool(bool readers_hold)> allow_concurrent_insert;
  // Called once the request is granted, on the requester's thread, before Lock returns and
  // under the table latch, so no later grant can come between (MyISAM copies the table's
  // status here). The argument is true for a granted WRITE_CONCURRENT_INSERT.
  std::function<void(bool concurrent_insert)> on_grant;
};

// One row of TableLock::Snapshot(), for status views.
struct TableLockEntry {
  uint64_t owner_id = 0;
  TableLockType type = TableLockType::kRead;
  bool granted = false;  // false: waiting
};

class TableLockTicket;

class TableLock {
 public:
  // `name` ("db.table") is for messages. REQUIRES: globals outlives this.
  TableLock(std::string name, TableLockGlobals* globals);
  ~TableLock();  // REQUIRES: no ticket held, no request waiting
  TableLock(const TableLock&) = delete;
  TableLock& operator=(const TableLock&) = delete;

  // Grants `type` to `owner` at once or after waiting up to `timeout` (rules above). Errors, with
  // nothing held or queued: kLockWaitTimeout, kAborted (interrupted, or WRITE_ONLY held by
  // another owner), kInvalidArgument (rule (5)). REQUIRES: the caller holds no latch; `owner`
  // waits in no other Lock call.
  Result<TableLockTicket> Lock(TableLockOwner* owner, TableLockType type,
                               std::chrono::milliseconds timeout, TableLockHooks hooks = {})
      EXCLUDES(latch_);

  // Holders (writers, then readers), then waiters (writers, then readers), each in FIFO order.
  std::vector<TableLockEntry> Snapshot() const EXCLUDES(latch_);
  const std::string& name() const { return name_; }

 private:
  friend class TableLockTicket;
  friend class TableLockOwner;
  struct Request;

  // The request path: OK (granted), kLockWait (queued by the caller), or a refusal.
  Status TryGrant(Request* r) REQUIRES(latch_);
  Status TryGrantRead(Request* r) REQUIRES(latch_);
  Status TryGrantWrite(Request* r) REQUIRES(latch_);
  Status WaitForGrant(Request* r, std::chrono::milliseconds timeout) EXCLUDES(latch_);
  void Release(Request* r) EXCLUDES(latch_);
  // Starts what the current holders allow (rules (3), (4)). Called after any holder or queued
  // request goes away.
  void WakeUpWaiters() REQUIRES(latch_);
  Request* GrantWaitingWriters() REQUIRES(latch_);
  // The engine's concurrent insert check for `r`, told whether read locks are granted now.
  bool AllowsConcurrentInsert(const Request* r) const REQUIRES(latch_);
  // True while write locks are held and every one is a WRITE_CONCURRENT_INSERT.
  bool OnlyAppendersWrite() const REQUIRES(latch_);
  // Grants the WRITE_CONCURRENT_INSERTs at the head of the writer queue while the engine's
  // check allows each; the first refused one becomes a WRITE and stays first in the queue.
  void GrantWaitingAppenders() REQUIRES(latch_);
  void GrantWaitingReaders(bool keep_no_insert) REQUIRES(latch_);
  // Adds `r` to the granted lists; a queued one is already out of its wait list.
  void Grant(Request* r, bool was_queued) REQUIRES(latch_);
  void WakeOwner(TableLockOwner* owner) EXCLUDES(latch_);
  bool Holds(const std::vector<Request*>& list, const TableLockOwner* owner) const REQUIRES(latch_);

  const std::string name_;
  TableLockGlobals* const globals_;
  mutable Latch latch_;                             // leaf latch over the lists and counts below
  std::vector<Request*> write_ GUARDED_BY(latch_);  // granted write locks, FIFO
  std::vector<Request*> read_ GUARDED_BY(latch_);   // granted read locks, FIFO
  std::vector<Request*> write_wait_ GUARDED_BY(latch_);  // waiting write requests, FIFO
  std::vector<Request*> read_wait_ GUARDED_BY(latch_);   // waiting read requests, FIFO
  uint32_t no_insert_readers_ GUARDED_BY(latch_) = 0;    // READ_NO_INSERT in read_
  uint64_t writes_in_a_row_ GUARDED_BY(latch_) = 0;      // rule (4)
};

// A granted table lock; releases it when destroyed. Move-only. REQUIRES: released before its
// TableLock goes; used by one thread at a time.
class TableLockTicket {
 public:
  TableLockTicket() = default;
  TableLockTicket(TableLockTicket&& other) noexcept;
  TableLockTicket& operator=(TableLockTicket&& other) noexcept;
  ~TableLockTicket() { Release(); }

  // Releases the lock (thr_unlock) and starts the waiters it held back. No-op when empty.
  void Release();
  bool held() const { return request_ != nullptr; }
  // The granted type: the requested one, or WRITE for a refused WRITE_CONCURRENT_INSERT.
  TableLockType type() const;

 private:
  friend class TableLock;
  TableLockTicket(TableLock* table, TableLock::Request* request)
      : table_(table), request_(request) {}
  TableLock* table_ = nullptr;
  TableLock::Request* request_ = nullptr;
};

}  // namespace minnow
