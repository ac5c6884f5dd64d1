#pragma once
// bench_locks: W1's lock-memory experiment (design brief §1) at the key-value level. What one
// measured line holds, and the table that prints minnow's lines beside the write-up's figures.
//
// A line is one query (or one kind of point-lock transaction) over the runs: its time per run,
// the rows it saw or the operations it did, and for the locking scans the transaction's locks
// read just before Commit (Transaction::lock_info(): SHOW ENGINE INNODB STATUS's "N lock
// struct(s), heap size H, M row lock(s)").

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "minnow/db.h"
#include "minnow/status.h"

namespace minnow::bench {

struct LockLine {
  std::string source;  // "minnow", "LMDB", "InnoDB 2006", "MariaDB 10.11"
  std::string id;      // the query's role: "plain", "share", "update", "like", "rc", "point1", ...
  std::string op;      // what the table prints
  const char* unit = "rows/s";             // the rate's unit: rows/s or ops/s
  uint64_t count = 0;                      // rows scanned (locked) or operations done, per run
  std::vector<double> seconds;             // per run
  bool locking = false;                    // the lock columns apply
  std::vector<TransactionLockInfo> locks;  // per run, read before Commit; row_locks 0 = unknown
  bool x_plain = false;  // print time / the same source's plain scan time (minnow's for LMDB)
};

struct LockReport {
  std::string title;               // the first line(s)
  std::vector<LockLine> measured;  // measured[0] is minnow's plain full scan
  std::vector<std::string> notes;  // printed under the table
  uint64_t rows = 0;               // the table's size: the targets are set for W1's
};

// The write-up's figures for W1 (InnoDB 2006 on the Percona blog; MariaDB 10.11 on a 2-core
// machine, data in memory, medians of 3), as lines of the same shape.
std::vector<LockLine> WriteUpLines();

// Prints the measured lines, the write-up's lines and the targets (met / missed).
void PrintLockReport(std::FILE* out, const LockReport& report);
// One CSV line per measured and write-up line:
//   source,operation,count,unit,median_seconds,min_seconds,max_seconds,rate,x_plain,
//   lock_structs,heap_bytes,row_locks,bits_per_row,runs
Status WriteLockCsv(const std::string& path, const LockReport& report);

}  // namespace minnow::bench
