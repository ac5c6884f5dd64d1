// Expressions, by MySQL's precedence (lowest first): OR ||, XOR, AND &&, NOT, comparisons
// (= <=> <> != < <= > >= IS LIKE IN BETWEEN), + -, * / DIV % MOD, unary - + !, primaries.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "sql_lite_front/parse/parser_internal.h"
#include "sql_lite_front/parse/row_constructor.h"
#include "sql_lite_front/parse/temporal_literal.h"

namespace minnow::sql {

SqlStatus Parser::Enter() {
  if (++depth_ > kMaxNesting) {
    --depth_;
    return SyntaxError();
  }
  return SqlStatus::OK();
}

uint32_t Parser::Height(const Expr* e) const {
  auto it = heights_.find(e);
  return it == heights_.end() ? 1 : it->second;
}

SqlResult<ExprPtr> Parser::Finish(ExprPtr node, uint32_t begin) {
  uint32_t h = 1;
  for (const ExprPtr& a : node->args) {
    if (a != nullptr) h = std::max(h, Height(a.get()) + 1);
  }
  if (h > kMaxExprHeight) return SyntaxError();
  if (h > 1) heights_[node.get()] = h;
  node->text = std::string(sql_.substr(begin, std::max(last_end_, begin) - begin));
  return node;
}

SqlResult<ExprPtr> Parser::MakeBinary(BinaryOp op, ExprPtr left, ExprPtr right, uint32_t begin) {
  auto node = std::make_unique<Expr>();
  node->kind = Expr::Kind::kBinary;
  node->binary_op = op;
  node->args.push_back(std::move(left));
  node->args.push_back(std::move(right));
  return Finish(std::move(node), begin);
}

SqlResult<ExprPtr> Parser::ParseExpr() {
  SQL_RETURN_IF_ERROR(Enter());
  SqlResult<ExprPtr> e = ParseOr();
  Leave();
  return e;
}

SqlResult<ExprPtr> Parser::ParseOr() {
  const uint32_t begin = Cur().begin;
  SQL_ASSIGN_OR_RETURN(ExprPtr left, ParseXor());
  while (IsKw("OR") || (IsOp("||") && !options_.pipes_as_concat)) {
    Skip();
    SQL_ASSIGN_OR_RETURN(ExprPtr right, ParseXor());
    SQL_ASSIGN_OR_RETURN(left, MakeBinary(BinaryOp::kOr, std::move(left), std::move(right), begin));
  }
  return left;
}

SqlResult<ExprPtr> Parser::ParseXor() {
  const uint32_t begin = Cur().begin;
  SQL_ASSIGN_OR_RETURN(ExprPtr left, ParseAnd());
  while (AcceptKw("XOR")) {
    SQL_ASSIGN_OR_RETURN(ExprPtr right, ParseAnd());
    SQL_ASSIGN_OR_RETURN(left,
                         MakeBinary(BinaryOp::kXor, std::move(left), std::move(right), begin));
  }
  return left;
}

SqlResult<ExprPtr> Parser::ParseAnd() {
  const uint32_t begin = Cur().begin;
  SQL_ASSIGN_OR_RETURN(ExprPtr left, ParseNot());
  while (IsKw("AND") || IsOp("&&")) {
    Skip();
    SQL_ASSIGN_OR_RETURN(ExprPtr right, ParseNot());
    SQL_ASSIGN_OR_RETURN(left,
                         MakeBinary(BinaryOp::kAnd, std::move(left), std::move(right), begin));
  }
  return left;
}

SqlResult<ExprPtr> Parser::ParseNot() {
  if (!IsKw("NOT")) return ParsePredicate();
  const uint32_t begin = Cur().begin;
  Skip();
  SQL_RETURN_IF_ERROR(Enter());
  SqlResult<ExprPtr> operand = ParseNot();
  Leave();
  if (!operand.ok()) return operand.error();
  auto node = std::make_unique<Expr>();
  node->kind = Expr::Kind::kUnary;
  node->unary_op = UnaryOp::kNot;
  node->args.push_back(std::move(operand).value());
  return Finish(std::move(node), begin);
}

namespace {

bool ComparisonOp(const Token& t, BinaryOp* op) {
  if (t.kind != TokenKind::kOperator) return false;
  static constexpr std::pair<std::string_view, BinaryOp> kOps[] = {
      {"=", BinaryOp::kEq},  {"<=>", BinaryOp::kNullSafeEq}, {"<>", BinaryOp::kNe},
      {"!=", BinaryOp::kNe}, {"<", BinaryOp::kLt},           {"<=", BinaryOp::kLe},
      {">", BinaryOp::kGt},  {">=", BinaryOp::kGe},
  };
  for (const auto& [text, o] : kOps) {
    if (t.text == text) {
      *op = o;
      return true;
    }
  }
  return false;
}

}  // namespace

SqlResult<ExprPtr> Parser::ParseRowTail(ExprPtr first, uint32_t begin) {
  auto row = std::make_unique<Expr>();
  row->kind = Expr::Kind::kRow;
  row->args.push_back(std::move(first));
  while (AcceptOp(",")) {
    SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
    row->args.push_back(std::move(e));
  }
  SQL_RETURN_IF_ERROR(ExpectOp(")"));
  return Finish(std::move(row), begin);
}

SqlResult<ExprPtr> Parser::RowsAsScalars(ExprPtr node) {
  std::vector<const Expr*> operands;
  for (const ExprPtr& a : node->args) operands.push_back(a.get());
  bool rows = false;
  for (const Expr* a : operands) rows = rows || a->kind == Expr::Kind::kRow;
  if (!rows) return node;
  const bool in = node->kind == Expr::Kind::kIn;
  for (const Expr* a : operands) {
    if (a->kind != Expr::Kind::kSubquery) continue;
    // A row subquery compared with a row: binding learns its width (row_constructor.h).
    if (in) return NotSupported("row subqueries in an IN list");
    return node;
  }
  const Expr& first = *operands[0];
  operands.erase(operands.begin());
  // Shapes that do not fit stay as written: binding raises 1241 (after the tables resolve).
  if (RowShapeError(first, operands).has_value()) return node;
  if (in) {
    // RowInList names the operand once per list row: one that may change is compared by
    // binding instead.
    if (IsVolatile(first)) return node;
    return RowInList(first, operands, node->negated, node->text);
  }
  // < <= > >= name the leading elements twice: with one that may change, binding compares
  // the rows instead.
  const bool ordering = node->binary_op != BinaryOp::kEq &&
                        node->binary_op != BinaryOp::kNullSafeEq &&
                        node->binary_op != BinaryOp::kNe;
  if (ordering && (IsVolatile(first) || IsVolatile(*operands[0]))) return node;
  return RowComparison(node->binary_op, first, *operands[0], node->text);
}

SqlResult<ExprPtr> Parser::ParsePredicate() {
  const uint32_t begin = Cur().begin;
  SQL_ASSIGN_OR_RETURN(ExprPtr left, ParseBitExpr());
  for (;;) {
    BinaryOp op;
    if (ComparisonOp(Cur(), &op)) {
      Skip();
      if ((IsKw("ANY") || IsKw("ALL") || IsKw("SOME")) && IsOp("(", 1)) {
        const bool all = IsKw("ALL");
        auto node = std::make_unique<Expr>();
        node->kind = Expr::Kind::kQuantified;
        if (left->kind == Expr::Kind::kRow) {
          // A row compares with a subquery's rows only as = ANY (IN) and <> ALL (NOT IN).
          if (op != (all ? BinaryOp::kNe : BinaryOp::kEq))
            return SqlErr(kErOperandColumns, "Operand should contain 1 column(s)");
          node->kind = Expr::Kind::kIn;
          node->negated = all;
        }
        node->binary_op = op;
        node->quantifier_all = all && node->kind == Expr::Kind::kQuantified;
        Skip();
        SQL_ASSIGN_OR_RETURN(node->subquery, ParseSubquery());
        node->args.push_back(std::move(left));
        SQL_ASSIGN_OR_RETURN(left, Finish(std::move(node), begin));
        continue;
      }
      SQL_ASSIGN_OR_RETURN(ExprPtr right, ParseBitExpr());
      SQL_ASSIGN_OR_RETURN(left, MakeBinary(op, std::move(left), std::move(right), begin));
      SQL_ASSIGN_OR_RETURN(left, RowsAsScalars(std::move(left)));
      continue;
    }
    if (AcceptKw("IS")) {
      auto node = std::make_unique<Expr>();
      node->kind = Expr::Kind::kIsNull;
      node->negated = AcceptKw("NOT");
      if (IsKw("TRUE") || IsKw("FALSE") || IsKw("UNKNOWN")) {
        return NotSupported("IS " + ToUpperAscii(Cur().text));
      }
      SQL_RETURN_IF_ERROR(ExpectKw("NULL"));
      node->args.push_back(std::move(left));
      SQL_ASSIGN_OR_RETURN(left, Finish(std::move(node), begin));
      continue;
    }
    bool negated = false;
    if (IsKw("NOT") && (IsKw("LIKE", 1) || IsKw("IN", 1) || IsKw("BETWEEN", 1) ||
                        IsKw("REGEXP", 1) || IsKw("RLIKE", 1))) {
      Skip();
      negated = true;
    }
    auto node = std::make_unique<Expr>();
    node->negated = negated;
    node->args.push_back(std::move(left));
    if (AcceptKw("LIKE")) {
      node->kind = Expr::Kind::kLike;
      SQL_ASSIGN_OR_RETURN(ExprPtr pattern, ParseBitExpr());
      node->args.push_back(std::move(pattern));
      if (IsKw("ESCAPE")) return NotSupported("LIKE ... ESCAPE");
    } else if (AcceptKw("IN")) {
      node->kind = Expr::Kind::kIn;
      if (IsOp("(") && (IsKw("SELECT", 1) || (IsOp("(", 1) && IsKw("SELECT", 2)))) {
        SQL_ASSIGN_OR_RETURN(node->subquery, ParseSubquery());
        SQL_ASSIGN_OR_RETURN(left, Finish(std::move(node), begin));
        continue;
      }
      SQL_RETURN_IF_ERROR(ExpectOp("("));
      for (;;) {
        SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
        node->args.push_back(std::move(e));
        if (!AcceptOp(",")) break;
      }
      SQL_RETURN_IF_ERROR(ExpectOp(")"));
      SQL_ASSIGN_OR_RETURN(left, Finish(std::move(node), begin));
      SQL_ASSIGN_OR_RETURN(left, RowsAsScalars(std::move(left)));
      continue;
    } else if (AcceptKw("BETWEEN")) {
      node->kind = Expr::Kind::kBetween;
      SQL_ASSIGN_OR_RETURN(ExprPtr low, ParseBitExpr());
      SQL_RETURN_IF_ERROR(ExpectKw("AND"));
      SQL_ASSIGN_OR_RETURN(ExprPtr high, ParseBitExpr());
      node->args.push_back(std::move(low));
      node->args.push_back(std::move(high));
    } else if (IsKw("REGEXP") || IsKw("RLIKE")) {
      return NotSupported("REGEXP");
    } else if (IsKw("SOUNDS") || IsKw("MEMBER")) {
      return NotSupported(ToUpperAscii(Cur().text));
    } else {
      return std::move(node->args[0]);
    }
    SQL_ASSIGN_OR_RETURN(left, Finish(std::move(node), begin));
  }
}

SqlResult<ExprPtr> Parser::ParseBitExpr() {
  SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseAdditive());
  if (IsOp("|") || IsOp("&") || IsOp("^") || IsOp("<<") || IsOp(">>")) {
    return NotSupported("bit operators");
  }
  return e;
}

