// SqlSession: runs statements as a MySQL connection does.
//
// Transactions: with autocommit=1 and no BEGIN, each statement that reads or writes tables runs
// in a transaction of its own, committed at its end. BEGIN / START TRANSACTION (or
// autocommit=0) keep one open across statements until COMMIT or ROLLBACK. Every statement is
// atomic: on an error its changes are undone (Transaction::RollbackToSavepoint) and the
// transaction goes on with its earlier changes and all its locks, as InnoDB's statement
// rollback; a deadlock (1213) and snapshot isolation's 1020 have rolled back the whole transaction.
// DDL, BEGIN, LOCK TABLES and a switch to autocommit=1 commit the open transaction first (MySQL's
// implicit commit).
//
// Metadata locks (metadata_locks.h): a statement that uses tables takes shared ones in its
// transaction before it looks at the catalog, held until that transaction ends; DDL takes
// exclusive ones for the statement, after the implicit commit, so it waits until no other
// transaction uses the table, and statements arriving meanwhile wait behind it.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <string>
#include <type_traits>
#include <utility>

#include "sql_lite_front/catalog/check_table.h"
#include "sql_lite_front/catalog/ddl.h"
#include "sql_lite_front/catalog/metadata_locks.h"
#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/execute/executor.h"
#include "sql_lite_front/execute/expr.h"
#include "sql_lite_front/execute/multi_table_write.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/parse/parser.h"
#include "sql_lite_front/parse/prepared_parse.h"
#include "sql_lite_front/session/diagnostics.h"
#include "sql_lite_front/session/session_state.h"
#include "sql_lite_front/session/session_transaction.h"
#include "sql_lite_front/session/table_locks.h"
#include "sql_lite_front/sql_engine.h"
#include "sql_lite_front/status/status_views.h"
#include "sql_lite_front/storage/table_engine.h"

namespace minnow::sql {

namespace {

using Clock = std::chrono::steady_clock;

// The most of a statement's text copy (SessionState::query) a session keeps between statements.
constexpr size_t kKeptQueryBytes = 64 * 1024;

// Makes `s`'s running statement stop with 1317: its waits for row, table and metadata locks
// end at once, its loops stop at their next check. A no-op for an idle session (the next
// statement starts with the flag cleared). Any thread; takes s->txn_latch.
void CancelStatement(SessionState* s) {
  s->cancel.store(true, std::memory_order_relaxed);
  if (s->kv_session != nullptr) s->kv_session->InterruptTableLockWait(true);
  LatchGuard g(s->txn_latch);
  if (s->txn != nullptr) s->txn->Interrupt();
  if (s->ddl_txn != nullptr) s->ddl_txn->Interrupt();
}

// Runs one parsed statement over a session.
class StatementRunner {
 public:
  StatementRunner(SessionState* s, StatusCounters* counts) : s_(s), counts_(counts) {}

  SqlResult<StatementResult> Run(const Statement& stmt) {
    mdl_ = MetadataLocksFor(stmt, s_->engine->catalog.get());
    table_locks_ =
        TableLockRequestsFor(stmt, s_->vars.low_priority_updates(), s_->engine->catalog.get());
    return std::visit([this](const auto& st) { return Dispatch(st); }, stmt);
  }
  // SqlSession::Describe: a SELECT bound outside any transaction.
  SqlResult<StatementResult> Describe(const Statement& stmt) {
    const auto* select = std::get_if<SelectStmt>(&stmt);
    if (select == nullptr) return StatementResult{};
    ExecContext ctx = Context(nullptr);
    return DescribeSelect(ctx, *select);
  }
  // SqlSession::CommitImplicitly.
  SqlStatus CommitImplicitly() { return CommitOpen(); }

 private:
  // ---- DML and reads: in the session's transaction (or one of their own).
  SqlResult<StatementResult> Dispatch(const SelectStmt& st) {
    counts_->com_select++;
    SqlResult<StatementResult> r =
        InTransaction([&](ExecContext& ctx) { return ExecuteSelect(ctx, st); });
    if (r.ok() && !st.deprecated_cache_option.empty()) {
      r->warnings.insert(
          r->warnings.begin(),
          SqlWarning{"Warning", kErWarnDeprecatedSyntaxNoReplacement,
                     "'" + st.deprecated_cache_option +
                         "' is deprecated and will be removed in a future release."});
    }
    return r;
  }
  SqlResult<StatementResult> Dispatch(const InsertStmt& st) {
    counts_->com_insert++;
    SQL_RETURN_IF_ERROR(CheckWriteLocked(st.table));
    return InTransaction([&](ExecContext& ctx) { return ExecuteInsert(ctx, st); });
  }
  SqlResult<StatementResult> Dispatch(const UpdateStmt& st) {
    counts_->com_update++;
    if (st.multi_table()) {
      auto has_column = [&](const TableName& t, const std::string& column) {
        std::shared_ptr<const OpenTable> table = s_->engine->catalog->Find(t);
        return table != nullptr && table->def.FindColumn(column) >= 0;
      };
      SQL_RETURN_IF_ERROR(
          CheckWritesLocked(FromTables(st.table, st.joins), UpdatedTables(st, has_column)));
    } else {
      SQL_RETURN_IF_ERROR(CheckWriteLocked(st.table));
    }
    return InTransaction([&](ExecContext& ctx) { return ExecuteUpdate(ctx, st); });
  }
  SqlResult<StatementResult> Dispatch(const DeleteStmt& st) {
    counts_->com_delete++;
    if (st.multi_table) {
      SQL_RETURN_IF_ERROR(CheckWritesLocked(FromTables(st.table, st.joins), DeletedTables(st)));
    } else {
      SQL_RETURN_IF_ERROR(CheckWriteLocked(st.table));
    }
    return InTransaction([&](ExecContext& ctx) { return ExecuteDelete(ctx, st); });
  }
  SqlResult<StatementResult> Dispatch(const std::unique_ptr<ExplainStmt>& st) {
    return InTransaction([&](ExecContext& ctx) { return ExecuteExplain(ctx, *st); });
  }
  SqlResult<StatementResult> Dispatch(const ShowStmt& st) {
    counts_->com_show++;
    switch (st.kind) {
      case ShowStmt::Kind::kTables:
      case ShowStmt::Kind::kTableStatus:
      case ShowStmt::Kind::kCreateTable:
      case ShowStmt::Kind::kColumns:
      case ShowStmt::Kind::kIndex:
        return InTransaction([&](ExecContext& ctx) { return ExecuteShowCatalog(ctx, st); });
      default: {
        ExecContext ctx = Context(nullptr);
        return ExecuteShowStatus(ctx, st);
      }
    }
  }

