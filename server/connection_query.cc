// Connection (connection.h): COM_QUERY, its statements (one, or several under
// CLIENT_MULTI_STATEMENTS) and their responses in the text protocol.

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "server/admin_statement.h"
#include "server/connection.h"
#include "server/server.h"
#include "server/wire.h"
#include "sql_lite_front/parse/parser.h"

namespace minnow::server {

void Connection::Query(std::string_view sql) {
  if ((capabilities_ & kClientMultiStatements) == 0) {
    (void)RunStatement(sql, false);
    return;
  }
  // Several statements: each gets its response, all but the last flagged "more results";
  // the first error ends the batch (as MySQL does).
  sql::StatementSplitter splitter;
  splitter.Feed(sql);
  std::vector<std::string> statements;
  std::string statement;
  sql::StatementSplitter::Terminator terminator;
  while (splitter.Next(&statement, &terminator)) statements.push_back(statement);
  if (!splitter.empty() || statements.empty()) statements.push_back(splitter.Pending());
  for (size_t i = 0; i < statements.size(); ++i) {
    if (!RunStatement(statements[i], i + 1 < statements.size())) return;
  }
}

bool Connection::RunStatement(std::string_view sql, bool more_follow) {
  bool handled = false;
  const bool ok = RunAdmin(sql, more_follow, &handled);
  if (handled) return ok;
  const uint32_t report_every_s = progress_reports_ ? session_->progress_report_time_s() : 0;
  if (report_every_s != 0) {
    progress_interval_ = std::chrono::seconds(report_every_s);
    reported_stage_ = 0;  // none yet
    session_->set_stage_listener(this);
  }
  auto r = session_->Execute(sql);
  session_->set_stage_listener(nullptr);
  if (!r.ok()) {
    AppendError(r.error());
    return false;
  }
  uint16_t status = StatusFlags();
  if (more_follow) status |= kStatusMoreResultsExist;
  if (r->has_result_set) {
    AppendResultSet(*r, status);
  } else {
    AppendOk(*r, status);
  }
  return true;
}

bool Connection::RunAdmin(std::string_view sql, bool more_follow, bool* handled) {
  std::optional<sql::SqlResult<AdminStatement>> parsed = ParseAdminStatement(sql);
  *handled = parsed.has_value();
  if (!parsed) return true;
  if (!parsed->ok()) {
    const sql::SqlError& e = parsed->error();
    return AdminError(e.code, e.sqlstate(), e.message);
  }
  const AdminStatement& a = parsed->value();
  if (a.kind == AdminStatement::Kind::kKillConnection ||
      a.kind == AdminStatement::Kind::kKillQuery) {
    if (!server_->registry().Kill(a.thread_id, a.kind == AdminStatement::Kind::kKillQuery)) {
      return AdminError(1094, "HY000", fmt::format("Unknown thread id: {}", a.thread_id));
    }
    uint16_t status = StatusFlags();
    if (more_follow) status |= kStatusMoreResultsExist;
    Append(BuildOk(OkInfo{.status = status}));
    session_->SetDiagnostics({});
    return true;
  }
  // An account statement first commits the open transaction, as MySQL's implicit commit.
  if (session_->in_transaction()) {
    const sql::SqlStatus st = session_->CommitImplicitly();
    if (!st.ok()) return AdminError(st.error().code, st.error().sqlstate(), st.error().message);
  }
  std::vector<AccountChange> changes;
  for (const AdminStatement::Account& acc : a.accounts) {
    AccountChange c{acc.user, acc.host, NativePasswordHash(acc.password)};
    if (a.kind == AdminStatement::Kind::kDropUser) c.hash.reset();
    if (a.own_account) {
      c.user = user_;
      c.host = account_host_;
    }
    changes.push_back(std::move(c));
  }
  const std::vector<AccountChange> named = changes;  // Apply takes them
  const bool must_exist = a.kind != AdminStatement::Kind::kCreateUser;
  std::vector<size_t> unmet;
  const Status st = server_->users().Apply(std::move(changes), must_exist, a.if_exists, &unmet);
  if (!st.ok() && !st.IsNotFound() && st.code() != Code::kDuplicateKey) {
    const sql::SqlError e = sql::FromStatus(st);  // kReadOnly: 1290
    return AdminError(e.code, e.sqlstate(), e.message);
  }
  auto account = [&](size_t i) { return fmt::format("'{}'@'{}'", named[i].user, named[i].host); };
  if (!st.ok() && a.kind == AdminStatement::Kind::kSetPassword) {
    return AdminError(1133, "42000", "Can't find any matching row in the user table");
  }
  if (!st.ok()) {
    // An account is there (CREATE) or not (ALTER, DROP): 1396 naming every such account.
    std::string names;
    for (size_t i : unmet) names += (names.empty() ? "" : ",") + account(i);
    const char* operation = a.kind == AdminStatement::Kind::kCreateUser  ? "CREATE USER"
                            : a.kind == AdminStatement::Kind::kAlterUser ? "ALTER USER"
                                                                         : "DROP USER";
    return AdminError(1396, "HY000", fmt::format("Operation {} failed for {}", operation, names));
  }
  // IF [NOT] EXISTS: a note per account skipped.
  std::vector<sql::SqlWarning> notes;
  for (size_t i : unmet) {
    if (must_exist) {
      notes.push_back(
          {"Note", 3162, fmt::format("Authorization ID {} does not exist.", account(i))});
    } else {
      notes.push_back(
          {"Note", 3163, fmt::format("Authorization ID {} already exists.", account(i))});
    }
  }
  uint16_t status = StatusFlags();
  if (more_follow) status |= kStatusMoreResultsExist;
  Append(BuildOk(OkInfo{.status = status, .warnings = static_cast<uint16_t>(notes.size())}));
  session_->SetDiagnostics(std::move(notes));
  return true;
}

bool Connection::AdminError(uint16_t code, std::string_view sqlstate, std::string message) {
  AppendError(code, sqlstate, message);
  session_->SetDiagnostics({sql::SqlWarning{"Error", code, std::move(message)}});
  return false;
}

void Connection::AppendOk(const sql::StatementResult& r, uint16_t status) {
  OkInfo ok;
  ok.affected_rows = r.affected_rows;
  ok.last_insert_id = r.last_insert_id;
  ok.status = status;
  ok.warnings = static_cast<uint16_t>(std::min<size_t>(r.warnings.size(), 0xffff));
  ok.info = r.info;
  Append(BuildOk(ok));
}

void Connection::AppendEndOfRows(uint16_t status) {
  if (deprecate_eof()) {
    Append(BuildOk(OkInfo{.status = status}, /*eof_header=*/true));
  } else {
    Append(BuildEof(0, status));
  }
}

namespace {

using ColumnType = sql::StatementResult::ColumnType;

bool IsDateTimeType(ColumnType t) {
  return t == ColumnType::kDate || t == ColumnType::kDateTime || t == ColumnType::kTimestamp;
}

// What each column is sent as: r.column_types, except that a DATE, DATETIME, TIMESTAMP, TIME or
// YEAR column with a value not in its printed form (the SQL front prints every value so) goes as
// text, never as a binary value the client would misread.
std::vector<ColumnType> WireTypes(const sql::StatementResult& r) {
  std::vector<ColumnType> types(r.columns.size(), ColumnType::kText);
  for (size_t i = 0; i < types.size() && i < r.column_types.size(); ++i) {
    types[i] = r.column_types[i];
    if (!IsDateTimeType(types[i]) && types[i] != ColumnType::kYear &&
        types[i] != ColumnType::kTime) {
      continue;
    }
    for (const auto& row : r.rows) {
      if (i >= row.size() || !row[i]) continue;
      const bool readable =
          types[i] == ColumnType::kYear ? row[i]->size() == 4 && std::isdigit(row[i]->front()) != 0
          : types[i] == ColumnType::kTime ? EncodeBinaryTime(*row[i]).has_value()
                                          : EncodeBinaryDateTime(*row[i]).has_value();
      if (!readable) {
        types[i] = ColumnType::kText;
        break;
      }
    }
  }
  return types;
}

// A binary-protocol row: 0x00, the NULL bitmap (offset 2), then each non-NULL value as its
// column's type says: LONGLONG and DOUBLE as 8 bytes, YEAR as 2, DATE, DATETIME and TIMESTAMP
// as their length-prefixed struct (EncodeBinaryDateTime), TIME as its (EncodeBinaryTime), the rest
// (NEWDECIMAL too) as string<lenenc>.
std::string BuildBinaryRow(const std::vector<ColumnType>& types,
                           const std::vector<std::optional<std::string>>& row) {
  WireWriter w;
  w.Int1(0);
  std::string bitmap((row.size() + 7 + 2) / 8, '\0');
  for (size_t i = 0; i < row.size(); ++i) {
    if (!row[i])
      bitmap[(i + 2) / 8] = static_cast<char>(bitmap[(i + 2) / 8] | (1 << ((i + 2) % 8)));
  }
  w.Bytes(bitmap);
  for (size_t i = 0; i < row.size(); ++i) {
    if (!row[i]) continue;
    switch (i < types.size() ? types[i] : ColumnType::kText) {
      case ColumnType::kInt:
        w.Int8(static_cast<uint64_t>(std::strtoll(row[i]->c_str(), nullptr, 10)));
        break;
      case ColumnType::kUInt:
        w.Int8(std::strtoull(row[i]->c_str(), nullptr, 10));
        break;
      case ColumnType::kDouble: {
        const double d = std::strtod(row[i]->c_str(), nullptr);
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        w.Int8(bits);
        break;
      }
      case ColumnType::kYear:
        w.Int2(static_cast<uint16_t>(std::strtoul(row[i]->c_str(), nullptr, 10)));
        break;
      case ColumnType::kDate:
      case ColumnType::kDateTime:
      case ColumnType::kTimestamp:
        w.Bytes(*EncodeBinaryDateTime(*row[i]));  // WireTypes checked it reads
        break;
      case ColumnType::kTime:
        w.Bytes(*EncodeBinaryTime(*row[i]));
        break;
      case ColumnType::kText:
      case ColumnType::kBinary:
      case ColumnType::kDecimal:
        w.LenencString(*row[i]);
        break;
    }
  }
  return w.Take();
}

}  // namespace

void Connection::AppendColumnDefs(const sql::StatementResult& r) {
  // character_set_results = binary: text goes as the bytes stored, labelled binary as MySQL's.
  const std::string results = session_->results_charset();
  const uint8_t text_charset = results == "utf8mb3"  ? kCharsetUtf8mb3
                               : results == "binary" ? kCharsetBinary
                                                     : kCharsetUtf8mb4;
  const std::vector<ColumnType> types = WireTypes(r);
  for (size_t i = 0; i < r.columns.size(); ++i) {
    ColumnDef c;
    c.name = r.columns[i];
    const ColumnType type = types[i];
    const sql::StatementResult::DeclaredColumn* declared =
        i < r.declared_columns.size() && r.declared_columns[i] ? &*r.declared_columns[i] : nullptr;
    uint32_t longest = 0;
    size_t scale = 0;  // DECIMAL, DATETIME, TIMESTAMP, TIME: the most digits after the point
    for (const auto& row : r.rows) {
      if (i >= row.size() || !row[i]) continue;
      longest = std::max<uint32_t>(longest, row[i]->size());
      const size_t point = row[i]->find('.');
      if (point != std::string::npos) scale = std::max(scale, row[i]->size() - point - 1);
    }
    c.length = std::max<uint32_t>(longest, 1) * 4;  // characters of up to 4 bytes (utf8mb4)
    // DATETIME, TIMESTAMP, TIME: a declared column's fsp, so that a result with no rows tells
    // it too.
    const auto fsp =
        static_cast<uint8_t>(std::min<size_t>(declared != nullptr ? declared->fsp : scale, 6));
    switch (type) {
      case ColumnType::kText:
        c.charset = text_charset;
        // ENUM and SET, as MySQL sends them: MYSQL_TYPE_STRING with ENUM_FLAG / SET_FLAG, as
        // long as the column's longest value.
        if (declared != nullptr && (declared->is_enum || declared->is_set)) {
          c.type = kTypeString;
          c.flags = declared->is_enum ? kFlagEnum : kFlagSet;
          c.length = declared->chars * 4;
        }
        break;
      case ColumnType::kBinary:
        c.type = kTypeBlob;
        c.charset = kCharsetBinary;
        c.flags = kFlagBlob | kFlagBinary;
        c.length = std::max<uint32_t>(longest, 1);
        break;
      case ColumnType::kInt:
      case ColumnType::kUInt:
        c.type = kTypeLongLong;
        c.charset = kCharsetBinary;
        c.flags = kFlagNum | kFlagBinary;
        if (type == ColumnType::kUInt) c.flags |= kFlagUnsigned;
        c.length = 20;
        break;
      case ColumnType::kDouble:
        c.type = kTypeDouble;
        c.charset = kCharsetBinary;
        c.flags = kFlagNum | kFlagBinary;
        c.length = 22;
        c.decimals = 31;  // not fixed: the value says how many digits it has
        break;
      case ColumnType::kDecimal:
        c.type = kTypeNewDecimal;
        c.charset = kCharsetBinary;
        c.flags = kFlagNum | kFlagBinary;
        c.length = std::max<uint32_t>(longest, 1);
        c.decimals = static_cast<uint8_t>(std::min<size_t>(scale, 30));
        break;
      case ColumnType::kDate:
        c.type = kTypeDate;
        c.charset = kCharsetBinary;
        c.flags = kFlagBinary;
        c.length = 10;
        break;
      case ColumnType::kDateTime:
      case ColumnType::kTimestamp:
        // DATETIME(fsp): 'YYYY-MM-DD hh:mm:ss' and, with fsp, the point and fsp digits.
        c.type = type == ColumnType::kDateTime ? kTypeDateTime : kTypeTimestamp;
        c.charset = kCharsetBinary;
        c.flags = kFlagBinary;
        c.decimals = fsp;
        c.length = 19 + (fsp > 0 ? fsp + 1 : 0);
        break;
      case ColumnType::kTime:
        // TIME(fsp): 'hhh:mm:ss' (10 with the sign) and, with fsp, the point and fsp digits.
        c.type = kTypeTime;
        c.charset = kCharsetBinary;
        c.flags = kFlagBinary;
        c.decimals = fsp;
        c.length = 10 + (fsp > 0 ? fsp + 1 : 0);
        break;
      case ColumnType::kYear:
        c.type = kTypeYear;
        c.charset = kCharsetBinary;
        c.flags = kFlagUnsigned | kFlagZerofill | kFlagBinary | kFlagNum;
        c.length = 4;
        break;
    }
    Append(BuildColumnDef(c));
  }
}

void Connection::AppendResultSet(const sql::StatementResult& r, uint16_t status, bool binary) {
  WireWriter count;
  count.LenencInt(r.columns.size());
  Append(count.data());
  AppendColumnDefs(r);
  if (!deprecate_eof()) Append(BuildEof(0, status));
  const std::vector<ColumnType> types = binary ? WireTypes(r) : std::vector<ColumnType>{};
  for (const auto& row : r.rows) {
    Append(binary ? BuildBinaryRow(types, row) : BuildTextRow(row));
  }
  uint16_t end_status = status;
  OkInfo end{.status = end_status};
  end.warnings = static_cast<uint16_t>(std::min<size_t>(r.warnings.size(), 0xffff));
  if (deprecate_eof()) {
    Append(BuildOk(end, /*eof_header=*/true));
  } else {
    Append(BuildEof(end.warnings, end_status));
  }
}

}  // namespace minnow::server
