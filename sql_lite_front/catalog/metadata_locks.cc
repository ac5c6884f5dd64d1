// Which metadata locks a statement takes (metadata_locks.h).

#include "sql_lite_front/catalog/metadata_locks.h"

#include <algorithm>
#include <cctype>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/execute/multi_table_write.h"
#include "sql_lite_front/parse/ast_walk.h"
#include "sql_lite_front/parse/lexer.h"  // EqualsNoCase

namespace minnow::sql {
namespace {

// A base table (a system table takes no lock: it reads live structures).
void AddTable(const TableName& t, std::vector<std::string>* names) {
  if (IsSystemSchema(t.schema)) return;
  names->push_back(MetadataLockName(t));
}

// Every table of the query: its joins', union parts' and subqueries' too.
void AddSelect(const SelectStmt& s, std::vector<std::string>* names) {
  ForEachQueryBlock(s, [&](const SelectStmt& block) {
    // (A derived table is named by its alias: its query's blocks name its tables.)
    if (block.from.has_value() && !block.from_derived.has_value()) AddTable(*block.from, names);
    for (const JoinedTable& j : block.joins) {
      if (!j.derived.has_value()) AddTable(j.table, names);
    }
  });
}

// Shared locks of a DML statement or a read; exclusive ones of DDL.
struct Collector {
  MetadataLockRequest* out;
  const TableCatalog* catalog;
  void operator()(const SelectStmt& s) const { AddSelect(s, &out->names); }
  void operator()(const InsertStmt& s) const {
    if (s.select != nullptr) AddSelect(*s.select, &out->names);
    Written(s.table);
  }
  // A multi-table UPDATE: SHARED_WRITE on every table (MySQL's parser marks them all before
  // it knows which are assigned); a multi-table DELETE: on its delete list's, SHARED_READ on
  // the others.
  // A write's subqueries read their tables.
  template <typename Write>
  void Subqueries(const Write& s) const {
    ForEachExprOf(s, [&](const Expr& e) {
      ForEachSubqueryBlock(e, [&](const SelectStmt& block) { AddSelect(block, &out->names); });
    });
  }
  // A derived table's query reads its tables.
  template <typename Write>
  void DerivedTables(const Write& s) const {
    for (const DerivedTable* d : FromDerived(s.from_derived, s.joins)) {
      if (d != nullptr) AddSelect(*d->query, &out->names);
    }
  }
  void operator()(const UpdateStmt& s) const {
    Subqueries(s);
    DerivedTables(s);
    const std::vector<const TableName*> tables = FromTables(s.table, s.joins);
    const std::vector<const DerivedTable*> derived = FromDerived(s.from_derived, s.joins);
    for (size_t t = 0; t < tables.size(); ++t) {
      if (derived[t] == nullptr) Written(*tables[t]);
    }
  }
  void operator()(const DeleteStmt& s) const {
    Subqueries(s);
    if (!s.multi_table) return Written(s.table);
    DerivedTables(s);
    const std::vector<const TableName*> tables = FromTables(s.table, s.joins);
    const std::vector<const DerivedTable*> derived = FromDerived(s.from_derived, s.joins);
    const std::vector<bool> written = DeletedTables(s);
    for (size_t t = 0; t < tables.size(); ++t) {
      if (derived[t] != nullptr) continue;
      if (written[t]) {
        Written(*tables[t]);
      } else {
        AddTable(*tables[t], &out->names);
      }
    }
  }
  // The table a DML statement writes: SHARED_WRITE (also when the statement reads it too).
  void Written(const TableName& t) const {
    const size_t before = out->names.size();
    AddTable(t, &out->names);
    if (out->names.size() > before) out->labels[out->names.back()] = {"SHARED_WRITE"};
  }
  void operator()(const std::unique_ptr<ExplainStmt>& s) const {
    if (s != nullptr) std::visit(*this, s->statement);
    out->exclusive = false;  // EXPLAIN only reads definitions
  }
  void operator()(const LockTablesStmt& s) const {
    using Mode = LockTablesStmt::Mode;
    for (const auto& item : s.items) {
      out->names.push_back(MetadataLockName(item.table));
      const bool write = item.mode == Mode::kWrite || item.mode == Mode::kLowPriorityWrite;
      const char* type = write                           ? "SHARED_NO_READ_WRITE"
                         : item.mode == Mode::kReadLocal ? "SHARED_READ"
                                                         : "SHARED_READ_ONLY";
      // A table named twice takes the stronger (WRITE) lock.
      auto [it, added] =
          out->labels.try_emplace(out->names.back(), MetadataLockLabel{type, "EXPLICIT"});
      if (!added && write) it->second.type = type;
    }
  }
  void Exclusive(const TableName& table) const {
    out->exclusive = true;
    out->names.push_back(MetadataLockName(table));
  }
  void operator()(const CreateTableStmt& s) const {
    Exclusive(s.name);
    if (!s.like.name.empty()) Exclusive(s.like);  // stronger than MySQL's shared lock on it
  }
  void operator()(const DropTableStmt& s) const {
    for (const TableName& n : s.names) Exclusive(n);
  }
  void operator()(const CreateIndexStmt& s) const { Exclusive(s.table); }
  void operator()(const DropIndexStmt& s) const { Exclusive(s.table); }
  void operator()(const AlterTableStmt& s) const {
    Exclusive(s.table);
    if (!s.rename_to.name.empty()) Exclusive(s.rename_to);
  }
  void operator()(const RenameTableStmt& s) const {
    for (const auto& [from, to] : s.renames) {
      Exclusive(from);
      Exclusive(to);
    }
  }
  void operator()(const TruncateStmt& s) const { Exclusive(s.table); }
  void operator()(const OptimizeTableStmt& s) const {
    for (const TableName& n : s.tables) Exclusive(n);
  }
  // Every table of the database, as the catalog has them now.
  void operator()(const DropDatabaseStmt& s) const {
    out->exclusive = true;
    if (catalog == nullptr) return;
    for (const TableName& n : catalog->TableNames(s.name)) Exclusive(n);
  }
  // Statements that use no table.
  template <typename Other>
  void operator()(const Other&) const {}
};

}  // namespace

std::string MetadataLockName(const TableName& table) { return TableKey(table); }

MetadataLockLabel MetadataLockRequest::LabelOf(std::string_view name) const {
  auto it = labels.find(name);
  if (it != labels.end()) return it->second;
  return {exclusive ? "EXCLUSIVE" : "SHARED_READ", "TRANSACTION"};
}

std::vector<std::string> QueryMetadataLockNames(const SelectStmt& q) {
  std::vector<std::string> names;
  AddSelect(q, &names);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

MetadataLockRequest MetadataLocksFor(const Statement& stmt, const TableCatalog* catalog) {
  MetadataLockRequest r;
  std::visit(Collector{&r, catalog}, stmt);
  // One order for every statement, so that two multi-table DDL statements cannot deadlock.
  std::sort(r.names.begin(), r.names.end());
  r.names.erase(std::unique(r.names.begin(), r.names.end()), r.names.end());
  return r;
}

}  // namespace minnow::sql
