// The table locks statements take on MyISAM tables (table_locks.h).

#include "sql_lite_front/session/table_locks.h"

#include <algorithm>
#include <chrono>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/execute/multi_table_write.h"
#include "sql_lite_front/parse/ast_walk.h"
#include "sql_lite_front/parse/lexer.h"  // EqualsNoCase, ToLowerAscii
#include "sql_lite_front/session/session_state.h"

namespace minnow::sql {
namespace {

void Add(const TableName& t, HeapLockType type, std::vector<TableLockRequest>* out) {
  // (A derived table's name, its alias, has no schema: its query's blocks name its tables.)
  if (IsSystemSchema(t.schema) || t.schema.empty()) return;
  out->push_back({TableKey(t), t, type});
}

// The lock of a table a SELECT reads under the locking clause `lock` that names it.
HeapLockType SelectLock(const SelectStmt& s, RowLockClause lock) {
  if (s.high_priority && lock == RowLockClause::kNone) return HeapLockType::kReadHighPriority;
  switch (lock) {
    case RowLockClause::kShare:
      return HeapLockType::kReadWithSharedLocks;
    case RowLockClause::kUpdate:
      return HeapLockType::kWrite;
    case RowLockClause::kNone:
      break;
  }
  return HeapLockType::kRead;
}

struct Collector {
  std::vector<TableLockRequest>* out;
  bool low_priority;
  const TableCatalog* catalog;
  // UPDATE/DELETE: thd->update_lock_default, or the statement's LOW_PRIORITY.
  HeapLockType Write(WritePriority p) const {
    return low_priority || p == WritePriority::kLow ? HeapLockType::kWriteLowPriority
                                                    : HeapLockType::kWrite;
  }
  // INSERT: LOW_PRIORITY, HIGH_PRIORITY (a plain WRITE: no concurrent insert, and it overrides
  // low_priority_updates), else thd->insert_lock_default.
  HeapLockType Insert(WritePriority p) const {
    if (p == WritePriority::kLow) return HeapLockType::kWriteLowPriority;
    if (p == WritePriority::kHigh) return HeapLockType::kWrite;
    return low_priority ? HeapLockType::kWriteLowPriority : HeapLockType::kWriteConcurrentInsert;
  }
  // Each query block (union parts, subqueries) locks its tables by its own locking clause.
  void operator()(const SelectStmt& s) const {
    ForEachQueryBlock(s, [&](const SelectStmt& block) {
      if (block.from.has_value()) Add(*block.from, SelectLock(block, block.lock), out);
      for (const JoinedTable& j : block.joins) Add(j.table, SelectLock(block, j.lock), out);
    });
  }
  void operator()(const InsertStmt& s) const {
    HeapLockType type = Insert(s.priority);
    // REPLACE and ON DUPLICATE KEY UPDATE may delete and update rows: MySQL's
    // upgrade_lock_type makes their concurrent insert a plain WRITE.
    if ((s.replace || !s.on_duplicate.empty()) && type == HeapLockType::kWriteConcurrentInsert)
      type = HeapLockType::kWrite;
    Add(s.table, type, out);
    if (s.select != nullptr) {
      // The source is read whole before the first write: no concurrent insert may overlap.
      ForEachQueryBlock(*s.select, [&](const SelectStmt& block) {
        if (block.from.has_value()) Add(*block.from, HeapLockType::kReadNoInsert, out);
        for (const JoinedTable& j : block.joins) Add(j.table, HeapLockType::kReadNoInsert, out);
      });
    }
  }
  // The tables of a write's subqueries are read as a SELECT's.
  template <typename Write>
  void Subqueries(const Write& s) const {
    ForEachExprOf(s, [&](const Expr& e) {
      ForEachSubqueryBlock(e, [&](const SelectStmt& block) {
        if (block.from.has_value()) Add(*block.from, SelectLock(block, block.lock), out);
        for (const JoinedTable& j : block.joins) Add(j.table, SelectLock(block, j.lock), out);
      });
    });
  }
  // A derived table's query reads its tables as a SELECT's.
  template <typename Write>
  void DerivedTables(const Write& s) const {
    for (const DerivedTable* d : FromDerived(s.from_derived, s.joins)) {
      if (d != nullptr) (*this)(*d->query);
    }
  }
  void operator()(const UpdateStmt& s) const {
    Subqueries(s);
    DerivedTables(s);
    if (!s.multi_table()) return Add(s.table, Write(s.priority), out);
    auto has_column = [&](const TableName& t, const std::string& column) {
      std::shared_ptr<const OpenTable> table = catalog == nullptr ? nullptr : catalog->Find(t);
      return table != nullptr && table->def.FindColumn(column) >= 0;
    };
    MultiTable(FromTables(s.table, s.joins), UpdatedTables(s, has_column), s.priority);
  }
  void operator()(const DeleteStmt& s) const {
    Subqueries(s);
    DerivedTables(s);
    if (!s.multi_table) return Add(s.table, Write(s.priority), out);
    MultiTable(FromTables(s.table, s.joins), DeletedTables(s), s.priority);
  }
  // A multi-table UPDATE or DELETE: WRITE on the tables it writes, READ on the others.
  void MultiTable(const std::vector<const TableName*>& tables, const std::vector<bool>& written,
                  WritePriority p) const {
    for (size_t t = 0; t < tables.size(); ++t)
      Add(*tables[t], written[t] ? Write(p) : HeapLockType::kRead, out);
  }
  // EXPLAIN opens and locks the tables as the statement it explains would.
  void operator()(const std::unique_ptr<ExplainStmt>& s) const { std::visit(*this, s->statement); }
  template <typename Other>
  void operator()(const Other&) const {}
};

// The stronger of two requests on one table. A write and a read of one table in one statement
// (INSERT INTO t SELECT ... FROM t) is a WRITE: the rows read must not change under the copy.
HeapLockType Stronger(HeapLockType a, HeapLockType b) {
  const bool wa = a >= HeapLockType::kWriteAllowWrite, wb = b >= HeapLockType::kWriteAllowWrite;
  if (wa != wb) return std::max(HeapLockType::kWrite, std::max(a, b));
  return std::max(a, b);
}

}  // namespace

std::vector<TableLockRequest> TableLockRequestsFor(const Statement& stmt, bool low_priority_updates,
                                                   const TableCatalog* catalog) {
  std::vector<TableLockRequest> out;
  std::visit(Collector{&out, low_priority_updates, catalog}, stmt);
  std::sort(out.begin(), out.end(),
            [](const TableLockRequest& a, const TableLockRequest& b) { return a.table < b.table; });
  std::vector<TableLockRequest> merged;
  for (TableLockRequest& r : out) {
    if (!merged.empty() && merged.back().table == r.table) {
      merged.back().type = Stronger(merged.back().type, r.type);
    } else {
      merged.push_back(std::move(r));
    }
  }
  return merged;
}

ConcurrentInsert ConcurrentInsertMode(const SessionState& s) {
  SqlResult<Value> v = s.engine->variables.GetGlobal("concurrent_insert");
  if (!v.ok() || !v->is_string()) return ConcurrentInsert::kAuto;
  if (v->as_string() == "NEVER") return ConcurrentInsert::kNever;
  if (v->as_string() == "ALWAYS") return ConcurrentInsert::kAlways;
  return ConcurrentInsert::kAuto;
}

SqlStatus TakeStatementTableLocks(SessionState* s, const std::vector<TableLockRequest>& requests) {
  s->statement_table_locks.clear();
  if (!s->locked_tables.empty()) return SqlStatus::OK();  // LOCK TABLES' locks serve
  HeapLockOptions options;
  options.timeout = std::chrono::seconds(s->vars.lock_wait_timeout_s());
  options.concurrent_insert = ConcurrentInsertMode(*s);
  for (const TableLockRequest& r : requests) {
    std::shared_ptr<const OpenTable> table = s->engine->catalog->Find(r.name);
    if (table == nullptr || !table->def.table_locking()) continue;
    options.type = r.type;
    Result<HeapTableLock> lock = table->heap.Lock(s->kv_session.get(), options);
    if (!lock.ok()) {
      s->statement_table_locks.clear();
      return FromStatus(lock.status());
    }
    s->statement_table_locks.push_back({r.table, table, std::move(*lock)});
  }
  return SqlStatus::OK();
}

SqlStatus EndStatementTableLocks(SessionState* s) {
  std::vector<SessionState::HeldLock> held = std::move(s->statement_table_locks);
  s->statement_table_locks.clear();
  Status first;
  for (SessionState::HeldLock& h : held) {
    Status st = h.lock.Release();
    if (first.ok()) first = st;
  }
  for (SessionState::LockedTable& t : s->locked_tables) {
    Status st = t.heap_lock.WaitDurable();
    if (first.ok()) first = st;
  }
  return first.ok() ? SqlStatus::OK() : FromStatus(first);
}

const HeapTableLock* HeldTableLock(const SessionState& s, std::string_view table) {
  for (const SessionState::HeldLock& h : s.statement_table_locks) {
    if (EqualsNoCase(h.table, table)) return &h.lock;
  }
  for (const SessionState::LockedTable& t : s.locked_tables) {
    if (EqualsNoCase(t.table, table) && t.heap_lock.held()) return &t.heap_lock;
  }
  return nullptr;
}

}  // namespace minnow::sql
