#pragma once
// A counter bumped on hot paths by many threads: one cache line per stripe, a thread's bumps
// going to its own stripe (ThreadIndex), so threads never bounce a line between them; Sum()
// adds the stripes (a count that is exact once the bumps it covers have finished).

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/thread_index.h"

namespace minnow {

class StripedCounter {
 public:
  void Add(uint64_t n = 1) {
    stripes_[ThreadIndex() % kStripes].v.fetch_add(n, std::memory_order_relaxed);
  }
  uint64_t Sum() const {
    uint64_t s = 0;
    for (const Stripe& st : stripes_) s += st.v.load(std::memory_order_relaxed);
    return s;
  }

 private:
  static constexpr size_t kStripes = 16;
  struct alignas(64) Stripe {
    std::atomic<uint64_t> v{0};
  };
  Stripe stripes_[kStripes];
};

}  // namespace minnow
