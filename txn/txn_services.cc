// TxnServices (txn_services.h): the write barrier after a failed write.
#include "txn/txn_services.h"

namespace minnow {

Status TxnServices::WritableStatus() const {
  if (read_only) [[unlikely]] {
    return Status::ReadOnly(
        "the database is open read-only (Options::read_only), so it cannot execute this write");
  }
  return FailureStatus();
}

Status TxnServices::FailureStatus() const {
  if (log != nullptr) {
    Status st = log->failed_status();
    if (!st.ok()) {
      return Status(st.code(), "the redo log failed earlier (" + st.message() +
                                   "); the database refuses writes until it is reopened");
    }
  }
  Status st = pool->fatal_error();
  if (!st.ok()) {
    return Status(st.code(), "writing the database file failed earlier (" + st.message() +
                                 "); the database refuses writes until it is reopened");
  }
  return Status::OK();
}

}  // namespace minnow
