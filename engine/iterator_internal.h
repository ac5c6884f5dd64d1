#pragma once
// The public Iterator's pimpl: a btree Cursor (which holds no latch between calls) plus the
// checks that make a stale iterator return errors instead of touching freed state.
//
// The scan loop (Valid / key / value / Next per row) is the hottest path of the API, so each
// move settles the cursor once and caches what the row's accessors return: key() and Valid()
// then cost no cursor call, and value() none unless the value lives in overflow pages.

#include <memory>
#include <string_view>

#include "btree/cursor.h"
#include "engine/transaction_core_internal.h"
#include "minnow/db.h"

namespace minnow {

struct Iterator::Impl {
  Impl(TransactionCore* t, KeyspaceState* k) : txn(t), ks(k), cursor(k->tree->NewCursor()) {}

  // False after the transaction ended, the database closed or the keyspace was dropped; then
  // CheckUsable() says which (kClosed, kInvalidArgument). Usable() builds no Status: it runs
  // once per row.
  bool Usable() const { return txn->active() && !ks->dropped.load(std::memory_order_acquire); }
  Status CheckUsable() const;
  // The error of a move or read on an unusable or not-Valid() iterator.
  Status MisuseError(const char* what) const;
  // After a successful cursor move: steps over delete-marked records (none until MVCC, issue
  // #4) in the direction of travel and caches the row. Not valid after an error.
  Status Settle(bool forward);
  // Settle() after a move that returned `st`.
  Status Settled(const Status& st, bool forward) {
    if (st.ok()) [[likely]]
      return Settle(forward);
    valid = false;
    return st;
  }

  TransactionCore* txn;
  KeyspaceState* ks;
  std::unique_ptr<Cursor> cursor;
  // The cached row; meaningful while `valid`.
  bool valid = false;
  bool overflow = false;  // value not cached: read through cursor->value()
  std::string_view key;
  std::string_view value;
};

}  // namespace minnow
