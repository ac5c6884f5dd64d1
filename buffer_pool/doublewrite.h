#pragma once
// The doublewrite buffer (InnoDB's): torn-page protection. A crash in the middle of a 16 KiB page
// write can leave the page half old, half new; its checksum then fails and redo (which changes
// byte ranges) cannot fix it. So every page write-back goes through here first:
//
//   1. the batch's page images (as BuildPageImage makes them) are written to the doublewrite
//      file P + ".dblwr" and the file is synced;
//   2. the pages are written in place in the data file, and the data file is synced before the
//      doublewrite slots are used again.
//
// At open, before redo, RepairTornPages reads every slot whose image passes its checksum and,
// for each page number, takes the copy with the highest page_lsn; when the page in the data file
// fails its checksum (or lies beyond the end of the file), it is overwritten with that copy.
// A page torn in the data file always has its copy: the copy was synced before the in-place
// write began. A torn copy in the doublewrite file is ignored: its page was not written yet.
//
// File format: kDoublewriteSlots slots of kPageSize bytes; slot i at offset i * kPageSize holds
// one page image (a compressed image is followed by zeros). No header: each image names itself
// (page_no in its header) and checks itself (its checksum).
//
// Cost: each page is written twice and each batch costs two fsyncs (doublewrite file, data
// file); the background flusher writes batches of up to kDoublewriteSlots pages, an eviction of
// a dirty page is a batch of one.
//
// Thread safety: WriteBatch calls are serialized internally.

#include <cstdint>
#include <memory>
#include <vector>

#include "buffer_pool/disk_backend.h"
#include "common/types.h"
#include "minnow/status.h"

namespace minnow {

inline constexpr size_t kDoublewriteSlots = 64;

struct TornPageRepair {
  uint64_t slots_valid = 0;      // slots holding a page image that passes its checksum
  std::vector<PageNo> repaired;  // pages overwritten from their copy
};

// Restores torn pages of `data` from `dblwr` (see above) and syncs `data` if it changed
// anything. An empty or missing doublewrite file repairs nothing. With `check_only` nothing is
// written: `repaired` lists the pages that would be (a read-only open refuses if any).
Result<TornPageRepair> RepairTornPages(DiskBackend* dblwr, DiskBackend* data,
                                       bool check_only = false);

// The doublewrite file name of database file `db_path`.
std::string DoublewritePathFor(const std::string& db_path);

}  // namespace minnow
