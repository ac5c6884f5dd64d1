// UndoStore and TrxUndo: appends, reads by roll pointer, rollback order, commit, discard,
// purge, records spanning pages, undo bigger than the pool, slot exhaustion.

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "buffer_pool/mtr.h"
#include "mvcc/undo_page_format.h"
#include "undo_test_util.h"

namespace minnow {
namespace {

using testing::InsertRecord;
using testing::RecordData;
using testing::S;
using testing::UndoFixture;
using testing::UpdateRecord;

// Appends update record i (value of `len` bytes) and returns its roll pointer.
RollPtr AppendUpdate(TrxUndo* t, uint64_t i, size_t len) {
  RecordData d;
  auto p = t->Append(UpdateRecord(i, len, &d));
  INFO(p.status().ToString());
  REQUIRE(p.ok());
  CHECK_FALSE(RollPtrIsInsert(*p));
  return *p;
}

RollPtr AppendInsert(TrxUndo* t, uint64_t i) {
  RecordData d;
  auto p = t->Append(InsertRecord(i, &d));
  INFO(p.status().ToString());
  REQUIRE(p.ok());
  CHECK(RollPtrIsInsert(*p));
  return *p;
}

// Reads `p` and checks it is update record i with an old value of `len` bytes.
void CheckUpdate(UndoStore* store, RollPtr p, uint64_t i, size_t len, uint64_t undo_no) {
  std::string buf;
  UndoRecord r;
  Status st = store->Read(p, &buf, &r);
  INFO(st.ToString());
  REQUIRE(st.ok());
  RecordData d;
  UndoRecord want = UpdateRecord(i, len, &d);
  CHECK(r.type == UndoType::kUpdate);
  CHECK(r.undo_no == undo_no);
  CHECK(S(r.key) == d.key);
  CHECK(r.old_trx_id == want.old_trx_id);
  CHECK(r.old_roll_ptr == want.old_roll_ptr);
  CHECK(r.old_delete_marked == want.old_delete_marked);
  CHECK(r.old_value.size() == len);
  CHECK(S(r.old_value) == d.old_value);
}

// Rolls back everything (savepoint 0) and returns the undo_nos in the order seen.
std::vector<uint64_t> RollbackAll(TrxUndo* t, uint64_t savepoint = 0) {
  std::vector<uint64_t> seen;
  std::string buf;
  UndoRecord r;
  for (;;) {
    auto more = t->PeekNewest(savepoint, &buf, &r);
    INFO(more.status().ToString());
    REQUIRE(more.ok());
    if (!*more) break;
    seen.push_back(r.undo_no);
    Status st = t->PopNewest();
    INFO(st.ToString());
    REQUIRE(st.ok());
  }
  return seen;
}

TEST_CASE("appended records are read back by roll pointer", "[mvcc]") {
  UndoFixture fx;
  auto t = fx.store()->NewTrxUndo(100);
  CHECK(t->empty());
  CHECK_FALSE(t->has_update_log());
  std::vector<RollPtr> ptrs;
  for (uint64_t i = 0; i < 2000; ++i) {
    if (i % 3 == 0) {
      AppendInsert(t.get(), i);
      ptrs.push_back(0);
    } else {
      ptrs.push_back(AppendUpdate(t.get(), i, i % 200));
    }
  }
  CHECK(t->records() == 2000);
  CHECK(t->next_undo_no() == 2000);
  CHECK(t->has_update_log());
  for (uint64_t i = 0; i < 2000; ++i) {
    if (ptrs[i] != 0) CheckUpdate(fx.store(), ptrs[i], i, i % 200, i);
  }
  const UndoStoreStats st = fx.store()->stats();
  CHECK(st.active_logs == 2);
  CHECK(st.undo_pages > 10);
  std::string buf;
  UndoRecord r;
  CHECK(fx.store()->Read(ptrs[1] | kRollPtrInsertBit, &buf, &r).code() == Code::kCorruption);
  CHECK(fx.store()->Read(ptrs[1] + 3, &buf, &r).code() == Code::kCorruption);
  CHECK(fx.store()->Read(MakeRollPtr(false, 0, 100), &buf, &r).code() == Code::kCorruption);
}

TEST_CASE("a small append logs about a hundred bytes of redo", "[mvcc]") {
  UndoFixture fx;
  auto t = fx.store()->NewTrxUndo(5);
  AppendUpdate(t.get(), 0, 20);  // creates the log (a page image)
  std::vector<Lsn> costs;
  for (uint64_t i = 1; i < 50; ++i) {
    const Lsn before = fx.log()->current_lsn();
    AppendUpdate(t.get(), i, 20);  // payload 17 + key 2-3 + 18 + 20 = ~58 bytes
    costs.push_back(fx.log()->current_lsn() - before);
  }
  std::sort(costs.begin(), costs.end());
  INFO("redo bytes per ~58-byte undo record append: median " << costs[costs.size() / 2]);
  CHECK(costs[costs.size() / 2] <= 100);
}

TEST_CASE("an append in the caller's mini-transaction is logged with its commit", "[mvcc]") {
  UndoFixture fx;
  auto t = fx.store()->NewTrxUndo(6);
  AppendUpdate(t.get(), 0, 20);  // creates the log in mini-transactions of its own
  RecordData d;
  MiniTransaction mtr(fx.pool());
  const Lsn before = fx.log()->current_lsn();
  auto p = t->Append(UpdateRecord(1, 20, &d), &mtr);
  REQUIRE(p.ok());
  // Nothing is logged until the caller commits: the undo page is the caller's mtr's.
  CHECK(fx.log()->current_lsn() == before);
  CHECK(mtr.holds(RollPtrPage(*p)));
  const Lsn end = mtr.Commit();
  CHECK(end > before);
  CHECK_FALSE(mtr.holds(RollPtrPage(*p)));
  CheckUpdate(fx.store(), *p, 1, 20, 1);
  // A record that needs a new page is written in mini-transactions of its own.
  MiniTransaction big(fx.pool());
  const Lsn before_big = fx.log()->current_lsn();
  auto q = t->Append(UpdateRecord(2, 3 * kPageSize, &d), &big);
  REQUIRE(q.ok());
  CHECK(fx.log()->current_lsn() > before_big);
  CHECK_FALSE(big.holds(RollPtrPage(*q)));
  big.Commit();
  CheckUpdate(fx.store(), *q, 2, 3 * kPageSize, 2);
  CHECK(RollbackAll(t.get()) == std::vector<uint64_t>{2, 1, 0});
}

TEST_CASE("a record spanning pages is read, rolled back and its pages freed", "[mvcc]") {
  UndoFixture fx;
  auto t = fx.store()->NewTrxUndo(7);
  const uint64_t free_before = fx.pool()->stats().free_pages;
  const RollPtr a = AppendUpdate(t.get(), 0, 100);
  const RollPtr big = AppendUpdate(t.get(), 1, 200 * 1024);
  const RollPtr c = AppendUpdate(t.get(), 2, 50);
  const RollPtr huge = AppendUpdate(t.get(), 3, 3 * 1024 * 1024);  // past kPagesPerMtr pages
  const RollPtr e = AppendUpdate(t.get(), 4, 16000);
  CheckUpdate(fx.store(), a, 0, 100, 0);
  CheckUpdate(fx.store(), big, 1, 200 * 1024, 1);
  CheckUpdate(fx.store(), c, 2, 50, 2);
  CheckUpdate(fx.store(), huge, 3, 3 * 1024 * 1024, 3);
  CheckUpdate(fx.store(), e, 4, 16000, 4);
  CHECK(fx.store()->stats().undo_pages > 200);
  CHECK(RollbackAll(t.get(), 2) == std::vector<uint64_t>{4, 3, 2});
  CHECK(fx.store()->stats().undo_pages <= 15);
  CheckUpdate(fx.store(), big, 1, 200 * 1024, 1);
  CHECK(RollbackAll(t.get()) == std::vector<uint64_t>{1, 0});
  CHECK(fx.store()->stats().undo_pages == 1);
  auto lsn = t->Discard();
  REQUIRE(lsn.ok());
  CHECK(*lsn > 0);
  CHECK(fx.store()->stats().undo_pages == 0);
  CHECK(fx.store()->stats().active_logs == 0);
  // Every page went back to the free list (the header page was allocated before).
  CHECK(fx.pool()->stats().free_pages >= free_before + 200);
}

TEST_CASE("rollback takes the newest record across both logs, down to a savepoint", "[mvcc]") {
  UndoFixture fx;
  auto t = fx.store()->NewTrxUndo(11);
  // undo_no: 0 ins, 1 upd, 2 upd, 3 ins, 4 upd, 5 ins, 6 ins
  AppendInsert(t.get(), 0);
  AppendUpdate(t.get(), 1, 10);
  AppendUpdate(t.get(), 2, 10);
  AppendInsert(t.get(), 3);
  AppendUpdate(t.get(), 4, 10);
  AppendInsert(t.get(), 5);
  AppendInsert(t.get(), 6);
  std::string buf;
  UndoRecord r;
  auto more = t->PeekNewest(7, &buf, &r);
  REQUIRE(more.ok());
  CHECK_FALSE(*more);
  CHECK(RollbackAll(t.get(), 3) == std::vector<uint64_t>{6, 5, 4, 3});
  CHECK(t->records() == 3);
  // New records after a partial rollback continue the numbering.
  AppendUpdate(t.get(), 7, 10);
  CHECK(t->next_undo_no() == 8);
  REQUIRE(t->PeekNewest(0, &buf, &r).ok());
  CHECK(r.undo_no == 7);
  CHECK(r.type == UndoType::kUpdate);
  CHECK(RollbackAll(t.get()) == std::vector<uint64_t>{7, 2, 1, 0});
  CHECK(t->empty());
  CHECK(t->PopNewest().code() == Code::kInvalidArgument);
  REQUIRE(t->Discard().ok());
  CHECK(fx.store()->stats().active_logs == 0);
}

TEST_CASE("commit frees the insert log and puts the update log in the history", "[mvcc]") {
  UndoFixture fx;
  auto t = fx.store()->NewTrxUndo(20);
  auto only_insert = fx.store()->NewTrxUndo(21);
  for (uint64_t i = 0; i < 8000; ++i) AppendInsert(t.get(), i);  // > kPagesPerMtr pages
  AppendInsert(only_insert.get(), 0);
  const RollPtr u = AppendUpdate(t.get(), 8000, 500);
  const uint64_t pages = fx.store()->stats().undo_pages;
  CHECK(pages > kPagesPerMtr);
  const uint64_t free_before = fx.pool()->stats().free_pages;
  const Lsn before = fx.log()->current_lsn();
  auto lsn = t->Commit(30);
  REQUIRE(lsn.ok());
  CHECK(*lsn > before);
  CHECK(fx.store()->history_length() == 1);
  CHECK(fx.store()->stats().undo_pages == 2);  // the update log + only_insert's
  CHECK(fx.pool()->stats().free_pages == free_before + pages - 2);
  CHECK(fx.store()->stats().active_logs == 1);
  CheckUpdate(fx.store(), u, 8000, 500, 8000);  // still readable for MVCC
  CHECK(t->Commit(31).status().code() == Code::kInvalidArgument);
  auto lsn2 = only_insert->Commit(32);
  REQUIRE(lsn2.ok());
  CHECK(fx.store()->history_length() == 1);  // no update log
  CHECK(fx.store()->stats().active_logs == 0);
  auto nothing = fx.store()->NewTrxUndo(22);
  auto lsn3 = nothing->Commit(33);
  REQUIRE(lsn3.ok());
  CHECK(*lsn3 == 0);
}

TEST_CASE("purge takes history logs oldest first, below the limit", "[mvcc]") {
  UndoFixture fx;
  std::vector<std::vector<RollPtr>> ptrs;
  for (uint64_t n = 0; n < 4; ++n) {
    auto t = fx.store()->NewTrxUndo(100 + n);
    ptrs.emplace_back();
    for (uint64_t i = 0; i < 50 * (n + 1); ++i) {
      ptrs.back().push_back(AppendUpdate(t.get(), i, n == 2 ? 2000 : 30));
      AppendInsert(t.get(), i);
    }
    REQUIRE(t->Commit(200 + n).ok());
  }
  CHECK(fx.store()->history_length() == 4);
  std::vector<std::pair<TrxId, uint64_t>> seen;
  auto f = [&](const UndoRecord& r, TrxId trx_id) {
    seen.emplace_back(trx_id, r.undo_no);
    CHECK(r.type == UndoType::kUpdate);
    return Status::OK();
  };
  auto done = fx.store()->PurgeOldest(200, f);
  REQUIRE(done.ok());
  CHECK_FALSE(*done);
  CHECK(seen.empty());
  done = fx.store()->PurgeOldest(202, f);
  REQUIRE(done.ok());
  CHECK(*done);
  REQUIRE(seen.size() == 50);
  for (uint64_t i = 0; i < 50; ++i) CHECK(seen[i] == std::make_pair(TrxId{100}, 2 * i));
  CHECK(fx.store()->history_length() == 3);
  CheckUpdate(fx.store(), ptrs[1][7], 7, 30, 14);
  // A failing callback leaves the log in place.
  auto fail = [](const UndoRecord&, TrxId) { return Status::Corruption("no"); };
  CHECK(fx.store()->PurgeOldest(202, fail).status().code() == Code::kCorruption);
  CHECK(fx.store()->history_length() == 3);
  seen.clear();
  done = fx.store()->PurgeOldest(202, f);
  REQUIRE(done.ok());
  CHECK(*done);
  CHECK(seen.size() == 100);
  done = fx.store()->PurgeOldest(202, f);  // head has trx_no 202
  REQUIRE(done.ok());
  CHECK_FALSE(*done);
  seen.clear();
  while (*(done = fx.store()->PurgeOldest(1000, f))) {
  }
  CHECK(seen.size() == 150 + 200);
  CHECK(seen[0].first == 102);
  CHECK(seen[150].first == 103);
  const UndoStoreStats st = fx.store()->stats();
  CHECK(st.history_length == 0);
  CHECK(st.logs_purged == 4);
  CHECK(st.undo_pages == 0);
}

TEST_CASE("a transaction's undo can be larger than the buffer pool", "[mvcc]") {
  UndoFixture fx(64);  // 1 MiB of frames
  auto t = fx.store()->NewTrxUndo(1);
  std::vector<RollPtr> ptrs;
  const size_t kLen = 1000;
  const uint64_t n = 5 * 1024 * 1024 / kLen;
  for (uint64_t i = 0; i < n; ++i) {
    if (i % 10 == 9) {
      AppendInsert(t.get(), i);
      ptrs.push_back(0);
    } else {
      ptrs.push_back(AppendUpdate(t.get(), i, kLen));
    }
  }
  CHECK(fx.store()->stats().undo_pages > 64 * 4);
  CHECK(fx.pool()->stats().evictions > 0);
  for (uint64_t i = 0; i < n; i += 97) {
    if (ptrs[i] != 0) CheckUpdate(fx.store(), ptrs[i], i, kLen, i);
  }
  const std::vector<uint64_t> seen = RollbackAll(t.get());
  REQUIRE(seen.size() == n);
  for (uint64_t i = 0; i < n; ++i) CHECK(seen[i] == n - 1 - i);
  REQUIRE(t->Discard().ok());
  CHECK(fx.store()->stats().undo_pages == 0);
}

TEST_CASE("every slot in use: kNoSpace", "[mvcc]") {
  UndoFixture fx(64);
  std::vector<std::unique_ptr<TrxUndo>> trxs;
  for (size_t i = 0; i < kRsegSlots / 2; ++i) {
    trxs.push_back(fx.store()->NewTrxUndo(i + 1));
    AppendInsert(trxs.back().get(), i);
    AppendUpdate(trxs.back().get(), i, 10);
  }
  CHECK(fx.store()->stats().active_logs == kRsegSlots);
  auto extra = fx.store()->NewTrxUndo(5000);
  RecordData d;
  CHECK(extra->Append(InsertRecord(0, &d)).status().code() == Code::kNoSpace);
  CHECK(extra->empty());
  const uint64_t pages = fx.pool()->stats().pages_in_file;
  CHECK(extra->Append(InsertRecord(0, &d)).status().code() == Code::kNoSpace);
  CHECK(fx.pool()->stats().pages_in_file == pages);  // the refused page went back
  REQUIRE(RollbackAll(trxs[3].get()).size() == 2);
  REQUIRE(trxs[3]->Discard().ok());
  REQUIRE(extra->Append(InsertRecord(0, &d)).ok());
  REQUIRE(extra->Append(UpdateRecord(0, 10, &d)).ok());
  auto extra2 = fx.store()->NewTrxUndo(5001);
  CHECK(extra2->Append(UpdateRecord(0, 10, &d)).status().code() == Code::kNoSpace);
  trxs.erase(trxs.begin() + 3);
  for (auto& t : trxs) REQUIRE(t->Commit(10000).ok());
  REQUIRE(extra->Commit(10001).ok());
  CHECK(fx.store()->history_length() == kRsegSlots / 2);
  CHECK(fx.store()->stats().active_logs == 0);
}

TEST_CASE("one-page logs are cached for reuse, across a crash too", "[mvcc]") {
  UndoFixture fx;
  auto t1 = fx.store()->NewTrxUndo(1);
  AppendInsert(t1.get(), 0);
  AppendUpdate(t1.get(), 1, 10);
  REQUIRE(RollbackAll(t1.get(), 1).size() == 1);  // the update log is empty: no history
  REQUIRE(t1->Commit(2).ok());
  CHECK(fx.store()->history_length() == 0);
  CHECK(fx.store()->stats().active_logs == 0);
  CHECK(fx.store()->stats().undo_pages == 0);
  const uint64_t pages = fx.pool()->stats().pages_in_file;
  for (TrxId id = 3; id < 6; ++id) {
    auto t = fx.store()->NewTrxUndo(id);
    const Lsn before = fx.log()->current_lsn();
    AppendInsert(t.get(), 0);  // takes a cached log: no page image
    CHECK(fx.log()->current_lsn() - before < 200);
    const RollPtr u = AppendUpdate(t.get(), 1, 10);
    CheckUpdate(fx.store(), u, 1, 10, 1);
    CHECK(fx.store()->stats().active_logs == 2);
    if (id == 4) {
      REQUIRE(RollbackAll(t.get()).size() == 2);
      REQUIRE(t->Discard().ok());
    } else {
      REQUIRE(t->Commit(id + 100).ok());
    }
  }
  // One new page: the two update logs went to the history list, t4's came back.
  CHECK(fx.pool()->stats().pages_in_file == pages + 1);
  CHECK(fx.store()->history_length() == 2);
  fx.CrashAndRecover();
  auto rec = fx.store()->RecoverActive();
  REQUIRE(rec.ok());
  CHECK(rec->empty());
  CHECK(fx.store()->stats().active_logs == 0);
  auto t = fx.store()->NewTrxUndo(9);
  const Lsn before = fx.log()->current_lsn();
  AppendInsert(t.get(), 0);
  CHECK(fx.log()->current_lsn() - before < 200);
  CHECK(fx.pool()->stats().pages_in_file == pages + 1);
}

TEST_CASE("the trx id bound is kept in the header page", "[mvcc]") {
  UndoFixture fx;
  CHECK(fx.store()->trx_id_bound() == 0);
  REQUIRE(fx.store()->SetTrxIdBound(1024).ok());
  REQUIRE(fx.store()->SetTrxIdBound(512).ok());  // never lowered
  CHECK(fx.store()->trx_id_bound() == 1024);
  fx.OpenStore();
  CHECK(fx.store()->trx_id_bound() == 1024);
}

}  // namespace
}  // namespace minnow
