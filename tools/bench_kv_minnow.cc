// bench_kv on minnow, through the public key-value API only (minnow/db.h).
#include "tools/bench_kv_minnow.h"

#include <fmt/format.h>

#include "minnow/db.h"
#include "tools/bench_kv_backend.h"

namespace minnow::bench {
namespace {

class MinnowBackend final : public KvBackend {
 public:
  Status Create(const std::string& dir) override {
    path_ = dir + "/bench.minnow";
    Options o;
    o.path = path_;
    o.error_if_exists = true;
    // The key-value rows compare engines without an fsync per commit (LMDB MDB_NOSYNC, SQLite
    // synchronous=OFF): minnow's equivalent is flush_log_at_trx_commit = 0 (the log is written
    // and synced once a second). The durable-commit rows (bench_kv_durable.cc) use 1 and 2.
    o.flush_log_at_trx_commit = 0;
    ASSIGN_OR_RETURN(db_, Database::Open(o));
    RETURN_IF_ERROR(db_->CreateKeyspace("sample"));
    ASSIGN_OR_RETURN(ks_, db_->OpenKeyspace("sample"));
    ASSIGN_OR_RETURN(session_, db_->NewSession());
    return Status::OK();
  }

  Status BulkLoad(const Dataset& data) override {
    ASSIGN_OR_RETURN(auto txn, session_->Begin());
    uint32_t i = 0;
    char key[4];
    RETURN_IF_ERROR(txn->BulkInsert(ks_, [&](std::string_view* k, std::string_view* v) {
      if (i == data.rows()) return false;
      ++i;
      EncodeKey(i, key);
      *k = std::string_view(key, 4);
      *v = data.value(i);
      return true;
    }));
    return txn->Commit();
  }

  Status LoadRowByRow(const Dataset& data) override {
    ASSIGN_OR_RETURN(auto txn, session_->Begin());
    char key[4];
    for (uint32_t i = 1; i <= data.rows(); ++i) {
      EncodeKey(i, key);
      RETURN_IF_ERROR(txn->Insert(ks_, std::string_view(key, 4), data.value(i)));
    }
    return txn->Commit();
  }

  Status Scan(uint64_t* rows, uint64_t* checksum) override {
    ASSIGN_OR_RETURN(auto txn, session_->Begin());
    RETURN_IF_ERROR(ScanKeyspace(txn.get(), ks_, {}, rows, checksum));
    return txn->Commit();
  }

  Status GetsOneTxn(std::span<const uint32_t> keys, uint64_t* checksum) override {
    ASSIGN_OR_RETURN(auto txn, session_->Begin());
    std::string value;
    char key[4];
    uint64_t sum = 0;
    for (uint32_t k : keys) {
      EncodeKey(k, key);
      ASSIGN_OR_RETURN(bool found, txn->Get(ks_, std::string_view(key, 4), &value));
      if (!found) return Status::Corruption(fmt::format("key {} not found", k));
      sum += static_cast<uint8_t>(value[0]);
    }
    *checksum = sum;
    return txn->Commit();
  }

  Status GetsTxnEach(std::span<const uint32_t> keys, uint64_t* checksum) override {
    std::string value;
    char key[4];
    uint64_t sum = 0;
    for (uint32_t k : keys) {
      ASSIGN_OR_RETURN(auto txn, session_->Begin());
      EncodeKey(k, key);
      ASSIGN_OR_RETURN(bool found, txn->Get(ks_, std::string_view(key, 4), &value));
      if (!found) return Status::Corruption(fmt::format("key {} not found", k));
      sum += static_cast<uint8_t>(value[0]);
      RETURN_IF_ERROR(txn->Commit());
    }
    *checksum = sum;
    return Status::OK();
  }

  Status InsertsOneTxn(std::span<const uint32_t> keys, const Dataset& data) override {
    ASSIGN_OR_RETURN(auto txn, session_->Begin());
    char key[4];
    for (uint32_t k : keys) {
      EncodeKey(k, key);
      RETURN_IF_ERROR(txn->Insert(ks_, std::string_view(key, 4), data.value(k)));
    }
    return txn->Commit();
  }

  Status InsertsTxnEach(std::span<const uint32_t> keys, const Dataset& data) override {
    char key[4];
    for (uint32_t k : keys) {
      ASSIGN_OR_RETURN(auto txn, session_->Begin());
      EncodeKey(k, key);
      RETURN_IF_ERROR(txn->Insert(ks_, std::string_view(key, 4), data.value(k)));
      RETURN_IF_ERROR(txn->Commit());
    }
    return Status::OK();
  }

  Status Close() override {
    session_.reset();
    Status st = db_->Close();
    db_.reset();
    return st;
  }

  std::vector<std::string> Files() const override { return {path_}; }

  std::string BulkLoadNote() const override {
    return "minnow: Transaction::BulkInsert into the empty keyspace -> BTree::BulkLoad (sorted "
           "bottom-up build, leaves 15/16 full)";
  }

 private:
  std::string path_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Session> session_;
  Keyspace ks_;
};

}  // namespace

Status ScanKeyspace(Transaction* txn, const Keyspace& ks, const ReadOptions& ro, uint64_t* rows,
                    uint64_t* checksum) {
  ASSIGN_OR_RETURN(auto it, txn->NewIterator(ks, ro));
  uint64_t n = 0, sum = 0;
  RETURN_IF_ERROR(it->SeekToFirst());
  while (it->Valid()) {
    ASSIGN_OR_RETURN(std::string_view v, it->value());
    sum += static_cast<uint8_t>(it->key().back()) + static_cast<uint8_t>(v[0]);
    ++n;
    RETURN_IF_ERROR(it->Next());
  }
  *rows = n;
  *checksum = sum;
  return Status::OK();
}

std::unique_ptr<KvBackend> NewMinnowBackend() { return std::make_unique<MinnowBackend>(); }

}  // namespace minnow::bench