  // ---- DDL: implicit commit, then the DDL's own transactions.
  template <typename Stmt, typename Fn>
  SqlResult<StatementResult> RunDdl(const Stmt& st, Fn fn) {
    counts_->com_ddl++;
    if (!s_->locked_tables.empty()) {
      return SqlErr(kErLockOrActiveTransaction,
                    "Can't execute the given command because you have active locked tables or "
                    "an active transaction");
    }
    SQL_RETURN_IF_ERROR(CommitOpen());
    SQL_RETURN_IF_ERROR(LockForDdl());
    ExecContext ctx = Context(nullptr);
    SqlResult<StatementResult> r = fn(ctx, st);
    EndDdl();
    return r;
  }

  // DDL's exclusive metadata locks, in a transaction of their own (Cancel() and
  // waiting_for_lock() see it as s_->ddl_txn). Waits up to lock_wait_timeout: 1205, or 1317
  // when cancelled.
  SqlStatus LockForDdl() {
    if (s_->kv_session == nullptr) return SqlErr(kErUnknownError, "the database is closed");
    TransactionOptions opts;
    opts.metadata_lock_wait_timeout_ms = uint64_t{s_->vars.lock_wait_timeout_s()} * 1000;
    Status begun = s_->BeginDdlTransaction(opts);
    if (!begun.ok()) return FromStatus(begun);
    for (const std::string& name : mdl_.names) {
      Status st = s_->ddl_txn->LockMetadata(name, LockMode::kExclusive, mdl_.LabelOf(name));
      if (!st.ok()) {
        EndDdl();
        return FromStatus(st);
      }
    }
    return SqlStatus::OK();
  }
  void EndDdl() {
    std::unique_ptr<Transaction> done;
    {
      LatchGuard g(s_->txn_latch);
      done = std::move(s_->ddl_txn);
    }
    if (done != nullptr && done->active()) (void)done->Commit();  // holds only metadata locks
  }
  SqlResult<StatementResult> Dispatch(const CreateTableStmt& st) {
    return RunDdl(st, ExecuteCreateTable);
  }
  SqlResult<StatementResult> Dispatch(const DropTableStmt& st) {
    return RunDdl(st, ExecuteDropTable);
  }
  SqlResult<StatementResult> Dispatch(const CreateIndexStmt& st) {
    return RunDdl(st, ExecuteCreateIndex);
  }
  SqlResult<StatementResult> Dispatch(const DropIndexStmt& st) {
    return RunDdl(st, ExecuteDropIndex);
  }
  SqlResult<StatementResult> Dispatch(const AlterTableStmt& st) {
    return RunDdl(st, ExecuteAlterTable);
  }
  SqlResult<StatementResult> Dispatch(const TruncateStmt& st) {
    return RunDdl(st, ExecuteTruncate);
  }
  SqlResult<StatementResult> Dispatch(const RenameTableStmt& st) {
    return RunDdl(st, ExecuteRenameTable);
  }
  SqlResult<StatementResult> Dispatch(const OptimizeTableStmt& st) {
    return RunDdl(st, ExecuteOptimize);
  }
  // CHECK TABLE: not DDL (shared metadata locks, taken table by table; allowed under LOCK
  // TABLES), but a table-maintenance statement's implicit commit outside LOCK TABLES, whose
  // transaction holds LOCK TABLES' locks (check_table.h).
  SqlResult<StatementResult> Dispatch(const CheckTableStmt& st) {
    counts_->com_check++;
    if (s_->locked_tables.empty()) SQL_RETURN_IF_ERROR(CommitOpen());
    ExecContext ctx = Context(nullptr);
    return ExecuteCheckTable(ctx, st);
  }
  // ANALYZE TABLE: as CHECK TABLE.
  SqlResult<StatementResult> Dispatch(const AnalyzeTableStmt& st) {
    if (s_->locked_tables.empty()) SQL_RETURN_IF_ERROR(CommitOpen());
    ExecContext ctx = Context(nullptr);
    return ExecuteAnalyzeTable(ctx, st);
  }

  // ---- transactions
  SqlResult<StatementResult> Dispatch(const TransactionStmt& st) {
    switch (st.kind) {
      case TransactionStmt::Kind::kBegin: {
        counts_->com_begin++;
        SQL_RETURN_IF_ERROR(UnlockTables());
        SQL_RETURN_IF_ERROR(CommitOpen());
        SQL_RETURN_IF_ERROR(Begin(/*explicit_txn=*/true));
        StatementResult result;
        if (st.consistent_snapshot) {
          // InnoDB's innobase_start_trx_and_assign_read_view: the view now, under REPEATABLE
          // READ only.
          if (s_->txn_isolation == IsolationLevel::kRepeatableRead) {
            Status vst = s_->txn->AssignReadView();
            if (!vst.ok()) return FromStatus(vst);
          } else {
            result.warnings.push_back(SqlWarning{
                "Warning", kHaErrUnsupported,
                "InnoDB: WITH CONSISTENT SNAPSHOT was ignored because this phrase can only be "
                "used with REPEATABLE READ isolation level."});
          }
        }
        return result;
      }
      case TransactionStmt::Kind::kCommit:
        counts_->com_commit++;
        SQL_RETURN_IF_ERROR(CommitOpen());
        return StatementResult{};
      case TransactionStmt::Kind::kRollback: {
        counts_->com_rollback++;
        const bool kept = s_->txn_changed_non_transactional;
        SQL_RETURN_IF_ERROR(RollbackOpen());
        StatementResult result;
        if (kept) {  // MyISAM's writes stay (ER_WARNING_NOT_COMPLETE_ROLLBACK)
          result.warnings.push_back(
              SqlWarning{"Warning", kErWarningNotCompleteRollback,
                         "Some non-transactional changed tables couldn't be rolled back"});
        }
        return result;
      }
      case TransactionStmt::Kind::kSavepoint:
        return SetSavepoint(st.savepoint);
      case TransactionStmt::Kind::kRollbackToSavepoint:
        return RollbackToSavepoint(st.savepoint);
      case TransactionStmt::Kind::kReleaseSavepoint: {
        SQL_ASSIGN_OR_RETURN(size_t at, FindSavepoint(st.savepoint));
        s_->savepoints.resize(at);  // it and every later one (MySQL's trans_release_savepoint)
        return StatementResult{};
      }
    }
    return StatementResult{};
  }

