#pragma once
// Where the database file's bytes live. Two implementations: a real file (pread/pwrite, fallocate
// hole punching) and an in-memory one for tests, which can also inject faults.
//
// Thread safety: all methods may be called concurrently for disjoint byte ranges.

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "common/coding.h"
#include "minnow/status.h"

namespace minnow {

class DiskBackend {
 public:
  virtual ~DiskBackend() = default;

  // Reads exactly dst.size() bytes at `offset`. Reading past the end is kCorruption (the file is
  // shorter than its header says), naming the file.
  virtual Status Read(uint64_t offset, Bytes dst) = 0;
  // Reads consecutive bytes from `offset` into the buffers in order, as one request where the
  // backend can (preadv for a file; read-ahead's spans of close pages). Errors as Read.
  virtual Status ReadV(uint64_t offset, std::span<const Bytes> dsts) {
    for (const Bytes& d : dsts) {
      RETURN_IF_ERROR(Read(offset, d));
      offset += d.size();
    }
    return Status::OK();
  }
  // Writes all of `src` at `offset`, extending the file if needed.
  virtual Status Write(uint64_t offset, ConstBytes src) = 0;
  // Deallocates [offset, offset+len) keeping the file size (reads as zeros). Backends that
  // cannot punch holes return OK and keep the bytes (the file is then simply not sparse).
  virtual Status PunchHole(uint64_t offset, uint64_t len) = 0;
  virtual Status Sync() = 0;
  virtual Result<uint64_t> Size() = 0;
  // Bytes really allocated on the medium (st_blocks * 512 for a file).
  virtual Result<uint64_t> PhysicalSize() = 0;
  virtual const std::string& name() const = 0;
};

// How OpenFileBackend opens the file.
enum class FileOpenMode : uint8_t {
  kExisting,         // read-write; kNotFound if missing
  kCreateIfMissing,  // read-write, created if missing
  kCreateNew,        // read-write, created now (O_EXCL); kBusy if the file exists
  kReadOnly,         // O_RDONLY; Write and PunchHole fail with kReadOnly
};

Result<std::unique_ptr<DiskBackend>> OpenFileBackend(const std::string& path, FileOpenMode mode);
// Opens (or, with `create`, creates if missing) the file at `path`.
inline Result<std::unique_ptr<DiskBackend>> OpenFileBackend(const std::string& path, bool create) {
  return OpenFileBackend(path, create ? FileOpenMode::kCreateIfMissing : FileOpenMode::kExisting);
}

// An in-memory backend over a MemoryDisk (buffer_pool/memory_disk.h, which also injects faults,
// flips bytes and truncates). Tests that want to "reopen" keep the MemoryDisk alive and open new
// pools on new backends over it.
class MemoryDisk;
std::unique_ptr<DiskBackend> NewMemoryBackend(std::shared_ptr<MemoryDisk> disk);
std::shared_ptr<MemoryDisk> NewMemoryDisk(std::string name = "memory");

}  // namespace minnow
