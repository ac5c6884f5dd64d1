#include "sql_lite_front/catalog/key_order.h"

#include <algorithm>
#include <numeric>

namespace minnow::sql {

int KeyOrderRank(const TableDef& def, const IndexDef& ix) {
  if (!ix.unique) return 2;
  for (uint32_t c : ix.columns) {
    if (def.columns[c].nullable) return 1;
  }
  return 0;
}

std::vector<size_t> IndexesInKeyOrder(const TableDef& def) {
  std::vector<size_t> order(def.indexes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return KeyOrderRank(def, def.indexes[a]) < KeyOrderRank(def, def.indexes[b]);
  });
  return order;
}

}  // namespace minnow::sql
