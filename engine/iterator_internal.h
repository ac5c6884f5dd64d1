#pragma once
// The public Iterator's pimpl: a btree Cursor (which holds no latch between calls) plus the
// checks that make a stale iterator return errors instead of touching freed state.

#include <memory>

#include "btree/cursor.h"
#include "engine/transaction_core_internal.h"
#include "minnow/db.h"

namespace minnow {

struct Iterator::Impl {
  Impl(TransactionCore* t, KeyspaceState* k) : txn(t), ks(k), cursor(k->tree->NewCursor()) {}

  // kClosed after the transaction ended or the database closed; kInvalidArgument once the
  // keyspace was dropped.
  Status CheckUsable() const {
    RETURN_IF_ERROR(txn->CheckOpen());
    if (ks->dropped.load(std::memory_order_acquire)) [[unlikely]]
      return Dropped();
    return Status::OK();
  }
  Status Dropped() const;
  // Steps over delete-marked records (none until MVCC, issue #4) in the direction of travel.
  Status SkipDeleted(bool forward);

  TransactionCore* txn;
  KeyspaceState* ks;
  std::unique_ptr<Cursor> cursor;
};

}  // namespace minnow
