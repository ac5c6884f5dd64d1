// Table-level locks with thr_lock's rules: the request path, waits, release and the wake order
// (table_lock.h; rule numbers refer to its essay).

#include "lock/table_lock.h"

#include <algorithm>
#include <memory>

#include "common/check.h"

namespace minnow {

using Type = TableLockType;

// One request, queued or granted (thr_lock's THR_LOCK_DATA). Owned by the Lock call while it
// waits, then by its ticket; the lists of its TableLock point at it.
struct TableLock::Request {
  TableLockOwner* owner;
  TableLockType type;  // may turn from WRITE_CONCURRENT_INSERT into WRITE (rule (1))
  TableLockHooks hooks;
  bool granted = false;  // guarded by the table's latch_
};

namespace {

constexpr bool IsConcurrentWrite(Type t) {
  return t == Type::kWriteAllowWrite || t == Type::kWriteConcurrentInsert;
}

template <typename T>
void Erase(std::vector<T*>* list, const T* r) {
  auto it = std::find(list->begin(), list->end(), r);
  MINNOW_CHECK(it != list->end(), "table lock request not in its list");
  list->erase(it);
}

Status WriteOnlyRefusal(const std::string& table) {
  return Status(Code::kAborted,
                "Wait on a lock was aborted due to a pending exclusive lock on '" + table + "'");
}

}  // namespace

std::string_view TableLockTypeName(TableLockType t) {
  switch (t) {
    case Type::kRead:
      return "READ";
    case Type::kReadWithSharedLocks:
      return "READ_WITH_SHARED_LOCKS";
    case Type::kReadHighPriority:
      return "READ_HIGH_PRIORITY";
    case Type::kReadNoInsert:
      return "READ_NO_INSERT";
    case Type::kWriteAllowWrite:
      return "WRITE_ALLOW_WRITE";
    case Type::kWriteConcurrentInsert:
      return "WRITE_CONCURRENT_INSERT";
    case Type::kWriteLowPriority:
      return "WRITE_LOW_PRIORITY";
    case Type::kWrite:
      return "WRITE";
    case Type::kWriteOnly:
      return "WRITE_ONLY";
  }
  return "?";
}

TableLockCounters TableLockGlobals::counters() const {
  TableLockCounters c;
  c.immediate = immediate_.load();
  c.waited = waited_.load();
  c.wait_timeouts = wait_timeouts_.load();
  c.wait_aborts = wait_aborts_.load();
  return c;
}

void TableLockOwner::SetInterrupted(bool interrupted) {
  LatchGuard guard(latch_);
  interrupted_.store(interrupted);
  // The waiter announces waiting_in_ under latch_ before it checks interrupted_ under the table
  // latch, so either it sees the flag or we see the table and wake it there. Holding latch_
  // keeps the table alive: the waiter clears waiting_in_ under it before Lock returns.
  if (interrupted && waiting_in_ != nullptr) waiting_in_->WakeOwner(this);
}

TableLock::TableLock(std::string name, TableLockGlobals* globals)
    : name_(std::move(name)), globals_(globals) {}

TableLock::~TableLock() {
  LatchGuard guard(latch_);
  MINNOW_DCHECK(write_.empty() && read_.empty() && write_wait_.empty() && read_wait_.empty(),
                "table lock '{}' destroyed while held or waited for", name_);
}

bool TableLock::Holds(const std::vector<Request*>& list, const TableLockOwner* owner) const {
  return std::any_of(list.begin(), list.end(),
                     [owner](const Request* r) { return r->owner == owner; });
}

void TableLock::Grant(Request* r, bool was_queued) {
  (IsWriteLock(r->type) ? write_ : read_).push_back(r);
  if (r->type == Type::kReadNoInsert) no_insert_readers_++;
  r->granted = true;
  // A queued request's owner sleeps on its own condition variable: wake only it.
  if (was_queued) r->owner->wake_.notify_all();
}

Status TableLock::TryGrant(Request* r) {
  return IsWriteLock(r->type) ? TryGrantWrite(r) : TryGrantRead(r);
}

Status TableLock::TryGrantRead(Request* r) {
  const TableLockOwner* owner = r->owner;
  if (!write_.empty()) {
    const Type held = write_.front()->type;
    // Beside a concurrent writer any reader may start, but READ_NO_INSERT not beside an
    // appender; the writer's owner reads its own table (rule (5)).
    if (Holds(write_, owner) ||
        (IsConcurrentWrite(held) &&
         (r->type <= Type::kReadHighPriority || held != Type::kWriteConcurrentInsert))) {
      Grant(r, /*was_queued=*/false);
      return Status::OK();
    }
    return held == Type::kWriteOnly ? WriteOnlyRefusal(name_) : Status(Code::kLockWait, "");
  }
  // Rule (2): only a waiting WRITE / WRITE_ONLY holds new readers back.
  if (write_wait_.empty() || write_wait_.front()->type <= Type::kWriteLowPriority ||
      r->type == Type::kReadHighPriority || Holds(read_, owner)) {
    Grant(r, /*was_queued=*/false);
    return Status::OK();
  }
  return Status(Code::kLockWait, "");
}

Status TableLock::TryGrantWrite(Request* r) {
  const TableLockOwner* owner = r->owner;
  const Status wait(Code::kLockWait, "");
  if (r->type == Type::kWriteConcurrentInsert && !r->hooks.allow_concurrent_insert) {
    r->type = Type::kWrite;  // rule (1): an engine without the check never appends concurrently
  }
  if (Holds(write_, owner)) {  // rule (5)
    const bool covered = std::any_of(write_.begin(), write_.end(), [r, owner](const Request* h) {
      return h->owner == owner && (r->type <= h->type ||
                                   (r->type == Type::kWrite && h->type == Type::kWriteLowPriority));
    });
    if (!covered) {
      return Status::InvalidArgument(
          "Table '" + name_ + "' cannot have its write lock upgraded to " +
          std::string(TableLockTypeName(r->type)) + "; take the strongest lock first");
    }
    Grant(r, /*was_queued=*/false);
    return Status::OK();
  }
  if (Holds(read_, owner)) {
    return Status::InvalidArgument("Table '" + name_ +
                                   "' was locked with a READ lock and can't be updated");
  }
  if (!write_.empty()) {
    const Type held = write_.front()->type;
    if (held == Type::kWriteOnly) return WriteOnlyRefusal(name_);
    // Writers that allow writers share, unless one queues already or a READ_NO_INSERT holds.
    // A second appender always waits (one at a time).
    if (r->type == Type::kWriteAllowWrite && held == Type::kWriteAllowWrite &&
        write_wait_.empty() && no_insert_readers_ == 0) {
      Grant(r, /*was_queued=*/false);
      return Status::OK();
    }
    // Appenders share with appenders (rule (1)) while the engine's check allows, never beside
    // a READ_NO_INSERT (an appender's own, rule (5)); refused, the request is a WRITE and waits.
    if (r->type == Type::kWriteConcurrentInsert && write_wait_.empty() && OnlyAppendersWrite() &&
        no_insert_readers_ == 0) {
      if (AllowsConcurrentInsert(r)) {
        Grant(r, /*was_queued=*/false);
        return Status::OK();
      }
      r->type = Type::kWrite;
    }
    return wait;
  }
  if (!write_wait_.empty()) return wait;  // writers are FIFO
  if (r->type == Type::kWriteConcurrentInsert && !AllowsConcurrentInsert(r)) {
    r->type = Type::kWrite;
  }
  if (read_.empty() || (IsConcurrentWrite(r->type) && no_insert_readers_ == 0)) {
    Grant(r, /*was_queued=*/false);
    return Status::OK();
  }
  return wait;
}

Result<TableLockTicket> TableLock::Lock(TableLockOwner* owner, TableLockType type,
                                        std::chrono::milliseconds timeout, TableLockHooks hooks) {
  auto r = std::make_unique<Request>(Request{owner, type, std::move(hooks)});
  {
    LatchGuard guard(latch_);
    Status st = TryGrant(r.get());
    if (st.ok()) {
      globals_->immediate_++;
      if (r->hooks.on_grant) r->hooks.on_grant(r->type == Type::kWriteConcurrentInsert);
      return TableLockTicket(this, r.release());
    }
    if (st.code() != Code::kLockWait) return st;
    (IsWriteLock(r->type) ? write_wait_ : read_wait_).push_back(r.get());
    globals_->waited_++;
  }
  Status st = WaitForGrant(r.get(), timeout);
  if (!st.ok()) return st;  // dequeued by WaitForGrant
  return TableLockTicket(this, r.release());
}

Status TableLock::WaitForGrant(Request* r, std::chrono::milliseconds timeout) {
  TableLockOwner* owner = r->owner;
  {
    // The latch order is owner, then table: announce the wait with the table latch released
    // (a grant meanwhile is seen below).
    LatchGuard guard(owner->latch_);
    MINNOW_DCHECK(owner->waiting_in_ == nullptr, "owner {} waits twice", owner->id());
    owner->waiting_in_ = this;
    owner->waiting_.store(true, std::memory_order_release);
  }
  // At most a century, so that the deadline cannot overflow the clock.
  const auto deadline = std::chrono::steady_clock::now() +
                        std::min<std::chrono::milliseconds>(timeout, std::chrono::hours(876000));
  Status outcome;
  {
    LatchGuard guard(latch_);
    for (;;) {
      if (r->granted) break;
      if (owner->interrupted_.load()) {
        globals_->wait_aborts_++;
        outcome = Status(Code::kAborted, "Query execution was interrupted");
        break;
      }
      if (owner->wake_.wait_until(latch_, deadline) == std::cv_status::timeout && !r->granted) {
        globals_->wait_timeouts_++;
        outcome = Status(Code::kLockWaitTimeout,
                         "Lock wait timeout exceeded; try restarting transaction (table lock on '" +
                             name_ + "')");
        break;
      }
    }
    if (r->granted) {
      if (r->hooks.on_grant) r->hooks.on_grant(r->type == Type::kWriteConcurrentInsert);
    } else {
      // The queued request may have held others back (a waiting WRITE blocks new readers).
      Erase(IsWriteLock(r->type) ? &write_wait_ : &read_wait_, r);
      WakeUpWaiters();
    }
  }
  {
    LatchGuard guard(owner->latch_);
    owner->waiting_in_ = nullptr;
    owner->waiting_.store(false, std::memory_order_release);
  }
  return outcome;
}

void TableLock::WakeOwner(TableLockOwner* owner) {
  // Under the table latch, so that the wake cannot fall between the waiter's check of its
  // interrupt flag and its sleep.
  LatchGuard guard(latch_);
  owner->wake_.notify_all();
}

void TableLock::Release(Request* r) {
  {
    LatchGuard guard(latch_);
    Erase(IsWriteLock(r->type) ? &write_ : &read_, r);
    if (r->type == Type::kReadNoInsert) no_insert_readers_--;
    WakeUpWaiters();
  }
  delete r;  // the hooks may own engine state: destroyed outside the latch
}

bool TableLock::AllowsConcurrentInsert(const Request* r) const {
  // read_ holds no lock of r's owner: an owner holding a read lock cannot ask for a write lock
  // (rule (5)).
  return r->hooks.allow_concurrent_insert(!read_.empty());
}

bool TableLock::OnlyAppendersWrite() const {
  return !write_.empty() && std::all_of(write_.begin(), write_.end(), [](const Request* h) {
    return h->type == Type::kWriteConcurrentInsert;
  });
}

void TableLock::GrantWaitingAppenders() {
  if (no_insert_readers_ != 0) return;  // an appender's own READ_NO_INSERT (rule (5))
  while (!write_wait_.empty() && write_wait_.front()->type == Type::kWriteConcurrentInsert) {
    Request* w = write_wait_.front();
    if (!AllowsConcurrentInsert(w)) {
      w->type = Type::kWrite;  // waits for the appenders; the queue stays FIFO behind it
      return;
    }
    write_wait_.erase(write_wait_.begin());
    Grant(w, /*was_queued=*/true);
  }
}

TableLock::Request* TableLock::GrantWaitingWriters() {
  for (;;) {
    Request* w = write_wait_.front();
    if (w->type == Type::kWriteConcurrentInsert && !AllowsConcurrentInsert(w)) {
      w->type = Type::kWrite;
    }
    write_wait_.erase(write_wait_.begin());
    Grant(w, /*was_queued=*/true);
    if (w->type == Type::kWriteConcurrentInsert) {
      GrantWaitingAppenders();  // the appenders queued right behind it start with it
      return w;
    }
    // A WRITE_ALLOW_WRITE takes the ones queued right behind it along.
    if (w->type != Type::kWriteAllowWrite || write_wait_.empty() ||
        write_wait_.front()->type != Type::kWriteAllowWrite) {
      return w;
    }
  }
}

void TableLock::GrantWaitingReaders(bool keep_no_insert) {
  std::vector<Request*> waiting;
  waiting.swap(read_wait_);
  for (Request* r : waiting) {
    if (keep_no_insert && r->type == Type::kReadNoInsert) {
      read_wait_.push_back(r);  // not beside a concurrent writer; keeps its place
    } else {
      Grant(r, /*was_queued=*/true);
    }
  }
  if (read_wait_.empty()) writes_in_a_row_ = 0;  // rule (4)
}

void TableLock::WakeUpWaiters() {
  if (!write_.empty()) {
    // A write lock holds: only appenders may join appenders; anything else already could.
    if (OnlyAppendersWrite()) GrantWaitingAppenders();
    return;
  }
  Request* writer = write_wait_.empty() ? nullptr : write_wait_.front();
  if (read_.empty()) {
    // The table is free (rule (3)).
    const bool writer_first =
        writer != nullptr && (writer->type != Type::kWriteLowPriority || read_wait_.empty() ||
                              read_wait_.front()->type < Type::kReadHighPriority);
    if (!writer_first) {
      if (!read_wait_.empty()) GrantWaitingReaders(false);
      return;
    }
    if (writes_in_a_row_++ > globals_->max_write_lock_count()) {  // rule (4)
      writes_in_a_row_ = 0;
      if (!read_wait_.empty()) {
        GrantWaitingReaders(false);
        return;
      }
    }
    const Request* last = GrantWaitingWriters();
    if (IsConcurrentWrite(last->type) && !read_wait_.empty()) GrantWaitingReaders(true);
    return;
  }
  if (writer == nullptr) {
    // Readers hold and no writer waits: readers queued behind a writer that gave up may go.
    if (!read_wait_.empty()) GrantWaitingReaders(false);
    return;
  }
  // Readers hold: only a concurrent writer may join them, and not beside a READ_NO_INSERT.
  if (!IsConcurrentWrite(writer->type) || no_insert_readers_ != 0) return;
  if (writer->type == Type::kWriteConcurrentInsert && !AllowsConcurrentInsert(writer)) {
    writer->type = Type::kWrite;  // it now waits for the readers, but holds none back that wait
    if (!read_wait_.empty()) GrantWaitingReaders(false);
    return;
  }
  const Type first = writer->type;
  do {
    write_wait_.erase(write_wait_.begin());
    Grant(writer, /*was_queued=*/true);
    writer = write_wait_.empty() ? nullptr : write_wait_.front();
  } while (first == Type::kWriteAllowWrite && writer != nullptr &&
           writer->type == Type::kWriteAllowWrite);
  if (first == Type::kWriteConcurrentInsert) GrantWaitingAppenders();
  if (!read_wait_.empty()) GrantWaitingReaders(true);
}

std::vector<TableLockEntry> TableLock::Snapshot() const {
  LatchGuard guard(latch_);
  std::vector<TableLockEntry> rows;
  for (const auto* list : {&write_, &read_, &write_wait_, &read_wait_}) {
    for (const Request* r : *list) rows.push_back({r->owner->id(), r->type, r->granted});
  }
  return rows;
}

TableLockTicket::TableLockTicket(TableLockTicket&& other) noexcept
    : table_(other.table_), request_(other.request_) {
  other.table_ = nullptr;
  other.request_ = nullptr;
}

TableLockTicket& TableLockTicket::operator=(TableLockTicket&& other) noexcept {
  if (this != &other) {
    Release();
    table_ = other.table_;
    request_ = other.request_;
    other.table_ = nullptr;
    other.request_ = nullptr;
  }
  return *this;
}

void TableLockTicket::Release() {
  if (request_ == nullptr) return;
  table_->Release(request_);
  table_ = nullptr;
  request_ = nullptr;
}

TableLockType TableLockTicket::type() const {
  MINNOW_CHECK(request_ != nullptr, "type() of an empty table lock ticket");
  // Only the WAITING request's type changes; once granted it is fixed, so no latch is needed.
  return request_->type;
}

}  // namespace minnow
