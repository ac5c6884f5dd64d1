// The doublewrite buffer (doublewrite.h): batched write-back through the doublewrite file,
// torn-page repair at open, and the pool's fatal I/O state.
//
// Why frames remember disk_lsn: a flusher batch copies its images under each frame's S latch and
// releases the latch before writing. Meanwhile an eviction may write a newer image of the same
// page (it holds the S latch across its batch of one) and mark the frame clean; if the older
// batch then wrote its copy in place, the file would go back in time under a clean frame. Both
// writes run under dblwr_latch_, so a batch drops every image older than the frame's disk_lsn.

#include "buffer_pool/doublewrite.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "buffer_pool/buffer_pool_internal.h"
#include "buffer_pool/page_codec.h"
#include "common/check.h"
#include "common/crash_point.h"

namespace minnow {

namespace {

bool AllZero(const std::byte* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != std::byte{0}) return false;
  }
  return true;
}

// Bytes of a slot image to write in place: a compressed image up to its last 4 KiB block.
size_t StoredLength(const std::byte* image) {
  if ((HeaderFlags(image) & kFlagStoredCompressed) == 0) return kPageSize;
  const size_t stored = kPageHeaderSize + Load32(image + page_offset::kStoredLen);
  return std::min(kPageSize, (stored + kFsBlockSize - 1) / kFsBlockSize * kFsBlockSize);
}

Status WithContext(const Status& st, const std::string& what) {
  return Status(st.code(), fmt::format("{} ({})", st.message(), what));
}

}  // namespace

std::string DoublewritePathFor(const std::string& db_path) { return db_path + ".dblwr"; }

Result<TornPageRepair> RepairTornPages(DiskBackend* dblwr, DiskBackend* data, bool check_only) {
  TornPageRepair out;
  if (dblwr == nullptr) return out;
  ASSIGN_OR_RETURN(const uint64_t dblwr_size, dblwr->Size());
  const uint64_t nslots = std::min<uint64_t>(kDoublewriteSlots, dblwr_size / kPageSize);
  if (nslots == 0) return out;
  std::vector<std::byte> slots(nslots * kPageSize);
  RETURN_IF_ERROR(dblwr->Read(0, Bytes(slots.data(), slots.size())));

  // The newest valid copy of each page.
  std::map<PageNo, const std::byte*> best;
  std::vector<std::byte> scratch(kPageSize);
  for (uint64_t i = 0; i < nslots; ++i) {
    const std::byte* image = slots.data() + i * kPageSize;
    if (AllZero(image, kPageSize)) continue;  // never used
    const PageNo page_no = HeaderPageNo(image);
    std::memcpy(scratch.data(), image, kPageSize);
    if (page_no == kInvalidPageNo ||
        !DecodePageImage(dblwr->name(), page_no, scratch.data()).ok()) {
      continue;  // torn: its page was not written in place yet
    }
    ++out.slots_valid;
    auto [it, inserted] = best.emplace(page_no, image);
    if (!inserted && HeaderPageLsn(image) > HeaderPageLsn(it->second)) it->second = image;
  }

  ASSIGN_OR_RETURN(const uint64_t data_size, data->Size());
  for (const auto& [page_no, image] : best) {
    const uint64_t offset = uint64_t{page_no} * kPageSize;
    if (offset + kPageSize <= data_size) {
      RETURN_IF_ERROR(data->Read(offset, Bytes(scratch.data(), kPageSize)));
      if (DecodePageImage(data->name(), page_no, scratch.data()).ok()) continue;  // intact
    }
    if (check_only) {
      out.repaired.push_back(page_no);
      continue;
    }
    const size_t len = StoredLength(image);
    Status st = data->Write(offset, ConstBytes(image, len));
    if (st.ok() && len < kPageSize) st = data->PunchHole(offset + len, kPageSize - len);
    if (!st.ok()) {
      return WithContext(st, fmt::format("repairing page {} from the doublewrite buffer", page_no));
    }
    out.repaired.push_back(page_no);
  }
  if (!out.repaired.empty() && !check_only) RETURN_IF_ERROR(data->Sync());
  return out;
}

// ---- the pool's side

