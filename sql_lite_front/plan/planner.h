#pragma once
// The access path of a single-table statement, chosen as InnoDB/MySQL would for the shapes
// minnow meets, by rule rather than by cost.
//
// From WHERE's conjuncts (the top-level ANDs) the planner finds, for the clustered index and
// for each secondary index, the conjuncts that constrain a leading part of its key:
//   column = literal, column IN (literals), column <, <=, >, >= literal, column BETWEEN a AND b,
//   column LIKE 'prefix%' on a string column, and an OR of the others (but LIKE) on one
//   column, a union of their ranges sorted and merged (the OR stays a residual).
// A conjunct is used only when its literal stores into the column unchanged (CoerceToColumn
// keeps it and it compares equal); otherwise it stays a residual predicate. The candidates,
// best first:
//   const   equality on every primary key column (one row at most);
//   ref     equality on a leading part of the primary key (composite keys), then
//   range   a range on the primary key (incl. IN lists and ORs as several ranges);
//   ref     equality on a secondary index's leading columns;
//   range   a range on a secondary index's leading part (LIKE 'p%' is the key range
//           starting with row_codec's AppendKeyPrefix);
//   index   a full walk of an index that holds every column the statement needs: the
//           PRIMARY index (keys only) when the statement needs only primary key columns
//           (count(*), count(pk)), else a covering secondary index;
//   ALL     a full walk of the clustered index.
// Among secondary candidates of one kind a covering one wins ("Using index"), then the one
// using more key parts. A secondary path that does not cover reads each row by a clustered
// point read of the entry's primary key. No walk of a table-locking (MyISAM) table covers: its
// index entries hold only the row's position, so each row is read from the heap (no "index"
// walk then: a full walk is ALL).
//
// Ranges are byte ranges of the walked keyspace's encoded keys ([start, end), memcomparable:
// row_codec.h), so the executor compares keys with memcmp and decodes only what it needs.
// Conjuncts the ranges enforce exactly are dropped; the rest are `residual` ("Using where").
// ORDER BY over the walk's key order (all ASC, or all DESC walked backwards) needs no sort,
// else `needs_sort` ("Using filesort").
//
// MIN() and MAX() without GROUP BY may instead be read at an index's end, one row each
// (MinMaxPlan; "Select tables optimized away").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sql_lite_front/catalog/table_def.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/storage/key_range.h"  // KeyRange

namespace minnow::sql {

// kEqRef: a join's lookup of one row by a unique key (join.h).
enum class AccessType : uint8_t { kConst, kEqRef, kRef, kRange, kIndex, kAll };
// "const", "eq_ref", "ref", "range", "index", "ALL" as EXPLAIN prints them.
const char* AccessTypeName(AccessType t);

struct OrderColumn {
  uint32_t column = 0;
  bool desc = false;
};

struct PlanRequest {
  const TableDef* def = nullptr;
  const Expr* where = nullptr;  // may be null
  // Instead of `where`: its conjuncts, already split (a join's conditions on one table).
  const std::vector<const Expr*>* conjuncts = nullptr;
  std::vector<bool> needed;        // columns the statement reads anywhere (sized to columns)
  std::vector<OrderColumn> order;  // ORDER BY, when every item is a plain column
  bool order_needs_sort = false;   // ORDER BY has an item that is not a plain column
};

struct AccessPlan {
  AccessType type = AccessType::kAll;
  int index = -1;                     // -1: the clustered index; else a position in def.indexes
  std::vector<KeyRange> ranges;       // in key order; one unbounded range for index/ALL
  uint32_t key_parts = 0;             // leading key columns the ranges constrain
  bool covering = false;              // the walked keys hold every needed column (no row read)
  std::vector<const Expr*> residual;  // conjuncts left to evaluate per row
  bool reverse = false;               // walk backwards (ORDER BY ... DESC)
  bool needs_sort = false;            // ORDER BY not given by the walk order
  bool empty = false;                 // the ranges select nothing (Impossible WHERE)
  // PRIMARY, and every range is one whole primary key value (const, or an IN list or OR of
  // equalities on it): read by point reads (unique searches).
  bool unique_points = false;
  std::vector<int> possible_keys;  // indexes (-1 = PRIMARY) with a usable conjunct
  // Residual conjuncts that also bound the ranges (a LIKE 'p%' under a collation with
  // weights, row_codec.h): checked again on each row, they filter nothing more.
  std::vector<const Expr*> rechecked;

  bool clustered() const { return index < 0; }
};

AccessPlan ChoosePlan(const PlanRequest& req);

// True if a walk of `index` (-1: the clustered index) needs no row read for `needed`.
bool IndexCovers(const TableDef& def, int index, const std::vector<bool>& needed);

// MIN(column) / MAX(column) read at one end of an index (MySQL's opt_sum_query): the first
// index (PRIMARY, then the secondary ones in order) in which `column` is a key part that
// `where`'s conjuncts leave to a range: equalities fix every part before it, and the column
// itself has no predicate, an equality, or comparisons (<, <=, >, >=, BETWEEN) with literals,
// each conjunct enforced exactly by the one key range (no WHERE: the column must be the first
// part). The walk covers when the index's keys hold the column; the caller stops at the
// first row. nullopt when there is no such index, a conjunct is of another shape (IN, LIKE,
// OR, IS NULL, a column another part of the key does not hold...), or the column is TEXT or
// BLOB (MySQL uses no key part on a BLOB-flagged field).
struct MinMaxRead {
  // Forward for MIN (past the NULLs when the column is nullable and has no predicate),
  // backwards for MAX. No range: the WHERE selects nothing.
  AccessPlan plan;
  // MIN of a nullable column with no predicate: its NULL keys, read when `plan` finds no row
  // (MIN is NULL then, and there are rows; MySQL's second, exact read).
  std::optional<KeyRange> nulls;
};
std::optional<MinMaxRead> MinMaxPlan(const TableDef& def, const Expr* where, uint32_t column,
                                     bool max);

// "PRIMARY" (GEN_CLUST_INDEX for a hidden key) or the secondary index's name.
std::string IndexName(const TableDef& def, int index);
// The walked index's key columns in key order (secondary: index columns then the primary key
// columns not among them; clustered: the primary key; hidden key: none).
std::vector<uint32_t> KeyColumns(const TableDef& def, int index);

// `v`'s key encoding in `col` if the column holds it unchanged (CoerceToColumn keeps it and it
// compares equal); nullopt for NULL, a number against a string column (those compare as
// numbers: no key range), or a value the column cannot hold. What key ranges and join lookups
// search by.
std::optional<std::string> EncodeExact(const ColumnDef& col, const Value& v);

// EXPLAIN's key_len: the bytes MySQL counts for the first `parts` key columns: integers their
// width, DOUBLE 8, CHAR(n) n * bytes-per-character, VARCHAR(n) that + 2, TEXT/BLOB 2 + the
// prefix; + 1 for a nullable column. Bytes per character from the table's charset, as MySQL:
// utf8mb4 4, utf8/utf8mb3 3, latin1/ascii/binary 1.
uint32_t KeyLength(const TableDef& def, int index, uint32_t parts);
// The top-level AND conjuncts of `e` (null: none).
void SplitConjuncts(const Expr* e, std::vector<const Expr*>* out);

}  // namespace minnow::sql
