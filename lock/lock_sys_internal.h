#pragma once
// LockSys and TrxLocks internals (lock/ only).
//
// Latch order (lock/lock_sys.h): page latches (caller), then the registry latch (all its
// parts: deadlock detection, Shutdown, stats; one part: Register, destruction), then shard latches
// (two in shard order for moves), then leaf latches: a transaction's heap latch or its wait latch,
// never both.
//
// Lock heap: a transaction's structs are bump-allocated from chunks it mallocs: the first
// chunk is kFirstChunkBytes (1 KiB, made at the first lock, so a transaction that never locks
// has no heap), each next one an eighth of the heap so far in whole KiB, at least 1 KiB and
// at most kMaxChunkBytes (64 KiB) (NextChunkBytes). The unused tail of the last chunk is then
// under max(1 KiB, heap / 8): a doubling heap could leave half of itself unused. A chunk begins
// with a 16-byte Chunk header; heap_bytes is the sum of the chunks' malloc'd sizes (headers and
// unused tails included, as InnoDB's mem_heap_get_size counts). Structs are never freed one by
// one: ReleaseAll walks the chunks' structs to find the cells to clean, then frees the chunks.
//
// Waits: a transaction has at most one waiting request (wait_lock). wait_lock changes only
// under both the request's shard latch and the wait latch, so either latch makes it stable.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "common/latch.h"
#include "lock/lock_struct_internal.h"
#include "lock/lock_sys.h"

namespace minnow {
namespace lock_internal {

inline constexpr uint32_t kFirstChunkBytes = 1024;
inline constexpr uint32_t kMaxChunkBytes = 64 * 1024;

// The size of the chunk after those of `heap_bytes` bytes in all.
inline uint32_t NextChunkBytes(uint64_t heap_bytes) {
  const uint64_t eighth = heap_bytes / 8 / 1024 * 1024;
  return static_cast<uint32_t>(std::clamp<uint64_t>(eighth, kFirstChunkBytes, kMaxChunkBytes));
}
inline constexpr uint32_t kCellsPerShard = 256;  // record page queues
inline constexpr uint32_t kTableCellsPerShard = 16;

// Set on a struct that died because a bigger one replaced it; hash_next then points to the
// replacement (a dead struct is in no chain, so the field is free).
inline constexpr uint8_t kFlagForwarded = 1u << 3;

inline LockStruct* Follow(LockStruct* s) {
  while (s->flags & kFlagForwarded) s = s->hash_next;
  return s;
}

struct Chunk {
  Chunk* next;
  uint32_t size;  // bytes malloc'd, this header included
  uint32_t used;  // bytes used, this header included
};
static_assert(sizeof(Chunk) == 16);

enum class WaitState : uint8_t { kNone, kWaiting, kGranted, kVictim };

struct alignas(64) Shard {
  Latch latch;
  LockStruct* cells[kCellsPerShard] = {};             // GUARDED_BY(latch)
  LockStruct* table_cells[kTableCellsPerShard] = {};  // GUARDED_BY(latch)
};

// A page's or table's queue: the shard and the head of the cell chain it hashes to.
struct Cell {
  Shard* shard;
  LockStruct** head;
  uint32_t shard_index;
};

// Slot -> TrxLocks::Impl, readable without a latch (a struct's owner is alive while the struct
// is linked, and lookups of linked structs' owners happen under their shard latch).
//
// Split into kParts parts by thread (a transaction registers in its thread's part, slot =
// local slot * kParts + part), each with its own latch, so that registering and leaving take
// no latch another thread's transactions need. `latch` is all the parts' latches at once (in
// part order): holding it, nothing registers or leaves.
class Registry {
 public:
  static constexpr uint32_t kBlockSlots = 1024;
  static constexpr uint32_t kMaxBlocks = 1024;
  static constexpr uint32_t kParts = 4;

  struct alignas(64) Part {
    Latch latch;
    std::vector<uint32_t> free GUARDED_BY(latch);                           // local slots
    std::unordered_map<uint64_t, uint32_t> by_mdl_owner GUARDED_BY(latch);  // owner -> slot
    uint32_t n_slots GUARDED_BY(latch) = 0;                                 // local slots ever used
  };

