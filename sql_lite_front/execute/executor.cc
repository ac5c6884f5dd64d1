// The executor's shared parts: finding tables and walking access plans (executor_internal.h).

#include <algorithm>

#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {

SqlResult<std::shared_ptr<const OpenTable>> FindTable(const ExecContext& ctx,
                                                      const TableName& name) {
  if (!name.schema.empty() && !EqualsNoCase(name.schema, kSchemaName))
    return SqlErr(kErNoSuchTable, "Table '", name.schema, ".", name.name, "' doesn't exist");
  std::shared_ptr<const OpenTable> t = ctx.catalog->Find(name.name);
  if (t == nullptr)
    return SqlErr(kErNoSuchTable, "Table '", kSchemaName, ".", name.name, "' doesn't exist");
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

SqlError DuplicateEntry(const TableDef& def, const Row& row) {
  std::string value;
  for (size_t i = 0; i < def.primary_key.size(); ++i) {
    if (i > 0) value += '-';
    const Value& v = row[def.primary_key[i]];
    value += v.is_null() ? "NULL" : v.ToString();
  }
  return SqlErr(kErDupEntry, "Duplicate entry '", value, "' for key '", def.name, ".PRIMARY'");
}

namespace {

// Positions `it` at the first entry of `r` in the walk's direction. Counts the handler call.
Status Position(Iterator* it, const KeyRange& r, bool reverse, StatusCounters* counts) {
  if (!reverse) {
    if (r.start.empty()) {
      ++counts->handler_read_first;
      return it->SeekToFirst();
    }
    ++counts->handler_read_key;
    return it->Seek(r.start);
  }
  ++counts->handler_read_key;
  if (r.end_unbounded) return it->SeekToLast();
  RETURN_IF_ERROR(it->SeekForPrev(r.end));
  if (it->Valid() && it->key() == r.end) return it->Prev();  // end is exclusive
  return Status::OK();
}

bool PastRange(const KeyRange& r, std::string_view key, bool reverse) {
  return reverse ? key < std::string_view(r.start) : r.AfterEnd(key);
}

// What a locking read of `r` (forward) locks where it ends, as MySQL 8.0 (8.0.18 on): an
// equality range (ref access, an IN list's value: InnoDB's exact-match search) and any range of
// the clustered index gap-lock the first record past it (InnoDB checks the clustered index's
// range end before locking it: only the gap that intersects the range is locked); another range
// of a secondary index (<, <=, BETWEEN, LIKE 'p%') locks that record next-key (the handler reads
// it, then finds it past the range's end); an unbounded range locks to the supremum. The upper
// bound views r.end (an iterator copies it when made).
ReadOptions RangeRead(LockMode lock, const AccessPlan& plan, const KeyRange& r) {
  ReadOptions ro{lock};
  if (!r.end_unbounded) ro.upper_bound = r.end;
  const bool gap = r.equality || plan.clustered();
  ro.range_end_lock = gap ? RangeEndLock::kGap : RangeEndLock::kNextKey;
  return ro;
}

}  // namespace

SqlStatus ScanPlan(ExecContext& ctx, const ScanSpec& spec, EvalState& state,
                   const RowCallback& fn) {
  const OpenTable& t = *spec.table;
  const AccessPlan& plan = *spec.plan;
  const TableDef& def = t.def;
  if (plan.empty) return SqlStatus::OK();
  const bool clustered = plan.clustered();
  const Keyspace& ks = clustered ? t.clustered : t.indexes[plan.index];
  const IndexDef* index = clustered ? nullptr : &def.indexes[plan.index];
  const ReadOptions ro{spec.lock};
  if (plan.type == AccessType::kConst && clustered) {
    // A unique search on the whole primary key: a point read, which locks only the record
    // (REC_NOT_GAP) or, under REPEATABLE READ, the gap where an absent key would go, as
    // InnoDB's unique search does (a scan would lock next-key ranges).
    Row row(def.columns.size());
    std::string value;
    for (const KeyRange& r : plan.ranges) {
      ++ctx.counts->handler_read_key;
      Result<bool> got = ctx.txn->Get(t.clustered, r.start, &value, ro);
      if (!got.ok()) return FromStatus(got.status());
      if (!*got) continue;
      ++ctx.counts->innodb_rows_read;
      uint64_t row_id = 0;
      SQL_RETURN_IF_ERROR(DecodePrimaryKey(def, r.start, &row, &row_id));
      SQL_RETURN_IF_ERROR(DecodeRowValue(def, value, &row));
      bool pass = true;
      if (spec.residual != nullptr) {
        for (const BoundExpr& e : *spec.residual) {
          if (!EvalPredicate(e, row, state)) {
            pass = false;
            break;
          }
        }
      }
      if (!pass) continue;
      SQL_ASSIGN_OR_RETURN(bool more, fn(row, r.start));
      if (!more) break;
    }
    return SqlStatus::OK();
  }
  // A forward walk that locks gives each bounded range its own iterator, bounded at the
  // range's end, so that it locks what InnoDB locks there and nothing after it (RangeRead).
  // Other walks (consistent reads: one read view for the statement; backward walks) share one
  // iterator and stop at each range's end themselves.
  const bool locks = spec.lock != LockMode::kNone || ctx.isolation == IsolationLevel::kSerializable;
  const bool per_range = locks && !plan.reverse;
  std::unique_ptr<Iterator> shared;
  if (!per_range) {
    Result<std::unique_ptr<Iterator>> made = ctx.txn->NewIterator(ks, ro);
    if (!made.ok()) return FromStatus(made.status());
    shared = std::move(*made);
  }
  Iterator* it = shared.get();
  const bool read_value = spec.decode && clustered && !plan.covering;
  const bool point_read = spec.decode && !clustered && !plan.covering;
  const bool all = plan.type == AccessType::kAll;
  StatusCounters& counts = *ctx.counts;
  Row row(def.columns.size());
  std::string clustered_key, value;
  uint64_t progress = 0;
  const size_t n = plan.ranges.size();
  for (size_t ri = 0; ri < n; ++ri) {
    const KeyRange& r = plan.ranges[plan.reverse ? n - 1 - ri : ri];
    std::unique_ptr<Iterator> ranged;
    if (per_range) {
      Result<std::unique_ptr<Iterator>> made =
          ctx.txn->NewIterator(ks, RangeRead(spec.lock, plan, r));
      if (!made.ok()) return FromStatus(made.status());
      ranged = std::move(*made);
      it = ranged.get();
    }
    Status st = Position(it, r, plan.reverse, &counts);
    if (!st.ok()) return FromStatus(st);
    bool first = true;
    while (it->Valid()) {
      std::string_view key = it->key();
      if (PastRange(r, key, plan.reverse)) break;
      if (all) {
        ++counts.handler_read_rnd_next;
      } else if (!first) {
        ++(plan.reverse ? counts.handler_read_prev : counts.handler_read_next);
      }
      first = false;
      ++counts.innodb_rows_read;
      std::string_view ckey = key;
      bool present = true;
      if (spec.decode) {
        if (clustered) {
          uint64_t row_id = 0;
          SQL_RETURN_IF_ERROR(DecodePrimaryKey(def, key, &row, &row_id));
          if (read_value) {
            Result<std::string_view> v = it->value();
            if (!v.ok()) return FromStatus(v.status());
            SQL_RETURN_IF_ERROR(DecodeRowValue(def, *v, &row));
          }
        } else {
          SQL_RETURN_IF_ERROR(DecodeIndexKey(def, *index, key, &row, &clustered_key));
          ckey = clustered_key;
          if (point_read) {
            // The row itself, locked REC_NOT_GAP when the walk locks (InnoDB's clustered
            // lookup from a secondary index).
            Result<bool> got = ctx.txn->Get(t.clustered, clustered_key, &value, ro);
            if (!got.ok()) return FromStatus(got.status());
            present = *got;
            if (present) SQL_RETURN_IF_ERROR(DecodeRowValue(def, value, &row));
          }
        }
      }
      bool pass = present;
      if (pass && spec.residual != nullptr) {
        for (const BoundExpr& e : *spec.residual) {
          if (!EvalPredicate(e, row, state)) {
            pass = false;
            break;
          }
        }
      }
      if (pass) {
        SQL_ASSIGN_OR_RETURN(bool more, fn(row, ckey));
        if (!more) {
          if (ctx.progress != nullptr) ctx.progress->fetch_add(progress, std::memory_order_relaxed);
          return SqlStatus::OK();
        }
      }
      SQL_RETURN_IF_ERROR(CountProgress(ctx, &progress));
      st = plan.reverse ? it->Prev() : it->Next();
      if (!st.ok()) return FromStatus(st);
    }
  }
  if (ctx.progress != nullptr) ctx.progress->fetch_add(progress, std::memory_order_relaxed);
  return SqlStatus::OK();
}

SqlResult<uint64_t> CountEntries(ExecContext& ctx, const OpenTable& table, const AccessPlan& plan,
                                 LockMode lock) {
  if (plan.empty) return uint64_t{0};
  const Keyspace& ks = plan.clustered() ? table.clustered : table.indexes[plan.index];
  StatusCounters& counts = *ctx.counts;
  uint64_t total = 0;
  for (const KeyRange& r : plan.ranges) {
    SQL_RETURN_IF_ERROR(ctx.CheckCancel());
    // The engine counts a leaf at a time, locking what an Iterator would (the hot path of
    // `SELECT count(i) FROM sample`). A bounded range's end is never empty (planner.h).
    // It locks what ScanPlan's walk of the range would (RangeRead), up to the range's end.
    ReadOptions ro = RangeRead(lock, plan, r);
    ro.upper_bound.reset();  // Count's end is its hi
    Result<uint64_t> n =
        ctx.txn->Count(ks, r.start, r.end_unbounded ? std::string_view() : r.end, ro);
    if (!n.ok()) return FromStatus(n.status());
    ++(r.start.empty() ? counts.handler_read_first : counts.handler_read_key);
    if (*n > 0) {
      if (plan.type == AccessType::kAll) {
        counts.handler_read_rnd_next += *n;
      } else {
        counts.handler_read_next += *n - 1;
      }
    }
    total += *n;
    if (ctx.progress != nullptr) ctx.progress->fetch_add(*n, std::memory_order_relaxed);
  }
  counts.innodb_rows_read += total;
  return total;
}

}  // namespace minnow::sql
