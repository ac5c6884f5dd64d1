#include "minnow/status.h"

namespace minnow {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kNotFound:
      return "NotFound";
    case Code::kDuplicateKey:
      return "DuplicateKey";
    case Code::kInvalidArgument:
      return "InvalidArgument";
    case Code::kCorruption:
      return "Corruption";
    case Code::kIOError:
      return "IOError";
    case Code::kNotSupported:
      return "NotSupported";
    case Code::kBusy:
      return "Busy";
    case Code::kLockWait:
      return "LockWait";
    case Code::kLockWaitTimeout:
      return "LockWaitTimeout";
    case Code::kDeadlock:
      return "Deadlock";
    case Code::kClosed:
      return "Closed";
    case Code::kNoSpace:
      return "NoSpace";
    case Code::kAborted:
      return "Aborted";
    case Code::kInternal:
      return "Internal";
    case Code::kLockNoWait:
      return "LockNoWait";
    case Code::kReadOnly:
      return "ReadOnly";
    case Code::kRecordChanged:
      return "RecordChanged";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(CodeName(code_));
  if (!message_.empty()) {
    s += ": ";
    s += message_;
  }
  return s;
}

}  // namespace minnow