  // Every part's latch, taken in part order.
  class CAPABILITY("latch") AllParts {
   public:
    explicit AllParts(Part* parts) : parts_(parts) {}
    void Acquire() ACQUIRE() NO_THREAD_SAFETY_ANALYSIS {
      for (uint32_t i = 0; i < kParts; ++i) parts_[i].latch.Acquire();
    }
    void Release() RELEASE() NO_THREAD_SAFETY_ANALYSIS {
      for (uint32_t i = kParts; i-- > 0;) parts_[i].latch.Release();
    }

   private:
    Part* parts_;
  };

  class SCOPED_CAPABILITY Guard {
   public:
    explicit Guard(AllParts& all) ACQUIRE(all) : all_(all) { all_.Acquire(); }
    ~Guard() RELEASE() { all_.Release(); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    AllParts& all_;
  };

  Registry();
  ~Registry();
  TrxLocks::Impl* Get(uint32_t slot) const {
    const auto* block = blocks_[slot / kBlockSlots].load(std::memory_order_acquire);
    return block == nullptr ? nullptr : block[slot % kBlockSlots].load(std::memory_order_acquire);
  }
  // Registers in the calling thread's part; takes that part's latch.
  uint32_t Add(TrxLocks::Impl* trx) EXCLUDES(latch);
  // The registered transaction whose metadata-lock owner is `owner`, or nullptr.
  TrxLocks::Impl* FindByMdlOwner(uint64_t owner) const REQUIRES(latch) NO_THREAD_SAFETY_ANALYSIS {
    for (const Part& p : parts_) {
      auto it = p.by_mdl_owner.find(owner);
      if (it != p.by_mdl_owner.end()) return Get(it->second);
    }
    return nullptr;
  }
  // Takes the slot's part latch.
  void Remove(uint32_t slot) EXCLUDES(latch);
  template <typename F>
  void ForEach(F&& f) const REQUIRES(latch) NO_THREAD_SAFETY_ANALYSIS {
    for (uint32_t part = 0; part < kParts; ++part) {
      for (uint32_t s = 0; s < parts_[part].n_slots; ++s) {
        if (TrxLocks::Impl* t = Get(s * kParts + part)) f(t);
      }
    }
  }

  // The wait-registry latch: serializes deadlock detection and keeps registered transactions
  // alive while it is held.
  mutable AllParts latch{parts_};

 private:
  mutable Part parts_[kParts];
  std::atomic<std::atomic<TrxLocks::Impl*>*> blocks_[kMaxBlocks];
};

// A transaction in the deadlock detector's graph: its lock state (null for one holding only
// metadata locks) and its metadata-lock owner (0 if none is attached).
struct WaitNode {
  TrxLocks::Impl* trx = nullptr;
  uint64_t mdl_owner = 0;
};
// What a node waits for now: its out-edges, and the metadata-lock request if it waits for one.
struct NodeWait {
  bool metadata = false;
  MdlWaitEdges mdl;  // metadata
  std::vector<WaitNode> to;
};

}  // namespace lock_internal

struct TrxLocks::Impl {
  using LockStruct = lock_internal::LockStruct;

  LockSys::Impl* sys = nullptr;
  TrxId trx_id = 0;
  uint32_t slot = 0;
  uint64_t mdl_owner = 0;  // Register's; immutable
  std::atomic<uint64_t> weight{0};
  // Counts of live structs (maintained by whoever changes them, under the shard latch).
  std::atomic<uint64_t> structs{0};
  std::atomic<uint64_t> record_structs{0};
  std::atomic<uint64_t> row_locks{0};  // granted record locks' bits
  std::atomic<uint64_t> heap_bytes{0};
  // 1 while the transaction waits for a record lock (its request's bit, which InnoDB's
  // lock_number_of_rows_locked counts too); written under wait_latch.
  std::atomic<uint32_t> waiting_rows{0};

  // Lock heap.
  Latch heap_latch;
  lock_internal::Chunk* first_chunk GUARDED_BY(heap_latch) = nullptr;
  lock_internal::Chunk* last_chunk GUARDED_BY(heap_latch) = nullptr;
  uint32_t next_chunk_bytes GUARDED_BY(heap_latch) = lock_internal::kFirstChunkBytes;
  void* Allocate(uint32_t bytes) REQUIRES(heap_latch);
  void FreeChunks() EXCLUDES(heap_latch);

