#include "txn/keyspace_table.h"

#include <algorithm>

namespace minnow {

KeyspaceTable::KeyspaceTable() {
  arrays_.push_back(std::make_unique<Slots>(64));
  current_.store(arrays_.back().get(), std::memory_order_release);
}

KeyspaceState* KeyspaceTable::Add(std::unique_ptr<KeyspaceState> state) {
  const uint32_t id = state->id;
  Slots* cur = arrays_.back().get();
  if (id >= cur->capacity) {
    size_t cap = cur->capacity;
    while (cap <= id) cap *= 2;
    auto bigger = std::make_unique<Slots>(cap);
    for (size_t i = 0; i < cur->capacity; ++i) {
      bigger->slots[i].store(cur->slots[i].load(std::memory_order_relaxed),
                             std::memory_order_relaxed);
    }
    arrays_.push_back(std::move(bigger));
    cur = arrays_.back().get();
    current_.store(cur, std::memory_order_release);
  }
  KeyspaceState* raw = state.get();
  states_.push_back(std::move(state));
  cur->slots[id].store(raw, std::memory_order_release);
  return raw;
}

std::vector<KeyspaceState*> KeyspaceTable::All() const {
  std::vector<KeyspaceState*> out;
  out.reserve(states_.size());
  for (const auto& s : states_) out.push_back(s.get());
  std::sort(out.begin(), out.end(),
            [](const KeyspaceState* a, const KeyspaceState* b) { return a->id < b->id; });
  return out;
}

}  // namespace minnow