  // SAVEPOINT x (MySQL's trans_savepoint): outside a multi-statement transaction (autocommit=1
  // and no BEGIN) nothing to mark; otherwise the transaction (begun now under autocommit=0)
  // marks its undo number, replacing an older savepoint of the same name.
  SqlResult<StatementResult> SetSavepoint(const std::string& name) {
    if (s_->txn != nullptr && !s_->txn->active()) SQL_RETURN_IF_ERROR(RollbackOpen());
    if (s_->txn == nullptr) {
      if (s_->vars.autocommit()) return StatementResult{};
      SQL_RETURN_IF_ERROR(Begin(/*explicit_txn=*/true));
    }
    auto& v = s_->savepoints;
    v.erase(std::remove_if(v.begin(), v.end(),
                           [&](const auto& sp) { return EqualsNoCase(sp.name, name); }),
            v.end());
    v.push_back({name, s_->txn->Savepoint()});
    return StatementResult{};
  }

  // The position of savepoint `name` in the open transaction, or 1305.
  SqlResult<size_t> FindSavepoint(const std::string& name) {
    if (s_->txn != nullptr && !s_->txn->active()) s_->savepoints.clear();  // rolled back
    for (size_t i = 0; i < s_->savepoints.size(); ++i) {
      if (EqualsNoCase(s_->savepoints[i].name, name)) return i;
    }
    return SqlErr(kErSpDoesNotExist, "SAVEPOINT ", name, " does not exist");
  }

  // ROLLBACK TO SAVEPOINT x: undoes the changes made since x, newest first, keeping x, the
  // transaction's earlier changes and every lock (InnoDB releases none); later savepoints go.
  // MyISAM changes stay (1196, as MySQL warns when the transaction changed such a table).
  SqlResult<StatementResult> RollbackToSavepoint(const std::string& name) {
    SQL_ASSIGN_OR_RETURN(size_t at, FindSavepoint(name));
    Status st = s_->txn->RollbackToSavepoint(s_->savepoints[at].undo_no);
    if (!st.ok()) return FromStatus(st);
    s_->savepoints.resize(at + 1);
    StatementResult result;
    if (s_->txn_changed_non_transactional) {
      result.warnings.push_back(
          SqlWarning{"Warning", kErWarningNotCompleteRollback,
                     "Some non-transactional changed tables couldn't be rolled back"});
    }
    return result;
  }

  // ---- SET
  SqlResult<StatementResult> Dispatch(const SetStmt& st) {
    counts_->com_set_option++;
    set_warnings_.clear();
    for (const SetItem& item : st.items) SQL_RETURN_IF_ERROR(Set(item));
    StatementResult r;
    r.warnings = std::move(set_warnings_);
    return r;
  }

  SqlStatus Set(const SetItem& item) {
    if (item.scope == VarScope::kUser) return SetUserVariable(item);
    if (item.to_default) return SetToDefault(item);
    SQL_ASSIGN_OR_RETURN(Value v, SetValue(item));
    if (item.name == "names" || item.name == "character set" || item.name == "charset") {
      if (!v.is_string())
        return SqlErr(kErWrongTypeForVar, "Incorrect argument type to variable '",
                      "character_set_client", "'");
      return s_->vars.SetNames(v.as_string(), item.collation);
    }
    if (item.next_transaction_only) {  // SET TRANSACTION ISOLATION LEVEL ...
      if (s_->txn != nullptr && s_->explicit_txn) {
        return SqlErr(kErCantChangeTxCharacteristics,
                      "Transaction characteristics can't be changed while a transaction is in "
                      "progress");
      }
      SQL_ASSIGN_OR_RETURN(IsolationLevel level, SessionVariables::ParseIsolation(v));
      s_->next_txn_isolation = level;
      return SqlStatus::OK();
    }
    if (IsDiagnosticsVariable(item.name)) {
      return SqlErr(kErVariableIsReadonly, "Variable '", ToLowerAscii(item.name),
                    "' is a read only variable");
    }
    if (item.scope == VarScope::kGlobal) {
      SQL_RETURN_IF_ERROR(s_->engine->variables.SetGlobal(item.name, v));
      if (EqualsNoCase(item.name, "max_write_lock_count")) {
        SQL_ASSIGN_OR_RETURN(Value n, s_->engine->variables.GetGlobal(item.name));
        s_->engine->db->set_max_write_lock_count(
            n.as_int() == INT64_MAX ? ~uint64_t{0} : static_cast<uint64_t>(n.as_int()));
      }
      return SqlStatus::OK();
    }
    const bool was_autocommit = s_->vars.autocommit();
    SQL_RETURN_IF_ERROR(s_->vars.Set(item.name, v));
    // MySQL: SET autocommit = 1 commits the open transaction.
    if (!was_autocommit && s_->vars.autocommit() && s_->locked_tables.empty()) {
      SQL_RETURN_IF_ERROR(CommitOpen());
    }
    return SqlStatus::OK();
  }

