#pragma once
// Transaction records: the kTrx frames of the redo log (txn/durable_redo_log.h). They carry what
// recovery needs to finish or undo a transaction the crash interrupted, until undo lives in undo
// pages (issue #4): a transaction's undo records are logged *before* the change they undo
// (btree::BeforeChange), so whenever a change is durable its undo record is too.
//
//   record := type:u8  trx:varint  [ keyspace:varint  key_len:varint key  value_len:varint value ]
//
//   kUndoInserted     the key was absent: recovery removes it         (keyspace, key)
//   kUndoOverwritten  the key held `value`: recovery puts it back      (keyspace, key, value)
//   kUndoBulkLoaded   the keyspace was empty: recovery empties it      (keyspace)
//   kCommit           the transaction committed
//   kRollbackDone     the transaction was rolled back completely
//
// trx = 0 marks a transaction's first record: its id is then that frame's start LSN, which is
// unique and grows across restarts. Later records carry the id.
//
// Each undo record is a pre-image: "the key was like this before". Applying a transaction's
// undo records newest first restores every key to its state before the transaction, even when
// some were applied already (a crash during a rollback) or logged for a change that then
// failed: so recovery may simply apply all of them again.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/coding.h"
#include "common/types.h"
#include "minnow/status.h"

namespace minnow {

enum class TrxRecordType : uint8_t {
  kUndoInserted = 1,
  kUndoOverwritten = 2,
  kUndoBulkLoaded = 3,
  kCommit = 4,
  kRollbackDone = 5,
};

struct TrxRecord {
  TrxRecordType type = TrxRecordType::kCommit;
  TrxId trx = 0;  // 0: this record begins the transaction
  uint32_t keyspace_id = 0;
  std::string_view key;
  std::string_view value;

  bool is_undo() const { return type <= TrxRecordType::kUndoBulkLoaded; }
};

// Encodes `r` into `out` (replacing its contents; the buffer is reused).
void EncodeTrxRecord(const TrxRecord& r, std::string* out);
// Decodes a payload; key/value point into `payload`. kCorruption if malformed.
Result<TrxRecord> DecodeTrxRecord(ConstBytes payload);

}  // namespace minnow
