// The status views read live lock structs and counters: data_locks, data_lock_waits,
// innodb_trx, processlist, SHOW STATUS / VARIABLES / ENGINES and SHOW ENGINE INNODB STATUS.
// Tables are made through the SQL catalog and filled with row_codec's encodings; transactions
// are the engine's, installed in SessionStates as the session code does.
#include "sql_lite_front/status/status_views.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/session/session_state.h"

namespace minnow::sql {
namespace {

ColumnDef Column(const char* name, ColumnType type, uint32_t length, bool nullable) {
  ColumnDef c;
  c.name = name;
  c.type = type;
  c.length = length;
  c.nullable = nullable;
  return c;
}

// sample (i INT PRIMARY KEY, j VARCHAR(32), KEY j (j)); nopk (j VARCHAR(32)) with a hidden row
// id; and a bare keyspace "kvspace" that no table owns.
struct Fixture {
  std::unique_ptr<Database> db;
  std::unique_ptr<SqlEngineState> engine;
  std::vector<std::unique_ptr<SessionState>> sessions;
  Keyspace sample, sample_j, nopk, kv;
  TableDef def;

  explicit Fixture(uint32_t lock_wait_timeout_ms = 20000) {
    Options o;
    o.path = ":memory:";
    o.buffer_pool_bytes = 8u << 20;
    o.lock_wait_timeout_ms = lock_wait_timeout_ms;
    db = std::move(Database::Open(o)).value();
    auto catalog = TableCatalog::Open(db.get());
    REQUIRE(catalog.ok());
    engine = std::make_unique<SqlEngineState>(db.get(), std::move(catalog).value());

    def.name = "sample";
    def.keyspace = "sample";
    def.columns = {Column("i", ColumnType::kInt, 0, false),
                   Column("j", ColumnType::kVarchar, 32, true)};
    def.primary_key = {0};
    def.indexes = {IndexDef{"j", {1}, "sample.j"}};
    REQUIRE(engine->catalog->CreateTable(def).ok());
    TableDef hidden;
    hidden.name = "nopk";
    hidden.keyspace = "nopk";
    hidden.columns = {Column("j", ColumnType::kVarchar, 32, true)};
    REQUIRE(engine->catalog->CreateTable(hidden).ok());
    REQUIRE(db->CreateKeyspace("kvspace").ok());

    auto open = engine->catalog->Find({"test", "sample"});
    REQUIRE(open != nullptr);
    sample = open->clustered;
    sample_j = open->indexes.at(0);
    nopk = engine->catalog->Find({"test", "nopk"})->clustered;
    kv = *db->OpenKeyspace("kvspace");

    auto s = std::move(db->NewSession()).value();
    auto load = std::move(s->Begin()).value();
    for (int64_t i = 1; i <= 5; ++i) {
      const Row row = {Value::Int(i), Value::String(fmt::format("v{}", i))};
      std::string value;
      EncodeRowValue(def, row, &value);
      REQUIRE(load->Put(sample, Pk(i), value).ok());
      REQUIRE(load->Put(sample_j, IndexKey(i), "").ok());
      REQUIRE(load->Put(nopk, RowId(static_cast<uint64_t>(i)), value).ok());
      REQUIRE(load->Put(kv, fmt::format("key{}", i), "v").ok());
    }
    REQUIRE(load->Commit().ok());
  }

  ~Fixture() {
    for (auto& s : sessions) {
      LatchGuard g(s->txn_latch);
      s->txn.reset();
    }
    {
      LatchGuard g(engine->sessions_latch);
      engine->sessions.clear();
    }
    sessions.clear();
    engine.reset();
    (void)db->Close();
  }

  std::string Pk(int64_t i) const { return EncodePrimaryKey(def, {Value::Int(i), Value()}); }
  std::string IndexKey(int64_t i) const {
    const Row row = {Value::Int(i), Value::String(fmt::format("v{}", i))};
    return EncodeIndexKey(def, def.indexes[0], row, Pk(i));
  }
  static std::string RowId(uint64_t id) {
    std::string k;
    AppendRowId(id, &k);
    return k;
  }

