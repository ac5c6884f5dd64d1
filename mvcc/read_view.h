#pragma once
// Read views: which transactions' changes a consistent read sees (InnoDB's ReadView).
//
// A view is taken at a moment T. It sees a change by transaction `id` iff `id` had committed
// at T, or `id` is the view's creator:
//
//     ids:   ... 17  18  19  20  21  22  23  24 ...
//                     ^up_limit (oldest active at T)   ^low_limit (next id to hand out at T)
//     commit:  c   c   A   c   A   c   |  started after T
//     sees:    y   y   n   y   n   y   |  n
//
//   id <  up_limit_id                  visible (committed before T: nothing older was active)
//   id >= low_limit_id                 invisible (began after T)
//   otherwise                          visible iff id is not in the sorted active list
//   id == creator_id                   visible (a transaction sees its own changes)
//
// A view also carries low_limit_no: undo of transactions whose commit number (trx_no) is
// >= it may still be needed by the view; purge frees only undo below every open view's
// low_limit_no (trx_sys.h).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/types.h"

namespace minnow {

class ReadView {
 public:
  // True if the change by `id` is visible in this view (the rules above).
  bool Sees(TrxId id) const {
    if (id < up_limit_id_ || id == creator_id_) return true;
    if (id >= low_limit_id_) return false;
    return !std::binary_search(active_.begin(), active_.end(), id);
  }
  TrxId creator_id() const { return creator_id_; }
  TrxId up_limit_id() const { return up_limit_id_; }
  TrxId low_limit_id() const { return low_limit_id_; }
  TrxId low_limit_no() const { return low_limit_no_; }
  const std::vector<TrxId>& active_ids() const { return active_; }
  bool open() const { return open_; }
  // A transaction that opened its view before it had an id (it only read) and then wrote: its
  // own changes must be visible to it (InnoDB's trx_set_rw_mode). Its id is newer than the
  // view, so it is in no active list.
  void set_creator_id(TrxId id) { creator_id_ = id; }

 private:
  friend class TrxSys;
  TrxId creator_id_ = 0;
  TrxId up_limit_id_ = 0;
  TrxId low_limit_id_ = 0;
  TrxId low_limit_no_ = 0;
  std::vector<TrxId> active_;  // sorted; the creator excluded
  bool open_ = false;
  // TrxSys's list of open views (purge needs the oldest).
  ReadView* prev_ = nullptr;
  ReadView* next_ = nullptr;
};

}  // namespace minnow
