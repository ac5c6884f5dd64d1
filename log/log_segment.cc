// Segment file naming, header encoding, creation and directory listing.

#include "log/log_segment.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <vector>

#include "common/fault_injection.h"

namespace minnow::log_format {

namespace {

constexpr char kMagic[8] = {'M', 'I', 'N', 'N', 'O', 'W', 'L', 'G'};
constexpr std::string_view kPrefix = "redo-";
constexpr std::string_view kSuffix = ".log";

Status Errno(const std::string& path, const char* what, int err) {
  return Status::IOError(fmt::format("{}: {}: {}", path, what, std::strerror(err)));
}

}  // namespace

std::string SegmentFileName(Lsn start) { return fmt::format("redo-{:016x}.log", start); }

std::string SegmentPath(const std::string& dir, Lsn start) {
  return dir + "/" + SegmentFileName(start);
}

bool ParseSegmentFileName(std::string_view name, Lsn* start) {
  if (name.size() != kPrefix.size() + 16 + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return false;
  }
  Lsn v = 0;
  for (char c : name.substr(kPrefix.size(), 16)) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      return false;
    }
    v = (v << 4) | static_cast<Lsn>(d);
  }
  *start = v;
  return true;
}

Result<std::vector<SegmentFile>> ListSegments(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::NotFound(fmt::format("{}: no such directory", dir));
  }
  std::vector<SegmentFile> out;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    Lsn start;
    const std::string name = it->path().filename().string();
    if (ParseSegmentFileName(name, &start)) out.push_back({start, dir + "/" + name});
  }
  if (ec) return Status::IOError(fmt::format("{}: listing: {}", dir, ec.message()));
  std::sort(out.begin(), out.end(),
            [](const SegmentFile& a, const SegmentFile& b) { return a.start < b.start; });
  return out;
}

Status RemoveTempFiles(const std::string& dir, bool* removed) {
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() != ".tmp") continue;
    if (::unlink(it->path().c_str()) != 0) {
      return Errno(it->path().string(), "unlink", errno);
    }
    *removed = true;
  }
  if (ec) return Status::IOError(fmt::format("{}: listing: {}", dir, ec.message()));
  return Status::OK();
}

void EncodeSegmentHeader(ConstBytes database_id, Lsn start, uint64_t capacity, std::byte* block) {
  std::memset(block, 0, kLogSegmentHeaderSize);
  std::memcpy(block, kMagic, 8);
  Store32(block + 8, kSegmentVersion);
  std::memcpy(block + 12, database_id.data(), kDatabaseIdSize);
  Store64(block + 28, start);
  Store64(block + 36, capacity);
  Store32(block + 44, crc32c::Value(ConstBytes(block, 44)));
}

Result<uint64_t> DecodeSegmentHeader(const std::string& path, ConstBytes block,
                                     ConstBytes database_id, Lsn expected_start) {
  const std::byte* b = block.data();
  if (block.size() < kSegmentHeaderBytes || std::memcmp(b, kMagic, 8) != 0) {
    return Status::Corruption(fmt::format("{}: not a redo log segment (bad magic)", path));
  }
  const uint32_t stored = Load32(b + 44);
  const uint32_t computed = crc32c::Value(ConstBytes(b, 44));
  if (stored != computed) {
    return Status::Corruption(
        fmt::format("{}: segment header checksum mismatch (stored {:#x}, computed {:#x})", path,
                    stored, computed));
  }
  if (Load32(b + 8) != kSegmentVersion) {
    return Status::Corruption(
        fmt::format("{}: unsupported redo log version {}", path, Load32(b + 8)));
  }
  if (Load64(b + 28) != expected_start) {
    return Status::Corruption(fmt::format("{}: header names start LSN {}, the file name {}", path,
                                          Load64(b + 28), expected_start));
  }
  const uint64_t capacity = Load64(b + 36);
  if (capacity < kMinSegmentBytes || capacity > kMaxSegmentBytes) {
    return Status::Corruption(fmt::format("{}: bad segment capacity {}", path, capacity));
  }
  if (database_id.size() != kDatabaseIdSize ||
      std::memcmp(b + 12, database_id.data(), kDatabaseIdSize) != 0) {
    return Status::Corruption(
        fmt::format("{}: redo log segment belongs to another database", path));
  }
  return capacity;
}

