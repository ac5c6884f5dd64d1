#pragma once
// A range of one index's encoded keys, as the planner builds them and a table engine walks
// them (table_engine.h). Keys are row_codec's memcomparable encodings, so ranges compare bytes.

#include <optional>
#include <string>
#include <string_view>

namespace minnow::sql {

// A half-open range of the walked index's keys: start <= key < end (no end: to the last).
struct KeyRange {
  std::string start;
  std::string end;
  bool end_unbounded = true;
  // Every key column the range constrains equals a value (ref access, an IN list's value):
  // MySQL reads it with an exact-match search (EQ_RANGE), which gap-locks the record past it.
  bool equality = false;
  // True if `key` is past the range's end.
  bool AfterEnd(std::string_view key) const { return !end_unbounded && key >= end; }
};

// The smallest string greater than every string with prefix `s`; nullopt: none (unbounded).
inline std::optional<std::string> Successor(std::string s) {
  while (!s.empty() && static_cast<unsigned char>(s.back()) == 0xFF) s.pop_back();
  if (s.empty()) return std::nullopt;
  s.back() = static_cast<char>(static_cast<unsigned char>(s.back()) + 1);
  return s;
}

// The keys that start with `prefix` (a key prefix of whole columns, or a LIKE prefix).
inline KeyRange PrefixRange(const std::string& prefix) {
  KeyRange r;
  r.start = prefix;
  std::optional<std::string> end = Successor(prefix);
  r.end_unbounded = !end.has_value();
  if (end.has_value()) r.end = *end;
  return r;
}

}  // namespace minnow::sql
