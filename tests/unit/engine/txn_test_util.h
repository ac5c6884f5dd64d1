#pragma once
// Shared by the engine's transaction tests (isolation_test.cc, lock_behavior_test.cc): a
// database with one keyspace and four sessions (one per simulated client), and shorthands.
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "engine_test_util.h"

namespace minnow::testing {

// it->Next(), which must succeed (usable in a for statement's increment).
inline void Step(Iterator* it) { REQUIRE_OK(it->Next()); }

constexpr IsolationLevel kRU = IsolationLevel::kReadUncommitted;
constexpr IsolationLevel kRC = IsolationLevel::kReadCommitted;
constexpr IsolationLevel kRR = IsolationLevel::kRepeatableRead;
constexpr IsolationLevel kSER = IsolationLevel::kSerializable;

constexpr ReadOptions kShareRead{.lock_mode = LockMode::kShare};
constexpr ReadOptions kForUpdate{.lock_mode = LockMode::kExclusive};

// Short lock waits and an eager purge, so tests block and purge quickly.
inline Options TestOptions(uint32_t lock_wait_timeout_ms) {
  Options o = SmallOptions(":memory:");
  o.lock_wait_timeout_ms = lock_wait_timeout_ms;
  o.purge_interval_ms = 1;
  return o;
}

struct Db {
  explicit Db(const Options& o) : db(MustOpen(o)), ks(MustKeyspace(db.get(), "t")) {
    for (auto& s : sessions) s = Take(db->NewSession());
  }
  explicit Db(uint32_t lock_wait_timeout_ms = 100) : Db(TestOptions(lock_wait_timeout_ms)) {}
  std::unique_ptr<Transaction> Begin(int session, IsolationLevel level = kRR) {
    return Take(sessions[static_cast<size_t>(session)]->Begin({.isolation = level}));
  }
  void Load(const std::vector<std::pair<std::string, std::string>>& pairs) {
    auto t = Begin(3);
    for (const auto& [k, v] : pairs) REQUIRE_OK(t->Put(ks, k, v));
    REQUIRE_OK(t->Commit());
  }
  std::string Committed(std::string_view key) {
    auto t = Begin(3, kRC);
    auto v = t->Get(ks, key);
    if (v.status().IsNotFound()) return "<absent>";
    INFO(v.status().ToString());
    REQUIRE(v.ok());
    return *v;
  }
  void AwaitWaiters(uint64_t n) {
    for (int i = 0; i < 10000 && db->stats().row_lock_current_waits < n; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    REQUIRE(db->stats().row_lock_current_waits == n);
  }
  // Polls (bounded, ~10 s) until purge has emptied the history list.
  void AwaitPurge() {
    for (int i = 0; i < 10000 && db->stats().history_list_length != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    REQUIRE(db->stats().history_list_length == 0);
  }
  // The keyspace's CheckIntegrity report.
  KeyspaceCheck Check() {
    std::vector<KeyspaceCheck> reports;
    REQUIRE_OK(db->CheckIntegrity(&reports));
    for (const KeyspaceCheck& r : reports) {
      if (r.name == "t") return r;
    }
    FAIL("no report for keyspace t");
    return {};
  }

  std::unique_ptr<Database> db;
  Keyspace ks;
  std::unique_ptr<Session> sessions[4];
};

}  // namespace minnow::testing
