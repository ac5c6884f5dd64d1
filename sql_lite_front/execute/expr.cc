// Binding and evaluation of expressions (expr.h).

#include "sql_lite_front/execute/expr.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/uuid/detail/md5.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <functional>
#include <limits>
#include <vector>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/execute/arithmetic.h"
#include "sql_lite_front/execute/calendar_functions.h"
#include "sql_lite_front/execute/cast.h"
#include "sql_lite_front/execute/date_functions.h"
#include "sql_lite_front/execute/expr_type.h"
#include "sql_lite_front/execute/math_functions.h"
#include "sql_lite_front/execute/str_to_date.h"
#include "sql_lite_front/execute/string_functions.h"
#include "sql_lite_front/execute/subquery.h"
#include "sql_lite_front/execute/time_functions.h"
#include "sql_lite_front/parse/ast_walk.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/parse/row_constructor.h"
#include "sql_lite_front/session/diagnostics.h"
#include "sql_lite_front/session/variables.h"
#include "sql_lite_front/version.h"

namespace minnow::sql {

bool IsAggregateName(std::string_view n, AggFunc* f) {
  static constexpr std::pair<std::string_view, AggFunc> kAggs[] = {
      {"count", AggFunc::kCount},       {"sum", AggFunc::kSum},
      {"min", AggFunc::kMin},           {"max", AggFunc::kMax},
      {"avg", AggFunc::kAvg},           {"group_concat", AggFunc::kGroupConcat},
      {"std", AggFunc::kStdPop},        {"stddev", AggFunc::kStdPop},
      {"stddev_pop", AggFunc::kStdPop}, {"stddev_samp", AggFunc::kStdSamp},
      {"variance", AggFunc::kVarPop},   {"var_pop", AggFunc::kVarPop},
      {"var_samp", AggFunc::kVarSamp},  {"bit_and", AggFunc::kBitAnd},
      {"bit_or", AggFunc::kBitOr},      {"bit_xor", AggFunc::kBitXor},
      {"grouping", AggFunc::kGrouping},
  };
  for (const auto& [name, func] : kAggs) {
    if (n == name) {
      if (f != nullptr) *f = func;
      return true;
    }
  }
  return false;
}

namespace {

struct FuncInfo {
  std::string_view name;
  Func func;
  int min_args, max_args;  // max -1: any
};
constexpr FuncInfo kFuncs[] = {
    {"md5", Func::kMd5, 1, 1},
    {"rand", Func::kRand, 0, 1},
    {"concat", Func::kConcat, 1, -1},
    {"length", Func::kLength, 1, 1},
    {"octet_length", Func::kLength, 1, 1},
    {"char_length", Func::kCharLength, 1, 1},
    {"character_length", Func::kCharLength, 1, 1},
    {"lower", Func::kLower, 1, 1},
    {"lcase", Func::kLower, 1, 1},
    {"upper", Func::kUpper, 1, 1},
    {"ucase", Func::kUpper, 1, 1},
    {"abs", Func::kAbs, 1, 1},
    {"ifnull", Func::kIfNull, 2, 2},
    {"coalesce", Func::kCoalesce, 1, -1},
    {"if", Func::kIf, 3, 3},
    {"floor", Func::kFloor, 1, 1},
    {"ceil", Func::kCeil, 1, 1},
    {"ceiling", Func::kCeil, 1, 1},
    {"round", Func::kRound, 1, 2},
    {"mod", Func::kMod, 2, 2},
    {"repeat", Func::kRepeat, 2, 2},
    {"substring", Func::kSubstring, 2, 3},
    {"substr", Func::kSubstring, 2, 3},
    {"mid", Func::kSubstring, 3, 3},
    {"left", Func::kLeft, 2, 2},
    {"right", Func::kRight, 2, 2},
    {"trim", Func::kTrim, 1, 1},
    {"ltrim", Func::kLtrim, 1, 1},
    {"rtrim", Func::kRtrim, 1, 1},
    // TRIM({BOTH | LEADING | TRAILING} remstr FROM s), from the parser: (s, remstr).
    {" trim both", Func::kTrim, 2, 2},
    {" trim leading", Func::kLtrim, 2, 2},
    {" trim trailing", Func::kRtrim, 2, 2},
    {"replace", Func::kReplace, 3, 3},
    {"concat_ws", Func::kConcatWs, 2, -1},
    {"lpad", Func::kLpad, 3, 3},
    {"rpad", Func::kRpad, 3, 3},
    {"locate", Func::kLocate, 2, 3},
    {"instr", Func::kInstr, 2, 2},
    {"reverse", Func::kReverse, 1, 1},
    {"hex", Func::kHex, 1, 1},
    {"nullif", Func::kNullIf, 2, 2},
    {"sysdate", Func::kSysdate, 0, 1},
    {"date", Func::kDateOf, 1, 1},
    {"year", Func::kYear, 1, 1},
    {"month", Func::kMonth, 1, 1},
    {"day", Func::kDayOfMonth, 1, 1},
    {"dayofmonth", Func::kDayOfMonth, 1, 1},
    {"hour", Func::kHour, 1, 1},
    {"minute", Func::kMinute, 1, 1},
    {"second", Func::kSecond, 1, 1},
    {"date_format", Func::kDateFormat, 2, 2},
    {"date_add", Func::kDateAdd, 3, 3},
    {"adddate", Func::kDateAdd, 3, 3},
    {"date_sub", Func::kDateSub, 3, 3},
    {"subdate", Func::kDateSub, 3, 3},
    {"timestampadd", Func::kTimestampAdd, 3, 3},
    {"datediff", Func::kDateDiff, 2, 2},
    {"timestampdiff", Func::kTimestampDiff, 3, 3},
    {"unix_timestamp", Func::kUnixTimestamp, 0, 1},
    {"from_unixtime", Func::kFromUnixtime, 1, 2},
    {"str_to_date", Func::kStrToDate, 2, 2},
    {"sign", Func::kSign, 1, 1},
    {"pow", Func::kPow, 2, 2},
    {"power", Func::kPow, 2, 2},
    {"sqrt", Func::kSqrt, 1, 1},
    {"exp", Func::kExp, 1, 1},
    {"ln", Func::kLn, 1, 1},
    {"log", Func::kLog, 1, 2},
    {"log2", Func::kLog2, 1, 1},
    {"log10", Func::kLog10, 1, 1},
    {"sin", Func::kSin, 1, 1},
    {"cos", Func::kCos, 1, 1},
    {"tan", Func::kTan, 1, 1},
    {"asin", Func::kAsin, 1, 1},
    {"acos", Func::kAcos, 1, 1},
    {"atan", Func::kAtan, 1, 2},
    {"atan2", Func::kAtan, 2, 2},
    {"cot", Func::kCot, 1, 1},
    {"radians", Func::kRadians, 1, 1},
    {"degrees", Func::kDegrees, 1, 1},
    {"truncate", Func::kTruncate, 2, 2},
    {"greatest", Func::kGreatest, 2, -1},
    {"least", Func::kLeast, 2, -1},
    {"crc32", Func::kCrc32, 1, 1},
    {"bit_count", Func::kBitCount, 1, 1},
    {"conv", Func::kConv, 3, 3},
    {"bin", Func::kBin, 1, 1},
    {"oct", Func::kOct, 1, 1},
    {"format", Func::kFormat, 2, 3},
    {"pi", Func::kPi, 0, 0},
    {"uuid_short", Func::kUuidShort, 0, 0},
    {"ascii", Func::kAscii, 1, 1},
    {"ord", Func::kOrd, 1, 1},
    {"space", Func::kSpace, 1, 1},
    {"strcmp", Func::kStrcmp, 2, 2},
    {"field", Func::kField, 2, -1},
    {"elt", Func::kElt, 2, -1},
    {"substring_index", Func::kSubstringIndex, 3, 3},
    {"insert", Func::kInsertString, 4, 4},
    {"find_in_set", Func::kFindInSet, 2, 2},
    {"unhex", Func::kUnhex, 1, 1},
    {"sha1", Func::kSha1, 1, 1},
    {"sha", Func::kSha1, 1, 1},
    {"sha2", Func::kSha2, 2, 2},
    {"uuid", Func::kUuid, 0, 0},
    {"char", Func::kChar, 1, -1},
    {"to_base64", Func::kToBase64, 1, 1},
    {"from_base64", Func::kFromBase64, 1, 1},
    {"quote", Func::kQuote, 1, 1},
    {"isnull", Func::kIsNull, 1, 1},
    {"weekday", Func::kWeekday, 1, 1},
    {"dayofweek", Func::kDayOfWeek, 1, 1},
    {"dayname", Func::kDayName, 1, 1},
    {"dayofyear", Func::kDayOfYear, 1, 1},
    {"to_days", Func::kToDays, 1, 1},
    {"week", Func::kWeek, 1, 2},
    {"yearweek", Func::kYearWeek, 1, 2},
    {"monthname", Func::kMonthName, 1, 1},
    {"quarter", Func::kQuarter, 1, 1},
    {"last_day", Func::kLastDay, 1, 1},
    {"makedate", Func::kMakeDate, 2, 2},
    {"from_days", Func::kFromDays, 1, 1},
    {"time", Func::kTimeOf, 1, 1},
    {"timediff", Func::kTimeDiff, 2, 2},
    {"time_to_sec", Func::kTimeToSec, 1, 1},
    {"sec_to_time", Func::kSecToTime, 1, 1},
    {"addtime", Func::kAddTime, 2, 2},
    {"subtime", Func::kSubTime, 2, 2},
    {"maketime", Func::kMakeTime, 3, 3},
    {"time_format", Func::kTimeFormat, 2, 2},
    {"microsecond", Func::kMicrosecond, 1, 1},
};

std::string TextOf(const Value& v) { return v.is_string() ? v.as_string() : v.ToString(); }

}  // namespace

Value HexLiteralNumber(std::string_view bytes) {
  uint64_t n = 0;
  for (unsigned char c : bytes) n = n << 8 | c;
  return Value::UInt(n);
}

void ReadHexAsNumber(bool numeric, BoundExpr* b) {
  if (!numeric || b->kind != BoundExpr::Kind::kLiteral || !b->hex_literal) return;
  b->value = HexLiteralNumber(b->value.as_string());
  b->hex_literal = false;
  b->collation = nullptr;
  b->is_unsigned = true;
  b->type = TypeClass::kInt;
}

bool ResultTooLarge(uint64_t bytes, const char* func, EvalState& st) {
  if (bytes <= static_cast<uint64_t>(kMaxAllowedPacket)) return false;
  if (!st.error.has_value()) {
    st.error = SqlError{kErWarnAllowedPacketOverflowed,
                        fmt::format("Result of {}() was larger than max_allowed_packet ({}) - "
                                    "truncated",
                                    func, kMaxAllowedPacket)};
  }
  return true;
}

namespace {

BoundExpr Literal(Value v) {
  BoundExpr b;
  b.kind = BoundExpr::Kind::kLiteral;
  b.value = std::move(v);
  return b;
}

// Statement constants: functions whose value is fixed for the statement.
SqlResult<bool> BindConstantFunction(const Expr& e, const ExecContext& ctx, BoundExpr* out) {
  const std::string& n = e.name;
  const TimeZone tz = ctx.session != nullptr ? ctx.session->vars.time_zone() : TimeZone{};
  SQL_ASSIGN_OR_RETURN(std::optional<Value> now, BindStatementTime(e, ctx.now_us, tz));
  if (now.has_value()) {
    *out = Literal(std::move(*now));
    return true;
  }
  if (!e.args.empty()) return false;
  if (n == "connection_id") {
    *out = Literal(Value::Int(ctx.session != nullptr ? static_cast<int64_t>(ctx.session->id) : 0));
  } else if (n == "last_insert_id") {
    *out = Literal(
        Value::Int(ctx.last_insert_id != nullptr ? static_cast<int64_t>(*ctx.last_insert_id) : 0));
  } else if (n == "row_count" || n == "found_rows") {  // the previous statement's
    const SessionState* s = ctx.session;
    *out = Literal(n == "row_count"
                       ? Value::Int(s != nullptr ? s->row_count : -1)
                       : Value::Int(static_cast<int64_t>(s != nullptr ? s->found_rows : 0)));
  } else if (n == "database" || n == "schema") {
    const std::string db = ctx.session != nullptr ? ctx.session->Database() : kDefaultDatabase;
    *out = Literal(db.empty() ? Value::Null() : Value::String(db));
  } else if (n == "user" || n == "current_user" || n == "session_user" || n == "system_user") {
    // The client's account ('name@host'), as the server authenticated it; '' in the shell.
    *out = Literal(Value::String(ctx.session != nullptr ? ctx.session->user : ""));
  } else if (n == "version") {
    *out = Literal(Value::String(kServerVersion));
  } else {
    return false;
  }
  return true;
}

SqlResult<Value> ReadVariable(const Expr& e, const ExecContext& ctx) {
  if (e.var_scope == VarScope::kUser) {  // @x: NULL when unset
    if (ctx.session == nullptr) return Value::Null();
    auto it = ctx.session->user_vars.find(e.name);
    return it == ctx.session->user_vars.end() ? Value::Null() : it->second;
  }
  if (ctx.session != nullptr) {
    if (std::optional<SqlResult<Value>> d =
            ReadDiagnosticsVariable(e.name, e.var_scope, ctx.session->diagnostics)) {
      return std::move(*d);
    }
  }
  if (e.var_scope == VarScope::kGlobal || ctx.session == nullptr) {
    if (ctx.engine == nullptr)
      return SqlErr(kErUnknownSystemVariable, "Unknown system variable '", e.name, "'");
    return ctx.engine->variables.GetGlobal(e.name);
  }
  return ctx.session->vars.Get(e.name);
}

int64_t ClampToInt(double d, bool* fits) {
  *fits = d >= -9.2233720368547758e18 && d < 9.2233720368547758e18;
  return *fits ? static_cast<int64_t>(d) : 0;
}

Value Bool(bool b) { return Value::Int(b ? 1 : 0); }

// REPEAT, SUBSTRING, LEFT, ... (Func's text functions): NULL in any argument gives NULL.
Value EvalTextFunction(const BoundExpr& e, const Row& row, EvalState& st) {
  std::vector<Value> a;
  a.reserve(e.args.size());
  for (const BoundExpr& x : e.args) {
    a.push_back(Eval(x, row, st));
    // CONCAT_WS skips NULLs after its separator; every other one is NULL on a NULL.
    if (a.back().is_null() && (e.func != Func::kConcatWs || a.size() == 1)) return Value::Null();
  }
  const Collation& coll = CollationOf(e);
  auto text = [&](size_t i) { return TextOf(a[i]); };
  auto integer = [&](size_t i) { return a[i].ToInt(); };
  switch (e.func) {
    case Func::kRepeat: {
      std::string s = text(0);
      const int64_t n = integer(1);
      if (n <= 0 || s.empty()) return Value::String("");
      // n beyond the limit is too large whatever s is (and s.size() * n cannot overflow).
      const uint64_t size = std::min<uint64_t>(n, kMaxAllowedPacket + 1) * s.size();
      if (ResultTooLarge(size, "repeat", st)) return Value::Null();
      std::string out;
      out.reserve(s.size() * static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) out += s;
      return Value::String(std::move(out));
    }
    case Func::kSubstring: {
      // SUBSTRING(s, pos[, len]): pos 1 is the first character, a negative pos counts from
      // the end, pos 0 gives ''.
      std::string s = text(0);
      const std::vector<size_t> c = CharStarts(coll, s);
      const int64_t chars = static_cast<int64_t>(c.size()) - 1;
      int64_t pos = integer(1);
      int64_t len = a.size() > 2 ? integer(2) : chars;
      if (pos == 0 || len <= 0) return Value::String("");
      int64_t first = pos > 0 ? pos - 1 : chars + pos;
      if (first < 0 || first >= chars) return Value::String("");
      int64_t last = std::min(chars, first + std::min(len, chars));
      return Value::String(s.substr(c[first], c[last] - c[first]));
    }
    case Func::kLeft:
    case Func::kRight: {
      std::string s = text(0);
      const std::vector<size_t> c = CharStarts(coll, s);
      const int64_t chars = static_cast<int64_t>(c.size()) - 1;
      const int64_t n = std::clamp<int64_t>(integer(1), 0, chars);
      if (e.func == Func::kLeft) return Value::String(s.substr(0, c[n]));
      return Value::String(s.substr(c[chars - n]));
    }
    case Func::kTrim:
    case Func::kLtrim:
    case Func::kRtrim: {
      // Whole copies of remstr (spaces for TRIM(s), LTRIM and RTRIM), byte for byte as MySQL.
      std::string s = text(0);
      const std::string rem = a.size() > 1 ? text(1) : " ";
      size_t b = 0, end = s.size();
      if (rem.empty()) return Value::String(std::move(s));
      if (e.func != Func::kRtrim) {
        while (end - b >= rem.size() && s.compare(b, rem.size(), rem) == 0) b += rem.size();
      }
      if (e.func != Func::kLtrim) {
        while (end - b >= rem.size() && s.compare(end - rem.size(), rem.size(), rem) == 0) {
          end -= rem.size();
        }
      }
      return Value::String(s.substr(b, end - b));
    }
    case Func::kReplace: {
      // Byte-exact matches, as MySQL's REPLACE (case-sensitive under any collation).
      std::string s = text(0), from = text(1), to = text(2);
      if (from.empty()) return Value::String(std::move(s));
      std::string out;
      size_t at = 0;
      for (size_t hit; (hit = s.find(from, at)) != std::string::npos; at = hit + from.size()) {
        out.append(s, at, hit - at);
        out += to;
        if (ResultTooLarge(out.size(), "replace", st)) return Value::Null();
      }
      out.append(s, at, std::string::npos);
      return Value::String(std::move(out));
    }
    case Func::kConcatWs: {
      const std::string sep = text(0);
      std::string out;
      bool first = true;
      for (size_t i = 1; i < a.size(); ++i) {
        if (a[i].is_null()) continue;
        if (!first) out += sep;
        out += text(i);
        first = false;
      }
      return Value::String(std::move(out));
    }
    case Func::kLpad:
    case Func::kRpad: {
      std::string s = text(0), pad = text(2);
      const int64_t len = integer(1);
      if (len < 0) return Value::Null();
      const std::vector<size_t> c = CharStarts(coll, s);
      const int64_t chars = static_cast<int64_t>(c.size()) - 1;
      if (len <= chars) return Value::String(s.substr(0, c[len]));
      const std::vector<size_t> p = CharStarts(coll, pad);
      const int64_t pad_chars = static_cast<int64_t>(p.size()) - 1;
      if (pad_chars == 0) return Value::Null();  // nothing to pad with
      // `need` characters of pad: whole copies, then the start of one. Every character is a
      // byte or more, so a `need` beyond the limit is too large (and the size cannot overflow).
      const int64_t need = len - chars;
      const uint64_t copies = need / pad_chars;
      const uint64_t size = need > kMaxAllowedPacket
                                ? kMaxAllowedPacket + 1
                                : s.size() + copies * pad.size() + p[need % pad_chars];
      if (ResultTooLarge(size, e.func == Func::kLpad ? "lpad" : "rpad", st)) return Value::Null();
      std::string fill;
      fill.reserve(copies * pad.size() + pad.size());
      for (uint64_t i = 0; i < copies; ++i) fill += pad;
      fill += pad.substr(0, p[need % pad_chars]);
      return Value::String(e.func == Func::kLpad ? fill + s : s + fill);
    }
    case Func::kLocate:
    case Func::kInstr: {
      // LOCATE(substr, s[, pos]) / INSTR(s, substr): the character position of the first match
      // at or after pos (1-based), 0 if none; matches compare under the collation.
      const bool instr = e.func == Func::kInstr;
      std::string needle = text(instr ? 1 : 0), hay = text(instr ? 0 : 1);
      const int64_t pos = a.size() > 2 ? integer(2) : 1;
      const std::vector<size_t> c = CharStarts(coll, hay);
      const std::vector<size_t> nc = CharStarts(coll, needle);
      const int64_t chars = static_cast<int64_t>(c.size()) - 1;
      const int64_t nchars = static_cast<int64_t>(nc.size()) - 1;
      if (pos < 1 || pos > chars + 1) return Value::Int(0);
      for (int64_t i = pos - 1; i + nchars <= chars; ++i) {
        std::string_view part(hay.data() + c[i], c[i + nchars] - c[i]);
        if (CollationCompare(coll, part, needle) == 0) return Value::Int(i + 1);
      }
      return Value::Int(0);
    }
    case Func::kReverse: {
      std::string s = text(0);
      const std::vector<size_t> c = CharStarts(coll, s);
      std::string out;
      out.reserve(s.size());
      for (size_t i = c.size() - 1; i > 0; --i) out.append(s, c[i - 1], c[i] - c[i - 1]);
      return Value::String(std::move(out));
    }
    case Func::kHex: {
      // HEX(n) of a number: its integer value in hexadecimal (two's complement for negative);
      // HEX(s) of a string: two digits per byte.
      static constexpr char kDigits[] = "0123456789ABCDEF";
      if (!a[0].is_string() && !a[0].is_temporal()) {
        uint64_t n = a[0].is_uint()  ? a[0].as_uint()
                     : a[0].is_int() ? static_cast<uint64_t>(a[0].as_int())
                                     : static_cast<uint64_t>(std::llround(a[0].ToDouble()));
        return Value::String(fmt::format("{:X}", n));
      }
      const std::string s = TextOf(a[0]);
      std::string out;
      out.reserve(s.size() * 2);
      for (unsigned char ch : s) {
        out += kDigits[ch >> 4];
        out += kDigits[ch & 15];
      }
      return Value::String(std::move(out));
    }
    default:
      break;
  }
  return Value::Null();
}

Value EvalFunction(const BoundExpr& e, const Row& row, EvalState& st) {
  auto arg = [&](size_t i) { return Eval(e.args[i], row, st); };
  switch (e.func) {
    case Func::kMd5: {
      Value v = arg(0);
      if (v.is_null()) return v;
      return Value::String(Md5Hex(TextOf(v)));
    }
    case Func::kRand: {
      if (!e.args.empty()) {
        // rand(seed): the first call seeds the statement's generator, as MySQL's rand(N) is a
        // fixed sequence for a given N.
        if (!st.rand_seeded) {
          Value seed = arg(0);
          st.rng.seed(static_cast<uint64_t>(seed.is_null() ? 0 : seed.ToInt()));
          st.rand_seeded = true;
        }
      }
      return Value::Double(static_cast<double>(st.rng() >> 11) * 0x1.0p-53);
    }
    case Func::kConcat: {
      std::string out;
      for (size_t i = 0; i < e.args.size(); ++i) {
        Value v = arg(i);
        if (v.is_null()) return v;
        out += TextOf(v);
      }
      return Value::String(std::move(out));
    }
    case Func::kLength:
    case Func::kCharLength: {
      Value v = arg(0);
      if (v.is_null()) return v;
      std::string s = TextOf(v);
      // LENGTH counts bytes; CHAR_LENGTH characters (bytes for a binary string).
      const bool bytes = e.func == Func::kLength || CollationOf(e).kind == Collation::Kind::kBytes;
      return Value::Int(static_cast<int64_t>(bytes ? s.size() : Utf8Length(s)));
    }
    case Func::kLower:
    case Func::kUpper: {
      Value v = arg(0);
      if (v.is_null()) return v;
      std::string s = TextOf(v);
      // A binary string has no letters (MySQL returns it unchanged).
      if (CollationOf(e).kind == Collation::Kind::kBytes) return Value::String(std::move(s));
      return Value::String(e.func == Func::kLower ? Utf8Lower(s) : Utf8Upper(s));
    }
    case Func::kAbs: {
      Value v = arg(0);
      if (v.is_null()) return v;
      if (v.is_int() && v.as_int() < 0) return EvalNegation(e, v, st);
      if (v.is_integer()) return v;
      if (v.is_decimal()) return v.as_decimal().is_negative() ? EvalNegation(e, v, st) : v;
      return Value::Double(std::fabs(v.ToDouble()));
    }
    case Func::kIfNull: {
      Value v = arg(0);
      return CoerceToType(v.is_null() ? arg(1) : std::move(v), e);
    }
    case Func::kCoalesce:
      for (size_t i = 0; i < e.args.size(); ++i) {
        Value v = arg(i);
        if (!v.is_null()) return CoerceToType(std::move(v), e);
      }
      return Value::Null();
    case Func::kIf:
      return CoerceToType(arg(0).IsTrue() ? arg(1) : arg(2), e);
    case Func::kNullIf: {
      // NULLIF(a, b): NULL when a = b, else a.
      Value a = arg(0);
      if (a.is_null()) return a;
      Value b = arg(1);
      if (!b.is_null() && CompareUnder(a, b, CollationOf(e)) == 0) return Value::Null();
      return CoerceToType(std::move(a), e);
    }
    case Func::kFloor:
    case Func::kCeil: {
      Value v = arg(0);
      if (v.is_null() || v.is_integer()) return v;
      if (v.is_decimal()) {
        return IntegerIfFits(e.func == Func::kFloor ? v.as_decimal().Floor()
                                                    : v.as_decimal().Ceil());
      }
      double d = e.func == Func::kFloor ? std::floor(v.ToDouble()) : std::ceil(v.ToDouble());
      bool fits;
      int64_t i = ClampToInt(d, &fits);
      return fits ? Value::Int(i) : Value::Double(d);
    }
    case Func::kRound: {
      Value v = arg(0);
      if (v.is_null()) return v;
      int64_t digits = 0;
      if (e.args.size() > 1) {
        Value d = arg(1);
        if (d.is_null()) return d;
        digits = d.ToInt();
      }
      return EvalRound(e, v, digits, st);
    }
    case Func::kMod:
      return EvalArithmetic(e, arg(0), arg(1), st);  // bound with binary_op kMod
    case Func::kSysdate:
    case Func::kDateOf:
    case Func::kYear:
    case Func::kMonth:
    case Func::kDayOfMonth:
    case Func::kDateFormat:
    case Func::kDateAdd:
    case Func::kDateSub:
    case Func::kTimestampAdd:
    case Func::kDateDiff:
    case Func::kTimestampDiff:
    case Func::kUnixTimestamp:
    case Func::kFromUnixtime:
      return EvalDateFunction(e, row, st);
    case Func::kStrToDate:
      return StrToDate(arg(0), arg(1), st);
    default:
      if (IsMathFunction(e.func)) return EvalMathFunction(e, row, st);
      if (IsStringFunction(e.func)) return EvalStringFunction(e, row, st);
      if (IsCalendarFunction(e.func)) return EvalCalendarFunction(e, row, st);
      if (IsTimeFunction(e.func)) return EvalTimeFunction(e, row, st);
      return EvalTextFunction(e, row, st);
  }
  return Value::Null();
}

// CASE: the THEN value of the first WHEN that holds (with an operand: equals it; NULL never
// does), else ELSE's value or NULL.
Value EvalCase(const BoundExpr& e, const Row& row, EvalState& st) {
  size_t i = 0;
  Value operand;
  if (e.case_operand) {
    operand = Eval(e.args[0], row, st);
    i = 1;
  }
  const size_t pairs_end = e.args.size() - (e.case_else ? 1 : 0);
  const Collation& coll =
      e.compare_collation != nullptr ? *e.compare_collation : ConnectionCollation();
  for (; i + 1 < pairs_end; i += 2) {
    Value when = Eval(e.args[i], row, st);
    const bool holds = e.case_operand ? !operand.is_null() && !when.is_null() &&
                                            CompareUnder(operand, when, coll) == 0
                                      : when.IsTrue();
    if (holds) return CoerceToType(Eval(e.args[i + 1], row, st), e);
  }
  if (e.case_else) return CoerceToType(Eval(e.args.back(), row, st), e);
  return Value::Null();
}

}  // namespace

int CompareUnder(const Value& a, const Value& b, const Collation& c) {
  if (a.is_string() && b.is_string()) return CollationCompare(c, a.as_string(), b.as_string());
  // An ENUM or SET value meets text as its text (Value::Compare orders two of one column by
  // number, and one with a number numerically).
  const bool a_text = a.is_string() || a.is_enum(), b_text = b.is_string() || b.is_enum();
  if ((a.is_enum() || b.is_enum()) && a_text && b_text &&
      !(a.is_enum() && b.is_enum() && a.as_enum().members == b.as_enum().members)) {
    return CollationCompare(c, a.ToString(), b.ToString());
  }
  return Value::Compare(a, b);
}

Value CompareValues(BinaryOp op, const Value& a, const Value& b, const Collation& coll) {
  if (op == BinaryOp::kNullSafeEq) {
    if (a.is_null() || b.is_null()) return Bool(a.is_null() && b.is_null());
    return Bool(CompareUnder(a, b, coll) == 0);
  }
  if (a.is_null() || b.is_null()) return Value::Null();
  int c = CompareUnder(a, b, coll);
  switch (op) {
    case BinaryOp::kEq:
      return Bool(c == 0);
    case BinaryOp::kNe:
      return Bool(c != 0);
    case BinaryOp::kLt:
      return Bool(c < 0);
    case BinaryOp::kLe:
      return Bool(c <= 0);
    case BinaryOp::kGt:
      return Bool(c > 0);
    case BinaryOp::kGe:
      return Bool(c >= 0);
    default:
      return Value::Null();
  }
}

std::string Md5Hex(std::string_view bytes) {
  boost::uuids::detail::md5 h;
  h.process_bytes(bytes.data(), bytes.size());
  boost::uuids::detail::md5::digest_type digest;
  h.get_digest(digest);
  // Boost's digest is four words whose values, read most significant byte first, are the 16
  // bytes of the MD5 (reading the words' memory would swap each word's bytes on x86).
  unsigned char raw[16];
  for (int w = 0; w < 4; ++w) {
    for (int b = 0; b < 4; ++b)
      raw[4 * w + b] = static_cast<unsigned char>(digest[w] >> (24 - 8 * b));
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[2 * i] = kHex[raw[i] >> 4];
    out[2 * i + 1] = kHex[raw[i] & 15];
  }
  return out;
}

std::string LikePrefix(std::string_view pattern, bool* prefix_then_percent) {
  std::string prefix;
  size_t i = 0;
  for (; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '%' || c == '_') break;
    if (c == '\\' && i + 1 < pattern.size()) c = pattern[++i];
    prefix += c;
  }
  *prefix_then_percent = i == pattern.size() || (i + 1 == pattern.size() && pattern[i] == '%');
  return prefix;
}

