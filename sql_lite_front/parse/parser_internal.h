#pragma once
// The recursive-descent parser behind parser.h's Parse(). Its files, by what they read:
//   parser.cc          tokens, names and numbers; the statement dispatch
//   parser_dml.cc      SELECT, INSERT / REPLACE, UPDATE, DELETE
//   parser_session.cc  transactions, SET, SHOW, LOCK / UNLOCK TABLES, EXPLAIN, USE
//   parser_ddl.cc      CREATE / ALTER / DROP / TRUNCATE / OPTIMIZE / CHECK and table options
//   parser_column.cc   column and index definitions (CREATE TABLE, CREATE INDEX, ALTER TABLE)
//   parser_expr.cc     expressions
//
// Conventions: each Parse* function starts at the current token and leaves the parser on the
// first token it did not use. A keyword is a bare word (never a `quoted` one) matched
// case-insensitively; reserved words (IsReserved) cannot be bare names. Errors are 1064 at the
// current token unless a rule says otherwise.
//
// Bounds, so that no input can exhaust the stack (the fuzz target checks it): parentheses,
// unary operators and function arguments nest at most kMaxNesting deep, and an expression tree
// is at most kMaxExprHeight nodes high (a long `a OR b OR c ...` chain grows the tree, not the
// recursion).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/parse/parser.h"
#include "sql_lite_front/sql_error.h"

namespace minnow::sql {

// True for MySQL's reserved words that minnow's grammar uses (they cannot be bare names).
bool IsReserved(std::string_view word);

// The magnitude of -2^63: the one integer literal that fits BIGINT only when negated.
inline constexpr std::string_view kInt64MinDigits = "9223372036854775808";

// The value of an integer literal (a kInteger token's digits), negated if `negative`: an int64
// if it fits (so -9223372036854775808 is one), else BIGINT UNSIGNED up to 2^64 - 1, else a
// DECIMAL up to 65 digits, else a double, as MySQL types it. The one reader of integer
// literals: expressions (parser_expr.cc) and DEFAULT values (parser_column.cc).
Value IntegerLiteral(const std::string& digits, bool negative);
// A kDecimal token's value: DECIMAL when written without an exponent (and up to 65 digits),
// else DOUBLE, as MySQL types the literal.
Value DecimalLiteral(const std::string& text, bool negative);
// Folds a minus sign into a number literal's value as MySQL types -<literal> (-9223372036854775809
// is a DECIMAL); false, *v unchanged, for a non-number or int64's minimum.
bool NegateNumber(Value* v);

class Parser {
 public:
  static constexpr int kMaxNesting = 128;
  static constexpr uint32_t kMaxExprHeight = 2000;
  static constexpr size_t kMaxIdentLength = 64;

  explicit Parser(std::string_view sql, const ParseOptions& options = {});

  // One statement, an optional ';', then the end of the input.
  SqlResult<Statement> ParseAll();

  // ---- tokens (parser.cc), lexed as the parser reaches them. A token reference stays valid
  // until DropUsedTokens.
  const Token& Cur() const {
    return pos_ - base_ < window_.size() ? window_[pos_ - base_] : TokenAt(pos_);
  }
  const Token& Peek(size_t ahead) const { return TokenAt(pos_ + ahead); }
  void Skip();
  // Frees the tokens before the current one (a long VALUES list calls it after each row).
  // REQUIRES: no reference to such a token is held.
  void DropUsedTokens();
  bool AtEnd() const { return Cur().kind == TokenKind::kEnd; }
  // At the end of the statement: the end of the input or ';'.
  bool AtStatementEnd() const { return AtEnd() || IsOp(";"); }
  bool IsKw(std::string_view kw, size_t ahead = 0) const;
  bool AcceptKw(std::string_view kw);
  SqlStatus ExpectKw(std::string_view kw);
  bool IsOp(std::string_view op, size_t ahead = 0) const;
  bool AcceptOp(std::string_view op);
  SqlStatus ExpectOp(std::string_view op);
  // The end offset of the last token used (Expr::text ends there).
  uint32_t last_end() const { return last_end_; }
  std::string_view sql() const { return sql_; }

