#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <vector>

#include "common/coding.h"

namespace minnow {
namespace {

TEST_CASE("fixed-width little-endian round trip", "[common]") {
  std::byte buf[8];
  Store16(buf, 0xBEEF);
  CHECK(Load16(buf) == 0xBEEF);
  Store32(buf, 0xDEADBEEF);
  CHECK(Load32(buf) == 0xDEADBEEF);
  Store64(buf, 0x0123456789ABCDEFull);
  CHECK(Load64(buf) == 0x0123456789ABCDEFull);
  CHECK(std::to_integer<int>(buf[0]) == 0xEF);  // little-endian on disk
}

TEST_CASE("big-endian keys sort with memcmp", "[common]") {
  std::mt19937 rng(7);
  for (int i = 0; i < 10000; ++i) {
    uint32_t a = rng(), b = rng();
    std::byte ka[4], kb[4];
    StoreBE32(ka, a);
    StoreBE32(kb, b);
    int c = std::memcmp(ka, kb, 4);
    CHECK(((a < b) == (c < 0)));
    CHECK(LoadBE32(ka) == a);
  }
}

TEST_CASE("varints round trip and reject truncation", "[common]") {
  std::vector<uint64_t> values = {0, 1, 127, 128, 300, 1u << 20, ~0ull};
  for (uint64_t v : values) {
    std::byte buf[10];
    size_t n = PutVarint64(buf, v);
    uint64_t out = 0;
    CHECK(GetVarint64({buf, n}, &out) == n);
    CHECK(out == v);
    if (n > 1) CHECK(GetVarint64({buf, n - 1}, &out) == 0);
  }
}

}  // namespace
}  // namespace minnow
