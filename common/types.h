#pragma once
// Identifiers shared by every layer, named as InnoDB names them.

#include <cstdint>
#include <limits>

namespace minnow {

using PageNo = uint32_t;    // a page's number in the database file; page 0 describes the file
using Lsn = uint64_t;       // log sequence number: byte position in the redo stream
using TrxId = uint64_t;     // transaction id (6 bytes on a record, as InnoDB's DB_TRX_ID)
using RollPtr = uint64_t;   // undo record address (7 bytes on a record, as InnoDB's DB_ROLL_PTR)
using HeapNo = uint16_t;    // a record's stable number within its page (0 infimum, 1 supremum)
using SpaceId = uint32_t;   // one B+tree (index) in the file; minnow keeps all in one file

inline constexpr PageNo kInvalidPageNo = std::numeric_limits<PageNo>::max();
inline constexpr size_t kPageSize = 16 * 1024;
inline constexpr HeapNo kInfimumHeapNo = 0;
inline constexpr HeapNo kSupremumHeapNo = 1;
inline constexpr HeapNo kFirstUserHeapNo = 2;

}  // namespace minnow
