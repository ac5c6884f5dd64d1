#pragma once
// minnowd's accounts and mysql_native_password.
//
// An account is (user, host pattern) with the password's double SHA-1 (what MySQL keeps in
// mysql.user.authentication_string for this plugin, never the password). The client proves it
// knows the password without sending it:
//   token = SHA1(password) XOR SHA1(scramble + SHA1(SHA1(password)))
// and the server checks SHA1(token XOR SHA1(scramble + stored)) == stored. An empty password is
// an empty token.
//
// Host patterns: '%' (any host), 'localhost' / '127.0.0.1' / '::1' (the loopback: a TCP peer
// on 127.0.0.0/8 or ::1, or the Unix socket), or one literal address.
//
// The table is kept in memory (Lookup never reads the disk). With an AccountStore attached
// (account_store.h: the database file's "$users", as MySQL's mysql.user) it starts as what the
// store holds, and each Create, Alter and Drop writes the store first (one durable commit) and
// changes the table only once that commit succeeded; Set (minnowd's --users file) changes the
// table alone. Thread-safe: one latch over the table, and one more that orders the changes
// (held across the store's commit, so Lookup never waits for a disk).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/latch.h"
#include "minnow/status.h"
#include "server/account_store.h"

namespace minnow::server {

// 20 random bytes in 1..127 (no 0 byte, as the greeting carries them NUL-terminated).
std::string NewScramble();
// SHA1(SHA1(password)), 20 bytes; empty for an empty password.
std::string NativePasswordHash(std::string_view password);
// The client's side, for tests: the token for `password` and `scramble`.
std::string NativePasswordToken(std::string_view password, std::string_view scramble);
// True when `token` proves the password whose hash is `stored` for `scramble`.
bool CheckNativePassword(std::string_view stored, std::string_view scramble,
                         std::string_view token);

// True for a loopback address as text ("127.0.0.1", "::1", "::ffff:127.0.0.1") or "" (the
// Unix socket).
bool IsLoopbackPeer(std::string_view peer);

class UserTable {
 public:
  UserTable();  // root@localhost with no password
  // Keeps the accounts in `store` from now on: when it exists the table becomes what it holds
  // (the default root@localhost too is then only what the store says). Errors: LoadAll's; the
  // table is unchanged then. Call before any other call.
  Status Attach(std::unique_ptr<AccountStore> store);

  // Each changes nothing when it fails. With a read-only store: kReadOnly before anything else
  // (MySQL's 1290), as MySQL checks --super-read-only before the statement runs.
  // Creates the account; kDuplicateKey when it exists (MySQL 1396).
  Status Create(std::string_view user, std::string_view host, std::string_view password);
  // Sets the password; kNotFound when there is no such account (MySQL 1396).
  Status Alter(std::string_view user, std::string_view host, std::string_view password);
  // kNotFound when there is no such account (MySQL 1396).
  Status Drop(std::string_view user, std::string_view host);
  // CREATE/ALTER/DROP USER of several accounts, as one: each change needs its account to exist
  // (must_exist) or not, as the changes before it in the list leave the table. The indexes of
  // the changes whose need is not met go to *unmet; with skip_unmet (IF [NOT] EXISTS) the
  // others are made, else nothing is and the result is kDuplicateKey (!must_exist) or
  // kNotFound. The store gets the changes made in one transaction. kReadOnly as above.
  Status Apply(std::vector<AccountChange> changes, bool must_exist, bool skip_unmet,
               std::vector<size_t>* unmet);
  // Create or replace in memory only (the --users file, read at every start).
  void Set(std::string_view user, std::string_view host, std::string_view password);

  // The stored hash of the account `user` may log in as from `peer`; nullopt when none
  // matches (the most specific host wins: an exact address, then loopback names, then '%').
  // With `host`, sets it to the matching account's host pattern (CURRENT_USER()'s host).
  std::optional<std::string> Lookup(std::string_view user, std::string_view peer,
                                    std::string* host = nullptr) const;
  // True when every account that non-loopback peers could use has a password.
  bool RemoteAccountsHavePasswords() const;
  bool HasPassword(std::string_view user, std::string_view host) const;

 private:
  Latch change_latch_;  // before latch_
  std::unique_ptr<AccountStore> store_ GUARDED_BY(change_latch_);
  mutable Latch latch_;
  std::map<std::pair<std::string, std::string>, std::string> accounts_ GUARDED_BY(latch_);
};

}  // namespace minnow::server
