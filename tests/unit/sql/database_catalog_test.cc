// The catalog's databases: an older file's implicit `test`, CREATE/DROP DATABASE across
// reopens, and DROP DATABASE all or nothing (a lock wait that times out changes nothing; a
// drop that committed leaves no table, record or storage behind after a reopen).

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/catalog/table_catalog.h"
#include "tests/unit/engine/engine_test_util.h"

namespace minnow::sql {
namespace {

using minnow::testing::Take;
using minnow::testing::TempDir;

TableDef Table(const TableCatalog& catalog, std::string schema, std::string name) {
  TableDef def;
  def.schema = std::move(schema);
  def.name = std::move(name);
  ColumnDef id;
  id.name = "id";
  id.type = ColumnType::kInt;
  def.columns = {id};
  def.primary_key = {0};
  def.keyspace = catalog.NewKeyspaceName(def.name);
  return def;
}

TableDef Heap(const TableCatalog& catalog, std::string schema, std::string name) {
  TableDef def = Table(catalog, std::move(schema), std::move(name));
  def.primary_key.clear();
  def.engine = "MyISAM";
  return def;
}

std::vector<std::string> DatabaseNames(const TableCatalog& catalog) {
  std::vector<std::string> out;
  for (const DatabaseDef& d : catalog.Databases()) out.push_back(d.name);
  return out;
}

// Every key of the catalog keyspace.
std::vector<std::string> CatalogKeys(Database* db) {
  auto ks = Take(db->OpenKeyspace(kCatalogKeyspace));
  auto session = Take(db->NewSession());
  auto txn = Take(session->Begin());
  auto it = Take(txn->NewIterator(ks));
  std::vector<std::string> keys;
  for (Status st = it->SeekToFirst(); st.ok() && it->Valid(); st = it->Next())
    keys.emplace_back(it->key());
  REQUIRE_OK(txn->Commit());
  return keys;
}

void InsertId(Database* db, const OpenTable& t, int64_t id) {
  auto session = Take(db->NewSession());
  auto txn = Take(session->Begin());
  Row row = {Value::Int(id)};
  std::string value;
  EncodeRowValue(t.def, row, &value);
  REQUIRE_OK(txn->Insert(t.clustered, EncodePrimaryKey(t.def, row), value));
  REQUIRE_OK(txn->Commit());
}

TEST_CASE("databases: a file from before databases reads as having just test", "[sql][catalog]") {
  TempDir dir;
  Options o = minnow::testing::SmallOptions(dir.file());
  {
    auto db = Take(Database::Open(o));
    auto cat = std::move(TableCatalog::Open(db.get()).value());
    REQUIRE(cat->CreateTable(Table(*cat, "test", "t")).ok());
    // What an older file has: the table's record under its bare name, no database records.
    CHECK(CatalogKeys(db.get()) == std::vector<std::string>{"!", "!test", "t"});
    auto ks = Take(db->OpenKeyspace(kCatalogKeyspace));
    auto session = Take(db->NewSession());
    REQUIRE_OK(session->Erase(ks, "!"));
    REQUIRE_OK(session->Erase(ks, "!test"));
    REQUIRE_OK(db->Close());
  }
  auto db = Take(Database::Open(o));
  auto cat = std::move(TableCatalog::Open(db.get()).value());
  CHECK(DatabaseNames(*cat) == std::vector<std::string>{"test"});
  REQUIRE(cat->Find({"test", "t"}) != nullptr);
  CHECK(cat->Find({"TEST", "T"})->def.schema == "test");
  // ... and records `test` at its first writable open.
  CHECK(CatalogKeys(db.get()) == std::vector<std::string>{"!", "!test", "t"});
}

TEST_CASE("databases: CREATE and DROP DATABASE persist; tables of two databases are apart",
          "[sql][catalog]") {
  TempDir dir;
  Options o = minnow::testing::SmallOptions(dir.file());
  {
    auto db = Take(Database::Open(o));
    auto cat = std::move(TableCatalog::Open(db.get()).value());
    REQUIRE(cat->CreateDatabase({"Shop", "utf8mb3", "utf8mb3_general_ci"}).ok());
    auto again = cat->CreateDatabase({"shop"});
    REQUIRE_FALSE(again.ok());
    CHECK(again.error().code == kErDbCreateExists);
    auto bad = cat->CreateDatabase({"my-db"});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == kErWrongDbName);
    REQUIRE(cat->CreateTable(Table(*cat, "shop", "t")).ok());  // as the database was named
    REQUIRE(cat->CreateTable(Table(*cat, "test", "t")).ok());
    auto missing = cat->CreateTable(Table(*cat, "nowhere", "t"));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code == kErBadDb);
    CHECK(cat->Find({"shop", "t"}) != cat->Find({"test", "t"}));
    REQUIRE_OK(db->Close());
  }
  auto db = Take(Database::Open(o));
  auto cat = std::move(TableCatalog::Open(db.get()).value());
  CHECK(DatabaseNames(*cat) == std::vector<std::string>{"Shop", "test"});
  CHECK(cat->FindDatabase("SHOP")->collation == "utf8mb3_general_ci");
  REQUIRE(cat->Find({"shop", "T"}) != nullptr);
  CHECK(cat->Find({"shop", "t"})->def.schema == "Shop");
  CHECK(cat->TableNames("shop").size() == 1);
  CHECK(cat->TableNames().size() == 2);
  REQUIRE(cat->DropDatabase("shop").ok());
  auto gone = cat->DropDatabase("shop");
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().code == kErDbDropExists);
  CHECK(cat->Find({"test", "t"}) != nullptr);
}

