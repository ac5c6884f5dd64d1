// Copy-ALTER (and OPTIMIZE, TRUNCATE) and CREATE INDEX's build: rows move from the old
// keyspaces into new ones inside one transaction; the catalog switches before that transaction
// commits. What keeps writers out is the statement's exclusive metadata lock (the session
// holds it from before the copy's transaction begins until after it commits), so the source
// is read either with share record locks (alter_copy_lock_rows=ON, as MySQL 8.0 does) or by a
// consistent read that locks no rows (OFF): the snapshot is taken after every writer that
// held the table's metadata lock has ended, and no writer can come in before the switch.
// The new keyspaces are bulk-built bottom-up (Transaction::BulkInsert into an empty keyspace:
// a table X lock, one undo record, no row locks or per-row undo); secondary index entries are
// gathered, sorted and bulk-built the same way.
// Rows are read and loaded through the tables' engines (storage/table_engine.h).
// The session's stage (statement_stage.h) shows "copy to tmp table" with the rows read so far
// over the source's row count, then "rename result table"; CREATE INDEX's build "altering
// table".
//
// Crash safety (table_catalog.h): the new keyspaces are journaled before they are made; the
// switch writes the catalog record in the copy's transaction, so it commits with the copied
// rows or not at all; the old keyspaces are journaled by the switch and dropped after it.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sql_lite_front/catalog/ddl_internal.h"
#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/session/statement_stage.h"
#include "sql_lite_front/storage/row_locking_cursor.h"
#include "sql_lite_front/storage/table_engine.h"
#include "sql_lite_front/storage/table_locking_cursor.h"

namespace minnow::sql {
namespace {

std::vector<std::string> KeyspaceNames(const TableDef& def) { return StorageNamesOf(def); }

// The source's key order is the new one: the same clustered key columns of the same types (or
// hidden row ids on both sides), so rows can stream into the bulk load.
bool SameKeyOrder(const TableDef& from, const TableDef& to, const ColumnMapping& m) {
  if (from.has_hidden_primary_key() || to.has_hidden_primary_key()) {
    return from.has_hidden_primary_key() && to.has_hidden_primary_key();
  }
  if (from.primary_key.size() != to.primary_key.size()) return false;
  for (size_t i = 0; i < to.primary_key.size(); ++i) {
    int src = m.source[to.primary_key[i]];
    if (src < 0 || static_cast<uint32_t>(src) != from.primary_key[i]) return false;
    const ColumnDef& a = from.columns[src];
    const ColumnDef& b = to.columns[to.primary_key[i]];
    if (a.type != b.type || a.is_unsigned != b.is_unsigned || a.nullable != b.nullable)
      return false;
    // Rounding to a smaller scale can make two keys one.
    if (a.type == ColumnType::kDecimal && (a.length != b.length || a.scale != b.scale))
      return false;
  }
  return true;
}

// Opens handles on `def`'s storage: the table being loaded (no counters: a bulk load
// numbers hidden row ids itself).
SqlStatus OpenTarget(Database* db, const TableDef& def, OpenTable* target) {
  return OpenTableStorage(db, def, target);
}

// The source table's rows in key order (locked as SourceScan says), read through its engine's
// cursor: Read() decodes the current row into row() (the old table's columns), then steps on.
template <typename Cursor>
class SourceRows {
 public:
  SourceRows(ExecContext& ctx, const OpenTable& old, Cursor& cursor, StageScope& stage)
      : ctx_(ctx), old_(old), cursor_(cursor), stage_(stage) {}
  ~SourceRows() { Publish(); }

  SqlStatus Start() {
    Status st = cursor_.Seek(all_, nullptr);
    if (!st.ok()) return FromStatus(st);
    return SqlStatus::OK();
  }
  bool Valid() { return cursor_.InRange(); }
  SqlStatus Read() {
    SQL_RETURN_IF_ERROR(ctx_.CheckCancel());
    // Every column is decoded into the row each time (key columns and the rest), so the row
    // keeps its strings' buffers from one row to the next.
    if (row_.size() != old_.def.columns.size()) row_.resize(old_.def.columns.size());
    bool present = true;
    SQL_RETURN_IF_ERROR(cursor_.Read(&row_, &present));
    key_.assign(cursor_.ref());
    if (++unpublished_ == kPublishEvery) Publish();
    Status st = cursor_.Next();
    if (!st.ok()) return FromStatus(st);
    return SqlStatus::OK();
  }
  const Row& row() const { return row_; }
  Row& mutable_row() { return row_; }  // the next Read overwrites it
  const std::string& key() const { return key_; }

