#pragma once
// The minnow scan loop bench_kv and bench_locks share: the work they time as "full scan".

#include <cstdint>

#include "minnow/db.h"

namespace minnow::bench {

// Reads every record of `ks` (key and value) in key order through one Iterator of `txn` opened
// with `ro` (a consistent read, or a locking one); `rows` counts them, `checksum` mixes a byte
// of each key and value so the reads cannot be optimized away. Leaves `txn` active.
Status ScanKeyspace(Transaction* txn, const Keyspace& ks, const ReadOptions& ro, uint64_t* rows,
                    uint64_t* checksum);

}  // namespace minnow::bench
