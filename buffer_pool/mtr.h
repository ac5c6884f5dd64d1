#pragma once
// Mini-transaction (InnoDB's mtr): every page change happens inside one. It X-latches and pins
// the pages it writes (holding them until Commit(), in the order acquired), records each
// changed byte range, and at Commit() appends the redo of all its changes to the log as one
// unit, stamps every changed page with the mtr's end LSN and marks it dirty. A page is never
// seen half-changed by another thread, and recovery replays whole mtrs only.
//
// Usage:
//   MiniTransaction mtr(pool);
//   ASSIGN_OR_RETURN(MtrPage page, mtr.Write(page_no));
//   page.Write16(kOffset, 7);            // logged
//   mtr.Commit();                        // also done by the destructor
//
// Latch order: callers acquire pages top-down and left-to-right (docs/ARCHITECTURE.md).
// A MiniTransaction is used by one thread.

#include <cstdint>
#include <string>
#include <vector>

#include "buffer_pool/inline_vector.h"
#include "buffer_pool/page_guard.h"
#include "buffer_pool/page_header.h"
#include "common/coding.h"
#include "common/types.h"
#include "minnow/status.h"

namespace minnow {

class BufferPool;
class MiniTransaction;

// A page held by a mini-transaction. A small handle (copyable); valid until the mtr commits or
// releases the page.
class MtrPage {
 public:
  MtrPage() = default;
  PageNo page_no() const;
  const std::byte* data() const;
  ConstBytes bytes() const { return {data(), kPageSize}; }

  // Returns [offset, offset+len) for writing and records the range for redo. Offsets are from
  // the start of the page (the body starts at kPageHeaderSize). Of the header, only page_type
  // and flags belong to the caller; the pool owns checksum, page_no, page_lsn and stored_len.
  // REQUIRES: offset + len <= kPageSize.
  Bytes Mutate(size_t offset, size_t len);
  void Write(size_t offset, ConstBytes src);
  void Write16(size_t offset, uint16_t v) { Store16(Mutate(offset, 2).data(), v); }
  void Write32(size_t offset, uint32_t v) { Store32(Mutate(offset, 4).data(), v); }
  void Write64(size_t offset, uint64_t v) { Store64(Mutate(offset, 8).data(), v); }
  // The whole page changes (reorganize, init): returns all kPageSize bytes (header included, as
  // Mutate) and logs one page image (body, type, flags) at commit. The pool-owned header fields
  // are restored at commit, so the caller may overwrite the whole span.
  Bytes MutateAll();
  // memmove of [src, src+len) to [dst, dst+len), logged as a move (a few bytes) when no change
  // this mtr already made to the page touches the source, else as the bytes written. Offsets in
  // the page body. REQUIRES: src + len and dst + len <= kPageSize.
  void Move(size_t dst, size_t src, size_t len);
  // Sets the page type / flags (e.g. kFlagCompressLz4) through Mutate.
  void SetType(PageType type) { Write16(page_offset::kPageType, static_cast<uint16_t>(type)); }
  void SetFlags(uint16_t flags) { Write16(page_offset::kFlags, flags); }
  PageType type() const { return HeaderPageType(data()); }
  bool valid() const { return mtr_ != nullptr; }

 private:
  friend class MiniTransaction;
  MtrPage(MiniTransaction* mtr, size_t slot) : mtr_(mtr), slot_(slot) {}
  MiniTransaction* mtr_ = nullptr;
  size_t slot_ = 0;
};

class MiniTransaction {
 public:
  explicit MiniTransaction(BufferPool* pool);
  ~MiniTransaction();  // commits if not yet committed
  MiniTransaction(const MiniTransaction&) = delete;
  MiniTransaction& operator=(const MiniTransaction&) = delete;

  // X-latches and pins `page_no` until commit. If this mtr already holds it, returns the same
  // page. REQUIRES: latch order (see header comment).
  Result<MtrPage> Write(PageNo page_no);
  // Takes over a write guard the caller acquired itself (optimistic descent X-latches a leaf
  // before it knows it will change it).
  MtrPage Adopt(WritePageGuard guard);
  // A new page (from the free list, else by extending the file), X-latched, body zeroed, header
  // set to `type` and `flags`; logged as a page image.
  // The free-list change in page 0 is committed at once in a nested system mtr (page 0 is
  // latched only briefly, so allocating threads never hold page 0 while waiting on tree
  // pages); if this mtr already holds page 0 the change is made in this mtr instead. A crash
  // between the two commits leaks the page (never corrupts). kNoSpace if the file is full.
  Result<MtrPage> Allocate(PageType type, uint16_t flags = 0);
  // Returns a page this mtr holds to the free list. The handle is dead afterwards. The page is
  // linked into the free list (type kFree, next pointer in its first body bytes, page 0's head
  // and count; all logged) when this mtr commits, by a system mtr that latches page 0 after
  // this mtr has released its other pages (so it is never reused inside this mtr). A crash
  // between the two commits leaks the page. kInvalidArgument for page 0 or a page this mtr
  // does not hold.
  Status Free(MtrPage page);
  // Releases a page this mtr did not change (latch coupling lets ancestors go early).
  // REQUIRES: the page is unchanged in this mtr.
  void ReleaseUnchanged(MtrPage page);
  bool changed(MtrPage page) const;

  // Appends the redo, stamps page LSNs, marks pages dirty, releases all latches. Returns the end
  // LSN (0 if nothing changed). Idempotent. After Commit() the mtr may be used again (Write,
  // Adopt, Allocate start a new mini-transaction).
  Lsn Commit();
  // True if this mtr holds `page_no`.
  bool holds(PageNo page_no) const;
  BufferPool* pool() const { return pool_; }

 private:
  friend class MtrPage;
  struct Range {
    uint32_t offset;
    uint32_t len;
  };
  struct MoveOp {
    uint32_t dst, src, len;
  };
  struct Held {
    explicit Held(WritePageGuard g) : guard(std::move(g)) {}
    WritePageGuard guard;
    InlineVector<Range, 6> ranges;  // changed byte ranges, unsorted, may overlap
    InlineVector<MoveOp, 2> moves;  // replayed in order, before the ranges (not with `whole`)
    bool whole = false;             // log the whole page
    uint16_t gap = 0, gap_len = 0;  // whole: the zero run the image leaves out (PrepareRedo)
    bool freed = false;             // Free() was called: the handle is dead
    bool free_at_commit = false;    // link into the free list after commit (system mtr)
    bool dirty() const { return whole || !ranges.empty() || !moves.empty(); }
  };
  // Coalesces each changed page's ranges, turns heavily changed pages into page images and
  // returns the exact size of the redo EncodeRedo will write (0: nothing changed).
  size_t PrepareRedo();
  // Writes the redo (redo_log.h format) of the prepared changes to `out`, exactly
  // PrepareRedo() bytes.
  void EncodeRedo(std::byte* out) const;
  void Reopen();
  int Find(PageNo page_no) const;
  // Allocation and free-list linking inside mtr `m` (this one or a nested system mtr).
  static Result<WritePageGuard> AllocateIn(MiniTransaction* m);
  static Status LinkFree(MiniTransaction* m, MtrPage page);

  BufferPool* pool_;
  InlineVector<Held, 6> held_;
  bool committed_ = false;
  Lsn end_lsn_ = 0;
};

}  // namespace minnow
