// System variables: one registry (kVars) says each variable's type, scope and range; values
// live in SystemVariables::global_ and SessionVariables::session_ in their normalized form
// (bools as Int 0/1, enums as their upper-case name, integers as Int, strings as String).
#include "sql_lite_front/session/variables.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>

#include "sql_lite_front/collation.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/version.h"

namespace minnow::sql {

namespace {

enum class VarType : uint8_t { kBool, kInt, kEnum, kString };

struct VarDef {
  const char* name;
  VarType type;
  bool global_only;  // no session value (SET SESSION: 1229)
  bool read_only;    // SET: 1238
  int64_t min = 0, max = 0;
  std::span<const char* const> choices = {};  // kEnum, by number
};

constexpr std::array<const char*, 4> kIsolationNames = {"READ-UNCOMMITTED", "READ-COMMITTED",
                                                        "REPEATABLE-READ", "SERIALIZABLE"};
constexpr std::array<const char*, 3> kConcurrentInsertNames = {"NEVER", "AUTO", "ALWAYS"};

// The sql_mode words minnow honours, in MySQL's order (the order @@sql_mode prints them):
//   PIPES_AS_CONCAT, ANSI_QUOTES: the parser (parser.h's ParseOptions);
//   ONLY_FULL_GROUP_BY: 1055/1140 for a bare column outside GROUP BY, else any row's value;
//   NO_UNSIGNED_SUBTRACTION: a - b of unsigned integers is signed (arithmetic.h);
//   STRICT_TRANS_TABLES, STRICT_ALL_TABLES: bad values stored into a column are errors;
//     without either they are converted with a warning (table_def.h's CoerceToColumn). They
//     differ only after the first row a write changed in a MyISAM table: STRICT_ALL_TABLES
//     fails there with the earlier rows written; STRICT_TRANS_TABLES alone converts the value
//     with a warning, as MySQL does (executor_write.cc);
//   NO_ZERO_IN_DATE, NO_ZERO_DATE: a date with a zero month or day, or the zero date, stored
//     into a column is 1292 in strict mode, else the zero date with warning 1264;
//   NO_AUTO_VALUE_ON_ZERO: 0 stored into an AUTO_INCREMENT column is 0, not the next value
//     (executor_write.cc);
//   NO_ENGINE_SUBSTITUTION: an unknown ENGINE= is error 1286; without it CREATE TABLE uses
//     InnoDB and ALTER TABLE keeps the engine, with warnings.
// Every other MySQL word is refused with 1231 naming it; any set of these words (none
// included: '') is accepted.
enum SqlModeWord : size_t {
  kPipesAsConcat,
  kAnsiQuotes,
  kOnlyFullGroupBy,
  kNoUnsignedSubtraction,
  kNoAutoValueOnZero,
  kStrictTransTables,
  kStrictAllTables,
  kNoZeroInDate,
  kNoZeroDate,
  kNoEngineSubstitution,
  kSqlModeWordCount
};
constexpr std::array<const char*, kSqlModeWordCount> kSqlModes = {
    "PIPES_AS_CONCAT",         "ANSI_QUOTES",           "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION", "NO_AUTO_VALUE_ON_ZERO", "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",       "NO_ZERO_IN_DATE",       "NO_ZERO_DATE",
    "NO_ENGINE_SUBSTITUTION"};

// The words of a sql_mode value as given ("a, b ,c": case and spaces as typed); nullopt with
// *unknown set to the first word that is not one of kSqlModes.
std::optional<std::array<bool, kSqlModeWordCount>> SqlModeWords(std::string_view value,
                                                                std::string* unknown) {
  std::array<bool, kSqlModeWordCount> given{};
  while (!value.empty()) {
    const size_t comma = value.find(',');
    std::string word = ToUpperAscii(value.substr(0, comma));
    value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    word.erase(0, word.find_first_not_of(' '));
    word.erase(word.find_last_not_of(' ') + 1);
    if (word.empty()) continue;
    auto it =
        std::find_if(kSqlModes.begin(), kSqlModes.end(), [&](const char* m) { return word == m; });
    if (it == kSqlModes.end()) {
      *unknown = std::move(word);
      return std::nullopt;
    }
    given[static_cast<size_t>(it - kSqlModes.begin())] = true;
  }
  return given;
}

SqlModeFlags FlagsOf(std::string_view sql_mode) {
  std::string unknown;
  std::optional<std::array<bool, kSqlModeWordCount>> w = SqlModeWords(sql_mode, &unknown);
  SqlModeFlags f;
  if (!w.has_value()) return f;  // not reached: the stored value is normalized
  f.pipes_as_concat = (*w)[kPipesAsConcat];
  f.ansi_quotes = (*w)[kAnsiQuotes];
  f.only_full_group_by = (*w)[kOnlyFullGroupBy];
  f.no_unsigned_subtraction = (*w)[kNoUnsignedSubtraction];
  f.no_auto_value_on_zero = (*w)[kNoAutoValueOnZero];
  f.strict = (*w)[kStrictTransTables] || (*w)[kStrictAllTables];
  f.strict_all_tables = (*w)[kStrictAllTables];
  f.no_zero_in_date = (*w)[kNoZeroInDate];
  f.no_zero_date = (*w)[kNoZeroDate];
  f.no_engine_substitution = (*w)[kNoEngineSubstitution];
  return f;
}

// MySQL 8.0's default without ERROR_FOR_DIVISION_BY_ZERO (minnow's x / 0 is NULL without a
// warning), and without NO_ZERO_IN_DATE and NO_ZERO_DATE, which minnow honours when set.
constexpr const char* kDefaultSqlMode =
    "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION";

// Sorted by name (ListGlobal relies on the maps, not on this order).
constexpr VarDef kVars[] = {
    {"alter_copy_lock_rows", VarType::kBool, false, false},
    {"autocommit", VarType::kBool, false, false},
    {"character_set_client", VarType::kString, false, false},
    {"character_set_connection", VarType::kString, false, false},
    {"character_set_database", VarType::kString, false, true},
    {"character_set_results", VarType::kString, false, false},
    {"character_set_server", VarType::kString, false, true},
    {"collation_connection", VarType::kString, false, false},
    {"collation_database", VarType::kString, false, true},
    {"collation_server", VarType::kString, false, true},
    {"concurrent_insert", VarType::kEnum, true, false, 0, 0, kConcurrentInsertNames},
    {"foreign_key_checks", VarType::kBool, false, false},
    {"group_concat_max_len", VarType::kInt, false, false, 4, INT64_MAX},
    {"innodb_autoinc_lock_mode", VarType::kInt, true, true},
    {"innodb_buffer_pool_size", VarType::kInt, true, true},
    {"innodb_deadlock_detect", VarType::kBool, true, true},
    {"innodb_flush_log_at_trx_commit", VarType::kInt, true, true},
    {"innodb_lock_wait_timeout", VarType::kInt, false, false, 1, 1073741824},
    {"innodb_page_size", VarType::kInt, true, true},
    {"innodb_snapshot_isolation", VarType::kBool, false, false},
    {"lock_wait_timeout", VarType::kInt, false, false, 1, 31536000},
    {"low_priority_updates", VarType::kBool, false, false},
    {"max_allowed_packet", VarType::kInt, true, true},
    {"max_write_lock_count", VarType::kInt, true, false, 1, INT64_MAX},
    {"progress_report_time", VarType::kInt, false, false, 0, 4294967295},
    {"sql_mode", VarType::kString, false, false},
    {"sql_notes", VarType::kBool, false, false},
    {"sql_quote_show_create", VarType::kBool, false, false},
    {"time_zone", VarType::kString, false, false},
    {"transaction_isolation", VarType::kEnum, false, false, 0, 0, kIsolationNames},
    {"transaction_read_only", VarType::kBool, false, false},
    {"unique_checks", VarType::kBool, false, false},
    {"version", VarType::kString, true, true},
    {"version_comment", VarType::kString, true, true},
};

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The registry entry for `name` (any case; tx_isolation and tx_read_only are aliases), or null.
const VarDef* FindVar(std::string_view name) {
  std::string lower = ToLowerAscii(name);
  if (lower == "tx_isolation") lower = "transaction_isolation";
  if (lower == "tx_read_only") lower = "transaction_read_only";
  for (const VarDef& d : kVars) {
    if (lower == d.name) return &d;
  }
  return nullptr;
}

SqlError Unknown(std::string_view name) {
  return SqlErr(kErUnknownSystemVariable, "Unknown system variable '", name, "'");
}

// As SHOW VARIABLES prints `v` ("ON"/"OFF" for bools).
std::string Printable(const VarDef& d, const Value& v) {
  if (v.is_null()) return "";
  if (d.type == VarType::kBool) return v.is_int() && v.as_int() != 0 ? "ON" : "OFF";
  if (v.is_int()) return std::to_string(v.as_int());
  if (v.is_string()) return v.as_string();
  return "";
}

// How `v` looks in a 1231 message.
std::string Shown(const Value& v) {
  if (v.is_null()) return "NULL";
  if (v.is_int()) return std::to_string(v.as_int());
  if (v.is_string()) return v.as_string();
  return std::to_string(v.as_double());
}

SqlError BadValue(std::string_view name, const Value& v) {
  return SqlErr(kErWrongValueForVar, "Variable '", name, "' can't be set to the value of '",
                Shown(v), "'");
}

SqlError BadType(std::string_view name) {
  return SqlErr(kErWrongTypeForVar, "Incorrect argument type to variable '", name, "'");
}

SqlResult<Value> NormalizeSqlMode(std::string_view name, const Value& v) {
  if (!v.is_string()) return v.is_int() ? BadValue(name, v) : BadType(name);
  std::string unknown;
  std::optional<std::array<bool, kSqlModeWordCount>> given = SqlModeWords(v.as_string(), &unknown);
  if (!given.has_value()) {
    return SqlErr(kErWrongValueForVar, "Variable '", name, "' can't be set to the value of '",
                  unknown, "'");
  }
  std::string out;
  for (size_t i = 0; i < kSqlModes.size(); ++i) {
    if (!(*given)[i]) continue;
    if (!out.empty()) out += ',';
    out += kSqlModes[i];
  }
  return Value::String(std::move(out));
}

// character_set_client, _connection and _results: the charsets SET NAMES takes (utf8mb4,
// utf8mb3 and its alias utf8), and for _results also binary (results sent as stored, which
// for minnow's UTF-8 text is what utf8mb4 sends). 1115 for a name MySQL does not know, 1235
// for one minnow lacks.
SqlResult<Value> NormalizeCharset(std::string_view name, const Value& v) {
  if (!v.is_string()) return v.is_int() ? BadValue(name, v) : BadType(name);
  const std::string cs = CanonicalCharset(v.as_string());
  if (cs == "utf8mb4" || cs == "utf8mb3") return Value::String(cs);
  if (cs == "binary" && name == "character_set_results") return Value::String(cs);
  if (DefaultCollation(cs) != nullptr || IsMysqlOnlyCharset(cs)) {
    return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support 'SET ", name,
                  " = ", cs, "'");
  }
  return SqlErr(kErUnknownCharacterSet, "Unknown character set: '", v.as_string(), "'");
}

// collation_connection: string literals compare under ConnectionCollation() alone.
SqlResult<Value> NormalizeConnectionCollation(std::string_view name, const Value& v) {
  if (!v.is_string()) return v.is_int() ? BadValue(name, v) : BadType(name);
  const Collation* c = FindCollation(v.as_string());
  if (c == nullptr) return SqlErr(kErUnknownCollation, "Unknown collation: '", v.as_string(), "'");
  if (c != &ConnectionCollation()) {
    return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support 'SET ", name,
                  " = ", c->name, "'");
  }
  return Value::String(std::string(c->name));
}

