// Model-based random test: a B+tree against std::map over a million operations with random
// key sizes (up to kMaxKeySize) and value sizes (inline, overflow, up to 1 MiB), on a pool
// smaller than the data, closing and reopening the pool between phases, and Check() plus a
// full comparison with the model after every phase.

#include <map>
#include <random>
#include <set>
#include <vector>

#include "btree_test_util.h"

namespace minnow {
namespace {

using testing::B;
using testing::PoolFixture;
using testing::RequireCheck;
using testing::S;

class ModelRun {
 public:
  explicit ModelRun(uint64_t seed) : rng_(seed) {}

  // Keys: id in [0, key_space) decides the key, so ids collide often; lengths 1..200, a few
  // up to kMaxKeySize.
  std::string Key(uint32_t id) const {
    uint64_t h = id * 0x9E3779B97F4A7C15ull;
    size_t len = (h >> 40) % 100 == 0 ? 1 + (h >> 20) % kMaxKeySize : 1 + (h >> 20) % 200;
    std::string k(len, '\0');
    for (size_t i = 0; i < len; ++i) k[i] = static_cast<char>("abcdefgh"[(h >> (i % 60)) & 7]);
    for (size_t i = 0; i < 4 && i < len; ++i) k[i] = static_cast<char>((id >> (24 - 8 * i)) & 0xff);
    return k;
  }

  std::string Value() {
    uint32_t r = rng_() % 10000;
    size_t len;
    if (r < 2) {
      len = 200000 + rng_() % (1u << 20);  // up to ~1.2 MiB
    } else if (r < 40) {
      len = 4000 + rng_() % 60000;  // overflow
    } else if (r < 600) {
      len = 200 + rng_() % 3000;
    } else {
      len = rng_() % 120;
    }
    std::string v(len, static_cast<char>('a' + rng_() % 26));
    for (size_t i = 0; i < len; i += 97) v[i] = static_cast<char>(rng_());
    return v;
  }

  // One phase of `ops` operations with the given mix (percent insert-like vs remove).
  void Phase(BTree* tree, int ops, uint32_t key_space, int remove_pct) {
    for (int i = 0; i < ops; ++i) {
      uint32_t id = static_cast<uint32_t>(rng_() % key_space);
      std::string key = Key(id);
      int op = static_cast<int>(rng_() % 100);
      auto it = model_.find(key);
      bool present = it != model_.end();
      if (op < remove_pct) {
        RecordData old;
        Status st = tree->Remove(B(key), &old);
        if (present) {
          REQUIRE(st.ok());
          REQUIRE(old.value == it->second);
          model_.erase(it);
        } else {
          REQUIRE(st.code() == Code::kNotFound);
        }
      } else if (op < remove_pct + 25) {
        std::string v = Value();
        Status st = tree->Insert(B(key), B(v));
        if (present) {
          REQUIRE(st.code() == Code::kDuplicateKey);
        } else {
          INFO(st.ToString());
          REQUIRE(st.ok());
          model_[key] = v;
        }
      } else if (op < remove_pct + 40) {
        std::string v = Value();
        bool existed = false;
        REQUIRE(tree->Upsert(B(key), B(v), {}, nullptr, &existed).ok());
        REQUIRE(existed == present);
        model_[key] = v;
      } else if (op < remove_pct + 50) {
        std::string v = Value();
        Status st = tree->Update(B(key), B(v));
        if (present) {
          REQUIRE(st.ok());
          it->second = v;
        } else {
          REQUIRE(st.code() == Code::kNotFound);
        }
      } else if (op < remove_pct + 53) {
        Status st = tree->SetDeleteMark(B(key), true);
        REQUIRE(st.code() == (present ? Code::kOk : Code::kNotFound));
        if (present) marked_.insert(key);
        if (present) REQUIRE(tree->SetDeleteMark(B(key), false).ok());
      } else if (op < 95) {
        auto r = tree->Get(B(key));
        if (present) {
          REQUIRE(r.ok());
          REQUIRE(r->value == it->second);
        } else {
          REQUIRE(r.status().code() == Code::kNotFound);
        }
      } else {
        CursorRange(tree, key);
      }
    }
  }

