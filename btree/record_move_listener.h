#pragma once
// The B+tree tells whoever listens (the lock system, wired by engine/) when records change
// place, so that record locks can follow the records (InnoDB's lock_update_split_*, turned
// around so that btree/ never includes lock/). Called while the pages involved are X-latched,
// after the move is complete in memory; the listener must not touch the buffer pool.

#include <span>

#include "common/types.h"

namespace minnow {

struct RecordLocation {
  PageNo page_no = kInvalidPageNo;
  HeapNo heap_no = 0;
  friend bool operator==(const RecordLocation&, const RecordLocation&) = default;
};

struct RecordMove {
  RecordLocation from;
  RecordLocation to;
};

class RecordMoveListener {
 public:
  virtual ~RecordMoveListener() = default;
  // Records moved between pages or within a page: split, merge, redistribute, root raise and
  // root collapse, and an Update that grew a record on a full page (delete + insert). Reorganize
  // keeps heap numbers and reports nothing. A new record (Insert) is never reported; a moved
  // record is reported once per move, so one operation may report a record twice (root raise,
  // then the split of the new child) in separate calls, in order.
  // Entries with from.heap_no == kSupremumHeapNo (and to.heap_no == kSupremumHeapNo) move the
  // *gap* at the end of a page: a split passes the left page's supremum to the new right page,
  // a merge the right page's supremum to the left page, root raise/collapse the root's to/from
  // its child. Gaps that do not move wholesale are not reported: after a split the new gap
  // between the pages is part of the right page's first record's gap; after a merge the left
  // page's old supremum gap ends at the first record that came from the right page
  // (InnoDB's lock_update_split_right / lock_update_merge_left do these inheritances).
  virtual void OnRecordsMoved(std::span<const RecordMove> moves) = 0;
  // A record was inserted before `successor` (the next record on its page, or the page's
  // supremum). Gap locks on the successor now cover two gaps: the new record inherits them
  // (InnoDB's lock_update_insert). Not called for a record that moved (that is a move).
  virtual void OnRecordInserted(RecordLocation inserted, RecordLocation successor) {
    (void)inserted;
    (void)successor;
  }
  // A record was physically removed; `successor` is the next record in key order (the
  // supremum of its page when it was last: heap_no kSupremumHeapNo). Locks on it pass to
  // the successor as gap locks.
  virtual void OnRecordRemoved(RecordLocation removed, RecordLocation successor) = 0;
  // A page was emptied and freed (its records moved away first, and reported). Also called
  // for every leaf by BTree::Drop().
  virtual void OnPageFreed(PageNo page_no) = 0;
};

}  // namespace minnow