TEST_CASE("databases: DROP DATABASE is all or nothing across reopen", "[sql][catalog]") {
  TempDir dir;
  Options o = minnow::testing::SmallOptions(dir.file());
  o.lock_wait_timeout_ms = 300;
  std::vector<std::string> storage;  // the dropped tables' keyspaces and heap tables
  {
    auto db = Take(Database::Open(o));
    auto cat = std::move(TableCatalog::Open(db.get()).value());
    REQUIRE(cat->CreateDatabase({"d"}).ok());
    REQUIRE(cat->CreateTable(Table(*cat, "d", "a")).ok());
    REQUIRE(cat->CreateTable(Heap(*cat, "d", "h")).ok());
    REQUIRE(cat->CreateTable(Table(*cat, "d", "z")).ok());
    for (const char* n : {"a", "h", "z"}) {
      for (std::string& s : StorageNamesOf(cat->Find({"d", n})->def)) storage.push_back(s);
    }
    InsertId(db.get(), *cat->Find({"d", "a"}), 1);
    InsertId(db.get(), *cat->Find({"d", "z"}), 2);
    // A transaction holding a lock on the last table: the drop waits for it, times out, and
    // changes nothing (the tables before it were locked, not dropped).
    auto session = Take(db->NewSession());
    auto txn = Take(session->Begin());
    auto z = cat->Find({"d", "z"});
    REQUIRE_OK(
        txn->Insert(z->clustered, EncodePrimaryKey(z->def, {Value::Int(3)}), std::string(1, '\0')));
    auto st = cat->DropDatabase("d");
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == kErLockWaitTimeout);
    REQUIRE_OK(txn->Rollback());
    REQUIRE_OK(db->Close());
  }
  {
    auto db = Take(Database::Open(o));
    auto cat = std::move(TableCatalog::Open(db.get()).value());
    CHECK(cat->FindDatabase("d").has_value());
    CHECK(cat->TableNames("d").size() == 3);
    REQUIRE(cat->DropDatabase("d").ok());
    REQUIRE_OK(db->Close());
  }
  auto db = Take(Database::Open(o));
  auto cat = std::move(TableCatalog::Open(db.get()).value());
  CHECK_FALSE(cat->FindDatabase("d").has_value());
  CHECK(cat->TableNames().empty());
  CHECK(CatalogKeys(db.get()) == std::vector<std::string>{"!", "!test"});  // no intents left
  auto keyspaces = Take(db->ListKeyspaces());
  for (const std::string& s : storage) {
    if (s.starts_with(kHeapStoragePrefix)) continue;
    CHECK(std::find(keyspaces.begin(), keyspaces.end(), s) == keyspaces.end());
  }
  auto heaps = Take(HeapTable::List(db.get()));
  for (const std::string& s : storage) {
    if (!s.starts_with(kHeapStoragePrefix)) continue;
    CHECK(std::find(heaps.begin(), heaps.end(), s.substr(1)) == heaps.end());
  }
}

}  // namespace
}  // namespace minnow::sql
