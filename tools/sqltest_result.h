#pragma once
// How sqltest writes one statement's outcome into the .result text, as mysqltest does, and the
// one-shot modifiers written before a statement that shape it (see sqltest_script.h):
//
//   --error ER_DUP_ENTRY,0          the outcome must be one of these (0: success)
//   --sorted_result                 the rows sorted as text
//   --replace_column 2 #            column 2 printed as "#"
//   --replace_regex /id=[0-9]+/id=N/i
//
// A result set is a tab-separated header and rows (NULL as "NULL"), or "column<TAB>value" lines
// when vertical; warnings follow as "Warnings:" and "Level<TAB>Code<TAB>Message" lines.

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "sql_lite_front/sql_engine.h"

namespace minnow::tools {

struct ReplaceRegex {
  std::regex re;
  std::string replacement;  // in std::regex's ECMAScript format ($1, not \1)
};

// What applies to the next statement's outcome. A --send takes them along, and its --reap
// applies them.
struct Modifiers {
  std::vector<uint16_t> expected_errors;  // empty: success expected
  bool sorted = false;
  std::map<size_t, std::string> replace_column;  // 1-based column -> text
  std::vector<ReplaceRegex> replace_regex;
  bool any() const {
    return !expected_errors.empty() || sorted || !replace_column.empty() || !replace_regex.empty();
  }
  // Adds `later`'s modifiers (written just before a --reap) to these (the --send's).
  void MergeFrom(const Modifiers& later);
};

// Each parses a modifier command's argument into `m`; returns "" or what is wrong with it.
std::string ParseExpectedErrors(std::string_view arg, Modifiers* m);  // "1062,0" or ER_* names
std::string ParseReplaceColumn(std::string_view arg, Modifiers* m);   // pairs: COLUMN TEXT
std::string ParseReplaceRegex(std::string_view arg, Modifiers* m);    // one or more /RE/REPL/[i]

// "1205", "1205 or 1213", "1205, 1213 or 0".
std::string ErrorList(const std::vector<uint16_t>& codes);

// `s` after every --replace_regex of `m`, in order.
std::string ApplyReplaceRegex(const std::string& s, const Modifiers& m);

// Which parts of an OK statement's outcome the .result shows (--enable_/--disable_ info and
// warnings; --vertical_results or a \G terminator).
struct ResultLogOptions {
  bool vertical = false;
  bool info = false;
  bool warnings = true;
};

// Appends a successful statement's result set (or, with `info`, its affected rows and info
// line) and warnings to `out`.
void AppendResult(const sql::StatementResult& r, const Modifiers& m, const ResultLogOptions& log,
                  std::string* out);

}  // namespace minnow::tools
