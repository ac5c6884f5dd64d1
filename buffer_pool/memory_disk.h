#pragma once
// MemoryDisk: a database "file" in memory, for tests (LevelDB's memenv plus a fault-injecting
// env). The bytes live in the MemoryDisk; NewMemoryBackend(disk) gives a DiskBackend on it, so a
// test "reopens" by opening a new pool on a new backend over the same MemoryDisk. It can also
// fail the Nth write, write only part of it, fail syncs and reads, flip bytes and truncate.
//
// Thread safety: all methods may be called concurrently.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "buffer_pool/disk_backend.h"
#include "common/latch.h"

namespace minnow {

enum class WriteFault : uint8_t {
  kError,  // the write does nothing and returns kIOError
  kShort,  // the first half of the bytes are written, then kIOError (a torn write)
};

class MemoryDisk {
 public:
  explicit MemoryDisk(std::string name);

  const std::string& name() const { return name_; }
  uint64_t size() const;

  // A copy of the whole file / replaces it (tests snapshot and restore).
  std::vector<std::byte> Snapshot() const;
  void Restore(std::vector<std::byte> bytes);
  // Damage: XORs the byte at `offset` with `mask`; cuts the file to `size` bytes.
  void FlipByte(uint64_t offset, uint8_t mask = 0xff);
  void Truncate(uint64_t size);

  // Faults. `after` writes (reads) from now succeed, the next one fails; `sticky` keeps failing
  // every later one too. Counting starts when the fault is set.
  void FailWrite(uint64_t after, WriteFault kind = WriteFault::kError, bool sticky = false);
  void FailRead(uint64_t after, bool sticky = false);
  void FailSync(bool fail);
  void ClearFaults();
  // Called before every write with its offset and bytes (tests check the WAL rule with it).
  // Must not call back into this disk.
  void SetWriteHook(std::function<void(uint64_t offset, ConstBytes src)> hook);

  uint64_t write_count() const;
  uint64_t read_count() const;
  uint64_t sync_count() const;

  // The DiskBackend operations (NewMemoryBackend forwards here).
  Status Read(uint64_t offset, Bytes dst);
  Status Write(uint64_t offset, ConstBytes src);
  Status PunchHole(uint64_t offset, uint64_t len);
  Status Sync();
  uint64_t PhysicalSize() const;  // 4 KiB blocks written and not punched out

 private:
  static constexpr uint64_t kBlock = 4096;
  void MarkBlocks(uint64_t offset, uint64_t len, bool allocated) REQUIRES(latch_);

  const std::string name_;
  mutable Latch latch_;
  std::vector<std::byte> bytes_ GUARDED_BY(latch_);
  std::vector<bool> allocated_ GUARDED_BY(latch_);  // per 4 KiB block
  std::function<void(uint64_t, ConstBytes)> write_hook_ GUARDED_BY(latch_);
  int64_t write_fault_countdown_ GUARDED_BY(latch_) = -1;  // -1: none
  WriteFault write_fault_kind_ GUARDED_BY(latch_) = WriteFault::kError;
  bool write_fault_sticky_ GUARDED_BY(latch_) = false;
  int64_t read_fault_countdown_ GUARDED_BY(latch_) = -1;
  bool read_fault_sticky_ GUARDED_BY(latch_) = false;
  bool fail_sync_ GUARDED_BY(latch_) = false;
  uint64_t writes_ GUARDED_BY(latch_) = 0;
  uint64_t reads_ GUARDED_BY(latch_) = 0;
  uint64_t syncs_ GUARDED_BY(latch_) = 0;
};

}  // namespace minnow
