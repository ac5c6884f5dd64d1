#include <mutex>

#include "engine/writer_token_internal.h"

namespace minnow {

Status WriterToken::Acquire(const void* owner, std::chrono::milliseconds timeout,
                            bool transaction) {
  std::unique_lock<Latch> guard(latch_);
  if (shut_down_) return Status::Closed("database is closed");
  if (owner_ == owner) return Status::OK();
  if (owner_ == nullptr) {
    owner_ = owner;
    owner_is_transaction_ = transaction;
    return Status::OK();
  }
  ++waits_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (owner_ != nullptr && !shut_down_) {
    if (released_.wait_until(guard, deadline) == std::cv_status::timeout) break;
  }
  if (shut_down_) return Status::Closed("database closed while waiting for the writer token");
  if (owner_ != nullptr) {
    ++timeouts_;
    return Status(Code::kLockWaitTimeout,
                  "lock wait timeout exceeded waiting for the writer token; try restarting "
                  "transaction");
  }
  owner_ = owner;
  owner_is_transaction_ = transaction;
  return Status::OK();
}

void WriterToken::Release(const void* owner) {
  {
    LatchGuard guard(latch_);
    if (owner_ != owner) return;
    owner_ = nullptr;
  }
  released_.notify_one();
}

const void* WriterToken::transaction_owner() const {
  LatchGuard guard(latch_);
  return owner_is_transaction_ ? owner_ : nullptr;
}

void WriterToken::Shutdown() {
  {
    LatchGuard guard(latch_);
    shut_down_ = true;
  }
  released_.notify_all();
}

uint64_t WriterToken::waits() const {
  LatchGuard guard(latch_);
  return waits_;
}

uint64_t WriterToken::timeouts() const {
  LatchGuard guard(latch_);
  return timeouts_;
}

}  // namespace minnow