  SessionState* NewSession() {
    const uint64_t id = engine->next_session_id.fetch_add(1);
    sessions.push_back(
        std::make_unique<SessionState>(engine.get(), id, std::move(db->NewSession()).value()));
    SessionState* s = sessions.back().get();
    LatchGuard g(engine->sessions_latch);
    engine->sessions.push_back(s);
    return s;
  }

  Transaction* Begin(SessionState* s) {
    auto txn = std::move(s->kv_session->Begin()).value();
    LatchGuard g(s->txn_latch);
    s->txn = std::move(txn);
    return s->txn.get();
  }

  static void SetQuery(SessionState* s, std::string q) {
    LatchGuard g(s->query_latch);
    s->query = std::move(q);
    s->query_start = std::chrono::steady_clock::now();
  }

  ExecContext Ctx(SessionState* s, StatusCounters* counts = nullptr) {
    ExecContext ctx;
    ctx.engine = engine.get();
    ctx.session = s;
    ctx.db = db.get();
    ctx.catalog = engine->catalog.get();
    ctx.txn = s != nullptr ? s->txn.get() : nullptr;
    ctx.counts = counts;
    return ctx;
  }

  SystemTable Read(const char* schema, const char* name, SessionState* s = nullptr) {
    ExecContext ctx = Ctx(s);
    auto t = ReadSystemTable(ctx, {schema, name});
    REQUIRE(t.ok());
    return std::move(t).value();
  }
};

// A row's cell by column name, printed ("NULL" for NULL).
std::string Cell(const SystemTable& t, const Row& row, std::string_view column) {
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i] == column) return row[i].is_null() ? "NULL" : row[i].ToString();
  }
  FAIL("no column " << column);
  return "";
}

// The rows whose `column` equals `value`.
std::vector<const Row*> Where(const SystemTable& t, std::string_view column,
                              std::string_view value) {
  std::vector<const Row*> out;
  for (const Row& r : t.rows) {
    if (Cell(t, r, column) == value) out.push_back(&r);
  }
  return out;
}

std::string ShowText(Fixture& f, SessionState* s, ShowStmt::Kind kind) {
  ShowStmt show;
  show.kind = kind;
  ExecContext ctx = f.Ctx(s);
  auto r = ExecuteShowStatus(ctx, show);
  REQUIRE(r.ok());
  REQUIRE(r->rows.size() == 1);
  return r->rows[0].at(2).value_or("");
}

std::map<std::string, std::string> ShowNameValues(Fixture& f, SessionState* s, ShowStmt::Kind kind,
                                                  VarScope scope, std::optional<std::string> like,
                                                  StatusCounters* counts = nullptr) {
  ShowStmt show;
  show.kind = kind;
  show.scope = scope;
  show.like = std::move(like);
  ExecContext ctx = f.Ctx(s, counts);
  auto r = ExecuteShowStatus(ctx, show);
  REQUIRE(r.ok());
  REQUIRE(r->columns == std::vector<std::string>{"Variable_name", "Value"});
  std::map<std::string, std::string> out;
  std::vector<std::string> order;
  for (const auto& row : r->rows) {
    out[*row[0]] = *row[1];
    order.push_back(*row[0]);
  }
  CHECK(std::is_sorted(order.begin(), order.end()));
  return out;
}

TEST_CASE("LIKE: % and _ and escapes, byte-exact", "[sql][status]") {
  CHECK(LikeMatch("innodb_row_lock_waits", "innodb_row_lock%"));
  CHECK(LikeMatch("abc", "a_c"));
  CHECK(LikeMatch("abc", "%"));
  CHECK(LikeMatch("", "%"));
  CHECK(LikeMatch("abc", "%b%"));
  CHECK(LikeMatch("aXbXc", "a%b%c"));
  CHECK(LikeMatch("mississippi", "%iss%pi"));
  CHECK(!LikeMatch("abc", "ab"));
  CHECK(!LikeMatch("abc", "a_"));
  CHECK(!LikeMatch("ABC", "abc"));  // the SHOW callers lower-case both sides
  CHECK(LikeMatch("a_c", "a\\_c"));
  CHECK(!LikeMatch("abc", "a\\_c"));
  CHECK(LikeMatch("50%", "50\\%"));
  CHECK(!LikeMatch("500", "50\\%"));
}