// 'SYSTEM' or an offset '+hh:mm' (MySQL's range); a named zone is 1298, as in a MySQL without
// the time zone tables loaded.
SqlResult<Value> NormalizeTimeZone(const Value& v) {
  if (!v.is_string()) return BadType("time_zone");
  std::optional<TimeZone> tz = ParseTimeZone(v.as_string());
  if (!tz.has_value()) {
    return SqlErr(kErUnknownTimeZone, "Unknown or incorrect time zone: '", v.as_string(), "'");
  }
  if (tz->system) return Value::String("SYSTEM");
  // Kept as MySQL prints an offset zone: '-3:30' is '-03:30', '-0:00' is '+00:00'.
  const int32_t minutes = std::abs(tz->offset_s) / 60;
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%c%02d:%02d", tz->offset_s < 0 ? '-' : '+', minutes / 60,
                minutes % 60);
  return Value::String(buf);
}

// `v` checked against `d` and put in its stored form. Integers out of range are clamped, as
// MySQL does (it warns; minnow has no warning to attach here).
SqlResult<Value> Normalize(const VarDef& d, std::string_view name, const Value& v) {
  if (v.is_null()) return BadValue(name, v);
  switch (d.type) {
    case VarType::kBool: {
      int64_t b = -1;
      if (v.is_int()) {
        if (v.as_int() == 0 || v.as_int() == 1) b = v.as_int();
      } else if (!v.is_string()) {
        return BadType(name);
      } else {
        const std::string u = Upper(v.as_string());
        if (u == "ON" || u == "TRUE" || u == "1") b = 1;
        if (u == "OFF" || u == "FALSE" || u == "0") b = 0;
      }
      if (b < 0) return BadValue(name, v);
      // SHOW CREATE TABLE always quotes names (an unquoted form would need MySQL's keyword
      // list to know which names must stay quoted).
      if (b == 0 && d.name == std::string_view("sql_quote_show_create")) {
        return SqlErr(kErNotSupportedYet,
                      "This version of minnow doesn't yet support 'SET sql_quote_show_create = 0'");
      }
      return Value::Int(b);
    }
    case VarType::kInt:
      if (!v.is_int()) return BadType(name);
      return Value::Int(std::clamp(v.as_int(), d.min, d.max));
    case VarType::kEnum: {
      if (v.is_int()) {
        if (v.as_int() < 0 || static_cast<size_t>(v.as_int()) >= d.choices.size()) {
          return BadValue(name, v);
        }
        return Value::String(d.choices[static_cast<size_t>(v.as_int())]);
      }
      if (!v.is_string()) return BadType(name);
      if (d.choices.data() == kIsolationNames.data()) {
        auto level = SessionVariables::ParseIsolation(v);
        if (!level.ok()) return BadValue(name, v);
        return Value::String(SessionVariables::IsolationName(*level));
      }
      const std::string u = Upper(v.as_string());
      for (const char* c : d.choices) {
        if (u == c) return Value::String(c);
      }
      return BadValue(name, v);
    }
    case VarType::kString: {
      const std::string_view n = d.name;
      if (n == "sql_mode") return NormalizeSqlMode(name, v);
      if (n == "time_zone") return NormalizeTimeZone(v);
      if (n == "collation_connection") return NormalizeConnectionCollation(n, v);
      return NormalizeCharset(n, v);  // character_set_client, _connection, _results
    }
  }
  return BadValue(name, v);
}