  // SET [GLOBAL | SESSION] x = DEFAULT.
  SqlStatus SetToDefault(const SetItem& item) {
    if (IsDiagnosticsVariable(item.name)) {
      return SqlErr(kErVariableIsReadonly, "Variable '", ToLowerAscii(item.name),
                    "' is a read only variable");
    }
    if (item.scope == VarScope::kGlobal) {
      SQL_RETURN_IF_ERROR(s_->engine->variables.SetGlobalToDefault(item.name));
      if (EqualsNoCase(item.name, "max_write_lock_count")) {
        s_->engine->db->set_max_write_lock_count(~uint64_t{0});  // the default: no limit
      }
      return SqlStatus::OK();
    }
    const bool was_autocommit = s_->vars.autocommit();
    SQL_RETURN_IF_ERROR(s_->vars.SetToDefault(item.name));
    if (!was_autocommit && s_->vars.autocommit() && s_->locked_tables.empty()) {
      SQL_RETURN_IF_ERROR(CommitOpen());
    }
    return SqlStatus::OK();
  }

  // SET @x = expr: the expression evaluated with no table (1054 for a column), its value kept
  // with its type; its warnings are the statement's.
  SqlStatus SetUserVariable(const SetItem& item) {
    ExecContext ctx = Context(nullptr);
    BindScope scope;
    SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*item.value, scope, ctx, "field list"));
    EvalState st;
    SeedEvalState(&st);
    Value v = Eval(b, Row{}, st);
    SQL_RETURN_IF_ERROR(EvalError(st));
    for (SqlWarning& w : st.warnings) set_warnings_.push_back(std::move(w));
    s_->user_vars[item.name] = std::move(v);
    return SqlStatus::OK();
  }

  // SET's value: a constant expression (a literal, a negative number, or a bare word the
  // parser made a string), a system variable's value, or a user variable's (mysqldump's
  // SET SQL_MODE=@OLD_SQL_MODE; an unset one is NULL).
  SqlResult<Value> SetValue(const SetItem& item) {
    const Expr* e = item.value.get();
    if (e == nullptr) return Value::Null();
    if (e->kind == Expr::Kind::kLiteral) return e->value;
    if (e->kind == Expr::Kind::kUnary && e->unary_op == UnaryOp::kNeg && !e->args.empty() &&
        e->args[0]->kind == Expr::Kind::kLiteral) {
      const Value& x = e->args[0]->value;
      if (x.is_int()) return Value::Int(-x.as_int());
      if (x.is_double()) return Value::Double(-x.as_double());
    }
    if (e->kind == Expr::Kind::kVariable && e->var_scope == VarScope::kUser) {
      auto it = s_->user_vars.find(e->name);
      return it != s_->user_vars.end() ? it->second : Value::Null();
    }
    if (e->kind == Expr::Kind::kVariable) {
      if (std::optional<SqlResult<Value>> d =
              ReadDiagnosticsVariable(e->name, e->var_scope, s_->diagnostics)) {
        return std::move(*d);
      }
      return e->var_scope == VarScope::kGlobal ? s_->engine->variables.GetGlobal(e->name)
                                               : s_->vars.Get(e->name);
    }
    return SqlErr(kErWrongTypeForVar, "Incorrect argument type to variable '", item.name, "'");
  }

  // ---- LOCK TABLES: a transaction holding table locks (S for READ, X for WRITE) until
  // UNLOCK TABLES, as InnoDB's LOCK TABLES with autocommit=0.
  SqlResult<StatementResult> Dispatch(const LockTablesStmt& st) {
    SQL_RETURN_IF_ERROR(UnlockTables());
    SQL_RETURN_IF_ERROR(CommitOpen());
    std::vector<SessionState::LockedTable> locked;
    std::vector<std::pair<std::shared_ptr<const OpenTable>, LockMode>> to_lock;
    // MyISAM tables' thr_lock types, in one order (by name, writes first on one table).
    std::vector<std::tuple<std::string, size_t, HeapLockType, TableName>> heap_order;
    for (const LockTablesStmt::Item& item : st.items) {
      auto table = s_->engine->catalog->Find(item.table);
      if (table == nullptr) return NoSuchTable(item.table);
      const bool write = item.mode == LockTablesStmt::Mode::kWrite ||
                         item.mode == LockTablesStmt::Mode::kLowPriorityWrite;
      const TableName name = NameOf(table->def);
      if (table->def.table_locking()) {
        heap_order.emplace_back(TableKey(name), locked.size(), LockTablesType(item), name);
      } else {
        to_lock.emplace_back(table, write ? LockMode::kExclusive : LockMode::kShare);
      }
      locked.push_back({TableKey(name), write, {}, table->def.name});
    }
    SQL_RETURN_IF_ERROR(Begin(/*explicit_txn=*/true));
    if (SqlStatus m = LockMetadataShared(s_->txn.get()); !m.ok()) {
      (void)RollbackOpen();
      return m.error();
    }
    for (const auto& [table, mode] : to_lock) {
      SqlStatus lst = OpenTableEngine(*table, s_->txn.get(), current_isolation_)->LockTable(mode);
      if (!lst.ok()) {
        (void)RollbackOpen();
        return lst.error();
      }
    }
    SQL_RETURN_IF_ERROR(LockHeapTables(&heap_order, &locked));
    s_->locked_tables = std::move(locked);
    return StatementResult{};
  }

  // LOCK TABLES' thr_lock type for a MyISAM table (MySQL: READ LOCAL lets concurrent inserts
  // in, READ does not).
  HeapLockType LockTablesType(const LockTablesStmt::Item& item) const {
    switch (item.mode) {
      case LockTablesStmt::Mode::kRead:
        return HeapLockType::kReadNoInsert;
      case LockTablesStmt::Mode::kReadLocal:
        return HeapLockType::kRead;
      case LockTablesStmt::Mode::kLowPriorityWrite:
        return HeapLockType::kWriteLowPriority;
      case LockTablesStmt::Mode::kWrite:
        break;
    }
    return s_->vars.low_priority_updates() ? HeapLockType::kWriteLowPriority : HeapLockType::kWrite;
  }