 private:
  // Rows read reach the session's counters (ctx.progress, the stage's work) in batches, so
  // that the copy pays for two atomic adds every kPublishEvery rows, not per row.
  static constexpr uint64_t kPublishEvery = 256;
  void Publish() {
    if (unpublished_ == 0) return;
    if (ctx_.progress != nullptr) ctx_.progress->fetch_add(unpublished_, std::memory_order_relaxed);
    stage_.Add(unpublished_);
    unpublished_ = 0;
  }

  ExecContext& ctx_;
  const OpenTable& old_;
  Cursor& cursor_;
  StageScope& stage_;
  const KeyRange all_;  // the whole clustered index
  Row row_;
  std::string key_;
  uint64_t unpublished_ = 0;
};

// The source's row count as the copy starts, the estimate its progress is measured against:
// a MyISAM heap table's exact count; an InnoDB table's entries in its first secondary index
// (one per row, and fewer pages to walk than the clustered tree, which counts where there is
// no secondary index), delete-marked ones left out. 0 if it cannot be had (progress then
// shows 0%).
uint64_t SourceRowCount(ExecContext& ctx, const OpenTable& old) {
  if (old.def.table_locking()) {
    Result<HeapTableStats> st = old.heap.stats();
    return st.ok() ? st->rows : 0;
  }
  const Keyspace& smallest = old.indexes.empty() ? old.clustered : old.indexes.front();
  Result<KeyspaceCheck> check = ctx.db->InspectKeyspace(smallest);
  if (!check.ok()) return 0;
  return check->records - std::min(check->records, check->delete_marked);
}

StageProgress* SessionStage(ExecContext& ctx) {
  return ctx.session != nullptr ? &ctx.session->stage : nullptr;
}

// The whole source table: what SourceRows walks. With share record locks unless the session
// says alter_copy_lock_rows=OFF (the copy's transaction is REPEATABLE READ, so kNone is a
// consistent read).
ScanRequest SourceScan(const ExecContext& ctx) {
  ScanRequest request;
  request.index = kClusteredIndex;
  const bool lock_rows = ctx.session == nullptr || ctx.session->vars.alter_copy_lock_rows();
  request.lock = lock_rows ? LockMode::kShare : LockMode::kNone;
  request.fetch = RowFetch::kRow;
  return request;
}

// Copies the old table's rows, converted to `def`, into the new table's engine (ALTER,
// OPTIMIZE).
class CopyRows final : public CursorVisitor {
 public:
  CopyRows(ExecContext& ctx, const OpenTable& old, const TableDef& def,
           const ColumnMapping& mapping, TableEngine& target, StageScope& stage)
      : ctx_(ctx), old_(old), def_(def), mapping_(mapping), target_(target), stage_(stage) {}
  SqlStatus Visit(RowLockingCursor& cursor) override { return Copy(cursor); }
  SqlStatus Visit(TableLockingCursor& cursor) override { return Copy(cursor); }

  uint64_t rows() const { return rows_; }
  uint64_t max_auto() const { return max_auto_; }

 private:
  template <typename Cursor>
  SqlStatus Copy(Cursor& cursor) {
    SourceRows<Cursor> scan(ctx_, old_, cursor, stage_);
    SQL_RETURN_IF_ERROR(scan.Start());
    const RowSource next = [&](Row* row) -> SqlResult<bool> {
      if (!scan.Valid()) return false;
      SQL_RETURN_IF_ERROR(scan.Read());
      ++rows_;
      SQL_RETURN_IF_ERROR(Transform(&scan.mutable_row(), row));
      return true;
    };
    return target_.BulkLoad(next, SameKeyOrder(old_.def, def_, mapping_));
  }
  // Makes the new row from the old one (whose values it may move: the scan's next Read
  // overwrites them).
  SqlStatus Transform(Row* from, Row* row);

