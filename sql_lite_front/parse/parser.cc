// The parser's token helpers and the statements other than DDL (parser_internal.h).

#include "sql_lite_front/parse/parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <string_view>
#include <unordered_set>

#include "sql_lite_front/parse/parser_internal.h"
#include "sql_lite_front/catalog/table_catalog.h"

namespace minnow::sql {

bool IsReserved(std::string_view word) {
  // MySQL 8's reserved words that this grammar meets.
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
      "TRUE",     "UNION",    "UNIQUE",        "UNLOCK",
      "UPDATE",   "USE",      "USING",         "VALUES",
      "WHEN",     "WHERE",    "WINDOW",        "WITH",
      "WRITE",    "XOR",
  };
  if (word.size() > 16) return false;
  return kReserved.count(ToUpperAscii(word)) > 0;
}

Parser::Parser(std::string_view sql) : sql_(sql), tokens_(Tokenize(sql)) {}

const Token& Parser::Peek(size_t ahead) const {
  size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
  return tokens_[i];
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

SqlResult<TableName> Parser::QualifiedTable() {
  TableName t;
  SQL_ASSIGN_OR_RETURN(t.name, Ident());
  if (AcceptOp(".")) {
    t.schema = std::move(t.name);
    SQL_ASSIGN_OR_RETURN(t.name, Ident());
  }
  return t;
}

SqlResult<std::string> Parser::TableIdent() {
  SQL_ASSIGN_OR_RETURN(TableName t, QualifiedTable());
  if (!t.schema.empty() && t.schema != kSchemaName) {
    return SqlErr(kErBadDb, "Unknown database '", t.schema, "'");
  }
  return std::move(t.name);
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
    if (IsOp("(")) return NotSupported("parenthesized SELECT");
    return SyntaxError();
  }
  std::string kw = ToUpperAscii(t.text);
  if (kw == "SELECT") {
    SQL_ASSIGN_OR_RETURN(SelectStmt s, ParseSelect());
    return Statement(std::move(s));
  }
  if (kw == "INSERT" || kw == "REPLACE") return ParseInsert();
  if (kw == "UPDATE") return ParseUpdate();
  if (kw == "DELETE") return ParseDelete();
  if (kw == "CREATE") return ParseCreate();
  if (kw == "DROP") return ParseDrop();
  if (kw == "ALTER") return ParseAlter();
  if (kw == "TRUNCATE") return ParseTruncate();
  if (kw == "OPTIMIZE") return ParseOptimize();
  if (kw == "BEGIN" || kw == "START" || kw == "COMMIT" || kw == "ROLLBACK") {
    return ParseTransaction();
  }
  if (kw == "SET") return ParseSet();
  if (kw == "SHOW") return ParseShow();
  if (kw == "LOCK") return ParseLockTables();
  if (kw == "UNLOCK") return ParseUnlockTables();
  if (kw == "EXPLAIN" || kw == "DESCRIBE" || kw == "DESC") return ParseExplain();
  if (kw == "USE") return ParseUse();
  if (kw == "WITH") return NotSupported("WITH");
  if (kw == "SAVEPOINT" || kw == "RELEASE") return NotSupported("SAVEPOINT");
  return SyntaxError();
}

