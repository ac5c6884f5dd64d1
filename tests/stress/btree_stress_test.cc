// Concurrent readers and writers on one B+tree for a bounded time, then Check() and an exact
// comparison of each writer's private key range with its own model. Writers also fight over a
// shared key range. Run with "[stress]"; clean under ThreadSanitizer.

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "btree/btree.h"
#include "btree/cursor.h"
#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/disk_backend.h"

namespace minnow {
namespace {

// The padding comes before the id, so that separators between padded keys are long and node
// pages split and merge too (a tree of height 3 or 4).
std::string Key(uint8_t space, uint32_t id) {
  size_t pad = id % 3 == 1 ? 700 : (id % 3 == 2 ? 40 : 0);
  std::string k(1 + pad + 4, 'p');
  k[0] = static_cast<char>(space);
  StoreBE32(reinterpret_cast<std::byte*>(k.data() + 1 + pad), id);
  return k;
}

std::string Value(std::mt19937_64& rng) {
  size_t len = rng() % 100 == 0 ? 5000 + rng() % 25000 : rng() % 300;
  return std::string(len, static_cast<char>('a' + rng() % 26));
}

double StressSeconds() {
  const char* s = std::getenv("MINNOW_STRESS_SECONDS");
  return s != nullptr ? std::atof(s) : 3.0;
}

// Everything a thread saw go wrong; REQUIRE is not thread-safe in Catch2.
struct Failures {
  std::atomic<int> count{0};
  std::string first;  // written by the first failure only
  void Add(const std::string& what) {
    if (count.fetch_add(1) == 0) first = what;
  }
};

void Writer(BTree* tree, int t, const std::atomic<bool>* stop, Failures* fail,
            std::map<std::string, std::string>* model, std::atomic<uint64_t>* ops) {
  std::mt19937_64 rng(1000 + t);
  uint64_t n = 0;
  while (!stop->load(std::memory_order_relaxed)) {
    // Alternate growing and shrinking phases so that splits and merges both happen.
    bool shrink = (n / 4000) % 2 == 1;
    bool shared = rng() % 4 == 0;
    uint32_t id = static_cast<uint32_t>(rng() % (shared ? 2000 : 6000));
    std::string key = Key(shared ? 0xff : static_cast<uint8_t>(t), id);
    int op = static_cast<int>(rng() % 100);
    if (shrink && op < 60) op = 60 + op % 30;  // mostly removes
    std::string v = Value(rng);
    Status st;
    if (op < 35) {
      st = tree->Insert(AsBytes(key), AsBytes(v));
      if (!shared) {
        bool present = model->count(key) == 1;
        if (st.ok() == present) fail->Add("insert: " + st.ToString());
        if (st.ok()) (*model)[key] = v;
      }
    } else if (op < 50) {
      st = tree->Upsert(AsBytes(key), AsBytes(v));
      if (!shared) (*model)[key] = v;
    } else if (op < 60) {
      st = tree->Update(AsBytes(key), AsBytes(v));
      if (!shared && st.ok()) (*model)[key] = v;
      if (!shared && st.ok() != (model->count(key) == 1)) fail->Add("update: " + st.ToString());
    } else if (op < 90) {
      st = tree->Remove(AsBytes(key));
      if (!shared && st.ok() != (model->erase(key) == 1)) fail->Add("remove: " + st.ToString());
    } else {
      auto r = tree->Get(AsBytes(key));
      st = r.status();
      if (!shared) {
        auto it = model->find(key);
        if (r.ok() != (it != model->end()) || (r.ok() && r->value != it->second)) {
          fail->Add("get: " + st.ToString());
        }
      }
    }
    if (!st.ok() && st.code() != Code::kNotFound && st.code() != Code::kDuplicateKey) {
      fail->Add("writer: " + st.ToString());
    }
    ++n;
  }
  ops->fetch_add(n);
}

void Reader(BTree* tree, int t, const std::atomic<bool>* stop, Failures* fail,
            std::atomic<uint64_t>* rows) {
  std::mt19937_64 rng(2000 + t);
  uint64_t seen = 0;
  auto c = tree->NewCursor();
  while (!stop->load(std::memory_order_relaxed)) {
    int mode = static_cast<int>(rng() % 3);
    std::string prev;
    bool first = true;
    Status st;
    if (mode == 0) {  // full forward scan
      st = c->SeekToFirst();
      while (st.ok() && c->Valid() && !stop->load(std::memory_order_relaxed)) {
        std::string k(AsStringView(c->key()));
        if (!first && k <= prev) fail->Add("forward scan out of order");
        prev = std::move(k);
        first = false;
        ++seen;
        st = c->Next();
      }
    } else if (mode == 1) {  // backward range
      st = c->SeekForPrev(AsBytes(Key(static_cast<uint8_t>(rng() % 5), rng() % 6000)));
      for (int i = 0; st.ok() && c->Valid() && i < 3000; ++i) {
        std::string k(AsStringView(c->key()));
        if (!first && k >= prev) fail->Add("backward scan out of order");
        prev = std::move(k);
        first = false;
        ++seen;
        st = c->Prev();
      }
    } else {  // point reads and short ranges with values
      st = c->Seek(AsBytes(Key(0xff, rng() % 2000)));
      for (int i = 0; st.ok() && c->Valid() && i < 50; ++i) {
        auto v = c->value();
        if (!v.ok() && v.status().code() != Code::kNotFound) st = v.status();
        ++seen;
        if (st.ok()) st = c->Next();
      }
    }
    if (!st.ok()) fail->Add("reader: " + st.ToString());
  }
  rows->fetch_add(seen);
}

TEST_CASE("concurrent readers and writers", "[.stress][btree]") {
  auto disk = NewMemoryDisk("btree_stress");
  BufferPoolOptions o;
  o.pool_bytes = 512 * kPageSize;
  o.flusher_interval_ms = 20;
  auto pool = std::move(BufferPool::Open(NewMemoryBackend(disk), o)).value();
  auto root = BTree::Create(pool.get(), {});
  REQUIRE(root.ok());
  auto tree = std::move(BTree::Open(pool.get(), *root)).value();

  const int kWriters = 4;
  const int kReaders = 3;
  std::atomic<bool> stop{false};
  Failures fail;
  std::vector<std::map<std::string, std::string>> models(kWriters);
  std::atomic<uint64_t> ops{0}, rows{0};
  std::atomic<bool> stop_readers{false};
  std::vector<std::thread> writers, readers;
  for (int t = 0; t < kWriters; ++t) {
    writers.emplace_back(Writer, tree.get(), t, &stop, &fail, &models[t], &ops);
  }
  for (int t = 0; t < kReaders; ++t) {
    readers.emplace_back(Reader, tree.get(), t, &stop_readers, &fail, &rows);
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(StressSeconds()));
  stop = true;
  for (auto& th : writers) th.join();
  writers.clear();
  INFO(fail.first);
  REQUIRE(fail.count.load() == 0);
  TreeStats st = tree->stats();
  WARN("writer ops " << ops.load() << ", splits " << st.splits << ", merges " << st.merges
                     << ", redistributions " << st.redistributions << ", pessimistic "
                     << st.pessimistic << ", root raises " << st.root_raises);
  // Each writer's private range matches its model (readers still scanning).
  for (int t = 0; t < kWriters; ++t) {
    auto c = tree->NewCursor();
    std::string lo(1, static_cast<char>(t));
    REQUIRE(c->Seek(AsBytes(lo)).ok());
    for (const auto& [k, v] : models[t]) {
      REQUIRE(c->Valid());
      REQUIRE(std::string(AsStringView(c->key())) == k);
      auto val = c->value();
      REQUIRE(val.ok());
      REQUIRE(std::string(AsStringView(*val)) == v);
      REQUIRE(c->Next().ok());
    }
    if (c->Valid()) REQUIRE(static_cast<uint8_t>(c->key()[0]) != t);
  }
  // Drain the tree concurrently (merges up to root collapses) while the readers go on.
  for (int t = 0; t < kWriters; ++t) {
    writers.emplace_back([&, t] {
      for (const auto& [k, v] : models[t]) {
        Status s = tree->Remove(AsBytes(k));
        if (!s.ok()) fail.Add("drain: " + s.ToString());
      }
      for (uint32_t id = static_cast<uint32_t>(t); id < 2000; id += kWriters) {
        Status s = tree->Remove(AsBytes(Key(0xff, id)));
        if (!s.ok() && s.code() != Code::kNotFound) fail.Add("drain: " + s.ToString());
      }
    });
  }
  for (auto& th : writers) th.join();
  stop_readers = true;
  for (auto& th : readers) th.join();
  REQUIRE(fail.count.load() == 0);
  auto rep = tree->Check();
  INFO(rep.status().ToString());
  REQUIRE(rep.ok());
  CHECK(rep->records == 0);
  CHECK(rep->height == 1);
  CHECK(tree->stats().root_collapses >= 1);
  WARN("rows read " << rows.load() << ", root collapses " << tree->stats().root_collapses);
  REQUIRE(pool->Close().ok());
}

}  // namespace
}  // namespace minnow
