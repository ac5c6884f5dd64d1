#pragma once
// MINNOW_CHECK aborts in every build (a minnow bug, never bad input: bad input gets a Status).
// MINNOW_DCHECK is compiled only into debug builds (SQLite assert, InnoDB ut_ad).

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

namespace minnow::internal {
[[noreturn]] inline void CheckFailed(const char* file, int line, const char* cond,
                                     const std::string& msg) {
  std::fprintf(stderr, "%s:%d: MINNOW_CHECK(%s) failed: %s\n", file, line, cond, msg.c_str());
  std::abort();
}
}  // namespace minnow::internal

#define MINNOW_CHECK(cond, ...)                                                        \
  do {                                                                                 \
    if (!(cond)) [[unlikely]]                                                          \
      ::minnow::internal::CheckFailed(__FILE__, __LINE__, #cond, fmt::format(__VA_ARGS__)); \
  } while (0)

#ifdef NDEBUG
#define MINNOW_DCHECK(cond, ...) \
  do {                           \
  } while (0)
#else
#define MINNOW_DCHECK(cond, ...) MINNOW_CHECK(cond, __VA_ARGS__)
#endif
