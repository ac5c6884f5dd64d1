#pragma once
// Private to btree/: the tree's state and the helpers its .cc files share.
//
// Latching protocol (btree.h has the summary):
//   readers     S-couple from the root down (FindLeafRead).
//   writers     first optimistically: S-couple to the leaf's parent, X-latch the leaf while the
//               parent is still S-latched (so the leaf covers the key), release the parent and
//               do the change if it needs no split or merge (FindLeafOptimistic). Otherwise
//               restart pessimistically: X-couple from the root, releasing all ancestors when
//               a page is safe (cannot split for an insert, cannot underflow for a remove). In
//               remove mode the descent also X-latches the sibling used for a merge, left one
//               first (left-to-right), so merges never latch leftward.
//   structure   a split fixes the prev link of its page's old right neighbour; a merge always
//               folds the right page into the left one, frees the right page and fixes the prev
//               link of the right page's right neighbour. Those neighbours are X-latched during
//               the pessimistic descent, while their level is unsafe and before any page below
//               it: a neighbour latched only after the pages below could be the parent of one
//               of them, which a reader coupling down holds while waiting for that child.
//               Nobody waits for a page to the left of or above a page it holds, which is the
//               whole deadlock argument.

#include <atomic>
#include <string>
#include <vector>

#include "btree/btree.h"
#include "btree/page.h"
#include "btree/page_edit.h"
#include "buffer_pool/mtr.h"

namespace minnow {

// A record ready to be written: inline, or with its value already in an overflow chain.
// `spec.sys` is always sized as the tree wants it (kSysLen bytes in a tree with sys fields:
// the caller's, or zeros if `sys_given` is false, which Update replaces by the old record's).
struct PreparedRecord {
  RecordSpec spec;
  std::array<std::byte, kOverflowRefSize> ref{};
  std::array<std::byte, kSysLen> sys{};
  bool sys_given = false;
  PageNo chain = kInvalidPageNo;  // the overflow chain written for it, if any
};

// One level of a pessimistic descent: the page, the child slot followed from it, and (remove
// mode) the merge partner latched with the page.
struct PathLevel {
  MtrPage page;
  size_t child_slot = 0;
  MtrPage sibling;  // valid() only in remove mode when the page has a sibling under its parent
  bool sibling_is_left = false;
  // The right neighbour of the rightmost page of this level that a split or merge would change
  // (its prev link), latched during the descent while the level is unsafe.
  MtrPage neighbour;
};

// What a write operation does at the leaf.
enum class OpKind { kInsert, kUpdate, kUpsert, kDeleteMark, kRemove };

struct WriteOp {
  OpKind kind;
  ConstBytes key;
  PreparedRecord* rec = nullptr;  // kInsert, kUpdate, kUpsert
  ConstBytes sys;                 // kUpdate / kUpsert / kDeleteMark: new sys bytes, or empty
  bool mark = false;              // kDeleteMark
  RecordData* old = nullptr;
  bool* existed = nullptr;
  const WriteHook* hook = nullptr;
  RecordData old_scratch;  // `old` when the caller gave none but the hook needs one
  // Filled while applying: overflow chains to free once the mtr has committed.
  std::vector<PageNo> chains_to_free;
  // Set once the new record reached a page: from then on its overflow chain belongs to the
  // tree, even if the operation fails later.
  bool applied = false;
};

struct BTree::Impl {
  BufferPool* pool = nullptr;
  PageNo root = kInvalidPageNo;
  TreeOptions options;
  uint16_t tree_flags = 0;
  RecordMoveListener* listener = nullptr;
  std::atomic<uint32_t> height_hint{1};
  struct Counters {
    std::atomic<uint64_t> splits{0}, merges{0}, redistributions{0}, root_raises{0},
        root_collapses{0}, pessimistic{0};
  } counters;
  static void Bump(std::atomic<uint64_t>& c) { c.fetch_add(1, std::memory_order_relaxed); }

  uint16_t page_flags() const { return options.compress_lz4 ? kFlagCompressLz4 : 0; }
  PageInit Init(uint16_t level, PageNo prev = kInvalidPageNo, PageNo next = kInvalidPageNo) const {
    return PageInit{level, root, tree_flags, prev, next};
  }

  // Checks that a fetched page is a B+tree page of this tree (at `level` unless -1).
  // Inline fast path: it runs at every level of every descent.
  Status CheckTreePage(const std::byte* page, PageNo page_no, int level) const {
    PageView v(page);
    if (v.HeaderOk() && v.index_id() == root && (level < 0 || v.level() == level)) [[likely]]
      return Status::OK();
    return CheckTreePageSlow(page, page_no, level);
  }
  Status CheckTreePageSlow(const std::byte* page, PageNo page_no, int level) const;

