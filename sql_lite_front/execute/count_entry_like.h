#pragma once
// count(*) over an index range whose LIKE stays a residual (a LIKE 'p%' under a collation with
// weights, or 'p %' under PAD SPACE: the range of p's key is only a superset of the LIKE's
// rows, planner.h), checked on each walked entry's stored text instead of a decoded row.
//
// A secondary entry of the row-locking engine keeps, beside a key that does not hold them, the
// texts of such columns (row_codec.h EncodeIndexValue), so the LIKE reads the text straight from
// the entry's value: no key, row or Value is decoded. The walk is ScanPlan's (the same cursor,
// iterator per range, read view and locks): a locking count locks every entry of each range
// and the record that ends it, whether the entry passes the LIKE or not, as InnoDB locks the
// records its range scan reads before the server tests the WHERE.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/execute/expr.h"
#include "sql_lite_front/plan/planner.h"
#include "sql_lite_front/sql_error.h"

namespace minnow::sql {

// A residual `column LIKE 'pattern'` checked on the entry: the column's text is the `text`-th
// of the entry's value (row_codec.h IndexValueText).
struct EntryLike {
  const BoundExpr* like = nullptr;  // kLike; args[1] a string literal
  size_t text = 0;
};

// `residual` (the plan's bound residual conjuncts) as EntryLikes, if every one is a LIKE (not
// NOT LIKE) of a column by a string literal, the column one of the first plan.key_parts of the
// walked secondary index (never NULL inside the plan's ranges, so its text has a fixed place
// in the value) and its text kept beside the key (TextBesideKey); nullopt otherwise, and for a
// clustered walk or a table-locking (MyISAM) table, whose entries hold no texts.
std::optional<std::vector<EntryLike>> EntryLikes(const TableDef& def, const AccessPlan& plan,
                                                 const std::vector<BoundExpr>& residual);

// The number of entries in the plan's ranges that pass every one of `likes` (LIKE as Eval
// tests it: CollationLike under the LIKE's collation), walking and locking as ScanPlan's walk
// with `lock` and counting Handler_read_* and Innodb_rows_read as it does (every entry read).
// REQUIRES: `likes` from EntryLikes for this plan, non-empty.
SqlResult<uint64_t> CountEntriesLike(ExecContext& ctx, const OpenTable& table,
                                     const AccessPlan& plan, LockMode lock, LockWait wait,
                                     const std::vector<EntryLike>& likes);

}  // namespace minnow::sql
