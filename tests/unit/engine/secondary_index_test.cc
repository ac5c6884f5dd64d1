// Secondary indexes as the SQL layer keeps them: a second keyspace of entries (index key +
// primary key), written in the same transaction as the row. Index entries are records like
// any other, with their own DB_TRX_ID and DB_ROLL_PTR, so a read through the index sees the
// entries its view sees: an index key changed after the view opened is found under its old
// value and not under its new one, and the row it leads to is read at the same view.
#include <chrono>
#include <map>
#include <thread>

#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;

// Index entry of row (pk, j): j + pk, empty value.
std::string Entry(const std::string& j, const std::string& pk) { return j + "|" + pk; }

// Sets row pk's j, keeping the index: delete-mark the old entry, insert the new one.
Status SetJ(Transaction* t, const Keyspace& rows, const Keyspace& index, const std::string& pk,
            const std::string& j) {
  std::string old;
  ASSIGN_OR_RETURN(bool found, t->Get(rows, pk, &old, {.lock_mode = LockMode::kExclusive}));
  if (found) RETURN_IF_ERROR(t->Erase(index, Entry(old, pk)));
  RETURN_IF_ERROR(t->Put(rows, pk, j));
  return t->Insert(index, Entry(j, pk), "");
}

// The rows whose j starts with `prefix`, read through the index, then the rows themselves.
std::map<std::string, std::string> ByPrefix(Transaction* t, const Keyspace& rows,
                                            const Keyspace& index, const std::string& prefix,
                                            LockMode mode = LockMode::kNone) {
  std::map<std::string, std::string> out;
  auto it = Take(t->NewIterator(index, {.lock_mode = mode}));
  REQUIRE_OK(it->Seek(prefix));
  while (it->Valid() && it->key().substr(0, prefix.size()) == prefix) {
    const std::string entry(it->key());
    const std::string pk = entry.substr(entry.find('|') + 1);
    std::string j;
    REQUIRE(*t->Get(rows, pk, &j, {.lock_mode = mode}));
    REQUIRE(entry == Entry(j, pk));  // the row agrees with its index entry, at this view
    out[pk] = j;
    REQUIRE_OK(it->Next());
  }
  return out;
}

TEST_CASE("a read through a secondary index sees the index and the rows at one view",
          "[engine][secondary]") {
  auto opts = SmallOptions(":memory:");
  opts.lock_wait_timeout_ms = 200;
  auto db = MustOpen(opts);
  Keyspace rows = MustKeyspace(db.get(), "t");
  Keyspace index = MustKeyspace(db.get(), "t.j");
  auto s1 = Take(db->NewSession());
  auto s2 = Take(db->NewSession());
  {
    auto t = MustBegin(s1.get());
    for (int i = 0; i < 200; ++i) {
      REQUIRE_OK(SetJ(t.get(), rows, index, "pk" + std::to_string(1000 + i),
                      (i % 2 ? "5" : "7") + std::to_string(i)));
    }
    REQUIRE_OK(t->Commit());
  }
  auto reader = MustBegin(s2.get());  // REPEATABLE READ
  const auto before = ByPrefix(reader.get(), rows, index, "5");
  REQUIRE(before.size() == 100);

  // Another transaction moves ten rows out of the '5' range and ten into it, and commits.
  {
    auto w = MustBegin(s1.get());
    for (int i = 1; i < 20; i += 2) {
      REQUIRE_OK(SetJ(w.get(), rows, index, "pk" + std::to_string(1000 + i), "9moved"));
    }
    for (int i = 0; i < 20; i += 2) {
      REQUIRE_OK(SetJ(w.get(), rows, index, "pk" + std::to_string(1000 + i), "5new"));
    }
    REQUIRE_OK(w->Commit());
  }
  // The reader's view: the same rows, with the same index keys.
  CHECK(ByPrefix(reader.get(), rows, index, "5") == before);
  // A locking read sees (and locks) the latest: 100 - 10 + 10 rows.
  auto locking = MustBegin(s1.get());
  const auto latest = ByPrefix(locking.get(), rows, index, "5", LockMode::kShare);
  CHECK(latest.size() == 100);
  CHECK(latest.count("pk1001") == 0);
  CHECK(latest.at("pk1000") == "5new");
  // A covering share scan locks index records only; the lookups lock the rows too.
  const TransactionLockInfo info = locking->lock_info();
  CHECK(info.row_locks >= 200);
  REQUIRE_OK(locking->Commit());
  REQUIRE_OK(reader->Commit());
  // Once no view needs them, purge removes the old, delete-marked index entries.
  for (int i = 0; i < 500 && db->stats().history_list_length > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(db->stats().history_list_length == 0);
  std::vector<KeyspaceCheck> reports;
  REQUIRE_OK(db->CheckIntegrity(&reports));
  for (const KeyspaceCheck& k : reports) CHECK(k.delete_marked == 0);
}

}  // namespace
}  // namespace minnow