  ExecContext& ctx_;
  const OpenTable& old_;
  const TableDef& def_;
  const ColumnMapping& mapping_;
  TableEngine& target_;
  StageScope& stage_;
  uint64_t rows_ = 0;
  uint64_t max_auto_ = 0;
};

SqlStatus CopyRows::Transform(Row* from, Row* row) {
  const int auto_col = def_.AutoIncrementColumn();
  // An auto column added by this ALTER numbers the rows in scan order.
  const bool number_rows = auto_col >= 0 && mapping_.source[auto_col] < 0;
  for (size_t c = 0; c < def_.columns.size(); ++c) {
    const int src = mapping_.source[c];
    const ColumnDef& col = def_.columns[c];
    Value& v = (*row)[c];
    if (src >= 0) {
      // Swapped, not copied: both rows keep their string buffers for the next row.
      std::swap(v, (*from)[src]);
    } else if (number_rows && static_cast<int>(c) == auto_col) {
      v = Value::Int(static_cast<int64_t>(rows_));
    } else if (col.default_now) {  // every row the statement's time, as MySQL fills them
      v = CurrentTimestampFor(col, ctx_.now_us);
    } else {
      v = AddedColumnValue(col);
    }
    if ((mapping_.convert[c] || src < 0) && !FitsColumnUnchanged(col, v)) {
      SQL_ASSIGN_OR_RETURN(v, CoerceToColumn(col, v, rows_));
    }
  }
  const Row& r = *row;
  if (auto_col >= 0 && !r[auto_col].is_null() && r[auto_col].ToInt() > 0) {
    max_auto_ = std::max<uint64_t>(max_auto_, static_cast<uint64_t>(r[auto_col].ToInt()));
  }
  return SqlStatus::OK();
}

// Fills the new index `index` of the table from the old table's rows (CREATE INDEX).
class IndexRows final : public CursorVisitor {
 public:
  IndexRows(ExecContext& ctx, const OpenTable& old, TableEngine& target, size_t index,
            StageScope& stage)
      : ctx_(ctx), old_(old), target_(target), index_(index), stage_(stage) {}
  SqlStatus Visit(RowLockingCursor& cursor) override { return Build(cursor); }
  SqlStatus Visit(TableLockingCursor& cursor) override { return Build(cursor); }

 private:
  template <typename Cursor>
  SqlStatus Build(Cursor& cursor) {
    SourceRows<Cursor> scan(ctx_, old_, cursor, stage_);
    SQL_RETURN_IF_ERROR(scan.Start());
    const RefRowSource next = [&](const Row** row, std::string_view* ref) -> SqlResult<bool> {
      if (!scan.Valid()) return false;
      SQL_RETURN_IF_ERROR(scan.Read());
      *row = &scan.row();
      *ref = scan.key();
      return true;
    };
    return target_.BuildIndex(index_, next);
  }

  ExecContext& ctx_;
  const OpenTable& old_;
  TableEngine& target_;
  const size_t index_;
  StageScope& stage_;
};

// One rebuild's state: the keyspaces it made, its transaction, whether the catalog switched;
// Fail() undoes it all.
class Rebuild {
 public:
  Rebuild(ExecContext& ctx, const OpenTable& old, std::vector<std::string> made)
      : ctx_(ctx), old_(old), made_(std::move(made)) {}

  // Any error: roll back, switch back if needed, drop what was made.
  SqlError Fail(SqlError e) {
    if (txn_ != nullptr) (void)txn_->Rollback();
    txn_.reset();
    if (switched_) (void)ctx_.catalog->ReplaceTable(old_.def);
    (void)ctx_.catalog->DropKeyspaces(made_);
    return e;
  }
  // Opens the handles of the table `def` and begins the copy's transaction.
  SqlStatus Begin(const TableDef& def) {
    SQL_RETURN_IF_ERROR(OpenTarget(ctx_.db, def, &target_));
    const TransactionOptions options = DdlTransactionOptions(ctx_);
    auto began = ctx_.session->kv_session->Begin(options);
    if (!began.ok()) return FromStatus(began.status());
    txn_ = std::move(*began);
    isolation_ = options.isolation;
    return SqlStatus::OK();
  }
  // The engine of the old table or of the new one, in the copy's transaction.
  // A MyISAM table's engine takes its own table locks per call, as the DDL's session.
  std::unique_ptr<TableEngine> OldEngine() const {
    return OpenTableEngine(old_, txn_.get(), isolation_, Access());
  }
  std::unique_ptr<TableEngine> TargetEngine() const {
    return OpenTableEngine(target_, txn_.get(), isolation_, Access());
  }
  TableLockAccess Access() const {
    TableLockAccess access;
    access.session = ctx_.session->kv_session.get();
    access.timeout = std::chrono::seconds(ctx_.session->vars.lock_wait_timeout_s());
    return access;
  }
  // Switch, then commit (the metadata lock keeps writers out until the switch is done).
  SqlStatus SwitchAndCommit() {
    SQL_RETURN_IF_ERROR(ctx_.catalog->ReplaceTable(target_.def, txn_.get()));
    switched_ = true;
    Status cs = txn_->Commit();
    if (!cs.ok()) return FromStatus(cs);
    txn_.reset();
    return SqlStatus::OK();
  }

