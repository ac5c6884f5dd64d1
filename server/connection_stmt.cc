// Connection (connection.h): prepared statements (prepared_statement.h says how they run).

#include <fmt/format.h>

#include "server/connection.h"
#include "server/wire.h"

namespace minnow::server {
namespace {

constexpr uint16_t kErUnknownStmtHandler = 1243;  // HY000
constexpr uint16_t kErMalformedPacket = 1835;     // HY000
constexpr uint16_t kErPsManyParam = 1390;         // HY000

}  // namespace

// The columns a SELECT returns and their types, for PREPARE's reply (clients such as
// libmariadb read results only for statements that PREPARE said have some): described by the
// SQL front with every placeholder 0 (a literal that fits wherever a value may stand, LIMIT
// too), never run, so PREPARE takes no lock, begins no
// transaction and counts in no Com_select or Questions. A statement the front cannot describe
// (a syntax or bind error, which EXECUTE then reports) gets no columns.
sql::StatementResult Connection::DescribeColumns(const PreparedStatement& stmt) {
  std::string sql;
  size_t from = 0;
  for (size_t p : stmt.placeholders) {
    sql.append(stmt.sql, from, p - from);
    sql += "0";
    from = p + 1;
  }
  sql.append(stmt.sql, from, std::string::npos);
  auto r = session_->Describe(sql);
  if (!r.ok() || !r->has_result_set) return {};
  return std::move(r).value();
}

void Connection::StmtPrepare(std::string_view sql) {
  PreparedStatement stmt;
  stmt.sql = std::string(sql);
  stmt.placeholders = FindPlaceholders(sql);
  if (stmt.placeholders.size() > 0xffff) {
    AppendError(kErPsManyParam, "HY000", "Prepared statement contains too many placeholders");
    return;
  }
  const uint32_t id = next_statement_id_++;
  const auto params = static_cast<uint16_t>(stmt.placeholders.size());
  const sql::StatementResult described = DescribeColumns(stmt);
  WireWriter ok;
  ok.Int1(0);
  ok.Int4(id);
  ok.Int2(static_cast<uint16_t>(std::min<size_t>(described.columns.size(), 0xffff)));
  ok.Int2(params);
  ok.Int1(0);
  ok.Int2(0);
  Append(ok.data());
  if (params > 0) {
    for (uint16_t i = 0; i < params; ++i) Append(BuildColumnDef(ColumnDef{.name = "?"}));
    if (!deprecate_eof()) Append(BuildEof(0, StatusFlags()));
  }
  if (!described.columns.empty()) {
    AppendColumnDefs(described);
    if (!deprecate_eof()) Append(BuildEof(0, StatusFlags()));
  }
  statements_.emplace(id, std::move(stmt));
}

void Connection::StmtExecute(std::string_view body) {
  const std::optional<uint32_t> id = StatementIdOf(body);
  if (!id) {
    AppendError(kErMalformedPacket, "HY000", "Malformed communication packet.");
    return;
  }
  auto it = statements_.find(*id);
  if (it == statements_.end()) {
    AppendError(kErUnknownStmtHandler, "HY000",
                fmt::format("Unknown prepared statement handler ({}) given to "
                            "mysqld_stmt_execute",
                            *id));
    return;
  }
  auto sql = BindExecute(body, &it->second);
  if (!sql.ok()) {
    AppendError(sql.error());
    return;
  }
  // KILL and the account statements are preparable, as MySQL's, without placeholders (MySQL's
  // grammar takes none there; with some the SQL front refuses the text, 1064).
  if (it->second.placeholders.empty()) {
    bool handled = false;
    (void)RunAdmin(*sql, false, &handled);
    if (handled) return;
  }
  auto r = session_->Execute(*sql);
  if (!r.ok()) {
    AppendError(r.error());
    return;
  }
  if (r->has_result_set) {
    AppendResultSet(*r, StatusFlags(), /*binary=*/true);
  } else {
    AppendOk(*r, StatusFlags());
  }
}

void Connection::StmtSendLongData(std::string_view body) {
  // No reply, as MySQL: an error shows at the next EXECUTE.
  WireReader r(body);
  auto id = r.Int4();
  auto param = r.Int2();
  if (!id || !param) return;
  auto it = statements_.find(*id);
  if (it == statements_.end() || *param >= it->second.placeholders.size()) return;
  it->second.long_data[*param].append(r.Rest());
}

void Connection::StmtReset(std::string_view body) {
  const std::optional<uint32_t> id = StatementIdOf(body);
  auto it = id ? statements_.find(*id) : statements_.end();
  if (it == statements_.end()) {
    AppendError(kErUnknownStmtHandler, "HY000",
                fmt::format("Unknown prepared statement handler ({}) given to "
                            "mysqld_stmt_reset",
                            id.value_or(0)));
    return;
  }
  it->second.long_data.clear();
  Append(BuildOk(OkInfo{.status = StatusFlags()}));
}

void Connection::StmtClose(std::string_view body) {
  // No reply, as MySQL.
  if (const std::optional<uint32_t> id = StatementIdOf(body)) statements_.erase(*id);
}

}  // namespace minnow::server