bool ContainsAggregate(const Expr& e) {
  if (e.kind == Expr::Kind::kFunction && IsAggregateName(e.name, nullptr)) return true;
  for (const ExprPtr& a : e.args) {
    if (a != nullptr && ContainsAggregate(*a)) return true;
  }
  return false;
}

size_t UserVariableAssignments(const Expr& e) {
  size_t n = e.kind == Expr::Kind::kVariable && !e.args.empty() ? 1 : 0;
  for (const ExprPtr& a : e.args) {
    if (a != nullptr) n += UserVariableAssignments(*a);
  }
  for (const ExprPtr& a : e.order_by) {
    if (a != nullptr) n += UserVariableAssignments(*a);
  }
  return n;
}

std::string QualifiedColumnName(const Expr& e) {
  std::string out = e.schema.empty() ? "" : e.schema + ".";
  if (!e.table.empty()) out += e.table + ".";
  return out + e.name;
}

SqlResult<size_t> ResolveJoinColumn(const Expr& e, const BindScope& scope, const char* clause) {
  std::optional<size_t> found;
  bool table_found = e.table.empty();
  for (const BindScope::JoinTable& t : scope.join_tables) {
    if (!t.visible) continue;
    if (!e.table.empty()) {
      if (!EqualsNoCase(e.table, t.as_named)) continue;
      if (!e.schema.empty() && !EqualsNoCase(e.schema, t.schema)) continue;
      table_found = true;
    }
    for (size_t i = t.first; i < t.first + t.count; ++i) {
      if (!EqualsNoCase(scope.columns[i], e.name)) continue;
      if (e.table.empty() && i < scope.merged_into.size() && scope.merged_into[i] >= 0) continue;
      if (found.has_value()) {
        return SqlErr(kErNonUniq, "Column '", QualifiedColumnName(e), "' in ", clause,
                      " is ambiguous");
      }
      found = i;
    }
  }
  if (!found.has_value() || !table_found) {
    return SqlErr(kErBadField, "Unknown column '", QualifiedColumnName(e), "' in '", clause, "'");
  }
  return *found;
}

