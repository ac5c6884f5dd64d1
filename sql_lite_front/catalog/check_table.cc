// CHECK TABLE and ANALYZE TABLE (check_table.h).

#include "sql_lite_front/catalog/check_table.h"

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sql_lite_front/catalog/ddl_internal.h"
#include "sql_lite_front/catalog/metadata_locks.h"
#include "sql_lite_front/session/table_locks.h"
#include "sql_lite_front/storage/table_engine.h"

namespace minnow::sql {
namespace {

// How one table's check ended: sound, damaged (its rows say how), or not run.
// kNotImplemented: the engine has nothing to do for the operation (MySQL's
// HA_ADMIN_NOT_IMPLEMENTED, reported as a note).
enum class Outcome { kOk, kCorrupt, kFailed, kNotImplemented };

// The transaction one table is checked in outside LOCK TABLES: it holds the table's shared
// metadata lock and gives the counts their read view. Registered as the session's ddl_txn
// while it lives, so that KILL interrupts its waits and waiting_for_lock() sees them.
class CheckTransaction {
 public:
  explicit CheckTransaction(SessionState* s) : s_(s) {}
  CheckTransaction(const CheckTransaction&) = delete;
  CheckTransaction& operator=(const CheckTransaction&) = delete;
  ~CheckTransaction() { End(); }

  // Begins it and takes the shared metadata lock on `table` (1205 after lock_wait_timeout,
  // 1317 when cancelled).
  SqlStatus Begin(const TableName& table) {
    TransactionOptions opts;
    opts.isolation = IsolationLevel::kRepeatableRead;  // one read view for all the counts
    opts.metadata_lock_wait_timeout_ms = uint64_t{s_->vars.lock_wait_timeout_s()} * 1000;
    Status st = s_->BeginDdlTransaction(opts);
    if (!st.ok()) return FromStatus(st);
    st = s_->ddl_txn->LockMetadata(MetadataLockName(table), LockMode::kShare,
                                   {"SHARED_READ", "TRANSACTION"});
    if (!st.ok()) return FromStatus(st);
    return SqlStatus::OK();
  }
  Transaction* txn() const { return s_->ddl_txn.get(); }

  // Commits it (it only read), releasing the metadata lock.
  void End() {
    std::unique_ptr<Transaction> done;
    {
      LatchGuard g(s_->txn_latch);
      done = std::move(s_->ddl_txn);
    }
    if (done != nullptr && done->active()) (void)done->Commit();
  }

 private:
  SessionState* const s_;
};

bool ExcludesWriters(HeapLockType type) {
  return type == HeapLockType::kReadNoInsert || type >= HeapLockType::kWriteLowPriority;
}

// The checks of one table, adding its rows to `out`.
class TableChecker {
 public:
  TableChecker(ExecContext& ctx, const CheckTableStmt& stmt, AdminResult* out)
      : ctx_(ctx), stmt_(stmt), out_(out) {}

  // Checks `table` (named `name` in the statement), reading in `txn` (isolation
  // `isolation`). Errors that end the statement (1317, a closed database) are returned.
  SqlResult<Outcome> Check(const TableName& name, const OpenTable& table, Transaction* txn,
                           IsolationLevel isolation) {
    name_ = &name;
    if (stmt_.for_upgrade) return Outcome::kOk;
    if (table.def.table_locking()) return CheckHeapTable(table);
    return CheckTrees(table, txn, isolation);
  }