  SqlError SyntaxError() const;  // 1064 near the current token
  static SqlError NotSupported(std::string_view what);

  // A name: `quoted` or a bare word that is not reserved; 1059 if longer than 64 bytes.
  SqlResult<std::string> Ident();
  bool AtIdent() const;  // the current token could start a name
  // [schema.]name; without a schema, the current database's.
  SqlResult<TableName> QualifiedTable();
  // [schema.]name as written (schema empty if not given): FOR UPDATE OF's names.
  SqlResult<TableName> WrittenTable();
  // The database a name without one is in: the current one; 1046 if none is selected.
  SqlResult<std::string> CurrentDatabase() const;
  // An unsigned integer literal.
  SqlResult<uint64_t> UnsignedInt();
  // A LIMIT or OFFSET count: an unsigned integer literal, or (ParseOptions::placeholders) '?',
  // whose position goes to *param (the count is then 0 until bound).
  SqlResult<uint64_t> CountOrPlaceholder(int32_t* param);
  // With ParseOptions::placeholders: the '?' expressions made so far, by position (null for a
  // LIMIT/OFFSET one, which the statement's limit_param/offset_param name).
  const std::vector<Expr*>& placeholders() const { return placeholders_; }
  // An option's value: a word, a string or a number, as written (strings decoded).
  SqlResult<std::string> OptionValue();

  // ---- statements (parser.cc: the dispatch)
  SqlResult<Statement> ParseStatement();
  // parser_dml.cc
  // At SELECT. allow_into: the statement's own SELECT, which may have an INTO clause (a
  // SELECT inside INSERT or CREATE TABLE may not: 1064).
  SqlResult<SelectStmt> ParseSelect(bool allow_into = false);
  // A query expression: query blocks joined by UNION, parenthesized or not, with the union's
  // ORDER BY / LIMIT / INTO (1221 for a bare block's ORDER BY or LIMIT before UNION).
  SqlResult<SelectStmt> ParseQuery(bool allow_into = false);
  // A query block, or ( query_expression ): *paren says which.
  SqlResult<SelectStmt> ParseQueryTerm(bool allow_into, bool* paren);
  // At "(": ( query_expression ) up to and with its ")" (a union part or a subquery).
  SqlResult<SelectStmt> ParseParenthesizedQuery();
  // After INTO: @a, @b, ... into s->into_vars (OUTFILE / DUMPFILE refused, 1235; a name
  // without @ is a stored program's variable: 1327).
  SqlStatus ParseSelectInto(SelectStmt* s);
  SqlResult<Statement> ParseInsert();  // at INSERT or REPLACE
  SqlResult<Statement> ParseUpdate();
  SqlResult<Statement> ParseDelete();
  SqlStatus ParseOrderBy(std::vector<OrderItem>* out);  // after ORDER BY
  // parser_session.cc
  SqlResult<Statement> ParseTransaction();
  SqlResult<Statement> ParseSavepoint();  // SAVEPOINT x, RELEASE SAVEPOINT x
  SqlResult<Statement> ParseSet();
  SqlResult<Statement> ParseShow();
  SqlResult<Statement> ParseLockTables();
  SqlResult<Statement> ParseUnlockTables();
  SqlResult<Statement> ParseExplain();  // EXPLAIN / DESCRIBE / DESC
  SqlResult<Statement> ParseUse();
  SqlResult<Statement> ParseKill();
  SqlStatus ParseSetTransaction(VarScope scope, bool next_only, SetStmt* out);
  SqlResult<ExprPtr> ParseSetValue();
  // At '@': @name, @`name`, @'name'; the name lower-cased
  // (parser_expr.cc).
  SqlResult<std::string> UserVariableName();

