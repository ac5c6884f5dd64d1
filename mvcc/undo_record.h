#pragma once
// Undo records and roll pointers (InnoDB trx0rec, trx0undo).
//
// Every change a transaction makes to a clustered record first writes an undo record that
// says how to take it back and what the record looked like before:
//   kInsert      the key did not exist: rollback removes the record (never read by MVCC: a
//                roll pointer with the insert bit means "no older version")
//   kUpdate      the record had old_value / old_delete_marked / old_trx_id / old_roll_ptr
//                (an update, or an insert over a delete-marked record)
//   kDeleteMark  the record was delete-marked; the old fields as kUpdate (the value is kept
//                whole so a version can be rebuilt from the record alone); purge removes the
//                record once no read view needs it
//   kBulkLoad    the table was empty before a sorted bulk build: rollback empties it
// Records of one transaction carry undo_no 0, 1, 2, ...: a savepoint is an undo_no.
//
// Encoding (all little-endian):
//   type:u8  undo_no:u64  table_id:u32  key_len:u32  key
//   [kUpdate, kDeleteMark:] old_trx_id:u48  old_roll_ptr:u56  old_flags:u8 (bit 0: delete mark)
//                           old_value_len:u32  old_value
//
// Roll pointer (7 bytes, DB_ROLL_PTR):
//   bit 55      insert: the version before it did not exist
//   bits 48-54  zero
//   bits 16-47  page number of the undo page where the record starts
//   bits 0-15   byte offset of the record in that page
// A roll pointer of 0 means "no undo" (records written by recovery's rollback or before MVCC).

#include <cstdint>
#include <string>

#include "common/coding.h"
#include "common/types.h"
#include "minnow/status.h"

namespace minnow {

enum class UndoType : uint8_t { kInsert = 1, kUpdate = 2, kDeleteMark = 3, kBulkLoad = 4 };

struct UndoRecord {
  UndoType type = UndoType::kInsert;
  uint64_t undo_no = 0;
  uint32_t table_id = 0;
  ConstBytes key;
  // kUpdate / kDeleteMark: the version this change replaced.
  TrxId old_trx_id = 0;
  RollPtr old_roll_ptr = 0;
  bool old_delete_marked = false;
  ConstBytes old_value;
};

inline constexpr RollPtr kRollPtrInsertBit = RollPtr{1} << 55;

inline RollPtr MakeRollPtr(bool insert, PageNo page_no, uint16_t offset) {
  return (insert ? kRollPtrInsertBit : 0) | (RollPtr{page_no} << 16) | offset;
}
inline bool RollPtrIsInsert(RollPtr p) { return (p & kRollPtrInsertBit) != 0; }
inline PageNo RollPtrPage(RollPtr p) { return static_cast<PageNo>(p >> 16); }
inline uint16_t RollPtrOffset(RollPtr p) { return static_cast<uint16_t>(p); }

// The hidden system fields of a clustered record: DB_TRX_ID (6 bytes) + DB_ROLL_PTR (7).
// The DB_TRX_ID in the first 8 bytes of the hidden fields read as one little-endian word.
inline TrxId TrxIdOfSys8(uint64_t sys8) { return sys8 & ((uint64_t{1} << 48) - 1); }
inline constexpr size_t kSysBytes = 13;
inline void EncodeSysFields(std::byte* dst, TrxId trx_id, RollPtr roll_ptr) {
  for (int i = 0; i < 6; ++i) dst[i] = static_cast<std::byte>(trx_id >> (8 * i));
  for (int i = 0; i < 7; ++i) dst[6 + i] = static_cast<std::byte>(roll_ptr >> (8 * i));
}
// REQUIRES: 8 bytes readable at `sys` (DB_ROLL_PTR follows DB_TRX_ID): one load, no loop.
inline TrxId SysTrxId(const std::byte* sys) { return TrxIdOfSys8(Load64(sys)); }
inline RollPtr SysRollPtr(const std::byte* sys) {
  RollPtr v = 0;
  for (int i = 6; i >= 0; --i) v = (v << 8) | std::to_integer<uint8_t>(sys[6 + i]);
  return v;
}

// Appends the encoding of `r` to `*out`.
void EncodeUndoRecord(const UndoRecord& r, std::string* out);
// The encoding's length, and the encoding written straight to `out` (UndoRecordSize(r) bytes:
// an undo page, with no buffer in between).
size_t UndoRecordSize(const UndoRecord& r);
void EncodeUndoRecordTo(const UndoRecord& r, std::byte* out);
// Decodes one record; the spans in `*out` point into `bytes`. kCorruption if malformed.
Status DecodeUndoRecord(ConstBytes bytes, UndoRecord* out);

}  // namespace minnow
