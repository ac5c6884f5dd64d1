#pragma once
// The statements minnowd answers itself, before the SQL front: they act on the server's
// connections and accounts, which the SQL front does not know.
//
//   KILL [CONNECTION | QUERY] id
//   CREATE USER [IF NOT EXISTS] user [IDENTIFIED [WITH mysql_native_password] BY 'password']
//               [, user [IDENTIFIED ...]] ...
//   ALTER USER [IF EXISTS] user IDENTIFIED [WITH mysql_native_password] BY 'password'
//              [, user IDENTIFIED ...] ...
//   DROP USER [IF EXISTS] user [, user] ...
//   SET PASSWORD [FOR user] = 'password'   (without FOR: the connection's own account)
// where user is 'name'[@'host'] (host '%' when left out, as in MySQL).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql_lite_front/sql_error.h"

namespace minnow::server {

struct AdminStatement {
  enum class Kind : uint8_t {
    kKillConnection,
    kKillQuery,
    kCreateUser,
    kAlterUser,
    kDropUser,
    kSetPassword
  };
  Kind kind = Kind::kKillConnection;
  uint64_t thread_id = 0;  // KILL
  struct Account {
    std::string user, host = "%", password;
  };
  // CREATE/ALTER/DROP USER: one or more, in the statement's order; SET PASSWORD: one.
  std::vector<Account> accounts;
  bool if_exists = false;    // IF NOT EXISTS for CREATE
  bool own_account = false;  // SET PASSWORD without FOR (accounts[0] has only the password)
};

// nullopt: not one of these statements (the SQL front runs it). An error: it is one, but
// malformed (1064) or asks for something minnowd does not do (another auth plugin: 1524; SET
// PASSWORD's TO RANDOM, REPLACE and RETAIN CURRENT PASSWORD: 1235).
std::optional<sql::SqlResult<AdminStatement>> ParseAdminStatement(std::string_view sql);

}  // namespace minnow::server
