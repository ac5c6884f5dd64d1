// Printing statement results as the mysql client does (mysql.cc's print_table_data,
// print_table_data_vertically, print_tab_data, com_go's summary and nice_time).

#include "sql_lite_front/execute/result_format.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace minnow::sql {
namespace {

constexpr std::string_view kNull = "NULL";

// Characters in UTF-8 text: every byte that is not a continuation byte (10xxxxxx).
size_t Utf8Width(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// True if `s` is a whole number as the server prints one: [+-]digits[.digits][e[+-]digits].
bool IsNumber(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// A column is numeric (right-aligned, NULLs too) when it has a value and every value is a number.
std::vector<bool> NumericColumns(const StatementResult& r) {
  std::vector<bool> numeric(r.columns.size(), false);
  for (size_t c = 0; c < r.columns.size(); ++c) {
    bool any = false, all = true;
    for (const auto& row : r.rows) {
      if (c >= row.size() || !row[c]) continue;
      any = true;
      if (!IsNumber(*row[c])) {
        all = false;
        break;
      }
    }
    numeric[c] = any && all;
  }
  return numeric;
}

std::string_view Cell(const std::vector<std::optional<std::string>>& row, size_t c) {
  if (c >= row.size() || !row[c]) return kNull;
  return *row[c];
}

void AppendPadded(std::string* out, std::string_view v, size_t width, bool right) {
  size_t w = Utf8Width(v);
  size_t pad = width > w ? width - w : 0;
  if (right) out->append(pad, ' ');
  out->append(v);
  if (!right) out->append(pad, ' ');
}

void AppendBorder(std::string* out, const std::vector<size_t>& widths) {
  out->push_back('+');
  for (size_t w : widths) {
    out->append(w + 2, '-');
    out->push_back('+');
  }
  out->push_back('\n');
}

// mysql -B's escaping of a value: \0 \t \n \\ as two characters.
void AppendEscaped(std::string* out, std::string_view v) {
  for (char c : v) {
    switch (c) {
      case '\0':
        out->append("\\0");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\\':
        out->append("\\\\");
        break;
      default:
        out->push_back(c);
    }
  }
}

// mysql.cc's nice_time: "0.01 sec", "1 min 2.50 sec", "2 hours 1 min 0.00 sec", "1 day ...".
std::string NiceTime(double sec) {
  if (!(sec >= 0)) sec = 0;
  std::string out;
  auto part = [&](double unit, const char* one, const char* many) {
    if (sec < unit) return;
    auto n = static_cast<unsigned long>(std::floor(sec / unit));
    sec -= unit * static_cast<double>(n);
    out += std::to_string(n);
    out += n > 1 ? many : one;
  };
  part(3600.0 * 24, " day ", " days ");
  part(3600.0, " hour ", " hours ");
  part(60.0, " min ", " min ");
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f sec", sec);
  out += buf;
  return out;
}

std::string Plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string FormatTable(const StatementResult& r) {
  const size_t ncols = r.columns.size();
  std::vector<size_t> widths(ncols);
  for (size_t c = 0; c < ncols; ++c) widths[c] = Utf8Width(r.columns[c]);
  for (const auto& row : r.rows) {
    for (size_t c = 0; c < ncols; ++c) widths[c] = std::max(widths[c], Utf8Width(Cell(row, c)));
  }
  const std::vector<bool> numeric = NumericColumns(r);

  std::string out;
  AppendBorder(&out, widths);
  out.push_back('|');
  for (size_t c = 0; c < ncols; ++c) {
    out.push_back(' ');
    AppendPadded(&out, r.columns[c], widths[c], /*right=*/false);  // headers: always left
    out.append(" |");
  }
  out.push_back('\n');
  AppendBorder(&out, widths);
  for (const auto& row : r.rows) {
    out.push_back('|');
    for (size_t c = 0; c < ncols; ++c) {
      out.push_back(' ');
      AppendPadded(&out, Cell(row, c), widths[c], numeric[c]);
      out.append(" |");
    }
    out.push_back('\n');
  }
  if (!r.rows.empty()) AppendBorder(&out, widths);
  return out;
}

std::string FormatVertical(const StatementResult& r) {
  size_t name_width = 0;
  for (const auto& name : r.columns) name_width = std::max(name_width, Utf8Width(name));
  std::string out;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    out += "*************************** ";
    out += std::to_string(i + 1);
    out += ". row ***************************\n";
    for (size_t c = 0; c < r.columns.size(); ++c) {
      AppendPadded(&out, r.columns[c], name_width, /*right=*/true);
      out += ": ";
      out += Cell(r.rows[i], c);
      out.push_back('\n');
    }
  }
  return out;
}

std::string FormatBatch(const StatementResult& r) {
  std::string out;
  for (size_t c = 0; c < r.columns.size(); ++c) {
    if (c > 0) out.push_back('\t');
    AppendEscaped(&out, r.columns[c]);
  }
  out.push_back('\n');
  for (const auto& row : r.rows) {
    for (size_t c = 0; c < r.columns.size(); ++c) {
      if (c > 0) out.push_back('\t');
      AppendEscaped(&out, Cell(row, c));
    }
    out.push_back('\n');
  }
  return out;
}

std::string FormatSummary(const StatementResult& r) {
  std::string out;
  if (r.has_result_set) {
    out = r.rows.empty() ? "Empty set" : Plural(r.rows.size(), "row", "rows") + " in set";
  } else {
    out = "Query OK, " + Plural(r.affected_rows, "row", "rows") + " affected";
  }
  if (!r.warnings.empty()) out += ", " + Plural(r.warnings.size(), "warning", "warnings");
  out += " (" + NiceTime(r.seconds) + ")";
  if (!r.info.empty()) out += "\n" + r.info;
  return out;
}

}  // namespace minnow::sql
