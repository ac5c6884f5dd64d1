// The SQL catalog: table definitions in the "$sql_tables" keyspace, open tables in memory.
//
// The catalog's own records (table definitions and intents in "$sql_tables") are system rows,
// not a table's: they are read and written with the key-value API directly. A table's rows and
// table locks go through its engine (storage/table_engine.h).

#include "sql_lite_front/catalog/table_catalog.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/storage/table_engine.h"
#include "sql_lite_front/storage/table_locking_table.h"

namespace minnow::sql {
namespace {

constexpr size_t kMaxKeyspaceName = 64;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$';
}

bool IsTableName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), IsNameChar);
}

// Database records' keys: "!<database>"; "!" alone marks a file whose databases are recorded.
// '!' cannot start a table name, nor '/' be in one.
constexpr char kDatabasePrefix = '!';
std::string DatabaseRecordKey(std::string_view name) {
  return kDatabasePrefix + ToLowerAscii(name);
}
std::string TableRecordKey(std::string_view schema, std::string_view name) {
  std::string db = ToLowerAscii(schema);
  if (db == kDefaultDatabase) return ToLowerAscii(name);  // as files before databases have it
  return db + "/" + ToLowerAscii(name);
}
std::string TableRecordKey(const TableDef& def) { return TableRecordKey(def.schema, def.name); }

// A database record's value: "<name>\n<charset>\n<collation>".
std::string SerializeDatabaseDef(const DatabaseDef& def) {
  return def.name + "\n" + def.charset + "\n" + def.collation;
}
SqlResult<DatabaseDef> ParseDatabaseDef(std::string_view bytes) {
  DatabaseDef def;
  const size_t a = bytes.find('\n');
  const size_t b = a == std::string_view::npos ? a : bytes.find('\n', a + 1);
  if (b == std::string_view::npos) return SqlErr(kErUnknownError, "damaged database record");
  def.name = bytes.substr(0, a);
  def.charset = bytes.substr(a + 1, b - a - 1);
  def.collation = bytes.substr(b + 1);
  return def;
}

bool SameSchema(const TableDef& def, std::string_view schema) {
  return EqualsNoCase(def.schema, schema);
}

SqlError Internal(const Status& st) { return FromStatus(st); }

// Intent records' keys: '#' cannot start a table name, so they never meet a table's record.
constexpr char kIntentPrefix = '#';
std::string IntentKey(std::string_view keyspace) { return kIntentPrefix + std::string(keyspace); }

Status PutIntents(Transaction* txn, const Keyspace& catalog,
                  const std::vector<std::string>& names) {
  for (const std::string& n : names) RETURN_IF_ERROR(txn->Put(catalog, IntentKey(n), ""));
  return Status::OK();
}

Status EraseIntents(Transaction* txn, const Keyspace& catalog,
                    const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    Status st = txn->Erase(catalog, IntentKey(n));
    if (!st.ok() && !st.IsNotFound()) return st;
  }
  return Status::OK();
}

// The names in `a` that are not in `b`.
std::vector<std::string> Minus(const std::vector<std::string>& a,
                               const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& n : a)
    if (std::find(b.begin(), b.end(), n) == b.end()) out.push_back(n);
  return out;
}

// Sets the counters of `table` from its data (TableEngine::LoadCounters), in a transaction of
// its own.
SqlStatus LoadCounters(Database* db, OpenTable* table) {
  auto session = db->NewSession();
  if (!session.ok()) return Internal(session.status());
  auto txn = (*session)->Begin();
  if (!txn.ok()) return Internal(txn.status());
  TableLockAccess access;
  access.session = session->get();
  SQL_RETURN_IF_ERROR(OpenTableEngine(*table, txn->get(), IsolationLevel::kRepeatableRead, access)
                          ->LoadCounters(table->counters.get()));
  Status st = (*txn)->Commit();
  if (!st.ok()) return Internal(st);
  return SqlStatus::OK();
}

// Drops the keyspace or heap table (kHeapStoragePrefix) `name`; absent is fine.
Status DropStorageName(Database* db, const std::string& name) {
  Status st = name.starts_with(kHeapStoragePrefix) ? HeapTable::Drop(db, name.substr(1))
                                                   : db->DropKeyspace(name);
  return st.IsNotFound() ? Status::OK() : st;
}

}  // namespace

