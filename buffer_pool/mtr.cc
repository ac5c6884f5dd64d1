// MiniTransaction: latching, change recording, redo encoding and commit.

#include "buffer_pool/mtr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/buffer_pool_internal.h"
#include "common/check.h"

namespace minnow {

// ---- MtrPage

PageNo MtrPage::page_no() const { return mtr_->held_[slot_].guard.page_no(); }

const std::byte* MtrPage::data() const { return mtr_->held_[slot_].guard.data(); }

Bytes MtrPage::Mutate(size_t offset, size_t len) {
  MINNOW_DCHECK(offset + len <= kPageSize, "Mutate({}, {}) past the page", offset, len);
  auto& held = mtr_->held_[slot_];
  MINNOW_DCHECK(!held.freed, "page {} was freed", held.guard.page_no());
  if (!held.whole && len > 0) {
    auto& r = held.ranges;
    // Sequential writes (a record written field by field) extend the last range.
    if (!r.empty() && offset >= r.back().offset && offset <= r.back().offset + r.back().len) {
      r.back().len =
          std::max<uint32_t>(r.back().len, static_cast<uint32_t>(offset + len) - r.back().offset);
    } else {
      r.push_back({static_cast<uint32_t>(offset), static_cast<uint32_t>(len)});
    }
  }
  return {held.guard.mutable_data() + offset, len};
}

void MtrPage::Write(size_t offset, ConstBytes src) {
  if (src.empty()) return;
  std::memcpy(Mutate(offset, src.size()).data(), src.data(), src.size());
}

void MtrPage::Move(size_t dst, size_t src, size_t len) {
  MINNOW_DCHECK(dst + len <= kPageSize && src + len <= kPageSize && dst >= kPageHeaderSize &&
                    src >= kPageHeaderSize,
                "Move({}, {}, {}) outside the page body", dst, src, len);
  if (len == 0) return;
  auto& held = mtr_->held_[slot_];
  std::byte* p = held.guard.mutable_data();
  if (held.whole) {
    std::memmove(p + dst, p + src, len);
    return;
  }
  // Replay runs the moves on the page as this mtr found it, before the ranges: a source that a
  // range of this mtr already changed would be read stale, so that move is logged as bytes.
  constexpr size_t kMaxMoves = 8;  // then bytes: the check below stays short
  bool source_changed = held.moves.size() >= kMaxMoves;
  for (const auto& r : held.ranges) {
    if (r.offset < src + len && src < r.offset + r.len) source_changed = true;
  }
  std::memmove(p + dst, p + src, len);
  if (source_changed) {
    Mutate(dst, len);
  } else {
    held.moves.push_back(
        {static_cast<uint32_t>(dst), static_cast<uint32_t>(src), static_cast<uint32_t>(len)});
  }
}

Bytes MtrPage::MutateAll() {
  auto& held = mtr_->held_[slot_];
  held.whole = true;
  held.ranges.clear();
  held.moves.clear();
  return {held.guard.mutable_data(), kPageSize};
}

// ---- MiniTransaction

MiniTransaction::MiniTransaction(BufferPool* pool) : pool_(pool) {}

MiniTransaction::~MiniTransaction() { Commit(); }

void MiniTransaction::Reopen() {
  if (committed_) {
    committed_ = false;
    end_lsn_ = 0;
    held_.clear();
  }
}

int MiniTransaction::Find(PageNo page_no) const {
  for (size_t i = 0; i < held_.size(); ++i) {
    if (held_[i].guard.valid() && held_[i].guard.page_no() == page_no) return static_cast<int>(i);
  }
  return -1;
}

bool MiniTransaction::holds(PageNo page_no) const { return !committed_ && Find(page_no) >= 0; }

Result<MtrPage> MiniTransaction::Write(PageNo page_no) {
  Reopen();
  const int i = Find(page_no);
  if (i >= 0) {
    if (held_[i].freed) {
      return Status::InvalidArgument(fmt::format("page {} was freed in this mtr", page_no));
    }
    return MtrPage(this, static_cast<size_t>(i));
  }
  ASSIGN_OR_RETURN(WritePageGuard guard, pool_->FetchWrite(page_no));
  held_.emplace_back(std::move(guard));
  return MtrPage(this, held_.size() - 1);
}

MtrPage MiniTransaction::Adopt(WritePageGuard guard) {
  Reopen();
  MINNOW_CHECK(guard.valid() && guard.pool_ == pool_, "Adopt of an invalid or foreign guard");
  MINNOW_CHECK(Find(guard.page_no()) < 0, "mtr already holds page {}", guard.page_no());
  held_.emplace_back(std::move(guard));
  return MtrPage(this, held_.size() - 1);
}

void MiniTransaction::ReleaseUnchanged(MtrPage page) {
  MINNOW_CHECK(page.mtr_ == this, "page of another mtr");
  Held& h = held_[page.slot_];
  MINNOW_CHECK(!changed(page), "ReleaseUnchanged of changed page {}", h.guard.page_no());
  h.guard.Release();
}

bool MiniTransaction::changed(MtrPage page) const {
  const Held& h = held_[page.slot_];
  return h.dirty();
}

Result<WritePageGuard> MiniTransaction::AllocateIn(MiniTransaction* m) {
  BufferPool::Impl& impl = *m->pool_->impl_;
  ASSIGN_OR_RETURN(MtrPage p0, m->Write(0));
  const std::byte* hdr = p0.data();
  const PageNo head = Load32(hdr + file_header_offset::kFreeListHead);
  const uint32_t free_count = Load32(hdr + file_header_offset::kFreePageCount);
  const uint32_t count = Load32(hdr + file_header_offset::kPageCount);
  if (head != kInvalidPageNo) {
    if (head == 0 || head >= count) {
      return Status::Corruption(fmt::format("{}: page 0: free list head {} is outside the file",
                                            impl.disk->name(), head));
    }
    ASSIGN_OR_RETURN(WritePageGuard guard, m->pool_->FetchWrite(head));
    if (HeaderPageType(guard.data()) != PageType::kFree) {
      return Status::Corruption(fmt::format("{}: page {}: on the free list but its type is {}",
                                            impl.disk->name(), head,
                                            static_cast<int>(HeaderPageType(guard.data()))));
    }
    const PageNo next = Load32(guard.data() + kPageHeaderSize);
    p0.Write32(file_header_offset::kFreeListHead, next);
    p0.Write32(file_header_offset::kFreePageCount, free_count - 1);
    impl.free_page_count.store(free_count - 1, std::memory_order_relaxed);
    return guard;
  }
  if (count >= kInvalidPageNo - 1) {
    return Status::NoSpace(
        fmt::format("{}: the file has the maximum number of pages ({})", impl.disk->name(), count));
  }
  RETURN_IF_ERROR(impl.EnsureFileSize(uint64_t{count} + 1));
  ASSIGN_OR_RETURN(Frame * f, impl.NewPage(count));
  WritePageGuard guard(m->pool_, f, count, f->data);
  p0.Write32(file_header_offset::kPageCount, count + 1);
  impl.page_count.store(count + 1, std::memory_order_release);
  return guard;
}

Result<MtrPage> MiniTransaction::Allocate(PageType type, uint16_t flags) {
  Reopen();
  WritePageGuard guard;
  if (Find(0) >= 0) {
    ASSIGN_OR_RETURN(guard, AllocateIn(this));
  } else {
    MiniTransaction sys(pool_);
    ASSIGN_OR_RETURN(guard, AllocateIn(&sys));
    sys.Commit();
  }
  const PageNo page_no = guard.page_no();
  pool_->impl_->pages_created.fetch_add(1, std::memory_order_relaxed);
  held_.emplace_back(std::move(guard));
  MtrPage page(this, held_.size() - 1);
  Bytes all = page.MutateAll();
  std::memset(all.data() + page_offset::kPageType, 0, kPageSize - page_offset::kPageType);
  Store32(all.data() + page_offset::kPageNo, page_no);
  Store16(all.data() + page_offset::kPageType, static_cast<uint16_t>(type));
  Store16(all.data() + page_offset::kFlags, flags & ~kFlagStoredCompressed);
  return page;
}

Status MiniTransaction::LinkFree(MiniTransaction* m, MtrPage page) {
  BufferPool::Impl& impl = *m->pool_->impl_;
  ASSIGN_OR_RETURN(MtrPage p0, m->Write(0));
  const PageNo head = Load32(p0.data() + file_header_offset::kFreeListHead);
  const uint32_t free_count = Load32(p0.data() + file_header_offset::kFreePageCount);
  Bytes type_flags = page.Mutate(page_offset::kPageType, 4);
  Store16(type_flags.data(), static_cast<uint16_t>(PageType::kFree));
  Store16(type_flags.data() + 2, 0);
  page.Write32(kPageHeaderSize, head);
  p0.Write32(file_header_offset::kFreeListHead, page.page_no());
  p0.Write32(file_header_offset::kFreePageCount, free_count + 1);
  impl.free_page_count.store(free_count + 1, std::memory_order_relaxed);
  return Status::OK();
}

Status MiniTransaction::Free(MtrPage page) {
  if (page.mtr_ != this || committed_ || page.slot_ >= held_.size() ||
      !held_[page.slot_].guard.valid() || held_[page.slot_].freed) {
    return Status::InvalidArgument("Free of a page this mtr does not hold");
  }
  Held& h = held_[page.slot_];
  if (h.guard.page_no() == 0) return Status::InvalidArgument("page 0 cannot be freed");
  h.free_at_commit = true;
  h.freed = true;
  return Status::OK();
}

namespace {

size_t VarintLength(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// A whole-page image leaves out its longest run of zero bytes when it is at least this long
// (a B+tree page's free space between the slots and the records).
constexpr size_t kMinImageGap = 64;

// The longest run of zero bytes in the page body, in whole 8-byte words: {offset, length}.
std::pair<size_t, size_t> LongestZeroRun(const std::byte* page) {
  size_t best = 0, best_len = 0, run = 0;
  constexpr size_t kBlock = 64;
  // Whole zero blocks first (few branches), then each run's edges word by word.
  size_t block_run_start = kPageHeaderSize;
  auto word = [&](size_t off) { return Load64(page + off); };
  auto consider = [&](size_t start, size_t end) {
    // Extend [start, end) of zero blocks over the zero words on each side.
    while (start > kPageHeaderSize && word(start - 8) == 0) start -= 8;
    while (end < kPageSize && word(end) == 0) end += 8;
    if (end - start > best_len) {
      best = start;
      best_len = end - start;
    }
  };
  for (size_t off = kPageHeaderSize; off < kPageSize; off += kBlock) {
    const size_t n = std::min(kBlock, kPageSize - off);
    uint64_t any = 0;
    for (size_t i = 0; i < n; i += 8) any |= word(off + i);
    if (any == 0) {
      if (run == 0) block_run_start = off;
      run += n;
    } else if (run > 0) {
      consider(block_run_start, off);
      run = 0;
    }
  }
  if (run > 0) consider(block_run_start, kPageSize);
  return {best, best_len};
}

}  // namespace

size_t MiniTransaction::PrepareRedo() {
  size_t size = 0;
  for (Held& h : held_) {
    if (!h.guard.valid() || !h.dirty()) continue;
    std::byte* page = h.guard.mutable_data();
    const PageNo page_no = h.guard.page_no();
    size_t bytes_size = 0;
    if (!h.whole) {
      // Coalesce overlapping and adjacent ranges.
      auto& r = h.ranges;
      // Insertion sort: a page has a handful of ranges (a record, its slot, header fields).
      for (size_t i = 1; i < r.size(); ++i) {
        const Range x = r[i];
        size_t j = i;
        for (; j > 0 && r[j - 1].offset > x.offset; --j) r[j] = r[j - 1];
        r[j] = x;
      }
      size_t w = 0;
      size_t total = 0;
      for (size_t i = 0; i < r.size(); ++i) {
        if (w > 0 && r[i].offset <= r[w - 1].offset + r[w - 1].len) {
          r[w - 1].len = std::max(r[w - 1].len, r[i].offset + r[i].len - r[w - 1].offset);
        } else {
          r[w++] = r[i];
        }
      }
      r.truncate(w);
      if (!r.empty()) {
        bytes_size = 1 + VarintLength(page_no) + VarintLength(r.size());
        for (const Range& x : r) {
          total += x.len;
          bytes_size += VarintLength(x.offset) + VarintLength(x.len) + x.len;
        }
      }
      if (!h.moves.empty()) {
        bytes_size += 1 + VarintLength(page_no) + VarintLength(h.moves.size());
        for (const MoveOp& m : h.moves) {
          bytes_size += VarintLength(m.dst) + VarintLength(m.src) + VarintLength(m.len);
        }
      }
      h.whole = total > kPageBodySize / 2;
    }
    if (h.whole) {
      // The pool owns these header fields; MutateAll callers may have overwritten them.
      Store32(page + page_offset::kPageNo, page_no);
      Store16(page + page_offset::kFlags, HeaderFlags(page) & ~kFlagStoredCompressed);
      std::memset(page + page_offset::kStoredLen, 0, kPageHeaderSize - page_offset::kStoredLen);
      auto [gap, gap_len] = LongestZeroRun(page);
      if (gap_len < kMinImageGap) gap_len = 0;
      h.gap = static_cast<uint16_t>(gap);
      h.gap_len = static_cast<uint16_t>(gap_len);
      size += 1 + VarintLength(page_no) + kPageBodySize + 4;
      if (gap_len > 0) size += VarintLength(gap) + VarintLength(gap_len) - gap_len;
    } else {
      size += bytes_size;
    }
  }
  return size;
}

void MiniTransaction::EncodeRedo(std::byte* out) const {
  auto put = [&](const std::byte* src, size_t n) {
    std::memcpy(out, src, n);
    out += n;
  };
  for (const Held& h : held_) {
    if (!h.guard.valid() || !h.dirty()) continue;
    const std::byte* page = h.guard.data();
    const PageNo page_no = h.guard.page_no();
    const RedoType type = !h.whole         ? RedoType::kPageBytes
                          : h.gap_len == 0 ? RedoType::kPageImage
                                           : RedoType::kPageImageSparse;
    if (type == RedoType::kPageBytes && !h.moves.empty()) {
      *out++ = std::byte{static_cast<uint8_t>(RedoType::kPageMoves)};
      out += PutVarint64(out, page_no);
      out += PutVarint64(out, h.moves.size());
      for (const MoveOp& m : h.moves) {
        out += PutVarint64(out, m.dst);
        out += PutVarint64(out, m.src);
        out += PutVarint64(out, m.len);
      }
    }
    if (type == RedoType::kPageBytes && h.ranges.empty()) continue;
    *out++ = std::byte{static_cast<uint8_t>(type)};
    out += PutVarint64(out, page_no);
    if (type == RedoType::kPageImage) {
      put(page + kPageHeaderSize, kPageBodySize);
      put(page + page_offset::kPageType, 4);  // type, flags
    } else if (type == RedoType::kPageImageSparse) {
      out += PutVarint64(out, h.gap);
      out += PutVarint64(out, h.gap_len);
      put(page + kPageHeaderSize, h.gap - kPageHeaderSize);
      put(page + h.gap + h.gap_len, kPageSize - h.gap - h.gap_len);
      put(page + page_offset::kPageType, 4);  // type, flags
    } else {
      out += PutVarint64(out, h.ranges.size());
      for (const Range& x : h.ranges) {
        out += PutVarint64(out, x.offset);
        out += PutVarint64(out, x.len);
        put(page + x.offset, x.len);
      }
    }
  }
}

Lsn MiniTransaction::Commit() {
  if (committed_) return end_lsn_;
  committed_ = true;
  BufferPool::Impl& impl = *pool_->impl_;
  const size_t redo_size = PrepareRedo();
  Lsn end = 0;
  if (redo_size > 0) {
    RedoLog* log = impl.log;
    impl.commit_latch.AcquireShared();
    const Lsn start = log->current_lsn();
    // Encoded straight into the log's buffer (no intermediate copy).
    end = log->AppendEncoded(redo_size, [this](Bytes dst) { EncodeRedo(dst.data()); });
    for (Held& h : held_) {
      if (!h.guard.valid() || !h.dirty()) continue;
      Store64(h.guard.mutable_data() + page_offset::kPageLsn, end);
      impl.MarkDirty(h.guard.frame_, start);
    }
    impl.commit_latch.ReleaseShared();
    if (log->bytes_since_checkpoint() > impl.options.log_capacity_bytes) impl.WakeFlusher();
  }
  bool deferred_free = false;
  for (size_t i = held_.size(); i-- > 0;) {
    if (held_[i].free_at_commit) {
      deferred_free = true;
    } else {
      held_[i].guard.Release();
    }
  }
  if (deferred_free) {
    // Link freed pages into the free list now that our other latches are gone: latch order
    // is freed page, then page 0.
    MiniTransaction sys(pool_);
    for (Held& h : held_) {
      if (!h.free_at_commit) continue;
      MtrPage page = sys.Adopt(std::move(h.guard));
      Status st = LinkFree(&sys, page);
      if (!st.ok()) impl.RecordBackgroundError(st);  // the page leaks; nothing is corrupted
    }
    end = std::max(end, sys.Commit());
  }
  held_.clear();
  end_lsn_ = end;
  return end;
}

}  // namespace minnow