// SELECT [ALL] items [FROM t [[AS] alias]] [WHERE e] [GROUP BY e, ...] [ORDER BY ...]
//   [LIMIT n [OFFSET m] | LIMIT m, n] [FOR UPDATE | FOR SHARE [NOWAIT | SKIP LOCKED] |
//   LOCK IN SHARE MODE]
SqlResult<SelectStmt> Parser::ParseSelect() {
  SelectStmt s;
  SQL_RETURN_IF_ERROR(ExpectKw("SELECT"));
  AcceptKw("ALL");
  if (IsKw("DISTINCT") || IsKw("DISTINCTROW")) return NotSupported("SELECT DISTINCT");
  for (;;) {
    SelectItem item;
    if (AcceptOp("*")) {
      // a bare *
    } else if (AtIdent() && IsOp(".", 1) && IsOp("*", 2)) {
      Skip();  // t.* reads as * (one table)
      Skip();
      Skip();
    } else {
      SQL_ASSIGN_OR_RETURN(item.expr, ParseExpr());
      bool as = AcceptKw("AS");
      if (Cur().kind == TokenKind::kString) {
        item.alias = Cur().text;
        Skip();
      } else if (AtIdent()) {
        item.alias = Cur().text;
        Skip();
      } else if (as) {
        return SyntaxError();
      }
    }
    s.items.push_back(std::move(item));
    if (!AcceptOp(",")) break;
  }
  if (AcceptKw("FROM")) {
    if (IsOp("(")) return NotSupported("subqueries in FROM");
    if (AcceptKw("DUAL")) {
      // SELECT ... FROM DUAL: no table
    } else {
      SQL_ASSIGN_OR_RETURN(TableName t, QualifiedTable());
      s.from = std::move(t);
      bool as = AcceptKw("AS");
      if (AtIdent()) {
        SQL_ASSIGN_OR_RETURN(s.from_alias, Ident());
      } else if (as) {
        return SyntaxError();
      }
      if (IsOp(",") || IsKw("JOIN") || IsKw("INNER") || IsKw("LEFT") || IsKw("RIGHT") ||
          IsKw("CROSS") || IsKw("NATURAL") || IsKw("STRAIGHT_JOIN")) {
        return NotSupported("JOIN");
      }
    }
  }
  if (AcceptKw("WHERE")) {
    SQL_ASSIGN_OR_RETURN(s.where, ParseExpr());
  }
  if (AcceptKw("GROUP")) {
    SQL_RETURN_IF_ERROR(ExpectKw("BY"));
    for (;;) {
      SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
      s.group_by.push_back(std::move(e));
      if (IsKw("ASC") || IsKw("DESC")) return NotSupported("GROUP BY ... ASC/DESC");
      if (!AcceptOp(",")) break;
    }
    if (IsKw("WITH")) return NotSupported("WITH ROLLUP");
  }
  if (IsKw("HAVING")) return NotSupported("HAVING");
  if (IsKw("WINDOW")) return NotSupported("window functions");
  if (AcceptKw("ORDER")) {
    SQL_RETURN_IF_ERROR(ExpectKw("BY"));
    SQL_RETURN_IF_ERROR(ParseOrderBy(&s.order_by));
  }
  if (AcceptKw("LIMIT")) {
    SQL_ASSIGN_OR_RETURN(uint64_t first, UnsignedInt());
    if (AcceptOp(",")) {
      s.offset = first;
      SQL_ASSIGN_OR_RETURN(uint64_t count, UnsignedInt());
      s.limit = count;
    } else {
      s.limit = first;
      if (AcceptKw("OFFSET")) {
        SQL_ASSIGN_OR_RETURN(s.offset, UnsignedInt());
      }
    }
  }
  if (IsKw("UNION") || IsKw("EXCEPT") || IsKw("INTERSECT")) return NotSupported("UNION");
  if (IsKw("INTO")) return NotSupported("SELECT ... INTO");
  if (AcceptKw("FOR")) {
    if (AcceptKw("UPDATE")) {
      s.lock = RowLockClause::kUpdate;
    } else if (AcceptKw("SHARE")) {
      s.lock = RowLockClause::kShare;
    } else {
      return SyntaxError();
    }
    if (IsKw("OF")) return NotSupported("FOR UPDATE OF");
    if (AcceptKw("NOWAIT")) {
      s.nowait = true;
    } else if (AcceptKw("SKIP")) {
      SQL_RETURN_IF_ERROR(ExpectKw("LOCKED"));
      s.skip_locked = true;
    }
  } else if (AcceptKw("LOCK")) {
    SQL_RETURN_IF_ERROR(ExpectKw("IN"));
    SQL_RETURN_IF_ERROR(ExpectKw("SHARE"));
    SQL_RETURN_IF_ERROR(ExpectKw("MODE"));
    s.lock = RowLockClause::kShare;
  }
  if (IsKw("UNION")) return NotSupported("UNION");
  return s;
}

SqlStatus Parser::ParseOrderBy(std::vector<OrderItem>* out) {
  for (;;) {
    OrderItem item;
    SQL_ASSIGN_OR_RETURN(item.expr, ParseExpr());
    if (AcceptKw("DESC")) {
      item.desc = true;
    } else {
      AcceptKw("ASC");
    }
    out->push_back(std::move(item));
    if (!AcceptOp(",")) return SqlStatus::OK();
  }
}

