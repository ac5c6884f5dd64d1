#pragma once
// The writer token: until record locks arrive (issue #4) at most one transaction writes at a
// time. A transaction takes the token at its first write or locking read and keeps it until it
// ends; others wait for it with a timeout (innodb_lock_wait_timeout). It is a *lock* in the
// style notes' sense (held by a transaction across calls), so it is an owner field guarded by a
// latch plus a condition variable, never a mutex held across calls.

#include <chrono>
#include <condition_variable>
#include <cstdint>

#include "common/latch.h"
#include "minnow/status.h"

namespace minnow {

class WriterToken {
 public:
  // Returns OK once `owner` holds the token (at once if it already does). kLockWaitTimeout if
  // another owner keeps it longer than `timeout`; kClosed if Shutdown() is called meanwhile.
  // `transaction` says whether `owner` is a TransactionCore (else a DDL call). REQUIRES:
  // owner != nullptr; the caller holds no latch (the token is a lock: waiting for it with a
  // latch held could block the holder).
  Status Acquire(const void* owner, std::chrono::milliseconds timeout, bool transaction = true)
      EXCLUDES(latch_);
  // Gives the token up and wakes a waiter. No-op unless `owner` holds it.
  void Release(const void* owner) EXCLUDES(latch_);
  // The holder if it is a transaction, else nullptr.
  const void* transaction_owner() const EXCLUDES(latch_);
  // Wakes every waiter with kClosed; later Acquire calls fail with kClosed.
  void Shutdown() EXCLUDES(latch_);

  uint64_t waits() const EXCLUDES(latch_);     // acquisitions that had to wait
  uint64_t timeouts() const EXCLUDES(latch_);  // waits that ended in kLockWaitTimeout

 private:
  mutable Latch latch_;  // leaf latch, held only inside these methods
  std::condition_variable_any released_;
  const void* owner_ GUARDED_BY(latch_) = nullptr;
  bool owner_is_transaction_ GUARDED_BY(latch_) = false;
  bool shut_down_ GUARDED_BY(latch_) = false;
  uint64_t waits_ GUARDED_BY(latch_) = 0;
  uint64_t timeouts_ GUARDED_BY(latch_) = 0;
};

}  // namespace minnow
