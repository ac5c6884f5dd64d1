// AccountStore and UserTable over it: accounts survive reopening the database, as MySQL's
// mysql.user; a read-only database refuses changes; a damaged record is refused at load.

#include "server/account_store.h"

#include <catch2/catch.hpp>
#include <string>

#include "server/users.h"
#include "tests/unit/engine/engine_test_util.h"

namespace minnow::server {
namespace {

using minnow::testing::SmallOptions;
using minnow::testing::Take;
using minnow::testing::TempDir;

std::unique_ptr<Database> OpenDb(const std::string& path, bool read_only = false) {
  Options o = SmallOptions(path);
  o.read_only = read_only;
  return Take(Database::Open(o));
}

// A UserTable over the store of `db`.
std::unique_ptr<UserTable> Users(Database* db) {
  auto users = std::make_unique<UserTable>();
  REQUIRE_OK(users->Attach(Take(AccountStore::Open(db))));
  return users;
}

TEST_CASE("the stored value is MySQL's authentication_string", "[server]") {
  // SELECT authentication_string FROM mysql.user for IDENTIFIED BY 'password'.
  CHECK(AccountStore::AuthenticationString(NativePasswordHash("password")) ==
        "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19");
  CHECK(AccountStore::AuthenticationString("").empty());
  CHECK(AccountStore::Key("app", "%") == std::string("app\0%", 5));
}

TEST_CASE("a new store holds root@localhost without a password", "[server]") {
  TempDir dir;
  auto db = OpenDb(dir.file());
  auto store = Take(AccountStore::Open(db.get()));
  REQUIRE(store->exists());
  auto accounts = Take(store->LoadAll());
  REQUIRE(accounts.size() == 1);
  CHECK(accounts[0].user == "root");
  CHECK(accounts[0].host == "localhost");
  CHECK(accounts[0].hash.empty());
}

TEST_CASE("CREATE, ALTER and DROP USER survive reopening the database", "[server]") {
  TempDir dir;
  {
    auto db = OpenDb(dir.file());
    auto users = Users(db.get());
    REQUIRE_OK(users->Create("app", "%", "s3cret"));
    REQUIRE_OK(users->Create("gone", "localhost", "x"));
    REQUIRE_OK(users->Create("ops", "10.0.0.5", ""));
    REQUIRE_OK(users->Alter("ops", "10.0.0.5", "newpw"));
    REQUIRE_OK(users->Drop("gone", "localhost"));
    REQUIRE_OK(users->Drop("root", "localhost"));
    users.reset();
    REQUIRE_OK(db->Close());
  }
  auto db = OpenDb(dir.file());
  auto users = Users(db.get());
  CHECK(users->Lookup("app", "10.1.1.1") == NativePasswordHash("s3cret"));
  CHECK(users->Lookup("ops", "10.0.0.5") == NativePasswordHash("newpw"));
  CHECK(!users->Lookup("gone", "127.0.0.1").has_value());
  CHECK(!users->Lookup("root", "127.0.0.1").has_value());  // dropped stays dropped
  CHECK(users->Create("app", "%", "again").code() == Code::kDuplicateKey);
  CHECK(users->Drop("gone", "localhost").IsNotFound());

  // Nothing but the hash is written: the password's bytes are in no record.
  auto store = Take(AccountStore::Open(db.get()));
  for (const StoredAccount& a : Take(store->LoadAll()))
    CHECK(a.hash.find("s3cret") == std::string::npos);
}

TEST_CASE("several accounts change as one, in one transaction", "[server]") {
  TempDir dir;
  auto db = OpenDb(dir.file());
  auto users = Users(db.get());
  std::vector<size_t> unmet;
  // The second 'a' finds the first one made: nothing is created.
  CHECK(
      users->Apply({{"a", "%", ""}, {"b", "%", ""}, {"a", "%", ""}}, false, false, &unmet).code() ==
      Code::kDuplicateKey);
  CHECK(unmet == std::vector<size_t>{2});
  CHECK(!users->Lookup("a", "10.0.0.1").has_value());
  CHECK(!users->Lookup("b", "10.0.0.1").has_value());
  REQUIRE_OK(users->Apply({{"a", "%", ""}, {"b", "%", ""}}, false, false, &unmet));
  // DROP USER a, nobody: nothing dropped; IF EXISTS: a dropped, nobody reported.
  CHECK(users->Apply({{"a", "%", std::nullopt}, {"nobody", "%", std::nullopt}}, true, false, &unmet)
            .IsNotFound());
  CHECK(unmet == std::vector<size_t>{1});
  CHECK(users->Lookup("a", "10.0.0.1").has_value());
  REQUIRE_OK(
      users->Apply({{"a", "%", std::nullopt}, {"nobody", "%", std::nullopt}}, true, true, &unmet));
  CHECK(unmet == std::vector<size_t>{1});
  users.reset();
  auto again = Users(db.get());
  CHECK(!again->Lookup("a", "10.0.0.1").has_value());
  CHECK(again->Lookup("b", "10.0.0.1").has_value());
}

TEST_CASE("a user name with a NUL byte is refused, nothing written", "[server]") {
  TempDir dir;
  auto db = OpenDb(dir.file());
  auto users = Users(db.get());
  CHECK(users->Create(std::string("a\0b", 3), "%", "").code() == Code::kInvalidArgument);
  CHECK(!users->Lookup(std::string("a\0b", 3), "10.0.0.1").has_value());
}

TEST_CASE("an account only in memory (--users) can be altered and dropped", "[server]") {
  TempDir dir;
  auto db = OpenDb(dir.file());
  auto users = Users(db.get());
  users->Set("file", "%", "pw");
  REQUIRE_OK(users->Drop("file", "%"));
  CHECK(!users->Lookup("file", "10.0.0.1").has_value());
  users->Set("file2", "%", "pw");
  REQUIRE_OK(users->Alter("file2", "%", "pw2"));
  users.reset();
  CHECK(Users(db.get())->Lookup("file2", "10.0.0.1") == NativePasswordHash("pw2"));
  CHECK(!Users(db.get())->Lookup("file", "10.0.0.1").has_value());
}

TEST_CASE("a read-only database loads its accounts and refuses changes", "[server]") {
  TempDir dir;
  {
    auto db = OpenDb(dir.file());
    REQUIRE_OK(Users(db.get())->Create("app", "%", "pw"));
    REQUIRE_OK(db->Close());
  }
  auto db = OpenDb(dir.file(), /*read_only=*/true);
  auto users = Users(db.get());
  CHECK(users->Lookup("app", "10.0.0.1") == NativePasswordHash("pw"));
  CHECK(users->Create("new", "%", "x").code() == Code::kReadOnly);
  CHECK(users->Create("app", "%", "x").code() == Code::kReadOnly);  // before the 1396 check
  CHECK(users->Alter("app", "%", "x").code() == Code::kReadOnly);
  CHECK(users->Drop("app", "%").code() == Code::kReadOnly);
  CHECK(users->Lookup("app", "10.0.0.1") == NativePasswordHash("pw"));
  CHECK(!users->Lookup("new", "10.0.0.1").has_value());
}

TEST_CASE("a read-only database without a store keeps the default root", "[server]") {
  TempDir dir;
  {
    auto db = OpenDb(dir.file());
    REQUIRE_OK(db->Close());
  }
  auto db = OpenDb(dir.file(), /*read_only=*/true);
  auto store = Take(AccountStore::Open(db.get()));
  CHECK(!store->exists());
  CHECK(store->Apply({{"a", "%", ""}}).code() == Code::kReadOnly);
  UserTable users;
  REQUIRE_OK(users.Attach(std::move(store)));
  CHECK(users.Lookup("root", "127.0.0.1") == std::string());
  CHECK(users.Create("a", "%", "").code() == Code::kReadOnly);
}

TEST_CASE("a keyspace left unseeded by a crash is seeded at the next open", "[server]") {
  TempDir dir;
  auto db = OpenDb(dir.file());
  REQUIRE_OK(db->CreateKeyspace(kAccountKeyspace));
  auto users = Users(db.get());
  CHECK(users->Lookup("root", "127.0.0.1") == std::string());
}

TEST_CASE("an unseeded keyspace holding records is not taken for the accounts", "[server]") {
  TempDir dir;
  auto db = OpenDb(dir.file());
  REQUIRE_OK(db->CreateKeyspace(kAccountKeyspace));
  Keyspace ks = Take(db->OpenKeyspace(kAccountKeyspace));
  auto session = Take(db->NewSession());
  REQUIRE_OK(session->Put(ks, "\x80\x00\x00\x01", "a table's row"));
  CHECK(AccountStore::Open(db.get()).status().code() == Code::kCorruption);
  std::string value;
  CHECK(Take(session->Get(ks, "", &value)) == false);  // nothing was written into it
}

TEST_CASE("a record that is no account is refused at load", "[server]") {
  TempDir dir;
  auto db = OpenDb(dir.file());
  auto store = Take(AccountStore::Open(db.get()));
  Keyspace ks = Take(db->OpenKeyspace(kAccountKeyspace));
  auto session = Take(db->NewSession());
  REQUIRE_OK(session->Put(ks, AccountStore::Key("bad", "%"), "*NOTHEX"));
  CHECK(store->LoadAll().status().code() == Code::kCorruption);
  UserTable users;
  CHECK(users.Attach(std::move(store)).code() == Code::kCorruption);
  CHECK(users.Lookup("root", "127.0.0.1") == std::string());  // unchanged
}

}  // namespace

TEST_CASE("a change the store cannot commit is an error and changes nothing in memory",
          "[server]") {
  TempDir dir;
  auto db = OpenDb(dir.file());
  auto users = Users(db.get());
  REQUIRE_OK(users->Create("app", "%", "pw"));
  REQUIRE_OK(db->Close());  // every later transaction of the store fails
  CHECK(!users->Create("new", "%", "x").ok());
  CHECK(!users->Lookup("new", "10.0.0.1").has_value());
  CHECK(!users->Alter("app", "%", "other").ok());
  CHECK(users->Lookup("app", "10.0.0.1") == NativePasswordHash("pw"));
  CHECK(!users->Drop("app", "%").ok());
  CHECK(users->Lookup("app", "10.0.0.1").has_value());
}

}  // namespace minnow::server
