// Collations on ICU (collation.h).

#include "sql_lite_front/collation.h"

#include <unicode/uchar.h>
#include <unicode/ucol.h>
#include <unicode/uset.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "common/check.h"

namespace minnow::sql {
namespace {

using Kind = Collation::Kind;

// By name, as SHOW COLLATION lists them. Ids are MySQL 8.0's.
constexpr std::array<Collation, 7> kCollations = {{
    {"binary", "binary", 63, true, false, Kind::kBytes, true},
    {"utf8mb3_bin", "utf8mb3", 83, false, true, Kind::kCodePoint, true},
    {"utf8mb3_general_ci", "utf8mb3", 33, true, true, Kind::kIcu, false},
    {"utf8mb4_0900_ai_ci", "utf8mb4", 255, true, false, Kind::kIcu, false},
    {"utf8mb4_0900_as_cs", "utf8mb4", 278, false, false, Kind::kIcu, true},
    {"utf8mb4_bin", "utf8mb4", 46, false, true, Kind::kCodePoint, true},
    {"utf8mb4_general_ci", "utf8mb4", 45, false, true, Kind::kIcu, false},
}};

bool EqualsNoCaseAscii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// The two ICU collators (primary and tertiary strength on the root locale) and the code points
// that take part in a contraction or a context (prefix) rule: where a prefix's weights may not
// be a prefix of a longer string's weights.
struct IcuState {
  UCollator* primary = nullptr;
  UCollator* tertiary = nullptr;
  USet* contextual = nullptr;
};

UCollator* OpenRoot(UCollationStrength strength) {
  UErrorCode err = U_ZERO_ERROR;
  UCollator* c = ucol_open("", &err);
  MINNOW_CHECK(U_SUCCESS(err) && c != nullptr, "ICU root collator: {}", u_errorName(err));
  ucol_setStrength(c, strength);
  // MySQL's 0900 collations weigh spaces and punctuation (non-ignorable), ICU's root default.
  err = U_ZERO_ERROR;
  ucol_setAttribute(c, UCOL_ALTERNATE_HANDLING, UCOL_NON_IGNORABLE, &err);
  ucol_setAttribute(c, UCOL_NORMALIZATION_MODE, UCOL_ON, &err);
  MINNOW_CHECK(U_SUCCESS(err), "ICU collator attributes: {}", u_errorName(err));
  return c;
}

const IcuState& Icu() {
  static std::once_flag once;
  static IcuState state;
  std::call_once(once, [] {
    state.primary = OpenRoot(UCOL_PRIMARY);
    state.tertiary = OpenRoot(UCOL_TERTIARY);
    UErrorCode err = U_ZERO_ERROR;
    USet* contractions = uset_openEmpty();
    ucol_getContractionsAndExpansions(state.primary, contractions, nullptr, true, &err);
    MINNOW_CHECK(U_SUCCESS(err), "ICU contractions: {}", u_errorName(err));
    // Every code point of every contraction (or prefix-context) string.
    state.contextual = uset_openEmpty();
    UChar buf[64];
    for (int32_t i = 0, n = uset_getItemCount(contractions); i < n; ++i) {
      UChar32 lo, hi;
      err = U_ZERO_ERROR;
      int32_t len = uset_getItem(contractions, i, &lo, &hi, buf, 64, &err);
      if (len == 0) {
        uset_addRange(state.contextual, lo, hi);
        continue;
      }
      if (U_FAILURE(err)) continue;
      for (int32_t j = 0; j < len;) {
        UChar32 cp;
        U16_NEXT(buf, j, len, cp);
        uset_add(state.contextual, cp);
      }
    }
    uset_close(contractions);
    uset_freeze(state.contextual);
  });
  return state;
}

UCollator* CollatorFor(const Collation& c) {
  return c.case_sensitive ? Icu().tertiary : Icu().primary;
}

std::u16string ToUtf16(std::string_view s) {
  std::u16string out(s.size() + 1, u'\0');
  int32_t len = 0;
  UErrorCode err = U_ZERO_ERROR;
  u_strFromUTF8WithSub(reinterpret_cast<UChar*>(out.data()), static_cast<int32_t>(out.size()), &len,
                       s.data(), static_cast<int32_t>(s.size()), 0xFFFD, nullptr, &err);
  MINNOW_CHECK(U_SUCCESS(err), "UTF-8 to UTF-16: {}", u_errorName(err));
  out.resize(static_cast<size_t>(len));
  return out;
}

void AppendSortKey(UCollator* coll, const std::u16string& u, std::string* out) {
  const auto* src = reinterpret_cast<const UChar*>(u.data());
  const auto n = static_cast<int32_t>(u.size());
  size_t at = out->size();
  out->resize(at + 4 * u.size() + 16);
  int32_t need = ucol_getSortKey(coll, src, n, reinterpret_cast<uint8_t*>(out->data() + at),
                                 static_cast<int32_t>(out->size() - at));
  if (static_cast<size_t>(need) > out->size() - at) {
    out->resize(at + static_cast<size_t>(need));
    need = ucol_getSortKey(coll, src, n, reinterpret_cast<uint8_t*>(out->data() + at), need);
  }
  out->resize(at + static_cast<size_t>(need));  // the terminating 0x00 included
}

// One UTF-8 character at s[*i] (advancing *i); an invalid byte is one character of its own.
std::string_view NextChar(std::string_view s, size_t* i) {
  size_t start = *i;
  auto n = static_cast<int32_t>(s.size());
  auto pos = static_cast<int32_t>(start);
  UChar32 cp;
  U8_NEXT(reinterpret_cast<const uint8_t*>(s.data()), pos, n, cp);
  (void)cp;
  *i = static_cast<size_t>(pos);
  return s.substr(start, *i - start);
}

bool CharsEqual(const Collation& c, std::string_view a, std::string_view b) {
  if (a == b) return true;
  if (c.is_binary()) return false;
  UErrorCode err = U_ZERO_ERROR;
  return ucol_strcollUTF8(CollatorFor(c), a.data(), static_cast<int32_t>(a.size()), b.data(),
                          static_cast<int32_t>(b.size()), &err) == UCOL_EQUAL;
}

template <typename MapFn>
std::string MapCase(std::string_view s, MapFn map) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto n = static_cast<int32_t>(s.size());
  for (int32_t i = 0; i < n;) {
    int32_t start = i;
    UChar32 cp;
    U8_NEXT(p, i, n, cp);
    if (cp < 0) {
      out.append(s.substr(static_cast<size_t>(start), static_cast<size_t>(i - start)));
      continue;
    }
    uint8_t buf[U8_MAX_LENGTH];
    int32_t len = 0;
    U8_APPEND_UNSAFE(buf, len, map(cp));
    out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(len));
  }
  return out;
}

}  // namespace