bool IsDefaultKeyword(const Value& v) { return v.is_string() && Upper(v.as_string()) == "DEFAULT"; }

std::map<std::string, Value, std::less<>> Defaults(const Options& options) {
  std::map<std::string, Value, std::less<>> m;
  m["alter_copy_lock_rows"] = Value::Int(1);  // MySQL's copy reads its source with S locks
  m["autocommit"] = Value::Int(1);
  for (const char* cs :
       {"character_set_client", "character_set_connection", "character_set_database",
        "character_set_results", "character_set_server"}) {
    m[cs] = Value::String("utf8mb4");
  }
  // What string literals compare under (collation.h's ConnectionCollation), and the default of
  // a table that names no charset.
  m["collation_connection"] = Value::String(std::string(ConnectionCollation().name));
  m["collation_server"] = Value::String(std::string(DefaultCollation("utf8mb4")->name));
  m["collation_database"] = Value::String(std::string(DefaultCollation("utf8mb4")->name));
  m["concurrent_insert"] = Value::String("AUTO");
  m["foreign_key_checks"] = Value::Int(1);
  m["group_concat_max_len"] = Value::Int(1024);
  m["innodb_autoinc_lock_mode"] = Value::Int(2);
  m["innodb_buffer_pool_size"] = Value::Int(static_cast<int64_t>(options.buffer_pool_bytes));
  m["innodb_deadlock_detect"] = Value::Int(options.deadlock_detect ? 1 : 0);
  m["innodb_flush_log_at_trx_commit"] = Value::Int(options.flush_log_at_trx_commit);
  m["innodb_lock_wait_timeout"] =
      Value::Int(std::max<int64_t>(1, options.lock_wait_timeout_ms / 1000));
  m["innodb_page_size"] = Value::Int(16384);
  m["innodb_snapshot_isolation"] = Value::Int(0);  // MariaDB 10.6-11.7's default
  m["lock_wait_timeout"] = Value::Int(31536000);
  m["low_priority_updates"] = Value::Int(0);
  m["max_allowed_packet"] = Value::Int(kMaxAllowedPacket);
  // MySQL's default is 2^64 - 1 (no limit); a signed value stops at 2^63 - 1, as unlimited.
  m["max_write_lock_count"] = Value::Int(INT64_MAX);
  m["progress_report_time"] = Value::Int(5);  // MariaDB's default
  m["sql_mode"] = Value::String(kDefaultSqlMode);
  m["sql_notes"] = Value::Int(1);
  m["sql_quote_show_create"] = Value::Int(1);
  m["time_zone"] = Value::String("SYSTEM");
  m["transaction_isolation"] = Value::String("REPEATABLE-READ");
  m["transaction_read_only"] = Value::Int(0);
  m["unique_checks"] = Value::Int(1);
  m["version"] = Value::String(kServerVersion);  // clients expect an 8.0 server
  m["version_comment"] = Value::String("minnow");
  return m;
}

}  // namespace

