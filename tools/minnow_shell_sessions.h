#pragma once
// A named SQL connection that runs its statements on a thread of its own, so that a statement
// blocked on a lock does not block its caller: the `minnow` shell's sessions (\connect NAME) and
// sqltest's connections (--connect NAME) are both SessionWorkers.
//
//   caller                        worker thread
//   Submit("UPDATE ...") ------>  session->Execute("UPDATE ...")   state: kRunning
//   WaitFor(100ms) -> false          ... waits for a row lock ...  state: kWaitingForLock
//   Cancel()       ------------>  Execute returns 1317             state: kFinished
//   TakeResult()   <------------  the result slot                  state: kIdle
//
// The queue holds one statement: a worker has at most one statement submitted or finished and
// unread at a time. Thread safety: the methods are for one owning thread, except Cancel(),
// state(), waiting_for_lock(), progress_rows() and id(), which any thread may call.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "common/latch.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::tools {

class SessionWorker {
 public:
  enum class State : uint8_t {
    kIdle,            // nothing submitted, nothing unread
    kRunning,         // a statement runs
    kWaitingForLock,  // a statement runs and waits for a row or table lock
    kFinished,        // a statement finished; its result waits for TakeResult()
  };

  // Starts the worker's thread, which runs `session`'s statements. The session is destroyed
  // with the worker, after its thread has ended (rolling back an open transaction).
  SessionWorker(std::string name, std::unique_ptr<sql::SqlSession> session);
  // Stop(): cancels a running statement and waits for the thread without a time limit.
  ~SessionWorker();
  SessionWorker(const SessionWorker&) = delete;
  SessionWorker& operator=(const SessionWorker&) = delete;

  const std::string& name() const { return name_; }
  uint64_t id() const { return id_; }
  // The statement submitted last (still running, or finished).
  const std::string& statement() const { return statement_; }

  // Hands `sql` to the worker's thread and returns at once. REQUIRES: state() == kIdle.
  void Submit(std::string sql);
  // Waits up to `timeout` for the submitted statement to finish; true once it has (also
  // true when nothing was submitted).
  bool WaitFor(std::chrono::milliseconds timeout);
  // The finished statement's result; the worker is idle again. REQUIRES: state() == kFinished.
  sql::SqlResult<sql::StatementResult> TakeResult();

  State state() const;
  // From any thread: makes the running statement stop with 1317; a no-op when idle.
  void Cancel();
  bool waiting_for_lock() const { return session_->waiting_for_lock(); }
  uint64_t progress_rows() const { return session_->progress_rows(); }

  // Cancels a running statement (again every 100 ms: a cancel that arrives just before the
  // statement starts would be lost) and waits up to `timeout` for it and the thread to end.
  // False if the thread is still busy then (a statement that ignores Cancel): the worker must
  // then not be destroyed (the caller leaks it, with the engine and database it uses).
  bool Stop(std::chrono::milliseconds timeout);

  // "idle", "running", "waiting for a lock", "finished with unread result".
  static const char* StateName(State s);

 private:
  void Run();

  const std::string name_;
  // Owned here, used by the worker's thread; Cancel/waiting_for_lock/progress_rows from any.
  std::unique_ptr<sql::SqlSession> session_;
  const uint64_t id_;
  std::string statement_;  // the owning thread's copy of the last submitted text

  mutable Latch latch_;
  std::condition_variable_any cv_;  // signals a new job, a finished job and stopping
  std::optional<std::string> job_ GUARDED_BY(latch_);
  bool running_ GUARDED_BY(latch_) = false;
  std::optional<sql::SqlResult<sql::StatementResult>> result_ GUARDED_BY(latch_);
  bool stop_ GUARDED_BY(latch_) = false;
  bool exited_ GUARDED_BY(latch_) = false;
  std::thread thread_;
};

}  // namespace minnow::tools