// INSERT [LOW_PRIORITY | HIGH_PRIORITY | DELAYED] [IGNORE] [INTO] t [(cols)]
//   {VALUES | VALUE} (...), ... | SELECT ... | SET a = 1, ...      (and REPLACE [INTO] ...)
SqlResult<Statement> Parser::ParseInsert() {
  InsertStmt ins;
  ins.replace = IsKw("REPLACE");
  Skip();
  if (!AcceptKw("LOW_PRIORITY") && !AcceptKw("DELAYED")) AcceptKw("HIGH_PRIORITY");
  if (!ins.replace && AcceptKw("IGNORE")) ins.ignore = true;
  AcceptKw("INTO");
  SQL_ASSIGN_OR_RETURN(ins.table, QualifiedTable());
  if (IsKw("PARTITION")) return NotSupported("PARTITION");
  if (IsOp("(") && !IsKw("SELECT", 1)) {
    Skip();
    if (!AcceptOp(")")) {
      for (;;) {
        SQL_ASSIGN_OR_RETURN(std::string col, Ident());
        if (AcceptOp(".")) {  // t.col
          SQL_ASSIGN_OR_RETURN(col, Ident());
        }
        ins.columns.push_back(std::move(col));
        if (AcceptOp(")")) break;
        SQL_RETURN_IF_ERROR(ExpectOp(","));
      }
    }
  }
  if (AcceptKw("VALUES") || AcceptKw("VALUE")) {
    for (;;) {
      SQL_RETURN_IF_ERROR(ExpectOp("("));
      std::vector<ExprPtr> row;
      if (!AcceptOp(")")) {
        for (;;) {
          if (AcceptKw("DEFAULT")) {
            row.push_back(nullptr);
          } else {
            SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
            row.push_back(std::move(e));
          }
          if (AcceptOp(")")) break;
          SQL_RETURN_IF_ERROR(ExpectOp(","));
        }
      }
      ins.rows.push_back(std::move(row));
      if (!AcceptOp(",")) break;
    }
  } else if (IsKw("SELECT")) {
    SQL_ASSIGN_OR_RETURN(SelectStmt sel, ParseSelect());
    ins.select = std::make_unique<SelectStmt>(std::move(sel));
  } else if (IsOp("(") && IsKw("SELECT", 1)) {
    Skip();
    SQL_ASSIGN_OR_RETURN(SelectStmt sel, ParseSelect());
    SQL_RETURN_IF_ERROR(ExpectOp(")"));
    ins.select = std::make_unique<SelectStmt>(std::move(sel));
  } else if (ins.columns.empty() && AcceptKw("SET")) {
    std::vector<ExprPtr> row;
    for (;;) {
      SQL_ASSIGN_OR_RETURN(std::string col, Ident());
      if (!AcceptOp("=") && !AcceptOp(":=")) return SyntaxError();
      ins.columns.push_back(std::move(col));
      if (AcceptKw("DEFAULT")) {
        row.push_back(nullptr);
      } else {
        SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
        row.push_back(std::move(e));
      }
      if (!AcceptOp(",")) break;
    }
    ins.rows.push_back(std::move(row));
  } else {
    return SyntaxError();
  }
  if (IsKw("ON") && IsKw("DUPLICATE", 1)) return NotSupported("ON DUPLICATE KEY UPDATE");
  if (IsKw("AS")) return NotSupported("INSERT ... AS");
  return Statement(std::move(ins));
}

