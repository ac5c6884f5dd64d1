// SHOW ENGINE INNODB STATUS: InnoDB's monitor report (srv0srv.cc's srv_printf_innodb_monitor,
// lock0lock.cc's lock_print_info_*), every figure from the engine's live counts. Sections
// minnow has nothing for (BACKGROUND THREAD, INSERT BUFFER AND ADAPTIVE HASH INDEX) are left
// out rather than filled with zeros.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/status/status_views_internal.h"

namespace minnow::sql {

namespace {

void Section(std::string* out, std::string_view title) {
  const std::string rule(title.size(), '-');
  fmt::format_to(std::back_inserter(*out), "{}\n{}\n{}\n", rule, title, rule);
}

// "2 lock struct(s), heap size 1128, 1 row lock(s)[, undo log entries 3]"
std::string LockCounts(const TransactionLockInfo& locks, uint64_t undo_entries) {
  std::string s = fmt::format("{} lock struct(s), heap size {}, {} row lock(s)", locks.lock_structs,
                              locks.heap_bytes, locks.row_locks);
  if (undo_entries > 0) s += fmt::format(", undo log entries {}", undo_entries);
  return s;
}

// "MySQL thread id 7, OS thread handle 0, query id 0 localhost root updating\nUPDATE ...\n"
void ThreadLines(std::string* out, const SessionSnapshot* owner) {
  if (owner == nullptr) return;  // a transaction of the key-value API, no SQL session
  fmt::format_to(std::back_inserter(*out),
                 "MySQL thread id {}, OS thread handle 0, query id 0 localhost root{}\n", owner->id,
                 owner->query.has_value() ? " executing" : "");
  if (owner->query.has_value()) *out += *owner->query + "\n";
}

void LockLines(std::string* out, LockDescriber& describe, const DataLock& l) {
  *out += describe.MonitorLine(l) + "\n";
  if (l.is_table) return;
  fmt::format_to(std::back_inserter(*out), "Record lock, heap no {} PHYSICAL RECORD: {}\n",
                 l.heap_no, describe.LockData(l).value_or("(the record moved)"));
}

// A metadata lock in the deadlock report (InnoDB's monitor has no line for one):
// "METADATA LOCK on `test`.`t1` lock_mode X type EXCLUSIVE[ waiting]".
void MetadataLockLine(std::string* out, const MetadataLock& l) {
  const size_t dot = l.name.find('.');
  const std::string object =
      dot == std::string::npos
          ? fmt::format("`{}`", l.name)
          : fmt::format("`{}`.`{}`", l.name.substr(0, dot), l.name.substr(dot + 1));
  fmt::format_to(std::back_inserter(*out), "METADATA LOCK on {} lock_mode {} type {}{}\n", object,
                 l.mode == LockMode::kExclusive ? "X" : "S", l.type, l.pending ? " waiting" : "");
}

void Deadlock(std::string* out, const DeadlockReport& d, LockDescriber& describe,
              const std::vector<SessionSnapshot>& sessions) {
  Section(out, "LATEST DETECTED DEADLOCK");
  *out += FormatLocalTime(d.unix_time) + "\n";
  for (size_t i = 0; i < d.cycle.size(); ++i) {
    const DeadlockReport::Trx& t = d.cycle[i];
    // The report keeps no start time: no "ACTIVE n sec" here. A transaction with metadata
    // locks only (a DDL statement's, a consistent reader's) has no id.
    const std::string id = t.trx_id != 0 ? std::to_string(t.trx_id) : "(none: metadata locks only)";
    fmt::format_to(std::back_inserter(*out),
                   "*** ({}) TRANSACTION:\nTRANSACTION {}\nLOCK WAIT {}\n", i + 1, id,
                   LockCounts(t.locks, t.rows_modified));
    const SessionSnapshot* owner = t.trx_id != 0 ? SessionOfTrx(sessions, t.trx_id) : nullptr;
    if (owner == nullptr && t.mdl_owner != 0) owner = SessionOfMdlOwner(sessions, t.mdl_owner);
    if (owner != nullptr) {
      fmt::format_to(std::back_inserter(*out),
                     "MySQL thread id {}, OS thread handle 0, query id 0 localhost root\n",
                     owner->id);
    }
    fmt::format_to(std::back_inserter(*out), "\n*** ({}) HOLDS THE LOCK(S):\n", i + 1);
    for (const DataLock& l : t.holds) LockLines(out, describe, l);
    for (const MetadataLock& l : t.metadata_holds) MetadataLockLine(out, l);
    fmt::format_to(std::back_inserter(*out), "\n*** ({}) WAITING FOR THIS LOCK TO BE GRANTED:\n",
                   i + 1);
    if (t.waits_for_metadata) {
      MetadataLockLine(out, t.metadata_wait);
    } else {
      LockLines(out, describe, t.waiting_for);
    }
    *out += "\n";
  }
  if (d.victim_index < d.cycle.size()) {
    fmt::format_to(std::back_inserter(*out), "*** WE ROLL BACK TRANSACTION ({})\n",
                   d.victim_index + 1);
  }
}

void Transactions(std::string* out, const DatabaseStats& db,
                  const std::vector<TransactionInfo>& trxs,
                  const std::vector<SessionSnapshot>& sessions, LockDescriber& describe) {
  Section(out, "TRANSACTIONS");
  fmt::format_to(std::back_inserter(*out), "Trx id counter {}\n", db.trx_id_counter);
  if (db.history_list_length == 0) {
    // Nothing left to purge: every transaction below the oldest active one is purged.
    uint64_t done = db.trx_id_counter;
    for (const TransactionInfo& t : trxs) done = std::min(done, t.trx_id);
    fmt::format_to(std::back_inserter(*out),
                   "Purge done for trx's n:o < {} undo n:o < 0 state: running but idle\n", done);
  } else {
    *out += "Purge state: running\n";  // minnow does not track the purged-up-to id
  }
  fmt::format_to(std::back_inserter(*out),
                 "History list length {}\nTotal number of lock structs in row lock hash table {}\n"
                 "LIST OF TRANSACTIONS FOR EACH SESSION:\n",
                 db.history_list_length, db.record_lock_structs);
  // Only transactions with an id (they wrote or locked); InnoDB also lists the others as
  // "---TRANSACTION 4217..., not started", which minnow's engine does not enumerate.
  for (const TransactionInfo& t : trxs) {
    const SessionSnapshot* owner = SessionOfTrx(sessions, t.trx_id);
    fmt::format_to(std::back_inserter(*out), "---TRANSACTION {}, ACTIVE {} sec\n{}{}\n", t.trx_id,
                   static_cast<uint64_t>(std::floor(t.active_seconds)),
                   t.lock_wait ? "LOCK WAIT " : "", LockCounts(t.locks, t.rows_modified));
    ThreadLines(out, owner);
    if (!t.lock_wait) continue;
    const uint64_t waited = static_cast<uint64_t>(std::max<int64_t>(
        0, UnixSeconds(std::chrono::system_clock::now()) - UnixSeconds(t.wait_started)));
    fmt::format_to(std::back_inserter(*out),
                   "------- TRX HAS BEEN WAITING {} SEC FOR THIS LOCK TO BE GRANTED:\n", waited);
    LockLines(out, describe, t.waiting_for);
    *out += "------------------\n";
  }
}

void FileIo(std::string* out, const DatabaseStats& db) {
  Section(out, "FILE I/O");
  fmt::format_to(std::back_inserter(*out), "{} OS file reads, {} OS file writes, {} OS fsyncs\n",
                 db.pool_reads, db.pool_writes + db.log_writes, db.log_syncs);
}

void Log(std::string* out, const DatabaseStats& db) {
  Section(out, "LOG");
  fmt::format_to(std::back_inserter(*out),
                 "Log sequence number          {}\nLog flushed up to            {}\n"
                 "Last checkpoint at           {}\n{} log i/o's done, {} checkpoints\n",
                 db.redo_lsn, db.log_durable_lsn, db.checkpoint_lsn, db.log_writes, db.checkpoints);
}

void BufferPool(std::string* out, const DatabaseStats& db) {
  Section(out, "BUFFER POOL AND MEMORY");
  fmt::format_to(std::back_inserter(*out),
                 "Total large memory allocated {}\nBuffer pool size   {}\nFree buffers       {}\n"
                 "Database pages     {}\nOld database pages {}\nModified db pages  {}\n"
                 "Pages read {}, created {}, written {}\nPages evicted {}\n",
                 db.pool_frames * 16384, db.pool_frames, db.pool_free_frames, db.pool_pages,
                 db.pool_old_pages, db.dirty_pages, db.pool_reads, db.pages_created, db.pool_writes,
                 db.pool_evictions);
  const uint64_t gets = db.pool_hits + db.pool_misses;
  if (gets == 0) {
    *out += "No buffer pool page gets since the database was opened\n";
  } else {
    fmt::format_to(std::back_inserter(*out), "Buffer pool hit rate {} / 1000\n",
                   db.pool_hits * 1000 / gets);
  }
}

void RowOperations(std::string* out, const DatabaseStats& db, const StatusCounters& c) {
  Section(out, "ROW OPERATIONS");
  fmt::format_to(std::back_inserter(*out),
                 "{} read views open inside InnoDB\n"
                 "Number of rows inserted {}, updated {}, deleted {}, read {}\n",
                 db.read_views, c.innodb_rows_inserted, c.innodb_rows_updated,
                 c.innodb_rows_deleted, c.innodb_rows_read);
}

}  // namespace

SqlResult<std::string> InnodbStatusText(const ExecContext& ctx) {
  Result<std::vector<TransactionInfo>> trxs = ctx.db->Transactions();
  if (!trxs.ok()) return FromStatus(trxs.status());
  const DatabaseStats db = ctx.db->stats();
  const std::vector<SessionSnapshot> sessions = SnapshotSessions(ctx);
  StatusCounters counters = ctx.engine->GlobalStatus();
  if (ctx.counts != nullptr) counters.Add(*ctx.counts);
  LockDescriber describe(ctx);

  std::string out = fmt::format(
      "\n=====================================\n{} INNODB MONITOR OUTPUT\n"
      "=====================================\n",
      FormatLocalTime(UnixNow()));
  Section(&out, "SEMAPHORES");
  out += "(minnow's latches keep no wait counts)\n";
  if (std::optional<DeadlockReport> d = ctx.db->LatestDeadlock()) {
    Deadlock(&out, *d, describe, sessions);
  }
  Transactions(&out, db, *trxs, sessions, describe);
  FileIo(&out, db);
  Log(&out, db);
  BufferPool(&out, db);
  RowOperations(&out, db, counters);
  out +=
      "----------------------------\nEND OF INNODB MONITOR OUTPUT\n============================\n";
  return out;
}

}  // namespace minnow::sql