SqlResult<size_t> ResolveScopeColumn(const Expr& e, const BindScope& scope, const char* clause) {
  const std::string& as_named = scope.alias.empty() ? scope.table : scope.alias;
  const bool other_table =
      !e.table.empty() && (!EqualsNoCase(e.table, as_named) ||
                           (!e.schema.empty() && !EqualsNoCase(e.schema, scope.schema)));
  for (size_t i = 0; i < scope.columns.size() && !other_table; ++i) {
    if (EqualsNoCase(scope.columns[i], e.name)) return i;
  }
  return SqlErr(kErBadField, "Unknown column '", QualifiedColumnName(e), "' in '", clause, "'");
}

BindScope ScopeForTable(const TableDef& def, std::string_view alias) {
  BindScope s;
  s.table = def.name;
  s.alias = std::string(alias);
  s.schema = def.schema;
  for (const ColumnDef& c : def.columns) {
    s.columns.push_back(c.name);
    s.unsigned_columns.push_back(c.is_unsigned && IsIntegerType(c.type));
    s.collations.push_back(c.collation);
    s.column_scales.push_back(c.type == ColumnType::kDecimal ? c.scale : 0);
    // (YEAR holds a Temporal: it compares as the number it is, value.h.)
    s.column_types.push_back(IsIntegerType(c.type)            ? TypeClass::kInt
                             : c.type == ColumnType::kDouble  ? TypeClass::kDouble
                             : c.type == ColumnType::kDecimal ? TypeClass::kDecimal
                             : IsTemporalType(c.type) || c.type == ColumnType::kYear ||
                                     c.type == ColumnType::kTime
                                 ? TypeClass::kTemporal
                                 : TypeClass::kString);
  }
  s.used.assign(def.columns.size(), false);
  return s;
}