  // Takes LOCK TABLES' heap table locks into `locked`, sorted as thr_multi_lock sorts (by
  // table, the strongest first, so a table named twice is granted its second lock at once).
  // On an error the open transaction is rolled back and nothing is held.
  SqlStatus LockHeapTables(
      std::vector<std::tuple<std::string, size_t, HeapLockType, TableName>>* order,
      std::vector<SessionState::LockedTable>* locked) {
    std::sort(order->begin(), order->end(), [](const auto& a, const auto& b) {
      if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
      return std::get<2>(a) > std::get<2>(b);
    });
    HeapLockOptions options;
    options.timeout = std::chrono::seconds(s_->vars.lock_wait_timeout_s());
    options.concurrent_insert = ConcurrentInsertMode(*s_);
    for (const auto& [key, at, type, name] : *order) {
      auto table = s_->engine->catalog->Find(name);
      options.type = type;
      Result<HeapTableLock> lock = table == nullptr
                                       ? Result<HeapTableLock>(Status::NotFound(key))
                                       : table->heap.Lock(s_->kv_session.get(), options);
      if (!lock.ok()) {
        locked->clear();
        (void)RollbackOpen();
        if (lock.status().IsNotFound()) return NoSuchTable(name);
        return FromStatus(lock.status());
      }
      (*locked)[at].heap_lock = std::move(*lock);
    }
    return SqlStatus::OK();
  }
  SqlResult<StatementResult> Dispatch(const UnlockTablesStmt&) {
    SQL_RETURN_IF_ERROR(UnlockTables());
    return StatementResult{};
  }