SqlResult<ExprPtr> Parser::ParseAdditive() {
  const uint32_t begin = Cur().begin;
  SQL_ASSIGN_OR_RETURN(ExprPtr left, ParseMultiplicative());
  while (IsOp("+") || IsOp("-")) {
    BinaryOp op = IsOp("+") ? BinaryOp::kAdd : BinaryOp::kSub;
    Skip();
    if (IsKw("INTERVAL")) {
      // d + INTERVAL n unit is date_add(d, n, 'unit'); d - INTERVAL ... date_sub.
      Skip();
      auto fn = std::make_unique<Expr>();
      fn->kind = Expr::Kind::kFunction;
      fn->name = op == BinaryOp::kAdd ? "date_add" : "date_sub";
      fn->args.push_back(std::move(left));
      SQL_RETURN_IF_ERROR(ParseIntervalTail(fn.get()));
      SQL_ASSIGN_OR_RETURN(left, Finish(std::move(fn), begin));
      continue;
    }
    SQL_ASSIGN_OR_RETURN(ExprPtr right, ParseMultiplicative());
    SQL_ASSIGN_OR_RETURN(left, MakeBinary(op, std::move(left), std::move(right), begin));
  }
  return left;
}

SqlResult<ExprPtr> Parser::ParseMultiplicative() {
  const uint32_t begin = Cur().begin;
  SQL_ASSIGN_OR_RETURN(ExprPtr left, ParseConcat());
  for (;;) {
    BinaryOp op;
    if (IsOp("*")) {
      op = BinaryOp::kMul;
    } else if (IsOp("/")) {
      op = BinaryOp::kDiv;
    } else if (IsKw("DIV")) {
      op = BinaryOp::kIntDiv;
    } else if (IsOp("%") || IsKw("MOD")) {
      op = BinaryOp::kMod;
    } else {
      return left;
    }
    Skip();
    SQL_ASSIGN_OR_RETURN(ExprPtr right, ParseConcat());
    SQL_ASSIGN_OR_RETURN(left, MakeBinary(op, std::move(left), std::move(right), begin));
  }
}

