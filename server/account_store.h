#pragma once
// minnowd's accounts on disk, as MySQL keeps them in mysql.user: the "$users" keyspace of the
// database file, one record per account
//   key   "<user>\0<host>"
//   value the account's authentication_string for mysql_native_password, as MySQL stores it:
//         "*" and 40 upper-case hex digits of SHA1(SHA1(password)), or "" for no password
//         (never the password itself).
// Each change is one transaction (its Puts and Erases, then Commit): durable as every commit is,
// and whole or absent after a crash.
//
//   ASSIGN_OR_RETURN(auto store, AccountStore::Open(db));   // creates "$users" when missing
//   ASSIGN_OR_RETURN(auto accounts, store->LoadAll());
//   RETURN_IF_ERROR(store->Apply({{"app", "%", NativePasswordHash("pw")}}));
//
// A new "$users" (the first writable open of a database, older files too) starts with
// root@localhost and no password, as MySQL's --initialize-insecure leaves it, and the record
// with the empty key (the format version, "1"), in one transaction: a store without that
// record (a crash right after creating the keyspace) is seeded at the next writable open. A
// read-only database without a seeded store has none (exists() false); there every change is
// kReadOnly. An unseeded "$users" that holds records is not the accounts' (a table's, from a
// file made before the name was reserved): Open refuses it with kCorruption.
// Thread safety: calls from any thread; each call uses a session of its own.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/db.h"
#include "minnow/status.h"

namespace minnow::server {

// One of the SQL catalog's kSystemKeyspaces (sql_lite_front/catalog/table_catalog.h): no
// table's keyspace is ever given this name.
inline constexpr const char* kAccountKeyspace = "$users";

struct StoredAccount {
  std::string user, host;
  std::string hash;  // SHA1(SHA1(password)), 20 bytes; empty for no password
};

// One account's change: its new hash, or nullopt to drop it.
struct AccountChange {
  std::string user, host;
  std::optional<std::string> hash;
};

class AccountStore {
 public:
  // kReadOnly never: a read-only database without "$users" opens as an absent store.
  static Result<std::unique_ptr<AccountStore>> Open(Database* db);
  bool exists() const { return ks_.valid(); }
  bool read_only() const { return read_only_; }

  // Every stored account, ordered by (user, host). kCorruption for a record that is not one.
  Result<std::vector<StoredAccount>> LoadAll() const;
  // Every change (a record created, replaced or erased), in order, in one transaction: all or
  // none. Erasing an absent record is no error (an account only the --users file made).
  // kInvalidArgument for a user name holding a NUL byte; kReadOnly on a read-only database.
  Status Apply(const std::vector<AccountChange>& changes);

  // The record's key and value (for tests).
  static std::string Key(std::string_view user, std::string_view host);
  static std::string AuthenticationString(std::string_view hash);

 private:
  AccountStore(Database* db, Keyspace ks, bool read_only)
      : db_(db), ks_(std::move(ks)), read_only_(read_only) {}
  Database* db_;
  Keyspace ks_;
  bool read_only_;
};

}  // namespace minnow::server
