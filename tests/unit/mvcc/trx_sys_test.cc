// The transaction system: ids, the active set, read views and the purge limit.
#include "mvcc/trx_sys.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "mvcc/read_view.h"

namespace minnow {
namespace {

int owner_tag;  // any non-null owner pointer

TEST_CASE("read views see what had committed when they opened", "[mvcc][trx_sys]") {
  TrxSys sys(10, nullptr);
  TrxSys::Active ta = *sys.Begin(&owner_tag);  // 10
  TrxSys::Active tb = *sys.Begin(&owner_tag);  // 11
  TrxSys::Active tc = *sys.Begin(&owner_tag);  // 12
  const TrxId a = ta.id, b = tb.id, c = tc.id;
  sys.AssignTrxNo(tb);
  sys.Remove(tb);  // b committed (trx_no 13)

  ReadView v;
  sys.OpenView(&v, c);
  CHECK(v.up_limit_id() == a);
  CHECK(v.low_limit_id() == 14);
  CHECK(v.active_ids() == std::vector<TrxId>{a});
  CHECK(v.Sees(9));         // older than every active id
  CHECK_FALSE(v.Sees(a));   // active when the view opened
  CHECK(v.Sees(b));         // committed before
  CHECK(v.Sees(c));         // its own changes
  CHECK_FALSE(v.Sees(14));  // began after

  sys.AssignTrxNo(ta);
  sys.Remove(ta);
  CHECK_FALSE(v.Sees(a));  // still not: the view is a snapshot
  ReadView later;
  sys.OpenView(&later, 0);
  CHECK(later.Sees(a));
  CHECK_FALSE(later.Sees(c));
  sys.CloseView(&v);
  sys.CloseView(&later);
  CHECK(sys.open_views() == 0);
}

TEST_CASE("purge limit waits for the oldest view and for serialising commits", "[mvcc][trx_sys]") {
  TrxSys sys(1, nullptr);
  TrxSys::Active a = *sys.Begin(&owner_tag);
  ReadView old_view;
  sys.OpenView(&old_view, 0);  // low_limit_no = 2
  TrxId no = sys.AssignTrxNo(a);
  CHECK(no == 2);
  // While `a` serialises, nothing at or past its trx_no may be purged.
  CHECK(sys.PurgeLimit() <= no);
  sys.Remove(a);
  CHECK(sys.PurgeLimit() == 2);  // old_view may still need a's undo
  sys.CloseView(&old_view);
  CHECK(sys.PurgeLimit() == 3);  // no view: everything committed may go
}

TEST_CASE("ids are reserved ahead in blocks and a failed reserve fails Begin", "[mvcc][trx_sys]") {
  std::vector<TrxId> bounds;
  bool fail = false;
  TrxSys sys(
      5,
      [&](TrxId bound) {
        if (fail) return Status::IOError("no");
        bounds.push_back(bound);
        return Status::OK();
      },
      4);
  for (int i = 0; i < 6; ++i) REQUIRE(sys.Begin(&owner_tag).ok());  // ids 5..10
  CHECK(bounds == std::vector<TrxId>{9, 13});
  fail = true;
  for (int i = 0; i < 2; ++i) REQUIRE(sys.Begin(&owner_tag).ok());  // 11, 12 are below 13
  CHECK(sys.Begin(&owner_tag).status().code() == Code::kIOError);
}

TEST_CASE("MaybeActive is a lock-free lower bound of the active set", "[mvcc][trx_sys]") {
  TrxSys sys(100, nullptr);
  CHECK_FALSE(sys.MaybeActive(99));
  TrxSys::Active a = *sys.Begin(&owner_tag);
  TrxSys::Active b = *sys.Begin(&owner_tag);
  CHECK(sys.MaybeActive(a.id));
  CHECK_FALSE(sys.MaybeActive(a.id - 1));
  sys.Remove(a);
  CHECK_FALSE(sys.MaybeActive(a.id));
  CHECK(sys.IsActive(b.id));
  void* seen = nullptr;
  CHECK(sys.WithActive(b.id, [&](void* o) { seen = o; }));
  CHECK(seen == &owner_tag);
  sys.Remove(b);
  CHECK_FALSE(sys.WithActive(b.id, [](void*) {}));
  CHECK(sys.active_count() == 0);
}

TEST_CASE("concurrent begin, view and commit keep views consistent", "[mvcc][trx_sys]") {
  TrxSys sys(1, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        TrxSys::Active trx = *sys.Begin(&owner_tag);
        ReadView v;
        sys.OpenView(&v, trx.id);
        REQUIRE(v.Sees(trx.id));
        REQUIRE(std::is_sorted(v.active_ids().begin(), v.active_ids().end()));
        sys.AssignTrxNo(trx);
        sys.Remove(trx);
        sys.CloseView(&v);
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(sys.active_count() == 0);
  CHECK(sys.open_views() == 0);
  CHECK(sys.next_id() == 1 + 4 * 2000 * 2);
}

// Two writers (threads, so usually two shards) end their transactions in strict turns; a view
// opened meanwhile must see a prefix of that commit order, never a later commit without an
// earlier one.
TEST_CASE("views see commits across shards in commit order", "[mvcc][trx_sys]") {
  constexpr int kPerWriter = 3000;
  TrxSys sys(1, nullptr);
  std::vector<std::atomic<TrxId>> order(2 * kPerWriter);
  std::atomic<int> committed{0};  // entries of `order` written
  std::atomic<int> turn{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kPerWriter; ++i) {
        TrxSys::Active trx = *sys.Begin(&owner_tag);
        while (turn.load(std::memory_order_acquire) % 2 != w) std::this_thread::yield();
        sys.AssignTrxNo(trx);
        sys.Remove(trx);
        const int k = committed.load(std::memory_order_relaxed);
        order[k].store(trx.id, std::memory_order_relaxed);
        committed.store(k + 1, std::memory_order_release);
        turn.fetch_add(1, std::memory_order_acq_rel);
      }
    });
  }
  int views = 0;
  bool prefix = true;
  while (committed.load(std::memory_order_acquire) < 2 * kPerWriter) {
    ReadView v;
    sys.OpenView(&v, 0);
    const int n = committed.load(std::memory_order_acquire);
    bool unseen = false;
    for (int k = 0; k < n; ++k) {
      const bool seen = v.Sees(order[k].load(std::memory_order_relaxed));
      if (seen && unseen) prefix = false;
      unseen = unseen || !seen;
    }
    sys.CloseView(&v);
    ++views;
  }
  for (auto& t : writers) t.join();
  CHECK(prefix);
  CHECK(views > 0);
  CHECK(sys.active_count() == 0);
}

}  // namespace
}  // namespace minnow