  // KILL QUERY id: session `id`'s running statement ends with 1317, as MySQL's (nothing
  // happens to an idle one); its own id interrupts the KILL itself. KILL [CONNECTION] would
  // close a connection: an embedded session belongs to the program that made it, so only
  // minnowd, which owns its connections, does that (it answers KILL before the SQL front).
  SqlResult<StatementResult> Dispatch(const KillStmt& st) {
    ExecContext ctx = Context(nullptr);
    BindScope scope;
    SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*st.id, scope, ctx, "field list"));
    EvalState es;
    SeedEvalState(&es);
    const int64_t id = Eval(b, Row{}, es).ToInt();
    SQL_RETURN_IF_ERROR(EvalError(es));
    if (!st.query_only) {
      return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support '",
                    "KILL CONNECTION outside minnowd", "'");
    }
    LatchGuard g(s_->engine->sessions_latch);  // keeps the target alive while it is cancelled
    for (SessionState* target : s_->engine->sessions) {
      if (id <= 0 || target->id != static_cast<uint64_t>(id)) continue;
      if (target == s_) return SqlErr(kErQueryInterrupted, "Query execution was interrupted");
      CancelStatement(target);
      return StatementResult{};
    }
    return SqlErr(kErNoSuchThread, "Unknown thread id: ", std::to_string(id));
  }

  // ALTER TABLE t DISABLE | ENABLE KEYS: an ALTER TABLE (the implicit commit; under LOCK
  // TABLES the table must be locked for WRITE). InnoDB has no such option: note 1031, as MySQL.
  // A MyISAM table answers OK as MySQL's does, but minnow goes on keeping its non-unique
  // indexes up to date rather than rebuilding them at ENABLE KEYS.
  SqlResult<StatementResult> Dispatch(const AlterKeysStmt& st) {
    counts_->com_ddl++;
    if (s_->locked_tables.empty()) {
      SQL_RETURN_IF_ERROR(CommitOpen());
    } else {
      SQL_RETURN_IF_ERROR(CheckWriteLocked(st.table));
    }
    auto table = s_->engine->catalog->Find(st.table);
    if (table == nullptr) return NoSuchTable(st.table);
    StatementResult r;
    if (!table->def.table_locking()) {
      r.warnings.push_back(SqlWarning{
          "Note", kErIllegalHa,
          "Table storage engine for '" + table->def.name + "' doesn't have this option"});
    }
    return r;
  }

  SqlResult<StatementResult> Dispatch(const UseStmt& st) {
    if (IsSystemDatabase(st.database)) {
      return SqlErr(kErNotSupportedYet,
                    "This version of minnow doesn't yet support 'USE of a system schema'");
    }
    std::optional<DatabaseDef> db = s_->engine->catalog->FindDatabase(st.database);
    if (!db.has_value()) return SqlErr(kErBadDb, "Unknown database '", st.database, "'");
    s_->SetDatabase(db->name);
    return StatementResult{};
  }

  SqlResult<StatementResult> Dispatch(const CreateDatabaseStmt& st) {
    return RunDdl(st, ExecuteCreateDatabase);
  }
  SqlResult<StatementResult> Dispatch(const AlterDatabaseStmt& st) {
    return RunDdl(st, ExecuteAlterDatabase);
  }
  // Dropping the current database leaves none selected, as MySQL.
  SqlResult<StatementResult> Dispatch(const DropDatabaseStmt& st) {
    SqlResult<StatementResult> r = RunDdl(st, ExecuteDropDatabase);
    if (r.ok() && EqualsNoCase(s_->Database(), st.name)) s_->SetDatabase("");
    return r;
  }

  // ---- helpers
  static SqlError NoSuchTable(const TableName& name) {
    return SqlErr(kErNoSuchTable, "Table '", QualifiedName(name), "' doesn't exist");
  }

  // Under LOCK TABLES a write needs the table locked for WRITE (MySQL's 1099/1100).
  // A multi-table statement's written tables (`written` per FROM position), as above.
  SqlStatus CheckWritesLocked(const std::vector<const TableName*>& tables,
                              const std::vector<bool>& written) {
    for (size_t t = 0; t < tables.size(); ++t) {
      if (written[t]) SQL_RETURN_IF_ERROR(CheckWriteLocked(*tables[t]));
    }
    return SqlStatus::OK();
  }
  SqlStatus CheckWriteLocked(const TableName& table) {
    if (s_->locked_tables.empty()) return SqlStatus::OK();
    const std::string key = TableKey(table);
    for (const auto& t : s_->locked_tables) {
      if (t.table != key) continue;
      if (t.write) return SqlStatus::OK();
      return SqlErr(kErTableNotLockedForWrite, "Table '", t.name,
                    "' was locked with a READ lock and can't be updated");
    }
    return SqlErr(kErTableNotLocked, "Table '", table.name, "' was not locked with LOCK TABLES");
  }

  ExecContext Context(Transaction* txn) {
    ExecContext ctx;
    ctx.engine = s_->engine;
    ctx.session = s_;
    ctx.db = s_->engine->db;
    ctx.catalog = s_->engine->catalog.get();
    ctx.txn = txn;
    ctx.isolation = current_isolation_;
    ctx.counts = counts_;
    ctx.cancel = &s_->cancel;
    ctx.progress = &s_->progress;
    ctx.last_insert_id = &s_->last_insert_id;
    ctx.now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
    return ctx;
  }

  SqlStatus Begin(bool explicit_txn) {
    if (s_->kv_session == nullptr) {
      return SqlErr(kErUnknownError, "the database is closed");
    }
    // autocommit: SERIALIZABLE's plain reads stay consistent in it.
    const TransactionOptions opts = NextTransactionOptions(s_, /*autocommit=*/!explicit_txn);
    Result<std::unique_ptr<Transaction>> txn = s_->kv_session->Begin(opts);
    if (!txn.ok()) return FromStatus(txn.status());
    LatchGuard g(s_->txn_latch);
    s_->txn = std::move(txn).value();
    s_->explicit_txn = explicit_txn;
    s_->txn_isolation = opts.isolation;
    return SqlStatus::OK();
  }

  // Ends the open transaction (if any) by commit or rollback.
  SqlStatus End(bool commit) {
    if (s_->txn == nullptr) return SqlStatus::OK();
    Status st = Status::OK();
    if (s_->txn->active()) st = commit ? s_->txn->Commit() : s_->txn->Rollback();
    if (commit) {
      counts_->handler_commit++;
    } else {
      counts_->handler_rollback++;
    }
    std::unique_ptr<Transaction> done;
    {
      LatchGuard g(s_->txn_latch);
      done = std::move(s_->txn);
      s_->explicit_txn = false;
    }
    s_->txn_changed_non_transactional = false;
    s_->savepoints.clear();
    done.reset();
    if (!st.ok()) return FromStatus(st);
    return SqlStatus::OK();
  }
  SqlStatus CommitOpen() { return End(/*commit=*/true); }
  SqlStatus RollbackOpen() { return End(/*commit=*/false); }

  SqlStatus UnlockTables() {
    if (s_->locked_tables.empty()) return SqlStatus::OK();
    s_->locked_tables.clear();
    return CommitOpen();
  }

  // Runs `fn` in the open transaction, or in one begun for it (autocommit: committed at the
  // end; autocommit=0: left open). On an error the statement's changes are rolled back.
  template <typename Fn>
  SqlResult<StatementResult> InTransaction(Fn fn) {
    bool own = false;
    if (s_->txn == nullptr) {
      const bool autocommit = s_->vars.autocommit();
      SQL_RETURN_IF_ERROR(Begin(/*explicit_txn=*/!autocommit));
      own = autocommit;
    } else if (!s_->txn->active()) {
      // Rolled back under us (a deadlock victim whose error an earlier statement returned,
      // or Database::Close): start over.
      SQL_RETURN_IF_ERROR(RollbackOpen());
      return InTransaction(fn);
    }
    current_isolation_ = s_->txn_isolation;
    Transaction* txn = s_->txn.get();
    txn->ClearInterrupt();
    txn->SetSnapshotIsolation(s_->vars.innodb_snapshot_isolation());  // MariaDB: per statement
    const uint64_t savepoint = txn->Savepoint();
    // Before the statement reads a definition from the catalog: one that waited here for DDL
    // sees the new table.
    if (SqlStatus m = LockMetadataShared(txn); !m.ok()) {
      // A deadlock victim's transaction is rolled back already (1213).
      if (own || !txn->active()) (void)RollbackOpen();
      return m.error();
    }
    ExecContext ctx = Context(txn);
    if (SqlStatus t = TakeTableLocks(); !t.ok()) {
      if (own) (void)RollbackOpen();
      return t.error();
    }
    const uint64_t writes_before =
        ctx.counts->handler_write + ctx.counts->handler_update + ctx.counts->handler_delete;
    SqlResult<StatementResult> r = fn(ctx);
    const bool wrote_heap =
        WritesHeapTable() &&
        ctx.counts->handler_write + ctx.counts->handler_update + ctx.counts->handler_delete !=
            writes_before;
    const SqlStatus durable = EndStatementTableLocks(s_);
    if (wrote_heap && !own) s_->txn_changed_non_transactional = true;
    if (r.ok() && !durable.ok()) r = durable.error();
    if (!r.ok()) {
      if (!txn->active()) {
        // A deadlock victim (or 1020): the engine rolled back the whole transaction.
        (void)RollbackOpen();
      } else {
        Status undo = txn->RollbackToSavepoint(savepoint);
        if (own || !undo.ok()) (void)RollbackOpen();
      }
      return r;
    }
    if (own) SQL_RETURN_IF_ERROR(CommitOpen());
    return r;
  }

  // The statement's table locks (table_locks.h). Under LOCK TABLES, every table the statement
  // names must be locked there, whatever its engine (1100).
  SqlStatus TakeTableLocks() {
    if (!s_->locked_tables.empty()) {
      for (const TableLockRequest& r : table_locks_) {
        auto table = s_->engine->catalog->Find(r.name);
        if (table == nullptr) continue;
        const bool locked =
            std::any_of(s_->locked_tables.begin(), s_->locked_tables.end(),
                        [&](const SessionState::LockedTable& t) { return t.table == r.table; });
        if (!locked) {
          return SqlErr(kErTableNotLocked, "Table '", table->def.name,
                        "' was not locked with LOCK TABLES");
        }
      }
      return SqlStatus::OK();
    }
    return TakeStatementTableLocks(s_, table_locks_);
  }
  // True if the statement writes a MyISAM table (its only written table is one).
  bool WritesHeapTable() const {
    for (const TableLockRequest& r : table_locks_) {
      if (r.type < HeapLockType::kWriteAllowWrite) continue;
      auto table = s_->engine->catalog->Find(r.name);
      if (table != nullptr && table->def.table_locking()) return true;
    }
    return false;
  }

  // The statement's shared metadata locks, held by `txn` until it ends (1205 after
  // lock_wait_timeout, 1317 when cancelled).
  SqlStatus LockMetadataShared(Transaction* txn) {
    for (const std::string& name : mdl_.names) {
      Status st = txn->LockMetadata(name, LockMode::kShare, mdl_.LabelOf(name));
      if (!st.ok()) return FromStatus(st);
    }
    return SqlStatus::OK();
  }

  SessionState* const s_;
  StatusCounters* const counts_;
  std::vector<SqlWarning> set_warnings_;       // the running SET's (SET @x = expr)
  MetadataLockRequest mdl_;                    // the running statement's (MetadataLocksFor)
  std::vector<TableLockRequest> table_locks_;  // ... and its table locks (TableLockRequestsFor)
  IsolationLevel current_isolation_ = IsolationLevel::kRepeatableRead;
};

}  // namespace

