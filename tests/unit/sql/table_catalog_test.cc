#include "sql_lite_front/catalog/table_catalog.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sql_lite_front/catalog/row_codec.h"
#include "tests/unit/engine/engine_test_util.h"

namespace minnow::sql {
namespace {

using minnow::testing::Take;
using minnow::testing::TempDir;

Options MemoryOptions() {
  Options o;
  o.path = ":memory:";
  o.buffer_pool_bytes = 16u << 20;
  o.lock_wait_timeout_ms = 500;
  return o;
}

ColumnDef Col(std::string name, ColumnType type, bool nullable, uint32_t length = 0) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  c.nullable = nullable;
  c.length = length;
  return c;
}

// W1's table: i int unsigned AUTO_INCREMENT PRIMARY KEY, j varchar(255), KEY j (j).
TableDef Sample(const TableCatalog& catalog, std::string name = "sample") {
  TableDef def;
  def.name = name;
  ColumnDef i = Col("i", ColumnType::kInt, false);
  i.is_unsigned = true;
  i.auto_increment = true;
  def.columns = {i, Col("j", ColumnType::kVarchar, true, 255)};
  def.primary_key = {0};
  def.keyspace = catalog.NewKeyspaceName(name);
  def.indexes = {IndexDef{"j", {1}, catalog.NewKeyspaceName(def.keyspace + ".j")}};
  return def;
}

TableDef Heap(const TableCatalog& catalog, std::string name) {
  TableDef def;
  def.name = name;
  def.columns = {Col("a", ColumnType::kBigInt, true)};
  def.keyspace = catalog.NewKeyspaceName(name);
  return def;
}

std::vector<std::string> Keyspaces(Database* db) { return Take(db->ListKeyspaces()); }

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Inserts rows of W1's table with i = the given values.
void InsertSample(Database* db, const OpenTable& t, const std::vector<int64_t>& ids) {
  auto session = Take(db->NewSession());
  auto txn = Take(session->Begin());
  for (int64_t id : ids) {
    Row row = {Value::Int(id), Value::String("v" + std::to_string(id))};
    std::string key = EncodePrimaryKey(t.def, row), value;
    EncodeRowValue(t.def, row, &value);
    REQUIRE_OK(txn->Insert(t.clustered, key, value));
    REQUIRE_OK(txn->Insert(t.indexes[0], EncodeIndexKey(t.def, t.def.indexes[0], row, key), ""));
  }
  REQUIRE_OK(txn->Commit());
}

TEST_CASE("catalog: create, find, drop", "[sql][catalog]") {
  auto db = Take(Database::Open(MemoryOptions()));
  auto catalog = TableCatalog::Open(db.get());
  REQUIRE(catalog.ok());
  TableCatalog& cat = **catalog;
  CHECK(Has(Keyspaces(db.get()), kCatalogKeyspace));
  CHECK(cat.TableNames().empty());

  TableDef def = Sample(cat, "Sample");
  CHECK(def.keyspace == "Sample");
  CHECK(def.indexes[0].keyspace == "Sample.j");
  REQUIRE(cat.CreateTable(def).ok());
  auto t = cat.Find({"test", "SAMPLE"});
  REQUIRE(t != nullptr);
  CHECK(t->def.name == "Sample");  // the case as given
  CHECK(t->clustered.valid());
  CHECK(t->indexes.size() == 1);
  CHECK(t->counters->next_auto_inc == 1);
  CHECK(Has(Keyspaces(db.get()), "Sample.j"));

  TableName table;
  std::string index;
  CHECK(cat.DescribeKeyspace("Sample", &table, &index));
  CHECK((table == TableName{"test", "Sample"} && index == "PRIMARY"));
  CHECK(cat.DescribeKeyspace("Sample.j", &table, &index));
  CHECK(index == "j");
  CHECK_FALSE(cat.DescribeKeyspace(kCatalogKeyspace, &table, &index));

  // 1050 in any case; the failed create leaves nothing behind.
  TableDef again = Sample(cat, "sample");
  auto st = cat.CreateTable(again);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == kErTableExists);
  CHECK(Keyspaces(db.get()).size() == 3);

  TableDef bad = Heap(cat, "bad-name");
  CHECK(cat.CreateTable(bad).error().code == kErWrongTableName);
  CHECK(cat.CreateTable(Heap(cat, std::string(65, 'x'))).error().code == kErWrongTableName);

  TableDef heap = Heap(cat, "h$1");
  REQUIRE(cat.CreateTable(heap).ok());
  CHECK(cat.TableNames() == std::vector<TableName>{{"test", "Sample"}, {"test", "h$1"}});
  CHECK(cat.Find({"test", "sample"})->def.keyspace == "Sample");
  CHECK(cat.Find({"test", "h$1"})->def.has_hidden_primary_key());
  CHECK(cat.DescribeKeyspace("h$1", &table, &index));
  CHECK(index == "GEN_CLUST_INDEX");

