#pragma once
// bench_kv's durable-commit rows: N threads each commit transactions of one insert of
// a fresh key (8 bytes big-endian: thread << 32 | counter, so each thread appends at its own end
// of the tree) with a 100-byte value, into a fresh, empty store in a real file under --dir,
// with the engine's commit fsync on. A fixed total of commits per row, split evenly over the
// threads, so each row does the same work on every engine; the rate is commits / wall time from
// the moment all threads are released to the last one's end.
//
// Durability settings, by row:
//   flush=1  minnow flush_log_at_trx_commit = 1 (group commit: concurrent commits share an
//            fsync); SQLite journal_mode=WAL, synchronous=FULL (the WAL is synced at every
//            commit); LMDB default flags (data pages synced, then the meta page, at every commit)
//   flush=2  minnow flush_log_at_trx_commit = 2 (write at commit, fsync once a second: survives
//            a process crash, not a power loss); SQLite synchronous=NORMAL in WAL mode, the
//            analogous "no fsync per commit" setting (synced at checkpoints only), marked as
//            analogous, not equal, in the table; LMDB none (no row: its MDB_NOSYNC has no
//            periodic sync, MDB_NOMETASYNC still syncs at every commit)

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "minnow/status.h"
#include "tools/bench_kv_table.h"

namespace minnow::bench {

inline constexpr size_t kDurableValueSize = 100;

// One thread's handle on a store: a session, a connection, or just the environment.
class DurableWriter {
 public:
  virtual ~DurableWriter() = default;
  // One transaction: inserts `key` (must be new) with `value`, then commits with the store's
  // durability setting.
  virtual Status CommitOne(uint64_t key, std::string_view value) = 0;
};

class DurableStore {
 public:
  virtual ~DurableStore() = default;
  // Creates a fresh, empty store under `dir` (an existing empty directory on a real file
  // system) with the setting of `flush` (1 or 2, minnow's meaning; see above). kNotSupported if
  // the engine has no setting for it (the message says why): the row is left out ("-").
  virtual Status Create(const std::string& dir, int flush) = 0;
  // A writer for one thread. REQUIRES: all writers are destroyed before Close().
  virtual Result<std::unique_ptr<DurableWriter>> NewWriter() = 0;
  // The engine's own counts of commits that logged a commit record and of log fsyncs, for
  // commits per fsync; false if the engine does not count them.
  virtual bool SyncCounters(uint64_t* commits, uint64_t* syncs) const = 0;
  virtual Status Close() = 0;
  // The setting Create used, for the CSV: "flush_log_at_trx_commit=1", "synchronous=FULL", ...
  virtual std::string Setting() const = 0;
  // Empty if Setting() gives the guarantee of minnow's `flush`; otherwise how it differs (the
  // row is marked "*" and this goes under the table).
  virtual std::string Analogy() const = 0;
};

using DurableFactory = std::unique_ptr<DurableStore> (*)();

std::unique_ptr<DurableStore> NewMinnowDurable();
#if MINNOW_HAVE_LMDB
std::unique_ptr<DurableStore> NewLmdbDurable();
#endif
#if MINNOW_HAVE_SQLITE
std::unique_ptr<DurableStore> NewSqliteDurable();
#endif

// Runs every durable row once on `engine`: a fresh directory per row under `base` (removed
// afterwards), `commits` commits per row. Adds the rates to `result` (and, where the engine
// counts them, a "commits per log fsync" row after each rate) with the row's setting, and
// notes for settings that are missing or only analogous.
Status RunDurableRows(DurableFactory factory, uint64_t commits, const std::string& base,
                      const std::string& engine, int run, EngineResult* result);
// The disk's cost of a commit fsync at the moment, for reading the durable rows: adds to `result`
// (minnow's: the row is engine-independent) the mean time of an fdatasync after a 512-byte
// append to a fresh file in `dir`, as a row of the durable section (`commits` as there).
Status AddFsyncProbe(const std::string& dir, uint64_t commits, EngineResult* result);
// Non-empty if `dir` is on a file system where fsync costs nothing (tmpfs): a warning.
std::string DurableDirWarning(const std::string& dir);

}  // namespace minnow::bench
