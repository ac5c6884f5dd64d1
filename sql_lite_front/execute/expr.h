#pragma once
// Expressions, bound once per statement and evaluated per row.
//
// Binding (BindExpr) turns a parsed Expr into a BoundExpr: column references become positions
// in the row the statement reads (a TableDef's columns or a system table's), @@variables and
// the per-statement constants (connection_id(), last_insert_id(), database(), version(), now())
// become literals, and each aggregate (count/sum/min/max/avg/group_concat) becomes a slot the
// executor fills (BindScope::aggregates). Errors at bind time, as MySQL's:
//   1054 "Unknown column 'x' in 'field list'" (or 'where clause', 'order clause', ...)
//   1305 "FUNCTION test.x does not exist"
//   1111 "Invalid use of group function" (an aggregate where none may be, or nested)
//   1193 "Unknown system variable 'x'"
//   1425, 1426, 1427 for a CAST to DECIMAL(m,d) beyond 65 digits or 30 after the point, or d > m;
//   1115 / 1235 for CONVERT(x USING cs) of a charset minnow lacks (cast.h)
//
// Evaluation (Eval) is a tree walk with MySQL's semantics: three-valued logic (NULL is unknown:
// NULL AND 0 = 0, NULL OR 1 = 1), comparisons by Value::Compare (strings under a collation,
// below), exact arithmetic (arithmetic.h: 64-bit integers, decimals, doubles where MySQL uses
// doubles), x/0 and x%0 NULL, LIKE with % _ and the backslash escape. The one failure is an
// arithmetic result out of its type's range (1690): Eval then records the error in
// EvalState::error and returns NULL; callers check it after each row (EvalError).
//
// Collations (collation.h): a column reference carries its column's collation, a string
// function's result its first string argument's, a literal none. A comparison (=, <, BETWEEN,
// IN, LIKE) of two strings uses its operands' collation (a column's beats a literal's; binary
// beats any other; two different text collations are MySQL's 1267 "Illegal mix of
// collations"), and with none of them, the connection's (utf8mb4_0900_ai_ci), as MySQL's
// coercibility rules pick it for the shapes minnow has. ORDER BY, GROUP BY, MIN/MAX and
// count(DISTINCT) compare under their expression's collation.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/collation.h"
#include "sql_lite_front/execute/exec_context.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

enum class Func : uint8_t {
  kMd5,
  kRand,
  kConcat,
  kLength,
  kCharLength,
  kLower,
  kUpper,
  kAbs,
  kIfNull,
  kCoalesce,
  kIf,
  kFloor,
  kCeil,
  kRound,
  kMod,
  // Text functions: positions and lengths count characters (bytes for a binary string).
  kRepeat,
  kSubstring,
  kLeft,
  kRight,
  kTrim,
  kLtrim,
  kRtrim,
  kReplace,
  kConcatWs,
  kLpad,
  kRpad,
  kLocate,
  kInstr,
  kReverse,
  kHex,
  kNullIf,
  // Date functions (date_functions.h).
  kSysdate,
  kDateOf,  // DATE(x)
  kYear,
  kMonth,
  kDayOfMonth,
  kHour,
  kMinute,
  kSecond,
  kDateFormat,
  kDateAdd,  // (d, n, 'UNIT'); date_sub, adddate, subdate and d +/- INTERVAL too
  kDateSub,
  kTimestampAdd,  // ('UNIT', n, d)
  kDateDiff,
  kTimestampDiff,
  kUnixTimestamp,
  kFromUnixtime,
  kStrToDate,  // str_to_date.h
  // Numeric functions (math_functions.h), kSign .. kFormat.
  kSign,
  kPow,
  kSqrt,
  kExp,
  kLn,
  kLog,
  kLog2,
  kLog10,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kCot,
  kRadians,
  kDegrees,
  kTruncate,
  kGreatest,
  kLeast,
  kCrc32,
  kBitCount,
  kConv,
  kBin,
  kOct,
  kFormat,
  kPi,
  kUuidShort,
  // String functions (string_functions.h), kAscii .. kIsNull.
  kAscii,
  kOrd,
  kSpace,
  kStrcmp,
  kField,
  kElt,
  kSubstringIndex,
  kInsertString,  // INSERT(s, pos, len, t)
  kFindInSet,
  kUnhex,
  kSha1,
  kSha2,
  kUuid,
  kChar,
  kToBase64,
  kFromBase64,
  kQuote,
  kIsNull,
  // Calendar functions (calendar_functions.h), kWeekday .. kFromDays.
  kWeekday,
  kDayOfWeek,
  kDayName,
  kDayOfYear,
  kToDays,
  kWeek,
  kYearWeek,
  kMonthName,
  kQuarter,
  kLastDay,
  kMakeDate,
  kFromDays,
  // Time functions (time_functions.h), kTimeOf .. kMicrosecond; HOUR, MINUTE and SECOND too.
  kTimeOf,  // TIME(x)
  kTimeDiff,
  kTimeToSec,
  kSecToTime,
  kAddTime,
  kSubTime,
  kMakeTime,
  kTimeFormat,
  kMicrosecond,
};