Status SyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno(dir, "open directory", errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return Errno(dir, "fsync directory", err);
  return Status::OK();
}

Result<std::unique_ptr<DiskBackend>> CreateSegment(const std::string& dir, ConstBytes database_id,
                                                   Lsn start, uint64_t capacity) {
  const std::string path = SegmentPath(dir, start);
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(tmp, "create", errno);
  // Full length now, so that fdatasync at commit need not write the file size.
  const auto size = static_cast<off_t>(kLogSegmentHeaderSize + capacity);
  Status st;
  const bool injected = TakeFault(FaultOp::kAllocate, tmp) == FaultKind::kNoSpace;
  if (injected || ::fallocate(fd, 0, 0, size) != 0) {
    const int err = injected ? ENOSPC : errno;
    if (err == EOPNOTSUPP || err == ENOSYS) {
      if (::ftruncate(fd, size) != 0) st = Errno(tmp, "ftruncate", errno);
    } else if (err == ENOSPC) {
      st = Status::NoSpace(fmt::format("{}: fallocate: {}", tmp, std::strerror(err)));
    } else {
      st = Errno(tmp, "fallocate", err);
    }
  }
  ::close(fd);
  if (st.ok()) {
    auto file = OpenFileBackend(tmp, false);
    if (!file.ok()) {
      st = file.status();
    } else {
      std::byte block[kLogSegmentHeaderSize];
      EncodeSegmentHeader(database_id, start, capacity, block);
      st = (*file)->Write(0, ConstBytes(block, sizeof block));
      if (st.ok()) st = (*file)->Sync();
    }
  }
  if (st.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) st = Errno(path, "rename", errno);
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  RETURN_IF_ERROR(SyncDir(dir));
  return OpenFileBackend(path, false);
}

Result<uint64_t> OpenForAppend(const SegmentFile& f, ConstBytes database_id, Lsn append_at,
                               std::unique_ptr<DiskBackend>* file) {
  file->reset();
  ASSIGN_OR_RETURN(std::unique_ptr<DiskBackend> backend, OpenFileBackend(f.path, false));
  ASSIGN_OR_RETURN(const uint64_t size, backend->Size());
  if (size < kLogSegmentHeaderSize) return uint64_t{0};
  std::byte block[kLogSegmentHeaderSize];
  RETURN_IF_ERROR(backend->Read(0, Bytes(block, sizeof block)));
  auto capacity =
      DecodeSegmentHeader(f.path, ConstBytes(block, sizeof block), database_id, f.start);
  // A damaged or foreign header, a full segment or a short file: not ours to append to.
  if (!capacity.ok() || append_at - f.start >= *capacity ||
      size < kLogSegmentHeaderSize + *capacity) {
    return uint64_t{0};
  }
  *file = std::move(backend);
  return *capacity;
}

Status ZeroTail(DiskBackend* file, uint64_t from, uint64_t capacity) {
  constexpr size_t kChunk = 256 << 10;
  std::vector<std::byte> buf(kChunk);
  static const std::vector<std::byte> kZeros(kChunk);
  for (uint64_t p = from; p < capacity;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, capacity - p));
    RETURN_IF_ERROR(file->Read(kLogSegmentHeaderSize + p, Bytes(buf.data(), n)));
    const auto nonzero = [](std::byte b) { return b != std::byte{0}; };
    const auto first = std::find_if(buf.begin(), buf.begin() + static_cast<ptrdiff_t>(n), nonzero);
    if (first != buf.begin() + static_cast<ptrdiff_t>(n)) {
      const size_t lo = static_cast<size_t>(first - buf.begin());
      const auto last = std::find_if(
          std::make_reverse_iterator(buf.begin() + static_cast<ptrdiff_t>(n)), buf.rend(), nonzero);
      const size_t hi = static_cast<size_t>(buf.rend() - last);  // one past the last non-zero
      RETURN_IF_ERROR(
          file->Write(kLogSegmentHeaderSize + p + lo, ConstBytes(kZeros.data(), hi - lo)));
    }
    p += n;
  }
  // Always synced: the frames before `from` may have reached only the page cache before a
  // crash of the process, and the reopened log names everything before it durable.
  return file->Sync();
}

}  // namespace minnow::log_format
