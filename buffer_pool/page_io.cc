// Page images on disk: checksums, page-number checks, lz4 compression with hole punching, the
// WAL rule at write-back, and file extension.

#include <fmt/format.h>
#include <lz4.h>

#include <algorithm>
#include <cstring>

#include "buffer_pool/buffer_pool_internal.h"
#include "buffer_pool/page_codec.h"
#include "common/crc32c.h"

namespace minnow {

namespace {

// Per-thread scratch for building write images and decompressing (no allocation per page).
struct Scratch {
  alignas(4096) std::byte image[kPageSize];
  std::byte body[kPageSize];
};

Scratch& ThreadScratch() {
  thread_local Scratch s;
  return s;
}

bool AllZero(const std::byte* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != std::byte{0}) return false;
  }
  return true;
}

}  // namespace

size_t BuildPageImage(const std::byte* page, PageNo page_no, std::byte* out, bool* compressed) {
  std::memcpy(out, page, kPageHeaderSize);
  Store32(out + page_offset::kPageNo, page_no);
  uint16_t flags = HeaderFlags(page) & ~kFlagStoredCompressed;
  std::memset(out + page_offset::kStoredLen, 0, kPageHeaderSize - page_offset::kStoredLen);
  size_t len = kPageSize;
  *compressed = false;
  if ((flags & kFlagCompressLz4) != 0) {
    // Worth it only if at least one 4 KiB filesystem block is saved.
    const int cap = static_cast<int>(kPageSize - kFsBlockSize - kPageHeaderSize);
    const int clen = LZ4_compress_default(reinterpret_cast<const char*>(page + kPageHeaderSize),
                                          reinterpret_cast<char*>(out + kPageHeaderSize),
                                          static_cast<int>(kPageBodySize), cap);
    if (clen > 0) {
      const size_t stored = kPageHeaderSize + static_cast<size_t>(clen);
      len = (stored + kFsBlockSize - 1) / kFsBlockSize * kFsBlockSize;
      std::memset(out + stored, 0, len - stored);
      flags |= kFlagStoredCompressed;
      Store32(out + page_offset::kStoredLen, static_cast<uint32_t>(clen));
      *compressed = true;
    }
  }
  if (!*compressed) std::memcpy(out + kPageHeaderSize, page + kPageHeaderSize, kPageBodySize);
  Store16(out + page_offset::kFlags, flags);
  const size_t checked_end =
      *compressed ? kPageHeaderSize + Load32(out + page_offset::kStoredLen) : kPageSize;
  Store32(out + page_offset::kChecksum, crc32c::Value(ConstBytes(out + 4, checked_end - 4)));
  return len;
}

Status DecodePageImage(const std::string& file, PageNo page_no, std::byte* page) {
  const uint32_t stored_crc = Load32(page + page_offset::kChecksum);
  const uint16_t flags = HeaderFlags(page);
  size_t checked_end = kPageSize;
  uint32_t clen = 0;
  if ((flags & kFlagStoredCompressed) != 0) {
    clen = Load32(page + page_offset::kStoredLen);
    if (clen == 0 || clen > kPageBodySize) {
      return Status::Corruption(
          fmt::format("{}: page {}: bad compressed length {}", file, page_no, clen));
    }
    checked_end = kPageHeaderSize + clen;
  }
  const uint32_t crc = crc32c::Value(ConstBytes(page + 4, checked_end - 4));
  if (crc != stored_crc) {
    if (stored_crc == 0 && AllZero(page, kPageSize)) {
      // Allocated by file extension and never written (e.g. a crash right after): unused.
      Store32(page + page_offset::kPageNo, page_no);
      return Status::OK();
    }
    return Status::Corruption(
        fmt::format("{}: page {}: checksum mismatch (stored 0x{:08x}, computed 0x{:08x})", file,
                    page_no, stored_crc, crc));
  }
  const PageNo header_no = HeaderPageNo(page);
  if (header_no != page_no) {
    return Status::Corruption(
        fmt::format("{}: page {}: page number mismatch (the page says it is page {})", file,
                    page_no, header_no));
  }
  if (clen != 0) {
    std::byte* body = ThreadScratch().body;
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(page + kPageHeaderSize),
                                      reinterpret_cast<char*>(body), static_cast<int>(clen),
                                      static_cast<int>(kPageBodySize));
    if (n != static_cast<int>(kPageBodySize)) {
      return Status::Corruption(
          fmt::format("{}: page {}: lz4 body does not decompress ({})", file, page_no, n));
    }
    std::memcpy(page + kPageHeaderSize, body, kPageBodySize);
    Store16(page + page_offset::kFlags, flags & ~kFlagStoredCompressed);
    Store32(page + page_offset::kStoredLen, 0);
  }
  return Status::OK();
}

