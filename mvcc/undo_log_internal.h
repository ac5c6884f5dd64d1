#pragma once
// mvcc/ internal: the in-memory side of the undo logs (undo_store.h has the design,
// undo_page_format.h the pages). The pages are the truth; this caches what makes an append
// cheap (the last page and its free offset, the newest record) and is rebuilt from the pages
// at recovery (LoadLog).

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
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

// How Commit / Discard end a log.
enum class EndHow {
  kNone,       // no log
  kCache,      // one page: reset and kept in its slot for reuse
  kFreeNow,    // a few pages: freed in the ending mtr, slot cleared
  kFreeAfter,  // many pages: marked committed in the ending mtr, freed after (FreeLogInSlot)
  kHistory,    // an update log with records: into the history list
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
  // Cached logs (undo_page_format.h, "Log reuse"): (first page, slot). A leaf latch.
  Latch cache_latch;
  std::vector<std::pair<PageNo, uint32_t>> cache GUARDED_BY(cache_latch);

  // ---- undo_log.cc: records in pages
  // Creates `log` (kind set by the caller) for `trx_id`: its first page and a slot.
  Status CreateLog(TrxId trx_id, UndoLogMem* log);
  // CreateLog from the cached log at `first` in `slot`.
  Status ReuseLog(TrxId trx_id, PageNo first, uint32_t slot, UndoLogMem* log);
  // The in-memory state of a log just made (or reused) at `first` in `slot`: one empty page.
  void StartLog(PageNo first, uint32_t slot, UndoLogMem* log);
  // Appends `r` (its encoding is `payload_len` bytes) after the log's newest record; sets the
  // log's top to it. A record that fits in the last page is encoded straight into it, in `mtr`
  // if given (the caller commits it), else in a mini-transaction of its own; a longer one is
  // encoded into *scratch and spills into new pages in mini-transactions of their own.
  Status AppendRecord(UndoLogMem* log, const UndoRecord& r, size_t payload_len,
                      MiniTransaction* mtr, std::string* scratch);
  // The part of AppendRecord for a record that does not fit in the last page: new pages.
  Status AppendSpill(UndoLogMem* log, ConstBytes bytes);
  // Removes the newest record (freeing pages it leaves empty).
  Status PopRecord(UndoLogMem* log);
  // Copies the payload of the record at (page_no, offset) into *payload. `prev` (optional)
  // receives its prev pointer (page kInvalidPageNo: none), `end` where it ends.
  Status ReadStored(PageNo page_no, uint16_t offset, std::string* payload, RollPtr* prev,
                    UndoRecordEnd* end) const;
  // The undo_no of the record at (page_no, offset): from its first page alone.
  Result<uint64_t> ReadUndoNo(PageNo page_no, uint16_t offset) const;

  // ---- undo_free.cc: freeing pages
  // Whether a one-page log being freed should be cached instead (room in the cache).
  bool WantCache();
  // kCache, kFreeNow or kFreeAfter for a log that needs no purge (kNone if none).
  EndHow HowToEnd(const UndoLogMem& log) {
    if (!log.exists()) return EndHow::kNone;
    if (log.pages == 1 && WantCache()) return EndHow::kCache;
    return log.pages <= kPagesPerMtr ? EndHow::kFreeNow : EndHow::kFreeAfter;
  }
  // In `mtr`, which holds `fp` (a one-page log's first page), resets the log to kCached.
  static void ResetToCached(MtrPage fp);
  // After the mtr that reset it committed: the log at `first` in `slot` is reusable.
  void AddToCache(PageNo first, uint32_t slot);
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
  std::string scratch;  // reused encoding buffer (records that spill into new pages)

  UndoLogMem& insert_log() { return logs[0]; }
  UndoLogMem& update_log() { return logs[1]; }
  // The log holding the newest record (nullptr if none); reads tops not known.
  Result<UndoLogMem*> NewestLog();
};

}  // namespace minnow