  // ---- descent (descent.cc)
  enum class Target { kKey, kFirst, kLast };
  // The leaf for `key` (or the first / last leaf), S-latched.
  Result<ReadPageGuard> FindLeafRead(Target target, ConstBytes key) const;
  // The leaf for `key` X-latched inside `mtr` (optimistic descent).
  Result<MtrPage> FindLeafOptimistic(MiniTransaction* mtr, ConstBytes key);
  // X-coupled descent keeping the unsafe suffix of the path. `need` is the record size an insert
  // must fit (insert mode), or 0 for remove mode.
  Status DescendPessimistic(MiniTransaction* mtr, ConstBytes key, size_t need, bool remove_mode,
                            std::vector<PathLevel>* path);

  // ---- write operations (write.cc)
  Status RunWrite(WriteOp* op);
  // Tells the listener where an insert that split a page landed, and before which record.
  // REQUIRES: `mtr` holds the page at `loc`.
  Status ReportInserted(MiniTransaction* mtr, RecordLocation loc);
  // Applies `op` at the leaf. Returns true if done, false if it needs the pessimistic path
  // (only when `path` is null; then nothing was changed).
  Result<bool> ApplyAtLeaf(MiniTransaction* mtr, MtrPage leaf, std::vector<PathLevel>* path,
                           WriteOp* op);
  Status FillRecordData(const RecordView& rec, PageNo page_no, RecordData* out) const;
  // Point read (BTree::Get, and Cursor::value() for overflow values).
  Result<RecordData> Get(ConstBytes key) const;

  // ---- split (split.cc)
  // Inserts `rec` at slot `idx` of path[level].page, splitting it (and ancestors) as needed.
  // `heap_no` non-zero: the record keeps this heap number if it stays on the page; `moved_from`
  // (page_no valid) is reported as moved to wherever the record lands. Returns its location.
  // Pages come from `reserve` (see ReserveForSplit) while it lasts.
  Result<RecordLocation> InsertWithSplit(MiniTransaction* mtr, std::vector<PathLevel>* path,
                                         std::vector<MtrPage>* reserve, size_t level, size_t idx,
                                         const RecordSpec& rec, HeapNo heap_no,
                                         RecordLocation moved_from);
  // Allocates, before anything changes, the pages a split of the path's leaf will need (one per
  // level that cannot absorb a separator, one more for a root raise), so that running out of
  // space fails cleanly instead of leaving a half-done split.
  Status ReserveForSplit(MiniTransaction* mtr, const std::vector<PathLevel>& path,
                         std::vector<MtrPage>* reserve);

  // ---- merge (merge.cc)
  // Restores the fill of path[level].page after a removal (merge, redistribute, root collapse).
  Status Rebalance(MiniTransaction* mtr, std::vector<PathLevel>* path, size_t level);

  // ---- overflow chains (overflow.cc)
  // Prepares the record for (key, value, sys), writing an overflow chain if needed.
  Status Prepare(ConstBytes key, ConstBytes value, ConstBytes sys, PreparedRecord* out);
  Result<PageNo> WriteChain(ConstBytes value);
  // The one walker of a chain: follows the chain behind `ref`, checking each page (an overflow
  // page of this tree whose data length fits what is left of the value), and appends the value
  // to `out` unless it is null. Returns the number of pages, or kCorruption. With `exact`, an
  // empty value and a chain that goes on past the value's end are kCorruption too (Check());
  // without, the walk just stops at the value's end (reads). The caller holds the owning leaf
  // latched (or is alone).
  Result<uint64_t> WalkChain(ConstBytes ref, std::string* out, bool exact) const;
  // Appends the value behind `ref` to `out`: WalkChain for a read.
  Status ReadChain(ConstBytes ref, std::string* out) const;
  // Walks a chain for Check(): WalkChain, exact, reading nothing.
  Result<uint64_t> CheckChain(ConstBytes ref) const;
  Status FreeChain(PageNo first);

  void ReportMoves(const std::vector<RecordMove>& moves) const {
    if (listener != nullptr && !moves.empty()) listener->OnRecordsMoved(moves);
  }
};

// The shortest key S with left < S <= right (suffix truncation of separators).
std::string ShortestSeparator(ConstBytes left, ConstBytes right);

// A copy of a page's records as specs (spans into `copy`), in key order, with heap numbers.
struct RecordEntry {
  RecordSpec spec;
  HeapNo heap_no = 0;
  bool is_new = false;  // the record being inserted
};
Status CollectRecords(const std::byte* copy, std::vector<RecordEntry>* out);

}  // namespace minnow
