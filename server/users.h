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
// Accounts live in memory: the initial ones from minnowd's --users file, then CREATE USER,
// ALTER USER and DROP USER; they are not written back (docs/ARCHITECTURE.md says so).
// Thread-safe: one latch over the table.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/latch.h"

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
  // Creates the account; false when it exists (MySQL 1396).
  bool Create(std::string_view user, std::string_view host, std::string_view password);
  // Sets the password; false when there is no such account (MySQL 1396).
  bool Alter(std::string_view user, std::string_view host, std::string_view password);
  bool Drop(std::string_view user, std::string_view host);
  // Create or replace (the --users file).
  void Set(std::string_view user, std::string_view host, std::string_view password);

  // The stored hash of the account `user` may log in as from `peer`; nullopt when none
  // matches (the most specific host wins: an exact address, then loopback names, then '%').
  std::optional<std::string> Lookup(std::string_view user, std::string_view peer) const;
  // True when every account that non-loopback peers could use has a password.
  bool RemoteAccountsHavePasswords() const;
  bool HasPassword(std::string_view user, std::string_view host) const;

 private:
  mutable Latch latch_;
  std::map<std::pair<std::string, std::string>, std::string> accounts_ GUARDED_BY(latch_);
};

}  // namespace minnow::server
