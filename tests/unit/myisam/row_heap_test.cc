// RowHeap: append, get, scan, delete and holes, the bounded scan, updates, data_free,
// compaction, persistence, redo replay and corruption detection.

#include "myisam/row_heap.h"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "buffer_pool/file_header.h"
#include "buffer_pool/mtr.h"
#include "buffer_pool/page_codec.h"
#include "heap_test_util.h"
#include "myisam/heap_page_internal.h"

namespace minnow {
namespace {

using testing::B;
using testing::GetOk;
using testing::HeapFixture;
using testing::InsertOk;
using testing::RequireCheck;
using testing::Row;
using testing::ScanAll;
using testing::StatsOk;
namespace hf = heap_format;

TEST_CASE("heap: appended rows come back by position and in a scan, in order", "[myisam]") {
  HeapFixture fx;
  RowHeap* heap = fx.NewHeap();
  std::vector<RowPosition> pos;
  for (int i = 0; i < 2000; ++i)
    pos.push_back(InsertOk(heap, Row(i, 10 + i % 90), InsertMode::kAppend));
  for (int i = 0; i < 2000; ++i) CHECK(GetOk(*heap, pos[i]) == Row(i, 10 + i % 90));
  auto rows = ScanAll(*heap);
  REQUIRE(rows.size() == 2000);
  for (int i = 0; i < 2000; ++i) {
    CHECK(rows[i].first == pos[i]);  // appends are in scan (position) order
    CHECK(rows[i].second == Row(i, 10 + i % 90));
  }
  const HeapStats s = StatsOk(*heap);
  CHECK(s.rows == 2000);
  uint64_t bytes = 0;
  for (int i = 0; i < 2000; ++i) bytes += 10 + i % 90;
  CHECK(s.row_bytes == bytes);
  CHECK(s.data_length() == bytes);
  CHECK(s.data_free == 0);
  CHECK(s.holes == 0);
  CHECK(s.pages > 1);
  auto report = RequireCheck(*heap);
  CHECK(report.stats.pages == s.pages);
}

TEST_CASE("heap: empty rows, the largest row, and a row over the limit", "[myisam]") {
  HeapFixture fx;
  RowHeap* heap = fx.NewHeap();
  const RowPosition empty = InsertOk(heap, "", InsertMode::kAppend);
  CHECK(GetOk(*heap, empty).empty());
  const std::string big(kMaxHeapRowSize, 'x');
  const RowPosition bigpos = InsertOk(heap, big, InsertMode::kAppend);
  CHECK(GetOk(*heap, bigpos) == big);
  CHECK(bigpos.page != empty.page);  // a full-size row fills a page of its own
  const std::string too_big(kMaxHeapRowSize + 1, 'y');
  auto r = heap->Insert(B(too_big), InsertMode::kAppend);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK(r.status().message().find("limit") != std::string::npos);
  auto u = heap->Update(empty, B(too_big), InsertMode::kFillHoles);
  CHECK(u.status().code() == Code::kInvalidArgument);
  CHECK(StatsOk(*heap).rows == 2);
  RequireCheck(*heap);
}

TEST_CASE("heap: delete leaves a hole; fill-holes reuses it, append-only does not", "[myisam]") {
  HeapFixture fx;
  RowHeap* heap = fx.NewHeap();
  std::vector<RowPosition> pos;
  for (int i = 0; i < 100; ++i) pos.push_back(InsertOk(heap, Row(i), InsertMode::kFillHoles));
  REQUIRE(heap->Delete(pos[10]).ok());
  REQUIRE(heap->Delete(pos[50]).ok());
  std::string row;
  CHECK(heap->Get(pos[10], &row).code() == Code::kNotFound);
  CHECK(heap->Delete(pos[10]).code() == Code::kNotFound);
  HeapStats s = StatsOk(*heap);
  CHECK(s.rows == 98);
  CHECK(s.holes == 2);
  CHECK(s.data_free == 80);
  CHECK(s.data_length() == 100 * 40);
  RequireCheck(*heap);

  SECTION("append-only (a concurrent insert) goes to the end and keeps the holes") {
    const RowPosition p = InsertOk(heap, Row(100), InsertMode::kAppend);
    CHECK(p != pos[10]);
    CHECK(p != pos[50]);
    CHECK(ScanAll(*heap).back().first == p);
    s = StatsOk(*heap);
    CHECK(s.holes == 2);
    CHECK(s.data_free == 80);
  }
  SECTION("fill-holes takes the newest hole first (MyISAM's dellink order)") {
    CHECK(InsertOk(heap, Row(200, 30), InsertMode::kFillHoles) == pos[50]);
    s = StatsOk(*heap);
    CHECK(s.holes == 1);
    CHECK(s.data_free == 40);
    CHECK(InsertOk(heap, Row(201, 50), InsertMode::kFillHoles) == pos[10]);
    s = StatsOk(*heap);
    CHECK(s.holes == 0);
    CHECK(s.data_free == 0);
    CHECK(GetOk(*heap, pos[10]) == Row(201, 50));
    CHECK(GetOk(*heap, pos[50]) == Row(200, 30));
    // No holes left: the next insert appends.
    const RowPosition p = InsertOk(heap, Row(202), InsertMode::kFillHoles);
    CHECK(ScanAll(*heap).back().first == p);
  }
  SECTION("a row too big for the newest hole's page is appended instead") {
    const std::string big(kMaxHeapRowSize, 'b');
    const RowPosition p = InsertOk(heap, big, InsertMode::kFillHoles);
    CHECK(p != pos[50]);
    CHECK(StatsOk(*heap).holes == 2);
  }
  RequireCheck(*heap);
}

TEST_CASE("heap: a scan bounded by an earlier end of file skips later appends", "[myisam]") {
  HeapFixture fx;
  RowHeap* heap = fx.NewHeap();
  std::vector<RowPosition> pos;
  for (int i = 0; i < 300; ++i) pos.push_back(InsertOk(heap, Row(i, 100), InsertMode::kAppend));
  REQUIRE(heap->Delete(pos[5]).ok());
  auto end = heap->End();
  REQUIRE(end.ok());  // the reader's lock is granted here
  // A concurrent insert appends meanwhile: across the end page and onto new pages.
  std::vector<RowPosition> later;
  for (int i = 300; i < 900; ++i) later.push_back(InsertOk(heap, Row(i, 100), InsertMode::kAppend));
  auto seen = ScanAll(*heap, &*end);
  REQUIRE(seen.size() == 299);
  for (const auto& [p, row] : seen) CHECK(p != pos[5]);
  CHECK(seen.back().first == pos[299]);
  // Through an index, positions past the end are not found either.
  std::string row;
  CHECK(heap->Get(later.front(), &row, &*end).code() == Code::kNotFound);
  CHECK(heap->Get(later.back(), &row, &*end).code() == Code::kNotFound);
  REQUIRE(heap->Get(pos[299], &row, &*end).ok());
  CHECK(row == Row(299, 100));
  // A reader that comes later sees everything.
  CHECK(ScanAll(*heap).size() == 899);
  // An end taken on an empty heap bounds to nothing.
  HeapFixture fx2;
  RowHeap* empty = fx2.NewHeap();
  auto e0 = empty->End();
  REQUIRE(e0.ok());
  InsertOk(empty, "x", InsertMode::kAppend);
  CHECK(ScanAll(*empty, &*e0).empty());
  CHECK(ScanAll(*empty).size() == 1);
}

TEST_CASE("heap: one appender beside bounded readers", "[myisam]") {
  HeapFixture fx(64);
  RowHeap* heap = fx.NewHeap();
  for (int i = 0; i < 200; ++i) InsertOk(heap, Row(i, 64), InsertMode::kAppend);
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::thread writer([&] {
    for (int i = 200; i < 3000; ++i) {
      if (!heap->Insert(B(Row(i, 64)), InsertMode::kAppend).ok()) failures++;
    }
    stop = true;
  });
  int scans = 0;
  while (!stop || scans < 3) {
    auto end = heap->End();
    if (!end.ok()) {
      failures++;
      break;
    }
    auto scan = heap->NewScan(*end);
    REQUIRE(scan.ok());
    RowPosition p;
    std::string row;
    int n = 0;
    for (;;) {
      auto more = (*scan)->Next(&p, &row);
      if (!more.ok()) {
        failures++;
        break;
      }
      if (!*more) break;
      if (row != Row(n, 64)) failures++;  // rows come in insert order, none skipped
      ++n;
    }
    if (n < 200) failures++;
    ++scans;
  }
  writer.join();
  CHECK(failures == 0);
  CHECK(ScanAll(*heap).size() == 3000);
  RequireCheck(*heap);
}

TEST_CASE("heap: update in place keeps the position; a row that outgrows its page moves",
          "[myisam]") {
  HeapFixture fx;
  RowHeap* heap = fx.NewHeap();
  std::vector<RowPosition> pos;
  for (int i = 0; i < 300; ++i) pos.push_back(InsertOk(heap, Row(i, 100), InsertMode::kAppend));
  const HeapStats before = StatsOk(*heap);

  // Shrink, then grow back within the page (the page is packed to make room).
  auto r = heap->Update(pos[3], B(Row(1003, 20)), InsertMode::kFillHoles);
  REQUIRE(r.ok());
  CHECK(*r == pos[3]);
  CHECK(GetOk(*heap, pos[3]) == Row(1003, 20));
  CHECK(StatsOk(*heap).row_bytes == before.row_bytes - 80);
  RequireCheck(*heap);
  // 151 rows of 100 bytes fill the first page but 20 bytes: 110 bytes fit only once the page
  // is packed without the old bytes.
  r = heap->Update(pos[3], B(Row(1004, 110)), InsertMode::kFillHoles);
  REQUIRE(r.ok());
  CHECK(*r == pos[3]);
  CHECK(GetOk(*heap, pos[3]) == Row(1004, 110));
  CHECK(StatsOk(*heap).row_bytes == before.row_bytes + 10);
  CHECK(StatsOk(*heap).holes == 0);
  RequireCheck(*heap);

  // Too big for its (full) page: moves to the end; the old position becomes a hole.
  const std::string big(8000, 'g');
  r = heap->Update(pos[0], B(big), InsertMode::kAppend);
  REQUIRE(r.ok());
  CHECK(*r != pos[0]);
  const RowPosition moved = *r;
  CHECK(GetOk(*heap, moved) == big);
  std::string row;
  CHECK(heap->Get(pos[0], &row).code() == Code::kNotFound);
  HeapStats s = StatsOk(*heap);
  CHECK(s.rows == 300);
  CHECK(s.holes == 1);
  CHECK(s.data_free == 100);
  CHECK(s.row_bytes == before.row_bytes + 10 - 100 + 8000);
  CHECK(ScanAll(*heap).back().first == moved);
  RequireCheck(*heap);

  // The moved row's garbage lets a neighbour grow in place; the moved-from position is gone.
  r = heap->Update(pos[1], B(std::string(180, 'h')), InsertMode::kFillHoles);
  REQUIRE(r.ok());
  CHECK(*r == pos[1]);
  CHECK(heap->Update(pos[0], B(Row(1)), InsertMode::kAppend).status().code() == Code::kNotFound);
  CHECK(GetOk(*heap, moved) == big);
  RequireCheck(*heap);
}

TEST_CASE("heap: a moving update with fill-holes takes the newest hole", "[myisam]") {
  HeapFixture fx;
  RowHeap* heap = fx.NewHeap();
  std::vector<RowPosition> pos;
  for (int i = 0; i < 300; ++i) pos.push_back(InsertOk(heap, Row(i, 100), InsertMode::kAppend));
  REQUIRE(pos[200].page != pos[10].page);
  for (int i = 10; i < 16; ++i) REQUIRE(heap->Delete(pos[i]).ok());  // 600 bytes on page 1
  const HeapStats before = StatsOk(*heap);
  // pos[200]'s page has 236 free bytes: 500 do not fit there.
  auto r = heap->Update(pos[200], B(std::string(500, 'm')), InsertMode::kFillHoles);
  REQUIRE(r.ok());
  CHECK(*r == pos[15]);
  CHECK(GetOk(*heap, pos[15]) == std::string(500, 'm'));
  std::string row;
  CHECK(heap->Get(pos[200], &row).code() == Code::kNotFound);
  const HeapStats s = StatsOk(*heap);
  CHECK(s.rows == before.rows);
  CHECK(s.holes == before.holes);  // one hole filled, one left
  CHECK(s.data_free == before.data_free);
  CHECK(s.row_bytes == before.row_bytes + 400);
  CHECK(s.pages == before.pages);
  RequireCheck(*heap);
}

TEST_CASE("heap: compaction writes the live rows in order without holes and maps positions",
          "[myisam]") {
  HeapFixture fx;
  RowHeap* heap = fx.NewHeap();
  std::map<RowPosition, std::string> live;
  std::vector<RowPosition> order;
  for (int i = 0; i < 1500; ++i) {
    const RowPosition p = InsertOk(heap, Row(i, 30 + i % 70), InsertMode::kAppend);
    live[p] = Row(i, 30 + i % 70);
    order.push_back(p);
  }
  for (int i = 0; i < 1500; i += 3) {
    REQUIRE(heap->Delete(order[i]).ok());
    live.erase(order[i]);
  }
  const HeapStats before = StatsOk(*heap);
  REQUIRE(before.holes == 500);
  const uint64_t free_pages_before = fx.pool()->stats().free_pages;
  const PageNo old_header = heap->header_page();
  const auto old_scan = ScanAll(*heap);

  SECTION("a failing publish leaves the old heap in use") {
    auto r = RowHeap::Compact(heap, nullptr,
                              [](PageNo) { return Status::IOError("catalog write failed"); });
    CHECK(r.status().code() == Code::kIOError);
    CHECK(StatsOk(*heap).rows == before.rows);
    CHECK(ScanAll(*heap).size() == live.size());
    RequireCheck(*heap);
  }
  SECTION("success") {
    std::vector<std::pair<RowPosition, RowPosition>> moves;
    PageNo published = kInvalidPageNo;
    auto r = RowHeap::Compact(
        heap,
        [&](RowPosition o, RowPosition n, std::string_view) {
          moves.emplace_back(o, n);
          return Status::OK();
        },
        [&](PageNo h) {
          published = h;
          return Status::OK();
        });
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    CHECK(published == *r);
    CHECK(*r != old_header);
    RowHeap* fresh = fx.OpenHeap(*r);  // the old heap object is dead (and now released)
    const HeapStats after = StatsOk(*fresh);
    CHECK(after.rows == before.rows);
    CHECK(after.row_bytes == before.row_bytes);
    CHECK(after.holes == 0);
    CHECK(after.data_free == 0);
    CHECK(after.pages < before.pages);
    // Every old position maps to a new one holding the same row, in the old scan order.
    REQUIRE(moves.size() == live.size());
    auto rows = ScanAll(*fresh);
    REQUIRE(rows.size() == moves.size());
    std::set<RowPosition> olds;
    for (size_t i = 0; i < moves.size(); ++i) {
      CHECK(rows[i].first == moves[i].second);
      CHECK(rows[i].second == live.at(moves[i].first));
      olds.insert(moves[i].first);
    }
    CHECK(olds.size() == live.size());
    for (size_t i = 0; i < moves.size(); ++i) CHECK(moves[i].first == old_scan[i].first);
    // The old heap's pages (data pages and header) are back on the file's free list.
    const uint64_t taken = std::min<uint64_t>(free_pages_before, after.pages + 1);
    CHECK(fx.pool()->stats().free_pages == free_pages_before - taken + before.pages + 1);
    CHECK(RowHeap::Open(fx.pool(), old_header).status().code() == Code::kCorruption);
    RequireCheck(*fresh);
  }
}

TEST_CASE("heap: rows, holes and counters survive a reopen of the pool", "[myisam]") {
  HeapFixture fx;
  RowHeap* heap = fx.NewHeap();
  std::map<RowPosition, std::string> live;
  for (int i = 0; i < 800; ++i) live[InsertOk(heap, Row(i, 50), InsertMode::kAppend)] = Row(i, 50);
  int k = 0;
  for (auto it = live.begin(); it != live.end();) {
    if (k++ % 4 == 0) {
      REQUIRE(heap->Delete(it->first).ok());
      it = live.erase(it);
    } else {
      ++it;
    }
  }
  const HeapStats before = StatsOk(*heap);
  heap = fx.Reopen();
  const HeapStats after = StatsOk(*heap);
  CHECK(after.rows == before.rows);
  CHECK(after.row_bytes == before.row_bytes);
  CHECK(after.holes == before.holes);
  CHECK(after.data_free == before.data_free);
  CHECK(after.pages == before.pages);
  for (const auto& [p, row] : live) CHECK(GetOk(*heap, p) == row);
  RequireCheck(*heap);
  // The hole list was persisted: fill-holes inserts take the holes, newest first.
  for (uint64_t i = 0; i < before.holes; ++i) {
    const RowPosition p = InsertOk(heap, Row(5000, 50), InsertMode::kFillHoles);
    CHECK(live.count(p) == 0);
    live[p] = Row(5000, 50);
  }
  CHECK(StatsOk(*heap).holes == 0);
  CHECK(StatsOk(*heap).pages == before.pages);
  RequireCheck(*heap);
}

TEST_CASE("heap: the redo log replayed onto an old copy gives the same pages", "[myisam]") {
  HeapFixture fx(32);  // smaller than the heap: pages are evicted and read back meanwhile
  RowHeap* heap = fx.NewHeap();
  for (int i = 0; i < 200; ++i) InsertOk(heap, Row(i, 60), InsertMode::kAppend);
  REQUIRE(fx.pool()->FlushAll().ok());
  const std::vector<std::byte> snapshot = fx.disk()->Snapshot();
  REQUIRE(fx.log()->group_count() == 0);

  std::mt19937 rng(11);
  std::vector<RowPosition> live;
  for (const auto& [p, row] : ScanAll(*heap)) live.push_back(p);
  for (int i = 0; i < 3000; ++i) {
    const uint32_t op = rng() % 10;
    const std::string row = Row(i, rng() % 400);
    if (op < 5 || live.empty()) {
      live.push_back(InsertOk(heap, row, op % 2 ? InsertMode::kAppend : InsertMode::kFillHoles));
    } else if (op < 8) {
      const size_t k = rng() % live.size();
      REQUIRE(heap->Delete(live[k]).ok());
      live[k] = live.back();
      live.pop_back();
    } else {
      const size_t k = rng() % live.size();
      auto r = heap->Update(live[k], B(op == 9 ? std::string(6000 + rng() % 6000, 'u') : row),
                            InsertMode::kFillHoles);
      REQUIRE(r.ok());
      live[k] = *r;
    }
  }
  std::vector<std::pair<Lsn, std::string>> groups;
  REQUIRE(fx.log()
              ->ForEach([&](Lsn end, ConstBytes rec) {
                groups.emplace_back(end, std::string(AsStringView(rec)));
                return Status::OK();
              })
              .ok());
  REQUIRE(fx.pool()->FlushAll().ok());
  const std::vector<std::byte> flushed = fx.disk()->Snapshot();
  const size_t npages = fx.pool()->stats().pages_in_file;

  std::map<PageNo, std::vector<std::byte>> replay;
  auto page_for = [&](PageNo p) -> Result<std::byte*> {
    auto it = replay.find(p);
    if (it == replay.end()) {
      std::vector<std::byte> bytes(kPageSize);
      if ((uint64_t{p} + 1) * kPageSize <= snapshot.size()) {
        std::memcpy(bytes.data(), snapshot.data() + uint64_t{p} * kPageSize, kPageSize);
        RETURN_IF_ERROR(DecodePageImage("snapshot", p, bytes.data()));
      }
      it = replay.emplace(p, std::move(bytes)).first;
    }
    return it->second.data();
  };
  for (const auto& [end, rec] : groups) REQUIRE(ApplyRedo(AsBytes(rec), end, page_for).ok());
  for (PageNo p = 0; p < npages; ++p) {
    std::vector<std::byte> want(kPageSize);
    std::memcpy(want.data(), flushed.data() + uint64_t{p} * kPageSize, kPageSize);
    REQUIRE(DecodePageImage("flushed", p, want.data()).ok());
    std::vector<std::byte> got(kPageSize);
    if (replay.count(p) != 0) {
      got = replay[p];
    } else {
      std::memcpy(got.data(), snapshot.data() + uint64_t{p} * kPageSize, kPageSize);
      REQUIRE(DecodePageImage("snapshot", p, got.data()).ok());
    }
    if (p == 0) {  // the checkpoint LSN is written unlogged by FlushAll
      std::memset(want.data() + file_header_offset::kCheckpointLsn, 0, 8);
      std::memset(got.data() + file_header_offset::kCheckpointLsn, 0, 8);
    }
    INFO("page " << p);
    CHECK(std::memcmp(want.data() + 4, got.data() + 4, kPageSize - 4) == 0);
  }
  RequireCheck(*heap);
}

// Damages one field of a heap page through an mtr (so the pool's checksum stays valid and only
// the heap's own checks can find it).
template <typename Fn>
void Damage(BufferPool* pool, PageNo page_no, Fn fn) {
  MiniTransaction mtr(pool);
  auto page = mtr.Write(page_no);
  REQUIRE(page.ok());
  fn(&*page);
  mtr.Commit();
}

void RequireCorruption(const RowHeap& heap, const std::string& needle) {
  auto r = heap.Check();
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kCorruption);
  INFO(r.status().ToString());
  CHECK(r.status().message().find(needle) != std::string::npos);
}

TEST_CASE("heap: Check finds damage and names it", "[myisam]") {
  HeapFixture fx;
  RowHeap* heap = fx.NewHeap();
  std::vector<RowPosition> pos;
  for (int i = 0; i < 600; ++i) pos.push_back(InsertOk(heap, Row(i, 80), InsertMode::kAppend));
  REQUIRE(heap->Delete(pos[1]).ok());
  REQUIRE(heap->Delete(pos[2]).ok());
  RequireCheck(*heap);
  const PageNo hdr = heap->header_page();
  const PageNo p0 = pos[0].page;

  SECTION("a header counter") {
    Damage(fx.pool(), hdr, [](MtrPage* p) { p->Write64(hf::hdr::kRows, 7); });
    RequireCorruption(*heap, "invariant 5");
  }
  SECTION("data_free") {
    Damage(fx.pool(), hdr, [](MtrPage* p) { p->Write64(hf::hdr::kDataFree, 1); });
    RequireCorruption(*heap, "data_free");
  }
  SECTION("a hole missing from the hole list") {
    Damage(fx.pool(), hdr, [&](MtrPage* p) { p->Write16(hf::hdr::kHoleHeadSlot, 1); });
    RequireCorruption(*heap, "invariant 4");  // the list now skips slot 2's hole
  }
  SECTION("a hole list with a cycle") {
    // Slot 1's hole links to slot 2; make slot 1 link to itself.
    Damage(fx.pool(), p0, [&](MtrPage* p) {
      p->Write16(hf::SlotOffset(1), static_cast<uint16_t>(hf::kHoleFlag | 1));
      p->Write32(hf::SlotOffset(1) + 4, p0);
    });
    RequireCorruption(*heap, "invariant 4");
  }
  SECTION("a hole list entry that is a live row") {
    Damage(fx.pool(), hdr, [&](MtrPage* p) { p->Write16(hf::hdr::kHoleHeadSlot, 5); });
    RequireCorruption(*heap, "not a hole");
    // Filling holes trusts nothing either, and a refused write changes nothing: not the
    // insert, and not a moving update whose new place would be that "hole".
    auto r = heap->Insert(B(Row(1)), InsertMode::kFillHoles);
    CHECK(r.status().code() == Code::kCorruption);
    auto u = heap->Update(pos[7], B(std::string(9000, 'z')), InsertMode::kFillHoles);
    CHECK(u.status().code() == Code::kCorruption);
    CHECK(GetOk(*heap, pos[7]) == Row(7, 80));
    CHECK(GetOk(*heap, pos[5]) == Row(5, 80));
    CHECK(StatsOk(*heap).rows == 598);
  }
  SECTION("a header that counts no rows refuses deletes and moves, changing nothing") {
    const uint64_t pages = StatsOk(*heap).pages;
    Damage(fx.pool(), hdr, [](MtrPage* p) { p->Write64(hf::hdr::kRows, 0); });
    CHECK(heap->Delete(pos[0]).code() == Code::kCorruption);
    CHECK(heap->Update(pos[0], B(std::string(9000, 'z')), InsertMode::kAppend).status().code() ==
          Code::kCorruption);
    CHECK(GetOk(*heap, pos[0]) == Row(0, 80));
    CHECK(StatsOk(*heap).holes == 2);
    CHECK(StatsOk(*heap).pages == pages);  // the move allocated no page
  }
  SECTION("overlapping records") {
    const uint16_t off = Load16(fx.pool()->FetchRead(p0)->data() + hf::SlotOffset(4));
    Damage(fx.pool(), p0,
           [&](MtrPage* p) { p->Write16(hf::SlotOffset(3), static_cast<uint16_t>(off + 10)); });
    RequireCorruption(*heap, "overlap");
  }
  SECTION("a record outside the record area") {
    Damage(fx.pool(), p0, [&](MtrPage* p) { p->Write16(hf::SlotOffset(3), 60); });
    RequireCorruption(*heap, "invariant 3");
    std::string row;
    CHECK(heap->Get(pos[3], &row).code() == Code::kCorruption);
  }
  SECTION("garbage accounting") {
    Damage(fx.pool(), p0, [&](MtrPage* p) { p->Write16(hf::data::kGarbage, 3); });
    RequireCorruption(*heap, "garbage");
  }
  SECTION("a broken page link") {
    const PageNo second = ScanAll(*heap).back().first.page;
    Damage(fx.pool(), second, [&](MtrPage* p) { p->Write32(hf::data::kPrev, 12345); });
    RequireCorruption(*heap, "invariant 1");
  }
  SECTION("a page of another heap") {
    Damage(fx.pool(), p0, [&](MtrPage* p) { p->Write32(hf::data::kHeapId, 999); });
    RequireCorruption(*heap, "belongs to heap 999");
    std::string row;
    CHECK(heap->Get(pos[0], &row).code() == Code::kCorruption);
    CHECK(heap->Delete(pos[0]).code() == Code::kCorruption);
  }
  SECTION("a chain that is cut short") {
    Damage(fx.pool(), hdr, [&](MtrPage* p) { p->Write32(hf::hdr::kPageCount, 1); });
    RequireCorruption(*heap, "invariant 1");
  }
  SECTION("an index entry pointing at a page that is not the heap's") {
    std::string row;
    CHECK(heap->Get(RowPosition{0, 0}, &row).code() == Code::kCorruption);
    CHECK(heap->Get(RowPosition{hdr, 0}, &row).code() == Code::kCorruption);
    CHECK(heap->Get(RowPosition{p0, 9999}, &row).code() == Code::kNotFound);
  }
  SECTION("not a heap") {
    CHECK(RowHeap::Open(fx.pool(), p0).status().code() == Code::kCorruption);
    CHECK(RowHeap::Open(fx.pool(), 0).status().code() == Code::kInvalidArgument);
  }
}

}  // namespace
}  // namespace minnow

