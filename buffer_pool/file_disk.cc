// The file backend: pread/pwrite, fallocate(PUNCH_HOLE | KEEP_SIZE), fdatasync, st_blocks.

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

#include "buffer_pool/disk_backend.h"
#include "common/fault_injection.h"

namespace minnow {

namespace {

Status Errno(const std::string& name, const std::string& what, int err) {
  return Status::IOError(fmt::format("{}: {}: {}", name, what, std::strerror(err)));
}

class FileBackend final : public DiskBackend {
 public:
  FileBackend(std::string name, int fd, bool read_only)
      : name_(std::move(name)), fd_(fd), read_only_(read_only) {}
  ~FileBackend() override { ::close(fd_); }

  Status Read(uint64_t offset, Bytes dst) override {
    size_t done = 0;
    while (done < dst.size()) {
      ssize_t n = ::pread(fd_, dst.data() + done, dst.size() - done, offset + done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Errno(name_, fmt::format("pread at offset {}", offset + done), errno);
      }
      if (n == 0) {
        return Status::Corruption(
            fmt::format("{}: read past the end of the file at offset {}", name_, offset + done));
      }
      done += static_cast<size_t>(n);
    }
    return Status::OK();
  }

  Status ReadV(uint64_t offset, std::span<const Bytes> dsts) override {
    std::vector<iovec> iov;
    iov.reserve(dsts.size());
    uint64_t total = 0;
    for (const Bytes& d : dsts) {
      iov.push_back(iovec{d.data(), d.size()});
      total += d.size();
    }
    size_t first = 0;  // iov[first..] is what is left; a short read continues where it stopped
    uint64_t done = 0;
    while (done < total) {
      const int cnt = static_cast<int>(std::min<size_t>(iov.size() - first, IOV_MAX));
      ssize_t n = ::preadv(fd_, iov.data() + first, cnt, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Errno(name_, fmt::format("preadv at offset {}", offset + done), errno);
      }
      if (n == 0) {
        return Status::Corruption(
            fmt::format("{}: read past the end of the file at offset {}", name_, offset + done));
      }
      done += static_cast<uint64_t>(n);
      for (size_t left = static_cast<size_t>(n); left > 0;) {
        const size_t take = std::min(left, iov[first].iov_len);
        iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + take;
        iov[first].iov_len -= take;
        left -= take;
        if (iov[first].iov_len == 0) ++first;
      }
    }
    return Status::OK();
  }

  Status Write(uint64_t offset, ConstBytes src) override {
    if (read_only_) return ReadOnlyError("pwrite");
    if (const FaultKind fault = TakeFault(FaultOp::kWrite, name_); fault != FaultKind::kNone) {
      return InjectedWriteFault(fault, offset, src);
    }
    return WriteAll(offset, src);
  }

  Status WriteAll(uint64_t offset, ConstBytes src) {
    size_t done = 0;
    while (done < src.size()) {
      ssize_t n = ::pwrite(fd_, src.data() + done, src.size() - done, offset + done);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == ENOSPC) {
          return Status::NoSpace(fmt::format("{}: pwrite at offset {}: {}", name_, offset + done,
                                             std::strerror(ENOSPC)));
        }
        return Errno(name_, fmt::format("pwrite at offset {}", offset + done), errno);
      }
      done += static_cast<size_t>(n);  // a short write continues where it stopped
    }
    return Status::OK();
  }

  Status PunchHole(uint64_t offset, uint64_t len) override {
    if (read_only_) return ReadOnlyError("fallocate(PUNCH_HOLE)");
    if (len == 0 || !punch_supported_.load(std::memory_order_relaxed)) return Status::OK();
    if (::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                    static_cast<off_t>(len)) != 0) {
      if (errno == EOPNOTSUPP || errno == ENOSYS) {
        punch_supported_.store(false, std::memory_order_relaxed);  // not sparse, still correct
        return Status::OK();
      }
      return Errno(name_, fmt::format("fallocate(PUNCH_HOLE) at offset {}", offset), errno);
    }
    return Status::OK();
  }

  Status Sync() override {
    if (TakeFault(FaultOp::kSync, name_) == FaultKind::kSyncError) {
      return Errno(name_, "fdatasync (injected fault)", EIO);
    }
    if (::fdatasync(fd_) != 0) return Errno(name_, "fdatasync", errno);
    return Status::OK();
  }

  Result<uint64_t> Size() override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return Errno(name_, "fstat", errno);
    return static_cast<uint64_t>(st.st_size);
  }

  Result<uint64_t> PhysicalSize() override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return Errno(name_, "fstat", errno);
    return static_cast<uint64_t>(st.st_blocks) * 512;
  }

  const std::string& name() const override { return name_; }

 private:
  // A fault from common/fault_injection.h instead of the real write.
  Status InjectedWriteFault(FaultKind fault, uint64_t offset, ConstBytes src) {
    switch (fault) {
      case FaultKind::kShortWrite: {
        RETURN_IF_ERROR(WriteAll(offset, src.first(src.size() / 2)));
        return Status::IOError(
            fmt::format("{}: pwrite at offset {}: short write ({} of {} bytes, "
                        "injected fault)",
                        name_, offset, src.size() / 2, src.size()));
      }
      case FaultKind::kNoSpace:
        return Status::NoSpace(fmt::format("{}: pwrite at offset {}: {} (injected fault)", name_,
                                           offset, std::strerror(ENOSPC)));
      default:
        return Errno(name_, fmt::format("pwrite at offset {} (injected fault)", offset), EIO);
    }
  }

  Status ReadOnlyError(const char* what) const {
    return Status::ReadOnly(fmt::format("{}: {}: the file is open read-only", name_, what));
  }

  const std::string name_;
  const int fd_;
  const bool read_only_;
  std::atomic<bool> punch_supported_{true};
};

}  // namespace

Result<std::unique_ptr<DiskBackend>> OpenFileBackend(const std::string& path, FileOpenMode mode) {
  int flags = (mode == FileOpenMode::kReadOnly ? O_RDONLY : O_RDWR) | O_CLOEXEC;
  if (mode == FileOpenMode::kCreateIfMissing) flags |= O_CREAT;
  if (mode == FileOpenMode::kCreateNew) flags |= O_CREAT | O_EXCL;
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound(fmt::format("{}: no such file", path));
    if (errno == EEXIST && mode == FileOpenMode::kCreateNew) {
      return Status::Busy(fmt::format("{}: exists (created by someone else)", path));
    }
    return Errno(path, "open", errno);
  }
  return std::unique_ptr<DiskBackend>(new FileBackend(path, fd, mode == FileOpenMode::kReadOnly));
}

}  // namespace minnow