std::span<const Collation> AllCollations() { return kCollations; }

const Collation* FindCollation(std::string_view name) {
  for (const Collation& c : kCollations)
    if (EqualsNoCaseAscii(c.name, name)) return &c;
  return nullptr;
}

std::string CanonicalCharset(std::string_view charset) {
  std::string cs(charset);
  for (char& ch : cs)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  if (cs == "utf8") cs = "utf8mb3";
  return cs;
}

bool IsMysqlOnlyCharset(std::string_view cs) {
  static constexpr std::string_view kNames[] = {
      "armscii8", "ascii",   "big5",   "cp1250", "cp1251",  "cp1256",   "cp1257",  "cp850",
      "cp852",    "cp866",   "cp932",  "dec8",   "eucjpms", "euckr",    "gb18030", "gb2312",
      "gbk",      "geostd8", "greek",  "hebrew", "hp8",     "keybcs2",  "koi8r",   "koi8u",
      "latin1",   "latin2",  "latin5", "latin7", "macce",   "macroman", "sjis",    "swe7",
      "tis620",   "ucs2",    "ujis",   "utf16",  "utf16le", "utf32"};
  for (std::string_view n : kNames)
    if (n == cs) return true;
  return false;
}

const Collation* DefaultCollation(std::string_view charset) {
  const std::string cs = CanonicalCharset(charset);
  for (const Collation& c : kCollations)
    if (c.charset == cs && c.is_default) return &c;
  return nullptr;
}

const Collation& ConnectionCollation() { return *FindCollation("utf8mb4_0900_ai_ci"); }
const Collation& BinaryCollation() { return kCollations[0]; }

std::string_view PaddedForm(const Collation& c, std::string_view s) {
  if (!c.pad_space) return s;
  size_t n = s.size();
  while (n > 0 && s[n - 1] == ' ') --n;
  return s.substr(0, n);
}