  // ---- expressions (parser_expr.cc)
  SqlResult<ExprPtr> ParseExpr();

  // ---- DDL (parser_ddl.cc, parser_column.cc)
  SqlResult<Statement> ParseCreate();
  SqlResult<Statement> ParseDrop();
  SqlResult<Statement> ParseAlter();
  SqlResult<Statement> ParseTruncate();
  SqlResult<Statement> ParseRename();
  SqlResult<Statement> ParseOptimize();
  SqlResult<Statement> ParseAnalyze();
  SqlResult<Statement> ParseCheck();

 private:
  // parser_dml.cc: the clauses of SELECT
  SqlStatus ParseSelectItems(SelectStmt* s);
  SqlStatus ParseSelectFrom(SelectStmt* s);  // after FROM
  SqlStatus ParseTableReference(TableName* table, std::string* alias,
                                std::optional<DerivedTable>* derived);
  SqlStatus ParseTableAlias(std::string* alias);
  SqlStatus ParseDeleteTargets(std::vector<TableName>* targets, bool* wildcard);
  SqlStatus ParseGroupBy(SelectStmt* s);        // after GROUP
  SqlStatus ParseSelectLimit(SelectStmt* s);    // after LIMIT
  SqlStatus ParseRowLockClause(SelectStmt* s);  // FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE
  // One value of an INSERT's row: DEFAULT, a plain literal (kept as its value) or an expression.
  SqlStatus ParseInsertValue(InsertValues* out);
  // A plain literal followed by ',' or ')' (a sign before a number, a string, a hex string,
  // NULL, TRUE, FALSE) into *out, as ParseExpr would read it; false, nothing used, otherwise.
  bool AcceptPlainLiteral(InsertValues* out);

  // parser_expr.cc
  SqlResult<ExprPtr> ParseOr();
  SqlResult<ExprPtr> ParseXor();
  SqlResult<ExprPtr> ParseAnd();
  SqlResult<ExprPtr> ParseNot();
  SqlResult<ExprPtr> ParsePredicate();
  SqlResult<ExprPtr> ParseBitExpr();
  SqlResult<ExprPtr> ParseAdditive();
  SqlResult<ExprPtr> ParseMultiplicative();
  SqlResult<ExprPtr> ParseUnary();
  // a || b || ... under PIPES_AS_CONCAT (binds tighter than ^, as MySQL's), else ParseUnary.
  SqlResult<ExprPtr> ParseConcat();
  SqlResult<ExprPtr> ParsePrimary();
  SqlResult<ExprPtr> ParseLiteral();
  // At DATE / TIME / TIMESTAMP before a string: the typed literal (1525 for a bad value).
  SqlResult<ExprPtr> ParseTypedTemporalLiteral(uint32_t begin);
  // At "{": ODBC's {d 'str'}, {t 'str'}, {ts 'str'}, or {ident e}, which is e.
  SqlResult<ExprPtr> ParseOdbcLiteral(uint32_t begin);
  // The DATE (kDate) or TIMESTAMP (kDateTime) literal of `text`, or nullopt for a bad one.
  std::optional<Value> TemporalLiteralValue(Temporal::Type type, const std::string& text) const;
  SqlResult<ExprPtr> ParseFunction(std::string name, uint32_t begin);
  SqlResult<ExprPtr> ParseCase(uint32_t begin);  // after CASE, up to and with END
  // After a row's first element (before its ','), up to and with ')': the kRow.
  SqlResult<ExprPtr> ParseRowTail(ExprPtr first, uint32_t begin);
  // A comparison or IN list over row constructors as its scalar form (row_constructor.h).
  SqlResult<ExprPtr> RowsAsScalars(ExprPtr node);
  // After CAST or CONVERT, up to and with the ")".
  SqlResult<ExprPtr> ParseCast(bool convert, uint32_t begin);
  SqlStatus ParseCastType(CastTarget* out);  // SIGNED, CHAR(n), DECIMAL(m,d), ...
  // TRIM(...)'s forms, into fn's arguments (and its name when a remstr is given).
  SqlStatus ParseTrimArgs(Expr* fn);
  // Intervals of date_add/date_sub/timestampdiff: the unit as a string literal ('DAY').
  ExprPtr UnitLiteral(std::string unit);
  SqlResult<ExprPtr> ParseIntervalUnit();
  SqlStatus ParseIntervalTail(Expr* fn);     // after INTERVAL: n unit, appended to fn->args
  SqlStatus ParseGroupConcatArgs(Expr* fn);  // after GROUP_CONCAT( [DISTINCT], up to the ")"
  SqlResult<ExprPtr> ParseColumnRef();
  // At "(": ( query_expression ) up to and with the ")" (a subquery).
  SqlResult<std::shared_ptr<const SelectStmt>> ParseSubquery();
  // Sets node's text (from `begin` to the last token used) and checks the tree's height.
  SqlResult<ExprPtr> Finish(ExprPtr node, uint32_t begin);
  SqlResult<ExprPtr> MakeBinary(BinaryOp op, ExprPtr left, ExprPtr right, uint32_t begin);
  uint32_t Height(const Expr* e) const;
  SqlStatus Enter();  // one level deeper; 1064 past kMaxNesting
  void Leave() { --depth_; }

