#pragma once
// A small number per thread, handed out in turn (0, 1, 2, ...) at a thread's first call: for
// structures split into parts by thread (ThreadIndex() % parts), so that up to `parts`
// threads never share a part.

#include <atomic>
#include <cstdint>

namespace minnow {

inline uint32_t ThreadIndex() {
  static std::atomic<uint32_t> next{0};
  thread_local const uint32_t index = next.fetch_add(1, std::memory_order_relaxed);
  return index;
}

}  // namespace minnow
