// Row positions as index values and as non-unique key suffixes.

#include "myisam/row_position.h"

#include <catch2/catch.hpp>
#include <string>

namespace minnow {
namespace {

TEST_CASE("row position: round trip, order, and damaged values", "[myisam]") {
  const RowPosition a{7, 3};
  const std::string enc = EncodeRowPosition(a);
  REQUIRE(enc.size() == kRowPositionSize);
  auto dec = DecodeRowPosition(AsBytes(enc));
  REQUIRE(dec.ok());
  CHECK(*dec == a);
  // Byte order is (page, slot) order, so duplicates of a key sort by position.
  const RowPosition positions[] = {{1, 0}, {1, 1}, {1, 300}, {2, 0}, {256, 0}, {0x01000000, 5}};
  for (size_t i = 1; i < std::size(positions); ++i) {
    CHECK(EncodeRowPosition(positions[i - 1]) < EncodeRowPosition(positions[i]));
    CHECK(positions[i - 1] < positions[i]);
  }
  CHECK(DecodeRowPosition(AsBytes(enc.substr(1))).status().code() == Code::kCorruption);
  CHECK(DecodeRowPosition(AsBytes(EncodeRowPosition({kInvalidPageNo, 0}))).status().code() ==
        Code::kCorruption);
  CHECK(DecodeRowPosition(AsBytes(EncodeRowPosition({0, 1}))).status().code() == Code::kCorruption);
}

TEST_CASE("row position: suffix of a non-unique index key", "[myisam]") {
  std::string k1 = "same";
  std::string k2 = "same";
  AppendRowPositionSuffix(&k1, {9, 1});
  AppendRowPositionSuffix(&k2, {9, 2});
  CHECK(k1 < k2);  // equal key columns, distinct keys ordered by position
  auto split = SplitRowPositionSuffix(AsBytes(k2));
  REQUIRE(split.ok());
  CHECK(AsStringView(split->key) == "same");
  CHECK(split->pos == RowPosition{9, 2});
  std::string empty_key;
  AppendRowPositionSuffix(&empty_key, {4, 0});
  auto e = SplitRowPositionSuffix(AsBytes(empty_key));
  REQUIRE(e.ok());
  CHECK(e->key.empty());
  CHECK(SplitRowPositionSuffix(AsBytes(std::string("abc"))).status().code() == Code::kCorruption);
}

}  // namespace
}  // namespace minnow
