#pragma once
// CRC-32C (Castagnoli), the checksum of pages and log records. Uses the SSE4.2 instruction when
// the CPU has it, a table otherwise; both give the same value.

#include <cstdint>

#include "common/coding.h"

namespace minnow::crc32c {

// Extends `crc` (0 for a new checksum) with `data`.
uint32_t Extend(uint32_t crc, ConstBytes data);
inline uint32_t Value(ConstBytes data) { return Extend(0, data); }

}  // namespace minnow::crc32c
