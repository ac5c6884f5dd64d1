// Metadata locks (lock/metadata_lock.h): compatibility, reentrancy and upgrade, the
// pending-exclusive priority, timeouts, interrupts, shutdown, counters, and a bounded stress
// case. Outcomes and counts are asserted, never times.

#include "lock/metadata_lock.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <future>
#include <random>
#include <thread>
#include <vector>

namespace minnow {
namespace {

using std::chrono::milliseconds;
constexpr auto kLong = milliseconds(20000);
constexpr auto kNoWait = milliseconds(0);
constexpr MdlMode kS = MdlMode::kShared;
constexpr MdlMode kX = MdlMode::kExclusive;

template <typename F>
void Until(F&& cond) {
  while (!cond()) std::this_thread::sleep_for(milliseconds(1));
}

// ForEachLock's rows: one per (owner, object, label), holders first, then waiters in arrival
// order; a waiter keeps its ticket once granted.
std::vector<MdlLockRow> Rows(const MetadataLockSys& mdl) {
  std::vector<MdlLockRow> rows;
  mdl.ForEachLock([&](const MdlLockRow& r) { rows.push_back(r); });
  return rows;
}

TEST_CASE("mdl: ForEachLock lists granted and pending requests with their labels", "[lock][mdl]") {
  MetadataLockSys mdl;
  MdlContext a(&mdl), b(&mdl);
  REQUIRE(a.Acquire("test.t", kS, kNoWait, {"SHARED_READ", "TRANSACTION"}).ok());
  REQUIRE(a.Acquire("test.t", kS, kNoWait, {"SHARED_WRITE", "TRANSACTION"}).ok());
  REQUIRE(a.Acquire("test.t", kS, kNoWait, {"SHARED_READ", "TRANSACTION"}).ok());  // same ticket
  std::vector<MdlLockRow> rows = Rows(mdl);
  REQUIRE(rows.size() == 2);
  CHECK(std::string(rows[0].label.type) == "SHARED_READ");
  CHECK(std::string(rows[1].label.type) == "SHARED_WRITE");
  CHECK(rows[0].granted);
  CHECK(rows[0].owner == a.owner_id());
  CHECK(rows[0].ticket != rows[1].ticket);
  auto waiter = std::async(std::launch::async, [&] {
    return b.Acquire("test.t", kX, kLong, {"EXCLUSIVE", "TRANSACTION"});
  });
  Until([&] { return b.waiting(); });
  rows = Rows(mdl);
  REQUIRE(rows.size() == 3);
  CHECK_FALSE(rows[2].granted);
  CHECK(rows[2].mode == kX);
  CHECK(rows[2].owner == b.owner_id());
  const uint64_t pending_ticket = rows[2].ticket;
  a.ReleaseAll();
  REQUIRE(waiter.get().ok());
  rows = Rows(mdl);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].granted);
  CHECK(rows[0].ticket == pending_ticket);
  CHECK(a.owner_id() != b.owner_id());
  b.ReleaseAll();
  CHECK(Rows(mdl).empty());
}

TEST_CASE("mdl: shared locks share, exclusive excludes", "[lock][mdl]") {
  MetadataLockSys mdl;
  MdlContext a(&mdl), b(&mdl), c(&mdl);
  REQUIRE(a.Acquire("test.t", kS, kNoWait).ok());
  REQUIRE(b.Acquire("test.t", kS, kNoWait).ok());
  CHECK(c.Acquire("test.t", kX, kNoWait).code() == Code::kLockWaitTimeout);
  CHECK(c.Acquire("test.u", kX, kNoWait).ok());  // another object
  CHECK(a.Acquire("test.u", kS, kNoWait).code() == Code::kLockWaitTimeout);
  CHECK(mdl.stats().held == 3);
  CHECK(mdl.stats().timeouts == 2);
  CHECK(mdl.stats().waiting_now == 0);
  a.ReleaseAll();
  b.ReleaseAll();
  CHECK(c.Acquire("test.t", kX, kNoWait).ok());
  CHECK(c.held_count() == 2);
  c.ReleaseAll();
  CHECK(mdl.stats().held == 0);
}