namespace {

SqlResult<BoundExpr> Bind(const Expr& e, BindScope& scope, const ExecContext& ctx,
                          const char* clause, bool inside_aggregate);

// MySQL's unsigned_flag for an integer result: + * DIV unsigned if either operand is, - too
// unless NO_UNSIGNED_SUBTRACTION, % as its left operand, abs() as its operand.
void SetResultSignedness(BoundExpr* b, const BindScope& scope) {
  auto arg = [&](size_t i) { return i < b->args.size() && b->args[i].is_unsigned; };
  if (b->kind == BoundExpr::Kind::kBinary) {
    switch (b->binary_op) {
      case BinaryOp::kAdd:
      case BinaryOp::kMul:
      case BinaryOp::kIntDiv:
        b->is_unsigned = arg(0) || arg(1);
        break;
      case BinaryOp::kSub:
        b->is_unsigned = scope.unsigned_subtraction && (arg(0) || arg(1));
        break;
      case BinaryOp::kMod:
        b->is_unsigned = arg(0);
        break;
      default:
        break;
    }
  } else if (b->kind == BoundExpr::Kind::kFunction) {
    if (b->func == Func::kMod || b->func == Func::kAbs || b->func == Func::kFloor ||
        b->func == Func::kCeil || b->func == Func::kRound || b->func == Func::kTruncate) {
      b->is_unsigned = arg(0);
    } else if (b->func == Func::kIfNull) {
      b->is_unsigned = arg(0) && arg(1);
    }
  }
}

// A hex literal is a binary string, but MySQL reads it as an unsigned integer (its bytes,
// big-endian; the last 8 of a longer one) where a number is wanted: an operand of arithmetic
// or of a numeric function (0xa + 0 is 10), or compared with a number (id = 0x41 is id = 65).
void ReadHexOperandsAsNumbers(BoundExpr* b) {
  auto is_number = [](const BoundExpr& a) {
    return a.type == TypeClass::kInt || a.type == TypeClass::kDecimal ||
           a.type == TypeClass::kDouble;
  };
  bool numeric = false;
  switch (b->kind) {
    case BoundExpr::Kind::kUnary:
      numeric = b->unary_op == UnaryOp::kNeg;
      break;
    case BoundExpr::Kind::kBinary:
      if (b->binary_op > BinaryOp::kXor) {
        numeric = true;
        break;
      }
      [[fallthrough]];
    case BoundExpr::Kind::kBetween:
    case BoundExpr::Kind::kIn:
      if (b->kind == BoundExpr::Kind::kBinary && b->binary_op > BinaryOp::kNullSafeEq) break;
      numeric = std::any_of(b->args.begin(), b->args.end(), is_number);
      break;
    case BoundExpr::Kind::kFunction:
      numeric =
          (IsMathFunction(b->func) && b->func != Func::kGreatest && b->func != Func::kLeast) ||
          b->func == Func::kAbs || b->func == Func::kFloor || b->func == Func::kCeil ||
          b->func == Func::kRound || b->func == Func::kMod || b->func == Func::kChar;
      break;
    default:
      break;
  }
  if (!numeric) return;
  for (BoundExpr& a : b->args) ReadHexAsNumber(true, &a);
}

// True for a tree of literals and operators on them: MySQL's const_item() for what minnow folds
// the same way (functions are left out: rand() and friends are not constant).
bool IsConstantTree(const BoundExpr& b) {
  if (b.kind == BoundExpr::Kind::kLiteral) return true;
  if (b.kind != BoundExpr::Kind::kUnary && b.kind != BoundExpr::Kind::kBinary) return false;
  for (const BoundExpr& a : b.args) {
    if (!IsConstantTree(a)) return false;
  }
  return true;
}

// True for the nodes whose result can be out of its type's range (1690 names them by
// BoundExpr::text): arithmetic, unary minus, abs(), round() and mod().
bool CanBeOutOfRange(const BoundExpr& b) {
  switch (b.kind) {
    case BoundExpr::Kind::kUnary:
      return b.unary_op == UnaryOp::kNeg;
    case BoundExpr::Kind::kBinary:
      return b.binary_op > BinaryOp::kXor;
    case BoundExpr::Kind::kFunction:
      return b.func == Func::kAbs || b.func == Func::kRound || b.func == Func::kMod ||
             b.func == Func::kTruncate || b.func == Func::kPow || b.func == Func::kExp ||
             b.func == Func::kTan || b.func == Func::kCot || b.func == Func::kFormat;
    default:
      return false;
  }
}

// The operation's name in 1267's message.
std::string OperationName(const BoundExpr& b) {
  switch (b.kind) {
    case BoundExpr::Kind::kLike:
      return "like";
    case BoundExpr::Kind::kIn:
      return "IN";
    case BoundExpr::Kind::kBetween:
      return "between";
    default:
      break;
  }
  return BinaryOpText(b.binary_op);
}

// A function's name in 1267's message: its first name in kFuncs, as MySQL's func_name().
std::string_view FunctionName(Func f) {
  for (const FuncInfo& info : kFuncs) {
    if (info.func == f) return info.name;
  }
  return "concat";  // not reached: every Func has a name
}

// The collation of `args` (the rules in expr.h), or 1267 naming `operation`.
SqlResult<const Collation*> AggregateCollations(const std::vector<const BoundExpr*>& args,
                                                std::string_view operation) {
  const Collation* chosen = nullptr;
  for (const BoundExpr* a : args) {
    const Collation* c = a->collation;
    if (c == nullptr || c == chosen) continue;
    if (chosen == nullptr || c->kind == Collation::Kind::kBytes) {
      chosen = c;
    } else if (chosen->kind != Collation::Kind::kBytes) {
      return SqlErr(kErCantAggregate2Collations, "Illegal mix of collations (", chosen->name,
                    ",IMPLICIT) and (", c->name, ",IMPLICIT) for operation '", operation, "'");
    }
  }
  return chosen;
}

// CASE: its result's collation from the THEN and ELSE values, and with an operand, the
// collation the operand and the WHEN values compare under.
SqlStatus DeriveCaseCollations(BoundExpr* b) {
  std::vector<const BoundExpr*> results, compared;
  const size_t first = b->case_operand ? 1 : 0;
  const size_t pairs_end = b->args.size() - (b->case_else ? 1 : 0);
  if (b->case_operand) compared.push_back(&b->args[0]);
  for (size_t i = first; i + 1 < pairs_end; i += 2) {
    compared.push_back(&b->args[i]);
    results.push_back(&b->args[i + 1]);
  }
  if (b->case_else) results.push_back(&b->args.back());
  SQL_ASSIGN_OR_RETURN(b->collation, AggregateCollations(results, "case"));
  if (b->case_operand) {
    SQL_ASSIGN_OR_RETURN(b->compare_collation, AggregateCollations(compared, "case"));
  }
  return SqlStatus::OK();
}

// Sets b->collation from its arguments' (the rules in expr.h).
SqlStatus DeriveCollation(BoundExpr* b) {
  const bool comparison =
      b->kind == BoundExpr::Kind::kBetween || b->kind == BoundExpr::Kind::kIn ||
      b->kind == BoundExpr::Kind::kLike ||
      (b->kind == BoundExpr::Kind::kBinary && b->binary_op <= BinaryOp::kNullSafeEq);
  const bool carries =
      b->kind == BoundExpr::Kind::kFunction && b->func != Func::kMd5 && b->func != Func::kRand;
  if (b->kind == BoundExpr::Kind::kCase) return DeriveCaseCollations(b);
  if (!comparison && !carries) return SqlStatus::OK();
  const Collation* chosen = nullptr;
  for (size_t i = 0; i < b->args.size(); ++i) {
    if (b->func == Func::kIf && carries && i == 0) continue;  // IF's condition
    const Collation* c = b->args[i].collation;
    if (c == nullptr || c == chosen) continue;
    if (chosen == nullptr || c->kind == Collation::Kind::kBytes) {
      chosen = c;
    } else if (chosen->kind != Collation::Kind::kBytes) {
      return SqlErr(kErCantAggregate2Collations, "Illegal mix of collations (", chosen->name,
                    ",IMPLICIT) and (", c->name, ",IMPLICIT) for operation '",
                    comparison ? OperationName(*b) : std::string(FunctionName(b->func)), "'");
    }
  }
  b->collation = chosen;
  return SqlStatus::OK();
}

// DECIMAL(m,d)'s limits, in the order MySQL checks them when it makes the cast; the messages
// name the whole CAST as written.
SqlStatus CheckCastTarget(const Expr& e) {
  const CastTarget& t = e.cast;
  if (t.type != CastTarget::Type::kDecimal) return SqlStatus::OK();
  if (t.precision < t.scale) {
    return SqlErr(kErMBiggerThanD,
                  "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '').");
  }
  if (t.precision > Decimal::kMaxDigits) {
    return SqlErr(kErTooBigPrecision, "Too-big precision ", std::to_string(t.precision),
                  " specified for '", e.text, "'. Maximum is 65.");
  }
  if (t.scale > Decimal::kMaxScale) {
    return SqlErr(kErTooBigScale, "Too big scale ", std::to_string(t.scale),
                  " specified for column '", e.text, "'. Maximum is 30.");
  }
  return SqlStatus::OK();
}

SqlStatus BindArgs(const Expr& e, BindScope& scope, const ExecContext& ctx, const char* clause,
                   bool inside_aggregate, BoundExpr* out) {
  for (const ExprPtr& a : e.args) {
    if (a == nullptr) return SqlErr(kErParse, "Missing expression");
    SQL_ASSIGN_OR_RETURN(BoundExpr b, Bind(*a, scope, ctx, clause, inside_aggregate));
    out->args.push_back(std::move(b));
  }
  return SqlStatus::OK();
}

// group_concat's values, ORDER BY keys (a number n names the n-th value: 1054 past them),
// separator and @@group_concat_max_len, into *spec.
SqlStatus BindGroupConcat(const Expr& e, BindScope& scope, const ExecContext& ctx,
                          const char* clause, AggregateSpec* spec) {
  for (const ExprPtr& a : e.args) {
    SQL_ASSIGN_OR_RETURN(BoundExpr b, Bind(*a, scope, ctx, clause, true));
    spec->concat_args.push_back(std::move(b));
  }
  for (size_t i = 0; i < e.order_by.size(); ++i) {
    const Expr& o = *e.order_by[i];
    if (o.kind == Expr::Kind::kLiteral && o.param < 0 && o.value.is_int()) {
      const int64_t n = o.value.as_int();
      if (n < 1 || n > static_cast<int64_t>(spec->concat_args.size()))
        return SqlErr(kErBadField, "Unknown column '", o.text, "' in 'order clause'");
      spec->order.push_back(spec->concat_args[static_cast<size_t>(n - 1)]);
    } else {
      SQL_ASSIGN_OR_RETURN(BoundExpr b, Bind(o, scope, ctx, clause, true));
      spec->order.push_back(std::move(b));
    }
    spec->order_desc.push_back(e.order_desc[i]);
  }
  spec->separator = e.separator;
  if (ctx.session != nullptr) {
    SQL_ASSIGN_OR_RETURN(Value v, ctx.session->vars.Get("group_concat_max_len"));
    spec->max_len = static_cast<uint64_t>(v.as_int());
  }
  return SqlStatus::OK();
}

// The column at position `i` of the scope's row, marked used.
BoundExpr ColumnRef(size_t i, BindScope& scope, bool inside_aggregate) {
  BoundExpr b;
  b.kind = BoundExpr::Kind::kColumn;
  b.column = static_cast<int>(i);
  b.is_unsigned = i < scope.unsigned_columns.size() && scope.unsigned_columns[i];
  if (i < scope.collations.size()) b.collation = scope.collations[i];
  if (i < scope.used.size()) scope.used[i] = true;
  InferType(&b, scope);
  if (!inside_aggregate && !scope.saw_column_outside_aggregate) {
    scope.saw_column_outside_aggregate = true;
    scope.first_bare_column = std::string(scope.columns[i]);
    scope.first_bare_position = static_cast<int>(i);
  }
  return b;
}

// The column `e` names in `scope` (a join's or one table's), or its 1054 / 1052.
SqlResult<size_t> ResolveColumn(const Expr& e, const BindScope& scope, const char* clause) {
  return scope.join_tables.empty() ? ResolveScopeColumn(e, scope, clause)
                                   : ResolveJoinColumn(e, scope, clause);
}

// An outer reference as the constant it stands for while its subquery binds, typed as the
// column it reads.
SqlResult<BoundExpr> OuterColumnRef(const ExecContext::OuterColumn& at, BindScope& scope,
                                    const ExecContext& ctx) {
  SQL_ASSIGN_OR_RETURN(Value v, OuterColumnValue(at, ctx));
  const BindScope& outer = *ctx.outer_scopes[at.depth];
  BoundExpr b = Literal(std::move(v));
  b.is_unsigned = b.value.is_uint();
  if (at.column < outer.collations.size() && b.value.is_string())
    b.collation = outer.collations[at.column];
  InferType(&b, scope);
  return b;
}

// 1241 for a row constructor where a scalar belongs, or compared with an operand of another
// width (those that fit were made scalar comparisons by the parser, row_constructor.h).
SqlStatus CheckRowOperands(const Expr& e) {
  if (e.kind == Expr::Kind::kRow)
    return SqlErr(kErOperandColumns, "Operand should contain 1 column(s)");
  const bool comparison = (e.kind == Expr::Kind::kBinary && e.binary_op <= BinaryOp::kNullSafeEq) ||
                          e.kind == Expr::Kind::kIn;
  if (!comparison || std::none_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) {
        return a != nullptr && a->kind == Expr::Kind::kRow;
      }))
    return SqlStatus::OK();
  std::vector<const Expr*> others;
  for (size_t i = 1; i < e.args.size(); ++i) others.push_back(e.args[i].get());
  std::optional<SqlError> error = RowShapeError(*e.args[0], others);
  if (error.has_value()) return *error;
  return SqlStatus::OK();
}