 private:
  // InnoDB's ha_innobase::check: each tree's walk, then the entries of each sound tree that
  // the check's read view sees (row_scan_index_for_mysql), the clustered tree's first.
  SqlResult<Outcome> CheckTrees(const OpenTable& table, Transaction* txn,
                                IsolationLevel isolation) {
    const size_t n = table.indexes.size();
    std::vector<bool> sound(n + 1, true);  // [0]: the clustered tree, [i + 1]: index i
    for (size_t i = 0; i <= n && !stmt_.quick; ++i) {
      SQL_RETURN_IF_ERROR(ctx_.CheckCancel());
      const Keyspace& ks = i == 0 ? table.clustered : table.indexes[i - 1];
      Result<KeyspaceCheck> r = ctx_.db->CheckKeyspace(ks);
      if (r.ok()) continue;
      if (r.status().code() == Code::kClosed) return FromStatus(r.status());
      Damaged(table, i, r.status().message());
      sound[i] = false;
    }
    if (!sound[0]) return Outcome::kCorrupt;  // no row count to hold the indexes to
    std::unique_ptr<TableEngine> engine = OpenTableEngine(table, txn, isolation);
    std::vector<uint64_t> entries(n + 1, 0);
    for (size_t i = 0; i <= n; ++i) {
      if (!sound[i]) continue;
      SQL_RETURN_IF_ERROR(ctx_.CheckCancel());
      SqlResult<uint64_t> count =
          engine->Count(static_cast<int>(i) - 1, KeyRange{}, LockMode::kNone, LockWait::kWait);
      if (!count.ok()) {
        // What fails is a page (QUICK walked no tree), unless the read waited (a SERIALIZABLE
        // LOCK TABLES transaction's reads lock): that ends the statement.
        const ErrorCode code = count.error().code;
        if (code == kErQueryInterrupted || code == kErLockWaitTimeout || code == kErLockDeadlock) {
          return count.error();
        }
        Damaged(table, i, count.error().message);
        sound[i] = false;
        if (i == 0) return Outcome::kCorrupt;
        continue;
      }
      entries[i] = *count;
      if (i == 0 || entries[i] == entries[0]) continue;
      out_->Add(*name_, "Warning",
                "InnoDB: Index '" + IndexName(table, i) + "' contains " +
                    std::to_string(entries[i]) + " entries, should be " +
                    std::to_string(entries[0]) + ".");
      sound[i] = false;
    }
    for (bool b : sound) {
      if (!b) return Outcome::kCorrupt;
    }
    return Outcome::kOk;
  }

  // InnoDB's warning for a damaged tree, then what was found.
  void Damaged(const OpenTable& table, size_t i, std::string finding) {
    out_->Add(*name_, "Warning",
              "InnoDB: The B-tree of index \"" + IndexName(table, i) + "\" is corrupted.");
    out_->Add(*name_, "Warning", std::move(finding));
  }

  static std::string IndexName(const OpenTable& table, size_t i) {
    return i == 0 ? "PRIMARY" : table.def.indexes[i - 1].name;
  }

  // MyISAM's check under a lock that keeps writers out: LOCK TABLES' own when it does (READ,
  // WRITE), else one taken for the check.
  SqlResult<Outcome> CheckHeapTable(const OpenTable& table) {
    SessionState* s = ctx_.session;
    const HeapTableLock* held = HeldTableLock(*s, TableKey(NameOf(table.def)));
    HeapTableLock own;
    if (held == nullptr || !ExcludesWriters(held->type())) {
      HeapLockOptions options;
      options.type = HeapLockType::kReadNoInsert;
      options.timeout = std::chrono::seconds(s->vars.lock_wait_timeout_s());
      Result<HeapTableLock> lock = table.heap.Lock(s->kv_session.get(), options);
      if (!lock.ok()) {
        if (lock.status().code() != Code::kLockWaitTimeout) return FromStatus(lock.status());
        out_->AddFailed(*name_, FromStatus(lock.status()));
        return Outcome::kFailed;
      }
      own = std::move(*lock);
      held = &own;
    }
    Status st = table.heap.Check(*held);
    if (st.ok()) return Outcome::kOk;
    if (st.code() == Code::kClosed) return FromStatus(st);
    out_->Add(*name_, "error", st.message());
    return Outcome::kCorrupt;
  }

