#pragma once
// Helpers shared by the buffer_pool tests.

#include <memory>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/memory_disk.h"

namespace minnow::testing {

inline BufferPoolOptions SmallOptions(size_t frames = 64) {
  BufferPoolOptions o;
  o.pool_bytes = frames * kPageSize;
  o.background_flusher = false;
  o.old_blocks_time_ms = 0;
  return o;
}

inline std::unique_ptr<BufferPool> OpenOrDie(const std::shared_ptr<MemoryDisk>& disk,
                                             const BufferPoolOptions& o, RedoLog* log = nullptr) {
  auto r = BufferPool::Open(NewMemoryBackend(disk), o, log);
  if (!r.ok()) return nullptr;
  return std::move(r).value();
}

}  // namespace minnow::testing