// The type class MySQL gives an expression's result (Item::result_type()), where binding
// knows it: what CASE, IF, IFNULL, COALESCE and NULLIF aggregate their results by
// (expr_type.h). kUnknown when binding cannot tell (an aggregate's, a system table's column).
// kTemporal: a DATE, DATETIME or TIME (MySQL's result type is a string, its field type a date).
enum class TypeClass : uint8_t { kUnknown, kNull, kInt, kDecimal, kDouble, kString, kTemporal };

// kStdPop .. kVarSamp: the population and sample standard deviation and variance (doubles, as
// MySQL's Welford recurrence computes them); kBitAnd .. kBitXor: BIGINT UNSIGNED over the
// values' 64-bit integers (an empty set: all ones for BIT_AND, 0 for the others). kGrouping:
// GROUPING(c, ...) under WITH ROLLUP, its columns in concat_args; the executor gives its value
// per result row (a bit per argument, the last the lowest: 1 where the row rolls it up).
enum class AggFunc : uint8_t {
  kCount,
  kSum,
  kMin,
  kMax,
  kAvg,
  kGroupConcat,
  kStdPop,
  kStdSamp,
  kVarPop,
  kVarSamp,
  kBitAnd,
  kBitOr,
  kBitXor,
  kGrouping,
};

struct EvalState;

// A correlated subquery node's runtime (execute/subquery.h): what the subquery stands for
// given the values of its node's args (the node's operand first, for IN / ANY / ALL, then the
// outer columns it reads); IN / ANY / ALL compare under `c`. Errors (1242) go to state.error,
// and the value is then NULL.
class CorrelatedSubquery {
 public:
  virtual ~CorrelatedSubquery() = default;
  virtual Value Evaluate(const std::vector<Value>& args, const Collation& c,
                         EvalState& state) const = 0;
  // A row subquery's: its one row's values (all NULL for no row; 1242 for more than one).
  virtual std::vector<Value> EvaluateRow(const std::vector<Value>& args,
                                         EvalState& state) const = 0;
};

struct BoundExpr {
  enum class Kind : uint8_t {
    kLiteral,
    kColumn,
    kUnary,
    kBinary,
    kBetween,
    kIn,
    kLike,
    kIsNull,
    kFunction,
    kAggregate,  // the value of aggregate slot `column` (BindScope::aggregates)
    kCase,       // args as Expr::kCase's, case_operand and case_else
    kCast,       // CAST(args[0] AS cast) (cast.h)
    // A user variable (name in text) of user_vars read as the row is evaluated, and
    // @name := args[0], which sets it to args[0]'s value and has that value.
    kUserVariable,
    kAssignUserVariable,
    // A subquery that reads columns of the blocks around it, run per row: correlated's
    // Evaluate of the args' values.
    kCorrelatedSubquery,
    // A row comparison whose elements are each evaluated once (MySQL's compare_row): binary_op
    // over args[0] and args[1], each a kRow (its elements as args) or a kRowSubquery; then per
    // element, a comparison node whose collation that element compares under (no args).
    kRowComparison,
    kRow,
    // A correlated row subquery: correlated's EvaluateRow of the args' values.
    kRowSubquery,
    // row [NOT] IN (row, ...), the operand evaluated once: args[0] the operand and then each
    // list row (kRow), then per element a comparison node carrying its collation.
    kRowIn,
  };
  Kind kind = Kind::kLiteral;
  Value value;      // kLiteral
  int column = -1;  // kColumn: position in the row; kAggregate: slot
  BinaryOp binary_op = BinaryOp::kEq;
  UnaryOp unary_op = UnaryOp::kNot;
  Func func = Func::kMd5;
  bool negated = false;
  // The result is an integer typed BIGINT UNSIGNED (an unsigned column, or arithmetic on one):
  // arithmetic checks its range as unsigned (arithmetic.h).
  bool is_unsigned = false;
  // kUnary kNeg of a constant (literals and operators on them): MySQL types the result DECIMAL
  // when the BIGINT negation cannot hold it (-(-9223372036854775808) is 9223372036854775808).
  bool negates_constant = false;
  // kLiteral: a hex literal (Expr::hex_literal) still holding its bytes as a binary string.
  bool hex_literal = false;
  std::string text;  // arithmetic nodes: the expression as MySQL prints it, for 1690
  // String-valued nodes: the collation their value carries (null: a literal's, coercible);
  // comparisons (kBinary =..>=, kBetween, kIn, kLike): the collation they compare under.
  const Collation* collation = nullptr;
  // kCase with an operand: the collation its operand and WHEN values compare under;
  // kCorrelatedSubquery: the one IN / ANY / ALL compare under.
  const Collation* compare_collation = nullptr;
  bool case_operand = false, case_else = false;  // kCase
  CastTarget cast;                               // kCast
  // Date functions that read or make a local time (UNIX_TIMESTAMP, FROM_UNIXTIME, SYSDATE):
  // the session's time_zone when bound.
  TimeZone time_zone;
  // The result's type class and, for kDecimal, its digits after the point (expr_type.h).
  TypeClass type = TypeClass::kUnknown;
  int scale = 0;
  std::vector<BoundExpr> args;
  std::map<std::string, Value>* user_vars = nullptr;     // kUserVariable, kAssignUserVariable
  std::shared_ptr<const CorrelatedSubquery> correlated;  // kCorrelatedSubquery
};