namespace minnow {
namespace {

// Crash at every mtr boundary: recovery from an old copy of the file plus a prefix of the log
// must give a heap that passes Check() and holds the rows of the last operation it completed
// (an operation that allocated a page is two mtrs: a crash between them leaks that page only).
TEST_CASE("heap: a crash after any mini-transaction recovers a consistent heap", "[myisam]") {
  HeapFixture fx(24);
  RowHeap* heap = fx.NewHeap();
  for (int i = 0; i < 100; ++i) InsertOk(heap, Row(i, 90), InsertMode::kAppend);
  REQUIRE(fx.pool()->FlushAll().ok());
  const std::vector<std::byte> snapshot = fx.disk()->Snapshot();
  const PageNo header = heap->header_page();

  std::map<RowPosition, std::string> model;
  for (const auto& [p, row] : ScanAll(*heap)) model[p] = row;
  // states[i]: the rows after the operation that ended with the log holding groups[i] groups.
  std::vector<std::pair<size_t, std::map<RowPosition, std::string>>> states;
  states.emplace_back(0, model);
  std::mt19937 rng(5);
  for (int i = 0; i < 250; ++i) {
    const uint32_t op = rng() % 10;
    const std::string row = Row(1000 + i, op == 9 ? 3000 + rng() % 9000 : rng() % 300);
    if (op < 5 || model.empty()) {
      const RowPosition p =
          InsertOk(heap, row, op % 2 == 0 ? InsertMode::kFillHoles : InsertMode::kAppend);
      model[p] = row;
    } else {
      auto it = model.begin();
      std::advance(it, rng() % model.size());
      if (op < 8) {
        REQUIRE(heap->Delete(it->first).ok());
        model.erase(it);
      } else {
        auto r = heap->Update(it->first, B(row), InsertMode::kFillHoles);
        REQUIRE(r.ok());
        model.erase(it);
        model[*r] = row;
      }
    }
    states.emplace_back(fx.log()->group_count(), model);
  }
  std::vector<std::pair<Lsn, std::string>> groups;
  REQUIRE(fx.log()
              ->ForEach([&](Lsn end, ConstBytes rec) {
                groups.emplace_back(end, std::string(AsStringView(rec)));
                return Status::OK();
              })
              .ok());
  REQUIRE(groups.size() == states.back().first);
  CHECK(groups.size() > states.size());  // some operations allocated a page (two mtrs)

  size_t state = 0;
  for (size_t k = 0; k <= groups.size(); ++k) {
    while (state + 1 < states.size() && states[state + 1].first <= k) ++state;
    INFO("crash after " << k << " of " << groups.size() << " mtrs");
    auto disk = NewMemoryDisk("crashed.minnow");
    disk->Restore(snapshot);
    MemoryRedoLog log(k == 0 ? groups.front().first - groups.front().second.size()
                             : groups[k - 1].first);
    BufferPoolOptions o;
    o.pool_bytes = 64 * kPageSize;
    o.background_flusher = false;
    o.recovery = true;
    auto pool = BufferPool::Open(NewMemoryBackend(disk), o, &log);
    REQUIRE(pool.ok());
    for (size_t g = 0; g < k; ++g) {
      const auto& [end, rec] = groups[g];
      REQUIRE((*pool)->ApplyLogRecords(AsBytes(rec), end - rec.size(), end).ok());
    }
    REQUIRE((*pool)->EndRecovery().ok());
    auto recovered = RowHeap::Open(pool->get(), header);
    REQUIRE(recovered.ok());
    RequireCheck(**recovered);
    std::map<RowPosition, std::string> got;
    for (const auto& [p, row] : ScanAll(**recovered)) got[p] = row;
    CHECK(got == states[state].second);
    REQUIRE((*pool)->Close().ok());
  }
}

}  // namespace
}  // namespace minnow