SystemVariables::SystemVariables(const Options& options) : defaults_(Defaults(options)) {
  global_ = defaults_;
}

SqlResult<Value> SystemVariables::GetGlobal(std::string_view name) const {
  const VarDef* d = FindVar(name);
  if (d == nullptr) return Unknown(name);
  LatchGuard g(latch_);
  return global_.at(d->name);
}

SqlStatus SystemVariables::SetGlobal(std::string_view name, const Value& v) {
  const VarDef* d = FindVar(name);
  if (d == nullptr) return Unknown(name);
  if (d->read_only) {
    return SqlErr(kErVariableIsReadonly, "Variable '", name, "' is a read only variable");
  }
  Value value;
  if (IsDefaultKeyword(v)) {
    value = defaults_.at(d->name);
  } else {
    SQL_ASSIGN_OR_RETURN(value, Normalize(*d, name, v));
  }
  LatchGuard g(latch_);
  global_[d->name] = std::move(value);
  return SqlStatus::OK();
}

SqlStatus SystemVariables::SetGlobalToDefault(std::string_view name) {
  const VarDef* d = FindVar(name);
  if (d == nullptr) return Unknown(name);
  return SetGlobal(name, Value::String("DEFAULT"));
}

SessionVariables SystemVariables::NewSession() const {
  SessionVariables s(this);
  LatchGuard g(latch_);
  for (const VarDef& d : kVars) {
    if (!d.global_only) s.session_[d.name] = global_.at(d.name);
  }
  s.sql_mode_ = FlagsOf(s.session_.at("sql_mode").as_string());
  return s;
}

