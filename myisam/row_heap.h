#pragma once
// RowHeap: the rows of one table of the table-locking engine (MyISAM's data file), kept in
// pages of the database file. The page format and its invariants are in
// myisam/heap_page_internal.h.
//
// MyISAM's rules, as this heap keeps them:
// - A row has a position (page, slot) that stays fixed while it lives; indexes hold it
//   (myisam/row_position.h). Rows are byte strings of 0..kMaxHeapRowSize bytes; a larger row is
//   refused with kInvalidArgument (no overflow pages).
// - DELETE frees the row's slot and leaves a hole. Holes form a list kept in the pages (newest
//   first, MyISAM's dellink chain), and data_free counts the bytes the deleted rows had.
// - INSERT either fills the newest hole (InsertMode::kFillHoles: when the row fits that hole's
//   page) or appends at the end of the heap (kAppend). The caller chooses: MyISAM fills holes
//   unless a concurrent insert is running beside readers, which must append.
// - A scan visits rows in position order (the page chain, then slots) and can be bounded by an
//   "end of file" taken earlier (End()): rows appended after it are not visited. This is the
//   concurrent insert rule: a reader takes End() when its table lock is granted, and an
//   inserter appending meanwhile stays invisible to it. Rows that fill holes are not covered
//   by that rule (MyISAM fills holes only while no reader holds the table).
// - UPDATE rewrites the row in place when it fits its page, else moves it (the new position is
//   returned so indexes can be fixed; the old one becomes a hole).
// - Compact() (OPTIMIZE TABLE) rewrites the live rows in order into a new heap without holes.
//
// Durability: every row operation is one mini-transaction (buffer_pool/mtr.h), so redo makes
// it atomic: after a crash at any point the heap is as before or as after the operation. The
// hole list, the row bytes and the header's counters change together, so their order inside
// the operation does not matter (were they separate writes, a hole would have to leave the
// list before a row is written into it, so that a crash could leak a hole but never give one
// slot to two rows). A page allocation commits first in its own nested mtr (as btree's splits
// do): a crash between the two leaks that page, nothing else. A failed write changes nothing.
// A statement is a series of row operations: a crash in the middle keeps the ones done (no
// transactions, MyISAM's way).
//
// Thread safety: writes (Insert, Delete, Update, Drop, Compact) REQUIRE external
// serialization: one writer at a time, as the table lock gives (a concurrent inserter holds
// the table's only write lock). Get, End, NewScan and stats may run concurrently with each
// other and with that one writer; each page is read under its frame latch, one page at a time.
// Check REQUIRES that no write runs meanwhile (it compares pages read at different moments).
// A HeapScan is used by one thread. Latch order: the header page, then data pages; page 0
// last (allocation).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "buffer_pool/buffer_pool.h"
#include "common/coding.h"
#include "common/types.h"
#include "minnow/status.h"
#include "myisam/row_position.h"

namespace minnow {

// The largest row a heap stores: one row alone fills a data page.
inline constexpr size_t kMaxHeapRowSize = kPageSize - 56 - 8;

enum class InsertMode : uint8_t {
  kFillHoles,  // take the newest hole if the row fits its page, else append
  kAppend,     // always append at the end (concurrent insert)
};

// An "end of file": the heap's end at one moment. Rows appended after that moment lie past it.
struct HeapEnd {
  PageNo page = kInvalidPageNo;  // the last data page at that moment
  uint32_t seq = 0;              // its place in the chain
  uint16_t slots = 0;            // its slot count at that moment
};

// Counters kept in the header page (exact, never estimated).
struct HeapStats {
  uint64_t rows = 0;
  uint64_t row_bytes = 0;  // sum of live row lengths
  uint64_t data_free = 0;  // bytes of the deleted rows whose holes are still free
  uint64_t holes = 0;
  uint64_t pages = 0;  // data pages (the header page not counted)
  // MyISAM's Data_length: the bytes rows occupy or occupied (live rows plus holes).
  uint64_t data_length() const { return row_bytes + data_free; }
};

// The heap as one insert left it, read from the pages that insert held (no page fetched again).
struct HeapAfterInsert {
  uint64_t holes = 0;     // the header's hole count
  bool appended = false;  // the row went to the end (then `end` is set)
  HeapEnd end;            // the heap's end just after the row: End() as it would return now
};

class RowHeap;
class HeapWrite;

// A scan in position order up to an end. Holds no latch between calls: each data page is
// copied under its S latch and read from the copy (like btree cursors), so the caller may
// change the heap between calls (a DELETE scanning its own table). Rows changed after their
// page was copied are returned as they were when copied.
class HeapScan {
 public:
  // Moves to the next live row. Returns false at the end; kCorruption for a damaged page.
  Result<bool> Next(RowPosition* pos, std::string* row);

