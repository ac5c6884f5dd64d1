#pragma once
// The MySQL version minnow answers as: @@version, VERSION(), the handshake's server version, and
// the number executable comments are compared with (/*!80000 ... */ runs, /*!90000 ... */ not).

#include <cstdint>

namespace minnow::sql {

inline constexpr const char* kServerVersion = "8.0.36-minnow";
// MySQL's MYSQL_VERSION_ID of kServerVersion: major * 10000 + minor * 100 + patch.
inline constexpr uint32_t kServerVersionId = 80036;

}  // namespace minnow::sql
