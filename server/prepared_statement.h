#pragma once
// Prepared statements (COM_STMT_PREPARE / EXECUTE / SEND_LONG_DATA / RESET / CLOSE).
//
// The SQL front has no placeholders, so minnowd keeps a prepared statement as its text with
// the byte offsets of its '?' placeholders (outside strings, quoted names and comments), and
// each COM_STMT_EXECUTE substitutes the bound values as SQL literals and runs the result as a
// text statement:
//   integers   in decimal (unsigned when the client flags the type unsigned)
//   doubles    with 17 significant digits (exact) and an exponent, so the front reads a DOUBLE
//              (1.5e0; 1.5 would be a DECIMAL); NaN and infinities are refused (1210)
//   decimals   as sent (a DECIMAL literal), after checking they are [-+]digits[.digits] (1210)
//   strings    '...' with \ ' " NUL, newline, CR and ^Z backslash-escaped (the lexer reads them
//              back byte for byte), so a bound value can never end the literal
//   dates      'YYYY-MM-DD[ hh:mm:ss[.ffffff]]', times '[-]hhh:mm:ss[.ffffff]'
//   NULL       NULL
// PREPARE has the SQL front describe a SELECT's result columns without running it
// (SqlSession::Describe); the text is parsed again at each execution, where a syntax error
// shows.
// Parameter types are remembered per statement: an EXECUTE that does not rebind them reuses
// the last ones (as MySQL clients expect).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql_lite_front/sql_error.h"

namespace minnow::server {

// Offsets of the '?' placeholders in `sql`.
std::vector<size_t> FindPlaceholders(std::string_view sql);

// `s` as a quoted, escaped SQL string literal.
std::string QuoteStringLiteral(std::string_view s);
// `name` as a backquoted identifier (a ` inside doubled).
std::string QuoteIdent(std::string_view name);

struct PreparedStatement {
  std::string sql;
  std::vector<size_t> placeholders;
  std::vector<uint16_t> param_types;          // (type | unsigned flag << 8) per parameter
  std::map<uint16_t, std::string> long_data;  // SEND_LONG_DATA pieces, by parameter
};

// The statement id at the start of a COM_STMT_EXECUTE/CLOSE/RESET/SEND_LONG_DATA body.
std::optional<uint32_t> StatementIdOf(std::string_view body);

// The SQL text for one COM_STMT_EXECUTE `body` (after the command byte): decodes the NULL
// bitmap, the parameter types (remembered in *stmt when the client sends new ones) and the
// values, and substitutes them. Errors: a truncated or malformed packet (1835), parameters
// never typed (1210), a value that has no literal (1210).
sql::SqlResult<std::string> BindExecute(std::string_view body, PreparedStatement* stmt);

}  // namespace minnow::server
