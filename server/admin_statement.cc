// ParseAdminStatement (admin_statement.h), over the SQL front's lexer.

#include "server/admin_statement.h"

#include <charconv>
#include <vector>

#include "sql_lite_front/parse/lexer.h"

namespace minnow::server {
namespace {

using sql::EqualsNoCase;
using sql::SqlErr;
using sql::Token;
using sql::TokenKind;

class TokenCursor {
 public:
  explicit TokenCursor(std::vector<Token> t) : t_(std::move(t)) {}
  const Token& Cur() const { return t_[i_]; }
  void Skip() {
    if (Cur().kind != TokenKind::kEnd) ++i_;
  }
  bool IsKw(std::string_view kw) const {
    return Cur().kind == TokenKind::kIdent && EqualsNoCase(Cur().text, kw);
  }
  bool AcceptKw(std::string_view kw) {
    if (!IsKw(kw)) return false;
    ++i_;
    return true;
  }
  bool AcceptOp(std::string_view op) {
    if (Cur().kind != TokenKind::kOperator || Cur().text != op) return false;
    ++i_;
    return true;
  }
  // A name: 'x', "x", `x` or a bare word.
  std::optional<std::string> Name() {
    const Token& t = Cur();
    if (t.kind != TokenKind::kString && t.kind != TokenKind::kIdent &&
        t.kind != TokenKind::kQuotedIdent) {
      return std::nullopt;
    }
    ++i_;
    return t.text;
  }
  bool AtEnd() {
    while (AcceptOp(";")) {
    }
    return Cur().kind == TokenKind::kEnd;
  }

 private:
  std::vector<Token> t_;
  size_t i_ = 0;
};

sql::SqlError Syntax() {
  return SqlErr(sql::kErParse,
                "You have an error in your SQL syntax; check the manual that corresponds to your "
                "minnow server version for the right syntax to use");
}

size_t Utf8Chars(std::string_view s) {
  size_t n = 0;
  for (char ch : s) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return n;
}

// 1470 when `name` has more characters than MySQL's mysql.user keeps (32 for a user name, 255
// for a host); its message shows at most 70 bytes of the name, as MySQL's %-.70s.
std::optional<sql::SqlError> TooLong(std::string_view name, std::string_view what, size_t max) {
  if (Utf8Chars(name) <= max) return std::nullopt;
  return SqlErr(static_cast<sql::ErrorCode>(1470), "String '", name.substr(0, 70),
                "' is too long for ", what, " (should be no longer than ", std::to_string(max),
                ")");
}

// 'name'[@'host'] into a->user and a->host.
std::optional<sql::SqlError> ParseAccount(TokenCursor& c, AdminStatement::Account* a) {
  auto user = c.Name();
  if (!user) return Syntax();
  a->user = *user;
  if (c.AcceptOp("@")) {
    auto host = c.Name();
    if (!host) return Syntax();
    a->host = *host;
  }
  if (auto e = TooLong(a->user, "user name", 32)) return e;
  return TooLong(a->host, "host name", 255);
}

// The accounts of CREATE/ALTER/DROP USER, each with its IDENTIFIED clause (CREATE: optional,
// ALTER: needed, DROP: none).
sql::SqlResult<AdminStatement> ParseAccounts(TokenCursor& c, AdminStatement s) {
  const bool password_allowed = s.kind != AdminStatement::Kind::kDropUser;
  const bool password_needed = s.kind == AdminStatement::Kind::kAlterUser;
  do {
    AdminStatement::Account a;
    if (auto e = ParseAccount(c, &a)) return *e;
    if (password_allowed && c.AcceptKw("IDENTIFIED")) {
      if (c.AcceptKw("WITH")) {
        auto plugin = c.Name();
        if (!plugin) return Syntax();
        if (!EqualsNoCase(*plugin, "mysql_native_password")) {
          return SqlErr(static_cast<sql::ErrorCode>(1524), "Plugin '", *plugin, "' is not loaded");
        }
      }
      if (!c.AcceptKw("BY") || c.Cur().kind != TokenKind::kString) return Syntax();
      a.password = *c.Name();
    } else if (password_needed) {
      return Syntax();
    }
    s.accounts.push_back(std::move(a));
  } while (c.AcceptOp(","));
  if (!c.AtEnd()) return Syntax();
  return s;
}

sql::SqlResult<AdminStatement> ParseKill(TokenCursor& c) {
  AdminStatement s;
  s.kind = AdminStatement::Kind::kKillConnection;
  if (c.AcceptKw("QUERY")) {
    s.kind = AdminStatement::Kind::kKillQuery;
  } else {
    (void)c.AcceptKw("CONNECTION");
  }
  const Token& t = c.Cur();
  if (t.kind != TokenKind::kInteger) return Syntax();
  auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), s.thread_id);
  if (ec != std::errc()) return Syntax();
  c.Skip();
  if (!c.AtEnd()) return Syntax();
  return s;
}

