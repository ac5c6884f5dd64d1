// Heap tables (minnow/table_lock_engine.h) after a crash: a forked child killed in the middle
// of a row's index entries recovers with every acknowledged call there and the heap and its
// indexes consistent; and the repair that makes them so, exercised directly on a table whose
// heap and indexes were left apart.
#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/disk_backend.h"
#include "durability_test_util.h"
#include "engine/heap_table_internal.h"
#include "minnow/table_lock_engine.h"
#include "myisam/row_position.h"

namespace minnow {
namespace {

using testing::Child;
using testing::ChildOutcome;
using testing::DurableOptions;
using testing::FaultGuard;
using testing::Key;
using testing::MustOpen;
using testing::RunChild;
using testing::Take;
using testing::TempDir;

constexpr const char* kTable = "h";

HeapTableSpec Spec() { return {.indexes = {{"PRIMARY", true}, {"v", false}}}; }
// Version 1 (an update) is longer and starts with another letter (another key in index v).
std::string Value(uint64_t i, int version) {
  return std::string(1, static_cast<char>('a' + (i + version) % 4)) +
         std::string(40 + version * 300, 'x') + std::to_string(i);
}
std::string VKey(const std::string& v) { return std::string(1, v[0]) + '\0'; }
HeapLockOptions Write() { return {.type = HeapLockType::kWrite}; }

// Step i of the workload: insert row i; every third step deletes row i - 1; every fifth
// updates row i - 2 to a longer value (which may move it). Returns the rows after step i.
void ApplyStep(uint64_t i, std::map<uint64_t, std::string>* rows) {
  (*rows)[i] = Value(i, 0);
  if (i % 3 == 2) rows->erase(i - 1);
  if (i % 5 == 4 && rows->count(i - 2) != 0) (*rows)[i - 2] = Value(i - 2, 1);
}

Status RunStep(const HeapTable& t, Session* s, uint64_t i) {
  ASSIGN_OR_RETURN(HeapTableLock w, t.Lock(s, Write()));
  const std::string v = Value(i, 0);
  RETURN_IF_ERROR(t.Insert(w, v, {Key(i), VKey(v)}).status());
  if (i % 3 == 2) {
    ASSIGN_OR_RETURN(auto ids, t.Lookup(w, 0, Key(i - 1)));
    if (ids.size() != 1) return Status::Corruption("row " + std::to_string(i - 1) + " missing");
    RETURN_IF_ERROR(t.Delete(w, ids[0]));
  }
  if (i % 5 == 4) {
    ASSIGN_OR_RETURN(auto ids, t.Lookup(w, 0, Key(i - 2)));
    if (!ids.empty()) {
      const std::string nv = Value(i - 2, 1);
      RETURN_IF_ERROR(t.Update(w, ids[0], nv, {Key(i - 2), VKey(nv)}).status());
    }
  }
  return w.Release();  // the step is durable (acknowledged) once this returns
}

// Every row of table `kTable` by its primary key (index 0, big-endian Key()), after checking
// the table and that each row's index entries point at it.
std::map<uint64_t, std::string> CheckedRows(Database* db) {
  auto s = Take(db->NewSession());
  HeapTable t = Take(HeapTable::Open(db, kTable));
  HeapTableLock r = Take(t.Lock(s.get(), {.type = HeapLockType::kReadNoInsert}));
  REQUIRE_OK(t.Check(r));
  std::map<uint64_t, std::string> got;
  auto scan = Take(t.Scan(r));
  HeapRowId id;
  std::string row;
  while (Take(scan->Next(&id, &row))) {
    const std::vector<std::string> keys = Take(t.GetKeys(r, id));
    uint64_t k = 0;
    for (char c : keys[0]) k = (k << 8) | static_cast<unsigned char>(c);
    got[k] = row;
    REQUIRE(Take(t.Lookup(r, 0, keys[0])) == std::vector<HeapRowId>{id});
    auto same_v = Take(t.Lookup(r, 1, keys[1]));
    REQUIRE(std::find(same_v.begin(), same_v.end(), id) != same_v.end());
  }
  return got;
}

// The recovered table holds the rows after step `last_ack` plus what the interrupted step
// `last_ack + 1` had done: nothing, its insert, its insert and delete, or all of it (each
// call is atomic once repaired); and every index agrees with the heap.
void VerifyRecovered(Database* db, int64_t last_ack) {
  std::map<uint64_t, std::string> before;
  for (int64_t i = 0; i <= last_ack; ++i) ApplyStep(static_cast<uint64_t>(i), &before);
  const uint64_t next = static_cast<uint64_t>(last_ack + 1);
  std::vector<std::map<uint64_t, std::string>> allowed{before};
  allowed.push_back(before);
  allowed.back()[next] = Value(next, 0);
  allowed.push_back(allowed.back());
  if (next % 3 == 2) allowed.back().erase(next - 1);
  allowed.push_back(before);
  ApplyStep(next, &allowed.back());
  const std::map<uint64_t, std::string> got = CheckedRows(db);
  INFO("rows recovered: " << got.size() << ", after the last acknowledged step: " << before.size());
  REQUIRE(std::find(allowed.begin(), allowed.end(), got) != allowed.end());
  REQUIRE_OK(db->CheckIntegrity());
}

TEST_CASE("heap table: a crash in the middle of index changes recovers consistent",
          "[heap_table][durability]") {
  FaultGuard faults;
  // The n-th index entry of an insert (or update) dies; a keyspace writer beside it fsyncs the
  // log now and then, so some crashes find the row's heap change durable and its entries not.
  const uint64_t hit = GENERATE(as<uint64_t>{}, 3, 58, 211, 404);
  const std::string point =
      GENERATE(as<std::string>{}, "heap_table.insert.index", "heap_table.update.index");
  INFO("crash at hit " << hit << " of " << point);
  TempDir dir;
  const Options o = DurableOptions(dir.file());
  {
    auto db = MustOpen(o);
    REQUIRE_OK(db->CreateKeyspace("k"));
    REQUIRE_OK(HeapTable::Create(db.get(), kTable, Spec()));
    REQUIRE_OK(db->Close());
  }
  const ChildOutcome out = RunChild([&](Child& c) {
    auto db = c.Take(Database::Open(o), "open");
    HeapTable t = c.Take(HeapTable::Open(db.get(), kTable), "open table");
    Keyspace ks = c.Take(db->OpenKeyspace("k"), "open keyspace");
    std::atomic<bool> stop{false};
    std::thread committer([&] {
      auto s = c.Take(db->NewSession(), "session");
      for (uint64_t n = 0; !stop.load(); ++n) {
        c.Ok(s->Put(ks, Key(n % 64), "v"), "keyspace commit");
      }
    });
    auto s = c.Take(db->NewSession(), "session");
    ArmCrashPoint(point, hit);
    for (uint64_t i = 0; i < 5000; ++i) {
      c.Ok(RunStep(t, s.get(), i), "step " + std::to_string(i));
      c.Ack(i);
    }
    stop.store(true);
    committer.join();
    c.Fail("the crash point was not reached");
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  auto db = MustOpen(o);
  INFO(db->recovery_report().ToString());
  REQUIRE(db->recovery_report().recovered);
  VerifyRecovered(db.get(), out.last_ack());
  REQUIRE_OK(db->Close());
  // And once more after a clean close.
  auto again = MustOpen(o);
  REQUIRE_FALSE(again->recovery_report().recovered);
  VerifyRecovered(again.get(), out.last_ack());
}

// Create, Drop and Compact killed in the middle: a crash leaks pages at worst. The table
// being compacted keeps every row (in the old heap or the new one), the one being dropped is
// there whole or gone, the one being created is not there; the file checks clean.
TEST_CASE("heap table: a crash inside Create, Drop or Compact loses no row",
          "[heap_table][durability]") {
  FaultGuard faults;
  struct Case {
    const char* point;
    uint64_t hit;
  };
  const Case c = GENERATE(Case{"heap_table.compact.move", 1}, Case{"heap_table.compact.move", 150},
                          Case{"heap_table.compact.published", 1}, Case{"heap_table.drop.free", 1},
                          Case{"heap_table.create.record", 1});
  const std::string point = c.point;
  INFO("crash at hit " << c.hit << " of " << point);
  TempDir dir;
  const Options o = DurableOptions(dir.file());
  std::map<uint64_t, std::string> rows;
  {
    auto db = MustOpen(o);
    REQUIRE_OK(db->CreateKeyspace("k"));
    REQUIRE_OK(HeapTable::Create(db.get(), kTable, Spec()));
    HeapTable t = Take(HeapTable::Open(db.get(), kTable));
    auto s = Take(db->NewSession());
    HeapTableLock w = Take(t.Lock(s.get(), Write()));
    std::vector<HeapRowId> ids;
    for (uint64_t i = 0; i < 300; ++i) {
      const std::string v = Value(i, 0);
      ids.push_back(Take(t.Insert(w, v, {Key(i), VKey(v)})));
      rows[i] = v;
    }
    for (uint64_t i = 0; i < 300; i += 3) {  // holes, so that Compact moves rows
      REQUIRE_OK(t.Delete(w, ids[i]));
      rows.erase(i);
    }
    REQUIRE_OK(w.Release());
    REQUIRE_OK(db->Close());
  }
  const ChildOutcome out = RunChild([&](Child& ch) {
    auto db = ch.Take(Database::Open(o), "open");
    Keyspace ks = ch.Take(db->OpenKeyspace("k"), "open keyspace");
    // A keyspace writer fsyncs the log now and then, so a crash finds more of the DDL durable.
    std::atomic<bool> stop{false};
    std::thread committer([&] {
      auto s = ch.Take(db->NewSession(), "session");
      for (uint64_t n = 0; !stop.load(); ++n) ch.Ok(s->Put(ks, Key(n % 64), "v"), "commit");
    });
    ArmCrashPoint(point, c.hit);
    if (point == "heap_table.drop.free") {
      ch.Ok(HeapTable::Drop(db.get(), kTable), "drop");
    } else if (point == "heap_table.create.record") {
      ch.Ok(HeapTable::Create(db.get(), "fresh", Spec()), "create");
    } else {
      HeapTable t = ch.Take(HeapTable::Open(db.get(), kTable), "open table");
      auto s = ch.Take(db->NewSession(), "session");
      HeapTableLock w = ch.Take(t.Lock(s.get(), Write()), "lock");
      ch.Ok(t.Compact(w), "compact");
    }
    stop.store(true);
    committer.join();
    ch.Fail("the crash point was not reached");
  });
  INFO(out.Describe());
  REQUIRE(out.crashed());
  for (int reopen = 0; reopen < 2; ++reopen) {  // after recovery, then after a clean close
    auto db = MustOpen(o);
    INFO(db->recovery_report().ToString());
    // (The first open may find nothing to redo: a crash before any of the call's log was
    // written.)
    if (reopen == 1) REQUIRE_FALSE(db->recovery_report().recovered);
    const auto names = Take(HeapTable::List(db.get()));
    if (point == "heap_table.drop.free" && names.empty()) {
      // The drop's record removal was durable: the table is gone.
    } else {
      REQUIRE(names == std::vector<std::string>{kTable});
      REQUIRE(CheckedRows(db.get()) == rows);
    }
    REQUIRE_OK(db->CheckIntegrity());
    REQUIRE_OK(db->Close());
  }
}

// The repair itself, on a table whose heap holds rows its indexes lack (and an index entry of
// a row the heap no longer has), as a crash between the two can leave them.
TEST_CASE("heap table: repair rebuilds indexes that disagree with the heap", "[heap_table]") {
  BufferPoolOptions bpo;
  bpo.pool_bytes = 4u << 20;
  bpo.background_flusher = false;
  auto pool = Take(BufferPool::Open(NewMemoryBackend(NewMemoryDisk()), bpo));
  TxnServices svc;
  svc.pool = pool.get();
  auto tables = Take(HeapTables::Open(pool.get(), &svc, std::chrono::milliseconds(1000)));
  REQUIRE_OK(tables->Create("t", Spec()));
  HeapTableState* t = Take(tables->Find("t"));
  // A stored row: each key as len:u16 (little-endian) and bytes, then the row.
  auto record = [](const std::string& k0, const std::string& k1, const std::string& row) {
    std::string r;
    for (const std::string* k : {&k0, &k1}) {
      r.push_back(static_cast<char>(k->size() & 0xff));
      r.push_back(static_cast<char>(k->size() >> 8));
      r += *k;
    }
    return r + row;
  };
  std::vector<RowPosition> pos;
  for (uint64_t i = 0; i < 20; ++i) {
    const std::string v = Value(i, 0);
    pos.push_back(Take(t->heap->Insert(AsBytes(record(Key(i), VKey(v), v)), InsertMode::kAppend)));
  }
  REQUIRE_CODE(tables->CrossCheck(t, nullptr), Code::kCorruption);
  // An entry pointing at no row.
  REQUIRE_OK(t->indexes[0].tree->Insert(AsBytes(Key(99)),
                                        AsBytes(EncodeRowPosition(RowPosition{pos[0].page, 500}))));
  REQUIRE(Take(tables->RepairAfterCrash()) == 1);
  REQUIRE_OK(tables->CrossCheck(t, nullptr));
  std::string value;
  REQUIRE(Take(t->indexes[0].tree->Get(AsBytes(Key(7)), &value)));
  REQUIRE(Take(DecodeRowPosition(AsBytes(value))) == pos[7]);
  REQUIRE_FALSE(Take(t->indexes[0].tree->Get(AsBytes(Key(99)), &value)));
  REQUIRE(Take(tables->RepairAfterCrash()) == 0);  // nothing left to mend
}

}  // namespace
}  // namespace minnow