TEST_CASE("data_locks: tables, indexes and keys in MySQL's words", "[sql][status]") {
  Fixture f;
  SessionState* a = f.NewSession();
  Transaction* txn = f.Begin(a);
  std::string v;
  REQUIRE(*txn->Get(f.sample, f.Pk(2), &v, {.lock_mode = LockMode::kExclusive}));
  REQUIRE(*txn->Get(f.sample_j, f.IndexKey(3), &v, {.lock_mode = LockMode::kShare}));
  REQUIRE(*txn->Get(f.nopk, Fixture::RowId(2), &v, {.lock_mode = LockMode::kExclusive}));
  REQUIRE(*txn->Get(f.kv, "key4", &v, {.lock_mode = LockMode::kExclusive}));

  const SystemTable t = f.Read("PERFORMANCE_SCHEMA", "Data_Locks");
  CHECK(t.columns.size() == 15);
  const std::string trx = std::to_string(txn->id());
  const std::string thread = std::to_string(a->id);
  std::vector<std::string> seen;
  for (const Row& r : t.rows) {
    CHECK(Cell(t, r, "ENGINE") == "INNODB");
    CHECK(Cell(t, r, "ENGINE_TRANSACTION_ID") == trx);
    CHECK(Cell(t, r, "THREAD_ID") == thread);
    CHECK(Cell(t, r, "OBJECT_SCHEMA") == "test");
    CHECK(Cell(t, r, "LOCK_STATUS") == "GRANTED");
    CHECK(Cell(t, r, "ENGINE_LOCK_ID").rfind(trx + ":", 0) == 0);
    seen.push_back(fmt::format("{} {} {} {} {}", Cell(t, r, "OBJECT_NAME"),
                               Cell(t, r, "INDEX_NAME"), Cell(t, r, "LOCK_TYPE"),
                               Cell(t, r, "LOCK_MODE"), Cell(t, r, "LOCK_DATA")));
  }
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<std::string>{
                    "kvspace NULL TABLE IX NULL",
                    "kvspace PRIMARY RECORD X,REC_NOT_GAP 'key4'",
                    "nopk GEN_CLUST_INDEX RECORD X,REC_NOT_GAP 0x000000000002",
                    "nopk NULL TABLE IX NULL",
                    // One table lock per table: the index's IS is the table's, which
                    // the IX already covers (InnoDB's lock_table_has).
                    "sample NULL TABLE IX NULL",
                    "sample PRIMARY RECORD X,REC_NOT_GAP 2",
                    "sample j RECORD S,REC_NOT_GAP 'v3', 3",
                });
  // Lock ids are unique, and stable from one read to the next.
  std::set<std::string> ids;
  for (const Row& r : t.rows) ids.insert(Cell(t, r, "ENGINE_LOCK_ID"));
  CHECK(ids.size() == t.rows.size());
  const SystemTable again = f.Read("performance_schema", "data_locks");
  std::set<std::string> ids_again;
  for (const Row& r : again.rows) ids_again.insert(Cell(again, r, "ENGINE_LOCK_ID"));
  CHECK(ids == ids_again);

  REQUIRE(txn->Commit().ok());
  CHECK(f.Read("performance_schema", "data_locks").rows.empty());
}