SqlError NoSubqueriesHere() {
  return SqlErr(kErNotSupportedYet,
                "This version of minnow doesn't yet support 'subqueries in INSERT ... VALUES "
                "and SET'");
}

// One operand of a row comparison, `width` columns: a kRow of its bound elements, or a
// correlated row subquery's kRowSubquery.
SqlResult<BoundExpr> BindRowOperand(const Expr& side, size_t width, BindScope& scope,
                                    const ExecContext& ctx, const char* clause,
                                    bool inside_aggregate) {
  const Expr* source = &side;
  BoundExpr o;
  if (side.kind == Expr::Kind::kSubquery) {
    SQL_ASSIGN_OR_RETURN(SubqueryResolver::Bound r,
                         ctx.subqueries->BindRow(ctx, side, scope, width));
    if (r.correlated != nullptr) {
      o.kind = BoundExpr::Kind::kRowSubquery;
      o.correlated = std::move(r.correlated);
      for (size_t column : r.outer_columns) o.args.push_back(ColumnRef(column, scope, true));
      return o;
    }
    source = r.resolved;
  }
  o.kind = BoundExpr::Kind::kRow;
  if (source->kind != Expr::Kind::kRow) {
    SQL_ASSIGN_OR_RETURN(BoundExpr x, Bind(*source, scope, ctx, clause, inside_aggregate));
    o.args.push_back(std::move(x));
    return o;
  }
  for (const ExprPtr& element : source->args) {
    SQL_ASSIGN_OR_RETURN(BoundExpr x, Bind(*element, scope, ctx, clause, inside_aggregate));
    o.args.push_back(std::move(x));
  }
  return o;
}