  // Wait slot.
  Latch wait_latch;
  std::condition_variable_any wait_cv;
  lock_internal::WaitState wait_state GUARDED_BY(wait_latch) = lock_internal::WaitState::kNone;
  LockStruct* wait_lock GUARDED_BY(wait_latch) = nullptr;
  LockRow wait_row GUARDED_BY(wait_latch);
  std::chrono::steady_clock::time_point wait_start GUARDED_BY(wait_latch);
  std::chrono::system_clock::time_point wait_started_wall GUARDED_BY(wait_latch);  // for people
  bool interrupted GUARDED_BY(wait_latch) = false;  // LockSys::SetInterrupted

  // row_locks as TrxLockStats counts them (the waiting request's bit included).
  uint64_t RowLocks() const {
    return row_locks.load(std::memory_order_relaxed) + waiting_rows.load(std::memory_order_relaxed);
  }
  uint64_t Weight() const {
    return weight.load(std::memory_order_relaxed) + structs.load(std::memory_order_relaxed);
  }
};

struct LockSys::Impl {
  using LockStruct = lock_internal::LockStruct;
  using Cell = lock_internal::Cell;
  using TrxImpl = TrxLocks::Impl;

  explicit Impl(const LockSysOptions& options);

  LockSysOptions options;
  MetadataLockSys* mdl = nullptr;  // AttachMetadataLocks
  uint32_t shard_bits = 0;
  std::unique_ptr<lock_internal::Shard[]> shards;
  lock_internal::Registry registry;
  std::atomic<bool> closed{false};
  std::atomic<uint64_t> waits{0};
  std::atomic<uint64_t> waiting_now{0};
  std::atomic<uint64_t> wait_micros{0};
  std::atomic<uint64_t> max_wait_micros{0};
  std::atomic<uint64_t> timeouts{0};
  std::atomic<uint64_t> deadlocks{0};

  Cell RecordCell(PageNo page_no) const;
  Cell TableCell(uint32_t table_id) const;
  TrxImpl* Owner(const LockStruct* s) const { return registry.Get(s->owner); }

  // lock_heap.cc: structs in a cell chain. All REQUIRE the cell's shard latch.
  LockStruct* NewStruct(TrxImpl* owner, PageNo page_no, uint8_t kind, uint16_t bitmap_bytes,
                        uint8_t flags);
  static void Link(LockStruct** head, LockStruct* s);
  static void Unlink(LockStruct** head, LockStruct* s);
  void Kill(LockStruct* s);  // REQUIRES: s unlinked
  // Sets h, replacing s by a bigger bitmap struct if needed; returns the live struct and adds
  // to the owner's row_locks if s is a granted record struct.
  LockStruct* SetBit(LockStruct** head, LockStruct* s, HeapNo h);
  // Clears the (ascending) heap numbers, all in s; unlinks and kills s if it becomes empty.
  // Returns the live struct or nullptr.
  LockStruct* ClearBits(LockStruct** head, LockStruct* s, std::span<const HeapNo> sorted);
  // Clears h (in s's set) from the granted struct s, replacing s by a bitmap struct if its
  // form cannot lose h in place; s stays linked even if left empty (ReleaseRecord).
  void ClearBitKeep(LockStruct** head, LockStruct* s, HeapNo h);
  LockStruct* Replace(LockStruct** head, LockStruct* s, uint32_t max_heap_no);
  // Puts n (a new, unlinked struct of s's owner, kind and page holding at least s's set) in
  // s's place in the chain; s dies, forwarded to n. Row lock counts do not change.
  void ReplaceWith(LockStruct** head, LockStruct* s, LockStruct* n);
  // The first granted struct of `owner` on the page with `kind`, or nullptr.
  static LockStruct* FindGranted(LockStruct* head, PageNo page_no, uint32_t owner, uint8_t kind);

