#pragma once
// On-page formats of the undo logs (undo_store.h has the design; InnoDB trx0rseg / trx0undo).
// All integers little-endian; offsets are from the start of the page (the 32-byte page header
// of buffer_pool/page_header.h comes first).
//
// Rollback segment header page (PageType::kUndoRsegHeader; page 0's system root kRsegRootSlot)
//   offset size field
//   32     4    magic            kRsegMagic ("RSEG")
//   36     4    slot_count       kRsegSlots
//   40     8    trx_id_bound     every transaction id handed out is below it
//   48     8    history_length   committed update logs waiting for purge
//   56     4    history_first    oldest log of the history list (kInvalidPageNo: empty)
//   60     4    history_last     newest
//   64     4*N  slots            first page of an undo log in use, kInvalidPageNo if free
// The history list is singly linked from oldest to newest through each log's history_next. It
// is in commit order (the order of the commit mini-transactions), which is trx_no order
// except where two commits race; purge looks only at the head and stops when the head is not
// below its limit, so a log is never purged early, at worst a little late.
//
// Undo page (PageType::kUndo): every page of a log starts with
//   32     4    log_first        the log's first page (a page names the log it belongs to)
//   36     4    prev             previous page of the log (kInvalidPageNo for the first)
//   40     4    next             next page (kInvalidPageNo for the last)
//   44     2    free             end of the bytes in use in this page
//   46     2    last_rec         offset of the last record that starts in this page, 0: none
//   48          data             (a non-first page)
// The first page of a log also has the log header:
//   48     1    kind             UndoLogKind
//   49     1    state            UndoLogState
//   50     2    reserved
//   52     4    slot             its slot in the rollback segment header
//   56     8    trx_id
//   64     8    trx_no           commit number (kCommitted), else 0
//   72     4    last_page        the log's last page
//   76     4    page_count       pages in the log
//   80     4    history_next     next (newer) log in the history list, kInvalidPageNo: none
//   84     4    reserved
//   88          data             (the first page)
//
// Stored record: a byte stream that starts in one page and may continue at the data start of
// the following pages (a 64 MiB old value spans thousands of pages):
//   0      4    payload_len      length of the EncodeUndoRecord bytes
//   4      4    prev_page        the log's previous record (kInvalidPageNo: none)
//   8      2    prev_offset
//   10          payload
// A record starts in a page only if at least kMinRecordStart bytes are left there, so its
// header and its undo_no (payload bytes 1-8) can be read from its first page alone; otherwise
// it starts at the data start of a new page and the old page's free stays where it was. The
// records of a log are therefore found
//   newest first: the top is the last_rec of the last page that has one; then prev pointers;
//   oldest first: from the first page's data start, each record right after the previous one,
//                 moving to the next page's data start where a page's free is reached.
// The roll pointer of a record is (page, offset) of its first byte (undo_record.h).
//
// Invariants:
//   (1) the pages of a log are those reached from its first page through `next`; each names
//       the log in log_first; first.last_page is the last, first.page_count their number;
//   (2) records start at increasing positions in that order and carry increasing undo_no;
//   (3) a slot names a log whose header names that slot; a log is in a slot (active, or a
//       committed insert log not yet freed) or in the history list, never both.
// An append that needs new pages writes them before it links them to the log (extra pages
// in mini-transactions of their own for a record of more than kPagesPerMtr pages), so a crash
// never leaves a half-written record reachable; at worst unlinked pages leak. Likewise a pop
// that frees more than kPagesPerMtr pages unlinks them first and frees them after (a crash in
// between leaks them), as the buffer pool leaks a page freed by a crashed mtr.

#include <cstddef>
#include <cstdint>

#include "buffer_pool/page_header.h"

namespace minnow {

inline constexpr uint32_t kRsegMagic = 0x47455352;  // "RSEG"
inline constexpr size_t kRsegSlots = 1024;

enum class UndoLogKind : uint8_t { kInsert = 1, kUpdate = 2 };
enum class UndoLogState : uint8_t {
  kActive = 1,     // its transaction has not committed (recovery rolls it back)
  kCommitted = 2,  // insert log: to be freed; update log: in the history list
  kPurging = 3,    // update log whose records purge has processed; its pages are being freed
  kCached = 4,     // a free one-page log kept in its slot for reuse (no records)
};

namespace rseg_offset {
inline constexpr size_t kMagic = 32;
inline constexpr size_t kSlotCount = 36;
inline constexpr size_t kTrxIdBound = 40;
inline constexpr size_t kHistoryLength = 48;
inline constexpr size_t kHistoryFirst = 56;
inline constexpr size_t kHistoryLast = 60;
inline constexpr size_t kSlots = 64;
}  // namespace rseg_offset
static_assert(rseg_offset::kSlots + 4 * kRsegSlots <= kPageSize);

namespace undo_page_offset {
inline constexpr size_t kLogFirst = 32;
inline constexpr size_t kPrev = 36;
inline constexpr size_t kNext = 40;
inline constexpr size_t kFree = 44;
inline constexpr size_t kLastRec = 46;
inline constexpr size_t kData = 48;
}  // namespace undo_page_offset

namespace undo_log_offset {
inline constexpr size_t kKind = 48;
inline constexpr size_t kState = 49;
inline constexpr size_t kSlot = 52;
inline constexpr size_t kTrxId = 56;
inline constexpr size_t kTrxNo = 64;
inline constexpr size_t kLastPage = 72;
inline constexpr size_t kPageCount = 76;
inline constexpr size_t kHistoryNext = 80;
inline constexpr size_t kData = 88;
}  // namespace undo_log_offset

namespace undo_rec_offset {
inline constexpr size_t kPayloadLen = 0;
inline constexpr size_t kPrevPage = 4;
inline constexpr size_t kPrevOffset = 8;
inline constexpr size_t kPayload = 10;
}  // namespace undo_rec_offset

inline constexpr size_t kUndoRecHeaderSize = undo_rec_offset::kPayload;
// Header plus type and undo_no: the part of a record that is always in its first page.
inline constexpr size_t kMinRecordStart = kUndoRecHeaderSize + 9;
// Largest payload: a 64 MiB old value, a key of at most 2 KiB and the fixed fields.
inline constexpr size_t kMaxUndoPayload = (size_t{64} << 20) + 4096;
// Log reuse (InnoDB's TRX_UNDO_CACHED): a one-page log that commit or discard would free is
// instead reset in place (state kCached, free at the data start) and keeps its slot, up to
// kMaxCachedLogs of them; the next new log takes one. A new page costs a page image of redo
// (16 KiB), a reused one a few dozen bytes.
inline constexpr size_t kMaxCachedLogs = 128;
// Pages one mini-transaction latches at most when it allocates or frees many.
inline constexpr size_t kPagesPerMtr = 8;

// Data start of an undo page: after the log header in a log's first page.
inline constexpr size_t UndoDataStart(bool first_page) {
  return first_page ? undo_log_offset::kData : undo_page_offset::kData;
}

}  // namespace minnow
