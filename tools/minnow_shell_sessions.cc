// SessionWorker: one SqlSession driven by a thread of its own (see minnow_shell_sessions.h).

#include "tools/minnow_shell_sessions.h"

#include <algorithm>
#include <utility>

#include "common/check.h"

namespace minnow::tools {

SessionWorker::SessionWorker(std::string name, std::unique_ptr<sql::SqlSession> session)
    : name_(std::move(name)), session_(std::move(session)), id_(session_->id()) {
  thread_ = std::thread([this] { Run(); });
}

SessionWorker::~SessionWorker() {
  while (!Stop(std::chrono::milliseconds(1000))) {
  }
  session_.reset();  // the thread has ended: this thread may destroy the session now
}

void SessionWorker::Run() {
  for (;;) {
    std::string sql;
    {
      LatchGuard guard(latch_);
      while (!job_ && !stop_) cv_.wait(latch_);  // condition_variable_any takes the Latch
      if (!job_) {                               // stopping, and no job left
        exited_ = true;
        cv_.notify_all();
        return;
      }
      sql = std::move(*job_);
      job_.reset();
      running_ = true;
    }
    auto result = session_->Execute(sql);
    LatchGuard guard(latch_);
    running_ = false;
    result_.emplace(std::move(result));
    cv_.notify_all();
  }
}

void SessionWorker::Submit(std::string sql) {
  statement_ = sql;
  LatchGuard guard(latch_);
  MINNOW_CHECK(!job_ && !running_ && !result_, "session '{}' is busy", name_);
  job_ = std::move(sql);
  cv_.notify_all();
}

bool SessionWorker::WaitFor(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  LatchGuard guard(latch_);
  while (job_ || running_) {
    if (cv_.wait_until(latch_, deadline) == std::cv_status::timeout) return !job_ && !running_;
  }
  return true;
}

sql::SqlResult<sql::StatementResult> SessionWorker::TakeResult() {
  LatchGuard guard(latch_);
  MINNOW_CHECK(result_.has_value(), "session '{}' has no result", name_);
  auto r = std::move(*result_);
  result_.reset();
  return r;
}

SessionWorker::State SessionWorker::state() const {
  LatchGuard guard(latch_);
  if (job_ || running_) {
    return session_->waiting_for_lock() ? State::kWaitingForLock : State::kRunning;
  }
  return result_ ? State::kFinished : State::kIdle;
}

void SessionWorker::Cancel() { session_->Cancel(); }

bool SessionWorker::Stop(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  {
    LatchGuard guard(latch_);
    stop_ = true;
    job_.reset();  // a statement not started yet is dropped
    cv_.notify_all();
    while (!exited_) {
      if (running_) session_->Cancel();
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return false;
      cv_.wait_until(latch_, std::min(deadline, now + std::chrono::milliseconds(100)));
    }
  }
  if (thread_.joinable()) thread_.join();
  return true;
}

const char* SessionWorker::StateName(State s) {
  switch (s) {
    case State::kIdle:
      return "idle";
    case State::kRunning:
      return "running";
    case State::kWaitingForLock:
      return "waiting for a lock";
    case State::kFinished:
      return "finished with unread result";
  }
  return "?";
}

}  // namespace minnow::tools