// After CREATE USER / ALTER USER / DROP USER.
sql::SqlResult<AdminStatement> ParseUserStatement(TokenCursor& c, AdminStatement::Kind kind) {
  AdminStatement s;
  s.kind = kind;
  if (c.AcceptKw("IF")) {
    if (kind == AdminStatement::Kind::kCreateUser && !c.AcceptKw("NOT")) return Syntax();
    if (!c.AcceptKw("EXISTS")) return Syntax();
    s.if_exists = true;
  }
  return ParseAccounts(c, std::move(s));
}

// After SET PASSWORD.
sql::SqlResult<AdminStatement> ParseSetPassword(TokenCursor& c) {
  AdminStatement s;
  s.kind = AdminStatement::Kind::kSetPassword;
  AdminStatement::Account a;
  if (c.AcceptKw("FOR")) {
    if (auto e = ParseAccount(c, &a)) return *e;
  } else {
    s.own_account = true;
    a.host.clear();
  }
  if (c.AcceptKw("TO")) {
    if (!c.AcceptKw("RANDOM")) return Syntax();
    return SqlErr(sql::kErNotSupportedYet,
                  "This version of minnow doesn't yet support 'SET PASSWORD ... TO RANDOM'");
  }
  if (!c.AcceptOp("=") || c.Cur().kind != TokenKind::kString) return Syntax();
  a.password = *c.Name();
  s.accounts.push_back(std::move(a));
  if (c.IsKw("REPLACE") || c.IsKw("RETAIN")) {
    return SqlErr(sql::kErNotSupportedYet, "This version of minnow doesn't yet support 'SET ",
                  "PASSWORD ... ", c.IsKw("REPLACE") ? "REPLACE" : "RETAIN CURRENT PASSWORD", "'");
  }
  if (!c.AtEnd()) return Syntax();
  return s;
}

}  // namespace

std::optional<sql::SqlResult<AdminStatement>> ParseAdminStatement(std::string_view sql) {
  // Cheap test first: most statements are not these.
  const size_t b = sql.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return std::nullopt;
  const std::string_view head = sql.substr(b, 6);
  if (!EqualsNoCase(head.substr(0, 4), "KILL") && !EqualsNoCase(head, "CREATE") &&
      !EqualsNoCase(head.substr(0, 5), "ALTER") && !EqualsNoCase(head.substr(0, 4), "DROP") &&
      !EqualsNoCase(head.substr(0, 3), "SET")) {
    return std::nullopt;
  }
  TokenCursor c(sql::Tokenize(sql));
  if (c.AcceptKw("KILL")) return ParseKill(c);
  if (c.AcceptKw("SET")) {
    if (!c.AcceptKw("PASSWORD")) return std::nullopt;
    return ParseSetPassword(c);
  }
  AdminStatement::Kind kind;
  if (c.AcceptKw("CREATE")) {
    kind = AdminStatement::Kind::kCreateUser;
  } else if (c.AcceptKw("ALTER")) {
    kind = AdminStatement::Kind::kAlterUser;
  } else if (c.AcceptKw("DROP")) {
    kind = AdminStatement::Kind::kDropUser;
  } else {
    return std::nullopt;
  }
  if (!c.AcceptKw("USER")) return std::nullopt;
  return ParseUserStatement(c, kind);
}

}  // namespace minnow::server
