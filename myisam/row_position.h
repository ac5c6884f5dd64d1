#pragma once
// A row's position in a RowHeap (myisam/row_heap.h) and its encoding inside index entries.
//
// The table-locking engine's indexes are ordinary btree/ B+trees whose records point at rows by
// position, MyISAM's way (its indexes hold the row's offset in the data file):
//
//   unique index      key = key columns                     value = EncodeRowPosition(pos)
//   non-unique index  key = key columns || 6-byte position   value = empty
//
// A non-unique index appends the position to the key so that equal key columns still make
// distinct B+tree keys (MyISAM orders duplicate keys by row position the same way); the suffix
// has a fixed size, so SplitRowPositionSuffix() can take it off the end again.
//
// Encoding: page number big-endian (4 bytes), then slot big-endian (2 bytes). Big-endian makes
// memcmp order equal (page, slot) order, so duplicates of one key sort by position; that order
// is deterministic but is not the heap's scan order (pages are chained in allocation order).

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/coding.h"
#include "common/types.h"
#include "minnow/status.h"

namespace minnow {

// (data page, slot in that page). Stays the same while the row lives; a deleted row's
// position becomes a hole that a later insert may take.
struct RowPosition {
  PageNo page = kInvalidPageNo;
  uint16_t slot = 0;

  bool valid() const { return page != kInvalidPageNo; }
  friend bool operator==(const RowPosition&, const RowPosition&) = default;
  friend auto operator<=>(const RowPosition&, const RowPosition&) = default;
};

inline constexpr size_t kRowPositionSize = 6;

// Writes kRowPositionSize bytes at `dst`.
inline void EncodeRowPosition(RowPosition pos, std::byte* dst) {
  StoreBE32(dst, pos.page);
  dst[4] = static_cast<std::byte>(pos.slot >> 8);
  dst[5] = static_cast<std::byte>(pos.slot & 0xff);
}

inline std::string EncodeRowPosition(RowPosition pos) {
  std::string out(kRowPositionSize, '\0');
  EncodeRowPosition(pos, reinterpret_cast<std::byte*>(out.data()));
  return out;
}

// Decodes an index value. kCorruption unless it is exactly kRowPositionSize bytes naming a
// valid page (an index entry is input read from the file).
inline Result<RowPosition> DecodeRowPosition(ConstBytes src) {
  if (src.size() != kRowPositionSize) {
    return Status::Corruption("row position: " + std::to_string(src.size()) + " bytes, expected " +
                              std::to_string(kRowPositionSize));
  }
  RowPosition pos;
  pos.page = LoadBE32(src.data());
  pos.slot = static_cast<uint16_t>((std::to_integer<uint16_t>(src[4]) << 8) |
                                   std::to_integer<uint16_t>(src[5]));
  if (pos.page == kInvalidPageNo || pos.page == 0) {
    return Status::Corruption("row position: invalid page " + std::to_string(pos.page));
  }
  return pos;
}

// Appends the position to a non-unique index key (key columns || position).
inline void AppendRowPositionSuffix(std::string* key, RowPosition pos) {
  const size_t n = key->size();
  key->resize(n + kRowPositionSize);
  EncodeRowPosition(pos, reinterpret_cast<std::byte*>(key->data() + n));
}

// A non-unique index key taken apart: the key columns and the position at its end.
struct KeyWithPosition {
  ConstBytes key;
  RowPosition pos;
};

// kCorruption if `key` is shorter than the suffix or the suffix is not a valid position.
inline Result<KeyWithPosition> SplitRowPositionSuffix(ConstBytes key) {
  if (key.size() < kRowPositionSize) {
    return Status::Corruption("index key of " + std::to_string(key.size()) +
                              " bytes has no row position suffix");
  }
  const size_t n = key.size() - kRowPositionSize;
  ASSIGN_OR_RETURN(RowPosition pos, DecodeRowPosition(key.subspan(n)));
  return KeyWithPosition{key.first(n), pos};
}

}  // namespace minnow