SqlResult<ExprPtr> Parser::ParseConcat() {
  const uint32_t begin = Cur().begin;
  SQL_ASSIGN_OR_RETURN(ExprPtr left, ParseUnary());
  if (!options_.pipes_as_concat || !IsOp("||")) return left;
  auto node = std::make_unique<Expr>();
  node->kind = Expr::Kind::kFunction;
  node->name = "concat";
  node->args.push_back(std::move(left));
  while (AcceptOp("||")) {
    SQL_ASSIGN_OR_RETURN(ExprPtr right, ParseUnary());
    node->args.push_back(std::move(right));
  }
  return Finish(std::move(node), begin);
}

SqlResult<ExprPtr> Parser::ParseUnary() {
  const uint32_t begin = Cur().begin;
  if (IsOp("~")) return NotSupported("bit operators");
  if (IsKw("BINARY") && !IsOp("(", 1)) return NotSupported("BINARY");
  if (!IsOp("-") && !IsOp("+") && !IsOp("!")) return ParsePrimary();
  const std::string op = Cur().text;
  Skip();
  // -9223372036854775808 is an integer although 9223372036854775808 is not.
  if (op == "-" && Cur().kind == TokenKind::kInteger && Cur().text == kInt64MinDigits &&
      !IsOp(".", 1)) {
    auto lit = std::make_unique<Expr>();
    lit->kind = Expr::Kind::kLiteral;
    lit->value = IntegerLiteral(Cur().text, /*negative=*/true);
    Skip();
    return Finish(std::move(lit), begin);
  }
  SQL_RETURN_IF_ERROR(Enter());
  SqlResult<ExprPtr> operand_or = ParseUnary();
  Leave();
  if (!operand_or.ok()) return operand_or.error();
  ExprPtr operand = std::move(operand_or).value();
  if (op == "+") return Finish(std::move(operand), begin);  // unary plus does nothing
  // Fold -<number> into the literal (DEFAULT -1, VALUES (-4)).
  if (op == "-" && operand->kind == Expr::Kind::kLiteral && operand->param < 0 &&
      NegateNumber(&operand->value)) {
    return Finish(std::move(operand), begin);
  }
  auto node = std::make_unique<Expr>();
  node->kind = Expr::Kind::kUnary;
  node->unary_op = op == "-" ? UnaryOp::kNeg : UnaryOp::kNot;
  node->args.push_back(std::move(operand));
  return Finish(std::move(node), begin);
}

bool NegateNumber(Value* v) {
  if (v->is_int() && v->as_int() != std::numeric_limits<int64_t>::min()) {
    *v = Value::Int(-v->as_int());
  } else if (v->is_double()) {
    *v = Value::Double(-v->as_double());
  } else if (v->is_decimal()) {
    *v = Value::Dec(v->as_decimal().Negated());
  } else if (v->is_uint()) {  // -9223372036854775809 is a DECIMAL literal
    *v = Value::Dec(Decimal::FromUInt(v->as_uint()).Negated());
  } else {
    return false;
  }
  return true;
}

