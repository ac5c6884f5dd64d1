// AccountStore (account_store.h): minnowd's accounts in the "$users" keyspace.

#include "server/account_store.h"

#include <fmt/format.h>

#include <algorithm>

#include "sql_lite_front/catalog/table_catalog.h"

namespace minnow::server {
namespace {

constexpr std::string_view kVersionKey = "";  // no account's key: those hold a NUL byte
constexpr std::string_view kVersion = "1";

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The hash an authentication_string holds; false when it is not one.
bool ParseAuthenticationString(std::string_view s, std::string* hash) {
  hash->clear();
  if (s.empty()) return true;
  if (s.size() != 41 || s[0] != '*') return false;
  for (size_t i = 1; i < s.size(); i += 2) {
    const int hi = HexDigit(s[i]), lo = HexDigit(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    hash->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

// One transaction of `db`: `fn`, then Commit.
template <typename Fn>
Status InTransaction(Database* db, Fn fn) {
  ASSIGN_OR_RETURN(auto session, db->NewSession());
  ASSIGN_OR_RETURN(auto txn, session->Begin());
  RETURN_IF_ERROR(fn(txn.get()));
  return txn->Commit();
}

static_assert(std::ranges::find(sql::kSystemKeyspaces, std::string_view(kAccountKeyspace)) !=
                  std::ranges::end(sql::kSystemKeyspaces),
              "the SQL catalog must never give a table the accounts' keyspace name");

}  // namespace

std::string AccountStore::Key(std::string_view user, std::string_view host) {
  std::string key(user);
  key.push_back('\0');
  key.append(host);
  return key;
}

std::string AccountStore::AuthenticationString(std::string_view hash) {
  if (hash.empty()) return {};
  std::string out = "*";
  for (char c : hash) out += fmt::format("{:02X}", static_cast<unsigned char>(c));
  return out;
}

Result<std::unique_ptr<AccountStore>> AccountStore::Open(Database* db) {
  const bool read_only = db->options().read_only;
  auto ks = db->OpenKeyspace(kAccountKeyspace);
  if (!ks.ok() && ks.status().IsNotFound() && !read_only) {
    Status st = db->CreateKeyspace(kAccountKeyspace);
    if (!st.ok() && st.code() != Code::kDuplicateKey) return st;
    ks = db->OpenKeyspace(kAccountKeyspace);
  }
  if (!ks.ok() && !(ks.status().IsNotFound() && read_only)) return ks.status();
  if (!ks.ok()) return std::unique_ptr<AccountStore>(new AccountStore(db, Keyspace(), true));

  ASSIGN_OR_RETURN(auto session, db->NewSession());
  std::string version;
  ASSIGN_OR_RETURN(const bool seeded, session->Get(*ks, kVersionKey, &version));
  if (seeded && version != kVersion) {
    return Status::NotSupported(
        fmt::format("{}: account store version '{}' (this minnowd knows {})", kAccountKeyspace,
                    version, kVersion));
  }
  if (!seeded) {
    ASSIGN_OR_RETURN(auto txn, session->Begin());
    ASSIGN_OR_RETURN(auto it, txn->NewIterator(*ks));
    RETURN_IF_ERROR(it->SeekToFirst());
    if (it->Valid()) {
      return Status::Corruption(fmt::format(
          "keyspace {} holds records but no account store version: not minnowd's accounts (a "
          "table's, from before the name was reserved?)",
          kAccountKeyspace));
    }
    it.reset();
    RETURN_IF_ERROR(txn->Commit());
    if (read_only) return std::unique_ptr<AccountStore>(new AccountStore(db, Keyspace(), true));
    RETURN_IF_ERROR(InTransaction(db, [&](Transaction* txn) {
      RETURN_IF_ERROR(txn->Put(*ks, Key("root", "localhost"), ""));
      return txn->Put(*ks, kVersionKey, kVersion);
    }));
  }
  return std::unique_ptr<AccountStore>(new AccountStore(db, *ks, read_only));
}

Result<std::vector<StoredAccount>> AccountStore::LoadAll() const {
  std::vector<StoredAccount> out;
  if (!exists()) return out;
  ASSIGN_OR_RETURN(auto session, db_->NewSession());
  ASSIGN_OR_RETURN(auto txn, session->Begin());
  ASSIGN_OR_RETURN(auto it, txn->NewIterator(ks_));
  Status st;
  for (st = it->SeekToFirst(); st.ok() && it->Valid(); st = it->Next()) {
    const std::string_view key = it->key();
    if (key == kVersionKey) continue;
    const size_t nul = key.find('\0');
    ASSIGN_OR_RETURN(std::string_view value, it->value());
    StoredAccount a;
    if (nul == std::string_view::npos || !ParseAuthenticationString(value, &a.hash)) {
      return Status::Corruption(
          fmt::format("{}: a record that is no account ({} key bytes, value '{}')",
                      kAccountKeyspace, key.size(), value));
    }
    a.user = key.substr(0, nul);
    a.host = key.substr(nul + 1);
    out.push_back(std::move(a));
  }
  RETURN_IF_ERROR(st);
  RETURN_IF_ERROR(txn->Commit());
  return out;
}

Status AccountStore::Apply(const std::vector<AccountChange>& changes) {
  if (!exists()) return Status::ReadOnly("the database is open read-only");
  for (const AccountChange& c : changes) {
    if (c.user.find('\0') != std::string::npos) {
      return Status::InvalidArgument("a user name may not hold a NUL byte");
    }
  }
  return InTransaction(db_, [&](Transaction* txn) {
    for (const AccountChange& c : changes) {
      const std::string key = Key(c.user, c.host);
      Status st = c.hash ? txn->Put(ks_, key, AuthenticationString(*c.hash)) : txn->Erase(ks_, key);
      if (!st.ok() && !(!c.hash && st.IsNotFound())) return st;
    }
    return Status::OK();
  });
}

}  // namespace minnow::server