TEST_CASE("system tables: unknown names are 1146", "[sql][status]") {
  Fixture f;
  ExecContext ctx = f.Ctx(nullptr);
  auto r = ReadSystemTable(ctx, {"performance_schema", "no_such"});
  REQUIRE(!r.ok());
  CHECK(r.error().code == 1146);
  CHECK(r.error().message == "Table 'performance_schema.no_such' doesn't exist");
  CHECK(!ReadSystemTable(ctx, {"information_schema", "data_locks"}).ok());
  CHECK(IsSystemSchema("Information_Schema"));
  CHECK(IsSystemSchema("performance_schema"));
  CHECK(!IsSystemSchema("test"));
}

TEST_CASE("a lock wait: data_lock_waits, innodb_trx, processlist and the monitor agree",
          "[sql][status]") {
  Fixture f;
  SessionState* a = f.NewSession();
  SessionState* b = f.NewSession();
  Transaction* holder = f.Begin(a);
  Transaction* waiter = f.Begin(b);
  std::string v;
  REQUIRE(*holder->Get(f.sample, f.Pk(2), &v, {.lock_mode = LockMode::kExclusive}));
  REQUIRE(holder->Put(f.sample, f.Pk(4), v).ok());  // an undo log entry
  const std::string query = "SELECT * FROM sample WHERE i = 2 FOR UPDATE";
  Fixture::SetQuery(b, query);
  Status wait_st;
  std::thread t([&] {
    wait_st = waiter->Get(f.sample, f.Pk(2), {.lock_mode = LockMode::kExclusive}).status();
  });

  SystemTable waits;
  for (int i = 0; i < 2000 && waits.rows.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    waits = f.Read("performance_schema", "data_lock_waits");
  }
  REQUIRE(waits.rows.size() == 1);
  const Row& w = waits.rows[0];
  CHECK(Cell(waits, w, "REQUESTING_ENGINE_TRANSACTION_ID") == std::to_string(waiter->id()));
  CHECK(Cell(waits, w, "BLOCKING_ENGINE_TRANSACTION_ID") == std::to_string(holder->id()));
  CHECK(Cell(waits, w, "REQUESTING_THREAD_ID") == std::to_string(b->id));
  CHECK(Cell(waits, w, "BLOCKING_THREAD_ID") == std::to_string(a->id));

  // The ids name rows of data_locks: the waiting request and the granted lock.
  const SystemTable locks = f.Read("performance_schema", "data_locks");
  auto requested = Where(locks, "ENGINE_LOCK_ID", Cell(waits, w, "REQUESTING_ENGINE_LOCK_ID"));
  auto blocking = Where(locks, "ENGINE_LOCK_ID", Cell(waits, w, "BLOCKING_ENGINE_LOCK_ID"));
  REQUIRE(requested.size() == 1);
  REQUIRE(blocking.size() == 1);
  CHECK(Cell(locks, *requested[0], "LOCK_STATUS") == "WAITING");
  CHECK(Cell(locks, *requested[0], "LOCK_DATA") == "2");
  CHECK(Cell(locks, *blocking[0], "LOCK_STATUS") == "GRANTED");
  CHECK(Cell(locks, *blocking[0], "ENGINE_TRANSACTION_ID") == std::to_string(holder->id()));
  CHECK(Cell(waits, w, "BLOCKING_OBJECT_INSTANCE_BEGIN") ==
        Cell(locks, *blocking[0], "OBJECT_INSTANCE_BEGIN"));

  const SystemTable trx = f.Read("information_schema", "INNODB_TRX");
  CHECK(trx.columns.size() == 25);
  auto waiting = Where(trx, "trx_id", std::to_string(waiter->id()));
  auto running = Where(trx, "trx_id", std::to_string(holder->id()));
  REQUIRE(waiting.size() == 1);
  REQUIRE(running.size() == 1);
  CHECK(Cell(trx, *waiting[0], "trx_state") == "LOCK WAIT");
  CHECK(Cell(trx, *waiting[0], "trx_mysql_thread_id") == std::to_string(b->id));
  CHECK(Cell(trx, *waiting[0], "trx_query") == query);
  CHECK(Cell(trx, *waiting[0], "trx_requested_lock_id") ==
        Cell(waits, w, "REQUESTING_ENGINE_LOCK_ID"));
  CHECK(Cell(trx, *waiting[0], "trx_isolation_level") == "REPEATABLE READ");
  CHECK(Cell(trx, *running[0], "trx_state") == "RUNNING");
  CHECK(Cell(trx, *running[0], "trx_query") == "NULL");
  CHECK(Cell(trx, *running[0], "trx_requested_lock_id") == "NULL");
  const TransactionLockInfo held = holder->lock_info();
  CHECK(Cell(trx, *running[0], "trx_lock_structs") == std::to_string(held.lock_structs));
  CHECK(Cell(trx, *running[0], "trx_lock_memory_bytes") == std::to_string(held.heap_bytes));
  CHECK(Cell(trx, *running[0], "trx_rows_locked") == std::to_string(held.row_locks));
  CHECK(Cell(trx, *running[0], "trx_rows_modified") == "1");
  CHECK(Cell(trx, *running[0], "trx_started").size() == 19);  // YYYY-MM-DD HH:MM:SS
  CHECK(Cell(trx, *running[0], "trx_wait_started") == "NULL");
  CHECK(Cell(trx, *waiting[0], "trx_wait_started").size() == 19);
  CHECK(Cell(trx, *waiting[0], "trx_wait_started") >= Cell(trx, *waiting[0], "trx_started"));
  CHECK(Cell(trx, *waiting[0], "trx_rows_locked") == "1");  // the record it waits for

  const SystemTable pl = f.Read("information_schema", "processlist");
  REQUIRE(pl.rows.size() == 2);
  CHECK(Cell(pl, pl.rows[0], "ID") == std::to_string(a->id));
  CHECK(Cell(pl, pl.rows[0], "COMMAND") == "Sleep");
  CHECK(Cell(pl, pl.rows[0], "INFO") == "NULL");
  CHECK(Cell(pl, pl.rows[1], "COMMAND") == "Query");
  CHECK(Cell(pl, pl.rows[1], "INFO") == query);

  // SHOW ENGINE INNODB STATUS: the same counts as the transactions report of themselves.
  const std::string status = ShowText(f, a, ShowStmt::Kind::kEngineInnodbStatus);
  INFO(status);
  CHECK(status.find("INNODB MONITOR OUTPUT") != std::string::npos);
  CHECK(status.find(fmt::format("---TRANSACTION {}, ACTIVE", holder->id())) != std::string::npos);
  CHECK(status.find(fmt::format("\n{} lock struct(s), heap size {}, {} row lock(s), undo log "
                                "entries 1\nMySQL thread id {},",
                                held.lock_structs, held.heap_bytes, held.row_locks, a->id)) !=
        std::string::npos);
  const TransactionLockInfo wl = waiter->lock_info();
  CHECK(status.find(fmt::format("\nLOCK WAIT {} lock struct(s), heap size {}, {} row lock(s)\n",
                                wl.lock_structs, wl.heap_bytes, wl.row_locks)) !=
        std::string::npos);
  CHECK(status.find(fmt::format("Total number of lock structs in row lock hash table {}\n",
                                f.db->stats().record_lock_structs)) != std::string::npos);
  CHECK(status.find("------- TRX HAS BEEN WAITING") != std::string::npos);
  CHECK(status.find(fmt::format("index `PRIMARY` of table `test`.`sample` trx id {} lock_mode X "
                                "locks rec but not gap waiting",
                                waiter->id())) != std::string::npos);
  // BUFFER POOL AND MEMORY: the pool's frames, free or holding a page (a frame being loaded by
  // a background thread is momentarily neither).
  const DatabaseStats pool = f.db->stats();
  CHECK(pool.pool_free_frames + pool.pool_pages <= pool.pool_frames);
  CHECK(pool.pool_pages > 0);
  CHECK(pool.pages_created > 0);
  CHECK(status.find(fmt::format("\nBuffer pool size   {}\nFree buffers       ",
                                pool.pool_frames)) != std::string::npos);
  CHECK(status.find("\nDatabase pages     ") != std::string::npos);
  CHECK(status.find(fmt::format(", created {}, written ", pool.pages_created)) !=
        std::string::npos);
  CHECK(status.find("END OF INNODB MONITOR OUTPUT") != std::string::npos);

  const auto st =
      ShowNameValues(f, a, ShowStmt::Kind::kStatus, VarScope::kGlobal, "innodb_row_lock%");
  CHECK(st.at("Innodb_row_lock_current_waits") == "1");
  CHECK(st.size() == 5);

  REQUIRE(holder->Commit().ok());
  t.join();
  CHECK(wait_st.ok());
  CHECK(ShowNameValues(f, a, ShowStmt::Kind::kStatus, VarScope::kDefault, "Innodb_row_lock_waits")
            .at("Innodb_row_lock_waits") == "1");
}