Value IntegerLiteral(const std::string& digits, bool negative) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc() && ptr == digits.data() + digits.size()) {
    return Value::Int(negative ? -v : v);
  }
  if (negative && digits == kInt64MinDigits) {
    return Value::Int(std::numeric_limits<int64_t>::min());
  }
  // Past int64: BIGINT UNSIGNED up to 2^64 - 1, then DECIMAL (up to 65 digits), then DOUBLE,
  // as MySQL types an integer literal.
  uint64_t u = 0;
  auto [uptr, uec] = std::from_chars(digits.data(), digits.data() + digits.size(), u);
  if (!negative && uec == std::errc() && uptr == digits.data() + digits.size()) {
    return Value::UInt(u);
  }
  if (std::optional<Decimal> dec = Decimal::Parse(digits); dec.has_value()) {
    return Value::Dec(negative ? dec->Negated() : *dec);
  }
  const double d = std::strtod(digits.c_str(), nullptr);
  return Value::Double(negative ? -d : d);
}

Value DecimalLiteral(const std::string& text, bool negative) {
  // 1.5 is DECIMAL; 1e3 and a literal past 65 digits are DOUBLE.
  if (text.find_first_of("eE") == std::string::npos) {
    if (std::optional<Decimal> dec = Decimal::Parse(text); dec.has_value()) {
      return Value::Dec(negative ? dec->Negated() : *dec);
    }
  }
  const double d = std::strtod(text.c_str(), nullptr);
  return Value::Double(negative ? -d : d);
}

SqlResult<ExprPtr> Parser::ParseLiteral() {
  const uint32_t begin = Cur().begin;
  auto lit = std::make_unique<Expr>();
  lit->kind = Expr::Kind::kLiteral;
  const Token& t = Cur();
  switch (t.kind) {
    case TokenKind::kInteger:
      lit->value = IntegerLiteral(t.text, /*negative=*/false);  // `-5` is a unary minus on 5
      Skip();
      break;
    case TokenKind::kDecimal: {
      lit->value = DecimalLiteral(t.text, /*negative=*/false);
      if (lit->value.is_double() && !std::isfinite(lit->value.as_double())) return SyntaxError();
      Skip();
      break;
    }
    case TokenKind::kString: {
      std::string s = t.text;
      Skip();
      while (Cur().kind == TokenKind::kString) {  // 'a' 'b' is 'ab'
        s += Cur().text;
        Skip();
      }
      lit->value = Value::String(std::move(s));
      break;
    }
    case TokenKind::kHexString:
      lit->value = Value::String(t.text);
      lit->hex_literal = true;
      Skip();
      break;
    default:
      return SyntaxError();
  }
  return Finish(std::move(lit), begin);
}

std::optional<Value> Parser::TemporalLiteralValue(Temporal::Type type,
                                                  const std::string& text) const {
  const TemporalLiteralRules rules{options_.no_zero_in_date, options_.no_zero_date};
  std::optional<Temporal> t = type == Temporal::Type::kTime
                                  ? ReadTimeLiteral(text)
                                  : ReadTemporalLiteral(type, text, rules);
  if (!t.has_value()) return std::nullopt;
  return Value::FromTemporal(*t);
}

SqlResult<ExprPtr> Parser::ParseTypedTemporalLiteral(uint32_t begin) {
  const std::string keyword = ToUpperAscii(Cur().text);
  Skip();
  const std::string text = Cur().text;
  Skip();
  const Temporal::Type type = keyword == "DATE"   ? Temporal::Type::kDate
                              : keyword == "TIME" ? Temporal::Type::kTime
                                                  : Temporal::Type::kDateTime;
  std::optional<Value> v = TemporalLiteralValue(type, text);
  if (!v.has_value()) {
    return SqlErr(kErWrongValue, "Incorrect ", keyword == "TIMESTAMP" ? "DATETIME" : keyword,
                  " value: '", text, "'");
  }
  auto lit = std::make_unique<Expr>();
  lit->kind = Expr::Kind::kLiteral;
  lit->value = std::move(*v);
  return Finish(std::move(lit), begin);  // named as written: DATE '2020-01-01'
}

// MySQL's '{' ident expr '}': d, t and ts (lower case) before a string literal make a DATE,
// TIME or DATETIME of a good value; anything else is the expression itself.
SqlResult<ExprPtr> Parser::ParseOdbcLiteral(uint32_t begin) {
  Skip();
  if (!AtIdent()) return SyntaxError();
  const std::string ident = Cur().text;
  Skip();
  SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
  SQL_RETURN_IF_ERROR(ExpectOp("}"));
  const bool string_literal =
      e->kind == Expr::Kind::kLiteral && e->param < 0 && !e->hex_literal && e->value.is_string();
  if (!string_literal) return Finish(std::move(e), begin);
  std::optional<Value> v;
  if (ident == "d") v = TemporalLiteralValue(Temporal::Type::kDate, e->value.as_string());
  if (ident == "t") v = TemporalLiteralValue(Temporal::Type::kTime, e->value.as_string());
  if (ident == "ts") v = TemporalLiteralValue(Temporal::Type::kDateTime, e->value.as_string());
  if (!v.has_value()) return e;  // the string, named as the string is
  e->value = std::move(*v);
  return Finish(std::move(e), begin);  // named as written: {d '2020-01-01'}
}