 private:
  friend class RowHeap;
  HeapScan(const RowHeap* heap, PageNo first, HeapEnd end);
  Status LoadPage(PageNo page_no);

  const RowHeap* heap_;
  HeapEnd end_;
  PageNo next_page_;     // the page to load next (kInvalidPageNo: none)
  bool loaded_ = false;  // copy_ holds a page
  bool done_ = false;
  PageNo page_no_ = kInvalidPageNo;
  size_t slot_ = 0;   // next slot to look at in copy_
  size_t limit_ = 0;  // slots of copy_ within the end
  std::unique_ptr<std::byte[]> copy_;
};

struct HeapCheckReport {
  HeapStats stats;  // as counted over the pages (equal to the header's when Check passes)
  uint64_t reorganizable_bytes = 0;  // garbage over all pages
};

class RowHeap {
 public:
  // Allocates an empty heap (header page and one data page); returns the header page number,
  // the heap's identity.
  static Result<PageNo> Create(BufferPool* pool);
  // kCorruption if `header` is not a heap header page.
  static Result<std::unique_ptr<RowHeap>> Open(BufferPool* pool, PageNo header);

  PageNo header_page() const { return header_; }
  BufferPool* pool() const { return pool_; }

  // Stores a new row; returns its position. kInvalidArgument for a row over kMaxHeapRowSize;
  // kNoSpace if the file is full (then nothing changed). On success, `after` (if given) says
  // what the insert left: what the writer would otherwise read back with stats() and End().
  Result<RowPosition> Insert(ConstBytes row, InsertMode mode, HeapAfterInsert* after = nullptr);
  // Frees the row's slot (a hole). kNotFound if `pos` holds no live row.
  Status Delete(RowPosition pos);
  // Replaces the row at `pos`. In place when it fits the page; else the row moves to a new
  // position chosen by `mode` (as Insert) and `pos` becomes a hole. Returns the row's position
  // afterwards. kNotFound if `pos` holds no live row.
  Result<RowPosition> Update(RowPosition pos, ConstBytes row, InsertMode mode);
  // Copies the row at `pos` into *row. kNotFound if the slot is a hole or does not exist, or
  // (with `bound`) lies at or after that end (appended after it was taken); kCorruption if
  // `pos.page` is not a data page of this heap (a damaged index entry).
  Status Get(RowPosition pos, std::string* row, const HeapEnd* bound = nullptr) const;

  // The heap's end now (the reader's "end of file" at lock grant).
  Result<HeapEnd> End() const;
  // A scan of the rows before `end` (taken by End() of this heap).
  Result<std::unique_ptr<HeapScan>> NewScan(const HeapEnd& end) const;
  // A scan of every row that exists now.
  Result<std::unique_ptr<HeapScan>> NewScan() const;

  Result<HeapStats> stats() const;

  // Verifies invariants (1)-(5) of heap_page_internal.h. kCorruption naming the page and what
  // is wrong. REQUIRES: no write meanwhile (a table lock that excludes concurrent inserts).
  Result<HeapCheckReport> Check() const;

  // Frees every page of the heap, the header last. The RowHeap must not be used afterwards.
  // A crash in the middle leaks the pages not yet freed (REQUIRES: nothing refers to the heap).
  Status Drop();

  // OPTIMIZE TABLE: writes the live rows of `old` in position order into a new heap with no
  // holes, calls `on_move(old position, new position, row)` for each (the caller rebuilds its
  // indexes from the row bytes it is given), then `publish(new header page)` (the caller
  // records the new heap where it keeps the table's heap, so that a crash before this point
  // leaves the old heap in use and only leaks the new one), then drops `old`. Returns the new
  // header page. If `on_move` or `publish` fails, the new heap is dropped and `old` stays as it
  // was. Once `publish` succeeded the new heap is returned whatever happens next: a failure to
  // drop `old` only leaks its pages. `old` must not be used after success.
  using MoveFn =
      std::function<Status(RowPosition old_pos, RowPosition new_pos, std::string_view row)>;
  using PublishFn = std::function<Status(PageNo new_header)>;
  static Result<PageNo> Compact(RowHeap* old, const MoveFn& on_move, const PublishFn& publish);

 private:
  friend class HeapScan;
  friend class HeapWrite;
  RowHeap(BufferPool* pool, PageNo header) : pool_(pool), header_(header) {}

  // Returns kCorruption unless `page` is a well-formed data page of this heap (invariant 2).
  Status ValidateDataPage(PageNo page_no, const std::byte* page) const;
  std::string Where(PageNo page_no) const;

  BufferPool* pool_;
  PageNo header_;
};

}  // namespace minnow