// One aggregate of the statement: count(*) has star set and no arg.
struct AggregateSpec {
  AggFunc func = AggFunc::kCount;
  bool star = false;
  bool distinct = false;
  BoundExpr arg;
  // group_concat: its values (arg unused), ORDER BY keys (ORDER BY n: the n-th value), the
  // separator, and @@group_concat_max_len when bound (the result's limit in bytes).
  // COUNT(DISTINCT a, b, ...) has its values in concat_args too (arg unused).
  std::vector<BoundExpr> concat_args;
  std::vector<BoundExpr> order;
  std::vector<bool> order_desc;
  std::string separator;
  uint64_t max_len = 1024;
};

// What names resolve against, and what binding found.
struct BindScope {
  std::string table;   // the table's name ("sample"), for qualified names and messages
  std::string alias;   // FROM t AS alias, or empty
  std::string schema;  // "test", or the system schema
  std::vector<std::string_view> columns;  // the row's column names, case-insensitive
  std::vector<bool> unsigned_columns;     // integer columns declared UNSIGNED (may be empty)
  bool unsigned_subtraction = true;       // false under sql_mode NO_UNSIGNED_SUBTRACTION
  // Per column, its collation (null or missing: none).
  std::vector<const Collation*> collations;
  // Per column, its type class (missing: kUnknown).
  std::vector<TypeClass> column_types;
  // Per column, the digits after the point of a kDecimal one (missing: 0).
  std::vector<int> column_scales;
  // A join's tables, in FROM order (empty for one table, named by table and alias above):
  // `columns` holds their columns one table after another. A qualified name resolves in the
  // table it names (its alias if it has one, and its database if db.t.c names one), an
  // unqualified one in every visible table (1052 "Column 'x' in <clause> is ambiguous" when
  // two have it); an ON clause sees only its operands' tables.
  struct JoinTable {
    std::string as_named;  // the alias, or the table's name
    std::string schema;    // the table's database
    size_t first = 0, count = 0;
    bool visible = true;
  };
  std::vector<JoinTable> join_tables;
  // Per column of a join: the column a USING join merged it into (an unqualified name reads
  // that one), or -1.
  std::vector<int> merged_into;

  // Filled by BindExpr:
  std::vector<bool> used;                 // columns referenced (sized to columns)
  std::vector<AggregateSpec> aggregates;  // when aggregates are allowed
  bool allow_aggregates = false;          // set per clause by the caller
  bool saw_column_outside_aggregate = false;
  std::string first_bare_column;  // its name, for 1140's message
  int first_bare_position = -1;   // ... and, in a join, its position in the joined row
};

// The scope of a table's columns (names view `def`, which must outlive the scope).
BindScope ScopeForTable(const TableDef& def, std::string_view alias = {});

// A column reference as written: [db.][t.]c (1054's and 1052's name).
std::string QualifiedColumnName(const Expr& e);

// The position of the column `e` (a kColumn) names in a one-table scope, or 1054. A qualifier
// names the table by its alias if it has one (its own name is then not visible, as in MySQL),
// and db.t.c names its database too.
SqlResult<size_t> ResolveScopeColumn(const Expr& e, const BindScope& scope, const char* clause);