// UPDATE [LOW_PRIORITY] [IGNORE] t SET col = e, ... [WHERE e] [ORDER BY ...] [LIMIT n]
SqlResult<Statement> Parser::ParseUpdate() {
  UpdateStmt up;
  Skip();
  AcceptKw("LOW_PRIORITY");
  if (IsKw("IGNORE")) return NotSupported("UPDATE IGNORE");
  SQL_ASSIGN_OR_RETURN(up.table, QualifiedTable());
  if (AcceptKw("AS") || (AtIdent() && !IsKw("SET"))) {
    return NotSupported("table aliases in UPDATE");
  }
  if (IsOp(",") || IsKw("JOIN") || IsKw("INNER") || IsKw("LEFT")) return NotSupported("JOIN");
  SQL_RETURN_IF_ERROR(ExpectKw("SET"));
  for (;;) {
    Assignment a;
    SQL_ASSIGN_OR_RETURN(a.column, Ident());
    if (AcceptOp(".")) {  // t.col
      SQL_ASSIGN_OR_RETURN(a.column, Ident());
    }
    SQL_RETURN_IF_ERROR(ExpectOp("="));
    if (IsKw("DEFAULT")) return NotSupported("UPDATE ... = DEFAULT");
    SQL_ASSIGN_OR_RETURN(a.value, ParseExpr());
    up.assignments.push_back(std::move(a));
    if (!AcceptOp(",")) break;
  }
  if (AcceptKw("WHERE")) {
    SQL_ASSIGN_OR_RETURN(up.where, ParseExpr());
  }
  if (AcceptKw("ORDER")) {
    SQL_RETURN_IF_ERROR(ExpectKw("BY"));
    SQL_RETURN_IF_ERROR(ParseOrderBy(&up.order_by));
  }
  if (AcceptKw("LIMIT")) {
    SQL_ASSIGN_OR_RETURN(uint64_t n, UnsignedInt());
    up.limit = n;
  }
  return Statement(std::move(up));
}

// DELETE [LOW_PRIORITY] [QUICK] [IGNORE] FROM t [WHERE e] [ORDER BY ...] [LIMIT n]
SqlResult<Statement> Parser::ParseDelete() {
  DeleteStmt del;
  Skip();
  AcceptKw("LOW_PRIORITY");
  AcceptKw("QUICK");
  if (IsKw("IGNORE")) return NotSupported("DELETE IGNORE");
  if (!IsKw("FROM")) {
    if (AtIdent()) return NotSupported("multi-table DELETE");
    return SyntaxError();
  }
  Skip();
  SQL_ASSIGN_OR_RETURN(del.table, QualifiedTable());
  if (IsOp(",") || IsKw("USING") || IsKw("JOIN")) return NotSupported("multi-table DELETE");
  if (AcceptKw("AS") || AtIdent()) return NotSupported("table aliases in DELETE");
  if (AcceptKw("WHERE")) {
    SQL_ASSIGN_OR_RETURN(del.where, ParseExpr());
  }
  if (AcceptKw("ORDER")) {
    SQL_RETURN_IF_ERROR(ExpectKw("BY"));
    SQL_RETURN_IF_ERROR(ParseOrderBy(&del.order_by));
  }
  if (AcceptKw("LIMIT")) {
    SQL_ASSIGN_OR_RETURN(uint64_t n, UnsignedInt());
    del.limit = n;
  }
  return Statement(std::move(del));
}

// BEGIN [WORK] | START TRANSACTION [WITH CONSISTENT SNAPSHOT | READ ONLY | READ WRITE], ...
// | COMMIT [WORK] [AND NO CHAIN] [NO RELEASE] | ROLLBACK [WORK] [AND NO CHAIN] [NO RELEASE]
SqlResult<Statement> Parser::ParseTransaction() {
  TransactionStmt tx;
  if (AcceptKw("BEGIN")) {
    AcceptKw("WORK");
    tx.kind = TransactionStmt::Kind::kBegin;
    return Statement(tx);
  }
  if (AcceptKw("START")) {
    SQL_RETURN_IF_ERROR(ExpectKw("TRANSACTION"));
    tx.kind = TransactionStmt::Kind::kBegin;
    if (AtStatementEnd()) return Statement(tx);
    for (;;) {
      if (AcceptKw("WITH")) {
        SQL_RETURN_IF_ERROR(ExpectKw("CONSISTENT"));
        SQL_RETURN_IF_ERROR(ExpectKw("SNAPSHOT"));
        tx.consistent_snapshot = true;
      } else if (AcceptKw("READ")) {
        if (AcceptKw("ONLY")) {
          tx.read_only = true;
        } else {
          SQL_RETURN_IF_ERROR(ExpectKw("WRITE"));
          tx.read_only = false;
        }
      } else {
        return SyntaxError();
      }
      if (!AcceptOp(",")) break;
    }
    return Statement(tx);
  }
  tx.kind = IsKw("COMMIT") ? TransactionStmt::Kind::kCommit : TransactionStmt::Kind::kRollback;
  Skip();  // COMMIT or ROLLBACK
  AcceptKw("WORK");
  if (tx.kind == TransactionStmt::Kind::kRollback && IsKw("TO")) {
    return NotSupported("ROLLBACK TO SAVEPOINT");
  }
  if (AcceptKw("AND")) {
    if (!AcceptKw("NO")) return NotSupported("AND CHAIN");
    SQL_RETURN_IF_ERROR(ExpectKw("CHAIN"));
  }
  if (AcceptKw("NO")) {
    SQL_RETURN_IF_ERROR(ExpectKw("RELEASE"));
  } else if (IsKw("RELEASE")) {
    return NotSupported("RELEASE");
  }
  return Statement(tx);
}

