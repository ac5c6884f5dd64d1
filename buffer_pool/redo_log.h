#pragma once
// The redo log as the buffer pool sees it: a sink for mini-transaction redo and the WAL rule's
// "make the log durable up to here". Tests and ":memory:" databases keep it in memory
// (MemoryRedoLog); the durable log of log/ implements the same interface (the engine wires it,
// so buffer_pool never includes upward).
//
// Redo record format (one mini-transaction's records are appended as one unit):
//   record := type:u8  page_no:varint  payload
//   kPageBytes  payload := n:varint { offset:varint len:varint bytes[len] } * n
//   kPageImage  payload := kPageSize - kPageHeaderSize bytes (the page body) + page_type:u16
//                          + flags:u16          (whole-page image: new pages, reorganized pages)
//   kPageImageSparse  payload := gap_offset:varint gap_len:varint
//                          + the page body without [gap_offset, gap_offset + gap_len)
//                          + page_type:u16 + flags:u16
//                          (a whole-page image whose bytes in the gap are zero: the longest run
//                          of zeros, a B+tree page's free space, is not written out)
//   kPageMoves  payload := n:varint { dst:varint src:varint len:varint } * n
//                          (memmove within the page, applied in order; an mtr logs a page's
//                          moves before its kPageBytes record, and the moves read the page as
//                          the mtr found it: a slot directory shifted by one slot)
// Applying a record to a page whose page_lsn >= the record's mtr end LSN is a no-op.

#include <cstdint>
#include <functional>

#include "common/coding.h"
#include "common/types.h"
#include "minnow/status.h"

namespace minnow {

enum class RedoType : uint8_t {
  kPageBytes = 1,
  kPageImage = 2,
  kPageImageSparse = 3,
  kPageMoves = 4,
};

class RedoLog {
 public:
  virtual ~RedoLog() = default;
  // Appends one mini-transaction's records as a unit; returns its end LSN (> every earlier one).
  virtual Lsn Append(ConstBytes mtr_records) = 0;
  // The same as Append of the `len` bytes `encode` writes, but they are written in place: the
  // log passes `encode` exactly `len` bytes of its own buffer, so a group is not built first and
  // copied after. `encode` is called once, before this returns, possibly with the log's latch
  // held: it must fill all of `dst` and must not call into the log. The default builds the
  // group in a thread-local buffer and calls Append. REQUIRES: len > 0.
  virtual Lsn AppendEncoded(size_t len, const std::function<void(Bytes dst)>& encode);
  // WAL rule: returns once everything up to `lsn` is durable (or an error: then no page with a
  // larger page_lsn may be written).
  virtual Status FlushUpTo(Lsn lsn) = 0;
  // Everything up to `lsn` is reflected in the data file (and page 0 records it as the
  // checkpoint LSN, where recovery starts reading the log): the log may drop what lies below.
  virtual void Checkpoint(Lsn lsn) = 0;
  // LSN of the next Append's start.
  virtual Lsn current_lsn() const = 0;
  // Bytes of log kept since the last checkpoint: when this passes the capacity, the pool
  // flushes dirty pages and checkpoints (InnoDB's log_free_check).
  virtual uint64_t bytes_since_checkpoint() const = 0;
};

// Applies one mini-transaction's record stream (as passed to Append) whose end LSN is
// `end_lsn`; used by recovery and by tests that replay the log. `page_for(page_no)` returns the
// page's bytes to change (kPageSize, frame format: uncompressed), or nullptr to skip that page.
// A page whose page_lsn >= end_lsn is left alone; every changed page gets page_lsn = end_lsn.
// The stream is validated first: kCorruption on a malformed stream, and then nothing changes.
Status ApplyRedo(ConstBytes mtr_records, Lsn end_lsn,
                 const std::function<Result<std::byte*>(PageNo)>& page_for);

}  // namespace minnow
