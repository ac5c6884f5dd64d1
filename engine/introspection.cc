// Lock and transaction introspection (performance_schema.data_locks, data_lock_waits,
// information_schema.innodb_trx) and the latest deadlock from the live structures. The lock system
// knows records only as (page, heap number): the keys are read from the pages afterwards, with no
// lock-sys latch held (latch order: page latches come first).
#include <fmt/format.h>

#include <chrono>
#include <map>

#include "btree/page.h"
#include "engine/database_core_internal.h"
#include "txn/transaction_core.h"

namespace minnow {

namespace {

DataLock RawRow(const LockRow& r) {
  DataLock d;
  d.trx_id = r.trx_id;
  d.is_table = r.is_table;
  d.waiting = r.waiting;
  d.lock_mode = r.is_table ? LockModeName(r.mode) : LockModeName(r.mode, r.type);
  d.page_no = r.is_table ? r.table_id : r.rec.page_no;
  d.heap_no = r.is_table ? 0 : r.rec.heap_no;
  d.supremum = !r.is_table && r.rec.heap_no == kSupremumHeapNo;
  return d;
}

}  // namespace

// Fills in keyspace names and record keys. A table lock's page_no holds its table id.
Status DatabaseCore::ResolveLockRows(std::vector<DataLock*> rows) {
  std::map<PageNo, std::string> by_root;
  std::map<uint32_t, std::string> by_id;
  {
    LatchGuard guard(catalog_latch_);
    for (const auto& [name, s] : by_name_) {
      by_root.emplace(s->tree->root(), name);
      by_id.emplace(s->id, name);
    }
  }
  for (DataLock* d : rows) {
    if (d->is_table) {
      auto it = by_id.find(d->page_no);
      d->keyspace =
          it != by_id.end() ? it->second : fmt::format("(dropped keyspace {})", d->page_no);
      d->page_no = 0;
      continue;
    }
    ASSIGN_OR_RETURN(ReadPageGuard g, pool_->FetchRead(d->page_no));
    PageView v(g.data());
    if (!v.HeaderOk()) continue;  // freed and reused meanwhile
    if (auto it = by_root.find(v.index_id()); it != by_root.end()) d->keyspace = it->second;
    if (d->supremum) continue;
    const size_t idx = v.FindHeapNo(d->heap_no);
    RecordView rec;
    if (idx < v.n_slots() && v.Record(idx, &rec)) d->key.assign(AsStringView(rec.key));
  }
  return Status::OK();
}

Result<std::vector<DataLock>> DatabaseCore::DataLocks() {
  if (closed()) return Status::Closed("the database is closed");
  std::vector<DataLock> out;
  lock_sys_->ForEachLock([&](const LockRow& r) { out.push_back(RawRow(r)); });
  std::vector<DataLock*> rows;
  for (DataLock& d : out) rows.push_back(&d);
  RETURN_IF_ERROR(ResolveLockRows(std::move(rows)));
  return out;
}

namespace {

MetadataLock PublicRow(const MdlLockRow& r) {
  const bool x = r.mode == MdlMode::kExclusive;
  return MetadataLock{
      .name = r.name,
      .mode = x ? LockMode::kExclusive : LockMode::kShare,
      .type = r.label.type != nullptr ? r.label.type : (x ? "EXCLUSIVE" : "SHARED"),
      .duration = r.label.duration != nullptr ? r.label.duration : "TRANSACTION",
      .pending = !r.granted,
      .owner = r.owner,
      .ticket = r.ticket,
  };
}

}  // namespace

Result<std::vector<MetadataLock>> DatabaseCore::MetadataLocks() {
  if (closed()) return Status::Closed("the database is closed");
  std::vector<MetadataLock> out;
  mdl_->ForEachLock([&](const MdlLockRow& r) { out.push_back(PublicRow(r)); });
  return out;
}

Result<std::vector<DataLockWait>> DatabaseCore::DataLockWaits() {
  if (closed()) return Status::Closed("the database is closed");
  std::vector<DataLockWait> out;
  lock_sys_->ForEachWait([&](const LockWaitRow& w) {
    out.push_back(DataLockWait{RawRow(w.requesting), RawRow(w.blocking)});
  });
  std::vector<DataLock*> rows;
  for (DataLockWait& w : out) {
    rows.push_back(&w.requesting);
    rows.push_back(&w.blocking);
  }
  RETURN_IF_ERROR(ResolveLockRows(std::move(rows)));
  return out;
}

Result<std::vector<TransactionInfo>> DatabaseCore::Transactions() {
  if (closed()) return Status::Closed("the database is closed");
  std::vector<TransactionInfo> out;
  trx_sys_->ForEachActive([&](TrxId, void* owner) {
    TransactionInfo info;
    if (static_cast<const TransactionCore*>(owner)->Describe(&info)) out.push_back(info);
  });
  std::vector<DataLock*> rows;
  for (TransactionInfo& t : out) {
    if (t.lock_wait) rows.push_back(&t.waiting_for);
  }
  RETURN_IF_ERROR(ResolveLockRows(std::move(rows)));
  return out;
}

void DatabaseCore::RecordDeadlock(const DeadlockInfo& info) {
  DeadlockReport report;
  report.unix_time = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  report.victim_trx_id = info.victim;
  report.victim_index = info.victim_index;
  for (const DeadlockTrxInfo& t : info.cycle) {
    DeadlockReport::Trx r;
    r.trx_id = t.trx_id;
    r.locks = TransactionLockInfo{.trx_id = t.trx_id,
                                  .lock_structs = t.locks.structs,
                                  .heap_bytes = t.locks.heap_bytes,
                                  .row_locks = t.locks.row_locks};
    r.rows_modified = t.undo_records;
    r.mdl_owner = t.mdl_owner;
    r.waits_for_metadata = t.waits_for_metadata;
    if (t.waits_for_metadata) {
      r.metadata_wait = PublicRow(t.metadata_wait);
    } else {
      r.waiting_for = RawRow(t.waiting_for);
    }
    for (const LockRow& h : t.holds) r.holds.push_back(RawRow(h));
    for (const MdlLockRow& h : t.metadata_holds) r.metadata_holds.push_back(PublicRow(h));
    report.cycle.push_back(std::move(r));
  }
  std::vector<DataLock*> rows;
  for (DeadlockReport::Trx& t : report.cycle) {
    if (!t.waits_for_metadata) rows.push_back(&t.waiting_for);
    for (DataLock& h : t.holds) rows.push_back(&h);
  }
  // A page that cannot be read leaves its rows without keys; the report is kept anyway.
  (void)ResolveLockRows(std::move(rows));
  LatchGuard guard(deadlock_latch_);
  latest_deadlock_ = std::move(report);
}

std::optional<DeadlockReport> DatabaseCore::LatestDeadlock() const {
  LatchGuard guard(deadlock_latch_);
  return latest_deadlock_;
}

}  // namespace minnow
