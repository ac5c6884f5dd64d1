// The table-locking engine through its public API (minnow/table_lock_engine.h): heap tables
// with indexes, table locks, concurrent insert, persistence, compaction, drop.
#include <algorithm>
#include <set>
#include <thread>

#include "common/types.h"
#include "engine_test_util.h"
#include "minnow/table_lock_engine.h"
#include "myisam/row_heap.h"  // kMaxHeapRowSize

namespace minnow {
namespace {

using testing::Key;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;
using testing::TempDir;

// Table t: index 0 "PRIMARY" (unique, the id), index 1 "v" (non-unique, the value's first
// byte plus a terminator, so no key is a prefix of another).
HeapTableSpec Spec() { return {.indexes = {{"PRIMARY", true}, {"v", false}}}; }
std::string VKey(const std::string& row) { return std::string(1, row[0]) + '\0'; }
std::vector<std::string> Keys(uint64_t id, const std::string& row) { return {Key(id), VKey(row)}; }
std::string Row(uint64_t id) {
  return std::string(1, static_cast<char>('a' + id % 3)) + "row" + std::to_string(id);
}

HeapLockOptions L(HeapLockType type, ConcurrentInsert ci = ConcurrentInsert::kAuto,
                  int timeout_ms = 0) {
  return HeapLockOptions{
      .type = type, .timeout = std::chrono::milliseconds(timeout_ms), .concurrent_insert = ci};
}

std::vector<std::pair<HeapRowId, std::string>> ScanAll(const HeapTable& t,
                                                       const HeapTableLock& lock) {
  std::vector<std::pair<HeapRowId, std::string>> out;
  auto scan = Take(t.Scan(lock));
  HeapRowId id;
  std::string row;
  while (Take(scan->Next(&id, &row))) out.emplace_back(id, row);
  return out;
}

TEST_CASE("heap table: insert, get, scan, lookup, range, update, delete", "[heap_table]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  auto s = Take(db->NewSession());
  REQUIRE_OK(HeapTable::Create(db.get(), "t", Spec()));
  REQUIRE_CODE(HeapTable::Create(db.get(), "t", Spec()), Code::kDuplicateKey);
  REQUIRE_CODE(HeapTable::Create(db.get(), "bad name", Spec()), Code::kInvalidArgument);
  REQUIRE_CODE(HeapTable::Create(db.get(), "u", {.indexes = {{"a", false}, {"a", true}}}),
               Code::kInvalidArgument);
  REQUIRE(Take(HeapTable::List(db.get())) == std::vector<std::string>{"t"});
  HeapTable t = Take(HeapTable::Open(db.get(), "t"));
  REQUIRE(t.indexes().size() == 2);
  REQUIRE_CODE(HeapTable::Open(db.get(), "nope").status(), Code::kNotFound);

  std::vector<HeapRowId> ids;
  {
    HeapTableLock w = Take(t.Lock(s.get(), L(HeapLockType::kWrite)));
    for (uint64_t i = 0; i < 30; ++i) ids.push_back(Take(t.Insert(w, Row(i), Keys(i, Row(i)))));
    REQUIRE_CODE(t.Insert(w, "zzz", Keys(5, "zzz")).status(), Code::kDuplicateKey);
    REQUIRE_CODE(t.Insert(w, "zzz", {Key(99)}).status(), Code::kInvalidArgument);
    std::string row;
    REQUIRE_OK(t.Get(w, ids[7], &row));
    REQUIRE(row == Row(7));
    REQUIRE(Take(t.GetKeys(w, ids[7])) == Keys(7, Row(7)));
    REQUIRE_OK(t.Check(w));
  }
  {
    HeapTableLock r = Take(t.Lock(s.get(), L(HeapLockType::kRead)));
    REQUIRE_CODE(t.Insert(r, "x", Keys(100, "x")).status(), Code::kInvalidArgument);
    REQUIRE_CODE(t.Compact(r), Code::kInvalidArgument);
    auto rows = ScanAll(t, r);
    REQUIRE(rows.size() == 30);
    for (size_t i = 0; i < rows.size(); ++i) {
      REQUIRE(rows[i].first == ids[i]);
      REQUIRE(rows[i].second == Row(i));
    }
    REQUIRE(Take(t.Lookup(r, 0, Key(12))) == std::vector<HeapRowId>{ids[12]});
    REQUIRE(Take(t.Lookup(r, 0, Key(1000))).empty());
    // Non-unique: every row whose value starts with 'b' (ids 1, 4, 7, ...), in position order.
    auto bs = Take(t.Lookup(r, 1, VKey("b")));
    std::vector<HeapRowId> want;
    for (uint64_t i = 1; i < 30; i += 3) want.push_back(ids[i]);
    std::sort(want.begin(), want.end());
    REQUIRE(bs == want);
    // Ranges in key order: ids 10..19 on the primary key, then limit.
    auto range = Take(t.Range(r, 0, Key(10), Key(20)));
    REQUIRE(range == std::vector<HeapRowId>(ids.begin() + 10, ids.begin() + 20));
    REQUIRE(Take(t.Range(r, 0, Key(25), "")).size() == 5);
    REQUIRE(Take(t.Range(r, 0, "", "", 3)).size() == 3);
    REQUIRE(Take(t.Range(r, 1, VKey("b"), VKey("c"))).size() == 10);
    // Descending: the same positions, last first; a limit takes the last ones.
    auto down = Take(t.RangeDescending(r, 0, Key(10), Key(20)));
    REQUIRE(down == std::vector<HeapRowId>(ids.rbegin() + 10, ids.rbegin() + 20));
    REQUIRE(Take(t.RangeDescending(r, 0, "", "", 2)) == std::vector<HeapRowId>{ids[29], ids[28]});
    REQUIRE(Take(t.RangeDescending(r, 0, Key(25), "")).size() == 5);
    // Non-unique: the 'b' entries in descending position order.
    auto bs_down = Take(t.RangeDescending(r, 1, VKey("b"), VKey("c")));
    REQUIRE(bs_down == std::vector<HeapRowId>(want.rbegin(), want.rend()));
    REQUIRE(Take(t.RangeDescending(r, 1, VKey("b"), VKey("c"), 1)) ==
            std::vector<HeapRowId>{want.back()});
    REQUIRE_CODE(t.Lookup(r, 2, "x").status(), Code::kInvalidArgument);
    HeapTableStats st = Take(t.stats());
    REQUIRE(st.rows == 30);
    REQUIRE(st.holes == 0);
    REQUIRE(st.data_free == 0);
    REQUIRE(st.index_length == 2 * kPageSize);
    REQUIRE(st.data_length > 0);
  }
  {
    HeapTableLock w = Take(t.Lock(s.get(), L(HeapLockType::kWrite)));
    // In place, with a changed non-unique key.
    REQUIRE(Take(t.Update(w, ids[3], "c-new", {Key(3), VKey("c")})) == ids[3]);
    // A unique key taken by another row: refused, nothing changed.
    REQUIRE_CODE(t.Update(w, ids[3], "x", {Key(4), VKey("x")}).status(), Code::kDuplicateKey);
    // A changed unique key.
    REQUIRE(Take(t.Update(w, ids[3], "c-new", {Key(300), VKey("c")})) == ids[3]);
    REQUIRE(Take(t.Lookup(w, 0, Key(3))).empty());
    REQUIRE(Take(t.Lookup(w, 0, Key(300))) == std::vector<HeapRowId>{ids[3]});
    // A row that no longer fits its page moves; its index entries follow.
    const std::string big(9000, 'q');
    REQUIRE(Take(t.Update(w, ids[6], big, {Key(6), VKey(big)})) == ids[6]);  // fits: in place
    HeapRowId moved = Take(t.Update(w, ids[5], big, {Key(5), VKey(big)}));
    REQUIRE(moved != ids[5]);
    REQUIRE(Take(t.Lookup(w, 0, Key(5))) == std::vector<HeapRowId>{moved});
    std::string row;
    REQUIRE_CODE(t.Get(w, ids[5], &row), Code::kNotFound);
    REQUIRE_OK(t.Get(w, moved, &row));
    REQUIRE(row == big);
    REQUIRE_OK(t.Delete(w, ids[8]));
    REQUIRE_CODE(t.Delete(w, ids[8]), Code::kNotFound);
    REQUIRE(Take(t.Lookup(w, 0, Key(8))).empty());
    REQUIRE(Take(t.has_holes()));
    HeapTableStats st = Take(t.stats());
    REQUIRE(st.rows == 29);
    REQUIRE(st.holes == 2);  // ids[5]'s old slot and ids[8]
    REQUIRE(st.data_free > 0);
    REQUIRE_OK(t.Check(w));
    // OPTIMIZE: no holes afterwards, every row and entry still there.
    REQUIRE_OK(t.Compact(w));
    REQUIRE_FALSE(Take(t.has_holes()));
    st = Take(t.stats());
    REQUIRE(st.rows == 29);
    REQUIRE(st.holes == 0);
    REQUIRE(st.data_free == 0);
    REQUIRE_OK(t.Check(w));
    REQUIRE(ScanAll(t, w).size() == 29);
    auto pk = Take(t.Lookup(w, 0, Key(5)));
    REQUIRE(pk.size() == 1);
    REQUIRE_OK(t.Get(w, pk[0], &row));
    REQUIRE(row == big);
  }
  std::vector<KeyspaceCheck> reports;
  REQUIRE_OK(db->CheckIntegrity(&reports));
  std::set<std::string> names;
  for (const KeyspaceCheck& k : reports) names.insert(k.name);
  REQUIRE(names.count("(heap catalog)") == 1);
  REQUIRE(names.count("t") == 1);
  REQUIRE(names.count("t.PRIMARY") == 1);
  REQUIRE(names.count("t.v") == 1);
}

TEST_CASE("heap table: persists across reopen", "[heap_table]") {
  TempDir dir;
  const Options o = SmallOptions(dir.file());
  std::vector<HeapRowId> ids;
  {
    auto db = MustOpen(o);
    auto s = Take(db->NewSession());
    REQUIRE_OK(HeapTable::Create(db.get(), "t", Spec()));
    REQUIRE_OK(HeapTable::Create(db.get(), "plain", {}));
    HeapTable t = Take(HeapTable::Open(db.get(), "t"));
    HeapTableLock w = Take(t.Lock(s.get(), L(HeapLockType::kWrite)));
    for (uint64_t i = 0; i < 500; ++i) ids.push_back(Take(t.Insert(w, Row(i), Keys(i, Row(i)))));
    for (uint64_t i = 0; i < 500; i += 5) REQUIRE_OK(t.Delete(w, ids[i]));
    REQUIRE_OK(w.Release());
    REQUIRE_OK(db->Close());
  }
  {
    auto db = MustOpen(o);
    REQUIRE_FALSE(db->recovery_report().recovered);
    auto s = Take(db->NewSession());
    REQUIRE(Take(HeapTable::List(db.get())) == std::vector<std::string>{"plain", "t"});
    HeapTable t = Take(HeapTable::Open(db.get(), "t"));
    REQUIRE(t.indexes().size() == 2);
    REQUIRE(t.indexes()[0].name == "PRIMARY");
    REQUIRE(t.indexes()[0].unique);
    REQUIRE_FALSE(t.indexes()[1].unique);
    REQUIRE(Take(t.has_holes()));
    HeapTableLock r = Take(t.Lock(s.get(), L(HeapLockType::kReadNoInsert)));
    REQUIRE(ScanAll(t, r).size() == 400);
    for (uint64_t i = 0; i < 500; ++i) {
      auto found = Take(t.Lookup(r, 0, Key(i)));
      if (i % 5 == 0) {
        REQUIRE(found.empty());
      } else {
        REQUIRE(found == std::vector<HeapRowId>{ids[i]});
      }
    }
    REQUIRE_OK(t.Check(r));
    REQUIRE_OK(r.Release());
    REQUIRE_OK(db->CheckIntegrity());
    REQUIRE_OK(db->Close());
  }
}

TEST_CASE("heap table: concurrent insert beside a reader", "[heap_table]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  auto reader = Take(db->NewSession());
  auto writer = Take(db->NewSession());
  REQUIRE_OK(HeapTable::Create(db.get(), "t", Spec()));
  HeapTable t = Take(HeapTable::Open(db.get(), "t"));
  std::vector<HeapRowId> ids;
  {
    HeapTableLock w = Take(t.Lock(writer.get(), L(HeapLockType::kWrite)));
    for (uint64_t i = 0; i < 10; ++i) ids.push_back(Take(t.Insert(w, Row(i), Keys(i, Row(i)))));
  }
  const DatabaseStats before = db->stats();

  SECTION("no holes: the appender runs beside the reader, who does not see its row") {
    HeapTableLock r = Take(t.Lock(reader.get(), L(HeapLockType::kRead)));
    HeapTableLock w = Take(
        t.Lock(writer.get(), L(HeapLockType::kWriteConcurrentInsert, ConcurrentInsert::kAuto)));
    REQUIRE(w.concurrent_insert());
    REQUIRE(w.type() == HeapLockType::kWriteConcurrentInsert);
    const HeapRowId added = Take(t.Insert(w, Row(10), Keys(10, Row(10))));
    REQUIRE(added > ids.back());  // appended
    // Beside readers it only appends.
    REQUIRE_CODE(t.Delete(w, ids[0]), Code::kInvalidArgument);
    REQUIRE_CODE(t.Update(w, ids[0], "x", Keys(0, "x")).status(), Code::kInvalidArgument);
    REQUIRE(ScanAll(t, r).size() == 10);
    std::string row;
    REQUIRE_CODE(t.Get(r, added, &row), Code::kNotFound);
    // The index already has it; Get filters it out for this reader.
    REQUIRE(Take(t.Lookup(r, 0, Key(10))) == std::vector<HeapRowId>{added});
    REQUIRE(ScanAll(t, w).size() == 11);
    REQUIRE_OK(w.Release());
    REQUIRE_OK(r.Release());
    // A new reader sees it.
    HeapTableLock r2 = Take(t.Lock(reader.get(), L(HeapLockType::kRead)));
    REQUIRE(ScanAll(t, r2).size() == 11);
    REQUIRE_OK(t.Get(r2, added, &row));
    const DatabaseStats after = db->stats();
    REQUIRE(after.table_locks_immediate - before.table_locks_immediate == 3);
    REQUIRE(after.table_locks_waited == before.table_locks_waited);
  }

  SECTION("two appenders beside a reader: each later reader sees the rows complete by then") {
    auto writer2 = Take(db->NewSession());
    auto reader2 = Take(db->NewSession());
    HeapTableLock r = Take(t.Lock(reader.get(), L(HeapLockType::kRead)));
    HeapTableLock w1 = Take(
        t.Lock(writer.get(), L(HeapLockType::kWriteConcurrentInsert, ConcurrentInsert::kAuto)));
    HeapTableLock w2 = Take(
        t.Lock(writer2.get(), L(HeapLockType::kWriteConcurrentInsert, ConcurrentInsert::kAuto)));
    REQUIRE(w1.concurrent_insert());
    REQUIRE(w2.concurrent_insert());
    const HeapRowId a = Take(t.Insert(w1, Row(10), Keys(10, Row(10))));
    const HeapRowId b = Take(t.Insert(w2, Row(11), Keys(11, Row(11))));
    REQUIRE(ids.back() < a);
    REQUIRE(a < b);  // appended in the order they were stored
    // The primary key is checked under the writers' latch: the second appender cannot store
    // a key the first one holds.
    REQUIRE_CODE(t.Insert(w2, Row(10), Keys(10, Row(10))).status(), Code::kDuplicateKey);
    // A reader granted now sees both rows; the first reader neither.
    HeapTableLock r2 = Take(t.Lock(reader2.get(), L(HeapLockType::kRead)));
    const HeapRowId c = Take(t.Insert(w1, Row(12), Keys(12, Row(12))));
    REQUIRE(ScanAll(t, r).size() == 10);
    REQUIRE(ScanAll(t, r2).size() == 12);
    std::string row;
    REQUIRE_OK(t.Get(r2, b, &row));
    REQUIRE(row == Row(11));
    REQUIRE_CODE(t.Get(r2, c, &row), Code::kNotFound);  // stored after r2's grant
    REQUIRE_CODE(t.Get(r, a, &row), Code::kNotFound);
    // READ_NO_INSERT waits for both appenders (here: times out).
    REQUIRE_CODE(
        t.Lock(reader2.get(), L(HeapLockType::kReadNoInsert, ConcurrentInsert::kAuto, 50)).status(),
        Code::kLockWaitTimeout);
    REQUIRE_OK(w1.Release());
    REQUIRE_OK(w2.Release());
    REQUIRE_OK(r.Release());
    REQUIRE_OK(r2.Release());
    HeapTableLock r3 = Take(t.Lock(reader.get(), L(HeapLockType::kRead)));
    REQUIRE(ScanAll(t, r3).size() == 13);
    REQUIRE_OK(r3.Release());
    const DatabaseStats after = db->stats();
    // The reader, two appenders, the second reader, the third: every one at once; one wait.
    REQUIRE(after.table_locks_immediate - before.table_locks_immediate == 5);
    REQUIRE(after.table_locks_waited - before.table_locks_waited == 1);
    HeapTableLock check = Take(t.Lock(reader.get(), L(HeapLockType::kReadNoInsert)));
    REQUIRE_OK(t.Check(check));
  }

  SECTION("stats takes no table lock: it runs beside another owner's WRITE, counting none") {
    HeapTableLock w = Take(t.Lock(writer.get(), L(HeapLockType::kWrite)));
    REQUIRE_OK(t.Delete(w, ids[2]));
    const HeapTableStats st = Take(t.stats());
    REQUIRE(st.rows == 9);
    REQUIRE(st.holes == 1);
    REQUIRE(st.max_data_length == (uint64_t{kInvalidPageNo} - 1) * kMaxHeapRowSize);
    const DatabaseStats after = db->stats();
    REQUIRE(after.table_locks_immediate - before.table_locks_immediate == 1);  // the WRITE
    REQUIRE(after.table_locks_waited == before.table_locks_waited);
    REQUIRE_OK(w.Release());
    REQUIRE_OK(HeapTable::Drop(db.get(), "t"));
    REQUIRE_CODE(t.stats().status(), Code::kInvalidArgument);
  }

  SECTION("READ_NO_INSERT keeps the appender out") {
    HeapTableLock r = Take(t.Lock(reader.get(), L(HeapLockType::kReadNoInsert)));
    REQUIRE_CODE(
        t.Lock(writer.get(), L(HeapLockType::kWriteConcurrentInsert, ConcurrentInsert::kAuto, 50))
            .status(),
        Code::kLockWaitTimeout);
    const DatabaseStats after = db->stats();
    REQUIRE(after.table_locks_immediate - before.table_locks_immediate == 1);
    REQUIRE(after.table_locks_waited - before.table_locks_waited == 1);
  }

  SECTION("holes are filled when no reader holds the table, appended past when one does") {
    {
      HeapTableLock w = Take(t.Lock(writer.get(), L(HeapLockType::kWrite)));
      REQUIRE_OK(t.Delete(w, ids[4]));
    }
    REQUIRE(Take(t.has_holes()));
    // concurrent_insert=AUTO with holes, no reader: the request becomes a WRITE; the row fills
    // the hole.
    {
      HeapTableLock w = Take(
          t.Lock(writer.get(), L(HeapLockType::kWriteConcurrentInsert, ConcurrentInsert::kAuto)));
      REQUIRE_FALSE(w.concurrent_insert());
      REQUIRE(w.type() == HeapLockType::kWrite);
      REQUIRE(Take(t.Insert(w, Row(20), Keys(20, Row(20)))) == ids[4]);
      REQUIRE_OK(t.Delete(w, ids[4]));
    }
    HeapTableLock r = Take(t.Lock(reader.get(), L(HeapLockType::kRead)));
    // AUTO with holes and a reader: the writer waits (here: times out).
    REQUIRE_CODE(
        t.Lock(writer.get(), L(HeapLockType::kWriteConcurrentInsert, ConcurrentInsert::kAuto, 50))
            .status(),
        Code::kLockWaitTimeout);
    // NEVER: waits too, even without holes mattering.
    REQUIRE_CODE(
        t.Lock(writer.get(), L(HeapLockType::kWriteConcurrentInsert, ConcurrentInsert::kNever, 50))
            .status(),
        Code::kLockWaitTimeout);
    // ALWAYS with a reader: granted beside it, and the row is appended past the hole.
    HeapTableLock w = Take(
        t.Lock(writer.get(), L(HeapLockType::kWriteConcurrentInsert, ConcurrentInsert::kAlways)));
    REQUIRE(w.concurrent_insert());
    const HeapRowId added = Take(t.Insert(w, Row(21), Keys(21, Row(21))));
    REQUIRE(added != ids[4]);
    REQUIRE(added > ids.back());
    REQUIRE(Take(t.has_holes()));
    REQUIRE(ScanAll(t, r).size() == 9);
    REQUIRE_OK(w.Release());
    REQUIRE_OK(r.Release());
    // The counters, exactly: 2 + 1 + 1 immediate grants (the two writes, the reader, the ALWAYS
    // appender), 2 waits (both timed out).
    const DatabaseStats after = db->stats();
    REQUIRE(after.table_locks_immediate - before.table_locks_immediate == 4);
    REQUIRE(after.table_locks_waited - before.table_locks_waited == 2);
  }
}

TEST_CASE("heap table: a waiting writer is granted when the reader releases", "[heap_table]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  auto reader = Take(db->NewSession());
  auto writer = Take(db->NewSession());
  REQUIRE_OK(HeapTable::Create(db.get(), "t", Spec()));
  HeapTable t = Take(HeapTable::Open(db.get(), "t"));
  HeapTableLock r = Take(t.Lock(reader.get(), L(HeapLockType::kRead)));
  Status got;
  std::thread th([&] {
    auto w = t.Lock(writer.get(), L(HeapLockType::kWrite, ConcurrentInsert::kAuto, 5000));
    got = w.status();
    if (w.ok()) got = t.Insert(*w, Row(1), Keys(1, Row(1))).status();
  });
  while (db->stats().table_locks_waited == 0) std::this_thread::yield();
  REQUIRE_OK(r.Release());
  th.join();
  REQUIRE_OK(got);
  const DatabaseStats s = db->stats();
  REQUIRE(s.table_locks_immediate == 1);
  REQUIRE(s.table_locks_waited == 1);

  // An interrupted wait ends with kAborted.
  HeapTableLock r2 = Take(t.Lock(reader.get(), L(HeapLockType::kRead)));
  writer->InterruptTableLockWait(true);
  REQUIRE_CODE(
      t.Lock(writer.get(), L(HeapLockType::kWrite, ConcurrentInsert::kAuto, 5000)).status(),
      Code::kAborted);
  writer->InterruptTableLockWait(false);
}

TEST_CASE("heap table: drop", "[heap_table]") {
  auto db = MustOpen(SmallOptions(":memory:"));
  auto s = Take(db->NewSession());
  REQUIRE_OK(HeapTable::Create(db.get(), "t", Spec()));
  HeapTable t = Take(HeapTable::Open(db.get(), "t"));
  const uint64_t free_before = db->stats().free_pages;
  {
    HeapTableLock w = Take(t.Lock(s.get(), L(HeapLockType::kWrite)));
    for (uint64_t i = 0; i < 300; ++i) (void)Take(t.Insert(w, Row(i), Keys(i, Row(i))));
  }
  {
    HeapTableLock r = Take(t.Lock(s.get(), L(HeapLockType::kRead)));
    std::thread th([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      (void)r.Release();  // a read lock: nothing to wait for (no assertion off the test's thread)
    });
    REQUIRE_OK(HeapTable::Drop(db.get(), "t"));  // waited for the reader
    th.join();
  }
  REQUIRE(db->stats().free_pages > free_before);
  REQUIRE_CODE(HeapTable::Open(db.get(), "t").status(), Code::kNotFound);
  REQUIRE_CODE(HeapTable::Drop(db.get(), "t"), Code::kNotFound);
  REQUIRE_CODE(t.Lock(s.get(), L(HeapLockType::kRead)).status(), Code::kInvalidArgument);
  REQUIRE(Take(HeapTable::List(db.get())).empty());
  REQUIRE_OK(db->CheckIntegrity());
  // The name can be used again.
  REQUIRE_OK(HeapTable::Create(db.get(), "t", {}));
  REQUIRE_OK(db->CheckIntegrity());
}

}  // namespace
}  // namespace minnow