SqlSession::SqlSession(std::unique_ptr<SessionState> state) : state_(std::move(state)) {}

SqlSession::~SqlSession() {
  {
    LatchGuard g(state_->engine->sessions_latch);
    auto& v = state_->engine->sessions;
    v.erase(std::remove(v.begin(), v.end(), state_.get()), v.end());
  }
  std::unique_ptr<Transaction> txn;
  {
    LatchGuard g(state_->txn_latch);
    txn = std::move(state_->txn);
  }
  if (txn != nullptr && txn->active()) (void)txn->Rollback();
}

namespace {

// A utf8mb3 session's results (SET NAMES utf8mb3): each character utf8mb3 cannot hold (a 4-byte
// UTF-8 sequence) becomes '?', as MySQL's conversion does. BLOB columns are bytes: left alone.
void ToUtf8mb3Results(StatementResult* r) {
  for (auto& row : r->rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (!row[i] || (i < r->column_types.size() &&
                      r->column_types[i] == StatementResult::ColumnType::kBinary)) {
        continue;
      }
      std::string& s = *row[i];
      if (std::none_of(s.begin(), s.end(), [](char c) { return (c & 0xF8) == 0xF0; })) continue;
      std::string out;
      for (size_t k = 0; k < s.size();) {
        const auto lead = static_cast<unsigned char>(s[k]);
        if ((lead & 0xF8) == 0xF0 && k + 4 <= s.size()) {
          out += '?';
          k += 4;
        } else {
          out += s[k++];
        }
      }
      s = std::move(out);
    }
  }
}

}  // namespace

namespace {

// SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*) ...: the statements that leave the diagnostics area.
bool IsDiagnosticStatement(const Statement& stmt) {
  const auto* show = std::get_if<ShowStmt>(&stmt);
  return show != nullptr &&
         (show->kind == ShowStmt::Kind::kWarnings || show->kind == ShowStmt::Kind::kErrors ||
          show->kind == ShowStmt::Kind::kWarningCount || show->kind == ShowStmt::Kind::kErrorCount);
}

// One statement as Execute and ExecutePrepared run it: `text` shown in the processlist while
// it runs, the status counters, the diagnostics area, sql_notes, utf8mb3 results and the wall
// time around `run(counts, &show_warnings)`, which parses or binds the statement and runs it.
template <typename Run>
SqlResult<StatementResult> RunStatement(SessionState* s, std::string_view text, Run&& run) {
  const Clock::time_point start = Clock::now();
  s->cancel.store(false, std::memory_order_relaxed);
  s->progress.store(0, std::memory_order_relaxed);
  if (s->kv_session != nullptr) s->kv_session->InterruptTableLockWait(false);
  {
    LatchGuard g(s->query_latch);
    s->query.assign(text);
    s->query_start = start;
  }
  StatusCounters counts;
  counts.questions = 1;
  bool show_warnings = false;
  const ScopedTimeZone zone(s->vars.time_zone());
  SqlResult<StatementResult> r = run(&counts, &show_warnings);
  // The diagnostics area: what SHOW WARNINGS lists is the last other statement's warnings, or
  // its error (as MySQL's "Error" row). The diagnostic statements (SHOW WARNINGS, SHOW ERRORS,
  // SHOW COUNT(*) ...) leave it; a parse error replaces it whatever the statement.
  s->row_count = r.ok() && !r->has_result_set ? static_cast<int64_t>(r->affected_rows) : -1;
  if (!show_warnings) {
    if (r.ok()) {
      s->diagnostics = r->warnings;
    } else {
      s->diagnostics = {SqlWarning{"Error", r.error().code, r.error().message}};
    }
  }
  {
    LatchGuard g(s->query_latch);
    s->query.clear();
    // A large statement's copy is not kept for the session's life (a mysqldump INSERT is up to
    // max_allowed_packet); an ordinary one's buffer is reused.
    if (s->query.capacity() > kKeptQueryBytes) s->query.shrink_to_fit();
  }
  {
    LatchGuard g(s->status_latch);
    s->status.Add(counts);
  }
  {
    LatchGuard g(s->engine->status_latch);
    s->engine->global_status.Add(counts);
  }
  if (r.ok()) {
    if (r->has_result_set && s->vars.results_charset() == "utf8mb3") ToUtf8mb3Results(&*r);
    if (!s->vars.sql_notes()) {  // sql_notes = 0: notes are neither kept nor counted
      auto is_note = [](const SqlWarning& w) { return w.level == "Note"; };
      std::erase_if(r->warnings, is_note);
      if (!show_warnings) std::erase_if(s->diagnostics, is_note);
    }
    r->seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }
  return r;
}

}  // namespace

namespace {

// What the parser takes from the session: the sql_mode words it reads, the current database.
ParseOptions ParseOptionsOf(const SqlModeFlags& mode, std::string database) {
  ParseOptions o;
  o.ansi_quotes = mode.ansi_quotes;
  o.pipes_as_concat = mode.pipes_as_concat;
  o.database = std::move(database);
  o.no_zero_in_date = mode.no_zero_in_date;
  o.no_zero_date = mode.no_zero_date;
  return o;
}

}  // namespace

