// bench_kv's durable-commit stores (tools/bench_kv_durable.h): minnow through its public API,
// SQLite and LMDB (when meson finds them) through theirs, each with its default durable commit.
#include <fmt/format.h>
#include <sys/stat.h>

#include "minnow/db.h"
#include "tools/bench_kv_durable.h"

#if MINNOW_HAVE_LMDB
#include <lmdb.h>
#endif
#if MINNOW_HAVE_SQLITE
#include <sqlite3.h>
#endif

namespace minnow::bench {
namespace {

// The 8-byte big-endian key (byte order is numeric order).
void EncodeKey8(uint64_t k, char out[8]) {
  for (int i = 7; i >= 0; --i, k >>= 8) out[i] = static_cast<char>(k);
}

// ---- minnow: a Session per thread; flush_log_at_trx_commit = flush.

class MinnowWriter final : public DurableWriter {
 public:
  MinnowWriter(std::unique_ptr<Session> session, Keyspace ks)
      : session_(std::move(session)), ks_(std::move(ks)) {}
  Status CommitOne(uint64_t key, std::string_view value) override {
    char k[8];
    EncodeKey8(key, k);
    ASSIGN_OR_RETURN(auto txn, session_->Begin());
    RETURN_IF_ERROR(txn->Insert(ks_, std::string_view(k, 8), value));
    return txn->Commit();
  }

 private:
  std::unique_ptr<Session> session_;
  Keyspace ks_;
};

class MinnowDurable final : public DurableStore {
 public:
  Status Create(const std::string& dir, int flush) override {
    Options o;
    o.path = dir + "/durable.minnow";
    o.error_if_exists = true;
    o.flush_log_at_trx_commit = static_cast<uint8_t>(flush);
    flush_ = flush;
    ASSIGN_OR_RETURN(db_, Database::Open(o));
    RETURN_IF_ERROR(db_->CreateKeyspace("durable"));
    ASSIGN_OR_RETURN(ks_, db_->OpenKeyspace("durable"));
    return Status::OK();
  }
  Result<std::unique_ptr<DurableWriter>> NewWriter() override {
    ASSIGN_OR_RETURN(auto session, db_->NewSession());
    return std::unique_ptr<DurableWriter>(std::make_unique<MinnowWriter>(std::move(session), ks_));
  }
  bool SyncCounters(uint64_t* commits, uint64_t* syncs) const override {
    const DatabaseStats s = db_->stats();
    *commits = s.durable_commits;
    *syncs = s.log_syncs;
    return true;
  }
  Status Close() override {
    if (db_ == nullptr) return Status::OK();
    Status st = db_->Close();
    db_.reset();
    return st;
  }
  std::string Setting() const override { return fmt::format("flush_log_at_trx_commit={}", flush_); }
  std::string Analogy() const override { return {}; }

 private:
  int flush_ = 1;
  std::unique_ptr<Database> db_;
  Keyspace ks_;
};

}  // namespace

std::unique_ptr<DurableStore> NewMinnowDurable() { return std::make_unique<MinnowDurable>(); }

#if MINNOW_HAVE_SQLITE
namespace {

// ---- SQLite: a connection per thread, journal_mode=WAL, synchronous=FULL (flush=1) or NORMAL
// (flush=2's analogue); SQLite has one writer at a time, so each commit is BEGIN IMMEDIATE (take
// the write lock first, waiting in the busy handler), INSERT, COMMIT.

Status SqliteError(sqlite3* db, const char* what) {
  return Status::IOError(
      fmt::format("sqlite {}: {}", what, db != nullptr ? sqlite3_errmsg(db) : "?"));
}

Status SqliteExec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) == SQLITE_OK) return Status::OK();
  Status st = Status::IOError(fmt::format("sqlite '{}': {}", sql, err != nullptr ? err : "?"));
  sqlite3_free(err);
  return st;
}

class SqliteWriter final : public DurableWriter {
 public:
  ~SqliteWriter() override {
    for (sqlite3_stmt* s : {begin_, insert_, commit_}) sqlite3_finalize(s);
    sqlite3_close(db_);
  }

  Status Open(const std::string& path, const char* synchronous) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      return SqliteError(db_, "open");
    }
    sqlite3_busy_timeout(db_, 60'000);
    RETURN_IF_ERROR(SqliteExec(db_, synchronous));  // per connection
    for (auto [sql, stmt] : {std::pair{"BEGIN IMMEDIATE", &begin_},
                             std::pair{"INSERT INTO durable(k, v) VALUES(?1, ?2)", &insert_},
                             std::pair{"COMMIT", &commit_}}) {
      if (sqlite3_prepare_v2(db_, sql, -1, stmt, nullptr) != SQLITE_OK) {
        return SqliteError(db_, sql);
      }
    }
    return Status::OK();
  }

  Status CommitOne(uint64_t key, std::string_view value) override {
    RETURN_IF_ERROR(Step(begin_, "BEGIN IMMEDIATE"));
    sqlite3_bind_int64(insert_, 1, static_cast<sqlite3_int64>(key));
    sqlite3_bind_blob(insert_, 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    Status st = Step(insert_, "INSERT");
    if (st.ok()) st = Step(commit_, "COMMIT");
    if (!st.ok()) (void)SqliteExec(db_, "ROLLBACK");
    return st;
  }

 private:
  Status Step(sqlite3_stmt* stmt, const char* what) {
    const int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    return rc == SQLITE_DONE ? Status::OK() : SqliteError(db_, what);
  }

  sqlite3* db_ = nullptr;
  sqlite3_stmt *begin_ = nullptr, *insert_ = nullptr, *commit_ = nullptr;
};

class SqliteDurable final : public DurableStore {
 public:
  ~SqliteDurable() override { (void)Close(); }

