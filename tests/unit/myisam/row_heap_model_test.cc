// RowHeap against a model (std::map of position -> row, plus the holes) over many random
// operations, with Check() after each phase, a reopen, a compaction and bounded scans between.

#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "heap_test_util.h"
#include "myisam/row_heap.h"

namespace minnow {
namespace {

using testing::B;
using testing::GetOk;
using testing::HeapFixture;
using testing::InsertOk;
using testing::RequireCheck;
using testing::ScanAll;
using testing::StatsOk;

struct Model {
  std::map<RowPosition, std::string> rows;
  std::map<RowPosition, size_t> holes;  // hole -> the former row's length

  void Insert(RowPosition p, const std::string& row) {
    REQUIRE(rows.count(p) == 0);
    holes.erase(p);
    rows[p] = row;
  }
  void Delete(RowPosition p) {
    holes[p] = rows.at(p).size();
    rows.erase(p);
  }
};

std::string RandomRow(std::mt19937& rng, int tag) {
  const uint32_t r = rng() % 100;
  const size_t len = r < 80 ? rng() % 200 : r < 97 ? 200 + rng() % 2000 : 4000 + rng() % 12000;
  std::string s(len, static_cast<char>('a' + tag % 26));
  for (size_t i = 0; i < len; i += 7) s[i] = static_cast<char>('A' + (tag + i) % 26);
  return s;
}

void CompareAll(const RowHeap& heap, const Model& m) {
  const HeapStats s = StatsOk(heap);
  CHECK(s.rows == m.rows.size());
  uint64_t bytes = 0;
  for (const auto& [p, row] : m.rows) bytes += row.size();
  uint64_t free_bytes = 0;
  for (const auto& [p, len] : m.holes) free_bytes += len;
  CHECK(s.row_bytes == bytes);
  CHECK(s.holes == m.holes.size());
  CHECK(s.data_free == free_bytes);
  auto report = RequireCheck(heap);
  CHECK(report.stats.rows == s.rows);
  auto scanned = ScanAll(heap);
  REQUIRE(scanned.size() == m.rows.size());
  for (const auto& [p, row] : scanned) {
    auto it = m.rows.find(p);
    REQUIRE(it != m.rows.end());
    CHECK(it->second == row);
  }
  for (const auto& [p, row] : m.rows) CHECK(GetOk(heap, p) == row);
  for (const auto& [p, len] : m.holes) {
    std::string row;
    CHECK(heap.Get(p, &row).code() == Code::kNotFound);
  }
}

TEST_CASE("heap model: random inserts, deletes and updates against a map", "[myisam]") {
  HeapFixture fx(48);  // fewer frames than pages: eviction and re-reads
  RowHeap* heap = fx.NewHeap();
  Model m;
  std::mt19937 rng(20240601);
  std::vector<RowPosition> live;  // a vector for random picks; kept in step with m.rows
  auto pick = [&]() -> size_t { return rng() % live.size(); };
  auto drop = [&](size_t k) {
    live[k] = live.back();
    live.pop_back();
  };
  int tag = 0;
  int hole_fills = 0;  // inserts and moves that took a hole
  int moves = 0;
  for (int phase = 0; phase < 8; ++phase) {
    INFO("phase " << phase);
    // Phases lean towards growth, then towards deletion, so the heap fills and empties.
    const uint32_t insert_pct = phase % 2 == 0 ? 55 : 30;
    for (int i = 0; i < 1500; ++i) {
      const uint32_t op = rng() % 100;
      const InsertMode mode = rng() % 3 == 0 ? InsertMode::kAppend : InsertMode::kFillHoles;
      if (op < insert_pct || live.empty()) {
        const std::string row = RandomRow(rng, ++tag);
        const RowPosition p = InsertOk(heap, row, mode);
        if (mode == InsertMode::kAppend) CHECK(m.holes.count(p) == 0);
        hole_fills += m.holes.count(p);
        m.Insert(p, row);
        live.push_back(p);
      } else if (op < insert_pct + 30) {
        const size_t k = pick();
        REQUIRE(heap->Delete(live[k]).ok());
        m.Delete(live[k]);
        drop(k);
      } else {
        const size_t k = pick();
        const RowPosition old = live[k];
        const std::string row = RandomRow(rng, ++tag);
        auto r = heap->Update(old, B(row), mode);
        INFO(r.status().ToString());
        REQUIRE(r.ok());
        if (*r == old) {
          m.rows[old] = row;
        } else {
          if (mode == InsertMode::kAppend) CHECK(m.holes.count(*r) == 0);
          hole_fills += m.holes.count(*r);
          ++moves;
          m.Delete(old);
          m.Insert(*r, row);
          live[k] = *r;
        }
      }
    }
    CompareAll(*heap, m);

    if (phase == 2) {  // persistence: a clean close and reopen
      heap = fx.Reopen();
      CompareAll(*heap, m);
    }
    if (phase == 4) {  // OPTIMIZE TABLE
      Model next;
      auto r = RowHeap::Compact(
          heap,
          [&](RowPosition o, RowPosition n, std::string_view row) {
            REQUIRE(row == m.rows.at(o));  // the row bytes as they were at `o`
            next.rows[n] = m.rows.at(o);
            return Status::OK();
          },
          nullptr);
      REQUIRE(r.ok());
      heap = fx.OpenHeap(*r);
      REQUIRE(next.rows.size() == m.rows.size());
      m = std::move(next);
      live.clear();
      for (const auto& [p, row] : m.rows) live.push_back(p);
      CompareAll(*heap, m);
    }
    if (phase == 6) {  // the concurrent insert rule: appends after an end stay invisible
      auto end = heap->End();
      REQUIRE(end.ok());
      const Model at_end = m;
      for (int i = 0; i < 500; ++i) {
        const std::string row = RandomRow(rng, ++tag);
        const RowPosition p = InsertOk(heap, row, InsertMode::kAppend);
        CHECK(m.holes.count(p) == 0);
        m.Insert(p, row);
        live.push_back(p);
        std::string got;
        CHECK(heap->Get(p, &got, &*end).code() == Code::kNotFound);
      }
      auto seen = ScanAll(*heap, &*end);
      REQUIRE(seen.size() == at_end.rows.size());
      for (const auto& [p, row] : seen) CHECK(at_end.rows.at(p) == row);
      CompareAll(*heap, m);
    }
  }
  CHECK(hole_fills > 100);  // the run did exercise both paths
  CHECK(moves > 50);
  // Emptying the heap leaves only holes; they are all reused by fill-holes inserts of small rows.
  for (RowPosition p : live) {
    REQUIRE(heap->Delete(p).ok());
    m.Delete(p);
  }
  live.clear();
  CompareAll(*heap, m);
  CHECK(StatsOk(*heap).rows == 0);
  const uint64_t holes = m.holes.size();
  const uint64_t pages = StatsOk(*heap).pages;
  for (uint64_t i = 0; i < holes; ++i) {
    const RowPosition p = InsertOk(heap, "", InsertMode::kFillHoles);
    REQUIRE(m.holes.count(p) == 1);
    m.Insert(p, "");
  }
  CHECK(StatsOk(*heap).holes == 0);
  CHECK(StatsOk(*heap).pages == pages);
  CompareAll(*heap, m);
}

}  // namespace
}  // namespace minnow
