// Table-level locks (lock/table_lock.h): the compatibility matrix pair by pair, write priority,
// READ_HIGH_PRIORITY, WRITE_LOW_PRIORITY, max_write_lock_count, concurrent insert, same-owner
// rules, timeouts, interrupts, the counters, and a bounded stress case. Outcomes and counts are
// asserted, never times.

#include "lock/table_lock.h"

#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <future>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace minnow {
namespace {

using std::chrono::milliseconds;
using T = TableLockType;
constexpr auto kLong = milliseconds(20000);
constexpr auto kNoWait = milliseconds(0);
constexpr std::array<T, 9> kAllTypes = {T::kRead,
                                        T::kReadWithSharedLocks,
                                        T::kReadHighPriority,
                                        T::kReadNoInsert,
                                        T::kWriteAllowWrite,
                                        T::kWriteConcurrentInsert,
                                        T::kWriteLowPriority,
                                        T::kWrite,
                                        T::kWriteOnly};

TableLockHooks AllowInsert(bool allow) {
  TableLockHooks h;
  h.allow_concurrent_insert = [allow](bool) { return allow; };
  return h;
}

template <typename F>
void Until(F&& cond) {
  while (!cond()) std::this_thread::sleep_for(milliseconds(1));
}

// A Lock call on another thread; returns once it waits (or has finished).
std::future<Result<TableLockTicket>> Send(TableLock& table, TableLockOwner& owner, T type,
                                          milliseconds timeout = kLong,
                                          TableLockHooks hooks = AllowInsert(true)) {
  auto f = std::async(std::launch::async, [&table, &owner, type, timeout, hooks] {
    return table.Lock(&owner, type, timeout, hooks);
  });
  Until(
      [&] { return owner.waiting() || f.wait_for(milliseconds(0)) == std::future_status::ready; });
  return f;
}

// "owner:TYPE" for holders, "owner:TYPE WAITING" for waiters, in Snapshot() order.
std::vector<std::string> Rows(const TableLock& table) {
  std::vector<std::string> rows;
  for (const TableLockEntry& e : table.Snapshot()) {
    rows.push_back(std::to_string(e.owner_id) + ":" + std::string(TableLockTypeName(e.type)) +
                   (e.granted ? "" : " WAITING"));
  }
  return rows;
}

Code LockCode(TableLock& table, TableLockOwner& owner, T type,
              TableLockHooks hooks = AllowInsert(true)) {
  return table.Lock(&owner, type, kNoWait, std::move(hooks)).status().code();
}

// The matrix of table_lock.h, written out again: row = held by owner A, column = requested by
// owner B. '+' granted at once, '-' waits (here: times out at once), 'x' fails with kAborted.
// clang-format off
//                                       R   RS  RHP RNI AAW CI  WLP W   WO
const std::map<T, std::string> kExpected = {
    {T::kRead,                          "+   +   +   +   +   +   -   -   -"},
    {T::kReadWithSharedLocks,           "+   +   +   +   +   +   -   -   -"},
    {T::kReadHighPriority,              "+   +   +   +   +   +   -   -   -"},
    {T::kReadNoInsert,                  "+   +   +   +   -   -   -   -   -"},
    {T::kWriteAllowWrite,               "+   +   +   +   +   -   -   -   -"},
    {T::kWriteConcurrentInsert,         "+   +   +   -   -   +   -   -   -"},
    {T::kWriteLowPriority,              "-   -   -   -   -   -   -   -   -"},
    {T::kWrite,                         "-   -   -   -   -   -   -   -   -"},
    {T::kWriteOnly,                     "x   x   x   x   x   x   x   x   x"},
};
// clang-format on

char Expected(T held, T requested) {
  std::string row;
  for (char c : kExpected.at(held)) {
    if (c != ' ') row.push_back(c);
  }
  return row.at(static_cast<size_t>(requested));
}

TEST_CASE("table lock: every pair of types against the matrix", "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("test.t", &globals);
  TableLockOwner a(1), b(2);
  int checked = 0;
  for (T held : kAllTypes) {
    for (T req : kAllTypes) {
      INFO("held " << TableLockTypeName(held) << ", requested " << TableLockTypeName(req));
      auto h = table.Lock(&a, held, kNoWait, AllowInsert(true));
      REQUIRE(h.ok());
      CHECK(h->type() == held);
      auto r = table.Lock(&b, req, kNoWait, AllowInsert(true));
      switch (Expected(held, req)) {
        case '+':
          REQUIRE(r.ok());
          CHECK(r->type() == req);  // the check allows: WRITE_CONCURRENT_INSERT stays one
          break;
        case '-':
          CHECK(r.status().code() == Code::kLockWaitTimeout);
          break;
        case 'x':
          CHECK(r.status().code() == Code::kAborted);
          break;
        default:
          FAIL("bad matrix entry");
      }
      if (r.ok()) r->Release();
      h->Release();
      CHECK(table.Snapshot().empty());
      ++checked;
    }
  }
  CHECK(checked == 81);
}

TEST_CASE("table lock: a waiting WRITE blocks new readers; RHP and holders pass it",
          "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("t", &globals);
  TableLockOwner a(1), w(2), c(3);
  auto ar = table.Lock(&a, T::kRead, kNoWait);
  REQUIRE(ar.ok());
  auto wf = Send(table, w, T::kWrite);
  REQUIRE(w.waiting());
  CHECK(LockCode(table, c, T::kRead) == Code::kLockWaitTimeout);  // write priority
  CHECK(LockCode(table, c, T::kReadWithSharedLocks) == Code::kLockWaitTimeout);
  CHECK(LockCode(table, c, T::kReadNoInsert) == Code::kLockWaitTimeout);
  auto crhp = table.Lock(&c, T::kReadHighPriority, kNoWait);
  CHECK(crhp.ok());  // passes the waiting writer
  auto ar2 = table.Lock(&a, T::kReadNoInsert, kNoWait);
  CHECK(ar2.ok());  // a holder of a read lock is not held back (it would wait for itself)
  CHECK(Rows(table) == std::vector<std::string>{"1:READ", "3:READ_HIGH_PRIORITY",
                                                "1:READ_NO_INSERT", "2:WRITE WAITING"});
  ar->Release();
  ar2->Release();
  CHECK(w.waiting());
  crhp->Release();
  auto wt = wf.get();
  REQUIRE(wt.ok());
  CHECK(wt->type() == T::kWrite);
}

TEST_CASE("table lock: a waiting WRITE goes before readers queued behind it",
          "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("t", &globals);
  TableLockOwner a(1), w(2), r(3), rhp(4);
  auto aw = table.Lock(&a, T::kWrite, kNoWait);
  REQUIRE(aw.ok());
  auto wf = Send(table, w, T::kWrite);
  auto rf = Send(table, r, T::kRead);
  auto hf = Send(table, rhp, T::kReadHighPriority);  // waits for the held WRITE
  aw->Release();
  auto wt = wf.get();  // the writer first, even before READ_HIGH_PRIORITY
  REQUIRE(wt.ok());
  CHECK(Rows(table) ==
        std::vector<std::string>{"2:WRITE", "3:READ WAITING", "4:READ_HIGH_PRIORITY WAITING"});
  wt->Release();
  CHECK(rf.get().ok());  // then all readers at once
  CHECK(hf.get().ok());
}

TEST_CASE("table lock: WRITE_LOW_PRIORITY yields to readers", "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("t", &globals);
  TableLockOwner a(1), lp(2), c(3), d(4);

  SECTION("a waiting WRITE_LOW_PRIORITY holds no new reader back") {
    auto ar = table.Lock(&a, T::kRead, kNoWait);
    REQUIRE(ar.ok());
    auto lf = Send(table, lp, T::kWriteLowPriority);
    REQUIRE(lp.waiting());
    auto cr = table.Lock(&c, T::kRead, kNoWait);
    CHECK(cr.ok());
    auto dr = table.Lock(&d, T::kReadNoInsert, kNoWait);
    CHECK(dr.ok());
    ar->Release();
    cr->Release();
    CHECK(Rows(table) ==
          std::vector<std::string>{"4:READ_NO_INSERT", "2:WRITE_LOW_PRIORITY WAITING"});
    dr->Release();  // the last reader: now the writer
    CHECK(lf.get().ok());
  }
  SECTION("on release, readers led by READ_HIGH_PRIORITY go before it") {
    auto aw = table.Lock(&a, T::kWrite, kNoWait);
    REQUIRE(aw.ok());
    auto lf = Send(table, lp, T::kWriteLowPriority);
    auto hf = Send(table, c, T::kReadHighPriority);
    auto rf = Send(table, d, T::kRead);
    aw->Release();
    auto h = hf.get();
    auto r = rf.get();
    REQUIRE(h.ok());
    REQUIRE(r.ok());
    CHECK(Rows(table) == std::vector<std::string>{"3:READ_HIGH_PRIORITY", "4:READ",
                                                  "2:WRITE_LOW_PRIORITY WAITING"});
    h->Release();
    r->Release();
    CHECK(lf.get().ok());
  }
  SECTION("on release, led by a plain READ, the readers wait for it (thr_lock's order)") {
    auto aw = table.Lock(&a, T::kWrite, kNoWait);
    REQUIRE(aw.ok());
    auto lf = Send(table, lp, T::kWriteLowPriority);
    auto rf = Send(table, c, T::kRead);
    aw->Release();
    auto l = lf.get();
    REQUIRE(l.ok());
    CHECK(Rows(table) == std::vector<std::string>{"2:WRITE_LOW_PRIORITY", "3:READ WAITING"});
    l->Release();
    CHECK(rf.get().ok());
  }
}

TEST_CASE("table lock: max_write_lock_count lets waiting readers in", "[lock][table_lock]") {
  TableLockGlobals globals;
  globals.set_max_write_lock_count(1);
  TableLock table("t", &globals);
  TableLockOwner a(1), w1(2), w2(3), w3(4), r(5);
  auto aw = table.Lock(&a, T::kWrite, kNoWait);  // granted at once: not counted
  REQUIRE(aw.ok());
  auto rf = Send(table, r, T::kRead);
  auto f1 = Send(table, w1, T::kWrite);
  auto f2 = Send(table, w2, T::kWrite);
  auto f3 = Send(table, w3, T::kWrite);
  aw->Release();
  auto t1 = f1.get();  // queued writer 1 of max_write_lock_count + 1 ...
  REQUIRE(t1.ok());
  t1->Release();
  auto t2 = f2.get();  // ... and 2
  REQUIRE(t2.ok());
  t2->Release();
  auto rt = rf.get();  // then the reader, though w3 waits ahead of it with write priority
  REQUIRE(rt.ok());
  CHECK(Rows(table) == std::vector<std::string>{"5:READ", "4:WRITE WAITING"});
  rt->Release();
  CHECK(f3.get().ok());
}

TEST_CASE("table lock: without max_write_lock_count, writers starve queued readers",
          "[lock][table_lock]") {
  TableLockGlobals globals;  // kNoWriteLimit, MySQL's default
  TableLock table("t", &globals);
  TableLockOwner a(1), w1(2), w2(3), w3(4), r(5);
  auto aw = table.Lock(&a, T::kWrite, kNoWait);
  REQUIRE(aw.ok());
  auto rf = Send(table, r, T::kRead);
  auto f1 = Send(table, w1, T::kWrite);
  auto f2 = Send(table, w2, T::kWrite);
  auto f3 = Send(table, w3, T::kWrite);
  aw->Release();
  for (auto* f : {&f1, &f2, &f3}) {
    auto t = f->get();
    REQUIRE(t.ok());
    CHECK(r.waiting());
    t->Release();
  }
  CHECK(rf.get().ok());
}

TEST_CASE("table lock: concurrent insert beside readers, as the engine's check decides",
          "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("t", &globals);
  TableLockOwner reader(1), ins(2), other(3), ins2(4);
  auto rd = table.Lock(&reader, T::kRead, kNoWait);
  REQUIRE(rd.ok());

  SECTION("allowed: an appender beside readers, and new readers beside it") {
    bool concurrent = false;
    TableLockHooks hooks = AllowInsert(true);
    hooks.on_grant = [&concurrent](bool c) { concurrent = c; };
    auto ci = table.Lock(&ins, T::kWriteConcurrentInsert, kNoWait, hooks);
    REQUIRE(ci.ok());
    CHECK(ci->type() == T::kWriteConcurrentInsert);
    CHECK(concurrent);
    CHECK(LockCode(table, other, T::kRead) == Code::kOk);
    CHECK(LockCode(table, other, T::kReadHighPriority) == Code::kOk);
    // Never beside READ_NO_INSERT; a second appender beside the first.
    CHECK(LockCode(table, other, T::kReadNoInsert) == Code::kLockWaitTimeout);
    auto second = table.Lock(&ins2, T::kWriteConcurrentInsert, kNoWait, AllowInsert(true));
    REQUIRE(second.ok());
    CHECK(second->type() == T::kWriteConcurrentInsert);
    CHECK(Rows(table) == std::vector<std::string>{"2:WRITE_CONCURRENT_INSERT",
                                                  "4:WRITE_CONCURRENT_INSERT", "1:READ"});
  }
  SECTION("refused: the request is a WRITE and waits for the readers") {
    bool concurrent = true;
    TableLockHooks hooks = AllowInsert(false);
    hooks.on_grant = [&concurrent](bool c) { concurrent = c; };
    CHECK(LockCode(table, ins, T::kWriteConcurrentInsert, hooks) == Code::kLockWaitTimeout);
    auto f = Send(table, ins, T::kWriteConcurrentInsert, kLong, hooks);
    CHECK(Rows(table) == std::vector<std::string>{"1:READ", "2:WRITE WAITING"});
    CHECK(LockCode(table, other, T::kRead) == Code::kLockWaitTimeout);  // a WRITE's priority
    rd->Release();
    auto t = f.get();
    REQUIRE(t.ok());
    CHECK(t->type() == T::kWrite);
    CHECK_FALSE(concurrent);
  }
  SECTION("no check at all: always a WRITE") {
    CHECK(LockCode(table, ins, T::kWriteConcurrentInsert, TableLockHooks{}) ==
          Code::kLockWaitTimeout);
    rd->Release();
    auto t = table.Lock(&ins, T::kWriteConcurrentInsert, kNoWait);
    REQUIRE(t.ok());
    CHECK(t->type() == T::kWrite);
  }
}

TEST_CASE("table lock: a queued appender is checked again when it is granted",
          "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("t", &globals);
  TableLockOwner reader(1), rni(2), ins(3);
  std::atomic<bool> allow{true};
  std::atomic<int> asked{0};
  TableLockHooks hooks;
  hooks.allow_concurrent_insert = [&](bool) {
    asked++;
    return allow.load();
  };
  auto rd = table.Lock(&reader, T::kRead, kNoWait);
  auto nr = table.Lock(&rni, T::kReadNoInsert, kNoWait);
  REQUIRE(rd.ok());
  REQUIRE(nr.ok());

  SECTION("still allowed: starts beside the remaining reader") {
    auto f = Send(table, ins, T::kWriteConcurrentInsert, kLong, hooks);
    CHECK(asked == 1);  // it could have started but for the READ_NO_INSERT
    nr->Release();
    auto t = f.get();
    REQUIRE(t.ok());
    CHECK(t->type() == T::kWriteConcurrentInsert);
    CHECK(asked == 2);
    CHECK(Rows(table) == std::vector<std::string>{"3:WRITE_CONCURRENT_INSERT", "1:READ"});
  }
  SECTION("refused by then: it becomes a WRITE and waits for the last reader") {
    auto f = Send(table, ins, T::kWriteConcurrentInsert, kLong, hooks);
    allow = false;
    nr->Release();
    CHECK(Rows(table) == std::vector<std::string>{"1:READ", "3:WRITE WAITING"});
    rd->Release();
    auto t = f.get();
    REQUIRE(t.ok());
    CHECK(t->type() == T::kWrite);
    CHECK(asked == 2);
  }
}

TEST_CASE("table lock: the check is told whether readers hold, from each reader's grant",
          "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("t", &globals);
  TableLockOwner writer(1), reader(2), ins(3);
  std::vector<bool> told;
  TableLockHooks hooks;
  // concurrent_insert=ALWAYS on a table with holes: append only beside readers.
  hooks.allow_concurrent_insert = [&told](bool readers_hold) {
    told.push_back(readers_hold);
    return readers_hold;
  };
  SECTION("no reader: told none, so the request is a WRITE") {
    auto w = table.Lock(&ins, T::kWriteConcurrentInsert, kNoWait, hooks);
    REQUIRE(w.ok());
    CHECK(w->type() == T::kWrite);
    CHECK(told == std::vector<bool>{false});
  }
  SECTION("a reader granted from the queue counts before its Lock call returns") {
    auto w = table.Lock(&writer, T::kWrite, kNoWait);
    REQUIRE(w.ok());
    auto f = Send(table, reader, T::kRead, kLong);
    // Grants the queued reader on this thread; its own thread may not have run yet, and the
    // reader counts from here (an engine counting readers as their Lock calls return would
    // turn this append into a WRITE waiting for the whole read).
    w->Release();
    auto a = table.Lock(&ins, T::kWriteConcurrentInsert, kNoWait, hooks);
    REQUIRE(a.ok());
    CHECK(a->type() == T::kWriteConcurrentInsert);
    CHECK(told == std::vector<bool>{true});
    auto rd = f.get();
    REQUIRE(rd.ok());
  }
}

TEST_CASE("table lock: appenders share with appenders while the check allows",
          "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("t", &globals);
  TableLockOwner reader(1), a(2), b(3), c(4), w(5), rni(6);
  std::atomic<bool> allow{true};
  std::atomic<int> asked{0};
  TableLockHooks hooks;
  hooks.allow_concurrent_insert = [&](bool) {
    asked++;
    return allow.load();
  };
  auto rd = table.Lock(&reader, T::kRead, kNoWait);
  REQUIRE(rd.ok());

  SECTION("each new appender is asked the check; refused, it is a WRITE and waits") {
    auto ta = table.Lock(&a, T::kWriteConcurrentInsert, kNoWait, hooks);
    auto tb = table.Lock(&b, T::kWriteConcurrentInsert, kNoWait, hooks);
    REQUIRE(ta.ok());
    REQUIRE(tb.ok());
    CHECK(asked == 2);
    allow = false;  // e.g. a hole appeared
    auto fc = Send(table, c, T::kWriteConcurrentInsert, kLong, hooks);
    CHECK(asked == 3);
    CHECK(Rows(table) == std::vector<std::string>{"2:WRITE_CONCURRENT_INSERT",
                                                  "3:WRITE_CONCURRENT_INSERT", "1:READ",
                                                  "4:WRITE WAITING"});
    ta->Release();
    tb->Release();
    CHECK(Rows(table) == std::vector<std::string>{"1:READ", "4:WRITE WAITING"});
    rd->Release();
    auto tc = fc.get();
    REQUIRE(tc.ok());
    CHECK(tc->type() == T::kWrite);
  }
  SECTION("a waiting WRITE holds new appenders back; they start together after it") {
    auto ta = table.Lock(&a, T::kWriteConcurrentInsert, kNoWait, hooks);
    REQUIRE(ta.ok());
    auto fw = Send(table, w, T::kWrite);
    auto fb = Send(table, b, T::kWriteConcurrentInsert, kLong, hooks);
    auto fc = Send(table, c, T::kWriteConcurrentInsert, kLong, hooks);
    CHECK(Rows(table) == std::vector<std::string>{"2:WRITE_CONCURRENT_INSERT", "1:READ",
                                                  "5:WRITE WAITING",
                                                  "3:WRITE_CONCURRENT_INSERT WAITING",
                                                  "4:WRITE_CONCURRENT_INSERT WAITING"});
    ta->Release();
    rd->Release();
    auto tw = fw.get();
    REQUIRE(tw.ok());
    CHECK(Rows(table) == std::vector<std::string>{"5:WRITE", "3:WRITE_CONCURRENT_INSERT WAITING",
                                                  "4:WRITE_CONCURRENT_INSERT WAITING"});
    tw->Release();  // the table falls free: the first appender and the one behind it go
    auto tb = fb.get();
    auto tc = fc.get();
    REQUIRE(tb.ok());
    REQUIRE(tc.ok());
    CHECK(tb->type() == T::kWriteConcurrentInsert);
    CHECK(tc->type() == T::kWriteConcurrentInsert);
    const TableLockCounters n = globals.counters();
    CHECK(n.immediate == 2);  // the reader, the first appender
    CHECK(n.waited == 3);     // the WRITE and the two appenders behind it
  }
  SECTION("appenders queued behind a READ_NO_INSERT start together when it leaves") {
    auto nr = table.Lock(&rni, T::kReadNoInsert, kNoWait);
    REQUIRE(nr.ok());
    auto fb = Send(table, b, T::kWriteConcurrentInsert, kLong, hooks);
    auto fc = Send(table, c, T::kWriteConcurrentInsert, kLong, hooks);
    nr->Release();
    auto tb = fb.get();
    auto tc = fc.get();
    REQUIRE(tb.ok());
    REQUIRE(tc.ok());
    CHECK(Rows(table) == std::vector<std::string>{"3:WRITE_CONCURRENT_INSERT",
                                                  "4:WRITE_CONCURRENT_INSERT", "1:READ"});
    // And READ_NO_INSERT waits for both.
    CHECK(LockCode(table, rni, T::kReadNoInsert) == Code::kLockWaitTimeout);
  }
  SECTION("an appender's own READ_NO_INSERT keeps other appenders out") {
    auto ta = table.Lock(&a, T::kWriteConcurrentInsert, kNoWait, hooks);
    REQUIRE(ta.ok());
    auto own = table.Lock(&a, T::kReadNoInsert, kNoWait);  // rule (5): granted at once
    REQUIRE(own.ok());
    CHECK(LockCode(table, b, T::kWriteConcurrentInsert, hooks) == Code::kLockWaitTimeout);
    auto fb = Send(table, b, T::kWriteConcurrentInsert, kLong, hooks);
    own->Release();  // the appenders behind may start now
    auto tb = fb.get();
    REQUIRE(tb.ok());
    CHECK(tb->type() == T::kWriteConcurrentInsert);
  }
  SECTION("WRITE excludes appenders, and appenders keep WRITE out") {
    rd->Release();
    auto tw = table.Lock(&w, T::kWrite, kNoWait);
    REQUIRE(tw.ok());
    CHECK(LockCode(table, a, T::kWriteConcurrentInsert, hooks) == Code::kLockWaitTimeout);
    tw->Release();
    auto ta = table.Lock(&a, T::kWriteConcurrentInsert, kNoWait, hooks);
    auto tb = table.Lock(&b, T::kWriteConcurrentInsert, kNoWait, hooks);
    REQUIRE(ta.ok());
    REQUIRE(tb.ok());
    CHECK(LockCode(table, w, T::kWrite) == Code::kLockWaitTimeout);
    CHECK(LockCode(table, w, T::kWriteLowPriority) == Code::kLockWaitTimeout);
    CHECK(LockCode(table, w, T::kWriteAllowWrite) == Code::kLockWaitTimeout);
  }
}

TEST_CASE("table lock: WRITE_ALLOW_WRITE waiters start together", "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("t", &globals);
  TableLockOwner a(1), b(2), c(3), d(4);
  auto aw = table.Lock(&a, T::kWrite, kNoWait);
  REQUIRE(aw.ok());
  auto fb = Send(table, b, T::kWriteAllowWrite);
  auto fc = Send(table, c, T::kWriteAllowWrite);
  auto fd = Send(table, d, T::kReadNoInsert);
  aw->Release();
  auto tb = fb.get();
  auto tc = fc.get();
  REQUIRE(tb.ok());
  REQUIRE(tc.ok());
  // Queued READ_NO_INSERT stays behind a granted concurrent writer (thr_lock's
  // free_all_read_locks), though a new one would be granted beside it.
  CHECK(Rows(table) == std::vector<std::string>{"2:WRITE_ALLOW_WRITE", "3:WRITE_ALLOW_WRITE",
                                                "4:READ_NO_INSERT WAITING"});
  tb->Release();
  tc->Release();
  CHECK(fd.get().ok());
}

TEST_CASE("table lock: same-owner rules", "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("test.t", &globals);
  TableLockOwner a(1), b(2);

  SECTION("a WRITE holder takes reads and weaker writes at once, past waiters") {
    auto w = table.Lock(&a, T::kWrite, kNoWait);
    REQUIRE(w.ok());
    auto f = Send(table, b, T::kWrite);
    for (T t : {T::kRead, T::kReadNoInsert, T::kReadHighPriority, T::kWriteConcurrentInsert,
                T::kWriteLowPriority, T::kWrite, T::kWriteAllowWrite}) {
      INFO(TableLockTypeName(t));
      auto more = table.Lock(&a, t, kNoWait);
      CHECK(more.ok());
    }
    CHECK(LockCode(table, a, T::kWriteOnly) == Code::kInvalidArgument);  // stronger
    w->Release();
    CHECK(f.get().ok());
  }
  SECTION("WRITE_LOW_PRIORITY covers WRITE; a concurrent writer cannot upgrade") {
    auto lp = table.Lock(&a, T::kWriteLowPriority, kNoWait);
    REQUIRE(lp.ok());
    CHECK(LockCode(table, a, T::kWrite) == Code::kOk);
    lp->Release();
    auto ci = table.Lock(&a, T::kWriteConcurrentInsert, kNoWait, AllowInsert(true));
    REQUIRE(ci.ok());
    CHECK(LockCode(table, a, T::kWriteAllowWrite) == Code::kOk);
    auto up = table.Lock(&a, T::kWrite, kNoWait);
    CHECK(up.status().code() == Code::kInvalidArgument);
    CHECK(up.status().message().find("upgraded") != std::string::npos);
  }
  SECTION("a READ holder cannot write (MySQL's 1099)") {
    auto r = table.Lock(&a, T::kRead, kNoWait);
    REQUIRE(r.ok());
    for (T t : {T::kWriteAllowWrite, T::kWriteConcurrentInsert, T::kWriteLowPriority, T::kWrite,
                T::kWriteOnly}) {
      auto w = table.Lock(&a, t, kLong);  // refused at once, never a wait for itself
      CHECK(w.status().code() == Code::kInvalidArgument);
      CHECK(w.status().message() ==
            "Table 'test.t' was locked with a READ lock and can't be updated");
    }
    CHECK(LockCode(table, b, T::kWriteConcurrentInsert) == Code::kOk);  // another owner may
  }
  SECTION("a WRITE_ONLY holder reads; others are refused, not queued") {
    auto wo = table.Lock(&a, T::kWriteOnly, kNoWait);
    REQUIRE(wo.ok());
    CHECK(LockCode(table, a, T::kRead) == Code::kOk);
    auto r = table.Lock(&b, T::kRead, kLong);
    CHECK(r.status().code() == Code::kAborted);
    CHECK(Rows(table) == std::vector<std::string>{"1:WRITE_ONLY"});
  }
}

TEST_CASE("table lock: timeout is kLockWaitTimeout and frees the readers a writer held back",
          "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("test.t", &globals);
  TableLockOwner a(1), w(2), c(3);
  auto ar = table.Lock(&a, T::kRead, kNoWait);
  REQUIRE(ar.ok());
  auto wf = Send(table, w, T::kWrite, milliseconds(300));
  auto cf = Send(table, c, T::kRead);  // behind the waiting WRITE
  auto wt = wf.get();
  CHECK(wt.status().code() == Code::kLockWaitTimeout);
  CHECK(wt.status().IsRetryable());
  CHECK(wt.status().message().find("Lock wait timeout exceeded") == 0);
  auto ct = cf.get();
  CHECK(ct.ok());
  CHECK_FALSE(w.waiting());
  CHECK(Rows(table) == std::vector<std::string>{"1:READ", "3:READ"});
}

TEST_CASE("table lock: interrupt ends a wait and every new one until cleared",
          "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("t", &globals);
  TableLockOwner a(1), w(2);
  auto aw = table.Lock(&a, T::kWrite, kNoWait);
  REQUIRE(aw.ok());
  auto wf = Send(table, w, T::kRead);
  REQUIRE(w.waiting());
  w.SetInterrupted(true);
  auto wt = wf.get();
  CHECK(wt.status().code() == Code::kAborted);
  CHECK_FALSE(w.waiting());
  CHECK(table.Lock(&w, T::kRead, kLong).status().code() == Code::kAborted);  // at once
  TableLock other("u", &globals);
  CHECK(other.Lock(&w, T::kWrite, kLong).ok());  // no wait needed: granted
  w.SetInterrupted(false);
  CHECK(LockCode(table, w, T::kRead) == Code::kLockWaitTimeout);
  CHECK(Rows(table) == std::vector<std::string>{"1:WRITE"});
  const TableLockCounters n = globals.counters();
  CHECK(n.wait_aborts == 2);
  CHECK(n.wait_timeouts == 1);
}

TEST_CASE("table lock: immediate and waited counters, exactly", "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock t1("t1", &globals), t2("t2", &globals);  // one set of counters for all tables
  TableLockOwner a(1), b(2), c(3);
  {
    auto r1 = t1.Lock(&a, T::kRead, kNoWait);                     // immediate 1
    auto r2 = t1.Lock(&b, T::kRead, kNoWait);                     // immediate 2
    auto w2 = t2.Lock(&a, T::kWrite, kNoWait);                    // immediate 3
    auto r3 = t2.Lock(&a, T::kRead, kNoWait);                     // immediate 4 (same owner)
    CHECK(LockCode(t1, c, T::kWrite) == Code::kLockWaitTimeout);  // waited 1, timeout 1
    auto up = t1.Lock(&a, T::kWrite, kNoWait);                    // refused (1099): not counted
    CHECK_FALSE(up.ok());
    auto wf = Send(t1, c, T::kWrite);  // waited 2
    r1->Release();
    r2->Release();
    CHECK(wf.get().ok());             // granted after the wait
    auto bf = Send(t2, b, T::kRead);  // waited 3
    b.SetInterrupted(true);
    CHECK(bf.get().status().code() == Code::kAborted);  // abort 1
  }
  const TableLockCounters n = globals.counters();
  CHECK(n.immediate == 4);
  CHECK(n.waited == 3);
  CHECK(n.wait_timeouts == 1);
  CHECK(n.wait_aborts == 1);
  CHECK(t1.Snapshot().empty());
  CHECK(t2.Snapshot().empty());
}

TEST_CASE("table lock: status views list holders and waiters", "[lock][table_lock]") {
  TableLockGlobals globals;
  TableLock table("t", &globals);
  TableLockOwner a(7), b(8), c(9);
  auto ar = table.Lock(&a, T::kReadNoInsert, kNoWait);
  REQUIRE(ar.ok());
  CHECK_FALSE(b.waiting());
  auto bf = Send(table, b, T::kWriteConcurrentInsert);
  auto cf = Send(table, c, T::kWrite);
  CHECK(b.waiting());
  CHECK(c.waiting());
  CHECK_FALSE(a.waiting());
  CHECK(Rows(table) == std::vector<std::string>{"7:READ_NO_INSERT",
                                                "8:WRITE_CONCURRENT_INSERT WAITING",
                                                "9:WRITE WAITING"});
  ar->Release();
  auto bt = bf.get();
  REQUIRE(bt.ok());
  bt->Release();
  CHECK(cf.get().ok());
  CHECK(table.Snapshot().empty());
}

double StressSeconds() {
  const char* s = std::getenv("MINNOW_STRESS_SECONDS");
  return s != nullptr ? std::atof(s) : 1.0;
}

// Two granted locks of different owners may coexist if either could have been granted beside
// the other (the matrix is not symmetric: READ_NO_INSERT joins a WRITE_ALLOW_WRITE, not the
// other way round).
bool MayCoexist(T x, T y) { return Expected(x, y) == '+' || Expected(y, x) == '+'; }

TEST_CASE("table lock stress: no two incompatible grants are ever held at once",
          "[.stress][lock][table_lock]") {
  TableLockGlobals globals;
  globals.set_max_write_lock_count(3);
  TableLock table("t", &globals);
  constexpr int kThreads = 5;
  std::vector<std::unique_ptr<TableLockOwner>> owners;
  for (int i = 0; i < kThreads; ++i) owners.push_back(std::make_unique<TableLockOwner>(i + 1));
  Latch held_latch;  // guards held: what each owner holds, entered after grant, left before release
  std::multimap<int, T> held;
  std::atomic<int> violations{0};
  std::atomic<uint64_t> grants{0}, failures{0}, own_reads{0};
  std::atomic<bool> allow_insert{true};
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(StressSeconds());
  auto enter = [&](int me, T type) {
    LatchGuard guard(held_latch);
    for (const auto& [who, t] : held) {
      if (who != me && !MayCoexist(t, type)) violations++;
    }
    held.emplace(me, type);
  };
  auto leave = [&](int me, T type) {
    LatchGuard guard(held_latch);
    for (auto it = held.lower_bound(me); it != held.end() && it->first == me; ++it) {
      if (it->second == type) {
        held.erase(it);
        return;
      }
    }
    violations++;
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      std::mt19937 rng(i + 1);
      TableLockOwner* me = owners[i].get();
      TableLockHooks hooks;
      hooks.allow_concurrent_insert = [&](bool) { return allow_insert.load(); };
      while (std::chrono::steady_clock::now() < deadline) {
        const T type = kAllTypes[rng() % (kAllTypes.size() - 1)];  // no WRITE_ONLY: it refuses
        auto t = table.Lock(me, type, milliseconds(rng() % 50), hooks);
        if (!t.ok()) {
          if (t.status().code() != Code::kLockWaitTimeout) violations++;
          failures++;
          continue;
        }
        grants++;
        const T granted = t->type();
        if (granted != type && !(type == T::kWriteConcurrentInsert && granted == T::kWrite)) {
          violations++;
        }
        enter(i, granted);
        if (rng() % 8 == 0) allow_insert = !allow_insert.load();
        if (IsWriteLock(granted) && rng() % 2 == 0) {
          // Rule (5): the writer's own read is granted at once, whatever waits.
          auto r = table.Lock(me, T::kRead, milliseconds(0));
          if (!r.ok()) violations++;
          own_reads++;
        }
        std::this_thread::yield();
        leave(i, granted);
        t->Release();
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(violations == 0);
  CHECK(grants > 0);
  CHECK(table.Snapshot().empty());
  const TableLockCounters n = globals.counters();
  CHECK(n.immediate + n.waited == grants + failures + own_reads);  // each request counted once
  CHECK(n.wait_timeouts == failures);
  CHECK(n.wait_aborts == 0);
}

}  // namespace
}  // namespace minnow
