// BufferPool: opening (format or validate page 0) and the public API.

#include "buffer_pool/buffer_pool.h"

#include <fmt/format.h>

#include <cstring>
#include <random>
#include <vector>

#include "buffer_pool/buffer_pool_internal.h"
#include "buffer_pool/file_header.h"
#include "buffer_pool/memory_redo_log.h"
#include "buffer_pool/mtr.h"
#include "buffer_pool/page_codec.h"
#include "common/crc32c.h"

namespace minnow {

namespace fh = file_header_offset;

namespace {

Status Format(DiskBackend* disk, std::byte* page) {
  std::memset(page, 0, kPageSize);
  Store16(page + page_offset::kPageType, static_cast<uint16_t>(PageType::kFileHeader));
  std::memcpy(page + fh::kMagic, kFileMagic, sizeof(kFileMagic));
  Store32(page + fh::kFormatVersion, kFormatVersion);
  Store32(page + fh::kPageSizeField, kPageSize);
  Store32(page + fh::kPageCount, 1);
  Store32(page + fh::kFreeListHead, kInvalidPageNo);
  Store32(page + fh::kFreePageCount, 0);
  Store64(page + fh::kCheckpointLsn, 0);
  std::random_device rd;
  for (size_t i = 0; i < 16; i += 4) Store32(page + fh::kDatabaseId + i, rd());
  for (size_t s = 0; s < kSystemRootSlots; ++s) {
    Store32(page + fh::kSystemRoots + 4 * s, kInvalidPageNo);
  }
  std::vector<std::byte> image(kPageSize);
  bool compressed = false;
  const size_t len = BuildPageImage(page, 0, image.data(), &compressed);
  RETURN_IF_ERROR(disk->Write(0, ConstBytes(image.data(), len)));
  return disk->Sync();
}

// Checks page 0 of a non-empty file and leaves its decoded bytes in `page`. With `allow_short`
// the file may be shorter than page 0's page count (recovery extends it).
Status Validate(DiskBackend* disk, uint64_t size, std::byte* page, bool allow_short) {
  const std::string& name = disk->name();
  constexpr size_t kMinSize = fh::kPageSizeField + 4;
  if (size < kMinSize) {
    return Status::Corruption(
        fmt::format("{}: not a minnow database (only {} bytes long)", name, size));
  }
  std::memset(page, 0, kPageSize);
  RETURN_IF_ERROR(disk->Read(0, Bytes(page, std::min<uint64_t>(size, kPageSize))));
  if (std::memcmp(page + fh::kMagic, kFileMagic, sizeof(kFileMagic)) != 0) {
    return Status::Corruption(fmt::format("{}: not a minnow database (bad magic)", name));
  }
  const uint32_t version = Load32(page + fh::kFormatVersion);
  if (version > kFormatVersion) {
    return Status::NotSupported(
        fmt::format("{}: format version {} is newer than this build of minnow supports ({})", name,
                    version, kFormatVersion));
  }
  if (version == 0) return Status::Corruption(fmt::format("{}: page 0: format version 0", name));
  if (version < kFormatVersion) {
    // Nothing converts an older file: its log and undo are in a form this build cannot recover.
    return Status::NotSupported(fmt::format(
        "{}: format version {} is older than this build of minnow supports ({}): it was written "
        "before {}; recreate the database",
        name, version, kFormatVersion,
        version == 1 ? "minnow had a durable redo log" : "undo logs moved into undo pages"));
  }
  const uint32_t page_size = Load32(page + fh::kPageSizeField);
  if (page_size != kPageSize) {
    return Status::NotSupported(
        fmt::format("{}: page size {} (this build uses {})", name, page_size, kPageSize));
  }
  if (size < kPageSize) {
    return Status::Corruption(fmt::format("{}: truncated: {} bytes, shorter than page 0 ({} bytes)",
                                          name, size, kPageSize));
  }
  RETURN_IF_ERROR(DecodePageImage(name, 0, page));
  if (HeaderPageType(page) != PageType::kFileHeader) {
    return Status::Corruption(fmt::format("{}: page 0: type {} is not a file header", name,
                                          static_cast<int>(HeaderPageType(page))));
  }
  const uint32_t count = Load32(page + fh::kPageCount);
  if (count == 0 || count == kInvalidPageNo) {
    return Status::Corruption(fmt::format("{}: page 0: bad page count {}", name, count));
  }
  if (!allow_short && size < uint64_t{count} * kPageSize) {
    return Status::Corruption(
        fmt::format("{}: truncated: the file has {} bytes, page 0 says {} pages ({} bytes)", name,
                    size, count, uint64_t{count} * kPageSize));
  }
  const PageNo head = Load32(page + fh::kFreeListHead);
  if (head != kInvalidPageNo && (head == 0 || head >= count)) {
    return Status::Corruption(fmt::format(
        "{}: page 0: free list head {} outside the file ({} pages)", name, head, count));
  }
  return Status::OK();
}

}  // namespace

Result<FileHeaderInfo> ReadFileHeader(DiskBackend* disk) {
  ASSIGN_OR_RETURN(const uint64_t size, disk->Size());
  if (size == 0) return Status::NotFound(fmt::format("{}: empty file", disk->name()));
  std::vector<std::byte> p0(kPageSize);
  RETURN_IF_ERROR(Validate(disk, size, p0.data(), /*allow_short=*/true));
  FileHeaderInfo info;
  info.format_version = Load32(p0.data() + fh::kFormatVersion);
  info.page_count = Load32(p0.data() + fh::kPageCount);
  info.checkpoint_lsn = Load64(p0.data() + fh::kCheckpointLsn);
  std::memcpy(info.database_id.data(), p0.data() + fh::kDatabaseId, info.database_id.size());
  return info;
}

BufferPool::BufferPool(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BufferPool::~BufferPool() {
  if (impl_) {
    impl_->StopReadAhead();
    impl_->StopFlusher();
  }
}

Result<std::unique_ptr<BufferPool>> BufferPool::Open(std::unique_ptr<DiskBackend> disk,
                                                     const BufferPoolOptions& options, RedoLog* log,
                                                     std::unique_ptr<DiskBackend> doublewrite) {
  if (disk == nullptr) return Status::InvalidArgument("BufferPool::Open: no disk backend");
  ASSIGN_OR_RETURN(uint64_t size, disk->Size());
  std::vector<std::byte> p0(kPageSize);
  if (size == 0) {
    if (!options.create_if_missing) {
      return Status::NotFound(
          fmt::format("{}: empty file (create_if_missing is off)", disk->name()));
    }
    RETURN_IF_ERROR(Format(disk.get(), p0.data()));
    size = kPageSize;
  } else {
    RETURN_IF_ERROR(Validate(disk.get(), size, p0.data(), options.recovery));
  }
  const size_t nframes = std::max<size_t>(16, options.pool_bytes / kPageSize);
  auto impl = std::make_unique<Impl>(std::move(disk), options, nframes);
  impl->dblwr = std::move(doublewrite);
  impl->recovering.store(options.recovery, std::memory_order_relaxed);
  impl->page_count.store(Load32(p0.data() + fh::kPageCount));
  impl->free_page_count.store(Load32(p0.data() + fh::kFreePageCount));
  for (size_t s = 0; s < kSystemRootSlots; ++s) {
    impl->roots[s].store(Load32(p0.data() + fh::kSystemRoots + 4 * s));
  }
  impl->file_pages.store(size / kPageSize);
  impl->checkpoint_lsn.store(Load64(p0.data() + fh::kCheckpointLsn));
  impl->database_id_hash =
      (uint64_t{crc32c::Value(ConstBytes(p0.data() + fh::kDatabaseId, 8))} << 32) |
      crc32c::Value(ConstBytes(p0.data() + fh::kDatabaseId + 8, 8));
  if (log == nullptr) {
    impl->owned_log = std::make_unique<MemoryRedoLog>(Load64(p0.data() + fh::kCheckpointLsn));
    log = impl->owned_log.get();
  }
  impl->log = log;
  std::unique_ptr<BufferPool> pool(new BufferPool(std::move(impl)));
  pool->log_ = log;
  pool->impl_->pool = pool.get();
  ASSIGN_OR_RETURN(Frame * f0, pool->impl_->Fetch(0, LatchMode::kShared));
  // Fetch returned page 0 S-latched, which the thread-safety analysis cannot see through the
  // Result; keep the pin: page 0 never leaves the pool.
  [f0]() NO_THREAD_SAFETY_ANALYSIS { f0->latch.ReleaseShared(); }();
  pool->impl_->page0 = f0;
  if (!options.recovery && !options.read_only) pool->impl_->StartFlusher();
  if (!options.recovery) pool->impl_->StartReadAhead();
  return pool;
}

Status BufferPool::Close() {
  if (impl_->closed.load()) return Status::OK();
  impl_->StopReadAhead();
  impl_->StopFlusher();
  Status st;
  if (impl_->options.read_only) {
    // Nothing to write: no page was ever changed.
  } else if (impl_->recovering.load()) {
    // Recovery did not end: keep the work (the pages), but a checkpoint would claim too much.
    LatchGuard serial(impl_->flush_latch_);
    st = impl_->FlushDirty(UINT64_MAX);
    if (st.ok()) st = impl_->disk->Sync();
  } else {
    st = impl_->FlushAndCheckpoint();
  }
  impl_->closed.store(true);
  return st;
}

Result<size_t> BufferPool::ApplyLogRecords(ConstBytes records, Lsn start_lsn, Lsn end_lsn) {
  Impl& impl = *impl_;
  if (!impl.recovering.load(std::memory_order_relaxed)) {
    return Status::InvalidArgument("ApplyLogRecords outside recovery");
  }
  struct Held {
    Frame* frame;
    Lsn lsn_before;
  };
  std::vector<Held> held;
  auto release = [&]() NO_THREAD_SAFETY_ANALYSIS {
    for (const Held& h : held) {
      h.frame->latch.Release();
      impl.Unpin(h.frame);
    }
  };
  auto page_for = [&](PageNo page_no) -> Result<std::byte*> {
    Result<Frame*> f = impl.Fetch(page_no, LatchMode::kExclusive);
    if (!f.ok()) {
      const Status& st = f.status();
      if (st.code() != Code::kCorruption) return st;
      return Status::Corruption(
          fmt::format("{} (redo of LSN {}..{}; no doublewrite copy repaired it)", st.message(),
                      start_lsn, end_lsn));
    }
    held.push_back(Held{*f, HeaderPageLsn((*f)->data)});
    return (*f)->data;
  };
  Status st = ApplyRedo(records, end_lsn, page_for);
  size_t changed = 0;
  if (st.ok()) {
    impl.commit_latch.AcquireShared();
    for (const Held& h : held) {
      if (h.lsn_before >= end_lsn) continue;  // already had this mtr
      impl.MarkDirty(h.frame, start_lsn);
      ++changed;
    }
    impl.commit_latch.ReleaseShared();
  }
  release();
  RETURN_IF_ERROR(st);
  return changed;
}

Status BufferPool::EndRecovery() NO_THREAD_SAFETY_ANALYSIS {
  Impl& impl = *impl_;
  if (!impl.recovering.load()) return Status::InvalidArgument("EndRecovery outside recovery");
  Frame* f0 = impl.page0;
  f0->latch.AcquireShared();
  const std::byte* p0 = f0->data;
  const uint32_t count = Load32(p0 + fh::kPageCount);
  const uint32_t free_count = Load32(p0 + fh::kFreePageCount);
  const PageNo head = Load32(p0 + fh::kFreeListHead);
  std::array<PageNo, kSystemRootSlots> roots;
  for (size_t s = 0; s < kSystemRootSlots; ++s) roots[s] = Load32(p0 + fh::kSystemRoots + 4 * s);
  f0->latch.ReleaseShared();
  if (count == 0 || count == kInvalidPageNo ||
      (head != kInvalidPageNo && (head == 0 || head >= count))) {
    return Status::Corruption(fmt::format("{}: page 0 after redo: page count {}, free list head {}",
                                          file_name(), count, head));
  }
  impl.page_count.store(count, std::memory_order_release);
  impl.free_page_count.store(free_count, std::memory_order_relaxed);
  for (size_t s = 0; s < kSystemRootSlots; ++s) {
    impl.roots[s].store(roots[s], std::memory_order_release);
  }
  RETURN_IF_ERROR(impl.EnsureFileSize(count));
  impl.recovering.store(false, std::memory_order_release);
  impl.StartFlusher();
  impl.StartReadAhead();
  return Status::OK();
}

Status BufferPool::fatal_error() const { return impl_->FatalError(); }

Result<ReadPageGuard> BufferPool::FetchRead(PageNo page_no) {
  if (page_no == kInvalidPageNo) [[unlikely]] {
    return Status::InvalidArgument("FetchRead(kInvalidPageNo)");
  }
  ASSIGN_OR_RETURN(Frame * f, impl_->Fetch(page_no, LatchMode::kShared));
  return ReadPageGuard(this, f, page_no, f->data);
}

Result<WritePageGuard> BufferPool::FetchWrite(PageNo page_no) {
  if (page_no == kInvalidPageNo) [[unlikely]] {
    return Status::InvalidArgument("FetchWrite(kInvalidPageNo)");
  }
  ASSIGN_OR_RETURN(Frame * f, impl_->Fetch(page_no, LatchMode::kExclusive));
  return WritePageGuard(this, f, page_no, f->data);
}

Result<ReadPageGuard> BufferPool::TryFetchRead(PageNo page_no) {
  if (page_no == kInvalidPageNo) [[unlikely]] {
    return Status::InvalidArgument("TryFetchRead(kInvalidPageNo)");
  }
  ASSIGN_OR_RETURN(Frame * f, impl_->Fetch(page_no, LatchMode::kTryShared));
  return ReadPageGuard(this, f, page_no, f->data);
}

Status BufferPool::FlushAll() {
  if (impl_->closed.load()) return impl_->Closed();
  if (impl_->options.read_only) return Status::OK();  // nothing is ever dirty
  return impl_->FlushAndCheckpoint();
}

PageNo BufferPool::system_root(size_t slot) const {
  if (slot >= kSystemRootSlots) return kInvalidPageNo;
  return impl_->roots[slot].load(std::memory_order_acquire);
}

Status BufferPool::SetSystemRoot(MiniTransaction* mtr, size_t slot, PageNo root) {
  if (slot >= kSystemRootSlots) {
    return Status::InvalidArgument(fmt::format("system root slot {} out of range", slot));
  }
  ASSIGN_OR_RETURN(MtrPage p0, mtr->Write(0));
  p0.Write32(fh::kSystemRoots + 4 * slot, root);
  impl_->roots[slot].store(root, std::memory_order_release);
  return Status::OK();
}

BufferPoolStats BufferPool::stats() const {
  Impl& i = *impl_;  // its latches, briefly
  BufferPoolStats s;
  s.hits = i.hits.Sum();
  s.misses = i.misses.load(std::memory_order_relaxed);
  s.reads = i.reads.load(std::memory_order_relaxed);
  s.read_calls = i.read_calls.load(std::memory_order_relaxed);
  s.read_ahead = i.read_ahead_pages.load(std::memory_order_relaxed);
  s.read_ahead_evicted = i.read_ahead_evicted.load(std::memory_order_relaxed);
  s.writes = i.writes.load(std::memory_order_relaxed);
  s.evictions = i.evictions.load(std::memory_order_relaxed);
  s.young_moves = i.young_moves.load(std::memory_order_relaxed);
  s.dirty_pages = i.dirty_pages.load(std::memory_order_relaxed);
  s.frames = i.nframes;
  {
    LatchGuard g(i.free_latch_);
    s.free_frames = i.free_frames_.size();
  }
  {
    LatchGuard g(i.lru_latch_);
    s.lru_pages = i.lru_len_;
    s.old_lru_pages = i.old_len_;
  }
  s.pages_created = i.pages_created.load(std::memory_order_relaxed);
  s.pages_in_file = i.page_count.load(std::memory_order_relaxed);
  s.free_pages = i.free_page_count.load(std::memory_order_relaxed);
  s.compressed_writes = i.compressed_writes.load(std::memory_order_relaxed);
  s.checkpoints = i.checkpoints.load(std::memory_order_relaxed);
  s.checkpoint_lsn = i.checkpoint_lsn.load(std::memory_order_relaxed);
  s.doublewrite_batches = i.doublewrite_batches.load(std::memory_order_relaxed);
  return s;
}

const std::string& BufferPool::file_name() const { return impl_->disk->name(); }

uint64_t BufferPool::logical_size() const {
  return uint64_t{impl_->page_count.load(std::memory_order_relaxed)} * kPageSize;
}

Result<uint64_t> BufferPool::physical_size() const { return impl_->disk->PhysicalSize(); }

uint64_t BufferPool::database_id_hash() const { return impl_->database_id_hash; }

Status BufferPool::background_error() const {
  LatchGuard g(impl_->bg_error_latch_);
  return impl_->bg_error_;
}

// ---- guards

ReadPageGuard& ReadPageGuard::operator=(ReadPageGuard&& o) noexcept {
  if (this != &o) {
    Release();
    pool_ = std::exchange(o.pool_, nullptr);
    frame_ = std::exchange(o.frame_, nullptr);
    page_no_ = std::exchange(o.page_no_, kInvalidPageNo);
    data_ = std::exchange(o.data_, nullptr);
  }
  return *this;
}

void ReadPageGuard::Release() NO_THREAD_SAFETY_ANALYSIS {
  if (frame_ == nullptr) return;
  frame_->latch.ReleaseShared();
  frame_->pin.fetch_sub(1, std::memory_order_release);
  frame_ = nullptr;
  data_ = nullptr;
}

WritePageGuard& WritePageGuard::operator=(WritePageGuard&& o) noexcept {
  if (this != &o) {
    Release();
    pool_ = std::exchange(o.pool_, nullptr);
    frame_ = std::exchange(o.frame_, nullptr);
    page_no_ = std::exchange(o.page_no_, kInvalidPageNo);
    data_ = std::exchange(o.data_, nullptr);
  }
  return *this;
}

void WritePageGuard::Release() NO_THREAD_SAFETY_ANALYSIS {
  if (frame_ == nullptr) return;
  frame_->latch.Release();
  frame_->pin.fetch_sub(1, std::memory_order_release);
  frame_ = nullptr;
  data_ = nullptr;
}

}  // namespace minnow
