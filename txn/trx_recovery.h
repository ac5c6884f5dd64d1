#pragma once
// Finding the transactions a crash left open. Recovery feeds every kTrx frame of the log, from
// page 0's log_scan_lsn on, to a TrxRecoveryCollector; what is still open at the end of the log
// (undo records, no commit or rollback-done record) must be rolled back.
//
// The rollback itself is the engine's: recovery calls a RollbackHook for each open transaction,
// oldest first, after redo has brought the pages up to date and the trees are open. The hook
// applies the undo records newest first and logs kRollbackDone. Issue #4 moves undo into undo
// pages; the hook stays, only where the undo comes from changes.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/types.h"
#include "minnow/status.h"
#include "txn/log_reader.h"
#include "txn/trx_log_record.h"

namespace minnow {

struct RecoveredTransaction {
  TrxId id = 0;
  Lsn first_lsn = 0;  // where its first record starts (the log keeps everything after it)
  // Its undo records in log order (each an encoded TrxRecord, txn/trx_log_record.h).
  std::vector<std::string> undo;
};

using RollbackHook = std::function<Status(const RecoveredTransaction&)>;

class TrxRecoveryCollector {
 public:
  // Takes one frame of the scan (other kinds are ignored). kCorruption for a malformed record.
  // A transaction that began before the scan started is one that had ended when the scan start
  // was recorded (an open one would have held the start back): its records here must end with
  // its end record, and are otherwise ignored.
  Status Add(const LogFrame& frame);
  // After the last frame: kCorruption if a transaction that began before the scan has undo
  // records here but no end record (the log lost its beginning).
  Status Finish() const;
  // The transactions still open, oldest first.
  std::vector<RecoveredTransaction> Open() const;
  uint64_t committed() const { return committed_; }
  uint64_t rolled_back() const { return rolled_back_; }

 private:
  std::map<TrxId, RecoveredTransaction> open_;
  std::map<TrxId, Lsn> unfinished_earlier_;  // began before the scan, no end record seen yet
  uint64_t committed_ = 0, rolled_back_ = 0;
};

}  // namespace minnow
