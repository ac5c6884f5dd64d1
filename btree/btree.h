#pragma once
// B+trees of variable-length records over the buffer pool (one tree = one index).
//
// Keys are byte strings compared with memcmp (then by length): callers encode typed keys so that
// byte order is key order. Values are byte strings up to kMaxValueSize; a record too big for its
// page keeps its value in a chain of overflow pages. A clustered tree (TreeOptions::sys_fields)
// keeps 13 hidden bytes per record, DB_TRX_ID (6) and DB_ROLL_PTR (7), that btree stores but
// never interprets. Records carry a delete mark (MVCC's "deleted, not yet purged").
//
// Every page keeps its records in a heap where each has a stable heap number (0 infimum,
// 1 supremum, user records from 2) plus a key-ordered slot directory (btree/page_format.h).
// The root page never moves: a root split copies the root's records into two new children.
//
// Concurrency: any number of threads may call any method at once. Readers couple S latches
// top-down; writers descend optimistically (S latches, X on the leaf) and restart with X-latch
// coupling from the root when the leaf must split or merge. No tree-wide latch is held for the
// length of an operation. Latch order: top-down, then left-to-right.

#include <array>
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "btree/record_move_listener.h"
#include "buffer_pool/buffer_pool.h"
#include "common/coding.h"
#include "common/types.h"
#include "minnow/status.h"

namespace minnow {

class MiniTransaction;

inline constexpr size_t kMaxKeySize = 2048;
inline constexpr size_t kMaxValueSize = 64u << 20;  // 64 MiB
inline constexpr size_t kSysFieldsSize = 13;        // DB_TRX_ID (6) + DB_ROLL_PTR (7)

struct TreeOptions {
  bool sys_fields = false;    // clustered index: 13 hidden bytes per record
  bool compress_lz4 = false;  // pages stored lz4-compressed (MySQL COMPRESSION='lz4')
};

struct CheckReport {
  uint64_t records = 0;  // user records, delete-marked included
  uint64_t delete_marked = 0;
  uint64_t leaf_pages = 0;
  uint64_t node_pages = 0;
  uint64_t overflow_pages = 0;
  uint32_t height = 0;       // 1: the root is a leaf
  double avg_leaf_fill = 0;  // used bytes / usable bytes over leaves
};

// Structure changes since the tree was opened (counted from live counters, never estimated).
struct TreeStats {
  uint64_t splits = 0;           // page splits (leaf and node)
  uint64_t merges = 0;           // pages folded into their left sibling and freed
  uint64_t redistributions = 0;  // records moved between siblings to balance them
  uint64_t root_raises = 0;      // the root's contents moved down a level (height + 1)
  uint64_t root_collapses = 0;   // a root with one child took over its contents (height - 1)
  uint64_t pessimistic = 0;      // writes that restarted with X-latch coupling from the root
};

// One record as returned by reads. `value` is complete (overflow chains are read).
struct RecordData {
  std::string value;
  std::array<std::byte, kSysFieldsSize> sys{};  // zeros unless the tree has sys fields
  bool delete_marked = false;
  RecordLocation location;  // where it was when read
};

class Cursor;

// What ReadLatched found, shown while the leaf is latched.
struct LatchedRead {
  bool found = false;
  // The record, or the one `key` would precede (the leaf's supremum when none follows on it).
  RecordLocation where;
  ConstBytes sys;  // found: the hidden fields (empty without sys fields); valid during the call
  bool delete_marked = false;
};

// What a write changes at the leaf, decided there: an Upsert is kInsert or kUpdate by whether
// the key is present.
enum class WriteChange : uint8_t {
  kInsert,      // Insert, or Upsert of an absent key: a new record
  kUpdate,      // Update, or Upsert of a present key (delete-marked or not): value replaced
  kDeleteMark,  // SetDeleteMark: the record's delete mark set (or cleared, as asked)
  kRemove,      // Remove: the record removed for good
};

// What a write is about to do, told to its WriteHook: what changes (`change`), in which tree
// (`index`), at which record (`key`, `where`), replacing what (`old`).
struct WriteNotice {
  WriteChange change = WriteChange::kInsert;
  // The tree written: its root page number, which is the index id its pages carry.
  PageNo index = kInvalidPageNo;
  // The key written (the caller's bytes: valid for the call).
  ConstBytes key;
  // The record the write replaces, delete-marks or removes (value complete); nullptr when it
  // inserts.
  const RecordData* old = nullptr;
  // `old`'s location; for an insert, the record the new one will precede: the next record on
  // the leaf, or the leaf's supremum (heap_no kSupremumHeapNo) when it goes last. This is
  // where an insert checks for gap locks (InnoDB's lock_rec_insert_check_and_lock).
  RecordLocation where;
  // The kSysFieldsSize hidden bytes the write will store (trees with sys fields, writes that
  // store a record; null otherwise). The hook may set them: the undo record's roll pointer
  // is known only once the hook has written it.
  std::byte* sys = nullptr;
  // An insert's neighbours on its leaf (kInsert only), for a unique check under the latch:
  // the keys of the records just before and after the new one's place (valid for the call).
  // Empty with `*_elsewhere` false: no record on that side in the whole tree; `*_elsewhere`
  // true: the neighbour is on the sibling leaf, not read here.
  ConstBytes before, after;
  bool before_elsewhere = false, after_elsewhere = false;
  // The write's mini-transaction. It already holds every B+tree page the write will latch;
  // the hook may change pages that come after those in the latch order (its undo page) in it,
  // and they then commit with the write as one unit of redo.
  MiniTransaction* mtr = nullptr;
};

// A write's hook: BeforeWrite is called once by the write, under the leaf's X latch, after the
// record's place is known and before the first page change. An error aborts the write, which
// then changes nothing and releases its latches (kLockWait: the caller waits for a lock and
// retries). The write may still fail after the call (no space for a split): the caller must
// accept a notice for a change that did not happen. It must not call into this tree.
// Transactions write their undo here, ahead of the change (write-ahead undo: in the notice's
// mtr, so one unit of redo with it), and check record locks; a hook that fails must not have
// changed a page in that mtr; the caller's own context (which keyspace, what the statement asked)
// travels in the hook object, so the tree knows nothing of either.
class WriteHook {
 public:
  virtual Status BeforeWrite(WriteNotice* notice) const = 0;

