#pragma once
// Fixed-width integer coding on byte spans (LevelDB coding.h, SQLite get4byte). Page formats are
// little-endian; keys that must sort with memcmp use the big-endian "BE" forms.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace minnow {

using Bytes = std::span<std::byte>;
using ConstBytes = std::span<const std::byte>;

inline ConstBytes AsBytes(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}
inline std::string_view AsStringView(ConstBytes b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

template <typename T>
inline T LoadLE(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // x86-64 and aarch64 Linux are little-endian
  return v;
}
template <typename T>
inline void StoreLE(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

inline uint16_t Load16(const std::byte* p) { return LoadLE<uint16_t>(p); }
inline uint32_t Load32(const std::byte* p) { return LoadLE<uint32_t>(p); }
inline uint64_t Load64(const std::byte* p) { return LoadLE<uint64_t>(p); }
inline void Store16(std::byte* p, uint16_t v) { StoreLE(p, v); }
inline void Store32(std::byte* p, uint32_t v) { StoreLE(p, v); }
inline void Store64(std::byte* p, uint64_t v) { StoreLE(p, v); }

// Big-endian: memcmp order equals numeric order for unsigned values.
inline void StoreBE32(std::byte* p, uint32_t v) { StoreLE(p, __builtin_bswap32(v)); }
inline uint32_t LoadBE32(const std::byte* p) { return __builtin_bswap32(Load32(p)); }
inline void StoreBE64(std::byte* p, uint64_t v) { StoreLE(p, __builtin_bswap64(v)); }
inline uint64_t LoadBE64(const std::byte* p) { return __builtin_bswap64(Load64(p)); }

// Variable-length integers (LEB128, 1 to 10 bytes) for log records.
inline size_t PutVarint64(std::byte* dst, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    dst[n++] = std::byte((v & 0x7f) | 0x80);
    v >>= 7;
  }
  dst[n++] = std::byte(v);
  return n;
}
// Returns the number of bytes read, or 0 if `src` holds no complete varint.
inline size_t GetVarint64(ConstBytes src, uint64_t* v) {
  uint64_t result = 0;
  for (size_t i = 0; i < src.size() && i < 10; ++i) {
    uint64_t byte = std::to_integer<uint64_t>(src[i]);
    result |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *v = result;
      return i + 1;
    }
  }
  return 0;
}

}  // namespace minnow
