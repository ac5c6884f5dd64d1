// Accounts and mysql_native_password (users.h).

#include "server/users.h"

#include <boost/uuid/detail/sha1.hpp>
#include <random>

#include "common/latch.h"

namespace minnow::server {
namespace {

std::string Sha1(std::string_view a, std::string_view b = {}) {
  boost::uuids::detail::sha1 h;
  h.process_bytes(a.data(), a.size());
  h.process_bytes(b.data(), b.size());
  boost::uuids::detail::sha1::digest_type d;
  h.get_digest(d);
  std::string out(20, '\0');
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 4; ++j) out[i * 4 + j] = static_cast<char>((d[i] >> (24 - 8 * j)) & 0xff);
  }
  return out;
}

std::string Xor(std::string_view a, std::string_view b) {
  std::string out(a.size(), '\0');
  for (size_t i = 0; i < a.size(); ++i) out[i] = static_cast<char>(a[i] ^ b[i % b.size()]);
  return out;
}

bool IsLoopbackName(std::string_view host) {
  return host == "localhost" || host == "127.0.0.1" || host == "::1";
}

// 3: exact address, 2: loopback name, 1: '%', 0: no match.
int HostMatch(std::string_view pattern, std::string_view peer) {
  if (!peer.empty() && pattern == peer) return 3;
  if (IsLoopbackName(pattern) && IsLoopbackPeer(peer)) return 2;
  if (pattern == "%") return 1;
  return 0;
}

}  // namespace

std::string NewScramble() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<int> byte(1, 127);
  std::string s(20, '\0');
  for (char& c : s) c = static_cast<char>(byte(rng));
  return s;
}

std::string NativePasswordHash(std::string_view password) {
  if (password.empty()) return {};
  return Sha1(Sha1(password));
}

std::string NativePasswordToken(std::string_view password, std::string_view scramble) {
  if (password.empty()) return {};
  const std::string stage1 = Sha1(password);
  return Xor(stage1, Sha1(scramble, Sha1(stage1)));
}

bool CheckNativePassword(std::string_view stored, std::string_view scramble,
                         std::string_view token) {
  if (stored.empty()) return token.empty();
  if (token.size() != 20) return false;
  const std::string stage1 = Xor(token, Sha1(scramble, stored));
  return Sha1(stage1) == stored;
}

bool IsLoopbackPeer(std::string_view peer) {
  if (peer.empty() || peer == "::1") return true;
  if (peer.substr(0, 7) == "::ffff:") peer.remove_prefix(7);
  return peer.substr(0, 4) == "127.";
}

UserTable::UserTable() { accounts_[{"root", "localhost"}] = ""; }

Status UserTable::Attach(std::unique_ptr<AccountStore> store) {
  LatchGuard c(change_latch_);
  if (store->exists()) {
    ASSIGN_OR_RETURN(std::vector<StoredAccount> stored, store->LoadAll());
    LatchGuard g(latch_);
    accounts_.clear();
    for (StoredAccount& a : stored) {
      accounts_[{std::move(a.user), std::move(a.host)}] = std::move(a.hash);
    }
  }
  store_ = std::move(store);
  return Status::OK();
}

Status UserTable::Apply(std::vector<AccountChange> changes, bool must_exist, bool skip_unmet,
                        std::vector<size_t>* unmet) {
  unmet->clear();
  LatchGuard c(change_latch_);
  if (store_ != nullptr && store_->read_only()) {
    return Status::ReadOnly("the database is open read-only");
  }
  std::vector<AccountChange> made;
  {
    // Presence as the list's earlier changes leave it.
    std::map<std::pair<std::string, std::string>, bool> present;
    LatchGuard g(latch_);
    for (size_t i = 0; i < changes.size(); ++i) {
      std::pair<std::string, std::string> key{changes[i].user, changes[i].host};
      auto [it, fresh] = present.try_emplace(key, false);
      if (fresh) it->second = accounts_.count(key) > 0;
      if (it->second != must_exist) {
        unmet->push_back(i);
        continue;
      }
      it->second = changes[i].hash.has_value();
      made.push_back(std::move(changes[i]));
    }
  }
  if (!unmet->empty() && !skip_unmet) {
    return must_exist ? Status::NotFound("no such account")
                      : Status::DuplicateKey("the account exists");
  }
  if (made.empty()) return Status::OK();
  if (store_ != nullptr) RETURN_IF_ERROR(store_->Apply(made));
  LatchGuard g(latch_);
  for (AccountChange& m : made) {
    std::pair<std::string, std::string> key{std::move(m.user), std::move(m.host)};
    if (m.hash) {
      accounts_[std::move(key)] = std::move(*m.hash);
    } else {
      accounts_.erase(key);
    }
  }
  return Status::OK();
}

namespace {

// One change through Apply, its unmet need as its status.
Status ApplyOne(UserTable* users, AccountChange change, bool must_exist) {
  std::vector<size_t> unmet;
  return users->Apply({std::move(change)}, must_exist, /*skip_unmet=*/false, &unmet);
}

}  // namespace

Status UserTable::Create(std::string_view user, std::string_view host, std::string_view password) {
  return ApplyOne(this, {std::string(user), std::string(host), NativePasswordHash(password)},
                  /*must_exist=*/false);
}

Status UserTable::Alter(std::string_view user, std::string_view host, std::string_view password) {
  return ApplyOne(this, {std::string(user), std::string(host), NativePasswordHash(password)},
                  /*must_exist=*/true);
}

Status UserTable::Drop(std::string_view user, std::string_view host) {
  return ApplyOne(this, {std::string(user), std::string(host), std::nullopt},
                  /*must_exist=*/true);
}

void UserTable::Set(std::string_view user, std::string_view host, std::string_view password) {
  LatchGuard g(latch_);
  accounts_[{std::string(user), std::string(host)}] = NativePasswordHash(password);
}

std::optional<std::string> UserTable::Lookup(std::string_view user, std::string_view peer,
                                             std::string* host) const {
  LatchGuard g(latch_);
  int best = 0;
  std::optional<std::string> hash;
  for (const auto& [key, stored] : accounts_) {
    if (key.first != user) continue;
    const int m = HostMatch(key.second, peer);
    if (m > best) {
      best = m;
      hash = stored;
      if (host != nullptr) *host = key.second;
    }
  }
  return hash;
}

bool UserTable::RemoteAccountsHavePasswords() const {
  LatchGuard g(latch_);
  for (const auto& [key, stored] : accounts_) {
    if (!IsLoopbackName(key.second) && stored.empty()) return false;
  }
  return true;
}

bool UserTable::HasPassword(std::string_view user, std::string_view host) const {
  LatchGuard g(latch_);
  auto it = accounts_.find({std::string(user), std::string(host)});
  return it != accounts_.end() && !it->second.empty();
}

}  // namespace minnow::server