TEST_CASE("SHOW STATUS: session and global counters", "[sql][status]") {
  Fixture f;
  SessionState* a = f.NewSession();
  SessionState* b = f.NewSession();
  {
    LatchGuard g(a->status_latch);
    a->status.handler_read_key = 7;
    a->status.questions = 3;
  }
  {
    LatchGuard g(f.engine->status_latch);
    f.engine->global_status.handler_read_key = 10;
    f.engine->global_status.questions = 5;
    f.engine->global_status.innodb_rows_read = 42;
  }
  StatusCounters running;  // the statement that runs SHOW
  running.questions = 1;
  auto session =
      ShowNameValues(f, a, ShowStmt::Kind::kStatus, VarScope::kSession, std::nullopt, &running);
  CHECK(session.at("Handler_read_key") == "7");
  CHECK(session.at("Questions") == "4");
  CHECK(session.at("Innodb_rows_read") == "42");  // global whatever the scope
  CHECK(session.at("Threads_connected") == "2");
  auto global = ShowNameValues(f, b, ShowStmt::Kind::kStatus, VarScope::kGlobal, std::nullopt);
  CHECK(global.at("Handler_read_key") == "10");
  CHECK(global.at("Questions") == "5");
  CHECK(global.count("Uptime") == 1);
  CHECK(global.count("Innodb_buffer_pool_pages_total") == 1);
  auto like = ShowNameValues(f, b, ShowStmt::Kind::kStatus, VarScope::kDefault, "HANDLER_READ_%");
  CHECK(like.size() == 6);
  CHECK(like.count("Handler_read_rnd_next") == 1);
  CHECK(like.count("Handler_read_last") == 1);
}

