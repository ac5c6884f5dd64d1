// The statements about the session and the server rather than the data: transactions, SET,
// SHOW, LOCK / UNLOCK TABLES, EXPLAIN / DESCRIBE and USE (parser_internal.h).

#include <memory>
#include <string>
#include <utility>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/parse/parser_internal.h"

namespace minnow::sql {

// | COMMIT [WORK] [AND NO CHAIN] [NO RELEASE] | ROLLBACK [WORK] [AND NO CHAIN] [NO RELEASE]
// | ROLLBACK [WORK] TO [SAVEPOINT] x
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
  if (tx.kind == TransactionStmt::Kind::kRollback && AcceptKw("TO")) {
    AcceptKw("SAVEPOINT");
    tx.kind = TransactionStmt::Kind::kRollbackToSavepoint;
    SQL_ASSIGN_OR_RETURN(tx.savepoint, Ident());
    return Statement(tx);
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

// SAVEPOINT x | RELEASE SAVEPOINT x
SqlResult<Statement> Parser::ParseSavepoint() {
  TransactionStmt tx;
  if (AcceptKw("RELEASE")) {
    SQL_RETURN_IF_ERROR(ExpectKw("SAVEPOINT"));
    tx.kind = TransactionStmt::Kind::kReleaseSavepoint;
  } else {
    SQL_RETURN_IF_ERROR(ExpectKw("SAVEPOINT"));
    tx.kind = TransactionStmt::Kind::kSavepoint;
  }
  SQL_ASSIGN_OR_RETURN(tx.savepoint, Ident());
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
      // SET @x = expr: any expression (a bare word is a column, which SET has none of).
      item.scope = VarScope::kUser;
      SQL_ASSIGN_OR_RETURN(item.name, UserVariableName());
      if (!AcceptOp("=") && !AcceptOp(":=")) return SyntaxError();
      SQL_ASSIGN_OR_RETURN(item.value, ParseExpr());
      set.items.push_back(std::move(item));
      if (!AcceptOp(",")) break;
      continue;
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
          SQL_ASSIGN_OR_RETURN(item.collation, OptionValue());
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
    if (AcceptKw("DEFAULT")) {
      item.to_default = true;
    } else {
      SQL_ASSIGN_OR_RETURN(item.value, ParseSetValue());
    }
    set.items.push_back(std::move(item));
    if (!AcceptOp(",")) break;
  }
  return Statement(std::move(set));
}

// A SET value: a bare word (ON, OFF, READ-COMMITTED, ...) is a string; else an expression.
SqlResult<ExprPtr> Parser::ParseSetValue() {
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
  // [FROM | IN db]: the database of SHOW TABLES / TABLE STATUS, else the current one.
  auto parse_from_db = [&]() -> SqlStatus {
    if (AcceptKw("FROM") || AcceptKw("IN")) {
      SQL_ASSIGN_OR_RETURN(show.database, Ident());
    } else {
      SQL_ASSIGN_OR_RETURN(show.database, CurrentDatabase());
    }
    return SqlStatus::OK();
  };
  // SHOW COLUMNS|INDEX FROM t [FROM db] (FROM db names t's database)
  auto parse_from_table = [&]() -> SqlStatus {
    if (!AcceptKw("FROM") && !AcceptKw("IN")) return SyntaxError();
    SQL_ASSIGN_OR_RETURN(TableName t, WrittenTable());
    if (AcceptKw("FROM") || AcceptKw("IN")) {
      SQL_ASSIGN_OR_RETURN(t.schema, Ident());
    } else if (t.schema.empty()) {
      SQL_ASSIGN_OR_RETURN(t.schema, CurrentDatabase());
    }
    show.table = std::move(t);
    return SqlStatus::OK();
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
    if (AcceptKw("DATABASE") || AcceptKw("SCHEMA")) {
      show.kind = ShowStmt::Kind::kCreateDatabase;
      if (AcceptKw("IF")) {
        SQL_RETURN_IF_ERROR(ExpectKw("NOT"));
        SQL_RETURN_IF_ERROR(ExpectKw("EXISTS"));
        show.if_not_exists = true;
      }
      SQL_ASSIGN_OR_RETURN(show.database, Ident());
      return Statement(std::move(show));
    }
    if (!AcceptKw("TABLE")) return NotSupported("SHOW CREATE other than TABLE and DATABASE");
    show.kind = ShowStmt::Kind::kCreateTable;
    SQL_ASSIGN_OR_RETURN(show.table, QualifiedTable());
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
  } else if (AcceptKw("COLLATION")) {
    show.kind = ShowStmt::Kind::kCollation;
    if (IsKw("WHERE")) return NotSupported("SHOW ... WHERE");
    SQL_RETURN_IF_ERROR(parse_like());
  } else if (IsKw("WARNINGS") || IsKw("ERRORS")) {
    show.kind = IsKw("ERRORS") ? ShowStmt::Kind::kErrors : ShowStmt::Kind::kWarnings;
    Skip();
    if (IsKw("LIMIT")) return NotSupported("SHOW WARNINGS LIMIT");
  } else if (IsKw("COUNT") && IsOp("(", 1)) {  // SHOW COUNT(*) WARNINGS | ERRORS
    Skip();
    Skip();
    SQL_RETURN_IF_ERROR(ExpectOp("*"));
    SQL_RETURN_IF_ERROR(ExpectOp(")"));
    if (AcceptKw("WARNINGS")) {
      show.kind = ShowStmt::Kind::kWarningCount;
    } else {
      SQL_RETURN_IF_ERROR(ExpectKw("ERRORS"));
      show.kind = ShowStmt::Kind::kErrorCount;
    }
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
  } else if (AcceptKw("DATABASES") || AcceptKw("SCHEMAS")) {
    show.kind = ShowStmt::Kind::kDatabases;
    SQL_RETURN_IF_ERROR(parse_like());
  } else if (IsKw("GRANTS") || IsKw("TRIGGERS") || IsKw("PLUGINS") || IsKw("CHARSET") ||
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
    SQL_ASSIGN_OR_RETURN(item.table, QualifiedTable());
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
    SQL_ASSIGN_OR_RETURN(show.table, QualifiedTable());
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

SqlResult<Statement> Parser::ParseKill() {
  Skip();
  KillStmt kill;
  if (AcceptKw("QUERY")) {
    kill.query_only = true;
  } else {
    (void)AcceptKw("CONNECTION");
  }
  SQL_ASSIGN_OR_RETURN(kill.id, ParseExpr());
  return Statement(std::move(kill));
}

}  // namespace minnow::sql
