#pragma once
// Counts the heap a program holds, for measurements that must be exact and repeatable (the
// bench_parse --memory figures, the INSERT memory bound test). Linking heap_counter.cc into a
// program replaces its global operator new and delete (every form): each block is counted at
// malloc_usable_size bytes, what the allocator really hands out for it, from allocation to
// release. Memory taken by malloc directly (outside operator new) is not counted; minnow's C++
// code allocates through new. Thread-safe (relaxed atomics).

#include <cstddef>

namespace minnow::heap {

// Bytes in blocks live now.
size_t LiveBytes();
// The most LiveBytes has been since the last ResetPeak (or the program's start).
size_t PeakBytes();
// Starts a new peak at LiveBytes().
void ResetPeak();

}  // namespace minnow::heap
