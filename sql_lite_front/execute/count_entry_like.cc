// count(*) with its LIKE checked on the index entries' texts (count_entry_like.h).

#include "sql_lite_front/execute/count_entry_like.h"

#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/collation.h"
#include "sql_lite_front/execute/executor_internal.h"
#include "sql_lite_front/storage/row_locking_cursor.h"

namespace minnow::sql {
namespace {

// Whether the entry whose value is `value` passes every LIKE; 1105 if the value lacks a text.
SqlResult<bool> Passes(const std::vector<EntryLike>& likes, std::string_view value) {
  for (const EntryLike& l : likes) {
    std::string_view text;
    if (!IndexValueText(value, l.text, &text)) {
      return SqlErr(kErUnknownError, "Malformed record: index value ends inside a string");
    }
    if (!CollationLike(CollationOf(*l.like), text, l.like->args[1].value.as_string())) return false;
  }
  return true;
}

class EntryLikeCount final : public CursorVisitor {
 public:
  // release: READ COMMITTED's locking count gives back the entries the LIKE rejects.
  EntryLikeCount(ExecContext& ctx, const AccessPlan& plan, const std::vector<EntryLike>& likes,
                 bool release)
      : ctx_(ctx), plan_(plan), likes_(likes), release_(release) {}

  SqlStatus Visit(RowLockingCursor& cursor) override;
  SqlStatus Visit(TableLockingCursor&) override {
    // EntryLikes refuses a table-locking table: its entries hold row positions, not texts.
    return SqlErr(kErUnknownError, "count by index entries on a table-locking table");
  }
  uint64_t count() const { return count_; }

 private:
  ExecContext& ctx_;
  const AccessPlan& plan_;
  const std::vector<EntryLike>& likes_;
  const bool release_;
  uint64_t count_ = 0;
};

SqlStatus EntryLikeCount::Visit(RowLockingCursor& cursor) {
  StatusCounters& counts = *ctx_.counts;
  uint64_t progress = 0;
  for (const KeyRange& r : plan_.ranges) {
    Status st = cursor.Seek(r, &counts);
    if (!st.ok()) return FromStatus(st);
    bool first = true;
    while (cursor.InRange()) {
      if (!first) ++counts.handler_read_next;
      first = false;
      ++counts.innodb_rows_read;
      Result<std::string_view> value = cursor.EntryValue();
      if (!value.ok()) return FromStatus(value.status());
      SQL_ASSIGN_OR_RETURN(bool passes, Passes(likes_, *value));
      count_ += passes;
      if (!passes && release_) {
        st = cursor.Unlock();
        if (!st.ok()) return FromStatus(st);
      }
      SQL_RETURN_IF_ERROR(CountProgress(ctx_, &progress));
      st = cursor.Next();
      if (!st.ok()) return FromStatus(st);
    }
  }
  if (ctx_.progress != nullptr) ctx_.progress->fetch_add(progress, std::memory_order_relaxed);
  return SqlStatus::OK();
}

}  // namespace

std::optional<std::vector<EntryLike>> EntryLikes(const TableDef& def, const AccessPlan& plan,
                                                 const std::vector<BoundExpr>& residual) {
  if (plan.clustered() || def.table_locking() || residual.empty()) return std::nullopt;
  const std::vector<uint32_t> key_cols = KeyColumns(def, plan.index);
  std::vector<EntryLike> likes;
  for (const BoundExpr& e : residual) {
    if (e.kind != BoundExpr::Kind::kLike || e.negated || e.args.size() != 2) return std::nullopt;
    const BoundExpr& col = e.args[0];
    const BoundExpr& pattern = e.args[1];
    if (col.kind != BoundExpr::Kind::kColumn || pattern.kind != BoundExpr::Kind::kLiteral ||
        !pattern.value.is_string())
      return std::nullopt;
    // Its place among the walked key's leading parts, and the texts kept beside the key before
    // it (TextBesideKey: weights, and PAD SPACE texts in the current format).
    std::optional<size_t> text;
    size_t texts_before = 0;
    for (uint32_t k = 0; k < plan.key_parts && k < key_cols.size(); ++k) {
      const ColumnDef& c = def.columns[key_cols[k]];
      if (key_cols[k] == static_cast<uint32_t>(col.column)) {
        if (TextBesideKey(def, c)) text = texts_before;
        break;
      }
      if (TextBesideKey(def, c)) ++texts_before;
    }
    if (!text.has_value()) return std::nullopt;
    likes.push_back(EntryLike{&e, *text});
  }
  return likes;
}

SqlResult<uint64_t> CountEntriesLike(ExecContext& ctx, const OpenTable& table,
                                     const AccessPlan& plan, LockMode lock, LockWait wait,
                                     const std::vector<EntryLike>& likes) {
  if (plan.empty) return uint64_t{0};
  std::unique_ptr<TableEngine> engine = OpenEngine(ctx, table);
  ScanRequest request;
  request.index = plan.index;
  request.lock = lock;
  request.wait = wait;
  request.fetch = RowFetch::kNone;
  EntryLikeCount walk(ctx, plan, likes,
                      lock != LockMode::kNone && ctx.isolation <= IsolationLevel::kReadCommitted);
  SQL_RETURN_IF_ERROR(engine->Scan(request, walk));
  return walk.count();
}

}  // namespace minnow::sql
