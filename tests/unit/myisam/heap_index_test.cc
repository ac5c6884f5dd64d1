// A heap with two btree/ indexes of key -> row position (unique: the position as the value;
// non-unique: the position as a key suffix), kept right through deletes, moving updates and a
// compaction whose position mapping rebuilds them.

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "btree/btree.h"
#include "btree/cursor.h"
#include "heap_test_util.h"
#include "myisam/row_heap.h"
#include "myisam/row_position.h"

namespace minnow {
namespace {

using testing::B;
using testing::GetOk;
using testing::HeapFixture;
using testing::InsertOk;
using testing::StatsOk;

std::string IdKey(uint32_t id) {
  std::string k(4, '\0');
  StoreBE32(reinterpret_cast<std::byte*>(k.data()), id);
  return k;
}

// The row's non-unique column: one byte, ten values.
std::string GroupKey(uint32_t id, RowPosition pos) {
  std::string k(1, static_cast<char>('0' + id % 10));
  AppendRowPositionSuffix(&k, pos);
  return k;
}

std::string RowFor(uint32_t id, size_t len) {
  std::string row = IdKey(id);
  row.resize(len, static_cast<char>('a' + id % 26));
  return row;
}

std::unique_ptr<BTree> NewTree(BufferPool* pool) {
  auto root = BTree::Create(pool, TreeOptions{});
  REQUIRE(root.ok());
  auto tree = BTree::Open(pool, *root);
  REQUIRE(tree.ok());
  return std::move(tree).value();
}

uint32_t IdOf(const std::string& row) {
  return LoadBE32(reinterpret_cast<const std::byte*>(row.data()));
}

struct Table {
  RowHeap* heap;
  std::unique_ptr<BTree> by_id;     // unique
  std::unique_ptr<BTree> by_group;  // non-unique

  void Insert(uint32_t id, size_t len) {
    const RowPosition pos = InsertOk(heap, RowFor(id, len), InsertMode::kFillHoles);
    REQUIRE(by_id->Insert(B(IdKey(id)), B(EncodeRowPosition(pos))).ok());
    REQUIRE(by_group->Insert(B(GroupKey(id, pos)), {}).ok());
  }
  RowPosition Find(uint32_t id) {
    auto rec = by_id->Get(B(IdKey(id)));
    REQUIRE(rec.ok());
    auto pos = DecodeRowPosition(AsBytes(rec->value));
    REQUIRE(pos.ok());
    return *pos;
  }
  void Delete(uint32_t id) {
    const RowPosition pos = Find(id);
    REQUIRE(heap->Delete(pos).ok());
    REQUIRE(by_id->Remove(B(IdKey(id))).ok());
    REQUIRE(by_group->Remove(B(GroupKey(id, pos))).ok());
  }
  // Returns whether the row moved.
  bool Update(uint32_t id, size_t len) {
    const RowPosition pos = Find(id);
    auto moved = heap->Update(pos, B(RowFor(id, len)), InsertMode::kFillHoles);
    REQUIRE(moved.ok());
    if (*moved == pos) return false;
    Repoint(id, pos, *moved);
    return true;
  }
  void Repoint(uint32_t id, RowPosition from, RowPosition to) {
    REQUIRE(by_id->Update(B(IdKey(id)), B(EncodeRowPosition(to))).ok());
    REQUIRE(by_group->Remove(B(GroupKey(id, from))).ok());
    REQUIRE(by_group->Insert(B(GroupKey(id, to)), {}).ok());
  }
  // Every index entry names a row that carries its key, and every row is indexed once.
  void Verify(const std::map<uint32_t, size_t>& model) {
    for (const auto& [id, len] : model) CHECK(GetOk(*heap, Find(id)) == RowFor(id, len));
    auto cur = by_group->NewCursor();
    REQUIRE(cur->SeekToFirst().ok());
    size_t n = 0;
    while (cur->Valid()) {
      auto split = SplitRowPositionSuffix(cur->key());
      REQUIRE(split.ok());
      const std::string row = GetOk(*heap, split->pos);
      CHECK(AsStringView(split->key) == std::string(1, static_cast<char>('0' + IdOf(row) % 10)));
      CHECK(Find(IdOf(row)) == split->pos);
      ++n;
      REQUIRE(cur->Next().ok());
    }
    CHECK(n == model.size());
    CHECK(StatsOk(*heap).rows == model.size());
  }
};

TEST_CASE("heap and indexes: positions as values and key suffixes, remapped by compaction",
          "[myisam]") {
  HeapFixture fx;
  Table t{fx.NewHeap(), NewTree(fx.pool()), NewTree(fx.pool())};
  std::map<uint32_t, size_t> model;
  for (uint32_t id = 0; id < 1200; ++id) {
    t.Insert(id, 20 + id % 60);
    model[id] = 20 + id % 60;
  }
  for (uint32_t id = 0; id < 1200; id += 4) {
    t.Delete(id);
    model.erase(id);
  }
  int moves = 0;
  for (uint32_t id = 1; id < 1200; id += 8) {
    moves += t.Update(id, 700) ? 1 : 0;  // most outgrow their full page and move
    model[id] = 700;
  }
  CHECK(moves > 0);
  for (uint32_t id = 5000; id < 5100; ++id) {  // some fill the holes the deletes and moves left
    t.Insert(id, 30);
    model[id] = 30;
  }
  t.Verify(model);
  CHECK(StatsOk(*t.heap).holes > 0);

  // OPTIMIZE TABLE: the mapping repoints both indexes.
  std::map<RowPosition, RowPosition> mapping;
  auto fresh = RowHeap::Compact(
      t.heap,
      [&](RowPosition o, RowPosition n, std::string_view) {
        mapping[o] = n;
        return Status::OK();
      },
      nullptr);
  REQUIRE(fresh.ok());
  t.heap = fx.OpenHeap(*fresh);
  REQUIRE(mapping.size() == model.size());
  for (const auto& [id, len] : model) {
    const RowPosition old = t.Find(id);
    t.Repoint(id, old, mapping.at(old));
  }
  t.Verify(model);
  CHECK(StatsOk(*t.heap).holes == 0);
  CHECK(t.by_id->Check().ok());
  CHECK(t.by_group->Check().ok());
}

}  // namespace
}  // namespace minnow