std::vector<std::string> StorageNamesOf(const TableDef& def) {
  if (def.table_locking()) return {kHeapStoragePrefix + def.keyspace};
  std::vector<std::string> names = {def.keyspace};
  for (const IndexDef& ix : def.indexes) names.push_back(ix.keyspace);
  return names;
}

SqlStatus OpenTableStorage(Database* db, const TableDef& def, OpenTable* table) {
  table->def = def;
  if (def.table_locking()) {
    auto heap = HeapTable::Open(db, def.keyspace);
    if (!heap.ok()) {
      return SqlErr(kErUnknownError, "Table '", def.name, "': heap table '", def.keyspace,
                    "': ", heap.status().ToString());
    }
    table->heap = *heap;
    return SqlStatus::OK();
  }
  auto ks = db->OpenKeyspace(def.keyspace);
  if (!ks.ok()) {
    return SqlErr(kErUnknownError, "Table '", def.name, "': keyspace '", def.keyspace,
                  "': ", ks.status().ToString());
  }
  table->clustered = *ks;
  for (const IndexDef& ix : def.indexes) {
    auto iks = db->OpenKeyspace(ix.keyspace);
    if (!iks.ok()) {
      return SqlErr(kErUnknownError, "Table '", def.name, "': keyspace '", ix.keyspace,
                    "': ", iks.status().ToString());
    }
    table->indexes.push_back(*iks);
  }
  return SqlStatus::OK();
}

SqlResult<std::unique_ptr<TableCatalog>> TableCatalog::Open(Database* db) {
  std::unique_ptr<TableCatalog> catalog(new TableCatalog(db));
  // Created at the first open; an existing one is only opened (a read-only database can).
  Status st;
  if (db->OpenKeyspace(kCatalogKeyspace).status().IsNotFound()) {
    st = db->CreateKeyspace(kCatalogKeyspace);
    if (!st.ok() && st.code() != Code::kDuplicateKey) return Internal(st);
  }
  auto ks = db->OpenKeyspace(kCatalogKeyspace);
  if (!ks.ok()) return Internal(ks.status());
  catalog->catalog_ks_ = *ks;

  // Every record: table definitions, and intents ("#<keyspace>").
  std::vector<TableDef> defs;
  std::vector<std::string> table_keys;  // defs' record keys
  std::vector<std::string> intents;
  std::vector<DatabaseDef> databases;
  bool databases_recorded = false;
  {
    auto session = db->NewSession();
    if (!session.ok()) return Internal(session.status());
    auto txn = (*session)->Begin();
    if (!txn.ok()) return Internal(txn.status());
    auto it = (*txn)->NewIterator(catalog->catalog_ks_);
    if (!it.ok()) return Internal(it.status());
    for (st = (*it)->SeekToFirst(); st.ok() && (*it)->Valid(); st = (*it)->Next()) {
      std::string_view key = (*it)->key();
      if (!key.empty() && key[0] == kIntentPrefix) {
        intents.emplace_back(key.substr(1));
        continue;
      }
      auto value = (*it)->value();
      if (!value.ok()) return Internal(value.status());
      if (!key.empty() && key[0] == kDatabasePrefix) {
        if (key.size() == 1) {
          databases_recorded = true;
        } else {
          SQL_ASSIGN_OR_RETURN(DatabaseDef db_def, ParseDatabaseDef(*value));
          databases.push_back(std::move(db_def));
        }
        continue;
      }
      SQL_ASSIGN_OR_RETURN(TableDef def, ParseTableDef(*value));
      table_keys.emplace_back(key);
      defs.push_back(std::move(def));
    }
    if (!st.ok()) return Internal(st);
    st = (*txn)->Commit();
    if (!st.ok()) return Internal(st);
  }

  // A file from before databases: just `test`, recorded now (a read-only open keeps it in
  // memory only).
  if (!databases_recorded) {
    databases = {DatabaseDef{kDefaultDatabase}};
    if (!db->options().read_only) {
      SQL_RETURN_IF_ERROR(catalog->Change(nullptr, [&](Transaction* txn) {
        RETURN_IF_ERROR(txn->Put(catalog->catalog_ks_, std::string(1, kDatabasePrefix), ""));
        return txn->Put(catalog->catalog_ks_, DatabaseRecordKey(kDefaultDatabase),
                        SerializeDatabaseDef(databases[0]));
      }));
    }
  }
  // Each table's database, as the database was named (its record key's prefix; none: `test`).
  for (size_t i = 0; i < defs.size(); ++i) {
    const size_t slash = table_keys[i].find('/');
    const std::string db_key =
        slash == std::string::npos ? kDefaultDatabase : table_keys[i].substr(0, slash);
    defs[i].schema = db_key;
    for (const DatabaseDef& d : databases)
      if (EqualsNoCase(d.name, db_key)) defs[i].schema = d.name;
  }
  {
    LatchGuard g(catalog->latch_);  // not published yet: uncontended, for the analysis
    catalog->databases_ = std::move(databases);
  }

  // Orphans: journaled keyspaces no table names (what a crash between a DDL's steps left). A
  // read-only database keeps them (they are not tables; the next writable open drops them).
  if (!intents.empty() && !db->options().read_only) {
    std::set<std::string> named;
    for (const TableDef& def : defs)
      for (std::string& n : StorageNamesOf(def)) named.insert(std::move(n));
    std::vector<std::string> orphans;
    for (const std::string& n : intents)
      if (named.count(n) == 0) orphans.push_back(n);
    for (const std::string& n : orphans) {
      st = DropStorageName(db, n);
      if (!st.ok()) return Internal(st);
    }
    SQL_RETURN_IF_ERROR(catalog->Change(nullptr, [&](Transaction* txn) {
      for (const std::string& n : intents) {
        Status est = txn->Erase(catalog->catalog_ks_, IntentKey(n));
        if (!est.ok() && !est.IsNotFound()) return est;
      }
      return Status::OK();
    }));
  }

  for (const TableDef& def : defs) {
    SQL_ASSIGN_OR_RETURN(std::shared_ptr<OpenTable> table, catalog->OpenHandles(def));
    table->counters = std::make_shared<TableCounters>();
    SQL_RETURN_IF_ERROR(LoadCounters(db, table.get()));
    LatchGuard g(catalog->latch_);  // not published yet: uncontended, for the analysis
    catalog->tables_.push_back(std::move(table));
  }
  return catalog;
}

