#include "common/crash_point.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace minnow {

namespace crash_point_detail {

std::atomic<bool> g_armed{false};

namespace {

struct Arming {
  std::mutex mu;
  std::string name;
  uint64_t remaining = 0;
};

Arming& State() {
  static Arming a;
  return a;
}

// Reads MINNOW_CRASH_AT once, before main's threads start touching crash points.
struct EnvArming {
  EnvArming() {
    const char* v = std::getenv("MINNOW_CRASH_AT");
    if (v == nullptr) return;
    const char* colon = std::strrchr(v, ':');
    if (colon == nullptr) return;
    const uint64_t n = std::strtoull(colon + 1, nullptr, 10);
    if (n == 0) return;
    ArmCrashPoint(std::string(v, static_cast<size_t>(colon - v)), n);
  }
};
const EnvArming env_arming;

}  // namespace

void Reached(const char* name, const std::function<void()>* before_kill) {
  Arming& a = State();
  {
    std::lock_guard<std::mutex> g(a.mu);
    if (a.remaining == 0 || a.name != name) return;
    if (--a.remaining != 0) return;
  }
  if (before_kill != nullptr) (*before_kill)();
  // SIGKILL: no destructors, no atexit, no flush of anything still in user space.
  ::kill(::getpid(), SIGKILL);
  ::_exit(137);  // not reached
}

}  // namespace crash_point_detail

void ArmCrashPoint(const std::string& name, uint64_t n) {
  auto& a = crash_point_detail::State();
  std::lock_guard<std::mutex> g(a.mu);
  a.name = name;
  a.remaining = n;
  crash_point_detail::g_armed.store(n > 0, std::memory_order_relaxed);
}

void DisarmCrashPoints() { ArmCrashPoint("", 0); }

const std::vector<std::string>& CrashPointNames() {
  static const std::vector<std::string> names = {
      // log/ redo log
      "log.before_write",    // group commit leader, before pwrite of the log buffer
      "log.after_write",     // after pwrite, before fdatasync
      "log.after_sync",      // after fdatasync, before waking the committers
      "log.segment_switch",  // a full segment synced, the next one not yet created
      // buffer_pool/ page writes
      "dblwr.after_write",         // doublewrite batch written, not yet synced
      "dblwr.after_sync",          // doublewrite batch synced, no page written in place
      "page.torn_write",           // a page half-written in place (torn page), then death
      "page.after_write",          // pages written in place, data file not yet synced
      "checkpoint.before_header",  // pages flushed and synced, page 0 not yet written
      "checkpoint.after_header",   // page 0 written and synced, log not yet trimmed
      // btree/
      "btree.split",  // inside a split's mtr, pages latched, nothing committed
      "btree.merge",  // inside a merge's mtr
      // txn/ and engine/ (recovery)
      "txn.before_commit",        // a transaction's changes logged, its commit record not yet
      "txn.after_commit_record",  // commit record appended, not yet durable
      "recovery.redo",            // recovery, in the middle of applying redo
      "recovery.rollback",        // recovery, in the middle of rolling back a transaction
  };
  return names;
}

}  // namespace minnow
