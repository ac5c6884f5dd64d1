#pragma once
// mvcc/ internal: the in-memory side of the undo logs (undo_store.h has the design,
// undo_page_format.h the pages). The pages are the truth; this caches what makes an append
// cheap (the last page and its free offset, the newest record) and is rebuilt from the pages
// at recovery (LoadLog).

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/mtr.h"
#include "common/latch.h"
#include "mvcc/undo_page_format.h"
#include "mvcc/undo_store.h"

namespace minnow {

// One undo log of a transaction, as its owner thread knows it.
struct UndoLogMem {
  UndoLogKind kind = UndoLogKind::kInsert;
  PageNo first = kInvalidPageNo;  // kInvalidPageNo: not created yet
  PageNo last = kInvalidPageNo;
  uint16_t free = 0;  // free offset in the last page
  uint32_t pages = 0;
  uint32_t slot = 0;
  PageNo top_page = kInvalidPageNo;  // the newest record; kInvalidPageNo: none
  uint16_t top_offset = 0;
  uint64_t top_undo_no = 0;
  bool top_known = true;  // top_undo_no is valid (a pop leaves it to be read on demand)
  uint64_t records = 0;

  bool exists() const { return first != kInvalidPageNo; }
  bool has_records() const { return top_page != kInvalidPageNo; }
};

// Where a stored record ends: the next record starts at `offset` if it is below `free`, else
// at the data start of `next` (if any).
struct UndoRecordEnd {
  PageNo page = kInvalidPageNo;
  uint16_t offset = 0;
  uint16_t free = 0;
  PageNo next = kInvalidPageNo;
};

struct UndoStore::Impl {
  BufferPool* pool = nullptr;
  PageNo rseg_page = kInvalidPageNo;
  std::atomic<TrxId> trx_id_bound{0};
  std::atomic<uint64_t> history_length{0};
  std::atomic<uint64_t> active_logs{0};
  std::atomic<uint64_t> undo_pages{0};
  std::atomic<uint64_t> logs_purged{0};
  Latch purge_latch;  // one purge at a time; taken before any page latch

  // ---- undo_log.cc: records in pages
  // Creates `log` (kind set by the caller) for `trx_id`: its first page and a slot.
  Status CreateLog(TrxId trx_id, UndoLogMem* log);
  // Appends `rec` (kUndoRecHeaderSize bytes left for the header, then the payload) after the
  // log's newest record; sets the log's top to it.
  Status AppendRecord(UndoLogMem* log, std::string* rec);
  // Removes the newest record (freeing pages it leaves empty).
  Status PopRecord(UndoLogMem* log);
  // Copies the payload of the record at (page_no, offset) into *payload. `prev` (optional)
  // receives its prev pointer (page kInvalidPageNo: none), `end` where it ends.
  Status ReadStored(PageNo page_no, uint16_t offset, std::string* payload, RollPtr* prev,
                    UndoRecordEnd* end) const;
  // The undo_no of the record at (page_no, offset): from its first page alone.
  Result<uint64_t> ReadUndoNo(PageNo page_no, uint16_t offset) const;

  // ---- undo_free.cc: freeing pages
  // Frees the pages after `first` (kPagesPerMtr per mtr, `first` relinked in each), setting
  // the log's state to `state` in the first of those mtrs (0: leave it).
  Status FreeAfterFirst(PageNo first, UndoLogState state);
  // Frees a log that sits in `slot`, all its pages, and clears the slot.
  Status FreeLogInSlot(PageNo first, uint32_t slot);
  // Frees a chain of undo pages no log links to any more, from `start` along `next`.
  Status FreeDetached(PageNo start);

  // ---- undo_recovery.cc
  // Rebuilds a log's in-memory state from its pages.
  Result<UndoLogMem> LoadLog(PageNo first, uint32_t slot) const;

  // TrxUndo's constructor is private to UndoStore (and so to its members).
  static std::unique_ptr<TrxUndo> MakeTrxUndo(std::unique_ptr<TrxUndo::Impl> impl) {
    return std::unique_ptr<TrxUndo>(new TrxUndo(std::move(impl)));
  }

  Status Corrupt(PageNo page_no, const std::string& what) const;
  // Checks that `page` is an undo page of the log starting at `log_first` (any log if
  // kInvalidPageNo) with a sane free offset.
  Status CheckUndoPage(const std::byte* page, PageNo page_no, PageNo log_first) const;
};

struct TrxUndo::Impl {
  UndoStore::Impl* store = nullptr;
  TrxId trx_id = 0;
  uint64_t next_undo_no = 0;
  UndoLogMem logs[2];   // [0] insert log, [1] update log
  bool ended = false;   // committed or discarded
  std::string scratch;  // reused encoding buffer

  UndoLogMem& insert_log() { return logs[0]; }
  UndoLogMem& update_log() { return logs[1]; }
  // The log holding the newest record (nullptr if none); reads tops not known.
  Result<UndoLogMem*> NewestLog();
};

}  // namespace minnow
