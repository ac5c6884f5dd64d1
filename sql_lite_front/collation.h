#pragma once
// Character sets and collations: how text compares, sorts, matches LIKE, and becomes index keys.
//
// minnow stores every text value as UTF-8 (utf8mb4; utf8mb3 is the same bytes limited to the
// BMP). A collation is one of three kinds:
//
//   kind        collations                          compares                       pad
//   kBytes      binary (BLOB, CHARACTER SET binary) the bytes                      NO PAD
//   kCodePoint  utf8mb4_bin, utf8mb3_bin            the bytes (= code point order) PAD SPACE
//   kIcu        utf8mb4_0900_ai_ci (utf8mb4's       an ICU collator on the CLDR    NO PAD for 0900,
//               default), utf8mb4_0900_as_cs,       root order: primary strength   PAD SPACE for
//               utf8mb4_general_ci,                 (accent- and case-insensitive) general_ci
//               utf8mb3_general_ci (utf8mb3's       for _ai_ci / _general_ci,
//               default)                            tertiary for _as_cs
//
// PAD SPACE compares as if the shorter string were padded with spaces; minnow does it by
// dropping trailing spaces before comparing or making a key, which gives the same equalities
// and the same order except for a string against its own extension by spaces and then a
// character below U+0020 (MySQL: 'a' > 'a \t'; minnow: 'a' < 'a \t').
//
// Where this differs from MySQL 8.0 (docs/ARCHITECTURE.md, "Collations", says it in full):
//   - the 0900 collations: MySQL weighs with UCA 9.0.0's DUCET, ICU 72 with CLDR 42's root
//     (UCA 15.0 plus CLDR's root changes), so characters added after Unicode 9.0 and CLDR's
//     few root reorderings weigh differently;
//   - the general_ci collations: MySQL maps each BMP character to one weight from a fixed
//     table (no expansions, no contractions, every supplementary character = U+FFFD); minnow
//     uses the ICU root collator at primary strength, so 'ß' = 'ss' (MySQL: 'ß' = 's'),
//     'æ' = 'ae', ignorable characters (controls, soft hyphen) are ignored, and punctuation
//     sorts before digits and letters (MySQL: by the code point of its weight, so '_' > 'Z').
//
// Index keys (AppendCollationKey) are memcomparable: byte order of the keys = the collation's
// order, equal keys = equal strings under the collation; they cannot be turned back into the
// text (row_codec.h keeps the text beside them).
//
// Thread safety: the collators are made once (on first use, under std::call_once) and then
// only read; every function here may be called from any thread.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace minnow::sql {

struct Collation {
  enum class Kind : uint8_t { kBytes, kCodePoint, kIcu };
  std::string_view name;     // "utf8mb4_0900_ai_ci"
  std::string_view charset;  // "utf8mb4"
  uint32_t id;               // MySQL's number (SHOW COLLATION's Id)
  bool is_default;           // the charset's default collation
  bool pad_space;            // PAD SPACE (else NO PAD)
  Kind kind;
  bool case_sensitive;  // for kIcu: tertiary strength (else primary)

  bool is_binary() const { return kind != Kind::kIcu; }  // compares bytes
  // "PAD SPACE" / "NO PAD", as SHOW COLLATION's Pad_attribute.
  std::string_view pad_attribute() const { return pad_space ? "PAD SPACE" : "NO PAD"; }
};

// Every collation minnow implements, SHOW COLLATION's order (by name).
std::span<const Collation> AllCollations();
// The collation named `name` (case-insensitive), or null if minnow has none of that name.
const Collation* FindCollation(std::string_view name);
// `charset`'s default collation ("utf8" means utf8mb3), or null for a charset minnow lacks.
const Collation* DefaultCollation(std::string_view charset);
// True for a charset MySQL 8.0 has and minnow does not ("latin1", ...): 1235 rather than 1115.
// REQUIRES: `cs` lower case (CanonicalCharset).
bool IsMysqlOnlyCharset(std::string_view cs);
// The charset name MySQL 8 prints for `charset` ("utf8" -> "utf8mb3"), lower case.
std::string CanonicalCharset(std::string_view charset);
// The collation of string literals and of expressions without a column: MySQL 8's
// collation_connection default, utf8mb4_0900_ai_ci.
const Collation& ConnectionCollation();
const Collation& BinaryCollation();  // "binary"

// Three-way comparison (<0, 0, >0) of two texts under `c`.
int CollationCompare(const Collation& c, std::string_view a, std::string_view b);
// Appends `s`'s index key under `c` (for kIcu: the ICU sort key, its terminating 0x00
// included, with no other 0x00 byte in it). REQUIRES: c.kind == kIcu (row_codec.h encodes
// the binary kinds itself).
void AppendCollationKey(const Collation& c, std::string_view s, std::string* out);
// The first bytes of the key (AppendCollationKey) of every string that LIKE 'prefix%' matches
// under `c` (the primary weights of `prefix` up to its first character that can join a
// contraction; trailing spaces dropped first under PAD SPACE, as the keys drop them): the key
// range they start is a superset of the LIKE's rows, which must still be checked one by one
// (ignorable characters, expansions such as '⒌' = '5.', and accents or case under _as_cs put
// strings in it that the LIKE does not match). REQUIRES: c.kind == kIcu.
std::string CollationKeyPrefix(const Collation& c, std::string_view prefix);
// `s` with trailing spaces dropped when `c` is PAD SPACE (what its comparisons and keys see).
std::string_view PaddedForm(const Collation& c, std::string_view s);

// SQL LIKE under `c`: % matches any run of characters, _ one character, \ escapes the next
// pattern character; a literal character matches a text character equal to it under `c`
// (kBytes: byte by byte). Trailing spaces count (LIKE never pads).
bool CollationLike(const Collation& c, std::string_view text, std::string_view pattern);

// ---- UTF-8 text (what every non-binary text column holds)

// The number of characters (code points) in UTF-8 `s`; a byte that starts no valid
// sequence counts as one.
size_t Utf8Length(std::string_view s);
// Where each character of `s` starts under `c` (UTF-8 characters as Utf8Length counts them;
// single bytes for a binary string, kBytes), and s.size() last: character i is
// [starts[i], starts[i + 1]).
std::vector<size_t> CharStarts(const Collation& c, std::string_view s);
// The offset of the first byte of `s` that is not well-formed UTF-8 (utf8mb3: also any
// character beyond U+FFFF), or npos if all of it is.
size_t Utf8InvalidAt(std::string_view s, bool bmp_only);
// `s` with every character mapped to its simple (one-to-one) upper or lower case mapping, as
// MySQL's UPPER()/LOWER() do for utf8mb4; bytes that are not UTF-8 are kept as they are.
std::string Utf8Upper(std::string_view s);
std::string Utf8Lower(std::string_view s);

}  // namespace minnow::sql