  // lock_sys.cc. REQUIRE the cell's shard latch.
  // `implicit`: a grant sets no bit (LockRecordImplicit).
  bool LockOne(const Cell& cell, TrxImpl* trx, PageNo page_no, HeapNo h, TrxLockMode mode,
               RecLockType type, bool implicit = false);
  size_t LockBatchAlone(const Cell& cell, TrxImpl* trx, PageNo page_no,
                        std::span<const HeapNo> heap_nos, TrxLockMode mode, RecLockType type);

  // lock_wait.cc: queues. REQUIRE the cell's shard latch.
  // True if a lock of another transaction blocks the waiting struct w (granted anywhere in
  // the queue, or waiting ahead of w); calls f(blocker) for each if f is given.
  template <typename F>
  bool ForEachBlocker(LockStruct* head, const LockStruct* w, F&& f) const;
  bool Blocked(LockStruct* head, const LockStruct* w) const;
  // Grants the waiting requests of the chain that nothing blocks any more, in queue order.
  void GrantWaiters(LockStruct** head);
  // Enqueues a waiting request of trx for heap_no (or the table: heap_no ignored).
  void EnqueueWaiting(const Cell& cell, TrxImpl* trx, PageNo page_no, HeapNo heap_no, uint8_t kind);
  // Ends trx's wait for w (if it still waits for it) in `state` and wakes it.
  void EndWait(TrxImpl* trx, const LockStruct* w, lock_internal::WaitState state);
  // Removes trx's waiting request, ending the wait in `state`; false if it no longer waits.
  // REQUIRES: no shard latch held.
  bool CancelWait(TrxImpl* trx, lock_internal::WaitState state);

  // lock_moves.cc: moves between one pair of pages.
  void MoveGroup(std::span<const RecordIdMove> moves);

  // deadlock.cc. REQUIRES: registry.latch held, no shard latch, not the metadata-lock latch.
  // On a deadlock whose victim's wait it cancelled, fills *found (if given). Returns kDeadlock
  // when the victim is `me` waiting for a record or table lock (its wait already cancelled); a
  // victim waiting for a metadata lock learns it from MetadataLockSys.
  Status CheckDeadlock(lock_internal::WaitNode me, DeadlockInfo* found, bool* any)
      REQUIRES(registry.latch);
  // The cycle as DeadlockInfo (before the victim's wait is cancelled).
  DeadlockInfo DescribeCycle(const std::vector<lock_internal::WaitNode>& cycle,
                             const std::vector<lock_internal::NodeWait>& waits, size_t victim)
      REQUIRES(registry.latch);
  std::vector<uint32_t> WaitsFor(TrxImpl* trx) REQUIRES(registry.latch);
  // A node's wait and out-edges: its record or table lock wait's (when deadlock_detect is on),
  // else its metadata-lock wait's.
  lock_internal::NodeWait WaitOf(const lock_internal::WaitNode& n) REQUIRES(registry.latch);
  lock_internal::WaitNode NodeOfOwner(uint64_t mdl_owner) const REQUIRES(registry.latch) {
    return {registry.FindByMdlOwner(mdl_owner), mdl_owner};
  }

  LockRow RowOf(const LockStruct* s, HeapNo heap_no) const;
};

template <typename F>
bool LockSys::Impl::ForEachBlocker(LockStruct* head, const LockStruct* w, F&& f) const {
  const bool table = w->is_table();
  const int h = table ? 0 : lock_internal::FirstBit(w);
  bool ahead = true;  // s is ahead of w in the queue
  bool blocked = false;
  for (LockStruct* s = head; s != nullptr; s = s->hash_next) {
    if (s == w) {
      ahead = false;
      continue;
    }
    if (s->page_no != w->page_no || s->owner == w->owner || (s->waiting() && !ahead)) continue;
    const bool conflicts = table
                               ? !TableLockCompatible(w->mode(), s->mode())
                               : lock_internal::Contains(s, static_cast<HeapNo>(h)) &&
                                     RecordLockConflicts(w->mode(), w->type(), h == kSupremumHeapNo,
                                                         s->mode(), s->type());
    if (conflicts) {
      blocked = true;
      if (!f(s)) return true;
    }
  }
  return blocked;
}

}  // namespace minnow