SqlResult<StatementResult> SqlSession::Execute(std::string_view sql) {
  SessionState* s = state_.get();
  return RunStatement(
      s, sql, [&](StatusCounters* counts, bool* show_warnings) -> SqlResult<StatementResult> {
        // The server refuses such a packet before it reaches here; the shell and the C++ API too.
        if (sql.size() > static_cast<size_t>(kMaxAllowedPacket)) {
          return SqlErr(kErNetPacketTooLarge,
                        "Got a packet bigger than 'max_allowed_packet' bytes");
        }
        const SqlModeFlags mode = s->vars.sql_mode();
        SQL_ASSIGN_OR_RETURN(Statement stmt, Parse(sql, ParseOptionsOf(mode, s->Database())));
        *show_warnings = IsDiagnosticStatement(stmt);
        return StatementRunner(s, counts).Run(stmt);
      });
}

SqlResult<std::unique_ptr<PreparedParse>> SqlSession::Prepare(std::string_view sql) {
  SessionState* s = state_.get();
  if (sql.size() > static_cast<size_t>(kMaxAllowedPacket)) {
    return SqlErr(kErNetPacketTooLarge, "Got a packet bigger than 'max_allowed_packet' bytes");
  }
  const SqlModeFlags mode = s->vars.sql_mode();
  return PreparedParse::Parse(sql, ParseOptionsOf(mode, s->Database()));
}

SqlResult<StatementResult> SqlSession::ExecutePrepared(std::string_view text, PreparedParse* stmt,
                                                       std::span<const Value> params) {
  SessionState* s = state_.get();
  return RunStatement(
      s, text, [&](StatusCounters* counts, bool* show_warnings) -> SqlResult<StatementResult> {
        SQL_RETURN_IF_ERROR(stmt->Bind(params));
        *show_warnings = IsDiagnosticStatement(stmt->statement());
        return StatementRunner(s, counts).Run(stmt->statement());
      });
}

SqlResult<StatementResult> SqlSession::DescribePrepared(PreparedParse* stmt) {
  SessionState* s = state_.get();
  const ScopedTimeZone zone(s->vars.time_zone());
  // Every placeholder 0: a value that fits wherever one may stand, LIMIT and OFFSET too.
  const std::vector<Value> zeros(stmt->param_count(), Value::Int(0));
  SQL_RETURN_IF_ERROR(stmt->Bind(zeros));
  StatusCounters uncounted;
  return StatementRunner(s, &uncounted).Describe(stmt->statement());
}

SqlResult<StatementResult> SqlSession::Describe(std::string_view sql) {
  SessionState* s = state_.get();
  const ScopedTimeZone zone(s->vars.time_zone());
  const SqlModeFlags mode = s->vars.sql_mode();
  SQL_ASSIGN_OR_RETURN(Statement stmt, Parse(sql, ParseOptionsOf(mode, s->Database())));
  StatusCounters uncounted;
  return StatementRunner(s, &uncounted).Describe(stmt);
}

void SqlSession::Cancel() { CancelStatement(state_.get()); }

bool SqlSession::waiting_for_lock() const {
  if (state_->kv_session != nullptr && state_->kv_session->waiting_for_table_lock()) return true;
  uint64_t trx_id = 0;
  {
    LatchGuard g(state_->txn_latch);
    if (state_->ddl_txn != nullptr && state_->ddl_txn->waiting_for_metadata_lock()) return true;
    if (state_->txn != nullptr) {
      if (state_->txn->waiting_for_metadata_lock()) return true;
      trx_id = state_->txn->id();
    }
  }
  if (trx_id == 0) return false;
  Result<std::vector<TransactionInfo>> trxs = state_->engine->db->Transactions();
  if (!trxs.ok()) return false;
  for (const TransactionInfo& t : *trxs) {
    if (t.trx_id == trx_id) return t.lock_wait;
  }
  return false;
}

uint64_t SqlSession::progress_rows() const {
  return state_->progress.load(std::memory_order_relaxed);
}

void SqlSession::set_stage_listener(StageListener* listener) { state_->stage.listener = listener; }

uint32_t SqlSession::progress_report_time_s() const {
  const SqlResult<Value> session = state_->vars.Get("progress_report_time");
  const SqlResult<Value> global = state_->engine->variables.GetGlobal("progress_report_time");
  if (!session.ok() || !global.ok() || !session->is_int() || !global->is_int()) return 0;
  if (session->as_int() <= 0 || global->as_int() <= 0) return 0;
  return static_cast<uint32_t>(std::max(session->as_int(), global->as_int()));
}

uint64_t SqlSession::id() const { return state_->id; }

bool SqlSession::autocommit() const { return state_->vars.autocommit(); }

std::string SqlSession::results_charset() const { return state_->vars.results_charset(); }

SqlStatus SqlSession::SetNames(std::string_view charset) {
  return state_->vars.SetNames(charset, {});
}

void SqlSession::set_user(std::string user) { state_->user = std::move(user); }

std::string SqlSession::database() const { return state_->Database(); }

void SqlSession::set_database(std::string database) { state_->SetDatabase(std::move(database)); }

void SqlSession::SetDiagnostics(std::vector<SqlWarning> diagnostics) {
  state_->diagnostics = std::move(diagnostics);
}

SqlStatus SqlSession::CommitImplicitly() {
  StatusCounters counts;
  SqlStatus st = StatementRunner(state_.get(), &counts).CommitImplicitly();
  {
    LatchGuard g(state_->status_latch);
    state_->status.Add(counts);
  }
  {
    LatchGuard g(state_->engine->status_latch);
    state_->engine->global_status.Add(counts);
  }
  return st;
}

bool SqlSession::in_transaction() const {
  LatchGuard g(state_->txn_latch);
  return state_->txn != nullptr && state_->explicit_txn;
}

}  // namespace minnow::sql
