#pragma once
// Page 0: what the database file is. Read at open and checked before any other page is trusted.
//
//   offset size field (after the 32-byte page header)
//   32     8    magic            "MINNOWDB"
//   40     4    format_version   kFormatVersion; a newer one is refused (kNotSupported)
//   44     4    page_size        kPageSize
//   48     4    page_count       pages in the file, page 0 included
//   52     4    free_list_head   first free page (kInvalidPageNo: none); free pages chain
//                                through the first 4 body bytes
//   56     4    free_page_count
//   60     4    reserved
//   64     8    checkpoint_lsn   all redo below this is in the file (durability)
//   72     16   database_id      random at creation: a log is matched to its file by it
//   88     4*16 system_roots     root pages of system structures (slot 0: the catalog,
//                                slot 1: the rollback segment header, mvcc/undo_store.h)
// The rest of the body is zero. checkpoint_lsn is written unlogged, by checkpoints only; recovery
// reads the log from it (undo lives in undo pages, recovered by redo like any page, so nothing
// older in the log is needed).

#include <array>
#include <cstdint>

#include "buffer_pool/page_header.h"

namespace minnow {

inline constexpr char kFileMagic[8] = {'M', 'I', 'N', 'N', 'O', 'W', 'D', 'B'};
// 2: page 0 has log_scan_lsn and the file has a durable redo log.
// 3: undo logs in undo pages and the rollback segment header page (mvcc/undo_store.h); the redo
//    log holds only mini-transaction frames; page 0 no longer has log_scan_lsn (bytes 152..159
//    are zero).
// Only kFormatVersion is read: an older file is refused (kNotSupported, naming both versions),
// since this build cannot recover it (version 2 kept undo as transaction records in its log).
inline constexpr uint32_t kFormatVersion = 3;
inline constexpr size_t kSystemRootSlots = 16;
inline constexpr size_t kCatalogRootSlot = 0;

namespace file_header_offset {
inline constexpr size_t kMagic = 32;
inline constexpr size_t kFormatVersion = 40;
inline constexpr size_t kPageSizeField = 44;
inline constexpr size_t kPageCount = 48;
inline constexpr size_t kFreeListHead = 52;
inline constexpr size_t kFreePageCount = 56;
inline constexpr size_t kCheckpointLsn = 64;
inline constexpr size_t kDatabaseId = 72;
inline constexpr size_t kSystemRoots = 88;
}  // namespace file_header_offset

}  // namespace minnow
