#pragma once
// A statement with '?' placeholders, parsed once (minnowd's COM_STMT_PREPARE) and run many
// times with values bound into the parsed tree: no text is substituted, lexed or parsed again.
//
// A placeholder is a literal node (Expr::param, its 0-based position in the text) wherever an
// expression may stand, an INSERT value included, or a LIMIT / OFFSET count
// (SelectStmt::limit_param ...). Bind writes each value into its node or count; the executor
// reads the node as the literal it now holds, so a bound statement binds, plans and runs as
// the same statement with literals written in. Planning happens at each execution (the
// catalog is read afresh, so a DDL between executions is seen, as MySQL re-prepares).
//
// Thread safety: none; one session uses it, one execution at a time.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/parse/parser.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

class PreparedParse {
 public:
  // Parses `sql` with placeholders allowed (options.placeholders is set here). Errors: Parse's
  // (1064 for a '?' where no value may stand), and 1235 for a LIMIT ? inside an expression's
  // subquery (the counts are found in the statement's own query blocks only).
  static SqlResult<std::unique_ptr<PreparedParse>> Parse(std::string_view sql,
                                                         ParseOptions options);

  const Statement& statement() const { return *statement_; }
  size_t param_count() const { return exprs_.size(); }

  // Sets placeholder i to values[i]. A LIMIT / OFFSET count takes a non-negative integer, and
  // there must be param_count() values (1210 "Incorrect arguments to mysqld_stmt_execute"
  // otherwise, as MySQL).
  SqlStatus Bind(std::span<const Value> values);

  // A DECIMAL parameter sent as text ([-+]digits[.digits]) as the lexer would read it written
  // as a literal: an integer without a point, else a DECIMAL (a double beyond 65 digits);
  // nullopt for other text.
  static std::optional<Value> NumberFromText(std::string_view text);

 private:
  struct Count {
    size_t param;
    std::optional<uint64_t>* limit;  // or
    uint64_t* offset;
  };
  PreparedParse() = default;

  std::unique_ptr<Statement> statement_;
  std::vector<Expr*> exprs_;  // by position; null for a count
  std::vector<Count> counts_;
};

}  // namespace minnow::sql
