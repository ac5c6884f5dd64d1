#pragma once
// The header every page of the database file starts with. buffer_pool owns these 32 bytes
// (checksum, page number, LSN, type, compression flags); the body belongs to the page's owner
// (btree, the file header, the free list, overflow chains, later undo).
//
//   offset size field
//   0      4    checksum     crc32c of the page as stored on disk from byte 4 on (for a page
//                            stored compressed: bytes [4, kPageHeaderSize + stored_len))
//   4      4    page_no      the page's own number: a page read from the wrong place is caught
//   8      8    page_lsn     end LSN of the last mini-transaction that changed the page
//   16     2    page_type    PageType below
//   18     2    flags        kFlagCompressLz4: store lz4-compressed; kFlagStoredCompressed: the
//                            on-disk image is compressed (set only on disk, never in a frame)
//   20     4    stored_len   on disk, compressed pages only: length of the compressed body
//   24     8    reserved     zero
//   32     ...  body
//
// The checksum and the stored_* fields are written by the pool at write-back and checked at
// read; in a frame they are stale and nobody may rely on them.

#include <cstdint>

#include "common/coding.h"
#include "common/types.h"

namespace minnow {

inline constexpr size_t kPageHeaderSize = 32;
inline constexpr size_t kPageBodySize = kPageSize - kPageHeaderSize;

enum class PageType : uint16_t {
  kUnused = 0,      // allocated by file extension but never initialized
  kFileHeader = 1,  // page 0
  kFree = 2,        // on the free list; body starts with the next free page number
  kBtreeLeaf = 3,
  kBtreeNode = 4,  // internal (non-leaf) B+tree page
  kOverflow = 5,   // part of an overflow chain of a large value
  kUndo = 6,       // undo log pages; 7: rollback segment header (mvcc/undo_page_format.h)
  kUndoRsegHeader = 7,
  kRowHeapHeader = 16,  // a table-locking engine's heap of rows: its header page
  kRowHeapData = 17,    // and its data pages (myisam/heap_page_internal.h)
};

inline constexpr uint16_t kFlagCompressLz4 = 1u << 0;
inline constexpr uint16_t kFlagStoredCompressed = 1u << 1;

namespace page_offset {
inline constexpr size_t kChecksum = 0;
inline constexpr size_t kPageNo = 4;
inline constexpr size_t kPageLsn = 8;
inline constexpr size_t kPageType = 16;
inline constexpr size_t kFlags = 18;
inline constexpr size_t kStoredLen = 20;
}  // namespace page_offset

inline PageNo HeaderPageNo(const std::byte* page) { return Load32(page + page_offset::kPageNo); }
inline Lsn HeaderPageLsn(const std::byte* page) { return Load64(page + page_offset::kPageLsn); }
inline PageType HeaderPageType(const std::byte* page) {
  return static_cast<PageType>(Load16(page + page_offset::kPageType));
}
inline uint16_t HeaderFlags(const std::byte* page) { return Load16(page + page_offset::kFlags); }

}  // namespace minnow