std::vector<std::pair<std::string, std::string>> SystemVariables::ListGlobal() const {
  std::vector<std::pair<std::string, std::string>> out;
  LatchGuard g(latch_);
  for (const auto& [name, value] : global_)
    out.emplace_back(name, Printable(*FindVar(name), value));
  return out;
}

SqlResult<Value> SessionVariables::Get(std::string_view name) const {
  const VarDef* d = FindVar(name);
  if (d == nullptr) return Unknown(name);
  if (auto it = session_.find(d->name); it != session_.end()) return it->second;
  return global_->GetGlobal(d->name);
}

SqlStatus SessionVariables::Set(std::string_view name, const Value& v) {
  const VarDef* d = FindVar(name);
  if (d == nullptr) return Unknown(name);
  if (d->read_only) {
    return SqlErr(kErVariableIsReadonly, "Variable '", name, "' is a read only variable");
  }
  if (d->global_only) {
    return SqlErr(kErIncorrectGlobalLocalVar, "Variable '", name,
                  "' is a GLOBAL variable and should be set with SET GLOBAL");
  }
  Value value;
  if (IsDefaultKeyword(v)) {  // SET SESSION x = DEFAULT: the global value, as MySQL
    SQL_ASSIGN_OR_RETURN(value, global_->GetGlobal(d->name));
  } else {
    SQL_ASSIGN_OR_RETURN(value, Normalize(*d, name, v));
  }
  session_[d->name] = std::move(value);
  if (d->name == std::string_view("sql_mode")) sql_mode_ = FlagsOf(session_[d->name].as_string());
  return SqlStatus::OK();
}

