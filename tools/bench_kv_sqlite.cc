// bench_kv on SQLite (Debian's libsqlite3-dev), built only when meson finds it
// (MINNOW_HAVE_SQLITE). The table is a rowid table, `k INTEGER PRIMARY KEY` (SQLite's clustered
// B-tree, the closest thing to a clustered index), with journal_mode=WAL, synchronous=OFF (no
// fsync at commit) and a 256 MiB page cache (minnow's default pool size).
#if MINNOW_HAVE_SQLITE

#include <fmt/format.h>
#include <sqlite3.h>

#include "tools/bench_kv_backend.h"

namespace minnow::bench {
namespace {

class SqliteBackend final : public KvBackend {
 public:
  ~SqliteBackend() override { (void)Close(); }

  Status Create(const std::string& dir) override {
    path_ = dir + "/bench.sqlite";
    if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
      return Error("open");
    }
    RETURN_IF_ERROR(Exec("PRAGMA journal_mode=WAL"));
    RETURN_IF_ERROR(Exec("PRAGMA synchronous=OFF"));
    RETURN_IF_ERROR(Exec("PRAGMA cache_size=-262144"));
    RETURN_IF_ERROR(Exec("CREATE TABLE sample(k INTEGER PRIMARY KEY, v TEXT NOT NULL)"));
    RETURN_IF_ERROR(Prepare("INSERT INTO sample(k, v) VALUES(?1, ?2)", &insert_));
    RETURN_IF_ERROR(Prepare("SELECT v FROM sample WHERE k = ?1", &get_));
    RETURN_IF_ERROR(Prepare("BEGIN", &begin_));
    return Prepare("COMMIT", &commit_);
  }

  Status BulkLoad(const Dataset& data) override { return LoadRowByRow(data); }

  Status LoadRowByRow(const Dataset& data) override {
    RETURN_IF_ERROR(Step(begin_));
    for (uint32_t i = 1; i <= data.rows(); ++i) RETURN_IF_ERROR(Insert(i, data));
    return Step(commit_);
  }

  Status Scan(uint64_t* rows, uint64_t* checksum) override {
    sqlite3_stmt* scan;
    RETURN_IF_ERROR(Prepare("SELECT k, v FROM sample ORDER BY k", &scan));
    uint64_t n = 0, sum = 0;
    int rc;
    while ((rc = sqlite3_step(scan)) == SQLITE_ROW) {
      const auto k = static_cast<uint64_t>(sqlite3_column_int64(scan, 0));
      const auto* v = sqlite3_column_text(scan, 1);
      sum += (k & 0xff) + v[0];
      ++n;
    }
    sqlite3_finalize(scan);
    *rows = n;
    *checksum = sum;
    return rc == SQLITE_DONE ? Status::OK() : Error("scan");
  }

  Status GetsOneTxn(std::span<const uint32_t> keys, uint64_t* checksum) override {
    RETURN_IF_ERROR(Step(begin_));
    RETURN_IF_ERROR(Gets(keys, checksum));
    return Step(commit_);
  }

  // Autocommit: each SELECT is its own transaction.
  Status GetsTxnEach(std::span<const uint32_t> keys, uint64_t* checksum) override {
    return Gets(keys, checksum);
  }

  Status InsertsOneTxn(std::span<const uint32_t> keys, const Dataset& data) override {
    RETURN_IF_ERROR(Step(begin_));
    for (uint32_t k : keys) RETURN_IF_ERROR(Insert(k, data));
    return Step(commit_);
  }

  // Autocommit: each INSERT is its own transaction.
  Status InsertsTxnEach(std::span<const uint32_t> keys, const Dataset& data) override {
    for (uint32_t k : keys) RETURN_IF_ERROR(Insert(k, data));
    return Status::OK();
  }

  Status Close() override {
    if (db_ == nullptr) return Status::OK();
    for (sqlite3_stmt* s : {insert_, get_, begin_, commit_}) sqlite3_finalize(s);
    insert_ = get_ = begin_ = commit_ = nullptr;
    const int rc = sqlite3_close(db_);  // checkpoints the WAL into the main file
    db_ = nullptr;
    return rc == SQLITE_OK ? Status::OK() : Status::IOError("sqlite close failed");
  }

  std::vector<std::string> Files() const override {
    return {path_, path_ + "-wal", path_ + "-shm"};
  }

  std::string BulkLoadNote() const override {
    return "SQLite: INSERTs in key order in one transaction (it has no separate bulk path)";
  }

 private:
  Status Error(const char* what) const {
    return Status::IOError(
        fmt::format("sqlite {}: {}", what, db_ != nullptr ? sqlite3_errmsg(db_) : "?"));
  }
  Status Exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) == SQLITE_OK) return Status::OK();
    Status st = Status::IOError(fmt::format("sqlite '{}': {}", sql, err ? err : "?"));
    sqlite3_free(err);
    return st;
  }
  Status Prepare(const char* sql, sqlite3_stmt** stmt) {
    if (sqlite3_prepare_v2(db_, sql, -1, stmt, nullptr) == SQLITE_OK) return Status::OK();
    return Error(sql);
  }
  Status Step(sqlite3_stmt* stmt) {
    const int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? Status::OK() : Error("step");
  }
  Status Insert(uint32_t k, const Dataset& data) {
    std::string_view v = data.value(k);
    sqlite3_bind_int64(insert_, 1, k);
    sqlite3_bind_text(insert_, 2, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
    return Step(insert_);
  }
  Status Gets(std::span<const uint32_t> keys, uint64_t* checksum) {
    uint64_t sum = 0;
    for (uint32_t k : keys) {
      sqlite3_bind_int64(get_, 1, k);
      if (sqlite3_step(get_) != SQLITE_ROW) {
        sqlite3_reset(get_);
        return Status::Corruption(fmt::format("sqlite: key {} not found", k));
      }
      sum += sqlite3_column_text(get_, 0)[0];
      sqlite3_reset(get_);
    }
    *checksum = sum;
    return Status::OK();
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt *insert_ = nullptr, *get_ = nullptr, *begin_ = nullptr, *commit_ = nullptr;
};

}  // namespace

std::unique_ptr<KvBackend> NewSqliteBackend() { return std::make_unique<SqliteBackend>(); }

}  // namespace minnow::bench

#endif  // MINNOW_HAVE_SQLITE