  REQUIRE(cat.DropTable({"test", "sample"}).ok());
  CHECK(cat.Find({"test", "Sample"}) == nullptr);
  CHECK(t->def.name == "Sample");  // an old snapshot stays readable
  CHECK_FALSE(Has(Keyspaces(db.get()), "Sample"));
  CHECK_FALSE(Has(Keyspaces(db.get()), "Sample.j"));
  auto gone = cat.DropTable({"test", "sample"});
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().code == kErBadTable);
  CHECK(gone.error().message == "Unknown table 'test.sample'");
}

TEST_CASE("catalog: new keyspace names are unique and fit 64 characters", "[sql][catalog]") {
  auto db = Take(Database::Open(MemoryOptions()));
  auto cat = std::move(TableCatalog::Open(db.get()).value());
  REQUIRE_OK(db->CreateKeyspace("t"));
  CHECK(cat->NewKeyspaceName("t") == "t$2");
  REQUIRE_OK(db->CreateKeyspace("t$2"));
  CHECK(cat->NewKeyspaceName("t") == "t$3");
  // The system's names are never a table's, made yet or not.
  CHECK(cat->NewKeyspaceName("$users") == "$users$2");
  CHECK(cat->NewKeyspaceName("$sql_tables") == "$sql_tables$2");
  CHECK(cat->NewKeyspaceName("$other") == "$other");
  std::string long_table(64, 'a');
  std::string ix = cat->NewKeyspaceName(long_table + "." + std::string(64, 'b'));
  CHECK(ix.size() <= 64);
  REQUIRE_OK(db->CreateKeyspace(ix));
  std::string ix2 = cat->NewKeyspaceName(long_table + "." + std::string(64, 'c'));
  CHECK(ix2 != ix);
  REQUIRE_OK(db->CreateKeyspace(ix2));  // the engine accepts it
}

TEST_CASE("catalog: replace keeps counters; the switch can be reverted", "[sql][catalog]") {
  auto db = Take(Database::Open(MemoryOptions()));
  auto cat = std::move(TableCatalog::Open(db.get()).value());
  TableDef def = Sample(*cat);
  REQUIRE(cat->CreateTable(def).ok());
  auto old = cat->Find({"test", "sample"});
  old->counters->next_auto_inc = 77;

  TableDef next = def;
  next.keyspace = cat->NewKeyspaceName("sample");
  next.indexes[0].keyspace = cat->NewKeyspaceName(next.keyspace + ".j");
  CHECK(next.keyspace == "sample$2");
  REQUIRE(cat->CreateKeyspaces({next.keyspace, next.indexes[0].keyspace}, {}, next.keyspace).ok());
  REQUIRE(cat->ReplaceTable(next).ok());
  auto now = cat->Find({"test", "sample"});
  CHECK(now->def.keyspace == "sample$2");
  CHECK(now->counters->next_auto_inc == 77);
  REQUIRE(cat->DropKeyspaces({"sample", "sample.j"}).ok());
  CHECK_FALSE(Has(Keyspaces(db.get()), "sample"));

  TableDef missing = Heap(*cat, "nope");
  CHECK(cat->ReplaceTable(missing).error().code == kErNoSuchTable);
}