// Per element of rows `operands` (kRow each; another kind counts as unknown elements), a
// comparison node with the collation its elements compare under, appended to b->args.
SqlStatus AddElementCollations(BinaryOp op, const std::vector<const BoundExpr*>& operands,
                               size_t width, BoundExpr* b) {
  std::vector<BoundExpr> comparisons;
  for (size_t i = 0; i < width; ++i) {
    BoundExpr c;
    c.kind = BoundExpr::Kind::kBinary;
    c.binary_op = op;
    for (const BoundExpr* o : operands)
      c.args.push_back(o->kind == BoundExpr::Kind::kRow ? o->args[i] : Literal(Value::Null()));
    SQL_RETURN_IF_ERROR(DeriveCollation(&c));
    c.args.clear();
    comparisons.push_back(std::move(c));
  }
  for (BoundExpr& c : comparisons) b->args.push_back(std::move(c));
  return SqlStatus::OK();
}

// A comparison that MayCompareRows, when it does compare rows (a row constructor, or a
// subquery of more than one column): kRowComparison. nullopt for scalars after all.
SqlResult<std::optional<BoundExpr>> BindRowComparison(const Expr& e, BindScope& scope,
                                                      const ExecContext& ctx, const char* clause,
                                                      bool inside_aggregate) {
  size_t widths[2];
  for (size_t i = 0; i < 2; ++i) {
    const Expr& side = *e.args[i];
    widths[i] = RowWidth(side);
    if (side.kind != Expr::Kind::kSubquery) continue;
    if (ctx.subqueries == nullptr) return NoSubqueriesHere();
    SQL_ASSIGN_OR_RETURN(widths[i], ctx.subqueries->Width(ctx, side, scope));
  }
  const bool row = e.args[0]->kind == Expr::Kind::kRow || e.args[1]->kind == Expr::Kind::kRow;
  if (!row && widths[0] == 1 && widths[1] == 1) return std::optional<BoundExpr>();
  if (widths[0] != widths[1])
    return SqlErr(kErOperandColumns, "Operand should contain ", std::to_string(widths[0]),
                  " column(s)");
  const bool subquery =
      e.args[0]->kind == Expr::Kind::kSubquery || e.args[1]->kind == Expr::Kind::kSubquery;
  if (!subquery) {
    // Two row constructors the parser left as written (see RowsAsScalars): nested rows
    // compare as their scalar form.
    SQL_RETURN_IF_ERROR(CheckRowOperands(e));
    for (const ExprPtr& side : e.args) {
      for (const ExprPtr& element : side->args) {
        if (element->kind == Expr::Kind::kRow) {
          ExprPtr scalar = RowComparison(e.binary_op, *e.args[0], *e.args[1], e.text);
          SQL_ASSIGN_OR_RETURN(BoundExpr b, Bind(*scalar, scope, ctx, clause, inside_aggregate));
          return std::optional<BoundExpr>(std::move(b));
        }
      }
    }
  }
  // A subquery's columns are scalars: 1241 for a row element beside one, naming the left
  // element's width.
  for (size_t i = 0; i < widths[0]; ++i) {
    const auto element_width = [&](const Expr& side) {
      return side.kind == Expr::Kind::kRow ? RowWidth(*side.args[i]) : size_t{1};
    };
    const size_t left = element_width(*e.args[0]);
    if (left != element_width(*e.args[1]))
      return SqlErr(kErOperandColumns, "Operand should contain ", std::to_string(left),
                    " column(s)");
  }
  BoundExpr b;
  b.kind = BoundExpr::Kind::kRowComparison;
  b.binary_op = e.binary_op;
  for (const ExprPtr& side : e.args) {
    SQL_ASSIGN_OR_RETURN(BoundExpr o,
                         BindRowOperand(*side, widths[0], scope, ctx, clause, inside_aggregate));
    b.args.push_back(std::move(o));
  }
  // Each element pair's collation, as its scalar comparison derives it.
  const std::vector<const BoundExpr*> operands = {&b.args[0], &b.args[1]};
  SQL_RETURN_IF_ERROR(AddElementCollations(e.binary_op, operands, widths[0], &b));
  b.type = TypeClass::kInt;
  return std::optional<BoundExpr>(std::move(b));
}

// An IN list of rows the parser left as written (an operand that may change between
// evaluations, RowsAsScalars): kRowIn, or the scalar form for nested rows.
SqlResult<BoundExpr> BindRowIn(const Expr& e, BindScope& scope, const ExecContext& ctx,
                               const char* clause, bool inside_aggregate) {
  SQL_RETURN_IF_ERROR(CheckRowOperands(e));
  std::vector<const Expr*> list;
  for (size_t i = 1; i < e.args.size(); ++i) list.push_back(e.args[i].get());
  for (const ExprPtr& element : e.args[0]->args) {
    if (element->kind == Expr::Kind::kRow) {
      ExprPtr scalar = RowInList(*e.args[0], list, e.negated, e.text);
      return Bind(*scalar, scope, ctx, clause, inside_aggregate);
    }
  }
  BoundExpr b;
  b.kind = BoundExpr::Kind::kRowIn;
  b.negated = e.negated;
  for (const ExprPtr& r : e.args) {
    BoundExpr o;
    o.kind = BoundExpr::Kind::kRow;
    for (const ExprPtr& element : r->args) {
      SQL_ASSIGN_OR_RETURN(BoundExpr x, Bind(*element, scope, ctx, clause, inside_aggregate));
      o.args.push_back(std::move(x));
    }
    b.args.push_back(std::move(o));
  }
  std::vector<const BoundExpr*> operands;
  for (const BoundExpr& o : b.args) operands.push_back(&o);
  const size_t width = e.args[0]->args.size();
  SQL_RETURN_IF_ERROR(AddElementCollations(BinaryOp::kEq, operands, width, &b));
  b.type = TypeClass::kInt;
  return b;
}