SqlStatus SessionVariables::SetToDefault(std::string_view name) {
  return Set(name, Value::String("DEFAULT"));
}

SqlStatus SessionVariables::SetNames(std::string_view charset, std::string_view collation) {
  std::string cs = CanonicalCharset(charset);
  if (cs == "default") cs = "utf8mb4";
  if (cs != "utf8mb4" && cs != "utf8mb3") {
    if (DefaultCollation(cs) != nullptr || IsMysqlOnlyCharset(cs)) {
      return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support 'SET NAMES ",
                    cs, "'");
    }
    return SqlErr(kErUnknownCharacterSet, "Unknown character set: '", cs, "'");
  }
  if (!collation.empty()) {
    const Collation* c = FindCollation(collation);
    if (c == nullptr) return SqlErr(kErUnknownCollation, "Unknown collation: '", collation, "'");
    if (c->charset != cs) {
      return SqlErr(kErCollationCharsetMismatch, "COLLATION '", c->name,
                    "' is not valid for CHARACTER SET '", cs, "'");
    }
    // String literals always compare under ConnectionCollation(): another would be a lie.
    if (c != &ConnectionCollation()) {
      return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support 'SET NAMES ",
                    cs, " COLLATE ", c->name, "'");
    }
  }
  for (const char* name :
       {"character_set_client", "character_set_connection", "character_set_results"}) {
    session_[name] = Value::String(cs);
  }
  return SqlStatus::OK();
}

std::string SessionVariables::results_charset() const {
  return session_.at("character_set_results").as_string();
}

std::vector<std::pair<std::string, std::string>> SessionVariables::List() const {
  std::vector<std::pair<std::string, std::string>> out = global_->ListGlobal();
  for (auto& [name, printed] : out) {
    if (auto it = session_.find(name); it != session_.end()) {
      printed = Printable(*FindVar(name), it->second);
    }
  }
  return out;
}

bool SessionVariables::alter_copy_lock_rows() const {
  return session_.at("alter_copy_lock_rows").as_int() != 0;
}

SqlModeFlags SessionVariables::sql_mode() const { return sql_mode_; }

TimeZone SessionVariables::time_zone() const {
  return ParseTimeZone(session_.at("time_zone").as_string()).value_or(TimeZone{});
}

bool SessionVariables::sql_notes() const { return session_.at("sql_notes").as_int() != 0; }

bool SessionVariables::autocommit() const { return session_.at("autocommit").as_int() != 0; }

bool SessionVariables::low_priority_updates() const {
  return session_.at("low_priority_updates").as_int() != 0;
}

bool SessionVariables::innodb_snapshot_isolation() const {
  return session_.at("innodb_snapshot_isolation").as_int() != 0;
}

IsolationLevel SessionVariables::isolation() const {
  auto level = ParseIsolation(session_.at("transaction_isolation"));
  return level.ok() ? *level : IsolationLevel::kRepeatableRead;
}

uint32_t SessionVariables::innodb_lock_wait_timeout_s() const {
  return static_cast<uint32_t>(session_.at("innodb_lock_wait_timeout").as_int());
}

uint32_t SessionVariables::lock_wait_timeout_s() const {
  return static_cast<uint32_t>(session_.at("lock_wait_timeout").as_int());
}

SqlResult<IsolationLevel> SessionVariables::ParseIsolation(const Value& v) {
  if (v.is_int() && v.as_int() >= 0 && v.as_int() < 4) {
    return static_cast<IsolationLevel>(v.as_int());
  }
  const SqlError bad = BadValue("transaction_isolation", v);
  if (!v.is_string()) return bad;
  std::string u = Upper(v.as_string());
  std::replace(u.begin(), u.end(), ' ', '-');  // "repeatable read", SET TRANSACTION's form
  for (size_t i = 0; i < kIsolationNames.size(); ++i) {
    if (u == kIsolationNames[i]) return static_cast<IsolationLevel>(i);
  }
  return bad;
}

const char* SessionVariables::IsolationName(IsolationLevel level) {
  return kIsolationNames[static_cast<size_t>(level)];
}

}  // namespace minnow::sql