SqlResult<ExprPtr> Parser::ParsePrimary() {
  const uint32_t begin = Cur().begin;
  const Token& t = Cur();
  // Built only when needed: a syntax error's message scans the statement text before it.
  std::optional<SqlResult<ExprPtr>> result;
  switch (t.kind) {
    case TokenKind::kInteger:
    case TokenKind::kDecimal:
    case TokenKind::kString:
    case TokenKind::kHexString:
      result = ParseLiteral();
      break;
    case TokenKind::kSysVar: {
      auto var = std::make_unique<Expr>();
      var->kind = Expr::Kind::kVariable;
      std::string text = t.text;
      size_t dot = text.find('.');
      if (dot != std::string::npos) {
        std::string prefix = ToUpperAscii(text.substr(0, dot));
        if (prefix == "GLOBAL") {
          var->var_scope = VarScope::kGlobal;
          text = text.substr(dot + 1);
        } else if (prefix == "SESSION" || prefix == "LOCAL") {
          var->var_scope = VarScope::kSession;
          text = text.substr(dot + 1);
        }
      }
      if (text.size() > kMaxIdentLength) {
        return SqlErr(kErTooLongIdent, "Identifier name '", text, "' is too long");
      }
      var->name = ToLowerAscii(text);
      Skip();
      result = Finish(std::move(var), begin);
      break;
    }
    case TokenKind::kQuotedIdent:
      result = ParseColumnRef();
      break;
    case TokenKind::kOperator:
      if (IsOp("?") && options_.placeholders) {
        auto param = std::make_unique<Expr>();
        param->kind = Expr::Kind::kLiteral;
        param->param = static_cast<int32_t>(placeholders_.size());
        placeholders_.push_back(param.get());  // the node stays where it is allocated
        Skip();
        result = Finish(std::move(param), begin);
        break;
      }
      if (IsOp("{")) {
        result = ParseOdbcLiteral(begin);
        break;
      }
      if (IsOp("@")) {
        auto var = std::make_unique<Expr>();
        var->kind = Expr::Kind::kVariable;
        var->var_scope = VarScope::kUser;
        SQL_ASSIGN_OR_RETURN(var->name, UserVariableName());
        if (AcceptOp(":=")) {  // @x := expr: sets @x as it is evaluated
          SQL_ASSIGN_OR_RETURN(ExprPtr value, ParseExpr());
          var->args.push_back(std::move(value));
        }
        result = Finish(std::move(var), begin);
        break;
      }
      if (IsOp("(")) {
        if (IsKw("SELECT", 1)) {
          auto sub = std::make_unique<Expr>();
          sub->kind = Expr::Kind::kSubquery;
          SQL_ASSIGN_OR_RETURN(sub->subquery, ParseSubquery());
          result = Finish(std::move(sub), begin);
          break;
        }
        Skip();
        SQL_ASSIGN_OR_RETURN(ExprPtr inner, ParseExpr());
        if (IsOp(",")) {
          result = ParseRowTail(std::move(inner), begin);
          break;
        }
        SQL_RETURN_IF_ERROR(ExpectOp(")"));
        result = Finish(std::move(inner), begin);  // its text keeps the parentheses
        break;
      }
      return SyntaxError();
    case TokenKind::kIdent: {
      std::string upper = ToUpperAscii(t.text);
      if (upper == "NULL" || upper == "TRUE" || upper == "FALSE") {
        auto lit = std::make_unique<Expr>();
        lit->kind = Expr::Kind::kLiteral;
        if (upper != "NULL") lit->value = Value::Int(upper == "TRUE" ? 1 : 0);
        Skip();
        result = Finish(std::move(lit), begin);
      } else if ((upper == "DATE" || upper == "TIME" || upper == "TIMESTAMP") &&
                 Peek(1).kind == TokenKind::kString) {
        result = ParseTypedTemporalLiteral(begin);
      } else if (upper == "EXISTS" && IsOp("(", 1)) {
        Skip();
        auto sub = std::make_unique<Expr>();
        sub->kind = Expr::Kind::kExists;
        SQL_ASSIGN_OR_RETURN(sub->subquery, ParseSubquery());
        result = Finish(std::move(sub), begin);
      } else if (upper == "EXISTS" || upper == "SELECT") {
        return SyntaxError();
      } else if (upper == "CASE") {
        Skip();
        result = ParseCase(begin);
      } else if (upper == "INTERVAL") {
        return NotSupported("INTERVAL");
      } else if ((upper == "CURRENT_TIMESTAMP" || upper == "CURRENT_DATE" ||
                  upper == "CURRENT_TIME" || upper == "LOCALTIME" || upper == "LOCALTIMESTAMP") &&
                 !IsOp("(", 1)) {
        // The niladic forms: CURRENT_TIMESTAMP is CURRENT_TIMESTAMP().
        auto fn = std::make_unique<Expr>();
        fn->kind = Expr::Kind::kFunction;
        fn->name = ToLowerAscii(t.text);
        Skip();
        result = Finish(std::move(fn), begin);
      } else if (upper == "ROW" && IsOp("(", 1)) {
        Skip();
        Skip();
        SQL_ASSIGN_OR_RETURN(ExprPtr first, ParseExpr());
        if (!IsOp(",")) return SyntaxError();  // ROW needs two elements at least
        result = ParseRowTail(std::move(first), begin);
      } else if ((upper == "CAST" || upper == "CONVERT") && IsOp("(", 1)) {
        Skip();
        result = ParseCast(upper == "CONVERT", begin);
      } else if (IsOp("(", 1)) {
        std::string name = ToLowerAscii(t.text);
        if (name.size() > kMaxIdentLength) {
          return SqlErr(kErTooLongIdent, "Identifier name '", t.text, "' is too long");
        }
        Skip();
        result = ParseFunction(std::move(name), begin);
      } else {
        result = ParseColumnRef();
      }
      break;
    }
    default:
      return SyntaxError();
  }
  if (!result.has_value()) return SyntaxError();
  if (result->ok() && IsKw("COLLATE")) return NotSupported("COLLATE");
  return std::move(*result);
}

