// The data statements: SELECT, INSERT / REPLACE, UPDATE, DELETE (parser_internal.h).

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/parse/parser_internal.h"

namespace minnow::sql {

// SELECT [ALL | DISTINCT | DISTINCTROW] [HIGH_PRIORITY] [SQL_NO_CACHE | SQL_CACHE]
//   [SQL_CALC_FOUND_ROWS] items
//   [INTO @a, ...]
//   [FROM t [[AS] alias]] [WHERE e] [GROUP BY e, ...] [HAVING e] [ORDER BY ...]
//   [LIMIT n [OFFSET m] | LIMIT m, n] [INTO @a, ...]
//   [FOR {UPDATE | SHARE} [OF t] [NOWAIT | SKIP LOCKED] | LOCK IN SHARE MODE] [INTO @a, ...]
// (one INTO at most, as MySQL 8.0).
SqlResult<SelectStmt> Parser::ParseSelect(bool allow_into) {
  SelectStmt s;
  SQL_RETURN_IF_ERROR(ExpectKw("SELECT"));
  bool all = false;
  for (;;) {  // MySQL takes the select options in any order
    if (AcceptKw("ALL")) {
      all = true;
    } else if (AcceptKw("DISTINCT") || AcceptKw("DISTINCTROW")) {
      s.distinct = true;
    } else if (AcceptKw("HIGH_PRIORITY")) {
      s.high_priority = true;
    } else if (AcceptKw("STRAIGHT_JOIN")) {
      s.straight_join = true;
    } else if (AcceptKw("SQL_CALC_FOUND_ROWS")) {
      s.calc_found_rows = true;
    } else if (IsKw("SQL_NO_CACHE") || IsKw("SQL_CACHE")) {  // MySQL 8.0 has no query cache
      s.deprecated_cache_option = ToUpperAscii(Cur().text);
      Skip();
    } else {
      break;
    }
  }
  if (all && s.distinct) return SqlErr(kErWrongUsage, "Incorrect usage of ALL and DISTINCT");
  SQL_RETURN_IF_ERROR(ParseSelectItems(&s));
  auto into = [&]() -> SqlStatus {
    if (!IsKw("INTO")) return SqlStatus::OK();
    if (!allow_into || !s.into_vars.empty()) return SyntaxError();
    Skip();
    return ParseSelectInto(&s);
  };
  SQL_RETURN_IF_ERROR(into());
  if (AcceptKw("FROM")) SQL_RETURN_IF_ERROR(ParseSelectFrom(&s));
  if (AcceptKw("WHERE")) {
    SQL_ASSIGN_OR_RETURN(s.where, ParseExpr());
  }
  if (AcceptKw("GROUP")) SQL_RETURN_IF_ERROR(ParseGroupBy(&s));
  if (AcceptKw("HAVING")) {
    SQL_ASSIGN_OR_RETURN(s.having, ParseExpr());
  }
  if (IsKw("WINDOW")) return NotSupported("window functions");
  if (AcceptKw("ORDER")) {
    SQL_RETURN_IF_ERROR(ExpectKw("BY"));
    SQL_RETURN_IF_ERROR(ParseOrderBy(&s.order_by));
  }
  if (AcceptKw("LIMIT")) SQL_RETURN_IF_ERROR(ParseSelectLimit(&s));
  if (IsKw("EXCEPT") || IsKw("INTERSECT")) return NotSupported(ToUpperAscii(Cur().text));
  if (IsKw("UNION")) {
    // Only a parenthesized block may have its own ORDER BY or LIMIT before a UNION.
    if (!s.order_by.empty()) return SqlErr(kErWrongUsage, "Incorrect usage of UNION and ORDER BY");
    if (s.limit.has_value()) return SqlErr(kErWrongUsage, "Incorrect usage of UNION and LIMIT");
  }
  SQL_RETURN_IF_ERROR(into());
  SQL_RETURN_IF_ERROR(ParseRowLockClause(&s));
  SQL_RETURN_IF_ERROR(into());
  return s;
}

// query_term {UNION [ALL | DISTINCT] query_term} [ORDER BY ...] [LIMIT ...] [INTO ...], where a
// term is a query block or ( query_expression ). The last unparenthesized block's ORDER BY,
// LIMIT and INTO belong to the union, as MySQL's grammar reads them.
SqlResult<SelectStmt> Parser::ParseQuery(bool allow_into) {
  bool paren = false;
  SQL_ASSIGN_OR_RETURN(SelectStmt first, ParseQueryTerm(allow_into, &paren));
  const bool tail = IsKw("ORDER") || IsKw("LIMIT") || IsKw("INTO") || IsKw("FOR") || IsKw("LOCK");
  if (!IsKw("UNION") && (!paren || !tail)) return first;
  SelectStmt u;
  u.union_of = std::make_unique<UnionSpec>();
  std::vector<std::unique_ptr<SelectStmt>>& parts = u.union_of->parts;
  parts.push_back(std::make_unique<SelectStmt>(std::move(first)));
  while (IsKw("UNION")) {
    const SelectStmt& prev = *parts.back();
    if (!paren && (!prev.into_vars.empty() || prev.lock != RowLockClause::kNone)) {
      return SyntaxError();
    }
    Skip();
    bool distinct = true;
    if (AcceptKw("ALL")) {
      distinct = false;
    } else {
      AcceptKw("DISTINCT");
    }
    u.union_of->distinct.push_back(distinct);
    SQL_ASSIGN_OR_RETURN(SelectStmt next, ParseQueryTerm(allow_into, &paren));
    parts.push_back(std::make_unique<SelectStmt>(std::move(next)));
  }
  if (!paren) {
    SelectStmt& last = *parts.back();
    u.order_by = std::move(last.order_by);
    last.order_by.clear();
    u.limit = last.limit;
    u.offset = last.offset;
    u.limit_param = last.limit_param;
    u.offset_param = last.offset_param;
    last.limit.reset();
    last.offset = 0;
    last.limit_param = last.offset_param = -1;
    u.into_vars = std::move(last.into_vars);
    last.into_vars.clear();
    if (last.lock != RowLockClause::kNone) return NotSupported("locking clauses after UNION");
    return u;
  }
  if (AcceptKw("ORDER")) {
    SQL_RETURN_IF_ERROR(ExpectKw("BY"));
    SQL_RETURN_IF_ERROR(ParseOrderBy(&u.order_by));
  }
  if (AcceptKw("LIMIT")) SQL_RETURN_IF_ERROR(ParseSelectLimit(&u));
  if (AcceptKw("INTO")) {
    if (!allow_into) return SyntaxError();
    SQL_RETURN_IF_ERROR(ParseSelectInto(&u));
  }
  if (IsKw("FOR") || IsKw("LOCK")) return NotSupported("locking clauses after UNION");
  return u;
}

// A query block, or ( query_expression ) (*paren set).
SqlResult<SelectStmt> Parser::ParseQueryTerm(bool allow_into, bool* paren) {
  *paren = IsOp("(");
  if (!*paren) return ParseSelect(allow_into);
  return ParseParenthesizedQuery();
}

// At "(": ( query_expression ), up to and with the ")"; one nesting level deeper.
SqlResult<SelectStmt> Parser::ParseParenthesizedQuery() {
  SQL_RETURN_IF_ERROR(ExpectOp("("));
  if (!IsKw("SELECT") && !IsOp("(")) return SyntaxError();
  SQL_RETURN_IF_ERROR(Enter());
  SqlResult<SelectStmt> inner = ParseQuery(/*allow_into=*/false);
  Leave();
  if (!inner.ok()) return inner.error();
  SQL_RETURN_IF_ERROR(ExpectOp(")"));
  return std::move(inner).value();
}

SqlStatus Parser::ParseSelectInto(SelectStmt* s) {
  if (IsKw("OUTFILE") || IsKw("DUMPFILE")) return NotSupported("SELECT ... INTO OUTFILE");
  for (;;) {
    if (IsOp("@")) {
      SQL_ASSIGN_OR_RETURN(std::string name, UserVariableName());
      s->into_vars.push_back(std::move(name));
    } else if (AtIdent()) {
      return SqlErr(kErSpUndeclaredVar, "Undeclared variable: ", Cur().text);
    } else {
      return SyntaxError();
    }
    if (!AcceptOp(",")) return SqlStatus::OK();
  }
}

// item, ... where item is *, t.*, db.t.* or expr [[AS] alias]; the alias may be a string.
SqlStatus Parser::ParseSelectItems(SelectStmt* s) {
  for (;;) {
    SelectItem item;
    if (AcceptOp("*")) {
      // a bare *
    } else if (AtIdent() && IsOp(".", 1) && IsOp("*", 2)) {
      item.star_table = Cur().text;
      Skip();
      Skip();
      Skip();
    } else if (AtIdent() && IsOp(".", 1) &&
               (Peek(2).kind == TokenKind::kIdent || Peek(2).kind == TokenKind::kQuotedIdent) &&
               IsOp(".", 3) && IsOp("*", 4)) {
      item.star_schema = Cur().text;
      Skip();
      Skip();
      item.star_table = Cur().text;
      Skip();
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
    s->items.push_back(std::move(item));
    if (!AcceptOp(",")) return SqlStatus::OK();
  }
}

// After FROM: DUAL (no table), or a table [[AS] alias] and the tables joined to it:
//   , t | [INNER | CROSS] JOIN t [ON e | USING (c, ...)] | STRAIGHT_JOIN t [ON e]
//   | {LEFT | RIGHT} [OUTER] JOIN t {ON e | USING (c, ...)}
// where t is a table [[AS] alias] or a derived table (query) [AS] alias [(column, ...)].
// Parenthesized joins, NATURAL joins and LATERAL derived tables are refused.
SqlStatus Parser::ParseSelectFrom(SelectStmt* s) {
  if (AcceptKw("DUAL")) return SqlStatus::OK();  // SELECT ... FROM DUAL: no table
  s->from.emplace();
  SQL_RETURN_IF_ERROR(ParseTableReference(&*s->from, &s->from_alias, &s->from_derived));
  for (;;) {
    JoinedTable j;
    if (AcceptOp(",")) {
      j.comma = true;
    } else if (AcceptKw("STRAIGHT_JOIN")) {
      j.kind = JoinedTable::Kind::kStraight;
    } else if (IsKw("NATURAL")) {
      return NotSupported("NATURAL JOIN");
    } else if (AcceptKw("LEFT") || IsKw("RIGHT")) {
      j.kind = AcceptKw("RIGHT") ? JoinedTable::Kind::kRight : JoinedTable::Kind::kLeft;
      AcceptKw("OUTER");
      SQL_RETURN_IF_ERROR(ExpectKw("JOIN"));
    } else if (AcceptKw("INNER") || AcceptKw("CROSS")) {
      SQL_RETURN_IF_ERROR(ExpectKw("JOIN"));
    } else if (!AcceptKw("JOIN")) {
      return SqlStatus::OK();
    }
    SQL_RETURN_IF_ERROR(ParseTableReference(&j.table, &j.alias, &j.derived));
    const bool outer = j.kind == JoinedTable::Kind::kLeft || j.kind == JoinedTable::Kind::kRight;
    if (!j.comma && AcceptKw("ON")) {
      SQL_ASSIGN_OR_RETURN(j.on, ParseExpr());
    } else if (!j.comma && j.kind != JoinedTable::Kind::kStraight && AcceptKw("USING")) {
      SQL_RETURN_IF_ERROR(ExpectOp("("));
      for (;;) {
        SQL_ASSIGN_OR_RETURN(std::string c, Ident());
        j.using_columns.push_back(std::move(c));
        if (AcceptOp(")")) break;
        SQL_RETURN_IF_ERROR(ExpectOp(","));
      }
    } else if (outer) {
      return SyntaxError();  // an outer join needs its condition
    }
    s->joins.push_back(std::move(j));
  }
}

// A table [[AS] alias], or a derived table (query) [AS] alias [(column, ...)], whose name and
// alias are both the alias (1248 without one).
SqlStatus Parser::ParseTableReference(TableName* table, std::string* alias,
                                      std::optional<DerivedTable>* derived) {
  if (IsKw("LATERAL") && IsOp("(", 1)) return NotSupported("LATERAL derived tables");
  if (!IsOp("(")) {
    SQL_ASSIGN_OR_RETURN(*table, QualifiedTable());
    return ParseTableAlias(alias);
  }
  if (!IsKw("SELECT", 1) && !IsOp("(", 1)) return NotSupported("nested joins");
  DerivedTable d;
  SQL_ASSIGN_OR_RETURN(d.query, ParseSubquery());
  AcceptKw("AS");
  if (!AtIdent())
    return SqlErr(kErDerivedMustHaveAlias, "Every derived table must have its own alias");
  SQL_ASSIGN_OR_RETURN(*alias, Ident());
  *table = TableName{};
  table->schema.clear();
  table->name = *alias;
  if (AcceptOp("(")) {
    for (;;) {
      SQL_ASSIGN_OR_RETURN(std::string c, Ident());
      d.columns.push_back(std::move(c));
      if (AcceptOp(")")) break;
      SQL_RETURN_IF_ERROR(ExpectOp(","));
    }
  }
  *derived = std::move(d);
  return SqlStatus::OK();
}

// [[AS] alias] after a table name.
SqlStatus Parser::ParseTableAlias(std::string* alias) {
  bool as = AcceptKw("AS");
  if (AtIdent()) {
    SQL_ASSIGN_OR_RETURN(*alias, Ident());
  } else if (as) {
    return SyntaxError();
  }
  return SqlStatus::OK();
}

// After GROUP: BY e, ... [WITH ROLLUP] (without ASC / DESC).
SqlStatus Parser::ParseGroupBy(SelectStmt* s) {
  SQL_RETURN_IF_ERROR(ExpectKw("BY"));
  for (;;) {
    SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
    s->group_by.push_back(std::move(e));
    if (IsKw("ASC") || IsKw("DESC")) return NotSupported("GROUP BY ... ASC/DESC");
    if (!AcceptOp(",")) break;
  }
  if (AcceptKw("WITH")) {
    SQL_RETURN_IF_ERROR(ExpectKw("ROLLUP"));
    s->rollup = true;
  }
  return SqlStatus::OK();
}

// After LIMIT: n [OFFSET m] | m, n.
SqlStatus Parser::ParseSelectLimit(SelectStmt* s) {
  int32_t first_param = -1;
  SQL_ASSIGN_OR_RETURN(uint64_t first, CountOrPlaceholder(&first_param));
  if (AcceptOp(",")) {
    s->offset = first;
    s->offset_param = first_param;
    SQL_ASSIGN_OR_RETURN(uint64_t count, CountOrPlaceholder(&s->limit_param));
    s->limit = count;
  } else {
    s->limit = first;
    s->limit_param = first_param;
    if (AcceptKw("OFFSET")) {
      SQL_ASSIGN_OR_RETURN(s->offset, CountOrPlaceholder(&s->offset_param));
    }
  }
  return SqlStatus::OK();
}

// Locking clauses, each FOR {UPDATE | SHARE} [OF t, ...] [NOWAIT | SKIP LOCKED] or LOCK IN
// SHARE MODE, resolved against the FROM tables as MySQL does: OF names a table by its alias
// if it has one (3568 for another name), a clause without OF locks every table, and no table
// may be locked by two clauses (3569).
SqlStatus Parser::ParseRowLockClause(SelectStmt* s) {
  struct Target {
    const std::string* as_named;
    const std::string* schema;
    bool aliased;
    RowLockClause* lock;
    LockedRowAction* action;
    bool locked = false;
  };
  std::vector<Target> targets;
  if (s->from.has_value()) {
    targets.push_back({s->from_alias.empty() ? &s->from->name : &s->from_alias, &s->from->schema,
                       !s->from_alias.empty(), &s->lock, &s->locked_row});
  }
  for (JoinedTable& j : s->joins) {
    targets.push_back({j.alias.empty() ? &j.table.name : &j.alias, &j.table.schema,
                       !j.alias.empty(), &j.lock, &j.locked_row});
  }
  for (;;) {
    RowLockClause strength = RowLockClause::kNone;
    LockedRowAction action = LockedRowAction::kWait;
    std::vector<TableName> of;
    if (AcceptKw("FOR")) {
      if (AcceptKw("UPDATE")) {
        strength = RowLockClause::kUpdate;
      } else if (AcceptKw("SHARE")) {
        strength = RowLockClause::kShare;
      } else {
        return SyntaxError();
      }
      if (AcceptKw("OF")) {
        do {
          SQL_ASSIGN_OR_RETURN(TableName t, WrittenTable());
          of.push_back(std::move(t));
        } while (AcceptOp(","));
      }
      if (AcceptKw("NOWAIT")) {
        action = LockedRowAction::kNoWait;
      } else if (AcceptKw("SKIP")) {
        SQL_RETURN_IF_ERROR(ExpectKw("LOCKED"));
        action = LockedRowAction::kSkipLocked;
      }
    } else if (AcceptKw("LOCK")) {
      SQL_RETURN_IF_ERROR(ExpectKw("IN"));
      SQL_RETURN_IF_ERROR(ExpectKw("SHARE"));
      SQL_RETURN_IF_ERROR(ExpectKw("MODE"));
      strength = RowLockClause::kShare;
    } else {
      return SqlStatus::OK();
    }
    std::vector<Target*> named;
    if (of.empty()) {
      for (Target& t : targets) named.push_back(&t);
    }
    for (const TableName& t : of) {
      Target* found = nullptr;
      for (Target& target : targets) {
        const bool schema_ok =
            t.schema.empty() || (!target.aliased && EqualsNoCase(t.schema, *target.schema));
        if (schema_ok && EqualsNoCase(t.name, *target.as_named)) found = &target;
      }
      if (found == nullptr) {
        return SqlErr(kErUnresolvedTableLock, "Unresolved table name `", t.name,
                      "` in locking clause.");
      }
      named.push_back(found);
    }
    for (Target* t : named) {
      if (t->locked) {
        return SqlErr(kErDuplicateTableLock, "Table ", *t->as_named,
                      " appears in multiple locking clauses.");
      }
      t->locked = true;
      *t->lock = strength;
      *t->action = action;
    }
  }
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

// After GROUP_CONCAT( [DISTINCT]: e, ... [ORDER BY e [ASC | DESC], ...] [SEPARATOR 'sep'] ) up
// to and with the ")".
SqlStatus Parser::ParseGroupConcatArgs(Expr* fn) {
  for (;;) {
    SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
    fn->args.push_back(std::move(e));
    if (!AcceptOp(",")) break;
  }
  if (AcceptKw("ORDER")) {
    SQL_RETURN_IF_ERROR(ExpectKw("BY"));
    std::vector<OrderItem> order;
    SQL_RETURN_IF_ERROR(ParseOrderBy(&order));
    for (OrderItem& o : order) {
      fn->order_by.push_back(std::move(o.expr));
      fn->order_desc.push_back(o.desc);
    }
  }
  if (AcceptKw("SEPARATOR")) {
    if (Cur().kind != TokenKind::kString) return SyntaxError();
    fn->separator = Cur().text;
    Skip();
  }
  return ExpectOp(")");
}

// INSERT [LOW_PRIORITY | HIGH_PRIORITY | DELAYED] [IGNORE] [INTO] t [(cols)]
//   {VALUES | VALUE} (...), ... | SELECT ... | SET a = 1, ...      (and REPLACE [INTO] ...)
SqlResult<Statement> Parser::ParseInsert() {
  InsertStmt ins;
  ins.replace = IsKw("REPLACE");
  Skip();
  if (AcceptKw("LOW_PRIORITY")) {
    ins.priority = WritePriority::kLow;
  } else if (AcceptKw("HIGH_PRIORITY")) {
    ins.priority = WritePriority::kHigh;
  } else {
    AcceptKw("DELAYED");
  }
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
      if (!AcceptOp(")")) {
        for (;;) {
          SQL_RETURN_IF_ERROR(ParseInsertValue(&ins.rows));
          if (AcceptOp(")")) break;
          SQL_RETURN_IF_ERROR(ExpectOp(","));
        }
      }
      ins.rows.EndRow();
      DropUsedTokens();  // a row's tokens are not needed again
      if (!AcceptOp(",")) break;
    }
  } else if (IsKw("SELECT") || (IsOp("(") && IsKw("SELECT", 1))) {
    SQL_ASSIGN_OR_RETURN(SelectStmt sel, ParseQuery());
    ins.select = std::make_unique<SelectStmt>(std::move(sel));
  } else if (ins.columns.empty() && AcceptKw("SET")) {
    for (;;) {
      SQL_ASSIGN_OR_RETURN(std::string col, Ident());
      if (!AcceptOp("=") && !AcceptOp(":=")) return SyntaxError();
      ins.columns.push_back(std::move(col));
      if (AcceptKw("DEFAULT")) {
        ins.rows.AddDefault();
      } else {
        SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
        ins.rows.AddExpr(std::move(e));
      }
      if (!AcceptOp(",")) break;
    }
    ins.rows.EndRow();
  } else {
    return SyntaxError();
  }
  if (!ins.rows.empty() && AcceptKw("AS")) {
    // MySQL 8.0.19's row alias (VALUES and SET forms; not after a SELECT).
    SQL_ASSIGN_OR_RETURN(ins.row_alias, Ident());
    if (AcceptOp("(")) {
      for (;;) {
        SQL_ASSIGN_OR_RETURN(std::string alias, Ident());
        ins.column_aliases.push_back(std::move(alias));
        if (AcceptOp(")")) break;
        SQL_RETURN_IF_ERROR(ExpectOp(","));
      }
    }
  }
  if (!ins.replace && IsKw("ON") && IsKw("DUPLICATE", 1)) {
    Skip();
    Skip();
    if (!AcceptKw("KEY")) return SyntaxError();
    if (!AcceptKw("UPDATE")) return SyntaxError();
    for (;;) {
      Assignment a;
      SQL_ASSIGN_OR_RETURN(a.column, Ident());
      if (AcceptOp(".")) {  // t.col
        SQL_ASSIGN_OR_RETURN(a.column, Ident());
      }
      if (!AcceptOp("=") && !AcceptOp(":=")) return SyntaxError();
      if (!AcceptKw("DEFAULT")) {
        SQL_ASSIGN_OR_RETURN(a.value, ParseExpr());
      }
      ins.on_duplicate.push_back(std::move(a));
      if (!AcceptOp(",")) break;
    }
  }
  return Statement(std::move(ins));
}

SqlStatus Parser::ParseInsertValue(InsertValues* out) {
  if (AcceptKw("DEFAULT")) {
    out->AddDefault();
  } else if (!AcceptPlainLiteral(out)) {
    SQL_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
    out->AddExpr(std::move(e));
  }
  return SqlStatus::OK();
}

bool Parser::AcceptPlainLiteral(InsertValues* out) {
  const size_t sign = IsOp("-") || IsOp("+") ? 1 : 0;
  if (!IsOp(",", sign + 1) && !IsOp(")", sign + 1)) return false;
  const bool negative = sign == 1 && IsOp("-");
  const Token& t = Peek(sign);
  switch (t.kind) {
    case TokenKind::kInteger:  // -<integer> as ParseUnary folds it (and as DEFAULT -1 reads)
      out->AddLiteral(IntegerLiteral(t.text, negative));
      break;
    case TokenKind::kDecimal: {
      const Value v = DecimalLiteral(t.text, negative);
      if (v.is_double() && !std::isfinite(v.as_double())) return false;  // ParseExpr's 1064
      out->AddLiteral(v);
      break;
    }
    case TokenKind::kString:
      if (sign != 0) return false;  // -'1' is an expression
      out->AddLiteral(Value::String(t.text));
      break;
    case TokenKind::kHexString:
      if (sign != 0) return false;
      out->AddHexLiteral(t.text);
      break;
    case TokenKind::kIdent:
      if (sign != 0) return false;
      if (EqualsNoCase(t.text, "NULL")) {
        out->AddLiteral(Value::Null());
      } else if (EqualsNoCase(t.text, "TRUE") || EqualsNoCase(t.text, "FALSE")) {
        out->AddLiteral(Value::Int(EqualsNoCase(t.text, "TRUE") ? 1 : 0));
      } else {
        return false;
      }
      break;
    default:
      return false;
  }
  for (size_t i = 0; i <= sign; ++i) Skip();
  return true;
}

// UPDATE [LOW_PRIORITY] [IGNORE] t [[AS] alias] SET [[db.]t.]col = e, ... [WHERE e]
//   [ORDER BY ...] [LIMIT n]
// UPDATE [LOW_PRIORITY] [IGNORE] table_references SET [[db.]t.]col = e, ... [WHERE e] (multi-table:
// the references as after SELECT's FROM; ORDER BY and LIMIT are 1221, as MySQL's).
SqlResult<Statement> Parser::ParseUpdate() {
  UpdateStmt up;
  Skip();
  if (AcceptKw("LOW_PRIORITY")) up.priority = WritePriority::kLow;
  if (AcceptKw("IGNORE")) up.ignore = true;
  if (IsKw("DUAL")) return SyntaxError();
  SelectStmt refs;
  SQL_RETURN_IF_ERROR(ParseSelectFrom(&refs));
  up.table = std::move(*refs.from);
  up.alias = std::move(refs.from_alias);
  up.from_derived = std::move(refs.from_derived);
  up.joins = std::move(refs.joins);
  SQL_RETURN_IF_ERROR(ExpectKw("SET"));
  for (;;) {
    Assignment a;
    SQL_ASSIGN_OR_RETURN(a.column, Ident());
    if (AcceptOp(".")) {  // t.col
      a.table = std::move(a.column);
      SQL_ASSIGN_OR_RETURN(a.column, Ident());
      if (AcceptOp(".")) {  // db.t.col
        a.schema = std::move(a.table);
        a.table = std::move(a.column);
        SQL_ASSIGN_OR_RETURN(a.column, Ident());
      }
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
    SQL_ASSIGN_OR_RETURN(uint64_t n, CountOrPlaceholder(&up.limit_param));
    up.limit = n;
  }
  if (up.multi_table() && !up.order_by.empty())
    return SqlErr(kErWrongUsage, "Incorrect usage of UPDATE and ORDER BY");
  if (up.multi_table() && up.limit.has_value())
    return SqlErr(kErWrongUsage, "Incorrect usage of UPDATE and LIMIT");
  if (up.from_derived.has_value() && !up.multi_table()) {  // only a derived table to update
    return SqlErr(kErNonUpdatableTable, "The target table ", up.alias,
                  " of the UPDATE is not updatable");
  }
  return Statement(std::move(up));
}

// The tables a multi-table DELETE names: t, db.t, t.*, db.t.*, ... (*wildcard: one had .*).
SqlStatus Parser::ParseDeleteTargets(std::vector<TableName>* targets, bool* wildcard) {
  for (;;) {
    TableName t;
    SQL_ASSIGN_OR_RETURN(t.name, Ident());
    if (AcceptOp(".")) {
      if (AcceptOp("*")) {
        *wildcard = true;
      } else {
        t.schema = std::move(t.name);
        SQL_ASSIGN_OR_RETURN(t.name, Ident());
        if (AcceptOp(".")) {
          SQL_RETURN_IF_ERROR(ExpectOp("*"));
          *wildcard = true;
        }
      }
    }
    targets->push_back(std::move(t));
    if (!AcceptOp(",")) return SqlStatus::OK();
  }
}

// DELETE [LOW_PRIORITY] [QUICK] [IGNORE] FROM t [[AS] alias] [WHERE e] [ORDER BY ...] [LIMIT n]
// DELETE [LOW_PRIORITY] [QUICK] [IGNORE] t1[.*], ... FROM table_references [WHERE e]
// DELETE [LOW_PRIORITY] [QUICK] [IGNORE] FROM t1[.*], ... USING table_references [WHERE e]
SqlResult<Statement> Parser::ParseDelete() {
  DeleteStmt del;
  Skip();
  if (AcceptKw("LOW_PRIORITY")) del.priority = WritePriority::kLow;
  AcceptKw("QUICK");
  if (AcceptKw("IGNORE")) del.ignore = true;
  bool wildcard = false;
  if (!AcceptKw("FROM")) {
    SQL_RETURN_IF_ERROR(ParseDeleteTargets(&del.targets, &wildcard));
    SQL_RETURN_IF_ERROR(ExpectKw("FROM"));
    del.multi_table = true;
  } else {
    SQL_RETURN_IF_ERROR(ParseDeleteTargets(&del.targets, &wildcard));
    if (!AcceptKw("USING")) {
      if (wildcard || del.targets.size() != 1) return SyntaxError();
      del.table = std::move(del.targets[0]);
      del.targets.clear();
      if (del.table.schema.empty()) {
        SQL_ASSIGN_OR_RETURN(del.table.schema, CurrentDatabase());
      }
    } else {
      del.multi_table = true;
    }
  }
  if (del.multi_table) {
    if (IsKw("DUAL")) return SyntaxError();
    SelectStmt refs;
    SQL_RETURN_IF_ERROR(ParseSelectFrom(&refs));
    del.table = std::move(*refs.from);
    del.alias = std::move(refs.from_alias);
    del.from_derived = std::move(refs.from_derived);
    del.joins = std::move(refs.joins);
    if (AcceptKw("WHERE")) {
      SQL_ASSIGN_OR_RETURN(del.where, ParseExpr());
    }
    return Statement(std::move(del));  // ORDER BY and LIMIT: a syntax error, as MySQL's
  }
  if (IsOp(",") || IsKw("JOIN")) return SyntaxError();
  SQL_RETURN_IF_ERROR(ParseTableAlias(&del.alias));  // MySQL 8.0.16's single-table alias
  if (IsOp(",") || IsKw("JOIN")) return SyntaxError();
  if (AcceptKw("WHERE")) {
    SQL_ASSIGN_OR_RETURN(del.where, ParseExpr());
  }
  if (AcceptKw("ORDER")) {
    SQL_RETURN_IF_ERROR(ExpectKw("BY"));
    SQL_RETURN_IF_ERROR(ParseOrderBy(&del.order_by));
  }
  if (AcceptKw("LIMIT")) {
    SQL_ASSIGN_OR_RETURN(uint64_t n, CountOrPlaceholder(&del.limit_param));
    del.limit = n;
  }
  return Statement(std::move(del));
}

}  // namespace minnow::sql
