#pragma once
// Latches: a thread's short hold on memory (a frame, a table, a list). Ordered by the latch order
// in docs/ARCHITECTURE.md and never deadlock-checked. Transactional *locks* live in lock/ and are
// a different thing: never name a latch "lock".

#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "common/thread_annotations.h"

namespace minnow {

// An exclusive latch (std::mutex with thread-safety annotations).
class CAPABILITY("latch") Latch {
 public:
  void Acquire() ACQUIRE() { m_.lock(); }
  void Release() RELEASE() { m_.unlock(); }
  bool TryAcquire() TRY_ACQUIRE(true) { return m_.try_lock(); }
  // For std::condition_variable_any and std::unique_lock.
  void lock() ACQUIRE() { m_.lock(); }
  void unlock() RELEASE() { m_.unlock(); }

 private:
  std::mutex m_;
};

// A shared/exclusive latch.
class CAPABILITY("shared latch") SharedLatch {
 public:
  void Acquire() ACQUIRE() { m_.lock(); }
  void Release() RELEASE() { m_.unlock(); }
  void AcquireShared() ACQUIRE_SHARED() { m_.lock_shared(); }
  void ReleaseShared() RELEASE_SHARED() { m_.unlock_shared(); }
  bool TryAcquire() TRY_ACQUIRE(true) { return m_.try_lock(); }
  bool TryAcquireShared() TRY_ACQUIRE_SHARED(true) { return m_.try_lock_shared(); }

 private:
  std::shared_mutex m_;
};

// Holds a Latch for a scope.
class SCOPED_CAPABILITY LatchGuard {
 public:
  explicit LatchGuard(Latch& latch) ACQUIRE(latch) : latch_(latch) { latch_.Acquire(); }
  ~LatchGuard() RELEASE() { latch_.Release(); }
  LatchGuard(const LatchGuard&) = delete;
  LatchGuard& operator=(const LatchGuard&) = delete;

 private:
  Latch& latch_;
};

// Holds a SharedLatch in shared mode for a scope.
class SCOPED_CAPABILITY SharedLatchGuard {
 public:
  explicit SharedLatchGuard(SharedLatch& latch) ACQUIRE_SHARED(latch) : latch_(latch) {
    latch_.AcquireShared();
  }
  ~SharedLatchGuard() RELEASE() { latch_.ReleaseShared(); }
  SharedLatchGuard(const SharedLatchGuard&) = delete;
  SharedLatchGuard& operator=(const SharedLatchGuard&) = delete;

 private:
  SharedLatch& latch_;
};

}  // namespace minnow
