// Result columns as column definitions (result_columns.h).

#include "sql_lite_front/execute/result_columns.h"

#include <limits>

#include "sql_lite_front/execute/join.h"
#include "sql_lite_front/execute/subquery.h"
#include "sql_lite_front/parse/ast_walk.h"

namespace minnow::sql {
namespace {

// The characters of a UTF-8 string.
uint32_t CharCount(std::string_view s) {
  uint32_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The joined-row column `c` of a join: its definition, NULL allowed on an outer table's.
ColumnDef JoinColumn(const JoinPlan& join, size_t c) {
  ColumnDef def = *join.columns[c];
  for (const JoinStep& s : join.steps) {
    if (c >= s.first && c < s.first + s.table->def.columns.size() && s.outer) def.nullable = true;
  }
  return def;
}

// A bare column's definition as a query's result (AUTO_INCREMENT dropped, as MySQL's copy).
std::optional<ColumnDef> SourceColumn(const PreparedSelect& p, const BoundExpr& e) {
  if (e.kind != BoundExpr::Kind::kColumn || e.column < 0) return std::nullopt;
  const auto c = static_cast<size_t>(e.column);
  ColumnDef def;
  if (p.table != nullptr && c < p.table->def.columns.size()) {
    def = p.table->def.columns[c];
  } else if (p.join != nullptr && c < p.join->columns.size()) {
    def = JoinColumn(*p.join, c);
  } else {
    return std::nullopt;
  }
  if (def.auto_increment) {
    def.auto_increment = false;
    if (!def.nullable && !def.default_value.has_value()) def.default_value = Value::Int(0);
  }
  return def;
}

// MySQL's nullability of an expression's result, where minnow follows it: literals and NOT
// NULL columns are NOT NULL, arithmetic (but / and %, NULL on a zero divisor) and CONCAT
// when every operand is; everything else may be NULL.
bool MayBeNull(const PreparedSelect& p, const BoundExpr& e) {
  switch (e.kind) {
    case BoundExpr::Kind::kLiteral:
      return e.value.is_null();
    case BoundExpr::Kind::kColumn: {
      std::optional<ColumnDef> def = SourceColumn(p, e);
      return !def.has_value() || def->nullable;
    }
    case BoundExpr::Kind::kUnary:
      return e.unary_op != UnaryOp::kNeg || MayBeNull(p, e.args[0]);
    case BoundExpr::Kind::kBinary:
      if (e.binary_op != BinaryOp::kAdd && e.binary_op != BinaryOp::kSub &&
          e.binary_op != BinaryOp::kMul)
        return true;
      return MayBeNull(p, e.args[0]) || MayBeNull(p, e.args[1]);
    case BoundExpr::Kind::kFunction:
      if (e.func != Func::kConcat) return true;
      for (const BoundExpr& a : e.args) {
        if (MayBeNull(p, a)) return true;
      }
      return false;
    case BoundExpr::Kind::kAggregate:
      return p.scope.aggregates[e.column].func != AggFunc::kCount;
    default:
      return true;
  }
}

// A VARCHAR(n) of `collation`.
ColumnDef Varchar(uint32_t n, const Collation* collation) {
  ColumnDef def;
  def.type = ColumnType::kVarchar;
  def.length = n;
  def.collation = collation != nullptr ? collation : &ConnectionCollation();
  return def;
}

// The characters CONCAT's operand `a` may hold, if minnow knows MySQL's figure.
std::optional<uint32_t> ConcatLength(const PreparedSelect& p, const BoundExpr& a) {
  if (a.kind == BoundExpr::Kind::kLiteral && a.value.is_string())
    return CharCount(a.value.as_string());
  std::optional<ColumnDef> def = SourceColumn(p, a);
  if (def.has_value() && (def->type == ColumnType::kVarchar || def->type == ColumnType::kChar))
    return def->length;
  return std::nullopt;
}

// The definition MySQL gives expression `e`'s result, where minnow derives it exactly.
std::optional<ColumnDef> ExactType(const PreparedSelect& p, const BoundExpr& e) {
  if (std::optional<ColumnDef> def = SourceColumn(p, e)) return def;
  ColumnDef def;
  if (e.kind == BoundExpr::Kind::kLiteral) {
    const Value& v = e.value;
    if (v.is_int()) {
      const bool fits = v.as_int() >= std::numeric_limits<int32_t>::min() &&
                        v.as_int() <= std::numeric_limits<int32_t>::max();
      def.type = fits ? ColumnType::kInt : ColumnType::kBigInt;
    } else if (v.is_uint()) {
      def.type = ColumnType::kBigInt;
      def.is_unsigned = true;
    } else if (v.is_string() && !e.hex_literal) {
      def = Varchar(CharCount(v.as_string()), e.collation);
    } else if (v.is_decimal()) {
      const std::string text = v.ToString();
      const size_t point = text.find('.');
      const size_t sign = text[0] == '-' ? 1 : 0;
      const size_t int_digits = (point == std::string::npos ? text.size() : point) - sign;
      const size_t scale = point == std::string::npos ? 0 : text.size() - point - 1;
      def.type = ColumnType::kDecimal;
      def.scale = static_cast<uint8_t>(scale);
      def.length = static_cast<uint32_t>(std::max<size_t>(int_digits, 1) + scale);
    } else if (v.is_double()) {
      def.type = ColumnType::kDouble;
    } else if (v.is_temporal() && v.as_temporal().is_time()) {  // CURTIME()
      def.type = ColumnType::kTime;
      def.length = v.as_temporal().fsp;
    } else if (v.is_temporal() && v.as_temporal().type != Temporal::Type::kYear) {
      // DATE '...' / TIMESTAMP '...': DATE, DATETIME(the literal's fsp)
      const bool date = v.as_temporal().type == Temporal::Type::kDate;
      def.type = date ? ColumnType::kDate : ColumnType::kDateTime;
      if (!date) def.length = v.as_temporal().fsp;
    } else {
      return std::nullopt;
    }
    def.nullable = false;
    return def;
  }
  if (e.kind == BoundExpr::Kind::kAggregate) {
    const AggregateSpec& a = p.scope.aggregates[e.column];
    if (a.func == AggFunc::kCount) {
      def.type = ColumnType::kBigInt;
      def.nullable = false;
      return def;
    }
    if (a.func == AggFunc::kMin || a.func == AggFunc::kMax) {
      std::optional<ColumnDef> col = SourceColumn(p, a.arg);
      if (!col.has_value()) return std::nullopt;
      col->nullable = true;
      col->default_value.reset();
      return col;
    }
    return std::nullopt;
  }
  if (e.kind == BoundExpr::Kind::kFunction && e.func == Func::kConcat) {
    uint32_t n = 0;
    for (const BoundExpr& a : e.args) {
      std::optional<uint32_t> len = ConcatLength(p, a);
      if (!len.has_value()) return std::nullopt;
      n += *len;
    }
    def = Varchar(n, e.collation);
    def.nullable = MayBeNull(p, e);
    return def;
  }
  if (e.type == TypeClass::kInt &&
      (e.kind == BoundExpr::Kind::kBinary || e.kind == BoundExpr::Kind::kUnary)) {
    def.type = ColumnType::kBigInt;
    def.is_unsigned = e.is_unsigned;
    def.nullable = MayBeNull(p, e);
    return def;
  }
  if (e.type == TypeClass::kDouble) {
    def.type = ColumnType::kDouble;
    def.nullable = MayBeNull(p, e);
    return def;
  }
  if (e.kind == BoundExpr::Kind::kCast && e.cast.type == CastTarget::Type::kTime) {
    def.type = ColumnType::kTime;
    def.length = static_cast<uint32_t>(std::max<int64_t>(e.cast.length, 0));
    return def;
  }
  if (e.kind == BoundExpr::Kind::kFunction &&
      (e.func == Func::kTimeOf || e.func == Func::kTimeDiff || e.func == Func::kSecToTime ||
       e.func == Func::kMakeTime)) {
    // A TIME; its fsp is the largest its arguments may give.
    def.type = ColumnType::kTime;
    def.length = 6;
    return def;
  }
  return std::nullopt;
}

// The nearest definition of a result of type class `t` (a derived table's column).
ColumnDef NearestType(const BoundExpr& t) {
  ColumnDef def;
  switch (t.type) {
    case TypeClass::kInt:
      def.type = ColumnType::kBigInt;
      def.is_unsigned = t.is_unsigned;
      break;
    case TypeClass::kDecimal:
      def.type = ColumnType::kDecimal;
      def.length = 65;
      def.scale = static_cast<uint8_t>(t.scale);
      break;
    case TypeClass::kDouble:
      def.type = ColumnType::kDouble;
      break;
    case TypeClass::kTemporal:
      def.type = ColumnType::kDateTime;
      def.length = 6;
      break;
    default:
      def = Varchar(65535, t.collation);
      def.type = ColumnType::kText;
      break;
  }
  return def;
}

}  // namespace

std::vector<ColumnDef> ResultColumnDefs(const PreparedSelect& p) {
  std::vector<ColumnDef> defs;
  for (size_t i = 0; i < p.items.size(); ++i) {
    std::optional<ColumnDef> def = ExactType(p, p.items[i]);
    if (!def.has_value()) def = NearestType(p.items[i]);
    def->name = p.names[i];
    defs.push_back(std::move(*def));
  }
  return defs;
}

SqlResult<TypedRows> RunTypedQuery(ExecContext& ctx, const SelectStmt& q,
                                   std::optional<LockMode> lock) {
  TypedRows out;
  SelectOutput rows;
  if (lock.has_value()) ctx.derived_lock = lock;
  if (q.union_of != nullptr) {
    SQL_ASSIGN_OR_RETURN(rows, RunUnion(ctx, q, lock));
    for (size_t i = 0; i < rows.columns.size(); ++i) {
      ColumnDef def = NearestType(rows.union_types[i]);
      def.name = rows.columns[i];
      out.columns.push_back(std::move(def));
    }
  } else {
    if (ctx.subqueries == nullptr && HasSubquery(q))
      ctx.subqueries = std::make_shared<SubqueryResolver>(lock);
    SQL_ASSIGN_OR_RETURN(PreparedSelect p, PrepareSelect(ctx, q));
    out.columns = ResultColumnDefs(p);
    SQL_ASSIGN_OR_RETURN(rows, RunPreparedSelect(ctx, p, q, lock));
  }
  out.rows = std::move(rows.rows);
  out.warnings = std::move(rows.warnings);
  return out;
}

}  // namespace minnow::sql
