// The executor's shared parts: finding tables and walking access plans through the table
// engine (executor_internal.h, storage/table_engine.h).

#include <algorithm>

#include "sql_lite_front/execute/derived_table.h"
#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/session/table_locks.h"
#include "sql_lite_front/storage/row_locking_cursor.h"
#include "sql_lite_front/storage/table_locking_cursor.h"

namespace minnow::sql {

SqlResult<std::shared_ptr<const OpenTable>> FindTable(const ExecContext& ctx,
                                                      const TableName& name) {
  std::shared_ptr<const OpenTable> t = ctx.catalog->Find(name);
  if (t == nullptr)
    return SqlErr(kErNoSuchTable, "Table '", QualifiedName(name), "' doesn't exist");
  return t;
}

LockMode LockModeOf(RowLockClause clause) {
  switch (clause) {
    case RowLockClause::kShare:
      return LockMode::kShare;
    case RowLockClause::kUpdate:
      return LockMode::kExclusive;
    case RowLockClause::kNone:
      break;
  }
  return LockMode::kNone;
}

LockWait LockWaitOf(LockedRowAction action) {
  switch (action) {
    case LockedRowAction::kNoWait:
      return LockWait::kNoWait;
    case LockedRowAction::kSkipLocked:
      return LockWait::kSkipLocked;
    case LockedRowAction::kWait:
      break;
  }
  return LockWait::kWait;
}

std::unique_ptr<TableEngine> OpenEngine(const ExecContext& ctx, const OpenTable& table) {
  TableLockAccess access;
  if (ctx.session != nullptr && table.def.table_locking()) {
    // The statement's lock (table_locks.h); without one (SHOW, EXPLAIN) the engine locks each
    // call itself.
    access.held = HeldTableLock(*ctx.session, TableKey(NameOf(table.def)));
    access.session = ctx.session->kv_session.get();
    access.timeout = std::chrono::seconds(ctx.session->vars.lock_wait_timeout_s());
  }
  return OpenTableEngine(table, ctx.txn, ctx.isolation, access);
}

namespace {

bool PassesAll(const std::vector<BoundExpr>* residual, const Row& row, EvalState& state) {
  if (residual == nullptr) return true;
  for (const BoundExpr& e : *residual) {
    if (!EvalPredicate(e, row, state)) return false;
  }
  return true;
}

// READ COMMITTED and READ UNCOMMITTED give back the locks of the rows a locking walk read but
// the WHERE rejected (InnoDB's unlock_row); REPEATABLE READ and SERIALIZABLE keep them.
bool ReleasesRejected(const ExecContext& ctx, const ScanSpec& spec) {
  return spec.lock != LockMode::kNone && ctx.isolation <= IsolationLevel::kReadCommitted;
}

// A unique search on the whole primary key: a point read per range, which locks only the
// record (REC_NOT_GAP) or, under REPEATABLE READ, the gap where an absent key would go, as
// InnoDB's unique search does (a scan would lock next-key ranges).
SqlStatus ConstLookups(ExecContext& ctx, const ScanSpec& spec, TableEngine& engine,
                       EvalState& state, const RowCallback& fn) {
  Row row(spec.table->def.columns.size());
  const bool release = ReleasesRejected(ctx, spec);
  const std::vector<KeyRange>& ranges = spec.plan->ranges;
  for (size_t ri = 0; ri < ranges.size(); ++ri) {
    const KeyRange& r = ranges[spec.plan->reverse ? ranges.size() - 1 - ri : ri];
    ++ctx.counts->handler_read_key;
    SQL_ASSIGN_OR_RETURN(bool found, engine.Get(r.start, spec.lock, spec.wait, &row));
    if (!found) continue;
    ++ctx.counts->innodb_rows_read;
    bool passes = PassesAll(spec.residual, row, state);
    SQL_RETURN_IF_ERROR(EvalError(state));
    bool more = true;
    if (passes) {
      if (spec.rejected != nullptr) *spec.rejected = false;
      SQL_ASSIGN_OR_RETURN(more, fn(row, r.start));
    }
    if ((!passes || (spec.rejected != nullptr && *spec.rejected)) && release) {
      SQL_RETURN_IF_ERROR(engine.UnlockLastGet());
    }
    if (!more) break;
  }
  return SqlStatus::OK();
}

// ScanPlan's walk of the plan's ranges, once per engine's cursor type (table_engine.h).
class PlanWalk final : public CursorVisitor {
 public:
  PlanWalk(ExecContext& ctx, const ScanSpec& spec, EvalState& state, const RowCallback& fn)
      : ctx_(ctx), spec_(spec), state_(state), fn_(fn) {}
  SqlStatus Visit(RowLockingCursor& cursor) override { return Walk(cursor); }
  SqlStatus Visit(TableLockingCursor& cursor) override { return Walk(cursor); }

 private:
  template <typename Cursor>
  SqlStatus Walk(Cursor& cursor);
  // Adds the rows read since the last report to ctx.progress.
  void FlushProgress(uint64_t progress) {
    if (ctx_.progress != nullptr) ctx_.progress->fetch_add(progress, std::memory_order_relaxed);
  }