SqlResult<std::shared_ptr<OpenTable>> TableCatalog::OpenHandles(const TableDef& def) {
  auto table = std::make_shared<OpenTable>();
  SQL_RETURN_IF_ERROR(OpenTableStorage(db_, def, table.get()));
  return table;
}

std::shared_ptr<const OpenTable> TableCatalog::Find(const TableName& name) const {
  LatchGuard g(latch_);
  for (const auto& t : tables_)
    if (EqualsNoCase(t->def.name, name.name) && SameSchema(t->def, name.schema)) return t;
  return nullptr;
}

std::vector<TableName> TableCatalog::TableNames(std::string_view schema) const {
  std::vector<TableName> names;
  {
    LatchGuard g(latch_);
    for (const auto& t : tables_)
      if (schema.empty() || SameSchema(t->def, schema))
        names.push_back(TableName{t->def.schema, t->def.name});
  }
  std::sort(names.begin(), names.end(), [](const TableName& a, const TableName& b) {
    const std::string da = ToLowerAscii(a.schema), db = ToLowerAscii(b.schema);
    if (da != db) return da < db;
    return a.name < b.name;
  });
  return names;
}

std::optional<DatabaseDef> TableCatalog::FindDatabase(std::string_view name) const {
  LatchGuard g(latch_);
  for (const DatabaseDef& d : databases_)
    if (EqualsNoCase(d.name, name)) return d;
  return std::nullopt;
}

std::vector<DatabaseDef> TableCatalog::Databases() const {
  std::vector<DatabaseDef> out;
  {
    LatchGuard g(latch_);
    out = databases_;
  }
  std::sort(out.begin(), out.end(), [](const DatabaseDef& a, const DatabaseDef& b) {
    return ToLowerAscii(a.name) < ToLowerAscii(b.name);
  });
  return out;
}

