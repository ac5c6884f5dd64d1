#include <algorithm>
#include <random>

#include "tools/bench_kv_backend.h"

namespace minnow::bench {
namespace {

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

Dataset::Dataset(uint64_t rows, uint64_t gets, uint64_t inserts, uint64_t seed) : rows_(rows) {
  const uint64_t keys = rows + 2 * inserts;
  values_.resize(keys * kValueSize);
  uint64_t state = seed;
  static constexpr char kHex[] = "0123456789abcdef";
  for (uint64_t i = 0; i < keys; ++i) {
    char* v = values_.data() + i * kValueSize;
    for (int half = 0; half < 2; ++half) {
      uint64_t r = SplitMix64(&state);
      for (int j = 0; j < 16; ++j, r >>= 4) *v++ = kHex[r & 15];
    }
  }
  get_keys_.resize(gets);
  for (uint32_t& k : get_keys_) k = static_cast<uint32_t>(SplitMix64(&state) % rows) + 1;
  std::vector<uint32_t> fresh(2 * inserts);
  for (uint64_t i = 0; i < fresh.size(); ++i) fresh[i] = static_cast<uint32_t>(rows + 1 + i);
  std::mt19937_64 rng(seed);
  std::shuffle(fresh.begin(), fresh.end(), rng);
  insert_one_.assign(fresh.begin(), fresh.begin() + static_cast<ptrdiff_t>(inserts));
  insert_each_.assign(fresh.begin() + static_cast<ptrdiff_t>(inserts), fresh.end());
}

}  // namespace minnow::bench