// A column name (`e` a kColumn) in a join's scope: its position in the joined row; 1054, 1052.
SqlResult<size_t> ResolveJoinColumn(const Expr& e, const BindScope& scope, const char* clause);

// Where a column name `e` that `scope` lacks resolves in the enclosing blocks (ctx.outer_scopes,
// innermost first), or nullopt when none has it.
std::optional<ExecContext::OuterColumn> FindOuterColumn(const Expr& e, const ExecContext& ctx);
// The constant an outer reference stands for while its subquery binds: its value in
// ctx.outer_values, else NULL with the reference noted in ctx.outer_refs; 1235 when neither.
SqlResult<Value> OuterColumnValue(const ExecContext::OuterColumn& at, const ExecContext& ctx);

// A copy of `e` for the planner, which reads one table's columns by their names: the names of
// `scope`'s columns lose their qualifier, outer references become the constants they stand
// for (OuterColumnValue; NULL while not known). Subqueries are copied as they are.
ExprPtr PlannerCopy(const Expr& e, const BindScope& scope, const ExecContext& ctx);

// Binds `e` in `scope`; `clause` names the clause for 1054 ("field list", "where clause",
// "order clause", "group statement"). Variables and statement constants are read from `ctx`.
SqlResult<BoundExpr> BindExpr(const Expr& e, BindScope& scope, const ExecContext& ctx,
                              const char* clause);

// What a row's evaluation may need besides the row: rand()'s generator and the aggregate
// values of the current group.
struct EvalState {
  std::mt19937_64 rng;
  bool rand_seeded = false;  // rand(N) seeded rng (once per statement)
  const std::vector<Value>* aggregates = nullptr;
  std::optional<SqlError> error;  // the first 1690 of the statement (arithmetic.h)
  // Warnings evaluation raised (CAST's 1292, ...), in order; the statement reports them.
  std::vector<SqlWarning> warnings;
};

// The error Eval recorded (and clears it), or OK. Callers check after evaluating a row.
inline SqlStatus EvalError(EvalState& state) {
  if (!state.error.has_value()) [[likely]]
    return SqlStatus::OK();
  SqlError e = std::move(*state.error);
  state.error.reset();
  return e;
}

// A hex literal's bytes as the unsigned integer MySQL reads them as where a number is wanted
// (big-endian; the last 8 of a longer one).
Value HexLiteralNumber(std::string_view bytes);
// If `b` is a bare hex literal and `numeric` (it is stored into a numeric column: INSERT's
// values, UPDATE's SET), makes it that number.
void ReadHexAsNumber(bool numeric, BoundExpr* b);

// Sets the statement's error to 1301 for `func`'s result of `bytes` if that is beyond
// max_allowed_packet (MySQL returns NULL with that warning); true if it is.
bool ResultTooLarge(uint64_t bytes, const char* func, EvalState& st);

// Seeds a statement's generator from the clock.
void SeedEvalState(EvalState* state);

Value Eval(const BoundExpr& e, const Row& row, EvalState& state);
// WHERE's test: true only for a non-NULL true value.
inline bool EvalPredicate(const BoundExpr& e, const Row& row, EvalState& state) {
  return Eval(e, row, state).IsTrue();
}

// True if `e` contains an aggregate call (count/sum/min/max/avg), at any depth.
bool ContainsAggregate(const Expr& e);
// True if `n` (lower case) names an aggregate function; sets *f to it when f is not null.
bool IsAggregateName(std::string_view n, AggFunc* f = nullptr);
// How many user variable assignments (@x := expr) `e` has, at any depth.
size_t UserVariableAssignments(const Expr& e);
// md5 as 32 lowercase hex digits.
std::string Md5Hex(std::string_view bytes);
// The literal prefix of a LIKE pattern before its first wildcard (escapes resolved), and
// whether the pattern is exactly that prefix followed by a single trailing '%' (or nothing).
std::string LikePrefix(std::string_view pattern, bool* prefix_then_percent);
// Three-valued comparison: NULL if either side is NULL, else the CompareUnder result's truth.
Value CompareValues(BinaryOp op, const Value& a, const Value& b,
                    const Collation& c = ConnectionCollation());
// Three-way comparison of two non-NULL values: two strings under `c`, else Value::Compare.
int CompareUnder(const Value& a, const Value& b, const Collation& c);
// The collation `e` compares under: its own, or the connection's when it has none.
inline const Collation& CollationOf(const BoundExpr& e) {
  return e.collation != nullptr ? *e.collation : ConnectionCollation();
}

}  // namespace minnow::sql
