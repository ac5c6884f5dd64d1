// Recovery: after a crash (the pool dropped unflushed, the redo log replayed into a fresh
// pool), RecoverActive finds the active transactions' logs with all their records, frees
// committed insert logs left in slots, and the history list survives.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "undo_test_util.h"

namespace minnow {
namespace {

using testing::InsertRecord;
using testing::RecordData;
using testing::S;
using testing::UndoFixture;
using testing::UpdateRecord;

struct Expected {
  std::vector<std::pair<uint64_t, size_t>> updates;  // (i, value length) by undo_no
  std::vector<bool> is_insert;                       // by undo_no
};

// Appends `n` records to t: updates (value length from `len`) and inserts, and remembers them.
void Fill(TrxUndo* t, uint64_t n, size_t (*len)(uint64_t), Expected* e) {
  for (uint64_t i = 0; i < n; ++i) {
    RecordData d;
    const bool insert = i % 4 == 1;
    auto p = insert ? t->Append(InsertRecord(i, &d)) : t->Append(UpdateRecord(i, len(i), &d));
    REQUIRE(p.ok());
    e->is_insert.push_back(insert);
    e->updates.emplace_back(i, insert ? 0 : len(i));
  }
}

// Rolls `t` back to `savepoint`, checking every record against `e`.
void RollbackChecked(TrxUndo* t, const Expected& e, uint64_t savepoint) {
  std::string buf;
  UndoRecord r;
  uint64_t want = t->next_undo_no();
  for (;;) {
    auto more = t->PeekNewest(savepoint, &buf, &r);
    INFO(more.status().ToString());
    REQUIRE(more.ok());
    if (!*more) break;
    REQUIRE(want > 0);
    --want;
    CHECK(r.undo_no == want);
    RecordData d;
    const auto [i, len] = e.updates[r.undo_no];
    if (e.is_insert[r.undo_no]) {
      CHECK(r.type == UndoType::kInsert);
      CHECK(S(r.key) == "i" + std::to_string(i));
    } else {
      UpdateRecord(i, len, &d);
      CHECK(r.type == UndoType::kUpdate);
      CHECK(S(r.old_value) == d.old_value);
    }
    REQUIRE(t->PopNewest().ok());
  }
  CHECK(want == savepoint);
}

size_t SmallLen(uint64_t i) { return 10 + i % 90; }
size_t MixedLen(uint64_t i) { return i == 77 ? 100 * 1024 : 30 + i % 300; }

TEST_CASE("recovery finds active logs, frees committed insert logs, keeps history", "[mvcc]") {
  UndoFixture fx(1024);  // never evicts: the replay may stop early
  // A committed transaction: its update log is in the history list.
  auto committed = fx.store()->NewTrxUndo(10);
  Expected ec;
  Fill(committed.get(), 100, SmallLen, &ec);
  RecordData d;
  const RollPtr kept = *committed->Append(UpdateRecord(500, 40, &d));
  REQUIRE(committed->Commit(15).ok());
  // Two active transactions, one partly rolled back.
  auto a = fx.store()->NewTrxUndo(20);
  Expected ea;
  Fill(a.get(), 600, MixedLen, &ea);
  auto b = fx.store()->NewTrxUndo(30);
  Expected eb;
  Fill(b.get(), 50, SmallLen, &eb);
  RollbackChecked(b.get(), eb, 20);
  // A commit whose large insert log is freed after its commit mtr: the crash comes between.
  auto big = fx.store()->NewTrxUndo(40);
  for (uint64_t i = 0; i < 8000; ++i) REQUIRE(big->Append(InsertRecord(i, &d)).ok());
  auto commit_lsn = big->Commit(45);
  REQUIRE(commit_lsn.ok());
  const uint64_t pages_before = fx.store()->stats().undo_pages;
  a.reset();
  b.reset();

  fx.CrashAndRecover(*commit_lsn);
  CHECK(fx.store()->history_length() == 1);
  auto rec = fx.store()->RecoverActive();
  INFO(rec.status().ToString());
  REQUIRE(rec.ok());
  REQUIRE(rec->size() == 2);
  TrxUndo* ra = (*rec)[0]->trx_id() == 20 ? (*rec)[0].get() : (*rec)[1].get();
  TrxUndo* rb = (*rec)[0]->trx_id() == 20 ? (*rec)[1].get() : (*rec)[0].get();
  CHECK(ra->trx_id() == 20);
  CHECK(rb->trx_id() == 30);
  CHECK(ra->records() == 600);
  CHECK(ra->next_undo_no() == 600);
  CHECK(rb->records() == 20);
  CHECK(rb->next_undo_no() == 20);
  CHECK(fx.store()->trx_id_bound() > 30);
  CHECK(fx.store()->stats().active_logs == 4);
  CHECK(fx.store()->stats().undo_pages == pages_before);  // the big insert log is gone
  std::string buf;
  UndoRecord r;
  REQUIRE(fx.store()->Read(kept, &buf, &r).ok());
  CHECK(r.undo_no == 100);

  // Roll a back halfway, crash again, and recover the rest.
  RollbackChecked(ra, ea, 300);
  rec->clear();
  fx.CrashAndRecover();
  auto again = fx.store()->RecoverActive();
  REQUIRE(again.ok());
  REQUIRE(again->size() == 2);
  for (auto& t : *again) {
    if (t->trx_id() == 20) {
      CHECK(t->records() == 300);
      RollbackChecked(t.get(), ea, 0);
    } else {
      RollbackChecked(t.get(), eb, 0);
    }
    REQUIRE(t->Discard().ok());
  }
  CHECK(fx.store()->stats().active_logs == 0);
  uint64_t purged = 0;
  auto done = fx.store()->PurgeOldest(100, [&](const UndoRecord&, TrxId id) {
    CHECK(id == 10);
    ++purged;
    return Status::OK();
  });
  REQUIRE(done.ok());
  CHECK(*done);
  CHECK(purged == 76);  // 75 updates of 100, and one more
  CHECK(fx.store()->stats().undo_pages == 0);
}

TEST_CASE("a clean reopen keeps the history list and the statistics", "[mvcc]") {
  UndoFixture fx;
  for (TrxId id = 1; id <= 3; ++id) {
    auto t = fx.store()->NewTrxUndo(id);
    RecordData d;
    for (uint64_t i = 0; i < 200; ++i) REQUIRE(t->Append(UpdateRecord(i, 100, &d)).ok());
    REQUIRE(t->Commit(id + 10).ok());
  }
  const UndoStoreStats before = fx.store()->stats();
  fx.CrashAndRecover();
  const UndoStoreStats after = fx.store()->stats();
  CHECK(after.history_length == 3);
  CHECK(after.undo_pages == before.undo_pages);
  auto rec = fx.store()->RecoverActive();
  REQUIRE(rec.ok());
  CHECK(rec->empty());
}

}  // namespace
}  // namespace minnow
