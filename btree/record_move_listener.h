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
  // Records moved between pages or within a page (split, merge, redistribute, reorganize).
  virtual void OnRecordsMoved(std::span<const RecordMove> moves) = 0;
  // A record was physically removed; `successor` is the next record in key order (the
  // supremum of its page when it was last: heap_no kSupremumHeapNo). Locks on it pass to
  // the successor as gap locks (issue #4).
  virtual void OnRecordRemoved(RecordLocation removed, RecordLocation successor) = 0;
  // A page was emptied and freed (its records moved away first).
  virtual void OnPageFreed(PageNo page_no) = 0;
};

}  // namespace minnow