SqlStatus TableCatalog::CreateDatabase(const DatabaseDef& def) {
  if (!IsTableName(def.name))
    return SqlErr(kErWrongDbName, "Incorrect database name '", def.name, "'");
  LatchGuard ddl(ddl_latch_);
  if (FindDatabase(def.name).has_value()) {
    return SqlErr(kErDbCreateExists, "Can't create database '", def.name, "'; database exists");
  }
  SQL_RETURN_IF_ERROR(Change(nullptr, [&](Transaction* txn) {
    return txn->Put(catalog_ks_, DatabaseRecordKey(def.name), SerializeDatabaseDef(def));
  }));
  LatchGuard g(latch_);
  databases_.push_back(def);
  return SqlStatus::OK();
}

SqlStatus TableCatalog::AlterDatabase(const DatabaseDef& def) {
  LatchGuard ddl(ddl_latch_);
  std::optional<DatabaseDef> old = FindDatabase(def.name);
  if (!old.has_value()) return SqlErr(kErBadDb, "Unknown database '", def.name, "'");
  DatabaseDef altered = def;
  altered.name = old->name;
  SQL_RETURN_IF_ERROR(Change(nullptr, [&](Transaction* txn) {
    return txn->Put(catalog_ks_, DatabaseRecordKey(altered.name), SerializeDatabaseDef(altered));
  }));
  LatchGuard g(latch_);
  for (DatabaseDef& d : databases_) {
    if (EqualsNoCase(d.name, altered.name)) d = altered;
  }
  return SqlStatus::OK();
}

SqlStatus TableCatalog::DropDatabase(std::string_view name) {
  if (!FindDatabase(name).has_value()) {
    return SqlErr(kErDbDropExists, "Can't drop database '", name, "'; database doesn't exist");
  }
  auto session = db_->NewSession();
  if (!session.ok()) return Internal(session.status());
  auto txn = (*session)->Begin();
  if (!txn.ok()) return Internal(txn.status());
  TableLockAccess access;
  access.session = session->get();
  // The tables in it, each X-locked (the engine's table lock) before anything changes.
  std::vector<std::shared_ptr<const OpenTable>> locked;
  auto lock_new_tables = [&]() -> SqlStatus {
    for (const TableName& n : TableNames(name)) {
      std::shared_ptr<const OpenTable> t = Find(n);
      if (t == nullptr || std::find(locked.begin(), locked.end(), t) != locked.end()) continue;
      SQL_RETURN_IF_ERROR(
          OpenTableEngine(*t, txn->get(), IsolationLevel::kRepeatableRead, access)->LockForDdl());
      locked.push_back(std::move(t));
    }
    return SqlStatus::OK();
  };
  SQL_RETURN_IF_ERROR(lock_new_tables());
  LatchGuard ddl(ddl_latch_);
  if (!FindDatabase(name).has_value()) {  // dropped meanwhile
    return SqlErr(kErDbDropExists, "Can't drop database '", name, "'; database doesn't exist");
  }
  SQL_RETURN_IF_ERROR(lock_new_tables());  // a table made while the first ones were locked
  std::vector<std::shared_ptr<const OpenTable>> tables;
  std::vector<std::string> storage;
  for (const TableName& n : TableNames(name)) {
    tables.push_back(Find(n));
    for (std::string& s : StorageNamesOf(tables.back()->def)) storage.push_back(std::move(s));
  }
  // One transaction: the database and all its tables go, or (a crash before it commits) stay.
  Status st = Status::OK();
  for (const auto& t : tables) {
    if (st.ok()) st = (*txn)->Erase(catalog_ks_, TableRecordKey(t->def));
  }
  if (st.ok()) st = PutIntents(txn->get(), catalog_ks_, storage);
  if (st.ok()) st = (*txn)->Erase(catalog_ks_, DatabaseRecordKey(name));
  if (st.ok()) st = (*txn)->Commit();
  if (!st.ok()) return Internal(st);
  {
    LatchGuard g(latch_);
    for (const auto& t : tables) tables_.erase(std::find(tables_.begin(), tables_.end(), t));
    databases_.erase(std::find_if(databases_.begin(), databases_.end(), [&](const DatabaseDef& d) {
      return EqualsNoCase(d.name, name);
    }));
  }
  return DropKeyspaces(storage);
}

