// CREATE TABLE ... [IGNORE | REPLACE] [AS] SELECT (ddl_internal.h), as MySQL 8.0 does it:
//
//   - the query runs first, in a transaction of the statement's own at the session's
//     isolation level, reading its source rows with shared next-key locks under REPEATABLE
//     READ and SERIALIZABLE (InnoDB's rule for INSERT ... SELECT and CREATE TABLE ... SELECT;
//     consistent reads under the weaker levels), its tables under shared metadata locks;
//   - its result columns become the table's last columns (result_columns.h derives their
//     definitions); a column the CREATE part defines under the same name keeps that
//     definition but moves to the query's place (MySQL's mysql_prepare_create_table drops the
//     first definition of a redefined field); the CREATE part's other columns come first;
//     a computed NOT NULL column gets its type's zero as DEFAULT, as MySQL's tmp-table fields;
//   - the rows go in as INSERT ... SELECT writes them (IGNORE and REPLACE for duplicates of
//     the new table's keys, 1062 otherwise; strict-mode conversion errors);
//   - atomic, crashes included: the table's catalog record is written in the statement's
//     transaction and commits with its rows, so a failed statement leaves no table (the rows
//     are rolled back, then the storage dropped) and a crash before the commit leaves none
//     either (the storage's intents are committed first, and the next open drops it as an
//     orphan). The session's exclusive metadata lock on the new name (held from before the
//     query to after the commit) keeps every other session out of the table meanwhile.

#include <string>
#include <utility>
#include <vector>

#include "common/crash_point.h"
#include "sql_lite_front/catalog/ddl_internal.h"
#include "sql_lite_front/catalog/metadata_locks.h"
#include "sql_lite_front/execute/executor.h"
#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/execute/result_columns.h"
#include "sql_lite_front/execute/subquery.h"
#include "sql_lite_front/parse/ast_walk.h"
#include "sql_lite_front/session/session_transaction.h"

namespace minnow::sql {
namespace {

// The statement's transaction, installed as the session's open transaction while it runs so
// that KILL QUERY interrupts its lock waits and performance_schema, information_schema.
// innodb_trx and the processlist see it as the session's. Rolled back unless committed.
class StatementTransaction {
 public:
  explicit StatementTransaction(ExecContext& ctx) : ctx_(ctx) {}
  ~StatementTransaction() { (void)End(false); }

  SqlStatus Begin() {
    SessionState* s = ctx_.session;
    const TransactionOptions opts = NextTransactionOptions(s, /*autocommit=*/true);
    Result<std::unique_ptr<Transaction>> began = s->kv_session->Begin(opts);
    if (!began.ok()) return FromStatus(began.status());
    LatchGuard g(s->txn_latch);
    s->txn = std::move(*began);
    s->txn_isolation = opts.isolation;
    if (s->cancel.load(std::memory_order_relaxed)) s->txn->Interrupt();
    txn_ = s->txn.get();
    isolation_ = opts.isolation;
    return SqlStatus::OK();
  }
  Transaction* txn() const { return txn_; }
  IsolationLevel isolation() const { return isolation_; }

  // Commits (`commit`) or rolls back, and clears the session's open transaction.
  SqlStatus End(bool commit) {
    if (txn_ == nullptr) return SqlStatus::OK();
    Status st = Status::OK();
    if (txn_->active()) st = commit ? txn_->Commit() : txn_->Rollback();
    if (ctx_.counts != nullptr)
      ++(commit ? ctx_.counts->handler_commit : ctx_.counts->handler_rollback);
    std::unique_ptr<Transaction> done;
    {
      LatchGuard g(ctx_.session->txn_latch);
      done = std::move(ctx_.session->txn);
    }
    txn_ = nullptr;
    if (!st.ok()) return FromStatus(st);
    return SqlStatus::OK();
  }