  Status Create(const std::string& dir, int flush) override {
    path_ = dir + "/durable.sqlite";
    flush_ = flush;
    if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
      return SqliteError(db_, "open");
    }
    RETURN_IF_ERROR(SqliteExec(db_, "PRAGMA journal_mode=WAL"));  // persistent, for every conn.
    return SqliteExec(db_, "CREATE TABLE durable(k INTEGER PRIMARY KEY, v BLOB NOT NULL)");
  }
  Result<std::unique_ptr<DurableWriter>> NewWriter() override {
    auto w = std::make_unique<SqliteWriter>();
    RETURN_IF_ERROR(
        w->Open(path_, flush_ == 1 ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL"));
    return std::unique_ptr<DurableWriter>(std::move(w));
  }
  bool SyncCounters(uint64_t* /*commits*/, uint64_t* /*syncs*/) const override { return false; }
  Status Close() override {
    if (db_ == nullptr) return Status::OK();
    const int rc = sqlite3_close(db_);  // the last connection: checkpoints the WAL
    db_ = nullptr;
    return rc == SQLITE_OK ? Status::OK() : Status::IOError("sqlite close failed");
  }
  std::string Setting() const override {
    return flush_ == 1 ? "journal_mode=WAL synchronous=FULL"
                       : "journal_mode=WAL synchronous=NORMAL";
  }
  std::string Analogy() const override {
    if (flush_ == 1) return {};
    return "synchronous=NORMAL in WAL mode, the analogue, not the same guarantee: no fsync at "
           "commit, the WAL is synced only at checkpoints (not once a second); a process crash "
           "loses nothing, a power loss may lose recent commits";
  }

 private:
  std::string path_;
  int flush_ = 1;
  sqlite3* db_ = nullptr;  // holds the file open (and WAL mode set) while writers come and go
};

}  // namespace

std::unique_ptr<DurableStore> NewSqliteDurable() { return std::make_unique<SqliteDurable>(); }
#endif  // MINNOW_HAVE_SQLITE

#if MINNOW_HAVE_LMDB
namespace {

// ---- LMDB: default flags (at commit: data pages written and fdatasync'ed, then the meta page
// through an O_DSYNC descriptor). Write transactions are serialized by LMDB's writer mutex; each
// thread begins its own on the shared environment (MDB_NOTLS matters for read transactions
// only, so it is not needed).

Status LmdbCheck(int rc, const char* what) {
  if (rc == MDB_SUCCESS) return Status::OK();
  return Status::IOError(fmt::format("lmdb {}: {}", what, mdb_strerror(rc)));
}

class LmdbWriter final : public DurableWriter {
 public:
  LmdbWriter(MDB_env* env, MDB_dbi dbi) : env_(env), dbi_(dbi) {}
  Status CommitOne(uint64_t key, std::string_view value) override {
    char k[8];
    EncodeKey8(key, k);
    MDB_val kv{8, k};
    MDB_val vv{value.size(), const_cast<char*>(value.data())};
    MDB_txn* txn;
    RETURN_IF_ERROR(LmdbCheck(mdb_txn_begin(env_, nullptr, 0, &txn), "txn_begin"));
    const int rc = mdb_put(txn, dbi_, &kv, &vv, MDB_NOOVERWRITE);
    if (rc != MDB_SUCCESS) {
      mdb_txn_abort(txn);
      return LmdbCheck(rc, "put");
    }
    return LmdbCheck(mdb_txn_commit(txn), "txn_commit");
  }

 private:
  MDB_env* env_;
  MDB_dbi dbi_;
};

class LmdbDurable final : public DurableStore {
 public:
  ~LmdbDurable() override { (void)Close(); }

  Status Create(const std::string& dir, int flush) override {
    if (flush != 1) {
      return Status::NotSupported(
          "no equivalent of flush=2 (MDB_NOSYNC never syncs by itself, MDB_NOMETASYNC still "
          "syncs the data at every commit)");
    }
    const std::string path = dir + "/lmdb";
    if (::mkdir(path.c_str(), 0755) != 0) return Status::IOError("mkdir " + path);
    RETURN_IF_ERROR(LmdbCheck(mdb_env_create(&env_), "env_create"));
    RETURN_IF_ERROR(LmdbCheck(mdb_env_set_mapsize(env_, size_t{1} << 30), "set_mapsize"));
    RETURN_IF_ERROR(LmdbCheck(mdb_env_open(env_, path.c_str(), 0, 0644), "env_open"));
    MDB_txn* txn;
    RETURN_IF_ERROR(LmdbCheck(mdb_txn_begin(env_, nullptr, 0, &txn), "txn_begin"));
    RETURN_IF_ERROR(LmdbCheck(mdb_dbi_open(txn, nullptr, 0, &dbi_), "dbi_open"));
    return LmdbCheck(mdb_txn_commit(txn), "txn_commit");
  }
  Result<std::unique_ptr<DurableWriter>> NewWriter() override {
    return std::unique_ptr<DurableWriter>(std::make_unique<LmdbWriter>(env_, dbi_));
  }
  bool SyncCounters(uint64_t* /*commits*/, uint64_t* /*syncs*/) const override { return false; }
  Status Close() override {
    if (env_ != nullptr) mdb_env_close(env_);
    env_ = nullptr;
    return Status::OK();
  }
  std::string Setting() const override { return "default flags (sync at commit)"; }
  std::string Analogy() const override { return {}; }

 private:
  MDB_env* env_ = nullptr;
  MDB_dbi dbi_ = 0;
};

}  // namespace

std::unique_ptr<DurableStore> NewLmdbDurable() { return std::make_unique<LmdbDurable>(); }
#endif  // MINNOW_HAVE_LMDB

}  // namespace minnow::bench