SqlStatus TableCatalog::Change(Transaction* txn,
                               const std::function<Status(Transaction*)>& change) {
  if (txn != nullptr) {
    Status st = change(txn);
    return st.ok() ? SqlStatus::OK() : SqlStatus(Internal(st));
  }
  auto session = db_->NewSession();
  if (!session.ok()) return Internal(session.status());
  auto own = (*session)->Begin();
  if (!own.ok()) return Internal(own.status());
  Status st = change(own->get());
  if (st.ok()) st = (*own)->Commit();
  return st.ok() ? SqlStatus::OK() : SqlStatus(Internal(st));
}

SqlStatus TableCatalog::CreateKeyspaces(const std::vector<std::string>& names,
                                        const KeyspaceOptions& options,
                                        std::string_view table_keyspace) {
  SQL_RETURN_IF_ERROR(
      Change(nullptr, [&](Transaction* txn) { return PutIntents(txn, catalog_ks_, names); }));
  KeyspaceOptions index_options = options;
  index_options.secondary_of = std::string(table_keyspace);
  for (size_t i = 0; i < names.size(); ++i) {
    Status st = db_->CreateKeyspace(names[i], names[i] == table_keyspace ? options : index_options);
    if (!st.ok()) {
      std::vector<std::string> created(names.begin(), names.begin() + static_cast<long>(i));
      (void)DropKeyspaces(created);
      (void)Change(nullptr,
                   [&](Transaction* txn) { return EraseIntents(txn, catalog_ks_, names); });
      return Internal(st);
    }
  }
  return SqlStatus::OK();
}

SqlStatus TableCatalog::CreateStorage(const TableDef& def) {
  if (!def.table_locking()) {
    KeyspaceOptions options;
    options.compression = def.compression;
    return CreateKeyspaces(StorageNamesOf(def), options, def.keyspace);
  }
  const std::vector<std::string> names = StorageNamesOf(def);
  SQL_RETURN_IF_ERROR(
      Change(nullptr, [&](Transaction* txn) { return PutIntents(txn, catalog_ks_, names); }));
  Status st = HeapTable::Create(db_, def.keyspace, HeapSpecOf(def));
  if (!st.ok()) {
    (void)Change(nullptr, [&](Transaction* txn) { return EraseIntents(txn, catalog_ks_, names); });
    return Internal(st);
  }
  return SqlStatus::OK();
}

SqlStatus TableCatalog::CreateTable(const TableDef& given, Transaction* txn) {
  TableDef def = given;
  if (!IsTableName(def.name))
    return SqlErr(kErWrongTableName, "Incorrect table name '", def.name, "'");
  LatchGuard ddl(ddl_latch_);
  std::optional<DatabaseDef> db = FindDatabase(def.schema);
  if (!db.has_value()) return SqlErr(kErBadDb, "Unknown database '", def.schema, "'");
  def.schema = db->name;  // as the database was named
  if (Find(TableName{def.schema, def.name}) != nullptr)
    return SqlErr(kErTableExists, "Table '", def.name, "' already exists");
  const std::vector<std::string> names = StorageNamesOf(def);
  SQL_RETURN_IF_ERROR(CreateStorage(def));
  auto table = OpenHandles(def);
  SqlStatus st = table.status();
  if (st.ok()) {
    (*table)->counters = std::make_shared<TableCounters>();
    (*table)->counters->next_auto_inc = std::max<uint64_t>(def.auto_increment_start, 1);
    st = Change(txn, [&](Transaction* t) {
      RETURN_IF_ERROR(t->Put(catalog_ks_, TableRecordKey(def), SerializeTableDef(def)));
      return EraseIntents(t, catalog_ks_, names);
    });
  }
  if (!st.ok()) {
    (void)DropKeyspaces(names);
    return st;
  }
  LatchGuard g(latch_);
  tables_.push_back(std::move(*table));
  return SqlStatus::OK();
}