// SET item, ... where item is [GLOBAL | SESSION | LOCAL] name {= | :=} value,
// @@[global.|session.|local.]name = value, NAMES cs [COLLATE c], CHARACTER SET cs; or
// SET [GLOBAL | SESSION] TRANSACTION characteristic, ...
SqlResult<Statement> Parser::ParseSet() {
  SetStmt set;
  Skip();
  if (AcceptKw("TRANSACTION")) {
    SQL_RETURN_IF_ERROR(ParseSetTransaction(VarScope::kDefault, true, &set));
    return Statement(std::move(set));
  }
  for (;;) {
    SetItem item;
    if (IsKw("PERSIST") || IsKw("PERSIST_ONLY")) return NotSupported("SET PERSIST");
    if (IsKw("GLOBAL") || IsKw("SESSION") || IsKw("LOCAL")) {
      VarScope scope = IsKw("GLOBAL") ? VarScope::kGlobal : VarScope::kSession;
      Skip();
      if (AcceptKw("TRANSACTION")) {
        if (!set.items.empty()) return SyntaxError();
        SQL_RETURN_IF_ERROR(ParseSetTransaction(scope, false, &set));
        return Statement(std::move(set));
      }
      item.scope = scope;
      SQL_ASSIGN_OR_RETURN(std::string name, Ident());
      item.name = ToLowerAscii(name);
    } else if (Cur().kind == TokenKind::kSysVar) {
      std::string text = Cur().text;
      size_t dot = text.find('.');
      if (dot != std::string::npos) {
        std::string prefix = ToUpperAscii(text.substr(0, dot));
        if (prefix == "GLOBAL") {
          item.scope = VarScope::kGlobal;
          text = text.substr(dot + 1);
        } else if (prefix == "SESSION" || prefix == "LOCAL") {
          item.scope = VarScope::kSession;
          text = text.substr(dot + 1);
        }
      }
      if (text.size() > kMaxIdentLength) {
        return SqlErr(kErTooLongIdent, "Identifier name '", text, "' is too long");
      }
      item.name = ToLowerAscii(text);
      Skip();
    } else if (IsOp("@")) {
      return NotSupported("user variables");
    } else if (AcceptKw("NAMES")) {
      item.name = "names";
      if (AcceptKw("DEFAULT")) {
        item.value = std::make_unique<Expr>();
        item.value->value = Value::String("DEFAULT");
      } else {
        SQL_ASSIGN_OR_RETURN(std::string cs, OptionValue());
        item.value = std::make_unique<Expr>();
        item.value->value = Value::String(cs);
        item.value->text = cs;
        if (AcceptKw("COLLATE")) {
          SQL_ASSIGN_OR_RETURN(std::string ignored, OptionValue());
        }
      }
      set.items.push_back(std::move(item));
      if (!AcceptOp(",")) break;
      continue;
    } else if ((IsKw("CHARACTER") && IsKw("SET", 1)) || IsKw("CHARSET")) {
      if (!AcceptKw("CHARSET")) {
        Skip();
        Skip();
      }
      item.name = "character set";
      SQL_ASSIGN_OR_RETURN(std::string cs, OptionValue());
      item.value = std::make_unique<Expr>();
      item.value->value = Value::String(cs);
      item.value->text = cs;
      set.items.push_back(std::move(item));
      if (!AcceptOp(",")) break;
      continue;
    } else {
      SQL_ASSIGN_OR_RETURN(std::string name, Ident());
      item.name = ToLowerAscii(name);
    }
    if (!AcceptOp("=") && !AcceptOp(":=")) return SyntaxError();
    SQL_ASSIGN_OR_RETURN(item.value, ParseSetValue());
    set.items.push_back(std::move(item));
    if (!AcceptOp(",")) break;
  }
  return Statement(std::move(set));
}