 private:
  ExecContext& ctx_;
  Transaction* txn_ = nullptr;
  IsolationLevel isolation_ = IsolationLevel::kRepeatableRead;
};

// The query's rows and its result columns' definitions; computed[i]: column i is no bare
// column of a table (its NOT NULL then comes with a zero DEFAULT).
struct QueryResult {
  std::vector<ColumnDef> columns;
  std::vector<bool> computed;
  SelectedRows rows;
};

SqlResult<QueryResult> RunQuery(ExecContext& ctx, const SelectStmt& q, LockMode lock) {
  QueryResult out;
  SelectOutput rows;
  ctx.derived_lock = lock;
  if (ctx.subqueries == nullptr && HasSubquery(q))
    ctx.subqueries = std::make_shared<SubqueryResolver>(lock);
  if (q.union_of != nullptr) {
    SQL_ASSIGN_OR_RETURN(TypedRows typed, RunTypedQuery(ctx, q, lock));
    out.columns = std::move(typed.columns);
    out.computed.assign(out.columns.size(), true);
    out.rows.rows = std::move(typed.rows);
    out.rows.warnings = std::move(typed.warnings);
  } else {
    SQL_ASSIGN_OR_RETURN(PreparedSelect p, PrepareSelect(ctx, q));
    out.columns = ResultColumnDefs(p);
    for (const BoundExpr& e : p.items) out.computed.push_back(e.kind != BoundExpr::Kind::kColumn);
    SQL_ASSIGN_OR_RETURN(rows, RunPreparedSelect(ctx, p, q, lock));
    out.rows.rows = std::move(rows.rows);
    out.rows.warnings = std::move(rows.warnings);
  }
  out.rows.width = out.columns.size();
  return out;
}

// A computed NOT NULL column's DEFAULT: its type's zero ('' for a string), none for TEXT
// and BLOB, which take no DEFAULT.
void ZeroDefault(ColumnDef* def) {
  if (def->nullable || def->default_value.has_value() || def->default_now) return;
  if (def->type == ColumnType::kText || def->type == ColumnType::kBlob) return;
  def->default_value = ImplicitDefault(*def);
}

// Adds the query's columns to the draft (whose columns are the CREATE part's) as the header
// says. Two query columns of one name are left for FinishDraft's 1060.
void MergeColumns(const QueryResult& q, TableDraft* d) {
  const size_t declared = d->columns.size();
  std::vector<bool> taken(declared, false);  // a query column took the definition
  std::vector<TableDraft::Column> from_query;
  for (size_t i = 0; i < q.columns.size(); ++i) {
    bool redefined = false;
    for (size_t c = 0; c < declared; ++c) {
      if (taken[c] || !EqualsNoCase(d->columns[c].def.name, q.columns[i].name)) continue;
      TableDraft::Column moved = d->columns[c];
      moved.def.name = q.columns[i].name;
      from_query.push_back(std::move(moved));
      taken[c] = redefined = true;
      break;
    }
    if (redefined) continue;
    TableDraft::Column column;
    column.def = q.columns[i];
    if (q.computed[i]) ZeroDefault(&column.def);
    from_query.push_back(std::move(column));
  }
  std::vector<TableDraft::Column> columns;
  for (size_t c = 0; c < declared; ++c) {
    if (!taken[c]) columns.push_back(std::move(d->columns[c]));
  }
  for (TableDraft::Column& c : from_query) columns.push_back(std::move(c));
  d->columns = std::move(columns);
}

}  // namespace

SqlResult<StatementResult> ExecuteCreateTableSelect(ExecContext& ctx, const CreateTableStmt& stmt,
                                                    TableDraft d, StatementResult result) {
  StatementTransaction txn(ctx);
  SQL_RETURN_IF_ERROR(txn.Begin());
  for (const std::string& name : QueryMetadataLockNames(*stmt.as_select)) {
    Status st = txn.txn()->LockMetadata(name, LockMode::kShare);
    if (!st.ok()) return FromStatus(st);
  }
  ExecContext qctx = ctx;
  qctx.txn = txn.txn();
  qctx.isolation = txn.isolation();
  const LockMode lock = txn.isolation() == IsolationLevel::kRepeatableRead ||
                                txn.isolation() == IsolationLevel::kSerializable
                            ? LockMode::kShare
                            : LockMode::kNone;
  SQL_ASSIGN_OR_RETURN(QueryResult query, RunQuery(qctx, *stmt.as_select, lock));
  MergeColumns(query, &d);

  SQL_ASSIGN_OR_RETURN(bool created, CreateDraftedTable(ctx, stmt, d, &result, txn.txn()));
  if (!created) return result;  // IF NOT EXISTS, and it came meanwhile: nothing inserted

  InsertStmt insert;
  insert.table = stmt.name;
  insert.ignore = stmt.ignore;
  insert.replace = stmt.replace;
  const size_t first = d.columns.size() - query.columns.size();
  for (size_t c = first; c < d.columns.size(); ++c) insert.columns.push_back(d.columns[c].def.name);
  ExecContext ictx = qctx;
  ictx.subqueries = nullptr;
  ictx.derived_lock.reset();
  SqlResult<StatementResult> inserted = ExecuteInsertRows(ictx, insert, std::move(query.rows));
  // Reached only by the CREATE TABLE ... SELECT crash test, so not in CrashPointNames().
  if (inserted.ok()) MINNOW_CRASH_POINT("sql.create_select.before_commit");
  SqlStatus done = inserted.ok() ? txn.End(/*commit=*/true) : txn.End(/*commit=*/false);
  if (!inserted.ok() || !done.ok()) {
    (void)ctx.catalog->DropUncommittedTable(stmt.name);  // a failed statement leaves none
    return inserted.ok() ? done.error() : inserted.error();
  }
  StatementResult r = std::move(*inserted);
  result.warnings.insert(result.warnings.end(), std::make_move_iterator(r.warnings.begin()),
                         std::make_move_iterator(r.warnings.end()));
  r.warnings = std::move(result.warnings);
  return r;
}

}  // namespace minnow::sql
