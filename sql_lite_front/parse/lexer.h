#pragma once
// The SQL lexer: statement text -> tokens, as MySQL 8 reads it in its default sql_mode.
//
//   identifiers   letters, digits, '_', '$' and bytes >= 0x80, not all digits; `back quoted`
//                 (`` doubles a backquote). Keywords are identifiers: the parser matches them
//                 case-insensitively.
//   strings       '...' and "..." (with ANSI_QUOTES, "..." is an identifier as `...`), with
//                 '' / "" doubling and the escapes
//                 \0 \b \n \r \t \Z \\ \' \"; "\%" and "\_" stay two bytes (LIKE needs them),
//                 any other "\x" is x. X'hex' and 0xhex are strings of bytes.
//   numbers       123 (kInteger), 1.5 .5 1e3 1.5E-2 (kDecimal)
//   @@variables   @@name, @@global.name, @@session.name, @@local.name: one token
//   operators     = <=> <> != < <= > >= + - * / % ( ) , . ; ! || && := ~ & | ^ << >> @ ?
//   comments      "-- " to end of line, '#' to end of line, /* ... */; the executable comments
//                 /*! ... */ and /*!NNNNN ... */ (five or six digits, NNNNN <= kServerVersionId,
//                 version.h) are read as SQL (their markers are skipped); /*!NNNNN ... */ of a
//                 newer version is a comment, as is MariaDB's /*M!NNNNNN ... */, as MySQL reads
//                 them.
//
// Each token keeps its byte range in the input (for error messages and Expr::text) and its
// line. A bad input (an unterminated string or comment, a stray byte) ends the tokens with a
// kError token at the offending position; the parser reports it as MySQL's 1064.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace minnow::sql {

enum class TokenKind : uint8_t {
  kIdent,        // a bare word; text = as written
  kQuotedIdent,  // `name`; text = the name without quotes
  kString,       // text = the decoded bytes
  kInteger,      // text = the digits
  kDecimal,      // text = as written ("1.5", "1e3")
  kHexString,    // X'..' or 0x..: text = the decoded bytes
  kSysVar,       // @@[scope.]name: text = as written after "@@" ("global.x")
  kOperator,     // text = the operator
  kError,        // the lexer could not go on here
  kEnd,          // the end of the input
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  uint32_t begin = 0, end = 0;  // byte range in the input
  uint32_t line = 1;            // 1-based line of `begin`
};

// The tokens of `sql`, ending with one kEnd token (after a kError token if the input is bad).
// `ansi_quotes`: sql_mode ANSI_QUOTES ("x" is the identifier x). REQUIRES: sql.size() < 4 GiB.
std::vector<Token> Tokenize(std::string_view sql, bool ansi_quotes = false);

// Tokenize's tokens one at a time, so that a reader need not hold them all (a multi-row INSERT
// of 64 MiB has tens of millions). REQUIRES: `sql` outlives the stream; sql.size() < 4 GiB.
class TokenStream {
 public:
  TokenStream(std::string_view sql, bool ansi_quotes);
  ~TokenStream();
  TokenStream(TokenStream&&) noexcept;
  TokenStream& operator=(TokenStream&&) noexcept;

  // The next token: Tokenize's sequence, then kEnd again for every further call.
  Token Next();

 private:
  class Lexer;
  std::unique_ptr<Lexer> lexer_;
};

// ASCII case-insensitive equality (keywords; `b` is upper case by convention).
bool EqualsNoCase(std::string_view a, std::string_view b);
std::string ToUpperAscii(std::string_view s);
std::string ToLowerAscii(std::string_view s);
// `name` as MySQL prints an identifier: back quoted, a backquote in it doubled (`a``b`). The
// inverse of reading a `quoted` identifier.
std::string QuoteIdentifier(std::string_view name);
// `s` as a single-quoted SQL string literal: a quote doubled, a backslash escaped ('it''s').
std::string QuoteStringLiteral(std::string_view s);

}  // namespace minnow::sql