// After name: ( [DISTINCT | ALL] [* | e, ...] )
SqlResult<ExprPtr> Parser::ParseFunction(std::string name, uint32_t begin) {
  auto fn = std::make_unique<Expr>();
  fn->kind = Expr::Kind::kFunction;
  fn->name = std::move(name);
  std::string char_using;  // CHAR(... USING cs)
  SQL_RETURN_IF_ERROR(ExpectOp("("));
  SQL_RETURN_IF_ERROR(Enter());
  auto args = [&]() -> SqlStatus {
    if (AcceptKw("DISTINCT")) {
      fn->distinct = true;
    } else {
      AcceptKw("ALL");
    }
    if (fn->name == "count" && !fn->distinct && IsOp("*") && IsOp(")", 1)) {
      auto star = std::make_unique<Expr>();
      star->kind = Expr::Kind::kStar;
      star->text = "*";
      Skip();
      fn->args.push_back(std::move(star));
    } else if (fn->name == "group_concat") {
      return ParseGroupConcatArgs(fn.get());
    } else if ((fn->name == "date_add" || fn->name == "date_sub" || fn->name == "adddate" ||
                fn->name == "subdate") &&
               !fn->distinct) {
      // (d, INTERVAL n unit) as (d, n, 'unit'); ADDDATE(d, n) adds days.
      SQL_ASSIGN_OR_RETURN(ExprPtr d, ParseExpr());
      fn->args.push_back(std::move(d));
      SQL_RETURN_IF_ERROR(ExpectOp(","));
      if (AcceptKw("INTERVAL")) {
        SQL_RETURN_IF_ERROR(ParseIntervalTail(fn.get()));
      } else {
        if (fn->name == "date_add" || fn->name == "date_sub") return SyntaxError();
        SQL_ASSIGN_OR_RETURN(ExprPtr n, ParseExpr());
        fn->args.push_back(std::move(n));
        fn->args.push_back(UnitLiteral("DAY"));
      }
    } else if ((fn->name == "timestampdiff" || fn->name == "timestampadd") && !fn->distinct) {
      // (unit, a, b): the unit first, as a literal.
      SQL_ASSIGN_OR_RETURN(ExprPtr unit, ParseIntervalUnit());
      fn->args.push_back(std::move(unit));
      for (int i = 0; i < 2; ++i) {
        SQL_RETURN_IF_ERROR(ExpectOp(","));
        SQL_ASSIGN_OR_RETURN(ExprPtr a, ParseExpr());
        fn->args.push_back(std::move(a));
      }
    } else if (fn->name == "trim" && !fn->distinct) {
      return ParseTrimArgs(fn.get());
    } else if (fn->name == "position" && !fn->distinct) {
      // POSITION(substr IN s) is LOCATE(substr, s); substr is a bit_expr, so IN ends it.
      SQL_ASSIGN_OR_RETURN(ExprPtr needle, ParseBitExpr());
      SQL_RETURN_IF_ERROR(ExpectKw("IN"));
      SQL_ASSIGN_OR_RETURN(ExprPtr haystack, ParseExpr());
      fn->args.push_back(std::move(needle));
      fn->args.push_back(std::move(haystack));
      fn->name = "locate";
    } else if (!IsOp(")") || fn->distinct) {
      // SUBSTRING(s FROM pos [FOR len]) is SUBSTRING(s, pos[, len]).
      const bool substring = !fn->distinct && (fn->name == "substring" || fn->name == "substr");
      for (;;) {
        SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
        fn->args.push_back(std::move(e));
        if (substring && fn->args.size() == 1 && AcceptKw("FROM")) {
          SQL_ASSIGN_OR_RETURN(ExprPtr pos, ParseExpr());
          fn->args.push_back(std::move(pos));
          if (!AcceptKw("FOR")) break;
          SQL_ASSIGN_OR_RETURN(ExprPtr len, ParseExpr());
          fn->args.push_back(std::move(len));
          break;
        }
        if (!AcceptOp(",")) break;
      }
      if (fn->name == "char" && !fn->distinct && AcceptKw("USING")) {
        if (Cur().kind != TokenKind::kIdent && Cur().kind != TokenKind::kQuotedIdent &&
            Cur().kind != TokenKind::kString)
          return SyntaxError();
        char_using = ToLowerAscii(Cur().text);
        Skip();
      }
    }
    return ExpectOp(")");
  };
  SqlStatus st = args();
  Leave();
  SQL_RETURN_IF_ERROR(st);
  if (IsKw("OVER")) return NotSupported("window functions");
  if (char_using.empty()) return Finish(std::move(fn), begin);
  // CHAR(n, ... USING cs): the bytes CHAR makes, read as cs (CONVERT(CHAR(n, ...) USING cs)).
  auto cast = std::make_unique<Expr>();
  cast->kind = Expr::Kind::kCast;
  cast->cast.type = CastTarget::Type::kChar;
  cast->cast.charset = std::move(char_using);
  SQL_ASSIGN_OR_RETURN(ExprPtr inner, Finish(std::move(fn), begin));
  cast->args.push_back(std::move(inner));
  return Finish(std::move(cast), begin);
}

ExprPtr Parser::UnitLiteral(std::string unit) {
  auto lit = std::make_unique<Expr>();
  lit->kind = Expr::Kind::kLiteral;
  lit->value = Value::String(unit);
  lit->text = std::move(unit);
  return lit;
}