// A SET value: a bare word (ON, OFF, READ-COMMITTED, ...) is a string; else an expression.
SqlResult<ExprPtr> Parser::ParseSetValue() {
  if (IsKw("DEFAULT")) return NotSupported("SET ... = DEFAULT");
  const Token& t = Cur();
  bool bare_word = t.kind == TokenKind::kIdent && !IsOp("(", 1) && !IsOp(".", 1) && !IsKw("NULL") &&
                   !IsKw("TRUE") && !IsKw("FALSE") && !IsKw("NOT") && !IsKw("BINARY");
  if (!bare_word) return ParseExpr();
  uint32_t begin = t.begin;
  Skip();
  // READ-COMMITTED written without quotes: words joined by '-' with no space between.
  while (IsOp("-") && Cur().begin == last_end() && Peek(1).kind == TokenKind::kIdent &&
         Peek(1).begin == Cur().end) {
    Skip();
    Skip();
  }
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Kind::kLiteral;
  e->text = std::string(sql_.substr(begin, last_end() - begin));
  e->value = Value::String(e->text);
  return e;
}

// After SET [GLOBAL|SESSION] TRANSACTION: ISOLATION LEVEL level | READ ONLY | READ WRITE, ...
SqlStatus Parser::ParseSetTransaction(VarScope scope, bool next_only, SetStmt* out) {
  for (;;) {
    SetItem item;
    item.scope = scope;
    item.next_transaction_only = next_only;
    uint32_t begin = Cur().begin;
    std::string value;
    if (AcceptKw("ISOLATION")) {
      SQL_RETURN_IF_ERROR(ExpectKw("LEVEL"));
      begin = Cur().begin;
      item.name = "transaction_isolation";
      if (AcceptKw("SERIALIZABLE")) {
        value = "SERIALIZABLE";
      } else if (AcceptKw("REPEATABLE")) {
        SQL_RETURN_IF_ERROR(ExpectKw("READ"));
        value = "REPEATABLE-READ";
      } else if (AcceptKw("READ")) {
        if (AcceptKw("COMMITTED")) {
          value = "READ-COMMITTED";
        } else {
          SQL_RETURN_IF_ERROR(ExpectKw("UNCOMMITTED"));
          value = "READ-UNCOMMITTED";
        }
      } else {
        return SyntaxError();
      }
      item.value = std::make_unique<Expr>();
      item.value->value = Value::String(value);
    } else if (AcceptKw("READ")) {
      item.name = "transaction_read_only";
      item.value = std::make_unique<Expr>();
      if (AcceptKw("ONLY")) {
        item.value->value = Value::Int(1);
      } else {
        SQL_RETURN_IF_ERROR(ExpectKw("WRITE"));
        item.value->value = Value::Int(0);
      }
    } else {
      return SyntaxError();
    }
    item.value->text = std::string(sql_.substr(begin, last_end() - begin));
    out->items.push_back(std::move(item));
    if (!AcceptOp(",")) return SqlStatus::OK();
  }
}