 protected:
  ~WriteHook() = default;
};

// A WriteHook made of a function, for callers with no state of their own to carry (rollback,
// purge, tests). The per-record write path of transactions uses its own hook class instead.
class BeforeChange final : public WriteHook {
 public:
  template <std::invocable<WriteNotice*> F>
  BeforeChange(F&& f) : fn_(std::forward<F>(f)) {}  // NOLINT(google-explicit-constructor)
  Status BeforeWrite(WriteNotice* notice) const override { return fn_(notice); }

 private:
  std::function<Status(WriteNotice* notice)> fn_;
};

class BTree {
 public:
  // Allocates an empty tree (a root leaf) in the pool's file; returns the root page number, which
  // stays the tree's identity forever. The options are kept in the root page.
  static Result<PageNo> Create(BufferPool* pool, const TreeOptions& options);

  // Opens the tree rooted at `root`. kCorruption if `root` is not a B+tree root.
  static Result<std::unique_ptr<BTree>> Open(BufferPool* pool, PageNo root,
                                             RecordMoveListener* listener = nullptr);
  ~BTree();

  PageNo root() const;
  const TreeOptions& options() const;
  TreeStats stats() const;

  // kNotFound if `key` is absent (a delete-marked record is returned, with delete_marked set).
  Result<RecordData> Get(ConstBytes key) const;
  // Like Get, into `*value` (reusing its buffer; overflow chains are read). Returns false if
  // `key` is absent (then *value is unspecified). `delete_marked`, if not null, receives the
  // record's delete mark (a delete-marked record is returned, as by Get). Allocates nothing once
  // *value has the capacity.
  Result<bool> Get(ConstBytes key, std::string* value, bool* delete_marked = nullptr) const;
  // Locking and versioned reads: finds `key` under its leaf's S latch, copies the value into
  // *value if found (overflow chains read; skipped when value is null) and calls `visit` while
  // the latch is held, so the record cannot move or change meanwhile (a lock taken in `visit`
  // covers exactly what was read). Returns whether the key was found, or `visit`'s error (the
  // latch is released before returning: on kLockWait the caller waits, then calls again).
  // `visit` must not call into this tree.
  Result<bool> ReadLatched(ConstBytes key, std::string* value,
                           const std::function<Status(const LatchedRead&)>& visit) const;
  // Inserts a new record; kDuplicateKey if the key exists (even delete-marked). In a tree with
  // sys fields, empty `sys` stores 13 zero bytes.
  // `sys` is empty or kSysFieldsSize bytes. kInvalidArgument for an empty key when the tree
  // forbids it (never: an empty key is a valid key), a key over kMaxKeySize or a value over
  // kMaxValueSize.
  Status Insert(ConstBytes key, ConstBytes value, ConstBytes sys = {},
                const WriteHook* hook = nullptr);
  // Replaces the value (and sys bytes, if given) of an existing record; clears its delete mark
  // unless `delete_marked`.
  // kNotFound if absent. In place (same heap number) when it fits the page, else delete +
  // insert with a split, reported to the listener as a move. `old` receives the previous
  // record when not null.
  // `delete_marked` stores the new version delete-marked (a rollback restoring a deleted
  // version in one step).
  Status Update(ConstBytes key, ConstBytes value, ConstBytes sys = {}, RecordData* old = nullptr,
                const WriteHook* hook = nullptr, bool delete_marked = false);
  // Insert or Update. `old` is set (and *existed = true) when the key was there.
  Status Upsert(ConstBytes key, ConstBytes value, ConstBytes sys = {}, RecordData* old = nullptr,
                bool* existed = nullptr, const WriteHook* hook = nullptr);
  // Sets or clears the delete mark (and sys bytes, if given). kNotFound if absent.
  Status SetDeleteMark(ConstBytes key, bool marked, ConstBytes sys = {},
                       const WriteHook* hook = nullptr);
  // Physically removes the record and frees its overflow pages; merges or redistributes the
  // page when it falls under a quarter full. kNotFound if absent. `old` as for Update.
  Status Remove(ConstBytes key, RecordData* old = nullptr, const WriteHook* hook = nullptr);

