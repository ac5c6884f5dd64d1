#pragma once
// Prepared statements (COM_STMT_PREPARE / EXECUTE / SEND_LONG_DATA / RESET / CLOSE).
//
// COM_STMT_PREPARE has the SQL front parse the statement once, '?' placeholders and all
// (SqlSession::Prepare; a syntax error shows there, as in MySQL). Each COM_STMT_EXECUTE
// decodes the binary parameters into values and the front binds them into the parsed tree and
// runs it (SqlSession::ExecutePrepared): nothing is substituted into text or parsed again.
// The values, by the type the client sends:
//   integers   signed, or unsigned when the client flags the type unsigned
//   doubles    a DOUBLE (a FLOAT widened); NaN and infinities are refused (1210)
//   decimals   the number the text would be as a literal (an integer without a point, else a
//              DECIMAL), after checking it is [-+]digits[.digits] (1210)
//   strings, blobs and long data   the bytes, as a string literal's
//   dates      'YYYY-MM-DD[ hh:mm:ss[.ffffff]]', times '[-]hhh:mm:ss[.ffffff]', as strings
//   NULL       NULL
// Parameter types are remembered per statement: an EXECUTE that does not rebind them reuses
// the last ones (as MySQL clients expect).
//
// KILL and the account statements, which minnowd runs itself (admin_statement.h), are kept as
// their text and run as such at each EXECUTE.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {
class PreparedParse;
}

namespace minnow::server {

// Offsets of the '?' placeholders in `sql` (outside strings, quoted names and comments;
// inside /*! */ they count): an admin statement's, which the SQL front does not parse.
std::vector<size_t> FindPlaceholders(std::string_view sql);

// `name` as a backquoted identifier (a ` inside doubled).
std::string QuoteIdent(std::string_view name);

struct PreparedStatement {
  std::string sql;
  size_t param_count = 0;
  // The parsed statement; null for an admin statement (run as `sql`).
  std::shared_ptr<sql::PreparedParse> parsed;
  std::vector<uint16_t> param_types;          // (type | unsigned flag << 8) per parameter
  std::map<uint16_t, std::string> long_data;  // SEND_LONG_DATA pieces, by parameter
  std::vector<sql::Value> values;             // the last EXECUTE's (a buffer reused)
};

// The statement id at the start of a COM_STMT_EXECUTE/CLOSE/RESET/SEND_LONG_DATA body.
std::optional<uint32_t> StatementIdOf(std::string_view body);

// The parameters of one COM_STMT_EXECUTE `body` (after the command byte) into stmt->values,
// one per placeholder: decodes the NULL bitmap, the parameter types (remembered in *stmt when the
// client sends new ones) and the values; takes the long data sent since the last execution.
// Errors: a truncated or malformed packet (1835), parameters never typed (1210), a value that
// is no number of its type (1210).
sql::SqlStatus BindExecute(std::string_view body, PreparedStatement* stmt);

}  // namespace minnow::server