  ExecContext& ctx_;
  const CheckTableStmt& stmt_;
  AdminResult* const out_;
  const TableName* name_ = nullptr;
};

// The LOCK TABLES entry for `name`, or null.
const SessionState::LockedTable* LockedEntry(const SessionState& s, std::string_view name) {
  for (const SessionState::LockedTable& t : s.locked_tables) {
    if (EqualsNoCase(t.table, name)) return &t;
  }
  return nullptr;
}

// The loop of CHECK and ANALYZE (check_table.h): each table in turn, under its locks, handed
// to `run` (name, table, transaction, isolation) -> Outcome; the status row follows.
template <typename Run>
SqlResult<StatementResult> ForEachTable(ExecContext& ctx, const std::vector<TableName>& tables,
                                        AdminResult* result, Run run) {
  SessionState* s = ctx.session;
  if (s->kv_session == nullptr) return SqlErr(kErUnknownError, "the database is closed");
  const bool locked_tables = !s->locked_tables.empty();
  for (const TableName& name : tables) {
    SQL_RETURN_IF_ERROR(ctx.CheckCancel());
    CheckTransaction own(s);
    Transaction* txn = s->txn.get();
    IsolationLevel isolation = s->txn_isolation;
    if (locked_tables) {
      // The tables' metadata and table locks are LOCK TABLES' (MySQL opens only those).
      if (LockedEntry(*s, TableKey(name)) == nullptr) {
        result->AddFailed(name, SqlErr(kErTableNotLocked, "Table '", name.name,
                                       "' was not locked with LOCK TABLES"));
        continue;
      }
    } else {
      SqlStatus locked = own.Begin(name);
      if (!locked.ok()) {
        if (locked.error().code != kErLockWaitTimeout) return locked.error();
        result->AddFailed(name, locked.error());
        continue;
      }
      txn = own.txn();
      isolation = IsolationLevel::kRepeatableRead;
    }
    // After the metadata lock: a table an ALTER replaced meanwhile is seen as it is now.
    std::shared_ptr<const OpenTable> table = ctx.catalog->Find(name);
    if (table == nullptr) {
      result->AddFailed(name, NoSuchTable(name));
      continue;
    }
    SQL_ASSIGN_OR_RETURN(Outcome outcome, run(name, *table, txn, isolation));
    if (outcome == Outcome::kOk) result->Add(name, "status", "OK");
    if (outcome == Outcome::kCorrupt) result->Add(name, "error", "Corrupt");
    if (outcome == Outcome::kNotImplemented) {
      result->Add(name, "note",
                  "The storage engine for the table doesn't support " + result->operation());
    }
  }
  return result->Take();
}

// ANALYZE of a MyISAM table: under a lock that keeps writers out (MySQL's TL_READ_NO_INSERT),
// LOCK TABLES' own when it does; then nothing to recompute, as minnow keeps no key statistics.
SqlResult<Outcome> AnalyzeHeapTable(ExecContext& ctx, const TableName& name, const OpenTable& table,
                                    AdminResult* out) {
  SessionState* s = ctx.session;
  const HeapTableLock* held = HeldTableLock(*s, TableKey(NameOf(table.def)));
  if (held != nullptr && ExcludesWriters(held->type())) return Outcome::kNotImplemented;
  HeapLockOptions options;
  options.type = HeapLockType::kReadNoInsert;
  options.timeout = std::chrono::seconds(s->vars.lock_wait_timeout_s());
  Result<HeapTableLock> lock = table.heap.Lock(s->kv_session.get(), options);
  if (lock.ok()) return Outcome::kNotImplemented;
  if (lock.status().code() != Code::kLockWaitTimeout) return FromStatus(lock.status());
  out->AddFailed(name, FromStatus(lock.status()));
  return Outcome::kFailed;
}

}  // namespace

SqlResult<StatementResult> ExecuteCheckTable(ExecContext& ctx, const CheckTableStmt& stmt) {
  AdminResult result("check");
  TableChecker checker(ctx, stmt, &result);
  return ForEachTable(
      ctx, stmt.tables, &result,
      [&](const TableName& name, const OpenTable& table, Transaction* txn,
          IsolationLevel isolation) { return checker.Check(name, table, txn, isolation); });
}

SqlResult<StatementResult> ExecuteAnalyzeTable(ExecContext& ctx, const AnalyzeTableStmt& stmt) {
  AdminResult result("analyze");
  return ForEachTable(
      ctx, stmt.tables, &result,
      [&](const TableName& name, const OpenTable& table, Transaction*,
          IsolationLevel) -> SqlResult<Outcome> {
        if (table.def.table_locking()) return AnalyzeHeapTable(ctx, name, table, &result);
        return Outcome::kNotImplemented;  // no statistics: SHOW TABLE STATUS counts live
      });
}

}  // namespace minnow::sql