Status BufferPool::Impl::FatalError() const {
  if (!fatal_set_.load(std::memory_order_acquire)) [[likely]] {
    return Status::OK();
  }
  LatchGuard g(fatal_latch_);
  return fatal_;
}

Status BufferPool::Impl::SetFatal(Status st) {
  LatchGuard g(fatal_latch_);
  if (fatal_.ok()) {
    fatal_ = st;
    fatal_set_.store(true, std::memory_order_release);
  }
  return st;
}

void BufferPool::Impl::CaptureImage(Frame* f, std::byte* slot, PageImage* out) {
  const PageNo page_no = f->page_no.load(std::memory_order_relaxed);
  bool compressed = false;
  const size_t len = BuildPageImage(f->data, page_no, slot, &compressed);
  if (len < kPageSize) std::memset(slot + len, 0, kPageSize - len);
  *out = PageImage{f, page_no, HeaderPageLsn(f->data), len, compressed};
}

Status BufferPool::Impl::WriteThroughDoublewrite(PageImage* images, std::byte* slots, size_t n) {
  MINNOW_DCHECK(n <= kDoublewriteSlots, "doublewrite batch of {} pages", n);
  if (n == 0) return Status::OK();
  RETURN_IF_ERROR(FatalError());
  // (b) The WAL rule, before any copy reaches either file.
  const PageImage* newest = std::max_element(
      images, images + n, [](const PageImage& a, const PageImage& b) { return a.lsn < b.lsn; });
  // Also for LSN 0 (a page changed while the log refused records, which a failed log
  // answers with an error): such a page must never reach the file.
  {
    Status st = log->FlushUpTo(newest->lsn);
    if (!st.ok()) {
      return Status(st.code(),
                    fmt::format("{}: page {}: cannot write, redo log flush to {} "
                                "failed: {}",
                                disk->name(), newest->page_no, newest->lsn, st.message()));
    }
  }
  LatchGuard serial(dblwr_latch_);
  RETURN_IF_ERROR(FatalError());
  // Drop images older than one already written in place (see the top of this file).
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    if (images[i].lsn < images[i].frame->disk_lsn.load(std::memory_order_relaxed)) continue;
    if (kept != i) {
      images[kept] = images[i];
      std::memcpy(slots + kept * kPageSize, slots + i * kPageSize, kPageSize);
    }
    ++kept;
  }
  if (kept == 0) return Status::OK();
  // (c) The copies, synced before any page is overwritten in place.
  Status st = dblwr->Write(0, ConstBytes(slots, kept * kPageSize));
  if (!st.ok()) return SetFatal(WithContext(st, "writing the doublewrite buffer"));
  MINNOW_CRASH_POINT("dblwr.after_write");
  st = dblwr->Sync();
  if (!st.ok()) return SetFatal(WithContext(st, "syncing the doublewrite buffer"));
  MINNOW_CRASH_POINT("dblwr.after_sync");
  // (d) In place, then the data file is synced before the slots are used again.
  for (size_t i = 0; i < kept; ++i) {
    const PageImage& img = images[i];
    const std::byte* image = slots + i * kPageSize;
    const uint64_t offset = uint64_t{img.page_no} * kPageSize;
    MINNOW_TORN_WRITE_POINT("page.torn_write",
                            [&] { (void)disk->Write(offset, ConstBytes(image, img.len / 2)); });
    st = disk->Write(offset, ConstBytes(image, img.len));
    if (!st.ok()) return SetFatal(WithContext(st, fmt::format("writing page {}", img.page_no)));
    if (img.len < kPageSize) {
      st = disk->PunchHole(offset + img.len, kPageSize - img.len);
      if (!st.ok()) return WithContext(st, fmt::format("writing page {}", img.page_no));
    }
    img.frame->disk_lsn.store(img.lsn, std::memory_order_relaxed);
    RaiseFilePages(uint64_t{img.page_no} + 1);
    writes.fetch_add(1, std::memory_order_relaxed);
    if (img.compressed) compressed_writes.fetch_add(1, std::memory_order_relaxed);
  }
  MINNOW_CRASH_POINT("page.after_write");
  st = disk->Sync();
  if (!st.ok()) return SetFatal(st);
  doublewrite_batches.fetch_add(1, std::memory_order_relaxed);
  return Status::OK();
}

}  // namespace minnow
