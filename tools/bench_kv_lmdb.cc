// bench_kv on LMDB (Debian's liblmdb-dev), built only when meson finds it (MINNOW_HAVE_LMDB).
// The environment is opened with MDB_NOSYNC (commits do not fsync, as minnow's do not with
// flush_log_at_trx_commit = 0 in these rows) and a map big enough for the data; keys compare with
// memcmp, as minnow's. The durable-commit rows open their own environment with default flags.
#if MINNOW_HAVE_LMDB

#include <fmt/format.h>
#include <lmdb.h>
#include <sys/stat.h>

#include "tools/bench_kv_backend.h"

namespace minnow::bench {
namespace {

Status Check(int rc, const char* what) {
  if (rc == MDB_SUCCESS) return Status::OK();
  return Status::IOError(fmt::format("lmdb {}: {}", what, mdb_strerror(rc)));
}

MDB_val Val(const void* p, size_t n) { return MDB_val{n, const_cast<void*>(p)}; }

class LmdbBackend final : public KvBackend {
 public:
  ~LmdbBackend() override {
    if (env_ != nullptr) mdb_env_close(env_);
  }

  Status Create(const std::string& dir) override {
    dir_ = dir + "/lmdb";
    if (::mkdir(dir_.c_str(), 0755) != 0) return Status::IOError("mkdir " + dir_);
    RETURN_IF_ERROR(Check(mdb_env_create(&env_), "env_create"));
    RETURN_IF_ERROR(Check(mdb_env_set_mapsize(env_, size_t{16} << 30), "set_mapsize"));
    RETURN_IF_ERROR(Check(mdb_env_open(env_, dir_.c_str(), MDB_NOSYNC, 0644), "env_open"));
    MDB_txn* txn;
    RETURN_IF_ERROR(Check(mdb_txn_begin(env_, nullptr, 0, &txn), "txn_begin"));
    RETURN_IF_ERROR(Check(mdb_dbi_open(txn, nullptr, 0, &dbi_), "dbi_open"));
    return Check(mdb_txn_commit(txn), "txn_commit");
  }

  Status BulkLoad(const Dataset& data) override { return Load(data, MDB_APPEND); }
  Status LoadRowByRow(const Dataset& data) override { return Load(data, 0); }

  Status Scan(uint64_t* rows, uint64_t* checksum) override {
    MDB_txn* txn;
    RETURN_IF_ERROR(Check(mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn), "txn_begin"));
    MDB_cursor* cur;
    RETURN_IF_ERROR(Check(mdb_cursor_open(txn, dbi_, &cur), "cursor_open"));
    MDB_val k, v;
    uint64_t n = 0, sum = 0;
    int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    while (rc == MDB_SUCCESS) {
      sum += static_cast<const uint8_t*>(k.mv_data)[k.mv_size - 1] +
             static_cast<const uint8_t*>(v.mv_data)[0];
      ++n;
      rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    *rows = n;
    *checksum = sum;
    return rc == MDB_NOTFOUND ? Status::OK() : Check(rc, "cursor_get");
  }

  Status GetsOneTxn(std::span<const uint32_t> keys, uint64_t* checksum) override {
    MDB_txn* txn;
    RETURN_IF_ERROR(Check(mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn), "txn_begin"));
    Status st = Gets(txn, keys, checksum);
    mdb_txn_abort(txn);
    return st;
  }

  // A read transaction per get, reused with mdb_txn_reset/renew as LMDB recommends.
  Status GetsTxnEach(std::span<const uint32_t> keys, uint64_t* checksum) override {
    MDB_txn* txn;
    RETURN_IF_ERROR(Check(mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn), "txn_begin"));
    mdb_txn_reset(txn);
    uint64_t sum = 0;
    Status st;
    for (uint32_t key : keys) {
      st = Check(mdb_txn_renew(txn), "txn_renew");
      if (st.ok()) st = Gets(txn, {&key, 1}, checksum);
      mdb_txn_reset(txn);
      if (!st.ok()) break;
      sum += *checksum;
    }
    mdb_txn_abort(txn);
    *checksum = sum;
    return st;
  }

  Status InsertsOneTxn(std::span<const uint32_t> keys, const Dataset& data) override {
    MDB_txn* txn;
    RETURN_IF_ERROR(Check(mdb_txn_begin(env_, nullptr, 0, &txn), "txn_begin"));
    for (uint32_t k : keys) {
      Status st = Put(txn, k, data, MDB_NOOVERWRITE);
      if (!st.ok()) {
        mdb_txn_abort(txn);
        return st;
      }
    }
    return Check(mdb_txn_commit(txn), "txn_commit");
  }

  Status InsertsTxnEach(std::span<const uint32_t> keys, const Dataset& data) override {
    for (uint32_t k : keys) {
      MDB_txn* txn;
      RETURN_IF_ERROR(Check(mdb_txn_begin(env_, nullptr, 0, &txn), "txn_begin"));
      Status st = Put(txn, k, data, MDB_NOOVERWRITE);
      if (!st.ok()) {
        mdb_txn_abort(txn);
        return st;
      }
      RETURN_IF_ERROR(Check(mdb_txn_commit(txn), "txn_commit"));
    }
    return Status::OK();
  }

  Status Close() override {
    mdb_env_close(env_);  // with MDB_NOSYNC, the data is in the file (page cache) already
    env_ = nullptr;
    return Status::OK();
  }

  std::vector<std::string> Files() const override {
    return {dir_ + "/data.mdb", dir_ + "/lock.mdb"};
  }

  std::string BulkLoadNote() const override {
    return "LMDB: mdb_put with MDB_APPEND (its sorted-load path) in one write txn";
  }

 private:
  Status Load(const Dataset& data, unsigned flags) {
    MDB_txn* txn;
    RETURN_IF_ERROR(Check(mdb_txn_begin(env_, nullptr, 0, &txn), "txn_begin"));
    for (uint32_t i = 1; i <= data.rows(); ++i) {
      Status st = Put(txn, i, data, flags);
      if (!st.ok()) {
        mdb_txn_abort(txn);
        return st;
      }
    }
    return Check(mdb_txn_commit(txn), "txn_commit");
  }

  Status Put(MDB_txn* txn, uint32_t i, const Dataset& data, unsigned flags) {
    char key[4];
    EncodeKey(i, key);
    MDB_val k = Val(key, 4);
    std::string_view value = data.value(i);
    MDB_val v = Val(value.data(), value.size());
    return Check(mdb_put(txn, dbi_, &k, &v, flags), "put");
  }

  Status Gets(MDB_txn* txn, std::span<const uint32_t> keys, uint64_t* checksum) {
    uint64_t sum = 0;
    char key[4];
    for (uint32_t i : keys) {
      EncodeKey(i, key);
      MDB_val k = Val(key, 4), v;
      int rc = mdb_get(txn, dbi_, &k, &v);
      if (rc == MDB_NOTFOUND) return Status::Corruption(fmt::format("lmdb: key {} not found", i));
      RETURN_IF_ERROR(Check(rc, "get"));
      sum += static_cast<const uint8_t*>(v.mv_data)[0];
    }
    *checksum = sum;
    return Status::OK();
  }

  std::string dir_;
  MDB_env* env_ = nullptr;
  MDB_dbi dbi_ = 0;
};

}  // namespace

std::unique_ptr<KvBackend> NewLmdbBackend() { return std::make_unique<LmdbBackend>(); }

}  // namespace minnow::bench

#endif  // MINNOW_HAVE_LMDB