TEST_CASE("mdl: reentrant per owner; S under X is covered; S upgrades to X alone", "[lock][mdl]") {
  MetadataLockSys mdl;
  MdlContext a(&mdl), b(&mdl);
  REQUIRE(a.Acquire("t", kX, kNoWait).ok());
  CHECK(a.Acquire("t", kX, kNoWait).ok());
  CHECK(a.Acquire("t", kS, kNoWait).ok());
  CHECK(a.Holds("t", kX));
  CHECK(a.held_count() == 1);
  a.ReleaseAll();
  CHECK_FALSE(a.Holds("t", kS));

  REQUIRE(a.Acquire("t", kS, kNoWait).ok());
  CHECK(a.Acquire("t", kX, kNoWait).ok());  // the only holder: upgraded at once
  CHECK(a.Holds("t", kX));
  CHECK(b.Acquire("t", kS, kNoWait).code() == Code::kLockWaitTimeout);
  a.ReleaseAll();

  REQUIRE(a.Acquire("t", kS, kNoWait).ok());
  REQUIRE(b.Acquire("t", kS, kNoWait).ok());
  CHECK(a.Acquire("t", kX, kNoWait).code() == Code::kLockWaitTimeout);  // b holds S
  CHECK(a.Holds("t", kS));  // the failed upgrade keeps S
  CHECK_FALSE(a.Holds("t", kX));
  auto upgrade = std::async(std::launch::async, [&] { return a.Acquire("t", kX, kLong).code(); });
  Until([&] { return a.waiting(); });
  b.ReleaseAll();
  CHECK(upgrade.get() == Code::kOk);
  CHECK(a.Holds("t", kX));
  CHECK(mdl.stats().held == 1);
}

TEST_CASE("mdl: an exclusive waiter gets the lock when the last holder leaves", "[lock][mdl]") {
  MetadataLockSys mdl;
  MdlContext r1(&mdl), r2(&mdl), ddl(&mdl);
  REQUIRE(r1.Acquire("t", kS, kNoWait).ok());
  REQUIRE(r2.Acquire("t", kS, kNoWait).ok());
  auto waiter = std::async(std::launch::async, [&] { return ddl.Acquire("t", kX, kLong).code(); });
  Until([&] { return ddl.waiting(); });
  CHECK(mdl.stats().waiting_now == 1);
  r1.ReleaseAll();
  CHECK(ddl.waiting());  // r2 still holds S
  r2.ReleaseAll();
  CHECK(waiter.get() == Code::kOk);
  CHECK_FALSE(ddl.waiting());
  const MdlStats s = mdl.stats();
  CHECK(s.waits == 1);
  CHECK(s.waiting_now == 0);
  CHECK(s.granted == 3);
  CHECK(s.held == 1);
}

TEST_CASE("mdl: a pending exclusive request blocks new shared ones, not holders'", "[lock][mdl]") {
  MetadataLockSys mdl;
  MdlContext holder(&mdl), ddl(&mdl), late(&mdl);
  REQUIRE(holder.Acquire("t", kS, kNoWait).ok());
  auto x = std::async(std::launch::async, [&] { return ddl.Acquire("t", kX, kLong).code(); });
  Until([&] { return ddl.waiting(); });
  // A new reader waits behind the pending X (it would starve DDL otherwise)...
  CHECK(late.Acquire("t", kS, kNoWait).code() == Code::kLockWaitTimeout);
  auto s = std::async(std::launch::async, [&] { return late.Acquire("t", kS, kLong).code(); });
  Until([&] { return late.waiting(); });
  // ... while the holder's own requests are granted (reentrant).
  CHECK(holder.Acquire("t", kS, kNoWait).ok());
  holder.ReleaseAll();
  CHECK(x.get() == Code::kOk);  // the DDL first
  CHECK(late.waiting());
  ddl.ReleaseAll();
  CHECK(s.get() == Code::kOk);  // then the reader
  CHECK(late.Holds("t", kS));
}

TEST_CASE("mdl: a pending exclusive that times out releases the readers behind it", "[lock][mdl]") {
  MetadataLockSys mdl;
  MdlContext holder(&mdl), ddl(&mdl), late(&mdl);
  REQUIRE(holder.Acquire("t", kS, kNoWait).ok());
  auto x = std::async(std::launch::async,
                      [&] { return ddl.Acquire("t", kX, milliseconds(300)).code(); });
  Until([&] { return ddl.waiting(); });
  auto s = std::async(std::launch::async, [&] { return late.Acquire("t", kS, kLong).code(); });
  Until([&] { return late.waiting(); });
  CHECK(x.get() == Code::kLockWaitTimeout);
  CHECK(s.get() == Code::kOk);
  CHECK_FALSE(ddl.Holds("t", kS));
  CHECK(mdl.stats().timeouts == 1);
  CHECK(mdl.stats().held == 2);
}