SqlResult<BoundExpr> Bind(const Expr& e, BindScope& scope, const ExecContext& ctx,
                          const char* clause, bool inside_aggregate) {
  if (IsSubqueryNode(e)) {
    if (ctx.subqueries == nullptr) return NoSubqueriesHere();
    SQL_ASSIGN_OR_RETURN(SubqueryResolver::Bound r, ctx.subqueries->Bind(ctx, e, scope));
    if (r.correlated == nullptr) return Bind(*r.resolved, scope, ctx, clause, inside_aggregate);
    // Run per row: its operand and the outer columns it reads are the node's args.
    BoundExpr c;
    c.kind = BoundExpr::Kind::kCorrelatedSubquery;
    c.correlated = std::move(r.correlated);
    if (e.kind == Expr::Kind::kIn || e.kind == Expr::Kind::kQuantified) {
      // A row operand, (a, b) IN (SELECT ...): its elements, one arg each.
      const Expr& operand = *e.args[0];
      const bool row = operand.kind == Expr::Kind::kRow;
      for (size_t i = 0; i < (row ? operand.args.size() : 1); ++i) {
        SQL_ASSIGN_OR_RETURN(BoundExpr x, Bind(row ? *operand.args[i] : operand, scope, ctx, clause,
                                               inside_aggregate));
        if (i == 0) c.compare_collation = x.collation;
        c.args.push_back(std::move(x));
      }
    }
    for (size_t column : r.outer_columns) c.args.push_back(ColumnRef(column, scope, true));
    InferType(&c, scope);
    return c;
  }
  if (MayCompareRows(e)) {
    SQL_ASSIGN_OR_RETURN(std::optional<BoundExpr> rows,
                         BindRowComparison(e, scope, ctx, clause, inside_aggregate));
    if (rows.has_value()) return std::move(*rows);
  }
  if (e.kind == Expr::Kind::kIn && e.subquery == nullptr && e.args[0]->kind == Expr::Kind::kRow)
    return BindRowIn(e, scope, ctx, clause, inside_aggregate);
  SQL_RETURN_IF_ERROR(CheckRowOperands(e));
  BoundExpr b;
  b.negated = e.negated;
  switch (e.kind) {
    case Expr::Kind::kLiteral: {
      BoundExpr lit = Literal(e.value);
      lit.is_unsigned = e.value.is_uint();
      lit.hex_literal = e.hex_literal;
      if (e.hex_literal) lit.collation = &BinaryCollation();
      InferType(&lit, scope);
      return lit;
    }
    case Expr::Kind::kColumn: {
      SqlResult<size_t> i = ResolveColumn(e, scope, clause);
      if (i.ok()) return ColumnRef(*i, scope, inside_aggregate);
      if (i.error().code != kErBadField) return i.error();
      std::optional<ExecContext::OuterColumn> at = FindOuterColumn(e, ctx);
      if (at.has_value()) return OuterColumnRef(*at, scope, ctx);
      return i.error();
    }
    case Expr::Kind::kStar:
      return SqlErr(kErParse, "You have an error in your SQL syntax near '*'");
    case Expr::Kind::kUnary:
      b.kind = BoundExpr::Kind::kUnary;
      b.unary_op = e.unary_op;
      break;
    case Expr::Kind::kBinary:
      b.kind = BoundExpr::Kind::kBinary;
      b.binary_op = e.binary_op;
      break;
    case Expr::Kind::kBetween:
      b.kind = BoundExpr::Kind::kBetween;
      break;
    case Expr::Kind::kIn:
      b.kind = BoundExpr::Kind::kIn;
      break;
    case Expr::Kind::kLike:
      b.kind = BoundExpr::Kind::kLike;
      break;
    case Expr::Kind::kIsNull:
      b.kind = BoundExpr::Kind::kIsNull;
      break;
    case Expr::Kind::kCase:
      b.kind = BoundExpr::Kind::kCase;
      b.case_operand = e.case_operand;
      b.case_else = e.case_else;
      break;
    case Expr::Kind::kCast: {
      b.kind = BoundExpr::Kind::kCast;
      b.cast = e.cast;
      SQL_RETURN_IF_ERROR(CheckCastTarget(e));
      SQL_ASSIGN_OR_RETURN(b.collation, CastCollation(e.cast));
      b.is_unsigned = e.cast.type == CastTarget::Type::kUnsigned;
      b.text = e.text;  // 1264's column name
      SQL_RETURN_IF_ERROR(BindArgs(e, scope, ctx, clause, inside_aggregate, &b));
      InferType(&b, scope);
      return b;
    }
    case Expr::Kind::kVariable: {
      if (e.var_scope == VarScope::kUser && (ctx.user_vars_at_eval || !e.args.empty())) {
        // The statement assigns user variables: they are read and set row by row.
        if (!ctx.user_vars_at_eval || ctx.session == nullptr) {
          return SqlErr(kErNotSupportedYet,
                        "This version of minnow doesn't yet support 'assignment to a user "
                        "variable outside a SELECT'");
        }
        b.kind =
            e.args.empty() ? BoundExpr::Kind::kUserVariable : BoundExpr::Kind::kAssignUserVariable;
        b.text = e.name;
        b.user_vars = &ctx.session->user_vars;
        if (!e.args.empty())
          SQL_RETURN_IF_ERROR(BindArgs(e, scope, ctx, clause, inside_aggregate, &b));
        InferType(&b, scope);
        return b;
      }
      SQL_ASSIGN_OR_RETURN(Value v, ReadVariable(e, ctx));
      return Literal(std::move(v));
    }
    case Expr::Kind::kFunction: {
      AggFunc agg;
      if (IsAggregateName(e.name, &agg)) {
        if (!scope.allow_aggregates || inside_aggregate)
          return SqlErr(kErInvalidGroupFuncUse, "Invalid use of group function");
        AggregateSpec spec;
        spec.func = agg;
        spec.distinct = e.distinct;
        if (e.distinct && agg >= AggFunc::kStdPop) {  // MySQL's grammar has no DISTINCT there
          return SqlErr(kErParse,
                        "You have an error in your SQL syntax; check the manual that "
                        "corresponds to your minnow version for the right syntax to use near "
                        "'DISTINCT' at line 1");
        }
        if (agg == AggFunc::kGroupConcat) {
          SQL_RETURN_IF_ERROR(BindGroupConcat(e, scope, ctx, clause, &spec));
          b.collation = spec.concat_args[0].collation;  // the first value's
        } else if (e.args.size() == 1 && e.args[0] != nullptr &&
                   e.args[0]->kind == Expr::Kind::kStar) {
          if (agg != AggFunc::kCount)
            return SqlErr(kErParse,
                          "You have an error in your SQL syntax; check the manual that "
                          "corresponds to your minnow version for the right syntax to "
                          "use near '*)' at line 1");
          spec.star = true;
        } else if (agg == AggFunc::kGrouping) {
          if (e.args.empty())
            return SqlErr(kErParse, "Incorrect parameter count in the call to native function '",
                          e.name, "'");
          for (const ExprPtr& a : e.args) {  // GROUPING(a, b, ...): checked by the executor
            SQL_ASSIGN_OR_RETURN(BoundExpr x, Bind(*a, scope, ctx, clause, true));
            spec.concat_args.push_back(std::move(x));
          }
        } else if (agg == AggFunc::kCount && e.distinct && e.args.size() > 1) {
          for (const ExprPtr& a : e.args) {  // COUNT(DISTINCT a, b, ...)
            if (a == nullptr || a->kind == Expr::Kind::kStar)
              return SqlErr(kErParse, "Incorrect parameter count in the call to native function '",
                            e.name, "'");
            SQL_ASSIGN_OR_RETURN(BoundExpr x, Bind(*a, scope, ctx, clause, true));
            spec.concat_args.push_back(std::move(x));
          }
        } else if (e.args.size() != 1 || e.args[0] == nullptr) {
          return SqlErr(kErParse, "Incorrect parameter count in the call to native function '",
                        e.name, "'");
        } else {
          SQL_ASSIGN_OR_RETURN(spec.arg, Bind(*e.args[0], scope, ctx, clause, true));
        }
        b.kind = BoundExpr::Kind::kAggregate;
        b.is_unsigned = ((agg == AggFunc::kMin || agg == AggFunc::kMax) && spec.arg.is_unsigned) ||
                        (agg >= AggFunc::kBitAnd && agg <= AggFunc::kBitXor);
        b.column = static_cast<int>(scope.aggregates.size());
        scope.aggregates.push_back(std::move(spec));
        return b;
      }
      SQL_ASSIGN_OR_RETURN(bool constant, BindConstantFunction(e, ctx, &b));
      if (constant) return b;
      const FuncInfo* info = nullptr;
      for (const FuncInfo& f : kFuncs) {
        if (f.name == e.name) info = &f;
      }
      if (info == nullptr)
        return SqlErr(kErSpDoesNotExist, "FUNCTION ",
                      ctx.session != nullptr ? ctx.session->Database() : kDefaultDatabase, ".",
                      e.name, " does not exist");
      int n = static_cast<int>(e.args.size());
      if (n < info->min_args || (info->max_args >= 0 && n > info->max_args))
        return SqlErr(kErWrongParamCountToNativeFct,
                      "Incorrect parameter count in the call to native function '", e.name, "'");
      b.kind = BoundExpr::Kind::kFunction;
      b.func = info->func;
      if (ctx.session != nullptr) b.time_zone = ctx.session->vars.time_zone();
      if (b.func == Func::kMod) b.binary_op = BinaryOp::kMod;
      break;
    }
  }
  SQL_RETURN_IF_ERROR(BindArgs(e, scope, ctx, clause, inside_aggregate, &b));
  ReadHexOperandsAsNumbers(&b);
  SetResultSignedness(&b, scope);
  if (b.kind == BoundExpr::Kind::kUnary && b.unary_op == UnaryOp::kNeg)
    b.negates_constant = IsConstantTree(b.args[0]);
  if (CanBeOutOfRange(b)) b.text = PrintExpr(e, scope);
  SQL_RETURN_IF_ERROR(DeriveCollation(&b));
  if (b.kind == BoundExpr::Kind::kFunction && HasBinaryResult(b.func))
    b.collation = &BinaryCollation();
  InferType(&b, scope);
  return b;
}

}  // namespace

std::optional<ExecContext::OuterColumn> FindOuterColumn(const Expr& e, const ExecContext& ctx) {
  for (size_t d = ctx.outer_scopes.size(); d-- > 0;) {
    SqlResult<size_t> i = ResolveColumn(e, *ctx.outer_scopes[d], "");
    if (i.ok()) return ExecContext::OuterColumn{d, *i};
  }
  return std::nullopt;
}

ExprPtr PlannerCopy(const Expr& e, const BindScope& scope, const ExecContext& ctx) {
  ExprPtr c = CloneExpr(e);
  std::function<void(Expr*)> localize = [&](Expr* x) {
    if (x->kind == Expr::Kind::kColumn) {
      SqlResult<size_t> own = ResolveColumn(*x, scope, "");
      std::optional<ExecContext::OuterColumn> at;
      if (!own.ok() && own.error().code == kErBadField) at = FindOuterColumn(*x, ctx);
      if (!at.has_value()) {
        x->table.clear();
        x->schema.clear();
        return;
      }
      SqlResult<Value> v = OuterColumnValue(*at, ctx);
      x->kind = Expr::Kind::kLiteral;
      x->value = v.ok() ? *v : Value::Null();
      return;
    }
    if (IsSubqueryNode(*x)) {
      if (!x->args.empty() && x->args[0] != nullptr) localize(x->args[0].get());
      return;
    }
    for (ExprPtr& a : x->args) {
      if (a != nullptr) localize(a.get());
    }
  };
  localize(c.get());
  return c;
}

