// DDL statements: CREATE TABLE / INDEX, DROP TABLE / INDEX, ALTER TABLE, TRUNCATE, RENAME,
// OPTIMIZE, CHECK, ANALYZE,
// and table options (parser_internal.h). Column and index definitions are in parser_column.cc.

#include <string>
#include <string_view>
#include <utility>

#include "sql_lite_front/parse/parser_internal.h"

namespace minnow::sql {

SqlResult<Statement> Parser::ParseCreate() {
  Skip();
  if (AcceptKw("TABLE")) {
    CreateTableStmt create;
    SQL_RETURN_IF_ERROR(ParseCreateTable(&create));
    return Statement(std::move(create));
  }
  bool unique = AcceptKw("UNIQUE");
  if (!unique && (IsKw("FULLTEXT") || IsKw("SPATIAL"))) {
    return NotSupported(ToUpperAscii(Cur().text) + " indexes");
  }
  if (AcceptKw("INDEX")) {
    CreateIndexStmt create;
    SQL_RETURN_IF_ERROR(ParseCreateIndex(unique, &create));
    return Statement(std::move(create));
  }
  if (unique) return SyntaxError();
  if (IsKw("TEMPORARY")) return NotSupported("CREATE TEMPORARY TABLE");
  if (AcceptKw("DATABASE") || AcceptKw("SCHEMA")) {
    CreateDatabaseStmt create;
    SQL_RETURN_IF_ERROR(ParseCreateDatabase(&create));
    return Statement(std::move(create));
  }
  if (IsKw("VIEW") || IsKw("TRIGGER") || IsKw("PROCEDURE") || IsKw("FUNCTION") || IsKw("USER") ||
      IsKw("EVENT") || IsKw("TABLESPACE") || IsKw("OR") || IsKw("DEFINER") || IsKw("ALGORITHM")) {
    return NotSupported("CREATE " + ToUpperAscii(Cur().text));
  }
  return SyntaxError();
}

// After CREATE {DATABASE | SCHEMA}: [IF NOT EXISTS] db, then [DEFAULT] {CHARACTER SET | CHARSET}
// [=] cs and [DEFAULT] COLLATE [=] c in any order (the last of each counts, as MySQL's);
// [DEFAULT] ENCRYPTION [=] 'N' (no encryption, the default); ENCRYPTION 'Y' is refused.
SqlStatus Parser::ParseCreateDatabase(CreateDatabaseStmt* out) {
  if (AcceptKw("IF")) {
    SQL_RETURN_IF_ERROR(ExpectKw("NOT"));
    SQL_RETURN_IF_ERROR(ExpectKw("EXISTS"));
    out->if_not_exists = true;
  }
  SQL_ASSIGN_OR_RETURN(out->name, Ident());
  while (!AtStatementEnd()) {
    AcceptKw("DEFAULT");
    std::string* target = nullptr;
    if (AcceptKw("CHARSET")) {
      target = &out->charset;
    } else if (AcceptKw("CHARACTER")) {
      SQL_RETURN_IF_ERROR(ExpectKw("SET"));
      target = &out->charset;
    } else if (AcceptKw("COLLATE")) {
      target = &out->collation;
    } else if (AcceptKw("ENCRYPTION")) {
      // 'N' is what a database without encryption has (SHOW CREATE DATABASE and mysqldump
      // write it); encrypting one is refused.
      AcceptOp("=");
      SQL_ASSIGN_OR_RETURN(std::string value, OptionValue());
      if (!EqualsNoCase(value, "N")) return NotSupported("CREATE DATABASE ... ENCRYPTION");
      continue;
    } else {
      return SyntaxError();
    }
    AcceptOp("=");
    SQL_ASSIGN_OR_RETURN(std::string value, OptionValue());
    *target = ToLowerAscii(value);
  }
  return SqlStatus::OK();
}

// After ALTER {DATABASE | SCHEMA}: [db] then, as CREATE DATABASE's, [DEFAULT] {CHARACTER SET |
// CHARSET} [=] cs and [DEFAULT] COLLATE [=] c in any order; ENCRYPTION and READ ONLY are
// refused. No option is a syntax error; no name and no current database is 1046.
SqlResult<Statement> Parser::ParseAlterDatabase() {
  AlterDatabaseStmt alter;
  const bool option_first = IsKw("DEFAULT") || IsKw("CHARACTER") || IsKw("CHARSET") ||
                            IsKw("COLLATE") || IsKw("ENCRYPTION") || IsKw("READ");
  if (!option_first && !AtStatementEnd()) {
    SQL_ASSIGN_OR_RETURN(alter.name, Ident());
  }
  if (AtStatementEnd()) return SyntaxError();
  while (!AtStatementEnd()) {
    AcceptKw("DEFAULT");
    std::string* target = nullptr;
    if (AcceptKw("CHARSET")) {
      target = &alter.charset;
    } else if (AcceptKw("CHARACTER")) {
      SQL_RETURN_IF_ERROR(ExpectKw("SET"));
      target = &alter.charset;
    } else if (AcceptKw("COLLATE")) {
      target = &alter.collation;
    } else if (IsKw("ENCRYPTION")) {
      return NotSupported("ALTER DATABASE ... ENCRYPTION");
    } else if (IsKw("READ") && IsKw("ONLY", 1)) {
      return NotSupported("ALTER DATABASE ... READ ONLY");
    } else {
      return SyntaxError();
    }
    AcceptOp("=");
    SQL_ASSIGN_OR_RETURN(std::string value, OptionValue());
    *target = ToLowerAscii(value);
  }
  if (alter.name.empty()) {
    SQL_ASSIGN_OR_RETURN(alter.name, CurrentDatabase());
  }
  return Statement(std::move(alter));
}

// After CREATE TABLE: [IF NOT EXISTS] name [( element, ... )] [options] [IGNORE | REPLACE]
// [AS] SELECT ..., or [IF NOT EXISTS] name ( element, ... ) [options], or
// [IF NOT EXISTS] name {LIKE source | (LIKE source)}
SqlStatus Parser::ParseCreateTable(CreateTableStmt* out) {
  if (AcceptKw("IF")) {
    SQL_RETURN_IF_ERROR(ExpectKw("NOT"));
    SQL_RETURN_IF_ERROR(ExpectKw("EXISTS"));
    out->if_not_exists = true;
  }
  SQL_ASSIGN_OR_RETURN(out->name, QualifiedTable());
  if (IsKw("LIKE") || (IsOp("(") && IsKw("LIKE", 1))) {
    const bool parenthesized = AcceptOp("(");
    Skip();  // LIKE
    SQL_ASSIGN_OR_RETURN(out->like, QualifiedTable());
    if (parenthesized) SQL_RETURN_IF_ERROR(ExpectOp(")"));
    return SqlStatus::OK();
  }
  if (IsOp("(") && !IsKw("SELECT", 1)) {
    Skip();
    for (;;) {
      if (AtIndexDefinition()) {
        IndexSpec index;
        SQL_RETURN_IF_ERROR(ParseIndexDefinition(&index));
        out->indexes.push_back(std::move(index));
      } else {
        ColumnSpec column;
        SQL_RETURN_IF_ERROR(ParseColumnSpec(&column));
        out->columns.push_back(std::move(column));
      }
      if (AcceptOp(")")) break;
      SQL_RETURN_IF_ERROR(ExpectOp(","));
    }
  }
  while (AtTableOption() || (IsOp(",") && !AtStatementEnd())) {
    AcceptOp(",");
    std::pair<std::string, std::string> option;
    SQL_RETURN_IF_ERROR(ParseTableOption(&option));
    out->options.push_back(std::move(option));
  }
  if (IsKw("PARTITION")) return NotSupported("PARTITION");
  out->ignore = AcceptKw("IGNORE");
  out->replace = !out->ignore && AcceptKw("REPLACE");
  bool as = AcceptKw("AS");
  if (IsKw("SELECT") || (IsOp("(") && IsKw("SELECT", 1))) {
    SQL_ASSIGN_OR_RETURN(SelectStmt sel, ParseQuery());
    out->as_select = std::make_unique<SelectStmt>(std::move(sel));
  } else if (as || out->ignore || out->replace) {
    return SyntaxError();
  } else if (out->columns.empty()) {
    return SyntaxError();  // a table needs at least one column
  }
  return SqlStatus::OK();
}

// After CREATE [UNIQUE] INDEX: name [USING BTREE] ON t (cols) [options] [ALGORITHM = a]
// [LOCK = l]
SqlStatus Parser::ParseCreateIndex(bool unique, CreateIndexStmt* out) {
  out->index.unique = unique;
  SQL_ASSIGN_OR_RETURN(out->index.name, Ident());
  SQL_RETURN_IF_ERROR(ParseIndexOptions());
  SQL_RETURN_IF_ERROR(ExpectKw("ON"));
  SQL_ASSIGN_OR_RETURN(out->table, QualifiedTable());
  SQL_RETURN_IF_ERROR(ParseIndexColumns(&out->index));
  SQL_RETURN_IF_ERROR(ParseIndexOptions());
  while (IsKw("ALGORITHM") || IsKw("LOCK")) {
    SQL_RETURN_IF_ERROR(ParseAlgorithmOrLock(&out->algorithm, &out->lock));
  }
  return SqlStatus::OK();
}

namespace {

constexpr std::string_view kTableOptions[] = {
    "ENGINE",     "AUTO_INCREMENT",   "COMPRESSION",       "MAX_ROWS",           "MIN_ROWS",
    "ROW_FORMAT", "COMMENT",          "KEY_BLOCK_SIZE",    "AVG_ROW_LENGTH",     "CHECKSUM",
    "PACK_KEYS",  "STATS_PERSISTENT", "STATS_AUTO_RECALC", "STATS_SAMPLE_PAGES", "DELAY_KEY_WRITE",
    "ENCRYPTION",
};

}  // namespace

bool Parser::AtTableOption() const {
  if (Cur().kind != TokenKind::kIdent) return false;
  if (IsKw("DEFAULT") || IsKw("CHARSET") || IsKw("COLLATE") ||
      (IsKw("CHARACTER") && IsKw("SET", 1))) {
    return true;
  }
  std::string upper = ToUpperAscii(Cur().text);
  for (std::string_view o : kTableOptions) {
    if (o == upper) return true;
  }
  return false;
}

// name [=] value, with [DEFAULT] CHARSET / CHARACTER SET named "CHARSET" and [DEFAULT]
// COLLATE named "COLLATE".
SqlStatus Parser::ParseTableOption(std::pair<std::string, std::string>* out) {
  bool had_default = AcceptKw("DEFAULT");
  if (IsKw("CHARACTER") && IsKw("SET", 1)) {
    Skip();
    Skip();
    out->first = "CHARSET";
  } else if (AcceptKw("CHARSET")) {
    out->first = "CHARSET";
  } else if (AcceptKw("COLLATE")) {
    out->first = "COLLATE";
  } else if (had_default || !AtTableOption()) {
    return SyntaxError();
  } else {
    out->first = ToUpperAscii(Cur().text);
    Skip();
  }
  AcceptOp("=");
  if (out->first != "COMMENT" && out->first != "COMPRESSION" && out->first != "ENGINE" &&
      out->first != "CHARSET" && out->first != "COLLATE" && out->first != "ROW_FORMAT" &&
      out->first != "ENCRYPTION" && Cur().kind != TokenKind::kInteger && !IsKw("DEFAULT")) {
    return SyntaxError();  // a numeric option
  }
  SQL_ASSIGN_OR_RETURN(out->second, OptionValue());
  return SqlStatus::OK();
}

// ALGORITHM [=] {DEFAULT | INPLACE | COPY | INSTANT} or LOCK [=] {DEFAULT | NONE | SHARED |
// EXCLUSIVE}, upper-cased.
SqlStatus Parser::ParseAlgorithmOrLock(std::string* algorithm, std::string* lock) {
  bool is_algorithm = IsKw("ALGORITHM");
  Skip();
  AcceptOp("=");
  if (Cur().kind != TokenKind::kIdent) return SyntaxError();
  std::string value = ToUpperAscii(Cur().text);
  if (is_algorithm
          ? (value != "DEFAULT" && value != "INPLACE" && value != "COPY" && value != "INSTANT")
          : (value != "DEFAULT" && value != "NONE" && value != "SHARED" && value != "EXCLUSIVE")) {
    return SyntaxError();
  }
  Skip();
  *(is_algorithm ? algorithm : lock) = std::move(value);
  return SqlStatus::OK();
}

SqlResult<Statement> Parser::ParseDrop() {
  Skip();
  if (IsKw("TEMPORARY")) return NotSupported("DROP TEMPORARY TABLE");
  if (AcceptKw("TABLE") || AcceptKw("TABLES")) {
    DropTableStmt drop;
    if (AcceptKw("IF")) {
      SQL_RETURN_IF_ERROR(ExpectKw("EXISTS"));
      drop.if_exists = true;
    }
    for (;;) {
      SQL_ASSIGN_OR_RETURN(TableName name, QualifiedTable());
      drop.names.push_back(std::move(name));
      if (!AcceptOp(",")) break;
    }
    if (!AcceptKw("RESTRICT")) AcceptKw("CASCADE");
    return Statement(std::move(drop));
  }
  if (AcceptKw("INDEX")) {
    DropIndexStmt drop;
    SQL_ASSIGN_OR_RETURN(drop.name, Ident());
    SQL_RETURN_IF_ERROR(ExpectKw("ON"));
    SQL_ASSIGN_OR_RETURN(drop.table, QualifiedTable());
    while (IsKw("ALGORITHM") || IsKw("LOCK")) {
      SQL_RETURN_IF_ERROR(ParseAlgorithmOrLock(&drop.algorithm, &drop.lock));
    }
    return Statement(std::move(drop));
  }
  if (AcceptKw("DATABASE") || AcceptKw("SCHEMA")) {
    DropDatabaseStmt drop;
    if (AcceptKw("IF")) {
      SQL_RETURN_IF_ERROR(ExpectKw("EXISTS"));
      drop.if_exists = true;
    }
    SQL_ASSIGN_OR_RETURN(drop.name, Ident());
    return Statement(std::move(drop));
  }
  if (IsKw("VIEW") || IsKw("TRIGGER") || IsKw("PROCEDURE") || IsKw("FUNCTION") || IsKw("USER") ||
      IsKw("EVENT")) {
    return NotSupported("DROP " + ToUpperAscii(Cur().text));
  }
  return SyntaxError();
}

// ALTER TABLE t action, ... where action is ADD [COLUMN] ..., ADD INDEX ..., DROP ...,
// MODIFY ..., CHANGE ..., ALGORITHM = a, LOCK = l or table options.
SqlResult<Statement> Parser::ParseAlter() {
  Skip();
  if (AcceptKw("DATABASE") || AcceptKw("SCHEMA")) return ParseAlterDatabase();
  if (!AcceptKw("TABLE")) {
    if (Cur().kind == TokenKind::kIdent) return NotSupported("ALTER " + ToUpperAscii(Cur().text));
    return SyntaxError();
  }
  AlterTableStmt alter;
  SQL_ASSIGN_OR_RETURN(alter.table, QualifiedTable());
  if (AtStatementEnd()) return Statement(std::move(alter));  // ALTER TABLE t: a no-op
  if ((IsKw("DISABLE") || IsKw("ENABLE")) && IsKw("KEYS", 1)) {
    AlterKeysStmt keys{alter.table, IsKw("ENABLE")};
    Skip();
    Skip();
    if (AtStatementEnd()) return Statement(std::move(keys));
    return NotSupported("ALTER TABLE ... " + std::string(keys.enable ? "ENABLE" : "DISABLE") +
                        " KEYS with other changes");
  }
  for (;;) {
    SQL_RETURN_IF_ERROR(ParseAlterAction(&alter));
    if (!AcceptOp(",")) break;
  }
  if (IsKw("PARTITION")) return NotSupported("PARTITION");
  return Statement(std::move(alter));
}

SqlStatus Parser::ParseColumnPosition(AlterAction* action) {
  if (AcceptKw("FIRST")) {
    action->first = true;
  } else if (AcceptKw("AFTER")) {
    SQL_ASSIGN_OR_RETURN(action->after, Ident());
  }
  return SqlStatus::OK();
}

SqlStatus Parser::ParseAlterAction(AlterTableStmt* out) {
  using Kind = AlterAction::Kind;
  if (IsKw("ALGORITHM") || IsKw("LOCK")) {
    return ParseAlgorithmOrLock(&out->algorithm, &out->lock);
  }
  if (AtTableOption()) {
    while (AtTableOption()) {  // options may follow each other without commas
      AlterAction action;
      action.kind = Kind::kTableOption;
      SQL_RETURN_IF_ERROR(ParseTableOption(&action.option));
      out->actions.push_back(std::move(action));
    }
    return SqlStatus::OK();
  }
  AlterAction action;
  if (AcceptKw("ADD")) {
    if (AcceptKw("COLUMN") || !AtIndexDefinition()) {
      if (IsOp("(")) return NotSupported("ADD COLUMN (...)");
      action.kind = Kind::kAddColumn;
      SQL_RETURN_IF_ERROR(ParseColumnSpec(&action.column));
      SQL_RETURN_IF_ERROR(ParseColumnPosition(&action));
    } else {
      action.kind = Kind::kAddIndex;
      SQL_RETURN_IF_ERROR(ParseIndexDefinition(&action.index));
    }
  } else if (AcceptKw("DROP")) {
    if (AcceptKw("PRIMARY")) {
      SQL_RETURN_IF_ERROR(ExpectKw("KEY"));
      action.kind = Kind::kDropPrimaryKey;
    } else if (AcceptKw("INDEX") || AcceptKw("KEY")) {
      action.kind = Kind::kDropIndex;
      SQL_ASSIGN_OR_RETURN(action.name, Ident());
    } else if (IsKw("FOREIGN")) {
      return NotSupported("FOREIGN KEY");
    } else if (IsKw("CHECK") || IsKw("CONSTRAINT")) {
      return NotSupported("DROP " + ToUpperAscii(Cur().text));
    } else {
      AcceptKw("COLUMN");
      action.kind = Kind::kDropColumn;
      SQL_ASSIGN_OR_RETURN(action.name, Ident());
      if (!AcceptKw("RESTRICT")) AcceptKw("CASCADE");
    }
  } else if (AcceptKw("MODIFY")) {
    AcceptKw("COLUMN");
    action.kind = Kind::kModifyColumn;
    SQL_RETURN_IF_ERROR(ParseColumnSpec(&action.column));
    SQL_RETURN_IF_ERROR(ParseColumnPosition(&action));
  } else if (AcceptKw("CHANGE")) {
    AcceptKw("COLUMN");
    action.kind = Kind::kChangeColumn;
    SQL_ASSIGN_OR_RETURN(action.name, Ident());
    SQL_RETURN_IF_ERROR(ParseColumnSpec(&action.column));
    SQL_RETURN_IF_ERROR(ParseColumnPosition(&action));
  } else if (AcceptKw("RENAME")) {
    if (IsKw("COLUMN") || IsKw("INDEX") || IsKw("KEY")) {
      return NotSupported("ALTER TABLE ... RENAME " + ToUpperAscii(Cur().text));
    }
    if (!AcceptKw("TO")) AcceptKw("AS");
    SQL_ASSIGN_OR_RETURN(out->rename_to, QualifiedTable());
    return SqlStatus::OK();
  } else if (IsKw("ALTER") || IsKw("ORDER") || IsKw("CONVERT") || IsKw("FORCE") ||
             IsKw("DISCARD") || IsKw("IMPORT") || IsKw("ENABLE") || IsKw("DISABLE")) {
    return NotSupported("ALTER TABLE ... " + ToUpperAscii(Cur().text));
  } else {
    return SyntaxError();
  }
  out->actions.push_back(std::move(action));
  return SqlStatus::OK();
}

SqlResult<Statement> Parser::ParseTruncate() {
  Skip();
  AcceptKw("TABLE");
  TruncateStmt truncate;
  SQL_ASSIGN_OR_RETURN(truncate.table, QualifiedTable());
  return Statement(std::move(truncate));
}

// RENAME {TABLE | TABLES} a TO b [, c TO d] ...
SqlResult<Statement> Parser::ParseRename() {
  Skip();
  if (!AcceptKw("TABLE") && !AcceptKw("TABLES")) {
    if (Cur().kind == TokenKind::kIdent) return NotSupported("RENAME " + ToUpperAscii(Cur().text));
    return SyntaxError();
  }
  RenameTableStmt rename;
  for (;;) {
    SQL_ASSIGN_OR_RETURN(TableName from, QualifiedTable());
    SQL_RETURN_IF_ERROR(ExpectKw("TO"));
    SQL_ASSIGN_OR_RETURN(TableName to, QualifiedTable());
    rename.renames.emplace_back(std::move(from), std::move(to));
    if (!AcceptOp(",")) break;
  }
  return Statement(std::move(rename));
}

// OPTIMIZE [NO_WRITE_TO_BINLOG | LOCAL] {TABLE | TABLES} t, ...
SqlResult<Statement> Parser::ParseOptimize() {
  Skip();
  if (!AcceptKw("NO_WRITE_TO_BINLOG")) AcceptKw("LOCAL");
  if (!AcceptKw("TABLE") && !AcceptKw("TABLES")) return SyntaxError();
  OptimizeTableStmt optimize;
  for (;;) {
    SQL_ASSIGN_OR_RETURN(TableName name, QualifiedTable());
    optimize.tables.push_back(std::move(name));
    if (!AcceptOp(",")) break;
  }
  return Statement(std::move(optimize));
}

// ANALYZE [NO_WRITE_TO_BINLOG | LOCAL] {TABLE | TABLES} t, ... (histograms: not supported)
SqlResult<Statement> Parser::ParseAnalyze() {
  Skip();
  if (!AcceptKw("NO_WRITE_TO_BINLOG")) AcceptKw("LOCAL");
  if (!AcceptKw("TABLE") && !AcceptKw("TABLES")) return SyntaxError();
  AnalyzeTableStmt analyze;
  for (;;) {
    SQL_ASSIGN_OR_RETURN(TableName name, QualifiedTable());
    analyze.tables.push_back(std::move(name));
    if (!AcceptOp(",")) break;
  }
  if (IsKw("UPDATE") || IsKw("DROP")) return NotSupported("ANALYZE TABLE ... HISTOGRAM");
  return Statement(std::move(analyze));
}

// CHECK {TABLE | TABLES} t, ... [option] ..., the options a list without commas (MySQL's
// mi_check_types): QUICK | FAST | MEDIUM | EXTENDED | CHANGED | FOR UPGRADE.
SqlResult<Statement> Parser::ParseCheck() {
  Skip();
  if (!AcceptKw("TABLE") && !AcceptKw("TABLES")) return SyntaxError();
  CheckTableStmt check;
  for (;;) {
    SQL_ASSIGN_OR_RETURN(TableName name, QualifiedTable());
    check.tables.push_back(std::move(name));
    if (!AcceptOp(",")) break;
  }
  for (;;) {
    if (AcceptKw("QUICK")) {
      check.quick = true;
    } else if (AcceptKw("FOR")) {
      if (!AcceptKw("UPGRADE")) return SyntaxError();
      check.for_upgrade = true;
    } else if (!AcceptKw("FAST") && !AcceptKw("MEDIUM") && !AcceptKw("EXTENDED") &&
               !AcceptKw("CHANGED")) {
      break;
    }
  }
  return Statement(std::move(check));
}

}  // namespace minnow::sql
