#pragma once
// Test-only I/O fault injection for the file backend (buffer_pool/file_disk.cc), so the fault
// tests run the real engine on real files: the data file, the doublewrite file and the redo
// log segments all go through it.
//
//   ArmFault({.kind = FaultKind::kShortWrite, .path_contains = ".redo/", .skip = 3});
//
// makes the 4th write to a file whose path contains ".redo/" write only half its bytes and fail.
// A fault fires once unless `sticky` (then every matching call after `skip` fails, as a full
// disk keeps failing). Unarmed, the check costs one relaxed atomic load.
//
//   kShortWrite  the first half of the bytes are written, then kIOError ("short write")
//   kNoSpace     nothing is written, kNoSpace (ENOSPC)
//   kWriteError  nothing is written, kIOError (EIO)
//   kSyncError   fdatasync fails with kIOError (EIO); the bytes written before stay in the file,
//                as Linux leaves them in the page cache
//
// With `allocate` set the fault hits instead the preallocation of a new redo log segment
// (fallocate in log/log_segment.cc; kNoSpace: ENOSPC), and no write or sync; without it,
// preallocations never fail.

#include <atomic>
#include <cstdint>
#include <string>

namespace minnow {

enum class FaultKind : uint8_t { kNone, kShortWrite, kNoSpace, kWriteError, kSyncError };
enum class FaultOp : uint8_t { kWrite, kSync, kAllocate };

struct FaultSpec {
  FaultKind kind = FaultKind::kNone;
  std::string path_contains;  // matches files whose path contains this ("" = every file)
  uint64_t skip = 0;          // matching calls that pass before the fault fires
  bool sticky = false;        // keep failing after the first fault
  bool allocate = false;      // fail preallocations of new files instead of writes and syncs
};

void ArmFault(const FaultSpec& spec);
void ClearFaults();
// How many faults fired since the last ArmFault (tests assert the fault really happened).
uint64_t FaultsFired();

namespace fault_detail {
extern std::atomic<bool> g_armed;
FaultKind Take(FaultOp op, const std::string& path);
}  // namespace fault_detail

// The fault to inject into this call (kNone almost always).
inline FaultKind TakeFault(FaultOp op, const std::string& path) {
  if (!fault_detail::g_armed.load(std::memory_order_relaxed)) [[likely]]
    return FaultKind::kNone;
  return fault_detail::Take(op, path);
}

}  // namespace minnow