int CollationCompare(const Collation& c, std::string_view a, std::string_view b) {
  a = PaddedForm(c, a);
  b = PaddedForm(c, b);
  if (c.is_binary()) {
    int r = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
    if (r != 0) return r < 0 ? -1 : 1;
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  }
  UErrorCode err = U_ZERO_ERROR;
  UCollationResult r = ucol_strcollUTF8(CollatorFor(c), a.data(), static_cast<int32_t>(a.size()),
                                        b.data(), static_cast<int32_t>(b.size()), &err);
  MINNOW_CHECK(U_SUCCESS(err), "ICU compare: {}", u_errorName(err));
  return r == UCOL_LESS ? -1 : (r == UCOL_GREATER ? 1 : 0);
}

void AppendCollationKey(const Collation& c, std::string_view s, std::string* out) {
  MINNOW_CHECK(c.kind == Kind::kIcu, "AppendCollationKey on binary collation {}", c.name);
  AppendSortKey(CollatorFor(c), ToUtf16(PaddedForm(c, s)), out);
}

std::string CollationKeyPrefix(const Collation& c, std::string_view prefix) {
  MINNOW_CHECK(c.kind == Kind::kIcu, "CollationKeyPrefix on binary collation {}", c.name);
  // Only the characters before the first that may join a contraction or a context rule: the
  // weights of those are the same whatever follows them.
  // Under PAD SPACE a text's key drops its trailing spaces, so the prefix must too: 'a ' (key
  // of 'a') matches LIKE 'a %'.
  std::u16string u = ToUtf16(PaddedForm(c, prefix));
  size_t keep = 0;
  for (size_t i = 0; i < u.size();) {
    UChar32 cp;
    U16_NEXT(u.data(), i, u.size(), cp);
    if (uset_contains(Icu().contextual, cp)) break;
    keep = i;
  }
  u.resize(keep);
  std::string key;
  AppendSortKey(CollatorFor(c), u, &key);
  // The primary weights: everything before the level separator (0x01) or the end (0x00).
  size_t end = 0;
  while (end < key.size() && key[end] != '\0' && key[end] != '\1') ++end;
  key.resize(end);
  return key;
}

bool CollationLike(const Collation& c, std::string_view text, std::string_view pattern) {
  // Greedy matching with one backtrack point (the last %), exact for % and _, one character at
  // a time (as MySQL's LIKE: no expansions across characters).
  size_t t = 0, p = 0;
  size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      const char pc = pattern[p];
      if (pc == '%') {
        while (p < pattern.size() && pattern[p] == '%') ++p;
        // A pattern that ends in % matches whatever is left ('p%' after its prefix).
        if (p == pattern.size()) return true;
        star_p = p;
        star_t = t;
        continue;
      }
      if (pc == '_') {
        ++p;
        if (c.kind == Kind::kBytes) {
          ++t;
        } else {
          NextChar(text, &t);
        }
        continue;
      }
      size_t np = p;
      if (pc == '\\' && p + 1 < pattern.size()) ++np;
      size_t nt = t;
      std::string_view lit, tc;
      if (c.kind == Kind::kBytes) {
        lit = pattern.substr(np, 1);
        tc = text.substr(t, 1);
        ++np;
        ++nt;
      } else {
        lit = NextChar(pattern, &np);
        tc = NextChar(text, &nt);
      }
      if (CharsEqual(c, lit, tc)) {
        p = np;
        t = nt;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    if (c.kind == Kind::kBytes) {
      ++star_t;
    } else {
      NextChar(text, &star_t);
    }
    t = star_t;
  }
  while (p < pattern.size() && pattern[p] == '%') ++p;
  return p == pattern.size();
}

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++n) NextChar(s, &i);
  return n;
}

std::vector<size_t> CharStarts(const Collation& c, std::string_view s) {
  std::vector<size_t> starts;
  starts.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size();) {
    starts.push_back(i);
    if (c.kind == Collation::Kind::kBytes) {
      ++i;
    } else {
      NextChar(s, &i);
    }
  }
  starts.push_back(s.size());
  return starts;
}

size_t Utf8InvalidAt(std::string_view s, bool bmp_only) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto n = static_cast<int32_t>(s.size());
  for (int32_t i = 0; i < n;) {
    int32_t start = i;
    UChar32 cp;
    U8_NEXT(p, i, n, cp);
    if (cp < 0 || (bmp_only && cp > 0xFFFF)) return static_cast<size_t>(start);
  }
  return std::string_view::npos;
}

std::string Utf8Upper(std::string_view s) {
  return MapCase(s, [](UChar32 cp) { return u_toupper(cp); });
}

std::string Utf8Lower(std::string_view s) {
  return MapCase(s, [](UChar32 cp) { return u_tolower(cp); });
}

}  // namespace minnow::sql