SqlResult<Statement> Parser::ParseShow() {
  ShowStmt show;
  Skip();
  auto parse_like = [&]() -> SqlStatus {
    if (AcceptKw("LIKE")) {
      if (Cur().kind != TokenKind::kString) return SyntaxError();
      show.like = Cur().text;
      Skip();
    } else if (IsKw("WHERE")) {
      return NotSupported("SHOW ... WHERE");
    }
    return SqlStatus::OK();
  };
  auto parse_from_db = [&]() -> SqlStatus {
    if (AcceptKw("FROM") || AcceptKw("IN")) {
      SQL_ASSIGN_OR_RETURN(std::string db, Ident());
      if (db != kSchemaName) return SqlErr(kErBadDb, "Unknown database '", db, "'");
    }
    return SqlStatus::OK();
  };
  // SHOW COLUMNS|INDEX FROM t [FROM db]
  auto parse_from_table = [&]() -> SqlStatus {
    if (!AcceptKw("FROM") && !AcceptKw("IN")) return SyntaxError();
    SQL_ASSIGN_OR_RETURN(show.table, TableIdent());
    return parse_from_db();
  };
  bool full = AcceptKw("FULL");
  show.full = full;
  if (AcceptKw("TABLES")) {
    show.kind = ShowStmt::Kind::kTables;
    SQL_RETURN_IF_ERROR(parse_from_db());
    SQL_RETURN_IF_ERROR(parse_like());
  } else if (AcceptKw("PROCESSLIST")) {
    show.kind = ShowStmt::Kind::kProcesslist;
  } else if (AcceptKw("COLUMNS") || AcceptKw("FIELDS")) {
    show.kind = ShowStmt::Kind::kColumns;
    SQL_RETURN_IF_ERROR(parse_from_table());
    SQL_RETURN_IF_ERROR(parse_like());
  } else if (full) {
    return SyntaxError();
  } else if (AcceptKw("TABLE")) {
    SQL_RETURN_IF_ERROR(ExpectKw("STATUS"));
    show.kind = ShowStmt::Kind::kTableStatus;
    SQL_RETURN_IF_ERROR(parse_from_db());
    SQL_RETURN_IF_ERROR(parse_like());
  } else if (AcceptKw("CREATE")) {
    if (!AcceptKw("TABLE")) return NotSupported("SHOW CREATE other than TABLE");
    show.kind = ShowStmt::Kind::kCreateTable;
    SQL_ASSIGN_OR_RETURN(show.table, TableIdent());
  } else if (AcceptKw("INDEX") || AcceptKw("INDEXES") || AcceptKw("KEYS")) {
    show.kind = ShowStmt::Kind::kIndex;
    SQL_RETURN_IF_ERROR(parse_from_table());
    if (IsKw("WHERE")) return NotSupported("SHOW ... WHERE");
  } else if (AcceptKw("ENGINE")) {
    if (!AcceptKw("INNODB")) return NotSupported("SHOW ENGINE other than INNODB");
    if (IsKw("MUTEX")) return NotSupported("SHOW ENGINE INNODB MUTEX");
    SQL_RETURN_IF_ERROR(ExpectKw("STATUS"));
    show.kind = ShowStmt::Kind::kEngineInnodbStatus;
  } else if (AcceptKw("INNODB")) {
    SQL_RETURN_IF_ERROR(ExpectKw("STATUS"));
    show.kind = ShowStmt::Kind::kEngineInnodbStatus;
  } else if (AcceptKw("STORAGE") || IsKw("ENGINES")) {
    SQL_RETURN_IF_ERROR(ExpectKw("ENGINES"));
    show.kind = ShowStmt::Kind::kEngines;
  } else if (AcceptKw("WARNINGS")) {
    show.kind = ShowStmt::Kind::kWarnings;
    if (IsKw("LIMIT")) return NotSupported("SHOW WARNINGS LIMIT");
  } else if (IsKw("GLOBAL") || IsKw("SESSION") || IsKw("LOCAL") || IsKw("STATUS") ||
             IsKw("VARIABLES")) {
    if (AcceptKw("GLOBAL")) {
      show.scope = VarScope::kGlobal;
    } else if (AcceptKw("SESSION") || AcceptKw("LOCAL")) {
      show.scope = VarScope::kSession;
    }
    if (AcceptKw("STATUS")) {
      show.kind = ShowStmt::Kind::kStatus;
    } else {
      SQL_RETURN_IF_ERROR(ExpectKw("VARIABLES"));
      show.kind = ShowStmt::Kind::kVariables;
    }
    SQL_RETURN_IF_ERROR(parse_like());
  } else if (IsKw("DATABASES") || IsKw("SCHEMAS") || IsKw("ERRORS") || IsKw("GRANTS") ||
             IsKw("TRIGGERS") || IsKw("PLUGINS") || IsKw("CHARSET") || IsKw("COLLATION") ||
             IsKw("OPEN") || IsKw("PRIVILEGES") || IsKw("MASTER") || IsKw("BINARY") ||
             IsKw("REPLICA") || IsKw("SLAVE") || IsKw("EVENTS") || IsKw("PROFILES")) {
    return NotSupported("SHOW " + ToUpperAscii(Cur().text));
  } else {
    return SyntaxError();
  }
  return Statement(std::move(show));
}