// An interval's unit: the simple ones MySQL has; its compound ones (DAY_HOUR, ...) are refused.
SqlResult<ExprPtr> Parser::ParseIntervalUnit() {
  static constexpr std::string_view kUnits[] = {"MICROSECOND", "SECOND", "MINUTE",  "HOUR", "DAY",
                                                "WEEK",        "MONTH",  "QUARTER", "YEAR"};
  static constexpr std::string_view kCompound[] = {
      "SECOND_MICROSECOND", "MINUTE_MICROSECOND", "MINUTE_SECOND",   "HOUR_MICROSECOND",
      "HOUR_SECOND",        "HOUR_MINUTE",        "DAY_MICROSECOND", "DAY_SECOND",
      "DAY_MINUTE",         "DAY_HOUR",           "YEAR_MONTH"};
  if (Cur().kind != TokenKind::kIdent) return SyntaxError();
  const std::string upper = ToUpperAscii(Cur().text);
  for (std::string_view u : kCompound) {
    if (u == upper) return NotSupported("INTERVAL " + upper);
  }
  for (std::string_view u : kUnits) {
    if (u == upper) {
      Skip();
      return UnitLiteral(upper);
    }
  }
  return SyntaxError();
}

// After INTERVAL: n unit, appended to fn's arguments as n and the unit's name.
SqlStatus Parser::ParseIntervalTail(Expr* fn) {
  SQL_ASSIGN_OR_RETURN(ExprPtr n, ParseExpr());
  fn->args.push_back(std::move(n));
  SQL_ASSIGN_OR_RETURN(ExprPtr unit, ParseIntervalUnit());
  fn->args.push_back(std::move(unit));
  return SqlStatus::OK();
}

SqlResult<ExprPtr> Parser::ParseCase(uint32_t begin) {
  auto node = std::make_unique<Expr>();
  node->kind = Expr::Kind::kCase;
  SQL_RETURN_IF_ERROR(Enter());
  auto body = [&]() -> SqlStatus {
    if (!IsKw("WHEN")) {
      SQL_ASSIGN_OR_RETURN(ExprPtr operand, ParseExpr());
      node->args.push_back(std::move(operand));
      node->case_operand = true;
    }
    if (!IsKw("WHEN")) return SyntaxError();
    while (AcceptKw("WHEN")) {
      SQL_ASSIGN_OR_RETURN(ExprPtr when, ParseExpr());
      SQL_RETURN_IF_ERROR(ExpectKw("THEN"));
      SQL_ASSIGN_OR_RETURN(ExprPtr then, ParseExpr());
      node->args.push_back(std::move(when));
      node->args.push_back(std::move(then));
    }
    if (AcceptKw("ELSE")) {
      SQL_ASSIGN_OR_RETURN(ExprPtr otherwise, ParseExpr());
      node->args.push_back(std::move(otherwise));
      node->case_else = true;
    }
    return ExpectKw("END");
  };
  SqlStatus st = body();
  Leave();
  SQL_RETURN_IF_ERROR(st);
  return Finish(std::move(node), begin);
}

SqlResult<ExprPtr> Parser::ParseCast(bool convert, uint32_t begin) {
  auto node = std::make_unique<Expr>();
  node->kind = Expr::Kind::kCast;
  SQL_RETURN_IF_ERROR(ExpectOp("("));
  SQL_RETURN_IF_ERROR(Enter());
  auto body = [&]() -> SqlStatus {
    SQL_ASSIGN_OR_RETURN(ExprPtr operand, ParseExpr());
    node->args.push_back(std::move(operand));
    if (convert && AcceptKw("USING")) {
      // CONVERT(x USING cs): a CHAR of that charset.
      if (Cur().kind != TokenKind::kIdent && Cur().kind != TokenKind::kQuotedIdent &&
          Cur().kind != TokenKind::kString)
        return SyntaxError();
      node->cast.type = CastTarget::Type::kChar;
      node->cast.charset = ToLowerAscii(Cur().text);
      Skip();
    } else {
      if (convert) {
        SQL_RETURN_IF_ERROR(ExpectOp(","));
      } else {
        SQL_RETURN_IF_ERROR(ExpectKw("AS"));
      }
      SQL_RETURN_IF_ERROR(ParseCastType(&node->cast));
    }
    return ExpectOp(")");
  };
  SqlStatus st = body();
  Leave();
  SQL_RETURN_IF_ERROR(st);
  return Finish(std::move(node), begin);
}

