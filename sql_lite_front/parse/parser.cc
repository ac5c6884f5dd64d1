// The parser's token helpers, names and numbers, and the statement dispatch; the statements are
// read in parser_dml.cc, parser_session.cc and parser_ddl.cc (parser_internal.h).

#include "sql_lite_front/parse/parser.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <unordered_set>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/parse/parser_internal.h"

namespace minnow::sql {

bool IsReserved(std::string_view word) {
  // MySQL 8's reserved words that this grammar meets.
  // clang-format off
  static const std::unordered_set<std::string_view> kReserved = {
      "ADD",      "ALL",      "ALTER",         "AND",
      "AS",       "ASC",      "BETWEEN",       "BY",
      "CASE",     "CHANGE",   "CHARACTER",     "CHECK",
      "COLLATE",  "COLUMN",   "CONSTRAINT",    "CREATE",
      "CROSS",    "DEFAULT",  "DELETE",        "DESC",
      "DESCRIBE", "DISTINCT", "DIV",           "DROP",
      "DUAL",     "ELSE",     "EXISTS",        "EXPLAIN",
      "FALSE",    "FOR",      "FOREIGN",       "FROM",
      "FULLTEXT", "GROUP",    "HAVING",        "IF",
      "IGNORE",   "IN",       "INDEX",         "INNER",
      "INSERT",   "INTERVAL", "INTO",          "IS",
      "JOIN",     "KEY",      "KEYS",          "LEFT",
      "LIKE",     "LIMIT",    "LOCK",          "LOW_PRIORITY",
      "MOD",      "MODIFY",   "NATURAL",       "NOT",
      "NULL",     "ON",       "OPTIMIZE",      "OR",
      "ORDER",    "OUTER",    "PRIMARY",       "READ",
      "REPLACE",  "RIGHT",    "SELECT",        "SET",
      "SHOW",     "SPATIAL",  "STRAIGHT_JOIN", "TABLE",
      "THEN",     "TRUE",     "UNION",         "UNIQUE",
      "UNLOCK",   "UPDATE",   "USE",           "USING",
      "VALUES",   "WHEN",     "WHERE",         "WINDOW",
      "WITH",     "WRITE",    "XOR",           "EXCEPT",
      "INTERSECT",
  };
  // clang-format on
  if (word.size() > 16) return false;
  return kReserved.count(ToUpperAscii(word)) > 0;
}

Parser::Parser(std::string_view sql, const ParseOptions& options)
    : sql_(sql), stream_(sql, options.ansi_quotes), options_(options) {}

const Token& Parser::TokenAt(size_t i) const {
  while (base_ + window_.size() <= i &&
         (window_.empty() || window_.back().kind != TokenKind::kEnd)) {
    window_.push_back(stream_.Next());
  }
  return window_[std::min(i - base_, window_.size() - 1)];
}

void Parser::DropUsedTokens() {
  while (base_ < pos_ && !window_.empty()) {
    window_.pop_front();
    ++base_;
  }
}

void Parser::Skip() {
  if (Cur().kind == TokenKind::kEnd || Cur().kind == TokenKind::kError) return;
  last_end_ = Cur().end;
  ++pos_;
}

bool Parser::IsKw(std::string_view kw, size_t ahead) const {
  const Token& t = Peek(ahead);
  return t.kind == TokenKind::kIdent && EqualsNoCase(t.text, kw);
}

bool Parser::AcceptKw(std::string_view kw) {
  if (!IsKw(kw)) return false;
  Skip();
  return true;
}

SqlStatus Parser::ExpectKw(std::string_view kw) {
  if (!AcceptKw(kw)) return SyntaxError();
  return SqlStatus::OK();
}

bool Parser::IsOp(std::string_view op, size_t ahead) const {
  const Token& t = Peek(ahead);
  return t.kind == TokenKind::kOperator && t.text == op;
}

bool Parser::AcceptOp(std::string_view op) {
  if (!IsOp(op)) return false;
  Skip();
  return true;
}

SqlStatus Parser::ExpectOp(std::string_view op) {
  if (!AcceptOp(op)) return SyntaxError();
  return SqlStatus::OK();
}

SqlError Parser::SyntaxError() const {
  // The statement's end: trailing whitespace and one ';' are not part of what MySQL quotes
  // (the client strips them before sending).
  size_t end = sql_.size();
  auto trim_space = [&] {
    while (end > 0 && (sql_[end - 1] == ' ' || sql_[end - 1] == '\t' || sql_[end - 1] == '\n' ||
                       sql_[end - 1] == '\r')) {
      --end;
    }
  };
  trim_space();
  if (end > 0 && sql_[end - 1] == ';') {
    --end;
    trim_space();
  }
  size_t begin = std::min<size_t>(Cur().begin, end);
  if (Cur().kind == TokenKind::kEnd) begin = end;
  std::string_view near = sql_.substr(begin, std::min<size_t>(end - begin, 80));
  size_t line = 1 + std::count(sql_.begin(), sql_.begin() + begin, '\n');
  return SqlErr(kErParse,
                "You have an error in your SQL syntax; check the manual that corresponds to your "
                "minnow version for the right syntax to use near '",
                near, "' at line ", std::to_string(line));
}

SqlError Parser::NotSupported(std::string_view what) {
  return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support '", what, "'");
}

bool Parser::AtIdent() const {
  const Token& t = Cur();
  return t.kind == TokenKind::kQuotedIdent || (t.kind == TokenKind::kIdent && !IsReserved(t.text));
}

SqlResult<std::string> Parser::Ident() {
  if (!AtIdent()) return SyntaxError();
  std::string name = Cur().text;
  if (name.size() > kMaxIdentLength) {
    return SqlErr(kErTooLongIdent, "Identifier name '", name, "' is too long");
  }
  if (name.empty()) return SyntaxError();  // ``
  Skip();
  return name;
}

SqlResult<TableName> Parser::WrittenTable() {
  TableName t;
  SQL_ASSIGN_OR_RETURN(t.name, Ident());
  if (AcceptOp(".")) {
    t.schema = std::move(t.name);
    SQL_ASSIGN_OR_RETURN(t.name, Ident());
  }
  return t;
}

SqlResult<std::string> Parser::CurrentDatabase() const {
  if (options_.database.empty()) return SqlErr(kErNoDb, "No database selected");
  return options_.database;
}

SqlResult<TableName> Parser::QualifiedTable() {
  SQL_ASSIGN_OR_RETURN(TableName t, WrittenTable());
  if (t.schema.empty()) {
    SQL_ASSIGN_OR_RETURN(t.schema, CurrentDatabase());
  }
  return t;
}

SqlResult<uint64_t> Parser::UnsignedInt() {
  if (Cur().kind != TokenKind::kInteger) return SyntaxError();
  uint64_t v = 0;
  const std::string& s = Cur().text;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return SyntaxError();
  Skip();
  return v;
}

SqlResult<uint64_t> Parser::CountOrPlaceholder(int32_t* param) {
  if (!options_.placeholders || !IsOp("?")) return UnsignedInt();
  *param = static_cast<int32_t>(placeholders_.size());
  placeholders_.push_back(nullptr);
  Skip();
  return 0;
}

SqlResult<std::string> Parser::OptionValue() {
  const Token& t = Cur();
  switch (t.kind) {
    case TokenKind::kIdent:
    case TokenKind::kQuotedIdent:
    case TokenKind::kString:
    case TokenKind::kInteger:
    case TokenKind::kDecimal: {
      std::string v = t.text;
      Skip();
      return v;
    }
    default:
      return SyntaxError();
  }
}

// ---- statements

SqlResult<Statement> Parser::ParseAll() {
  if (AtEnd() || (IsOp(";") && Peek(1).kind == TokenKind::kEnd)) {
    return SqlErr(kErEmptyQuery, "Query was empty");
  }
  SQL_ASSIGN_OR_RETURN(Statement st, ParseStatement());
  AcceptOp(";");
  if (!AtEnd()) return SyntaxError();
  return st;
}

SqlResult<Statement> Parser::ParseStatement() {
  const Token& t = Cur();
  if (t.kind != TokenKind::kIdent) {
    if (IsOp("(")) {
      SQL_ASSIGN_OR_RETURN(SelectStmt s, ParseQuery(/*allow_into=*/true));
      return Statement(std::move(s));
    }
    return SyntaxError();
  }
  std::string kw = ToUpperAscii(t.text);
  if (kw == "SELECT") {
    SQL_ASSIGN_OR_RETURN(SelectStmt s, ParseQuery(/*allow_into=*/true));
    return Statement(std::move(s));
  }
  if (kw == "INSERT" || kw == "REPLACE") return ParseInsert();
  if (kw == "UPDATE") return ParseUpdate();
  if (kw == "DELETE") return ParseDelete();
  if (kw == "CREATE") return ParseCreate();
  if (kw == "DROP") return ParseDrop();
  if (kw == "ALTER") return ParseAlter();
  if (kw == "TRUNCATE") return ParseTruncate();
  if (kw == "RENAME") return ParseRename();
  if (kw == "OPTIMIZE") return ParseOptimize();
  if (kw == "CHECK") return ParseCheck();
  if (kw == "ANALYZE") return ParseAnalyze();
  if (kw == "BEGIN" || kw == "START" || kw == "COMMIT" || kw == "ROLLBACK") {
    return ParseTransaction();
  }
  if (kw == "SET") return ParseSet();
  if (kw == "SHOW") return ParseShow();
  if (kw == "LOCK") return ParseLockTables();
  if (kw == "UNLOCK") return ParseUnlockTables();
  if (kw == "EXPLAIN" || kw == "DESCRIBE" || kw == "DESC") return ParseExplain();
  if (kw == "USE") return ParseUse();
  if (kw == "KILL") return ParseKill();
  if (kw == "WITH") return NotSupported("WITH");
  if (kw == "SAVEPOINT" || kw == "RELEASE") return ParseSavepoint();
  return SyntaxError();
}

SqlResult<Statement> Parse(std::string_view sql, const ParseOptions& options) {
  if (sql.size() >= (uint64_t{1} << 32) - 1) {
    return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support '",
                  "statements of 4 GiB or more", "'");
  }
  Parser parser(sql, options);
  return parser.ParseAll();
}

}  // namespace minnow::sql