// LOCK {TABLES | TABLE} t [[AS] alias] {READ [LOCAL] | [LOW_PRIORITY] WRITE}, ...
SqlResult<Statement> Parser::ParseLockTables() {
  LockTablesStmt lock;
  Skip();
  if (!AcceptKw("TABLES") && !AcceptKw("TABLE")) {
    if (IsKw("INSTANCE")) return NotSupported("LOCK INSTANCE");
    return SyntaxError();
  }
  for (;;) {
    LockTablesStmt::Item item;
    SQL_ASSIGN_OR_RETURN(item.table, TableIdent());
    bool as = AcceptKw("AS");
    if (AtIdent()) {
      SQL_ASSIGN_OR_RETURN(item.alias, Ident());
    } else if (as) {
      return SyntaxError();
    }
    if (AcceptKw("READ")) {
      item.mode =
          AcceptKw("LOCAL") ? LockTablesStmt::Mode::kReadLocal : LockTablesStmt::Mode::kRead;
    } else if (AcceptKw("LOW_PRIORITY")) {
      SQL_RETURN_IF_ERROR(ExpectKw("WRITE"));
      item.mode = LockTablesStmt::Mode::kLowPriorityWrite;
    } else {
      SQL_RETURN_IF_ERROR(ExpectKw("WRITE"));
      item.mode = LockTablesStmt::Mode::kWrite;
    }
    lock.items.push_back(std::move(item));
    if (!AcceptOp(",")) break;
  }
  return Statement(std::move(lock));
}

SqlResult<Statement> Parser::ParseUnlockTables() {
  Skip();
  if (!AcceptKw("TABLES") && !AcceptKw("TABLE")) return SyntaxError();
  return Statement(UnlockTablesStmt{});
}

// EXPLAIN [FORMAT = TRADITIONAL] {SELECT | INSERT | REPLACE | UPDATE | DELETE} ...;
// DESCRIBE / DESC / EXPLAIN t: SHOW COLUMNS FROM t.
SqlResult<Statement> Parser::ParseExplain() {
  Skip();
  if (AtIdent() && !IsKw("FORMAT") && !IsKw("ANALYZE") && !IsKw("EXTENDED") &&
      !IsKw("PARTITIONS")) {
    ShowStmt show;
    show.kind = ShowStmt::Kind::kColumns;
    SQL_ASSIGN_OR_RETURN(show.table, TableIdent());
    if (!AtStatementEnd()) return NotSupported("DESCRIBE t column");
    return Statement(std::move(show));
  }
  if (IsKw("ANALYZE")) return NotSupported("EXPLAIN ANALYZE");
  if (AcceptKw("FORMAT")) {
    SQL_RETURN_IF_ERROR(ExpectOp("="));
    SQL_ASSIGN_OR_RETURN(std::string format, OptionValue());
    if (!EqualsNoCase(format, "TRADITIONAL")) {
      return NotSupported("EXPLAIN FORMAT=" + ToUpperAscii(format));
    }
  }
  if (!IsKw("SELECT") && !IsKw("INSERT") && !IsKw("REPLACE") && !IsKw("UPDATE") &&
      !IsKw("DELETE")) {
    if (IsKw("FOR")) return NotSupported("EXPLAIN FOR CONNECTION");
    return SyntaxError();
  }
  SQL_ASSIGN_OR_RETURN(Statement inner, ParseStatement());
  auto explain = std::make_unique<ExplainStmt>();
  explain->statement = std::move(inner);
  return Statement(std::move(explain));
}

SqlResult<Statement> Parser::ParseUse() {
  Skip();
  UseStmt use;
  SQL_ASSIGN_OR_RETURN(use.database, Ident());
  return Statement(std::move(use));
}

SqlResult<Statement> Parse(std::string_view sql) {
  if (sql.size() >= (uint64_t{1} << 32) - 1) {
    return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support '",
                  "statements of 4 GiB or more", "'");
  }
  Parser parser(sql);
  return parser.ParseAll();
}

}  // namespace minnow::sql
