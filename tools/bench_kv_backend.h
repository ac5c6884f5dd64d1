#pragma once
// bench_kv's view of a key-value store: one object per store (a fresh file or directory),
// driven through the same workload for minnow, LMDB and SQLite. Each method runs one whole
// operation (a million gets, a load, ...) so the virtual call costs nothing measurable; the
// per-row code of each engine is its ordinary API in a plain loop.
//
// The data is W1's `sample` table reshaped as key-value pairs: key = uint32 i (1..rows) stored
// big-endian in 4 bytes (so byte order is numeric order), value = 32 hex characters from a
// deterministic PRNG (md5(rand()) lookalike).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/status.h"

namespace minnow::bench {

inline constexpr size_t kValueSize = 32;

class Dataset {
 public:
  // Values for keys 1..rows + extra_keys; get keys drawn from 1..rows; insert keys are
  // rows+1 .. rows+2*inserts shuffled, split into two disjoint halves.
  Dataset(uint64_t rows, uint64_t gets, uint64_t inserts, uint64_t seed);

  uint64_t rows() const { return rows_; }
  std::string_view value(uint32_t key) const {
    return {values_.data() + (static_cast<size_t>(key) - 1) * kValueSize, kValueSize};
  }
  const std::vector<uint32_t>& get_keys() const { return get_keys_; }
  const std::vector<uint32_t>& insert_keys_one_txn() const { return insert_one_; }
  const std::vector<uint32_t>& insert_keys_txn_each() const { return insert_each_; }

 private:
  uint64_t rows_;
  std::vector<char> values_;
  std::vector<uint32_t> get_keys_, insert_one_, insert_each_;
};

// The 4-byte big-endian key of `i`.
inline void EncodeKey(uint32_t i, char out[4]) {
  out[0] = static_cast<char>(i >> 24);
  out[1] = static_cast<char>(i >> 16);
  out[2] = static_cast<char>(i >> 8);
  out[3] = static_cast<char>(i);
}

class KvBackend {
 public:
  virtual ~KvBackend() = default;
  // Creates a fresh, empty store under `dir` (which exists and is empty of its files).
  virtual Status Create(const std::string& dir) = 0;
  // Loads keys 1..rows in ascending order in one transaction, with the engine's fastest way
  // to load sorted data into an empty table.
  virtual Status BulkLoad(const Dataset& data) = 0;
  // Loads keys 1..rows in ascending order in one transaction, one ordinary insert per row.
  virtual Status LoadRowByRow(const Dataset& data) = 0;
  // Reads every row (key and value) in key order; `rows` counts them, `checksum` mixes bytes.
  virtual Status Scan(uint64_t* rows, uint64_t* checksum) = 0;
  // Point gets of `keys` in one read transaction / in a transaction each. Every key must be
  // found (kCorruption otherwise); `checksum` mixes value bytes.
  virtual Status GetsOneTxn(std::span<const uint32_t> keys, uint64_t* checksum) = 0;
  virtual Status GetsTxnEach(std::span<const uint32_t> keys, uint64_t* checksum) = 0;
  // Inserts of new keys (values from `data`), in one transaction / in a transaction each; no
  // fsync at commit.
  virtual Status InsertsOneTxn(std::span<const uint32_t> keys, const Dataset& data) = 0;
  virtual Status InsertsTxnEach(std::span<const uint32_t> keys, const Dataset& data) = 0;
  // Closes the store (a clean close: everything is in its files afterwards).
  virtual Status Close() = 0;
  // The files that make up the store, for sizing after Close().
  virtual std::vector<std::string> Files() const = 0;
  // How this engine does the bulk load, for the table's notes.
  virtual std::string BulkLoadNote() const = 0;
};

using BackendFactory = std::unique_ptr<KvBackend> (*)();

std::unique_ptr<KvBackend> NewMinnowBackend();
#if MINNOW_HAVE_LMDB
std::unique_ptr<KvBackend> NewLmdbBackend();
#endif
#if MINNOW_HAVE_SQLITE
std::unique_ptr<KvBackend> NewSqliteBackend();
#endif

}  // namespace minnow::bench