  ExecContext& ctx_;
  const ScanSpec& spec_;
  EvalState& state_;
  const RowCallback& fn_;
};

template <typename Cursor>
SqlStatus PlanWalk::Walk(Cursor& cursor) {
  const AccessPlan& plan = *spec_.plan;
  const bool all = plan.type == AccessType::kAll;
  StatusCounters& counts = *ctx_.counts;
  Row row(spec_.table->def.columns.size());
  const bool release = ReleasesRejected(ctx_, spec_);
  uint64_t progress = 0;
  const size_t n = plan.ranges.size();
  for (size_t ri = 0; ri < n; ++ri) {
    const KeyRange& r = plan.ranges[plan.reverse ? n - 1 - ri : ri];
    Status st = cursor.Seek(r, &counts);
    if (!st.ok()) return FromStatus(st, spec_.table->def.name);
    bool first = true;
    bool reread = false;  // the row again, now locked, after a semi-consistent read of it
    while (cursor.InRange()) {
      if (reread) {
        reread = false;
      } else {
        if (all) {
          ++counts.handler_read_rnd_next;
        } else if (!first) {
          ++(plan.reverse ? counts.handler_read_prev : counts.handler_read_next);
        }
        first = false;
        ++counts.innodb_rows_read;
      }
      bool present = true;
      SQL_RETURN_IF_ERROR(cursor.Read(&row, &present));
      const bool passes = present && PassesAll(spec_.residual, row, state_);
      SQL_RETURN_IF_ERROR(EvalError(state_));
      if (passes && cursor.SemiConsistent()) {
        // Another transaction's row whose committed version matches: wait for its lock and
        // read it again (it may have changed), as MySQL's UPDATE after was_semi_consistent_read.
        st = cursor.LockCurrent();
        if (!st.ok()) return FromStatus(st, spec_.table->def.name);
        reread = true;
        continue;
      }
      bool rejected = !passes;
      if (passes) {
        if (spec_.rejected != nullptr) *spec_.rejected = false;
        SQL_ASSIGN_OR_RETURN(bool more, fn_(row, cursor.ref()));
        if (!more) {
          FlushProgress(progress);
          return SqlStatus::OK();
        }
        rejected = spec_.rejected != nullptr && *spec_.rejected;
      }
      if (rejected && release) {
        st = cursor.Unlock();
        if (!st.ok()) return FromStatus(st, spec_.table->def.name);
      }
      SQL_RETURN_IF_ERROR(CountProgress(ctx_, &progress));
      st = cursor.Next();
      if (!st.ok()) return FromStatus(st, spec_.table->def.name);
    }
  }
  FlushProgress(progress);
  return SqlStatus::OK();
}

}  // namespace

SqlStatus ScanPlan(ExecContext& ctx, const ScanSpec& spec, EvalState& state,
                   const RowCallback& fn) {
  const AccessPlan& plan = *spec.plan;
  if (plan.empty) return SqlStatus::OK();
  if (spec.table->materialized != nullptr) return ScanMaterialized(ctx, spec, state, fn);
  std::unique_ptr<TableEngine> engine = OpenEngine(ctx, *spec.table);
  // A MyISAM table's rows are named by position, not by key: its point reads walk PRIMARY.
  if (plan.unique_points && !spec.table->def.table_locking()) {
    return ConstLookups(ctx, spec, *engine, state, fn);
  }
  ScanRequest request;
  request.index = plan.index;
  request.lock = spec.lock;
  request.wait = spec.wait;
  request.reverse = plan.reverse;
  request.first_row = spec.first_row;
  request.semi_consistent = spec.semi_consistent;
  request.fetch = !spec.decode ? RowFetch::kNone : plan.covering ? RowFetch::kKey : RowFetch::kRow;
  PlanWalk walk(ctx, spec, state, fn);
  return engine->Scan(request, walk);
}

SqlResult<uint64_t> CountEntries(ExecContext& ctx, const OpenTable& table, const AccessPlan& plan,
                                 LockMode lock, LockWait wait) {
  if (plan.empty) return uint64_t{0};
  std::unique_ptr<TableEngine> engine = OpenEngine(ctx, table);
  StatusCounters& counts = *ctx.counts;
  uint64_t total = 0;
  for (const KeyRange& r : plan.ranges) {
    SQL_RETURN_IF_ERROR(ctx.CheckCancel());
    SQL_ASSIGN_OR_RETURN(uint64_t n, engine->Count(plan.index, r, lock, wait));
    ++(r.start.empty() ? counts.handler_read_first : counts.handler_read_key);
    if (n > 0) {
      if (plan.type == AccessType::kAll) {
        counts.handler_read_rnd_next += n;
      } else {
        counts.handler_read_next += n - 1;
      }
    }
    total += n;
    if (ctx.progress != nullptr) ctx.progress->fetch_add(n, std::memory_order_relaxed);
  }
  counts.innodb_rows_read += total;
  return total;
}

}  // namespace minnow::sql