SqlStatus Parser::ParseCastType(CastTarget* out) {
  if (Cur().kind != TokenKind::kIdent) return SyntaxError();
  const std::string word = ToUpperAscii(Cur().text);
  using Type = CastTarget::Type;
  auto length = [&]() -> SqlResult<int64_t> {
    if (!AcceptOp("(")) return int64_t{-1};
    SQL_ASSIGN_OR_RETURN(uint64_t n, UnsignedInt());
    SQL_RETURN_IF_ERROR(ExpectOp(")"));
    return static_cast<int64_t>(std::min<uint64_t>(n, INT64_MAX));
  };
  if (word == "SIGNED" || word == "UNSIGNED") {
    Skip();
    out->type = word == "SIGNED" ? Type::kSigned : Type::kUnsigned;
    if (!AcceptKw("INTEGER")) AcceptKw("INT");
  } else if (word == "CHAR") {
    Skip();
    out->type = Type::kChar;
    SQL_ASSIGN_OR_RETURN(out->length, length());
    if (IsKw("CHARACTER") && IsKw("SET", 1)) {
      Skip();
      Skip();
    } else if (!AcceptKw("CHARSET")) {
      if (IsKw("ASCII") || IsKw("UNICODE") || IsKw("BYTE"))
        return NotSupported("CAST to CHAR " + ToUpperAscii(Cur().text));
      return SqlStatus::OK();
    }
    if (Cur().kind != TokenKind::kIdent && Cur().kind != TokenKind::kQuotedIdent &&
        Cur().kind != TokenKind::kString)
      return SyntaxError();
    out->charset = ToLowerAscii(Cur().text);
    Skip();
  } else if (word == "BINARY") {
    Skip();
    out->type = Type::kBinary;
    SQL_ASSIGN_OR_RETURN(out->length, length());
  } else if (word == "DECIMAL") {
    Skip();
    out->type = Type::kDecimal;
    if (AcceptOp("(")) {
      SQL_ASSIGN_OR_RETURN(uint64_t m, UnsignedInt());
      uint64_t d = 0;
      if (AcceptOp(",")) {
        SQL_ASSIGN_OR_RETURN(d, UnsignedInt());
      }
      SQL_RETURN_IF_ERROR(ExpectOp(")"));
      // Checked when bound (1425, 1426, 1427): the messages name the operand.
      // DECIMAL(0) is DECIMAL(10, 0), as MySQL's my_decimal_trim.
      out->precision = static_cast<int>(std::min<uint64_t>(m == 0 && d == 0 ? 10 : m, 1000));
      out->scale = static_cast<int>(std::min<uint64_t>(d, 1000));
    }
  } else if (word == "DOUBLE" || word == "REAL") {
    Skip();
    out->type = Type::kDouble;
    if (word == "DOUBLE") AcceptKw("PRECISION");
  } else if (word == "DATE" || word == "DATETIME" || word == "TIME") {
    Skip();
    out->type = word == "DATE" ? Type::kDate : word == "TIME" ? Type::kTime : Type::kDateTime;
    if (word != "DATE") {
      SQL_ASSIGN_OR_RETURN(out->length, length());
      if (out->length > 6) {
        return SqlErr(kErTooBigPrecision, "Too-big precision ", std::to_string(out->length),
                      " specified for 'CAST'. Maximum is 6.");
      }
      if (out->length < 0) out->length = 0;
    }
  } else if (word == "JSON" || word == "FLOAT" || word == "NCHAR" || word == "YEAR" ||
             word == "NATIONAL" || word == "POINT" || word == "LINESTRING" || word == "POLYGON" ||
             word == "MULTIPOINT" || word == "MULTILINESTRING" || word == "MULTIPOLYGON" ||
             word == "GEOMETRYCOLLECTION") {
    return NotSupported("CAST to " + word);
  } else {
    return SyntaxError();
  }
  return SqlStatus::OK();
}

// After TRIM(: [{BOTH | LEADING | TRAILING} [remstr] FROM] s | remstr FROM s ) ... up to the
// ")". Without a remstr the call is trim/ltrim/rtrim(s) (spaces); with one it is " trim both" /
// " trim leading" / " trim trailing" (s, remstr): names no query can spell, so only this
// syntax reaches them.
SqlStatus Parser::ParseTrimArgs(Expr* fn) {
  std::string side;
  if (AcceptKw("BOTH")) {
    side = "both";
  } else if (AcceptKw("LEADING")) {
    side = "leading";
  } else if (AcceptKw("TRAILING")) {
    side = "trailing";
  }
  ExprPtr remstr;
  if (side.empty() || !AcceptKw("FROM")) {
    SQL_ASSIGN_OR_RETURN(ExprPtr first, ParseExpr());
    if (!AcceptKw("FROM")) {
      if (!side.empty()) return SyntaxError();
      fn->args.push_back(std::move(first));  // TRIM(s)
      return ExpectOp(")");
    }
    remstr = std::move(first);
  }
  SQL_ASSIGN_OR_RETURN(ExprPtr s, ParseExpr());
  fn->args.push_back(std::move(s));
  if (remstr == nullptr) {  // TRIM(side FROM s)
    fn->name = side == "leading" ? "ltrim" : side == "trailing" ? "rtrim" : "trim";
  } else {
    fn->args.push_back(std::move(remstr));
    fn->name = " trim " + (side.empty() ? std::string("both") : side);
  }
  return ExpectOp(")");
}

// At "(": ( query_expression ), up to and with the ")".
SqlResult<std::shared_ptr<const SelectStmt>> Parser::ParseSubquery() {
  SQL_ASSIGN_OR_RETURN(SelectStmt q, ParseParenthesizedQuery());
  return std::shared_ptr<const SelectStmt>(std::make_shared<SelectStmt>(std::move(q)));
}

SqlResult<std::string> Parser::UserVariableName() {
  Skip();  // '@' (MySQL's grammar: '@' ident_or_text)
  const Token& t = Cur();
  if (t.kind != TokenKind::kIdent && t.kind != TokenKind::kQuotedIdent &&
      t.kind != TokenKind::kString)
    return SyntaxError();
  if (t.text.size() > kMaxIdentLength)
    return SqlErr(kErTooLongIdent, "Identifier name '", t.text, "' is too long");
  std::string name = ToLowerAscii(t.text);
  Skip();
  return name;
}

// [[schema.]table.]column
SqlResult<ExprPtr> Parser::ParseColumnRef() {
  const uint32_t begin = Cur().begin;
  auto col = std::make_unique<Expr>();
  col->kind = Expr::Kind::kColumn;
  SQL_ASSIGN_OR_RETURN(col->name, Ident());
  if (AcceptOp(".")) {
    col->table = std::move(col->name);
    SQL_ASSIGN_OR_RETURN(col->name, Ident());
    if (AcceptOp(".")) {
      col->schema = std::move(col->table);
      col->table = std::move(col->name);
      SQL_ASSIGN_OR_RETURN(col->name, Ident());
    }
  }
  return Finish(std::move(col), begin);
}

}  // namespace minnow::sql
