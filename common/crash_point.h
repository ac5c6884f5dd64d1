#pragma once
// Test-only crash points: MINNOW_CRASH_POINT("log.after_write") kills the process with SIGKILL
// when armed for that name, so the crash test (tools/crash_test) can stop the engine exactly
// inside a log flush, a checkpoint, a page write or a split, not only at random moments.
//
// Arming: the environment variable MINNOW_CRASH_AT="name:n" (read once, at the first crash
// point reached) kills at the n-th time (1-based) `name` is reached; ArmCrashPoint does the same
// from code. Unarmed, a crash point costs one relaxed atomic load.
//
// MINNOW_TORN_WRITE_POINT(name, write_half) is a crash point that first calls write_half() (which
// writes part of a page) so that the file is left with a torn page, then dies.
//
// Names in use are listed by CrashPointNames() (the harness picks among them).

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace minnow {

namespace crash_point_detail {
extern std::atomic<bool> g_armed;
void Reached(const char* name, const std::function<void()>* before_kill);
}  // namespace crash_point_detail

// Arms `name` to kill at its n-th hit (n >= 1). Replaces any earlier arming.
void ArmCrashPoint(const std::string& name, uint64_t n);
void DisarmCrashPoints();
// Every name a MINNOW_CRASH_POINT in this build may use (kept by hand in crash_point.cc; a
// test checks that each armed point is reached by the crash workload).
const std::vector<std::string>& CrashPointNames();

}  // namespace minnow

#define MINNOW_CRASH_POINT(name)                                                     \
  do {                                                                               \
    if (::minnow::crash_point_detail::g_armed.load(std::memory_order_relaxed))       \
        [[unlikely]] {                                                               \
      ::minnow::crash_point_detail::Reached(name, nullptr);                          \
    }                                                                                \
  } while (0)

#define MINNOW_TORN_WRITE_POINT(name, write_half)                                    \
  do {                                                                               \
    if (::minnow::crash_point_detail::g_armed.load(std::memory_order_relaxed))       \
        [[unlikely]] {                                                               \
      const std::function<void()> minnow_torn_fn = (write_half);                     \
      ::minnow::crash_point_detail::Reached(name, &minnow_torn_fn);                  \
    }                                                                                \
  } while (0)
