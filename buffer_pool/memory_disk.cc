#include "buffer_pool/memory_disk.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace minnow {

MemoryDisk::MemoryDisk(std::string name) : name_(std::move(name)) {}

uint64_t MemoryDisk::size() const {
  LatchGuard g(latch_);
  return bytes_.size();
}

std::vector<std::byte> MemoryDisk::Snapshot() const {
  LatchGuard g(latch_);
  return bytes_;
}

void MemoryDisk::Restore(std::vector<std::byte> bytes) {
  LatchGuard g(latch_);
  bytes_ = std::move(bytes);
  allocated_.assign((bytes_.size() + kBlock - 1) / kBlock, true);
}

void MemoryDisk::FlipByte(uint64_t offset, uint8_t mask) {
  LatchGuard g(latch_);
  if (offset < bytes_.size()) bytes_[offset] ^= std::byte{mask};
}

void MemoryDisk::Truncate(uint64_t size) {
  LatchGuard g(latch_);
  if (size < bytes_.size()) bytes_.resize(size);
  allocated_.resize((bytes_.size() + kBlock - 1) / kBlock);
}

void MemoryDisk::FailWrite(uint64_t after, WriteFault kind, bool sticky) {
  LatchGuard g(latch_);
  write_fault_countdown_ = static_cast<int64_t>(after);
  write_fault_kind_ = kind;
  write_fault_sticky_ = sticky;
}

void MemoryDisk::FailRead(uint64_t after, bool sticky) {
  LatchGuard g(latch_);
  read_fault_countdown_ = static_cast<int64_t>(after);
  read_fault_sticky_ = sticky;
}

void MemoryDisk::FailSync(bool fail) {
  LatchGuard g(latch_);
  fail_sync_ = fail;
}

void MemoryDisk::ClearFaults() {
  LatchGuard g(latch_);
  write_fault_countdown_ = -1;
  read_fault_countdown_ = -1;
  fail_sync_ = false;
}

void MemoryDisk::SetWriteHook(std::function<void(uint64_t offset, ConstBytes src)> hook) {
  LatchGuard g(latch_);
  write_hook_ = std::move(hook);
}

uint64_t MemoryDisk::write_count() const {
  LatchGuard g(latch_);
  return writes_;
}

uint64_t MemoryDisk::read_count() const {
  LatchGuard g(latch_);
  return reads_;
}

uint64_t MemoryDisk::sync_count() const {
  LatchGuard g(latch_);
  return syncs_;
}

Status MemoryDisk::Read(uint64_t offset, Bytes dst) {
  LatchGuard g(latch_);
  ++reads_;
  if (read_fault_countdown_ >= 0) {
    if (read_fault_countdown_ == 0) {
      if (!read_fault_sticky_) read_fault_countdown_ = -1;
      return Status::IOError(fmt::format("{}: injected read fault at offset {}", name_, offset));
    }
    --read_fault_countdown_;
  }
  if (offset > bytes_.size() || dst.size() > bytes_.size() - offset) {
    return Status::Corruption(
        fmt::format("{}: read past the end of the file at offset {}", name_, offset));
  }
  std::memcpy(dst.data(), bytes_.data() + offset, dst.size());
  return Status::OK();
}

void MemoryDisk::MarkBlocks(uint64_t offset, uint64_t len, bool allocated) {
  if (len == 0) return;
  uint64_t first = allocated ? offset / kBlock : (offset + kBlock - 1) / kBlock;
  uint64_t last = allocated ? (offset + len - 1) / kBlock + 1 : (offset + len) / kBlock;
  if (allocated_.size() < (bytes_.size() + kBlock - 1) / kBlock) {
    allocated_.resize((bytes_.size() + kBlock - 1) / kBlock, false);
  }
  last = std::min<uint64_t>(last, allocated_.size());
  for (uint64_t b = first; b < last; ++b) allocated_[b] = allocated;
}

Status MemoryDisk::Write(uint64_t offset, ConstBytes src) {
  std::function<void(uint64_t, ConstBytes)> hook;
  {
    LatchGuard g(latch_);
    hook = write_hook_;
  }
  if (hook) hook(offset, src);
  LatchGuard g(latch_);
  ++writes_;
  size_t n = src.size();
  bool fail = false;
  if (write_fault_countdown_ >= 0) {
    if (write_fault_countdown_ == 0) {
      fail = true;
      if (!write_fault_sticky_) write_fault_countdown_ = -1;
      n = write_fault_kind_ == WriteFault::kShort ? src.size() / 2 : 0;
    } else {
      --write_fault_countdown_;
    }
  }
  if (n > 0) {
    if (bytes_.size() < offset + n) bytes_.resize(offset + n);
    std::memcpy(bytes_.data() + offset, src.data(), n);
    MarkBlocks(offset, n, true);
  }
  if (fail) {
    return Status::IOError(
        fmt::format("{}: injected write fault at offset {} ({} of {} bytes "
                    "written)",
                    name_, offset, n, src.size()));
  }
  return Status::OK();
}

Status MemoryDisk::PunchHole(uint64_t offset, uint64_t len) {
  LatchGuard g(latch_);
  if (offset >= bytes_.size()) return Status::OK();
  len = std::min<uint64_t>(len, bytes_.size() - offset);  // KEEP_SIZE
  std::memset(bytes_.data() + offset, 0, len);
  MarkBlocks(offset, len, false);
  return Status::OK();
}

Status MemoryDisk::Sync() {
  LatchGuard g(latch_);
  ++syncs_;
  if (fail_sync_) return Status::IOError(fmt::format("{}: injected fsync fault", name_));
  return Status::OK();
}

uint64_t MemoryDisk::PhysicalSize() const {
  LatchGuard g(latch_);
  uint64_t n = 0;
  for (bool b : allocated_) n += b ? 1 : 0;
  return n * kBlock;
}

namespace {

class MemoryBackend final : public DiskBackend {
 public:
  explicit MemoryBackend(std::shared_ptr<MemoryDisk> disk) : disk_(std::move(disk)) {}
  Status Read(uint64_t offset, Bytes dst) override { return disk_->Read(offset, dst); }
  Status Write(uint64_t offset, ConstBytes src) override { return disk_->Write(offset, src); }
  Status PunchHole(uint64_t offset, uint64_t len) override { return disk_->PunchHole(offset, len); }
  Status Sync() override { return disk_->Sync(); }
  Result<uint64_t> Size() override { return disk_->size(); }
  Result<uint64_t> PhysicalSize() override { return disk_->PhysicalSize(); }
  const std::string& name() const override { return disk_->name(); }

 private:
  std::shared_ptr<MemoryDisk> disk_;
};

}  // namespace

std::unique_ptr<DiskBackend> NewMemoryBackend(std::shared_ptr<MemoryDisk> disk) {
  return std::make_unique<MemoryBackend>(std::move(disk));
}

std::shared_ptr<MemoryDisk> NewMemoryDisk(std::string name) {
  return std::make_shared<MemoryDisk>(std::move(name));
}

}  // namespace minnow
