// sqltest's modifiers and result text (see sqltest_result.h).

#include "tools/sqltest_result.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>

namespace minnow::tools {
namespace {

// mysqltest's error names that the tests use; any number is accepted too.
std::optional<uint16_t> ErrorNumber(const std::string& name) {
  static const std::map<std::string, uint16_t> kNames = {
      {"ER_LOCK_WAIT_TIMEOUT", 1205},
      {"ER_LOCK_DEADLOCK", 1213},
      {"ER_CHECKREAD", 1020},
      {"ER_DUP_ENTRY", 1062},
      {"ER_NO_SUCH_TABLE", 1146},
      {"ER_BAD_FIELD_ERROR", 1054},
      {"ER_PARSE_ERROR", 1064},
      {"ER_TABLE_EXISTS_ERROR", 1050},
      {"ER_BAD_TABLE_ERROR", 1051},
      {"ER_QUERY_INTERRUPTED", 1317},
      {"ER_EMPTY_QUERY", 1065},
      {"ER_BAD_NULL_ERROR", 1048},
      {"ER_DUP_KEYNAME", 1061},
      {"ER_DUP_FIELDNAME", 1060},
      {"ER_WRONG_VALUE_COUNT_ON_ROW", 1136},
      {"ER_NON_UNIQ_ERROR", 1052},
      {"ER_NONUNIQ_TABLE", 1066},
      {"ER_UNKNOWN_SYSTEM_VARIABLE", 1193},
      {"ER_INCORRECT_GLOBAL_LOCAL_VAR", 1238},
      {"ER_TABLE_NOT_LOCKED", 1100},
      {"ER_TABLE_NOT_LOCKED_FOR_WRITE", 1099},
      {"ER_CANT_DROP_FIELD_OR_KEY", 1091},
      {"ER_DATA_TOO_LONG", 1406},
      {"ER_WARN_DATA_OUT_OF_RANGE", 1264},
      {"ER_NOT_SUPPORTED_YET", 1235},
      {"ER_CANT_CHANGE_TX_CHARACTERISTICS", 1568},
      {"ER_BAD_DB_ERROR", 1049},
      {"ER_UNKNOWN_TABLE", 1109},
      {"ER_LOCK_OR_ACTIVE_TRANSACTION", 1192},
      {"ER_DIVISION_BY_ZERO", 1365},
  };
  if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      })) {
    unsigned long n = std::strtoul(name.c_str(), nullptr, 10);
    if (n <= 0xFFFF) return static_cast<uint16_t>(n);
    return std::nullopt;
  }
  auto it = kNames.find(name);
  if (it == kNames.end()) return std::nullopt;
  return it->second;
}

// Splits "1 # 3 'a b'" into words; '...' or "..." quote a word with spaces.
std::vector<std::string> Words(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i >= s.size()) break;
    std::string w;
    if (s[i] == '\'' || s[i] == '"') {
      char q = s[i++];
      while (i < s.size() && s[i] != q) w += s[i++];
      ++i;
    } else {
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) w += s[i++];
    }
    out.push_back(std::move(w));
  }
  return out;
}

// mysqltest writes groups in a replacement as \1..\9; std::regex's ECMAScript format wants
// $1..$9 (and a literal '$' doubled).
std::string EcmaReplacement(std::string_view repl) {
  std::string out;
  for (size_t i = 0; i < repl.size(); ++i) {
    if (repl[i] == '\\' && i + 1 < repl.size() && repl[i + 1] >= '0' && repl[i + 1] <= '9') {
      out += '$';
      out += repl[++i];
    } else if (repl[i] == '$') {
      out += "$$";
    } else {
      out += repl[i];
    }
  }
  return out;
}

}  // namespace

void Modifiers::MergeFrom(const Modifiers& later) {
  if (!later.expected_errors.empty()) expected_errors = later.expected_errors;
  sorted = sorted || later.sorted;
  for (const auto& [col, text] : later.replace_column) replace_column[col] = text;
  for (const auto& r : later.replace_regex) replace_regex.push_back(r);
}

std::string ParseExpectedErrors(std::string_view arg, Modifiers* m) {
  m->expected_errors.clear();
  std::string list(arg);
  std::replace(list.begin(), list.end(), ',', ' ');
  for (const std::string& w : Words(list)) {
    auto n = ErrorNumber(w);
    if (!n) return "--error: unknown error '" + w + "'";
    m->expected_errors.push_back(*n);
  }
  if (m->expected_errors.empty()) return "--error needs an error number";
  return "";
}