 private:
  ExecContext& ctx_;
  const OpenTable& old_;
  const std::vector<std::string> made_;
  OpenTable target_;
  std::unique_ptr<Transaction> txn_;
  IsolationLevel isolation_ = IsolationLevel::kRepeatableRead;
  bool switched_ = false;
};

// After the switch: a table with new rows numbers on after them.
void CarryCounters(TableCatalog* catalog, const TableDef& def, bool truncate, uint64_t rows,
                   uint64_t max_auto) {
  auto found = catalog->Find(NameOf(def));
  if (found == nullptr) return;
  LatchGuard g(found->counters->latch);
  TableCounters& c = *found->counters;
  if (truncate) {
    c.next_auto_inc = std::max<uint64_t>(def.auto_increment_start, 1);
    c.next_row_id = 1;
  } else {
    if (def.AutoIncrementColumn() >= 0) c.next_auto_inc = std::max(c.next_auto_inc, max_auto + 1);
    if (def.has_hidden_primary_key()) c.next_row_id = rows + 1;
  }
}

}  // namespace

SqlResult<uint64_t> CopyTable(ExecContext& ctx, const OpenTable& old, const TableDef& def,
                              const ColumnMapping& mapping, bool truncate) {
  TableCatalog* catalog = ctx.catalog;
  const std::vector<std::string> new_names = KeyspaceNames(def);
  SQL_RETURN_IF_ERROR(catalog->CreateStorage(def));
  Rebuild rebuild(ctx, old, new_names);
  SqlStatus st = rebuild.Begin(def);
  if (!st.ok()) return rebuild.Fail(st.error());
  StageScope stage(SessionStage(ctx), StatementStage::kNone, 0);  // TRUNCATE shows none
  uint64_t rows = 0, max_auto = 0;
  if (truncate) {
    // Wait out (1205) every transaction that holds locks on the table.
    st = rebuild.OldEngine()->LockForDdl();
    if (!st.ok()) return rebuild.Fail(st.error());
  } else {
    stage.Enter(StatementStage::kCopyToTmpTable, SourceRowCount(ctx, old));
    std::unique_ptr<TableEngine> target = rebuild.TargetEngine();
    CopyRows copy(ctx, old, def, mapping, *target, stage);
    st = rebuild.OldEngine()->Scan(SourceScan(ctx), copy);
    if (!st.ok()) return rebuild.Fail(st.error());
    rows = copy.rows();
    max_auto = copy.max_auto();
    stage.Enter(StatementStage::kRenameResultTable, 0);
  }
  st = rebuild.SwitchAndCommit();
  if (!st.ok()) return rebuild.Fail(st.error());
  CarryCounters(catalog, def, truncate, rows, max_auto);
  (void)catalog->DropKeyspaces(KeyspaceNames(old.def));  // an error leaves orphans for Open
  return rows;
}

SqlStatus BuildIndex(ExecContext& ctx, const OpenTable& old, const TableDef& def, size_t index) {
  TableCatalog* catalog = ctx.catalog;
  const IndexDef& ix = def.indexes[index];
  KeyspaceOptions ko;
  ko.compression = def.compression;
  SQL_RETURN_IF_ERROR(catalog->CreateKeyspaces({ix.keyspace}, ko, def.keyspace));
  Rebuild rebuild(ctx, old, {ix.keyspace});
  SqlStatus st = rebuild.Begin(def);
  if (!st.ok()) return rebuild.Fail(st.error());
  StageScope stage(SessionStage(ctx), StatementStage::kAlteringTable, SourceRowCount(ctx, old));
  std::unique_ptr<TableEngine> target = rebuild.TargetEngine();
  IndexRows build(ctx, old, *target, index, stage);
  st = rebuild.OldEngine()->Scan(SourceScan(ctx), build);
  if (!st.ok()) return rebuild.Fail(st.error());
  st = rebuild.SwitchAndCommit();
  if (!st.ok()) return rebuild.Fail(st.error());
  return SqlStatus::OK();
}

}  // namespace minnow::sql