SqlStatus TableCatalog::DropTable(const TableName& name) {
  std::shared_ptr<const OpenTable> table = Find(name);
  if (table == nullptr) return SqlErr(kErBadTable, "Unknown table '", QualifiedName(name), "'");
  // Take the X table locks first, so a lock wait times out (1205) before anything changed;
  // then remove the record in the same transaction.
  auto session = db_->NewSession();
  if (!session.ok()) return Internal(session.status());
  auto txn = (*session)->Begin();
  if (!txn.ok()) return Internal(txn.status());
  TableLockAccess access;
  access.session = session->get();
  SQL_RETURN_IF_ERROR(
      OpenTableEngine(*table, txn->get(), IsolationLevel::kRepeatableRead, access)->LockForDdl());
  {
    LatchGuard ddl(ddl_latch_);
    if (Find(name) != table) {  // replaced or dropped meanwhile
      return SqlErr(kErBadTable, "Unknown table '", QualifiedName(name), "'");
    }
    Status st = (*txn)->Erase(catalog_ks_, TableRecordKey(table->def));
    if (st.ok()) st = PutIntents(txn->get(), catalog_ks_, StorageNamesOf(table->def));
    if (st.ok()) st = (*txn)->Commit();
    if (!st.ok()) return Internal(st);
    LatchGuard g(latch_);
    tables_.erase(std::find(tables_.begin(), tables_.end(), table));
  }
  return DropKeyspaces(StorageNamesOf(table->def));
}

SqlStatus TableCatalog::DropUncommittedTable(const TableName& name) {
  std::shared_ptr<const OpenTable> table;
  {
    LatchGuard ddl(ddl_latch_);
    table = Find(name);
    if (table == nullptr) return SqlErr(kErBadTable, "Unknown table '", QualifiedName(name), "'");
    LatchGuard g(latch_);
    tables_.erase(std::find(tables_.begin(), tables_.end(), table));
  }
  return DropKeyspaces(StorageNamesOf(table->def));  // their intents are still committed
}

SqlStatus TableCatalog::ReplaceTable(const TableDef& def, Transaction* txn) {
  LatchGuard ddl(ddl_latch_);
  const TableName name{def.schema, def.name};
  std::shared_ptr<const OpenTable> old = Find(name);
  if (old == nullptr)
    return SqlErr(kErNoSuchTable, "Table '", QualifiedName(name), "' doesn't exist");
  SQL_ASSIGN_OR_RETURN(std::shared_ptr<OpenTable> table, OpenHandles(def));
  table->counters = old->counters;
  const std::vector<std::string> now = StorageNamesOf(def), before = StorageNamesOf(old->def);
  SQL_RETURN_IF_ERROR(Change(txn, [&](Transaction* t) {
    RETURN_IF_ERROR(t->Put(catalog_ks_, TableRecordKey(def), SerializeTableDef(def)));
    RETURN_IF_ERROR(EraseIntents(t, catalog_ks_, Minus(now, before)));
    return PutIntents(t, catalog_ks_, Minus(before, now));
  }));
  LatchGuard g(latch_);
  for (auto& t : tables_)
    if (t == old) t = std::move(table);
  return SqlStatus::OK();
}

