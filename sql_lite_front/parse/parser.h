#pragma once
// The SQL parser: hand-written recursive descent over lexer.h's tokens, for the MySQL-flavoured
// subset the design brief's section 3 lists. No input makes it crash, loop or leak (a libFuzzer
// target, tests/fuzz/parser_fuzz.cc, runs in CI).

#include <string>
#include <string_view>

#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/sql_error.h"

namespace minnow::sql {

// Parses one statement; a trailing ';' and surrounding whitespace/comments are allowed.
// Errors as MySQL words them:
//   1064 "You have an error in your SQL syntax; check the manual that corresponds to your
//        minnow version for the right syntax to use near 'FROM x' at line 1"
//        ("near ''" at the end of the input; the quoted text is the rest of the statement
//        from the offending token, cut at 80 bytes, as MySQL does);
//   1065 "Query was empty" for nothing but whitespace and comments.
// The sql_mode words that change how text is read:
struct ParseOptions {
  bool ansi_quotes = false;      // ANSI_QUOTES: "x" is an identifier, not a string
  bool pipes_as_concat = false;  // PIPES_AS_CONCAT: a || b is concat(a, b), not a OR b
  // The session's current database: a table name without one is in it; empty: none is
  // selected, and such a name is 1046 "No database selected".
  std::string database = kDefaultDatabase;
  // '?' is a placeholder where a value or a LIMIT/OFFSET count may stand (a prepared
  // statement's, parse/prepared_parse.h); otherwise it is a syntax error, as in MySQL's text
  // protocol.
  bool placeholders = false;
  // NO_ZERO_IN_DATE / NO_ZERO_DATE: a DATE '...' or TIMESTAMP '...' literal with a zero part /
  // the zero date is error 1525 (parse/temporal_literal.h).
  bool no_zero_in_date = false;
  bool no_zero_date = false;
};
SqlResult<Statement> Parse(std::string_view sql, const ParseOptions& options = {});

// Splits a stream of text into statements, as the mysql client does: a statement ends at ';'
// or "\G" outside quotes ('...', "...", `...`) and comments (-- , #, /* */). Feed text in
// any chunks; Next returns complete statements in order.
class StatementSplitter {
 public:
  enum class Terminator : uint8_t { kSemicolon, kVertical };  // ';' or '\G'
  void Feed(std::string_view text);
  // The next complete statement without its terminator (trimmed); false if none is complete.
  bool Next(std::string* statement, Terminator* terminator);
  // Text fed but not yet part of a complete statement (trimmed), e.g. at end of input.
  std::string Pending() const;
  bool empty() const;  // nothing pending but whitespace/comments
  void Clear();

 private:
  std::string buffer_;
  size_t scanned_ = 0;  // bytes of buffer_ already known not to end a statement
  // Lexical state at scanned_ (so Feed resumes mid-quote or mid-comment).
  char quote_ = 0;
  bool line_comment_ = false, block_comment_ = false;
};

}  // namespace minnow::sql