TEST_CASE("catalog: reopening brings tables and counters back; orphans are dropped",
          "[sql][catalog]") {
  TempDir dir;
  Options o = minnow::testing::SmallOptions(dir.file());
  {
    auto db = Take(Database::Open(o));
    auto cat = std::move(TableCatalog::Open(db.get()).value());
    REQUIRE(cat->CreateTable(Sample(*cat)).ok());
    InsertSample(db.get(), *cat->Find({"test", "sample"}), {3, 10, 7});
    // Auto column not first in the primary key, found through its index.
    TableDef k;
    k.name = "k";
    ColumnDef a = Col("a", ColumnType::kInt, false);
    a.auto_increment = true;
    k.columns = {Col("p", ColumnType::kInt, false), a};
    k.primary_key = {0};
    k.keyspace = cat->NewKeyspaceName("k");
    k.indexes = {IndexDef{"a", {1}, cat->NewKeyspaceName("k.a")}};
    k.auto_increment_start = 5;
    REQUIRE(cat->CreateTable(k).ok());
    {
      auto t = cat->Find({"test", "k"});
      auto session = Take(db->NewSession());
      auto txn = Take(session->Begin());
      for (int64_t p : {1, 2}) {
        Row row = {Value::Int(p), Value::Int(p * 100)};
        std::string key = EncodePrimaryKey(t->def, row), value;
        EncodeRowValue(t->def, row, &value);
        REQUIRE_OK(txn->Insert(t->clustered, key, value));
        REQUIRE_OK(
            txn->Insert(t->indexes[0], EncodeIndexKey(t->def, t->def.indexes[0], row, key), ""));
      }
      REQUIRE_OK(txn->Commit());
    }
    // A heap table with rows 1..3.
    REQUIRE(cat->CreateTable(Heap(*cat, "heap")).ok());
    {
      auto t = cat->Find({"test", "heap"});
      auto session = Take(db->NewSession());
      auto txn = Take(session->Begin());
      for (uint64_t id = 1; id <= 3; ++id) {
        std::string key, value;
        AppendRowId(id, &key);
        EncodeRowValue(t->def, {Value::Int(static_cast<int64_t>(id))}, &value);
        REQUIRE_OK(txn->Insert(t->clustered, key, value));
      }
      REQUIRE_OK(txn->Commit());
    }
    // An empty table with an AUTO_INCREMENT= start.
    TableDef e = Sample(*cat, "empty");
    e.auto_increment_start = 1000;
    REQUIRE(cat->CreateTable(e).ok());
    // A crash in the middle of a copy-ALTER: new keyspaces journaled and created, never named.
    REQUIRE(cat->CreateKeyspaces({"sample$2", "sample$2.j"}, {}, "sample$2").ok());
    // A keyspace of another user of the KV API: never touched.
    REQUIRE_OK(db->CreateKeyspace("kv_data"));
    REQUIRE_OK(db->Close());
  }
  auto db = Take(Database::Open(o));
  auto cat = TableCatalog::Open(db.get());
  REQUIRE(cat.ok());
  auto names = Keyspaces(db.get());
  CHECK_FALSE(Has(names, "sample$2"));
  CHECK_FALSE(Has(names, "sample$2.j"));
  CHECK(Has(names, "kv_data"));
  CHECK(Has(names, "sample.j"));
  CHECK((*cat)->TableNames() ==
        std::vector<TableName>{
            {"test", "empty"}, {"test", "heap"}, {"test", "k"}, {"test", "sample"}});
  CHECK((*cat)->Find({"test", "sample"})->counters->next_auto_inc == 11);
  CHECK((*cat)->Find({"test", "k"})->counters->next_auto_inc == 201);
  CHECK((*cat)->Find({"test", "heap"})->counters->next_row_id == 4);
  CHECK((*cat)->Find({"test", "empty"})->counters->next_auto_inc == 1000);
  CHECK((*cat)->Find({"test", "sample"})->def.indexes[0].keyspace == "sample.j");
  // A dropped table stays dropped after a reopen, and its name can be reused.
  REQUIRE((*cat)->DropTable({"test", "k"}).ok());
  REQUIRE_OK(db->Close());
  db = Take(Database::Open(o));
  auto cat2 = TableCatalog::Open(db.get());
  REQUIRE(cat2.ok());
  CHECK((*cat2)->Find({"test", "k"}) == nullptr);
  CHECK_FALSE(Has(Keyspaces(db.get()), "k.a"));
}

TEST_CASE("catalog: a damaged record fails Open with 1105", "[sql][catalog]") {
  auto db = Take(Database::Open(MemoryOptions()));
  { auto cat = std::move(TableCatalog::Open(db.get()).value()); }
  auto ks = Take(db->OpenKeyspace(kCatalogKeyspace));
  auto session = Take(db->NewSession());
  REQUIRE_OK(session->Put(ks, "t", "\x01garbage"));
  auto cat = TableCatalog::Open(db.get());
  REQUIRE_FALSE(cat.ok());
  CHECK(cat.error().code == kErUnknownError);
}

TEST_CASE("catalog: DROP waits for a transaction's locks, then 1205", "[sql][catalog]") {
  auto db = Take(Database::Open(MemoryOptions()));
  auto cat = std::move(TableCatalog::Open(db.get()).value());
  REQUIRE(cat->CreateTable(Sample(*cat)).ok());
  auto t = cat->Find({"test", "sample"});
  auto session = Take(db->NewSession());
  auto txn = Take(session->Begin());
  REQUIRE_OK(txn->Insert(t->clustered, std::string("\0\0\0\1", 4), std::string(1, '\1')));
  auto st = cat->DropTable({"test", "sample"});
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == kErLockWaitTimeout);
  CHECK(cat->Find({"test", "sample"}) != nullptr);  // nothing changed
  REQUIRE_OK(txn->Commit());
  REQUIRE(cat->DropTable({"test", "sample"}).ok());
}

}  // namespace
}  // namespace minnow::sql
