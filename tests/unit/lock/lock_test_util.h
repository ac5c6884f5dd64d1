#pragma once
// Helpers for the lock tests: data_locks rows as sorted strings, heap number ranges.

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lock/lock_sys.h"

namespace minnow::testing {

constexpr TrxLockMode kIS = TrxLockMode::kIS;
constexpr TrxLockMode kIX = TrxLockMode::kIX;
constexpr TrxLockMode kS = TrxLockMode::kS;
constexpr TrxLockMode kX = TrxLockMode::kX;
constexpr RecLockType kOrd = RecLockType::kOrdinary;
constexpr RecLockType kGap = RecLockType::kGap;
constexpr RecLockType kRec = RecLockType::kRecNotGap;
constexpr RecLockType kII = RecLockType::kInsertIntention;

// "trx page:heap MODE" for a record, "trx T<table> MODE" for a table; " WAITING" if waiting.
inline std::string Describe(const LockRow& r) {
  std::string s = r.is_table ? fmt::format("{} T{} {}", r.trx_id, r.table_id, LockModeName(r.mode))
                             : fmt::format("{} {}:{} {}", r.trx_id, r.rec.page_no, r.rec.heap_no,
                                           LockModeName(r.mode, r.type));
  return r.waiting ? s + " WAITING" : s;
}

inline std::vector<std::string> Rows(const LockSys& locks) {
  std::vector<std::string> rows;
  locks.ForEachLock([&rows](const LockRow& r) { rows.push_back(Describe(r)); });
  std::sort(rows.begin(), rows.end());
  return rows;
}

inline std::vector<std::string> Waits(const LockSys& locks) {
  std::vector<std::string> rows;
  locks.ForEachWait([&rows](const LockWaitRow& w) {
    rows.push_back(Describe(w.requesting) + " <- " + Describe(w.blocking));
  });
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Heap numbers lo, lo+1, ..., hi-1.
inline std::vector<HeapNo> Range(HeapNo lo, HeapNo hi) {
  std::vector<HeapNo> v;
  for (HeapNo h = lo; h < hi; ++h) v.push_back(h);
  return v;
}

inline Code Lock(LockSys& locks, TrxLocks* trx, PageNo page, HeapNo heap, TrxLockMode mode,
                 RecLockType type = RecLockType::kOrdinary) {
  return locks.LockRecord(trx, RecordId{page, heap}, mode, type).code();
}

}  // namespace minnow::testing

namespace minnow::testing {

// Registers transactions and releases them at the end of the test (before the LockSys goes).
class Trxs {
 public:
  explicit Trxs(LockSys& locks) : locks_(locks) {}
  ~Trxs() {
    for (auto& t : trxs_) {
      if (t != nullptr) locks_.ReleaseAll(t.get());
    }
  }
  TrxLocks* New(TrxId id) {
    trxs_.push_back(locks_.Register(id));
    return trxs_.back().get();
  }

 private:
  LockSys& locks_;
  std::vector<std::unique_ptr<TrxLocks>> trxs_;
};

}  // namespace minnow::testing