SqlResult<Value> OuterColumnValue(const ExecContext::OuterColumn& at, const ExecContext& ctx) {
  for (ExecContext::OuterUse* u = ctx.outer_use.get(); u != nullptr; u = u->enclosing.get()) {
    if (at.depth < u->below_depth) u->used = true;
  }
  for (const ExecContext::OuterValue& v : ctx.outer_values) {
    if (v.at == at) return v.value;
  }
  if (ctx.outer_refs == nullptr)
    return SqlErr(kErNotSupportedYet,
                  "This version of minnow doesn't yet support 'correlated subqueries'");
  if (std::find(ctx.outer_refs->begin(), ctx.outer_refs->end(), at) == ctx.outer_refs->end())
    ctx.outer_refs->push_back(at);
  return Value::Null();
}

SqlResult<BoundExpr> BindExpr(const Expr& e, BindScope& scope, const ExecContext& ctx,
                              const char* clause) {
  if (ctx.session != nullptr)
    scope.unsigned_subtraction = !ctx.session->vars.sql_mode().no_unsigned_subtraction;
  return Bind(e, scope, ctx, clause, false);
}

void SeedEvalState(EvalState* state) {
  state->rng.seed(
      static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count()));
}

namespace {

// A row comparison operand's values: its elements', or its subquery's row.
std::vector<Value> RowValues(const BoundExpr& o, const Row& row, EvalState& st) {
  std::vector<Value> v;
  v.reserve(o.args.size());
  for (const BoundExpr& a : o.args) v.push_back(Eval(a, row, st));
  if (o.kind == BoundExpr::Kind::kRowSubquery) return o.correlated->EvaluateRow(v, st);
  return v;
}

// MySQL's compare_row: the elements in order, the first difference decides; a NULL makes
// < <= > >= NULL at once, = and <> NULL unless a later element differs; <=> is true when
// every pair is equal or both NULL.
Value CompareRows(BinaryOp op, const std::vector<Value>& l, const std::vector<Value>& r,
                  const BoundExpr* collations, size_t n) {
  if (l.size() < n || r.size() < n) return Value::Null();  // an error was recorded
  bool saw_null = false;
  for (size_t i = 0; i < n; ++i) {
    if (l[i].is_null() || r[i].is_null()) {
      if (op == BinaryOp::kNullSafeEq) {
        if (l[i].is_null() != r[i].is_null()) return Bool(false);
        continue;
      }
      if (op != BinaryOp::kEq && op != BinaryOp::kNe) return Value::Null();
      saw_null = true;
      continue;
    }
    const int c = CompareUnder(l[i], r[i], CollationOf(collations[i]));
    if (c != 0)
      return CompareValues(op == BinaryOp::kNullSafeEq ? BinaryOp::kEq : op, Value::Int(c),
                           Value::Int(0));
  }
  if (saw_null) return Value::Null();
  return Bool(op == BinaryOp::kEq || op == BinaryOp::kNullSafeEq || op == BinaryOp::kLe ||
              op == BinaryOp::kGe);
}

Value EvalRowComparison(const BoundExpr& e, const Row& row, EvalState& st) {
  const std::vector<Value> l = RowValues(e.args[0], row, st);
  const std::vector<Value> r = RowValues(e.args[1], row, st);
  return CompareRows(e.binary_op, l, r, &e.args[2], e.args.size() - 2);
}

// row IN (r1, r2, ...): true at the first equal row, else NULL if one compared NULL.
Value EvalRowIn(const BoundExpr& e, const Row& row, EvalState& st) {
  const std::vector<Value> l = RowValues(e.args[0], row, st);
  const size_t n = e.args[0].args.size();
  const size_t rows = e.args.size() - n;
  bool saw_null = false;
  for (size_t i = 1; i < rows; ++i) {
    const Value eq = CompareRows(BinaryOp::kEq, l, RowValues(e.args[i], row, st), &e.args[rows], n);
    if (eq.is_null()) {
      saw_null = true;
    } else if (eq.IsTrue()) {
      return Bool(!e.negated);
    }
  }
  if (saw_null) return Value::Null();
  return Bool(e.negated);
}

}  // namespace

Value Eval(const BoundExpr& e, const Row& row, EvalState& st) {
  switch (e.kind) {
    case BoundExpr::Kind::kLiteral:
      return e.value;
    case BoundExpr::Kind::kColumn:
      return row[e.column];
    case BoundExpr::Kind::kAggregate:
      return st.aggregates != nullptr ? (*st.aggregates)[e.column] : Value::Null();
    case BoundExpr::Kind::kUserVariable: {
      auto it = e.user_vars->find(e.text);
      return it == e.user_vars->end() ? Value::Null() : it->second;
    }
    case BoundExpr::Kind::kAssignUserVariable: {
      Value v = Eval(e.args[0], row, st);
      (*e.user_vars)[e.text] = v;
      return v;
    }
    case BoundExpr::Kind::kUnary: {
      Value v = Eval(e.args[0], row, st);
      if (v.is_null()) return v;
      if (e.unary_op == UnaryOp::kNot) return Bool(!v.IsTrue());
      return EvalNegation(e, v, st);
    }
    case BoundExpr::Kind::kBinary: {
      BinaryOp op = e.binary_op;
      if (op == BinaryOp::kAnd) {
        Value a = Eval(e.args[0], row, st);
        if (!a.is_null() && !a.IsTrue()) return Bool(false);
        Value b = Eval(e.args[1], row, st);
        if (!b.is_null() && !b.IsTrue()) return Bool(false);
        if (a.is_null() || b.is_null()) return Value::Null();
        return Bool(true);
      }
      if (op == BinaryOp::kOr) {
        Value a = Eval(e.args[0], row, st);
        if (!a.is_null() && a.IsTrue()) return Bool(true);
        Value b = Eval(e.args[1], row, st);
        if (!b.is_null() && b.IsTrue()) return Bool(true);
        if (a.is_null() || b.is_null()) return Value::Null();
        return Bool(false);
      }
      Value a = Eval(e.args[0], row, st);
      Value b = Eval(e.args[1], row, st);
      if (op == BinaryOp::kXor) {
        if (a.is_null() || b.is_null()) return Value::Null();
        return Bool(a.IsTrue() != b.IsTrue());
      }
      if (op <= BinaryOp::kNullSafeEq) return CompareValues(op, a, b, CollationOf(e));
      return EvalArithmetic(e, a, b, st);
    }
    case BoundExpr::Kind::kBetween: {
      Value v = Eval(e.args[0], row, st);
      Value ge = CompareValues(BinaryOp::kGe, v, Eval(e.args[1], row, st), CollationOf(e));
      Value le = CompareValues(BinaryOp::kLe, v, Eval(e.args[2], row, st), CollationOf(e));
      Value r;
      if ((!ge.is_null() && !ge.IsTrue()) || (!le.is_null() && !le.IsTrue())) {
        r = Bool(false);
      } else if (ge.is_null() || le.is_null()) {
        return Value::Null();
      } else {
        r = Bool(true);
      }
      return e.negated ? Bool(!r.IsTrue()) : r;
    }
    case BoundExpr::Kind::kIn: {
      Value v = Eval(e.args[0], row, st);
      if (v.is_null()) return v;
      bool saw_null = false;
      for (size_t i = 1; i < e.args.size(); ++i) {
        Value x = Eval(e.args[i], row, st);
        if (x.is_null()) {
          saw_null = true;
        } else if (CompareUnder(v, x, CollationOf(e)) == 0) {
          return Bool(!e.negated);
        }
      }
      if (saw_null) return Value::Null();
      return Bool(e.negated);
    }
    case BoundExpr::Kind::kLike: {
      Value v = Eval(e.args[0], row, st);
      Value p = Eval(e.args[1], row, st);
      if (v.is_null() || p.is_null()) return Value::Null();
      bool m;
      if (v.is_string() && p.is_string()) {
        m = CollationLike(CollationOf(e), v.as_string(), p.as_string());
      } else {
        m = CollationLike(CollationOf(e), TextOf(v), TextOf(p));
      }
      return Bool(m != e.negated);
    }
    case BoundExpr::Kind::kIsNull:
      return Bool(Eval(e.args[0], row, st).is_null() != e.negated);
    case BoundExpr::Kind::kFunction:
      return EvalFunction(e, row, st);
    case BoundExpr::Kind::kCase:
      return EvalCase(e, row, st);
    case BoundExpr::Kind::kCast:
      return EvalCast(e, Eval(e.args[0], row, st), st);
    case BoundExpr::Kind::kRowComparison:
      return EvalRowComparison(e, row, st);
    case BoundExpr::Kind::kRowIn:
      return EvalRowIn(e, row, st);
    case BoundExpr::Kind::kRow:  // only inside a row comparison
    case BoundExpr::Kind::kRowSubquery:
      return Value::Null();
    case BoundExpr::Kind::kCorrelatedSubquery: {
      std::vector<Value> args;
      args.reserve(e.args.size());
      for (const BoundExpr& a : e.args) args.push_back(Eval(a, row, st));
      return e.correlated->Evaluate(
          args, e.compare_collation != nullptr ? *e.compare_collation : ConnectionCollation(), st);
    }
  }
  return Value::Null();
}

}  // namespace minnow::sql
