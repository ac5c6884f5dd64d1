// The transaction system: ids, the active set, read views and the purge limit.
#include "mvcc/trx_sys.h"

#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "mvcc/read_view.h"

namespace minnow {
namespace {

int owner_tag;  // any non-null owner pointer

TEST_CASE("read views see what had committed when they opened", "[mvcc][trx_sys]") {
  TrxSys sys(10, nullptr);
  TrxId a = *sys.Begin(&owner_tag);  // 10
  TrxId b = *sys.Begin(&owner_tag);  // 11
  TrxId c = *sys.Begin(&owner_tag);  // 12
  sys.AssignTrxNo(b);
  sys.Remove(b);  // b committed (trx_no 13)

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

  sys.AssignTrxNo(a);
  sys.Remove(a);
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
  TrxId a = *sys.Begin(&owner_tag);
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
  TrxId a = *sys.Begin(&owner_tag);
  TrxId b = *sys.Begin(&owner_tag);
  CHECK(sys.MaybeActive(a));
  CHECK_FALSE(sys.MaybeActive(a - 1));
  sys.Remove(a);
  CHECK_FALSE(sys.MaybeActive(a));
  CHECK(sys.IsActive(b));
  void* seen = nullptr;
  CHECK(sys.WithActive(b, [&](void* o) { seen = o; }));
  CHECK(seen == &owner_tag);
  sys.Remove(b);
  CHECK_FALSE(sys.WithActive(b, [](void*) {}));
  CHECK(sys.active_count() == 0);
}

TEST_CASE("concurrent begin, view and commit keep views consistent", "[mvcc][trx_sys]") {
  TrxSys sys(1, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        TrxId id = *sys.Begin(&owner_tag);
        ReadView v;
        sys.OpenView(&v, id);
        REQUIRE(v.Sees(id));
        REQUIRE(std::is_sorted(v.active_ids().begin(), v.active_ids().end()));
        sys.AssignTrxNo(id);
        sys.Remove(id);
        sys.CloseView(&v);
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(sys.active_count() == 0);
  CHECK(sys.open_views() == 0);
  CHECK(sys.next_id() == 1 + 4 * 2000 * 2);
}

}  // namespace
}  // namespace minnow
