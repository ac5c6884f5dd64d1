#pragma once
// A page's on-disk image (page_header.h has the layout): building it from a frame at write-back
// and checking and decoding it at read. Used by the pool and by tools and tests that read a
// database file directly.

#include <string>

#include "buffer_pool/page_header.h"
#include "minnow/status.h"

namespace minnow {

// The unit a compressed page must save to be stored compressed, and the hole-punch granularity.
inline constexpr size_t kFsBlockSize = 4096;

// Builds the on-disk image of `page` (a frame's bytes) as page `page_no` into `out` (kPageSize
// bytes): page number, flags, stored_len and checksum are set; a page flagged kFlagCompressLz4
// is lz4-compressed when that saves at least one kFsBlockSize block. Returns the bytes to write
// (kPageSize, or a multiple of kFsBlockSize for a compressed page: the rest of the slot is to be
// punched out) and sets *compressed.
size_t BuildPageImage(const std::byte* page, PageNo page_no, std::byte* out, bool* compressed);

// Checks the image of page `page_no` in `page` (kPageSize bytes as read from the slot) and turns
// it into frame bytes in place: verifies the checksum and page number, decompresses a
// compressed page and clears its on-disk-only fields. An all-zero page is a valid unused page.
// kCorruption names `file` and the page.
Status DecodePageImage(const std::string& file, PageNo page_no, std::byte* page);

}  // namespace minnow