TEST_CASE("mdl: interrupt ends a wait in progress and every new one until cleared", "[lock][mdl]") {
  MetadataLockSys mdl;
  MdlContext holder(&mdl), ddl(&mdl);
  REQUIRE(holder.Acquire("t", kS, kNoWait).ok());
  auto x = std::async(std::launch::async, [&] { return ddl.Acquire("t", kX, kLong).code(); });
  Until([&] { return ddl.waiting(); });
  ddl.SetInterrupted(true);
  CHECK(x.get() == Code::kAborted);
  CHECK(ddl.Acquire("t", kX, kLong).code() == Code::kAborted);  // at once
  CHECK(ddl.Acquire("u", kX, kLong).ok());                      // no wait needed: granted
  ddl.SetInterrupted(false);
  CHECK(ddl.Acquire("t", kX, kNoWait).code() == Code::kLockWaitTimeout);
  CHECK(mdl.stats().interrupts == 1);
  holder.ReleaseAll();
  CHECK(ddl.Acquire("t", kX, kNoWait).ok());
}

TEST_CASE("mdl: shutdown wakes waiters with kClosed", "[lock][mdl]") {
  MetadataLockSys mdl;
  MdlContext holder(&mdl), ddl(&mdl);
  REQUIRE(holder.Acquire("t", kS, kNoWait).ok());
  auto x = std::async(std::launch::async, [&] { return ddl.Acquire("t", kX, kLong).code(); });
  Until([&] { return ddl.waiting(); });
  mdl.Shutdown();
  CHECK(x.get() == Code::kClosed);
  CHECK(ddl.Acquire("t", kX, kLong).code() == Code::kClosed);
  CHECK(holder.Acquire("t", kS, kNoWait).ok());  // covered: no wait
}

double StressSeconds() {
  const char* s = std::getenv("MINNOW_STRESS_SECONDS");
  return s != nullptr ? std::atof(s) : 3.0;
}

// Readers and DDL threads on three objects; each object has a guard counter that readers
// raise while they hold S and DDL checks is zero while it holds X.
TEST_CASE("mdl stress: exclusive holders never overlap any holder", "[.stress][lock][mdl]") {
  MetadataLockSys mdl;
  constexpr int kObjects = 3;
  const char* names[kObjects] = {"a", "b", "c"};
  std::atomic<int> readers[kObjects] = {};
  std::atomic<int> writers[kObjects] = {};
  std::atomic<int> violations{0};
  std::atomic<uint64_t> ddl_done{0}, reads_done{0};
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(StressSeconds());
  std::vector<std::thread> threads;
  for (int w = 0; w < 6; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937 rng(w);
      const bool ddl = w < 2;
      while (std::chrono::steady_clock::now() < deadline) {
        MdlContext ctx(&mdl);
        const int o = static_cast<int>(rng() % kObjects);
        if (ddl) {
          if (!ctx.Acquire(names[o], kX, milliseconds(50)).ok()) continue;
          if (writers[o].fetch_add(1) != 0 || readers[o].load() != 0) violations++;
          std::this_thread::yield();
          writers[o].fetch_sub(1);
          ddl_done++;
        } else {
          // Several objects in one transaction, with reentrant requests.
          std::vector<int> held;
          for (int k = 0; k < 2; ++k) {
            const int p = static_cast<int>(rng() % kObjects);
            if (!ctx.Acquire(names[p], kS, milliseconds(50)).ok()) break;
            if (!ctx.Acquire(names[p], kS, kNoWait).ok()) violations++;
            readers[p].fetch_add(1);
            held.push_back(p);
            if (writers[p].load() != 0) violations++;
          }
          std::this_thread::yield();
          for (int p : held) readers[p].fetch_sub(1);
          reads_done++;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(violations.load() == 0);
  CHECK(ddl_done.load() > 0);
  CHECK(reads_done.load() > 0);
  const MdlStats s = mdl.stats();
  CHECK(s.held == 0);
  CHECK(s.waiting_now == 0);
}

}  // namespace
}  // namespace minnow
