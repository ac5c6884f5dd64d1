#pragma once
// The SHA-2 digests (FIPS 180-4) SHA2(s, bits) computes: SHA-224, SHA-256, SHA-384, SHA-512.

#include <optional>
#include <string>
#include <string_view>

namespace minnow::sql {

// `bytes`' digest of `bits` (224, 256, 384 or 512; 0 is 256, as MySQL's SHA2) as lowercase
// hex digits; nullopt for any other length.
std::optional<std::string> Sha2Hex(std::string_view bytes, int64_t bits);

}  // namespace minnow::sql