TEST_CASE("SHOW VARIABLES, ENGINES, WARNINGS, PROCESSLIST", "[sql][status]") {
  Fixture f;
  SessionState* a = f.NewSession();
  REQUIRE(a->vars.Set("innodb_lock_wait_timeout", Value::Int(5)).ok());
  auto session =
      ShowNameValues(f, a, ShowStmt::Kind::kVariables, VarScope::kDefault, "innodb_lock%");
  CHECK(session == std::map<std::string, std::string>{{"innodb_lock_wait_timeout", "5"}});
  auto global = ShowNameValues(f, a, ShowStmt::Kind::kVariables, VarScope::kGlobal,
                               "innodb_lock_wait_timeout");
  CHECK(global.at("innodb_lock_wait_timeout") == "20");
  CHECK(ShowNameValues(f, a, ShowStmt::Kind::kVariables, VarScope::kDefault, "autocommit")
            .at("autocommit") == "ON");

  ExecContext ctx = f.Ctx(a);
  ShowStmt show;
  show.kind = ShowStmt::Kind::kEngines;
  auto engines = ExecuteShowStatus(ctx, show);
  REQUIRE(engines.ok());
  REQUIRE(engines->rows.size() == 2);
  CHECK(engines->rows[0][0] == "InnoDB");
  CHECK(engines->rows[0][1] == "DEFAULT");
  CHECK(engines->rows[1][0] == "MyISAM");
  CHECK(engines->rows[1][3] == "NO");  // Transactions
  show.kind = ShowStmt::Kind::kWarnings;
  auto warnings = ExecuteShowStatus(ctx, show);
  REQUIRE(warnings.ok());
  CHECK(warnings->columns == std::vector<std::string>{"Level", "Code", "Message"});
  CHECK(warnings->rows.empty());
  show.kind = ShowStmt::Kind::kProcesslist;
  Fixture::SetQuery(a, "SHOW PROCESSLIST");
  auto pl = ExecuteShowStatus(ctx, show);
  REQUIRE(pl.ok());
  CHECK(pl->columns ==
        std::vector<std::string>{"Id", "User", "Host", "db", "Command", "Time", "State", "Info"});
  REQUIRE(pl->rows.size() == 1);
  CHECK(pl->rows[0][4] == "Query");
  CHECK(pl->rows[0][7] == "SHOW PROCESSLIST");
}

