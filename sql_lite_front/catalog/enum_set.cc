// ENUM and SET columns: member checks, type text, and MySQL's Field_enum::store /
// Field_set::store.

#include "sql_lite_front/catalog/enum_set.h"

#include <charconv>
#include <optional>
#include <string_view>

#include "sql_lite_front/collation.h"
#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {
namespace {

std::string_view WithoutTrailingSpaces(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// The 1-based index of the member `text` equals under the column's collation, or 0.
uint64_t FindMember(const ColumnDef& col, std::string_view text) {
  const std::vector<std::string>& names = col.members->names;
  text = WithoutTrailingSpaces(text);
  for (size_t i = 0; i < names.size(); ++i) {
    if (CollationCompare(col.EffectiveCollation(), names[i], text) == 0) return i + 1;
  }
  return 0;
}

// `s` as an unsigned decimal number with nothing else (MySQL's my_strntoul check), or nullopt.
std::optional<uint64_t> WholeNumber(std::string_view s) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

uint64_t SetMask(const ColumnDef& col) {
  const size_t n = col.members->names.size();
  return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

// Under rules.errors the error to return; else nullopt, with `e` recorded as a warning.
std::optional<SqlError> Bad(const StoreRules& rules, SqlError e) {
  if (rules.errors) return e;
  if (rules.warnings != nullptr) {
    rules.warnings->push_back(SqlWarning{"Warning", e.code, std::move(e.message)});
  }
  return std::nullopt;
}

SqlError Truncated(const ColumnDef& col, uint64_t row) {
  return SqlErr(kErWarnDataTruncated, "Data truncated for column '", col.name, "' at row ",
                std::to_string(row));
}

// A number into ENUM: the member of that index; 0 and beyond the members are truncated to ''.
SqlResult<Value> EnumFromNumber(const ColumnDef& col, int64_t n, uint64_t row,
                                const StoreRules& rules) {
  if (n <= 0 || static_cast<uint64_t>(n) > col.members->names.size()) {
    if (auto e = Bad(rules, Truncated(col, row))) return *e;
    return Value::Enum(col.members, 0);
  }
  return Value::Enum(col.members, static_cast<uint64_t>(n));
}

SqlResult<Value> SetFromNumber(const ColumnDef& col, uint64_t bits, uint64_t row,
                               const StoreRules& rules) {
  if ((bits & ~SetMask(col)) != 0) {
    if (auto e = Bad(rules, Truncated(col, row))) return *e;
    bits &= SetMask(col);
  }
  return Value::Enum(col.members, bits);
}

SqlResult<Value> EnumFromText(const ColumnDef& col, std::string_view text, uint64_t row,
                              const StoreRules& rules) {
  if (uint64_t i = FindMember(col, text); i != 0) return Value::Enum(col.members, i);
  const std::string_view s = WithoutTrailingSpaces(text);
  // A number names the member of that index (MySQL reads numbers so for LOAD DATA).
  std::optional<uint64_t> n = s.size() < 6 ? WholeNumber(s) : std::nullopt;
  if (n.has_value() && *n >= 1 && *n <= col.members->names.size()) {
    return Value::Enum(col.members, *n);
  }
  if (auto e = Bad(rules, Truncated(col, row))) return *e;
  return Value::Enum(col.members, 0);
}

SqlResult<Value> SetFromText(const ColumnDef& col, std::string_view text, uint64_t row,
                             const StoreRules& rules) {
  uint64_t bits = 0;
  bool unknown = false;
  if (!text.empty()) {
    for (size_t start = 0;;) {
      const size_t comma = std::min(text.find(',', start), text.size());
      const uint64_t i = FindMember(col, text.substr(start, comma - start));
      if (i == 0) {
        unknown = true;
      } else {
        bits |= uint64_t{1} << (i - 1);
      }
      if (comma >= text.size()) break;
      start = comma + 1;
    }
  }
  if (bits == 0 && !text.empty() && text.size() < 22) {
    std::optional<uint64_t> n = WholeNumber(text);
    if (n.has_value() && (*n & ~SetMask(col)) == 0) return Value::Enum(col.members, *n);
    unknown = true;
  }
  if (unknown) {
    if (auto e = Bad(rules, Truncated(col, row))) return *e;
  }
  return Value::Enum(col.members, bits);
}

}  // namespace

std::string EnumSetTypeString(const ColumnDef& col) {
  std::string out = col.type == ColumnType::kSet ? "set(" : "enum(";
  for (size_t i = 0; i < col.members->names.size(); ++i) {
    if (i > 0) out += ',';
    out += QuoteStringLiteral(col.members->names[i]);
  }
  out += ')';
  return out;
}

SqlStatus CheckEnumSetMembers(const ColumnDef& col) {
  const std::vector<std::string>& names = col.members->names;
  const bool set = col.type == ColumnType::kSet;
  if (set && names.size() > kMaxSetMembers) {
    return SqlErr(kErTooBigSet, "Too many strings for column ", col.name, " and SET");
  }
  if (!set && names.size() > kMaxEnumMembers) {
    return SqlErr(kErTooBigEnum, "Too many enumeration values for column ", col.name, ".");
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (set && names[i].find(',') != std::string::npos) {
      return SqlErr(kErIllegalValueForType, "Illegal set '", names[i],
                    "' value found during parsing");
    }
    for (size_t j = 0; j < i; ++j) {
      if (CollationCompare(col.EffectiveCollation(), names[j], names[i]) == 0) {
        return SqlErr(kErDuplicatedValueInType, "Column '", col.name, "' has duplicated value '",
                      names[j], "' in ", set ? "SET" : "ENUM");
      }
    }
  }
  return SqlStatus::OK();
}

SqlResult<Value> CoerceToEnumOrSet(const ColumnDef& col, const Value& v, uint64_t row,
                                   const StoreRules& rules) {
  const bool set = col.type == ColumnType::kSet;
  if (v.is_enum() && v.as_enum().members == col.members) return v;
  if (v.is_string() || v.is_enum() || v.is_temporal()) {
    const std::string text = v.is_string() ? v.as_string() : v.ToString();
    return set ? SetFromText(col, text, row, rules) : EnumFromText(col, text, row, rules);
  }
  if (set) {
    const uint64_t bits = v.is_uint() ? v.as_uint() : static_cast<uint64_t>(v.ToInt());
    return SetFromNumber(col, bits, row, rules);
  }
  const int64_t n = v.is_uint() ? INT64_MAX : v.ToInt();
  return EnumFromNumber(col, n, row, rules);
}

Value EnumSetImplicitDefault(const ColumnDef& col) {
  const bool first = col.type == ColumnType::kEnum && !col.members->names.empty();
  return Value::Enum(col.members, first ? 1 : 0);
}

}  // namespace minnow::sql
