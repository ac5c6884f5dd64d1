#pragma once
// Wires btree's RecordMoveListener to the lock system, so record locks follow their records
// through splits, merges, inserts into locked gaps and removals (style notes 2.1: btree knows
// nothing of locks; engine/ is the one place that wires the two).

#include <vector>

#include "btree/record_move_listener.h"
#include "lock/lock_sys.h"

namespace minnow {

class LockListener final : public RecordMoveListener {
 public:
  explicit LockListener(LockSys* locks) : locks_(locks) {}

  void OnRecordsMoved(std::span<const RecordMove> moves) override {
    // Called under page latches on the split/merge path: a small vector per call is fine.
    std::vector<RecordIdMove> m;
    m.reserve(moves.size());
    for (const RecordMove& mv : moves) m.push_back({Id(mv.from), Id(mv.to)});
    locks_->OnRecordsMoved(m);
  }
  void OnRecordInserted(RecordLocation inserted, RecordLocation successor) override {
    locks_->OnRecordInserted(Id(inserted), Id(successor));
  }
  void OnRecordRemoved(RecordLocation removed, RecordLocation successor) override {
    locks_->OnRecordRemoved(Id(removed), Id(successor));
  }
  void OnPageFreed(PageNo page_no) override { locks_->OnPageFreed(page_no); }

  static RecordId Id(RecordLocation l) { return RecordId{l.page_no, l.heap_no}; }

 private:
  LockSys* locks_;
};

}  // namespace minnow
