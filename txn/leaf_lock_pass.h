#pragma once
// A locking count's one pass over a latched leaf (Transaction::Count, count.cc): what the
// leaf's lock batch and its count need, read record by record once. Per record it reads the
// slot, the flags, the heap number and the DB_TRX_ID (a minimal decode: no key compare, no
// value), and keeps only what the batch needs:
//   the count of records that are not delete-marked (the count's share of the leaf);
//   the highest DB_TRX_ID: one compare with the lock system's min_active_id per leaf says
//     whether any record may carry an implicit lock (then the caller looks again, record by
//     record; the common case is none);
//   the heap numbers, only if they are not one ascending run: a leaf whose heap numbers run
//     first, first + 1, ... (bulk-built and split pages, as a scan of W1's primary key meets
//     them) is described by its first heap number and length, with no list.

#include <cstdint>
#include <vector>

#include "btree/cursor.h"
#include "common/types.h"

namespace minnow {

struct LeafLockPass {
  int read = 0;          // slots read: to - from, fewer if a slot outside the page ended the pass
  uint64_t live = 0;     // of the slots read below live_to, the records not delete-marked
  TrxId max_writer = 0;  // the highest DB_TRX_ID of the records read (0 for none, or none stored)
  bool run = true;       // slot from + k holds heap number first + k, for every slot read
  HeapNo first = 0;      // slot from's heap number (if read > 0)
};

// Reads slots [from, to) of `leaf` (from <= to <= leaf.n), counting the live records of
// [from, live_to). `heap_nos` is cleared; unless the result's `run`, it gets every slot's heap
// number read, in slot order. A slot outside the page (or a record whose hidden fields would
// be) ends the pass: `read` is then short, and reading that slot again reports the corruption.
LeafLockPass ReadLeafForLocks(const LeafImage& leaf, int from, int to, int live_to,
                              std::vector<HeapNo>* heap_nos);

}  // namespace minnow