  void CursorRange(BTree* tree, const std::string& key) {
    auto c = tree->NewCursor();
    int steps = static_cast<int>(rng_() % 60);
    if (rng_() % 2 == 0) {
      REQUIRE(c->Seek(B(key)).ok());
      auto it = model_.lower_bound(key);
      for (int s = 0; s < steps && it != model_.end(); ++s, ++it) {
        REQUIRE(c->Valid());
        REQUIRE(S(c->key()) == it->first);
        if (s % 8 == 0) {
          auto v = c->value();
          REQUIRE(v.ok());
          REQUIRE(S(*v) == it->second);
        }
        REQUIRE(c->Next().ok());
      }
      if (it == model_.end() && steps > 0) REQUIRE(!c->Valid());
    } else {
      REQUIRE(c->SeekForPrev(B(key)).ok());
      auto it = model_.upper_bound(key);
      for (int s = 0; s < steps; ++s) {
        if (it == model_.begin()) {
          REQUIRE(!c->Valid());
          break;
        }
        --it;
        REQUIRE(c->Valid());
        REQUIRE(S(c->key()) == it->first);
        REQUIRE(c->Prev().ok());
      }
    }
  }

  void Compare(BTree* tree) {
    CheckReport rep = RequireCheck(*tree);
    REQUIRE(rep.records == model_.size());
    auto c = tree->NewCursor();
    REQUIRE(c->SeekToFirst().ok());
    for (const auto& [k, v] : model_) {
      REQUIRE(c->Valid());
      REQUIRE(S(c->key()) == k);
      auto val = c->value();
      REQUIRE(val.ok());
      REQUIRE(S(*val) == v);
      REQUIRE(!c->delete_marked());
      REQUIRE(c->Next().ok());
    }
    REQUIRE(!c->Valid());
    // Backward over the whole tree too.
    REQUIRE(c->SeekToLast().ok());
    for (auto it = model_.rbegin(); it != model_.rend(); ++it) {
      REQUIRE(c->Valid());
      REQUIRE(S(c->key()) == it->first);
      REQUIRE(c->Prev().ok());
    }
    REQUIRE(!c->Valid());
  }

  size_t size() const { return model_.size(); }

 private:
  std::mt19937_64 rng_;
  std::map<std::string, std::string> model_;
  std::set<std::string> marked_;
};

TEST_CASE("a million random operations against std::map, reopening between phases", "[btree]") {
  PoolFixture fx(64);  // 1 MiB of frames: smaller than the data
  auto root = BTree::Create(fx.pool(), {});
  REQUIRE(root.ok());
  ModelRun run(20261130);
  struct PhaseSpec {
    int ops;
    uint32_t key_space;
    int remove_pct;
    size_t frames;  // pool size for the next phase
  };
  const PhaseSpec phases[] = {
      {150000, 30000, 5, 64},     // grow
      {150000, 30000, 20, 1024},  // churn
      {200000, 30000, 45, 64},    // shrink: merges
      {150000, 4000, 25, 1024},   // dense churn on few keys
      {200000, 60000, 10, 64},    // grow again
      {150000, 60000, 60, 256},   // shrink hard
  };
  TreeStats total;
  for (const PhaseSpec& p : phases) {
    auto tree = BTree::Open(fx.pool(), *root);
    REQUIRE(tree.ok());
    run.Phase(tree->get(), p.ops, p.key_space, p.remove_pct);
    run.Compare(tree->get());
    TreeStats st = (*tree)->stats();
    total.splits += st.splits;
    total.merges += st.merges;
    total.redistributions += st.redistributions;
    total.root_raises += st.root_raises;
    total.root_collapses += st.root_collapses;
    tree->reset();
    fx.Reopen(p.frames);
  }
  auto tree = BTree::Open(fx.pool(), *root);
  REQUIRE(tree.ok());
  run.Compare(tree->get());
  // The run exercised every structure change.
  CHECK(total.splits > 1000);
  CHECK(total.merges > 100);
  CHECK(total.redistributions > 10);
  CHECK(total.root_raises >= 2);
}

}  // namespace
}  // namespace minnow
