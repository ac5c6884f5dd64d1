#pragma once
// The pimpls of the public Transaction and Iterator handles: the txn/ objects themselves, held
// by value (no second indirection on the per-call and per-row paths), plus the database a
// Transaction resolves its Keyspace handles in.

#include "engine/database_core_internal.h"
#include "minnow/db.h"
#include "txn/transaction_core.h"
#include "txn/txn_iterator.h"

namespace minnow {

struct Transaction::Impl {
  Impl(DatabaseCore* database, const TransactionOptions& options)
      : db(database), core(database->txn_services(), options) {}
  DatabaseCore* const db;  // Resolve(): the Keyspace handles
  TransactionCore core;
};

struct Iterator::Impl {
  Impl(TransactionCore* t, KeyspaceState* k, const ReadOptions& ro) : it(t, k, ro) {}
  TxnIterator it;
};

}  // namespace minnow