SqlStatus TableCatalog::RenameTables(const std::vector<std::pair<TableName, TableName>>& renames) {
  LatchGuard ddl(ddl_latch_);
  // The tables by their key (TableKey) as each step leaves them: (name as written, table).
  std::map<std::string, std::pair<TableName, std::shared_ptr<const OpenTable>>> names;
  {
    LatchGuard g(latch_);
    for (const auto& t : tables_)
      names[TableKey(TableName{t->def.schema, t->def.name})] = {{t->def.schema, t->def.name}, t};
  }
  for (const auto& [from, to] : renames) {
    if (names.count(TableKey(to)) != 0)
      return SqlErr(kErTableExists, "Table '", to.name, "' already exists");
    auto it = names.find(TableKey(from));
    if (it == names.end())
      return SqlErr(kErNoSuchTable, "Table '", QualifiedName(from), "' doesn't exist");
    std::optional<DatabaseDef> db = FindDatabase(to.schema);
    if (!db.has_value()) return SqlErr(kErBadDb, "Unknown database '", to.schema, "'");
    if (!IsTableName(to.name))
      return SqlErr(kErWrongTableName, "Incorrect table name '", to.name, "'");
    std::shared_ptr<const OpenTable> table = it->second.second;
    names.erase(it);
    names[TableKey(to)] = {TableName{db->name, to.name}, std::move(table)};
  }
  // The tables whose name changed, each with its new handle (the old one's storage).
  std::vector<std::pair<std::shared_ptr<const OpenTable>, std::shared_ptr<OpenTable>>> moved;
  for (const auto& [key, entry] : names) {
    const auto& [name, table] = entry;
    if (table->def.name == name.name && table->def.schema == name.schema) continue;
    auto next = std::make_shared<OpenTable>(*table);
    next->def.name = name.name;
    next->def.schema = name.schema;
    moved.emplace_back(table, std::move(next));
  }
  SQL_RETURN_IF_ERROR(Change(nullptr, [&](Transaction* txn) {
    for (const auto& [old, next] : moved)  // every old record first: a swap reuses a key
      RETURN_IF_ERROR(txn->Erase(catalog_ks_, TableRecordKey(old->def)));
    for (const auto& [old, next] : moved)
      RETURN_IF_ERROR(
          txn->Put(catalog_ks_, TableRecordKey(next->def), SerializeTableDef(next->def)));
    return Status::OK();
  }));
  LatchGuard g(latch_);
  for (auto& t : tables_) {
    for (const auto& [old, next] : moved)
      if (t == old) t = next;
  }
  return SqlStatus::OK();
}

SqlStatus TableCatalog::DropKeyspaces(const std::vector<std::string>& names) {
  SqlStatus result;
  for (const std::string& n : names) {
    Status st = DropStorageName(db_, n);
    if (!st.ok() && result.ok()) result = Internal(st);
  }
  if (!result.ok()) return result;  // the intents stay: Open finishes the job
  return Change(nullptr, [&](Transaction* txn) { return EraseIntents(txn, catalog_ks_, names); });
}

std::string TableCatalog::NewKeyspaceName(std::string_view base,
                                          const std::vector<std::string>& also_taken) const {
  std::set<std::string> used(also_taken.begin(), also_taken.end());
  for (std::string_view n : kSystemKeyspaces) used.emplace(n);
  // One name space for both: a table may move between engines under its name.
  auto all = db_->ListKeyspaces();
  if (all.ok()) used.insert(all->begin(), all->end());
  auto heaps = HeapTable::List(db_);
  if (heaps.ok()) used.insert(heaps->begin(), heaps->end());
  {
    LatchGuard g(latch_);
    for (const auto& t : tables_) {
      for (std::string& n : StorageNamesOf(t->def)) {
        used.insert(n.starts_with(kHeapStoragePrefix) ? n.substr(1) : std::move(n));
      }
    }
  }
  if (base.size() <= kMaxKeyspaceName && used.count(std::string(base)) == 0)
    return std::string(base);
  // "<base>$<n>", the base cut short when the whole would pass 64 characters (an index
  // keyspace "<table>.<index>" of long names: the cut keeps it unique by its $n).
  for (uint64_t n = 2;; ++n) {
    std::string suffix = "$" + std::to_string(n);
    std::string name(base.substr(0, kMaxKeyspaceName - suffix.size()));
    if (!name.empty() && name.back() == '.') name.pop_back();
    name += suffix;
    if (used.count(name) == 0) return name;
  }
}

bool TableCatalog::DescribeKeyspace(std::string_view keyspace, TableName* table,
                                    std::string* index) const {
  LatchGuard g(latch_);
  for (const auto& t : tables_) {
    if (t->def.table_locking()) continue;  // no keyspaces
    if (t->def.keyspace == keyspace) {
      *table = TableName{t->def.schema, t->def.name};
      *index = t->def.has_hidden_primary_key() ? "GEN_CLUST_INDEX" : "PRIMARY";
      return true;
    }
    for (const IndexDef& ix : t->def.indexes) {
      if (ix.keyspace == keyspace) {
        *table = TableName{t->def.schema, t->def.name};
        *index = ix.name;
        return true;
      }
    }
  }
  return false;
}

}  // namespace minnow::sql