  // parser_ddl.cc
  SqlStatus ParseCreateTable(CreateTableStmt* out);
  SqlStatus ParseCreateDatabase(CreateDatabaseStmt* out);
  SqlResult<Statement> ParseAlterDatabase();
  SqlStatus ParseCreateIndex(bool unique, CreateIndexStmt* out);
  bool AtTableOption() const;
  SqlStatus ParseTableOption(std::pair<std::string, std::string>* out);
  SqlStatus ParseAlterAction(AlterTableStmt* out);
  SqlStatus ParseColumnPosition(AlterAction* action);
  SqlStatus ParseAlgorithmOrLock(std::string* algorithm, std::string* lock);  // at either

  // parser_column.cc
  SqlStatus ParseColumnSpec(ColumnSpec* out);
  SqlStatus ParseColumnType(ColumnDef* def);
  SqlStatus ParseColumnAttributes(ColumnSpec* out);
  SqlStatus ParseDefaultValue(ColumnDef* def);
  // DEFAULT / ON UPDATE CURRENT_TIMESTAMP[(fsp)] and its synonyms (parser_column.cc).
  SqlResult<std::optional<uint32_t>> CurrentTimestampFsp();
  SqlStatus ParseCharsetClauses(ColumnDef* def);
  SqlStatus ParseDecimalPrecision(ColumnDef* def);
  SqlStatus ParseEnumMembers(ColumnDef* def);
  SqlStatus ParseIndexColumns(IndexSpec* out);  // ( col [(len)] [ASC|DESC], ... )
  SqlStatus ParseIndexOptions();                // USING BTREE, COMMENT '', ...
  // A table element that is not a column: PRIMARY KEY (...), KEY ..., UNIQUE ..., CONSTRAINT ...
  bool AtIndexDefinition() const;
  SqlStatus ParseIndexDefinition(IndexSpec* out);

  // Token `i` of the statement (the kEnd token for any i past it), lexed if need be.
  const Token& TokenAt(size_t i) const;

  std::string_view sql_;
  // Tokens base_, base_ + 1, ... as lexed so far; the stream makes the rest.
  mutable TokenStream stream_;
  mutable std::deque<Token> window_;
  size_t base_ = 0;
  ParseOptions options_;
  size_t pos_ = 0;
  uint32_t last_end_ = 0;
  int depth_ = 0;
  std::unordered_map<const Expr*, uint32_t> heights_;  // nodes higher than 1
  std::vector<Expr*> placeholders_;                    // see placeholders()
};

}  // namespace minnow::sql