std::string ParseReplaceColumn(std::string_view arg, Modifiers* m) {
  auto w = Words(arg);
  if (w.empty() || w.size() % 2 != 0) return "--replace_column needs pairs: COLUMN TEXT";
  for (size_t i = 0; i < w.size(); i += 2) {
    long col = std::strtol(w[i].c_str(), nullptr, 10);
    if (col <= 0) return "--replace_column: bad column '" + w[i] + "'";
    m->replace_column[static_cast<size_t>(col)] = w[i + 1];
  }
  return "";
}

std::string ParseReplaceRegex(std::string_view arg_view, Modifiers* m) {
  // The first character after spaces is the delimiter.
  const std::string arg(arg_view);
  size_t i = 0;
  while (i < arg.size()) {
    while (i < arg.size() && std::isspace(static_cast<unsigned char>(arg[i]))) ++i;
    if (i >= arg.size()) break;
    char delim = arg[i++];
    size_t mid = arg.find(delim, i);
    size_t end = mid == std::string::npos ? mid : arg.find(delim, mid + 1);
    if (end == std::string::npos) return "--replace_regex: expected /RE/REPL/";
    std::string re = arg.substr(i, mid - i), repl = arg.substr(mid + 1, end - mid - 1);
    i = end + 1;
    auto flags = std::regex::ECMAScript;
    if (i < arg.size() && arg[i] == 'i') {
      flags |= std::regex::icase;
      ++i;
    }
    if (re.empty()) return "--replace_regex: empty pattern";
    repl = EcmaReplacement(repl);
    // std::regex reports a bad pattern only by throwing: the one exception minnow catches,
    // at the boundary, so a typo in a test fails that test instead of ending the runner.
    try {
      m->replace_regex.push_back(ReplaceRegex{std::regex(re, flags), repl});
    } catch (const std::regex_error& e) {
      return "--replace_regex: bad pattern '" + re + "': " + e.what();
    }
  }
  return "";
}

std::string ErrorList(const std::vector<uint16_t>& codes) {
  std::string s;
  for (size_t i = 0; i < codes.size(); ++i) {
    if (i > 0) s += i + 1 == codes.size() ? " or " : ", ";
    s += std::to_string(codes[i]);
  }
  return s;
}

std::string ApplyReplaceRegex(const std::string& s, const Modifiers& m) {
  std::string out = s;
  for (const auto& r : m.replace_regex) out = std::regex_replace(out, r.re, r.replacement);
  return out;
}

void AppendResult(const sql::StatementResult& r, const Modifiers& m, const ResultLogOptions& log,
                  std::string* out) {
  std::string& text = *out;
  if (r.has_result_set) {
    auto value = [&](const std::vector<std::optional<std::string>>& row, size_t c) {
      auto it = m.replace_column.find(c + 1);
      if (it != m.replace_column.end()) return it->second;
      return ApplyReplaceRegex(c < row.size() && row[c] ? *row[c] : std::string("NULL"), m);
    };
    if (log.vertical) {  // mysqltest: "column<TAB>value" lines, no header
      for (const auto& row : r.rows) {
        for (size_t c = 0; c < r.columns.size(); ++c) {
          text += ApplyReplaceRegex(r.columns[c], m) + "\t" + value(row, c) + "\n";
        }
      }
    } else {
      std::string header;
      for (size_t c = 0; c < r.columns.size(); ++c) {
        if (c > 0) header += '\t';
        header += ApplyReplaceRegex(r.columns[c], m);
      }
      text += header + "\n";
      std::vector<std::string> lines;
      lines.reserve(r.rows.size());
      for (const auto& row : r.rows) {
        std::string l;
        for (size_t c = 0; c < r.columns.size(); ++c) {
          if (c > 0) l += '\t';
          l += value(row, c);
        }
        lines.push_back(std::move(l));
      }
      if (m.sorted) std::sort(lines.begin(), lines.end());
      for (const auto& l : lines) text += l + "\n";
    }
  } else if (log.info) {
    text += "affected rows: " + std::to_string(r.affected_rows) + "\n";
    if (!r.info.empty()) text += "info: " + r.info + "\n";
  }
  if (log.warnings && !r.warnings.empty()) {
    text += "Warnings:\n";
    for (const auto& w : r.warnings) {
      text +=
          w.level + "\t" + std::to_string(w.code) + "\t" + ApplyReplaceRegex(w.message, m) + "\n";
    }
  }
}

}  // namespace minnow::tools