  // Builds the tree from records in ascending key order, filling pages to `fill_factor`
  // (0.5 .. 1.0). REQUIRES: the tree is empty; no other thread uses it meanwhile. kInvalidArgument
  // if the tree is not empty or keys are not strictly ascending. `next` returns false at the
  // end. The pages are built beside the root and the root is written last, so a load that
  // fails leaves the tree empty (the pages it had written leak until the file is rebuilt).
  // Reports nothing to the listener (no record existed before).
  struct BulkRecord {
    ConstBytes key;
    ConstBytes value;
    ConstBytes sys;
  };
  Status BulkLoad(const std::function<bool(BulkRecord*)>& next, double fill_factor = 1.0);

  // A cursor over the tree; see btree/cursor.h.
  std::unique_ptr<Cursor> NewCursor() const;

  // Verifies key order, parent keys, sibling links, heap numbers, free-space accounting, page
  // fill and overflow chains. kCorruption naming the page and what is wrong.
  Result<CheckReport> Check() const;

  // Frees every page of the tree, the root included. The BTree must not be used afterwards.
  Status Drop();

  // Opaque outside btree/ (defined in btree_internal.h); named here so the directory's helpers
  // can take it.
  struct Impl;

 private:
  explicit BTree(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  friend class Cursor;
};

}  // namespace minnow
