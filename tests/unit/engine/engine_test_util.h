#pragma once
// Helpers for the engine tests: a temporary directory per test (TempDir, from
// tests/test_temp_dir.h), status assertions that print the message, and shorthands for opening
// databases.

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "minnow/db.h"
#include "tests/test_temp_dir.h"

#define REQUIRE_OK(expr)                          \
  do {                                            \
    const ::minnow::Status minnow_t_st_ = (expr); \
    INFO(minnow_t_st_.ToString());                \
    REQUIRE(minnow_t_st_.ok());                   \
  } while (0)

#define REQUIRE_CODE(expr, expected)              \
  do {                                            \
    const ::minnow::Status minnow_t_st_ = (expr); \
    INFO(minnow_t_st_.ToString());                \
    REQUIRE(minnow_t_st_.code() == (expected));   \
  } while (0)

namespace minnow::testing {

// The value of a Result that must be OK (moves it out; Result's operator* does not on rvalues).
template <typename T>
T Take(Result<T>&& r) {
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return std::move(r).value();
}

inline Options SmallOptions(const std::string& path) {
  Options o;
  o.path = path;
  o.buffer_pool_bytes = 8u << 20;
  o.lock_wait_timeout_ms = 2000;
  return o;
}

inline std::unique_ptr<Database> MustOpen(const Options& o) {
  auto db = Database::Open(o);
  INFO(db.status().ToString());
  REQUIRE(db.ok());
  return std::move(*db);
}

inline Keyspace MustKeyspace(Database* db, const std::string& name,
                             const KeyspaceOptions& ko = {}) {
  auto ks = db->OpenKeyspace(name);
  if (!ks.ok()) {
    REQUIRE_OK(db->CreateKeyspace(name, ko));
    ks = db->OpenKeyspace(name);
  }
  INFO(ks.status().ToString());
  REQUIRE(ks.ok());
  return *ks;
}

inline std::unique_ptr<Transaction> MustBegin(Session* s) {
  auto t = s->Begin();
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  return std::move(*t);
}

// A key that sorts by i: 8 bytes big-endian.
inline std::string Key(uint64_t i) {
  std::string k(8, '\0');
  for (int b = 7; b >= 0; --b, i >>= 8) k[static_cast<size_t>(b)] = static_cast<char>(i & 0xff);
  return k;
}

}  // namespace minnow::testing
