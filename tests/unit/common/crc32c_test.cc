#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/crc32c.h"

namespace minnow {
namespace {

TEST_CASE("crc32c matches the standard check values", "[common]") {
  // RFC 3720 (iSCSI) B.4 and the usual "123456789" check value.
  CHECK(crc32c::Value(AsBytes("123456789")) == 0xE3069283u);
  std::vector<std::byte> zeros(32, std::byte{0});
  CHECK(crc32c::Value(zeros) == 0x8A9136AAu);
  std::vector<std::byte> ones(32, std::byte{0xff});
  CHECK(crc32c::Value(ones) == 0x62A8AB43u);
}

TEST_CASE("crc32c extends incrementally", "[common]") {
  std::string s = "the quick brown fox jumps over the lazy dog, twice over";
  uint32_t whole = crc32c::Value(AsBytes(s));
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    uint32_t part = crc32c::Extend(crc32c::Value(AsBytes(s.substr(0, cut))), AsBytes(s.substr(cut)));
    CHECK(part == whole);
  }
}

}  // namespace
}  // namespace minnow