Status BufferPool::Impl::ReadPage(PageNo page_no, std::byte* dst) {
  read_calls.fetch_add(1, std::memory_order_relaxed);
  Status st = disk->Read(uint64_t{page_no} * kPageSize, Bytes(dst, kPageSize));
  if (!st.ok()) {
    return Status(st.code(), fmt::format("{} (reading page {})", st.message(), page_no));
  }
  return DecodePageImage(disk->name(), page_no, dst);
}

Status BufferPool::Impl::WriteBack(Frame* f) {
  RETURN_IF_ERROR(FatalError());
  const std::byte* page = f->data;
  const PageNo page_no = f->page_no.load(std::memory_order_relaxed);
  std::byte* image = ThreadScratch().image;
  if (dblwr != nullptr) {
    // A batch of one; the caller's latch keeps the page unchanged until it is marked clean.
    PageImage img;
    CaptureImage(f, image, &img);
    RETURN_IF_ERROR(WriteThroughDoublewrite(&img, image, 1));
    ClearDirty(f);
    return Status::OK();
  }
  const Lsn lsn = HeaderPageLsn(page);
  {
    // The WAL rule; for LSN 0 too (see WriteThroughDoublewrite).
    Status st = log->FlushUpTo(lsn);
    if (!st.ok()) {
      return Status(st.code(), fmt::format("{}: page {}: cannot write, redo log flush to {} "
                                           "failed: {}",
                                           disk->name(), page_no, lsn, st.message()));
    }
  }
  bool compressed = false;
  const size_t len = BuildPageImage(page, page_no, image, &compressed);
  const uint64_t offset = uint64_t{page_no} * kPageSize;
  Status st = disk->Write(offset, ConstBytes(image, len));
  if (!st.ok()) {
    // Fatal: see BufferPool::fatal_error().
    return SetFatal(Status(st.code(), fmt::format("{} (writing page {})", st.message(), page_no)));
  }
  st = len < kPageSize ? disk->PunchHole(offset + len, kPageSize - len) : Status::OK();
  if (!st.ok()) {
    return Status(st.code(), fmt::format("{} (writing page {})", st.message(), page_no));
  }
  RaiseFilePages(uint64_t{page_no} + 1);
  writes.fetch_add(1, std::memory_order_relaxed);
  if (compressed) compressed_writes.fetch_add(1, std::memory_order_relaxed);
  ClearDirty(f);
  return Status::OK();
}

void BufferPool::Impl::RaiseFilePages(uint64_t end) {
  uint64_t have = file_pages.load(std::memory_order_acquire);
  while (have < end && !file_pages.compare_exchange_weak(have, end, std::memory_order_acq_rel)) {
  }
}

Status BufferPool::Impl::EnsureFileSize(uint64_t pages) {
  if (file_pages.load(std::memory_order_acquire) >= pages) return Status::OK();
  LatchGuard g(extend_latch_);
  const uint64_t have = file_pages.load(std::memory_order_acquire);
  if (have >= pages) return Status::OK();
  // Grow in chunks (64 pages or 1/8 of the file) so that extension is rare; the new tail is a
  // hole that reads as zeros (an all-zero page is a valid unused page).
  const uint64_t target = std::max(pages, have + std::max<uint64_t>(64, have / 8));
  const std::byte zero{0};
  Status st = disk->Write(target * kPageSize - 1, ConstBytes(&zero, 1));
  if (!st.ok()) return st;
  RaiseFilePages(target);
  return Status::OK();
}

}  // namespace minnow
