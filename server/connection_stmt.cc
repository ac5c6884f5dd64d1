// Connection (connection.h): prepared statements (prepared_statement.h says how they run).

#include <fmt/format.h>

#include "server/admin_statement.h"
#include "server/connection.h"
#include "server/wire.h"
#include "sql_lite_front/parse/prepared_parse.h"

namespace minnow::server {
namespace {

constexpr uint16_t kErUnknownStmtHandler = 1243;  // HY000
constexpr uint16_t kErMalformedPacket = 1835;     // HY000
constexpr uint16_t kErPsManyParam = 1390;         // HY000

}  // namespace

// The columns a SELECT returns and their types, for PREPARE's reply (clients such as
// libmariadb read results only for statements that PREPARE said have some): described by the
// SQL front with every placeholder 0 (a value that fits wherever one may stand, LIMIT too),
// never run, so PREPARE takes no lock, begins no transaction and counts in no Com_select or
// Questions. A statement the front cannot bind (an unknown table, which EXECUTE then
// reports) gets no columns.
sql::StatementResult Connection::DescribeColumns(const PreparedStatement& stmt) {
  if (stmt.parsed == nullptr) return {};
  auto r = session_->DescribePrepared(stmt.parsed.get());
  if (!r.ok() || !r->has_result_set) return {};
  return std::move(r).value();
}

void Connection::StmtPrepare(std::string_view sql) {
  PreparedStatement stmt;
  stmt.sql = std::string(sql);
  // KILL and the account statements are preparable, as MySQL's, without placeholders (MySQL's
  // grammar takes none there); they run as text at EXECUTE. The rest the SQL front parses now.
  const size_t admin_placeholders = FindPlaceholders(sql).size();
  if (admin_placeholders > 0 || !ParseAdminStatement(sql).has_value()) {
    auto parsed = session_->Prepare(sql);
    if (!parsed.ok()) {
      AppendError(parsed.error());
      return;
    }
    stmt.parsed = std::move(parsed).value();
    stmt.param_count = stmt.parsed->param_count();
  }
  if (stmt.param_count > 0xffff) {
    AppendError(kErPsManyParam, "HY000", "Prepared statement contains too many placeholders");
    return;
  }
  const uint32_t id = next_statement_id_++;
  const auto params = static_cast<uint16_t>(stmt.param_count);
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
  PreparedStatement& stmt = it->second;
  const sql::SqlStatus bound = BindExecute(body, &stmt);
  if (!bound.ok()) {
    AppendError(bound.error());
    return;
  }
  if (stmt.parsed == nullptr) {  // an admin statement (PREPARE found it one)
    bool handled = false;
    (void)RunAdmin(stmt.sql, false, &handled);
    return;
  }
  auto r = session_->ExecutePrepared(stmt.sql, stmt.parsed.get(), stmt.values);
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
  if (it == statements_.end() || *param >= it->second.param_count) return;
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