TEST_CASE("SHOW ENGINE INNODB STATUS reports the latest deadlock", "[sql][status]") {
  Fixture f;
  SessionState* a = f.NewSession();
  SessionState* b = f.NewSession();
  Transaction* ta = f.Begin(a);
  Transaction* tb = f.Begin(b);
  std::string v;
  CHECK(ShowText(f, a, ShowStmt::Kind::kEngineInnodbStatus).find("LATEST DETECTED DEADLOCK") ==
        std::string::npos);
  REQUIRE(*ta->Get(f.sample, f.Pk(1), &v, {.lock_mode = LockMode::kExclusive}));
  REQUIRE(*tb->Get(f.sample, f.Pk(2), &v, {.lock_mode = LockMode::kExclusive}));
  const uint64_t a_id = ta->id(), b_id = tb->id();
  Status a_st;
  std::thread t(
      [&] { a_st = ta->Get(f.sample, f.Pk(2), &v, {.lock_mode = LockMode::kExclusive}).status(); });
  for (int i = 0; i < 2000 && f.db->stats().row_lock_current_waits == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::string v2;
  const Status b_st = tb->Get(f.sample, f.Pk(1), &v2, {.lock_mode = LockMode::kExclusive}).status();
  if (b_st.ok()) {
    REQUIRE(tb->Commit().ok());  // `a` was the victim
  } else {
    REQUIRE(b_st.code() == Code::kDeadlock);
  }
  t.join();
  CHECK((a_st.code() == Code::kDeadlock) != (b_st.code() == Code::kDeadlock));
  const uint64_t victim = a_st.code() == Code::kDeadlock ? a_id : b_id;

  const std::string status = ShowText(f, a, ShowStmt::Kind::kEngineInnodbStatus);
  INFO(status);
  const size_t at = status.find("\nLATEST DETECTED DEADLOCK\n");
  REQUIRE(at != std::string::npos);
  CHECK(at < status.find("\nTRANSACTIONS\n"));
  for (const char* part :
       {"*** (1) TRANSACTION:\nTRANSACTION ", "*** (1) HOLDS THE LOCK(S):\n",
        "*** (1) WAITING FOR THIS LOCK TO BE GRANTED:\n", "*** (2) TRANSACTION:\n",
        "*** (2) WAITING FOR THIS LOCK TO BE GRANTED:\n"}) {
    CHECK(status.find(part) != std::string::npos);
  }
  // Each transaction waited for the record the other held, in the table's words.
  CHECK(status.find(fmt::format("index `PRIMARY` of table `test`.`sample` trx id {} lock_mode X "
                                "locks rec but not gap waiting",
                                a_id)) != std::string::npos);
  CHECK(status.find(fmt::format("index `PRIMARY` of table `test`.`sample` trx id {} lock_mode X "
                                "locks rec but not gap waiting",
                                b_id)) != std::string::npos);
  const std::optional<DeadlockReport> report = f.db->LatestDeadlock();
  REQUIRE(report.has_value());
  REQUIRE(report->victim_trx_id == victim);
  size_t victim_no = 0;
  for (size_t i = 0; i < report->cycle.size(); ++i) {
    if (report->cycle[i].trx_id == victim) victim_no = i + 1;
  }
  CHECK(status.find(fmt::format("*** WE ROLL BACK TRANSACTION ({})\n", victim_no)) !=
        std::string::npos);
}

TEST_CASE("a stage's percent stays within 0..100", "[sql][status]") {
  StageProgress p;
  StageScope stage(&p, StatementStage::kCopyToTmpTable, 1000);
  CHECK(ReadStage(p).stage == StatementStage::kCopyToTmpTable);
  CHECK(ReadStage(p).percent() == 0);
  stage.Add(256);
  CHECK(ReadStage(p).work_completed == 256);
  CHECK(ReadStage(p).work_estimated == 1000);
  CHECK(ReadStage(p).percent() == Approx(25.6));
  stage.Add(744);
  CHECK(ReadStage(p).percent() == 100);
  // More rows than the estimate (rows the count did not see): the estimate is raised to the
  // rows done, the percent stays 100.
  stage.Add(24);
  CHECK(ReadStage(p).work_estimated == 1024);
  CHECK(ReadStage(p).percent() == 100);
  // A stage with nothing estimated (an empty source, the rename after the copy) shows 0%
  // until work is done.
  stage.Enter(StatementStage::kRenameResultTable, 0);
  CHECK(ReadStage(p).work_completed == 0);
  CHECK(ReadStage(p).percent() == 0);
  CHECK(std::string(StageStateName(ReadStage(p).stage)) == "rename result table");
  CHECK(StageEventName(StatementStage::kCopyToTmpTable) == "stage/sql/copy to tmp table");
  CHECK(StageEventName(StatementStage::kNone).empty());
}

TEST_CASE("a stage's listener hears each batch of work with the stage's place", "[sql][status]") {
  struct Heard : StageListener {
    std::vector<StageReport> reports;
    void OnStageWork(const StageReport& r) override { reports.push_back(r); }
  } heard;
  StageProgress p;
  p.listener = &heard;
  {
    StageScope stage(&p, StatementStage::kNone, 0);  // TRUNCATE's: not told
    stage.Add(5);
    stage.Enter(StatementStage::kCopyToTmpTable, 100);
    stage.Add(40);
    stage.Add(80);  // past the estimate: the estimate follows
    stage.Enter(StatementStage::kRenameResultTable, 0);
    stage.Add(1);
  }
  REQUIRE(heard.reports.size() == 3);
  CHECK(std::string(heard.reports[0].name) == "copy to tmp table");
  CHECK(heard.reports[0].stage == 1);
  CHECK(heard.reports[0].max_stage == 2);
  CHECK(heard.reports[0].work_completed == 40);
  CHECK(heard.reports[0].work_estimated == 100);
  CHECK(heard.reports[1].work_completed == 120);
  CHECK(heard.reports[1].work_estimated == 120);
  CHECK(std::string(heard.reports[2].name) == "rename result table");
  CHECK(heard.reports[2].stage == 2);
  CHECK(heard.reports[2].max_stage == 2);
  p.listener = nullptr;
  StageScope index(&p, StatementStage::kAlteringTable, 10);
  index.Add(10);  // no listener: nothing told
  CHECK(heard.reports.size() == 3);
  CHECK(ReportStage(ReadStage(p)).max_stage == 1);
}

TEST_CASE("a stage ends with its scope", "[sql][status]") {
  StageProgress p;
  {
    StageScope stage(&p, StatementStage::kAlteringTable, 10);
    CHECK(ReadStage(p).stage == StatementStage::kAlteringTable);
  }
  CHECK(ReadStage(p).stage == StatementStage::kNone);
  StageScope none(nullptr, StatementStage::kCopyToTmpTable, 10);  // no session: nothing kept
  none.Add(5);
}

}  // namespace
}  // namespace minnow::sql
