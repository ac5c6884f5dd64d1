#pragma once
// The open keyspaces, found by id without a latch or string hashing on the per-call path
// (Transaction::Get/Put resolve a Keyspace handle on every call; rollback and purge find the
// keyspace an undo record names). The engine's catalog adds to it; transactions only read it.
//
// Invariants:
//  (1) A KeyspaceState lives until the table is destroyed (with the Database), even after its
//      keyspace is dropped: a stale handle finds it with `dropped` set, never a freed object.
//  (2) Slot arrays only grow (capacity doubles); an old array stays allocated, and every slot
//      it has is also in the new one, so a reader holding an old array reads valid pointers.
//  (3) Ids are never reused (catalog_internal.h), so a slot, once set, always names the same
//      keyspace.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "btree/btree.h"
#include "minnow/options.h"

namespace minnow {

// What a transaction knows of a keyspace: its tree, its table (for table locks) and whether it
// was dropped.
struct KeyspaceState {
  std::string name;
  uint32_t id = 0;
  // The table whose table lock covers this keyspace: its own id for a table, the owner's id for
  // a secondary index (KeyspaceOptions::secondary_of). Table locks are taken on it.
  uint32_t table_id = 0;
  KeyspaceOptions options;  // secondary_of as created (empty after a reopen: see table_id)
  bool secondary() const { return table_id != id; }
  std::unique_ptr<BTree> tree;
  std::atomic<bool> dropped{false};
};

class KeyspaceTable {
 public:
  KeyspaceTable();

  // Any thread, no latch: the state with `id`, or nullptr.
  KeyspaceState* Find(uint32_t id) const {
    const Slots* s = current_.load(std::memory_order_acquire);
    if (id >= s->capacity) return nullptr;
    return s->slots[id].load(std::memory_order_acquire);
  }

  // Any thread, no latch: the state with `id` unless it is absent or dropped (undo and purge:
  // no handle to check).
  KeyspaceState* FindLive(uint32_t id) const {
    KeyspaceState* s = Find(id);
    return s != nullptr && !s->dropped.load(std::memory_order_acquire) ? s : nullptr;
  }

  // Takes ownership and publishes `state` under state->id. REQUIRES: callers of Add are
  // serialized (the engine's catalog latch); state->id is not yet in the table.
  KeyspaceState* Add(std::unique_ptr<KeyspaceState> state);

  // Every state ever added (dropped included), in id order. Same REQUIRES as Add.
  std::vector<KeyspaceState*> All() const;

 private:
  struct Slots {
    explicit Slots(size_t cap) : capacity(cap), slots(new std::atomic<KeyspaceState*>[cap]) {
      for (size_t i = 0; i < cap; ++i) slots[i].store(nullptr, std::memory_order_relaxed);
    }
    size_t capacity;
    std::unique_ptr<std::atomic<KeyspaceState*>[]> slots;
  };

  std::atomic<const Slots*> current_;
  std::vector<std::unique_ptr<Slots>> arrays_;          // invariant (2): all kept
  std::vector<std::unique_ptr<KeyspaceState>> states_;  // invariant (1): all kept
};

}  // namespace minnow
