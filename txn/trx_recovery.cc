#include "txn/trx_recovery.h"

#include <fmt/format.h>

namespace minnow {

Status TrxRecoveryCollector::Add(const LogFrame& frame) {
  if (frame.kind != LogFrameKind::kTrx) return Status::OK();
  ASSIGN_OR_RETURN(TrxRecord r, DecodeTrxRecord(frame.payload));
  const TrxId id = r.trx == 0 ? frame.start_lsn : r.trx;
  auto it = open_.find(id);
  if (r.trx == 0) {
    if (it != open_.end()) {
      return Status::Corruption(
          fmt::format("redo log: transaction {} begins twice (LSN {})", id, frame.start_lsn));
    }
    it = open_.emplace(id, RecoveredTransaction{id, frame.start_lsn, {}}).first;
  } else if (it == open_.end()) {
    if (r.is_undo()) {
      unfinished_earlier_.emplace(id, frame.start_lsn);
    } else {
      unfinished_earlier_.erase(id);
    }
    return Status::OK();
  }
  switch (r.type) {
    case TrxRecordType::kCommit:
      ++committed_;
      open_.erase(it);
      break;
    case TrxRecordType::kRollbackDone:
      ++rolled_back_;
      open_.erase(it);
      break;
    default:
      it->second.undo.emplace_back(reinterpret_cast<const char*>(frame.payload.data()),
                                   frame.payload.size());
  }
  return Status::OK();
}

Status TrxRecoveryCollector::Finish() const {
  if (unfinished_earlier_.empty()) return Status::OK();
  const auto& [id, lsn] = *unfinished_earlier_.begin();
  return Status::Corruption(fmt::format(
      "redo log: transaction {} has an undo record at LSN {} but its first record is missing and "
      "it never ended (the log lost records before the point recovery starts at)",
      id, lsn));
}

std::vector<RecoveredTransaction> TrxRecoveryCollector::Open() const {
  std::vector<RecoveredTransaction> out;
  out.reserve(open_.size());
  for (const auto& [id, t] : open_) out.push_back(t);  // ids are first LSNs: oldest first
  return out;
}

}  // namespace minnow
