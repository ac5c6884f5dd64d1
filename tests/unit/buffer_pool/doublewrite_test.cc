// The doublewrite buffer: write-back through it, torn-page repair, the fatal I/O state with a
// doublewrite file, and the crash points of the write path.

#include "buffer_pool/doublewrite.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/file_header.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/memory_redo_log.h"
#include "buffer_pool/mtr.h"
#include "buffer_pool/page_codec.h"
#include "common/crash_point.h"
#include "test_util.h"
#include "tests/test_temp_dir.h"

namespace minnow {
namespace {

using testing::SmallOptions;
using testing::TempDir;

// A pool on `data` with the doublewrite file `dblwr`.
std::unique_ptr<BufferPool> OpenWithDblwr(const std::shared_ptr<MemoryDisk>& data,
                                          const std::shared_ptr<MemoryDisk>& dblwr,
                                          const BufferPoolOptions& o, RedoLog* log = nullptr) {
  auto r = BufferPool::Open(NewMemoryBackend(data), o, log, NewMemoryBackend(dblwr));
  if (!r.ok()) return nullptr;
  return std::move(r).value();
}

// Allocates `n` pages whose body is filled with `tag` + page number (lz4-flagged if asked).
std::vector<PageNo> WritePages(BufferPool* pool, int n, uint8_t tag, uint16_t flags = 0) {
  std::vector<PageNo> pages;
  for (int i = 0; i < n; ++i) {
    MiniTransaction mtr(pool);
    auto p = mtr.Allocate(PageType::kBtreeLeaf, flags);
    REQUIRE(p.ok());
    Bytes body = p->Mutate(kPageHeaderSize, kPageBodySize);
    std::memset(body.data(), tag + static_cast<int>(p->page_no()), body.size());
    pages.push_back(p->page_no());
  }
  return pages;
}

void Rewrite(BufferPool* pool, PageNo page_no, uint8_t tag) {
  MiniTransaction mtr(pool);
  auto p = mtr.Write(page_no);
  REQUIRE(p.ok());
  Bytes body = p->Mutate(kPageHeaderSize, kPageBodySize);
  std::memset(body.data(), tag + static_cast<int>(page_no), body.size());
}

void CheckPage(BufferPool* pool, PageNo page_no, uint8_t tag) {
  auto g = pool->FetchRead(page_no);
  REQUIRE(g.ok());
  INFO("page " << page_no);
  CHECK(g->data()[kPageHeaderSize] == std::byte(static_cast<uint8_t>(tag + page_no)));
  CHECK(g->data()[kPageSize - 1] == std::byte(static_cast<uint8_t>(tag + page_no)));
}

// Overwrites the second half of page `p` in a MemoryDisk with garbage.
void TearPage(MemoryDisk* disk, PageNo p) {
  std::vector<std::byte> bytes = disk->Snapshot();
  for (size_t i = kPageSize / 2; i < kPageSize; ++i) {
    bytes[uint64_t{p} * kPageSize + i] = std::byte(static_cast<uint8_t>(i * 7 + 3));
  }
  disk->Restore(std::move(bytes));
}

// The image of a page holding `fill`, page_lsn `lsn`.
std::vector<std::byte> Image(PageNo p, Lsn lsn, uint8_t fill) {
  std::vector<std::byte> page(kPageSize, std::byte{fill});
  std::memset(page.data(), 0, kPageHeaderSize);
  Store64(page.data() + page_offset::kPageLsn, lsn);
  Store16(page.data() + page_offset::kPageType, static_cast<uint16_t>(PageType::kBtreeLeaf));
  std::vector<std::byte> image(kPageSize);
  bool compressed = false;
  BuildPageImage(page.data(), p, image.data(), &compressed);
  return image;
}

TEST_CASE("pages go through the doublewrite file and a torn page is repaired", "[buffer_pool]") {
  auto data = NewMemoryDisk("db.minnow");
  auto dblwr = NewMemoryDisk("db.minnow.dblwr");
  std::vector<PageNo> pages;
  {
    MemoryRedoLog log;
    auto pool = OpenWithDblwr(data, dblwr, SmallOptions(), &log);
    REQUIRE(pool);
    // The WAL rule holds for both files.
    int violations = 0;
    auto hook = [&](uint64_t offset, ConstBytes src) {
      for (uint64_t at = 0; at + kPageHeaderSize <= src.size(); at += kPageSize) {
        if ((offset + at) % kPageSize == 0 && HeaderPageLsn(src.data() + at) > log.flushed_lsn()) {
          ++violations;
        }
      }
    };
    data->SetWriteHook(hook);
    dblwr->SetWriteHook(hook);
    pages = WritePages(pool.get(), 10, 1);
    REQUIRE(pool->FlushAll().ok());
    CHECK(pool->stats().doublewrite_batches >= 2);  // the pages, then page 0
    CHECK(pool->stats().dirty_pages == 0);
    CHECK(dblwr->size() >= 10 * kPageSize);
    CHECK(violations == 0);
    data->SetWriteHook(nullptr);
    dblwr->SetWriteHook(nullptr);
    REQUIRE(pool->Close().ok());
  }
  // An intact file: nothing to repair.
  auto r = RepairTornPages(NewMemoryBackend(dblwr).get(), NewMemoryBackend(data).get());
  REQUIRE(r.ok());
  CHECK(r->slots_valid >= 10);
  CHECK(r->repaired.empty());

  TearPage(data.get(), pages[3]);
  {
    auto pool = testing::OpenOrDie(data, SmallOptions());
    REQUIRE(pool);
    CHECK(pool->FetchRead(pages[3]).status().code() == Code::kCorruption);
  }
  const uint64_t syncs = data->sync_count();
  r = RepairTornPages(NewMemoryBackend(dblwr).get(), NewMemoryBackend(data).get());
  REQUIRE(r.ok());
  CHECK(r->repaired == std::vector<PageNo>{pages[3]});
  CHECK(data->sync_count() == syncs + 1);
  auto pool = testing::OpenOrDie(data, SmallOptions());
  REQUIRE(pool);
  for (PageNo p : pages) CheckPage(pool.get(), p, 1);
}

TEST_CASE("repair takes the newest copy and ignores torn slots", "[buffer_pool]") {
  auto data = NewMemoryDisk("db.minnow");
  auto dblwr = NewMemoryDisk("db.minnow.dblwr");
  std::vector<PageNo> pages;
  {
    auto pool = testing::OpenOrDie(data, SmallOptions());
    REQUIRE(pool);
    pages = WritePages(pool.get(), 4, 1);
    REQUIRE(pool->Close().ok());
  }
  const PageNo a = pages[0];
  const PageNo b = pages[1];
  // Slot 0: a at LSN 900 (newest), slot 1: a at LSN 500, slot 2: b torn, slot 3: never used.
  std::vector<std::byte> file(4 * kPageSize);
  auto put = [&](size_t slot, const std::vector<std::byte>& image) {
    std::memcpy(file.data() + slot * kPageSize, image.data(), kPageSize);
  };
  put(0, Image(a, 900, 0x77));
  put(1, Image(a, 500, 0x55));
  std::vector<std::byte> torn = Image(b, 950, 0x66);
  std::memset(torn.data() + kPageSize / 2, 0x13, kPageSize / 2);
  put(2, torn);
  dblwr->Restore(file);

  TearPage(data.get(), a);
  TearPage(data.get(), b);
  auto r = RepairTornPages(NewMemoryBackend(dblwr).get(), NewMemoryBackend(data).get());
  REQUIRE(r.ok());
  CHECK(r->slots_valid == 2);
  CHECK(r->repaired == std::vector<PageNo>{a});  // b has no valid copy: it stays torn
  auto pool = testing::OpenOrDie(data, SmallOptions());
  REQUIRE(pool);
  auto g = pool->FetchRead(a);
  REQUIRE(g.ok());
  CHECK(HeaderPageLsn(g->data()) == 900);
  CHECK(g->data()[kPageHeaderSize + 10] == std::byte{0x77});
  g->Release();
  CHECK(pool->FetchRead(b).status().code() == Code::kCorruption);
  CheckPage(pool.get(), pages[2], 1);

  // A page beyond the end of a truncated file is written from its copy too.
  data->Truncate(uint64_t{a} * kPageSize + 100);
  r = RepairTornPages(NewMemoryBackend(dblwr).get(), NewMemoryBackend(data).get());
  REQUIRE(r.ok());
  CHECK(r->repaired == std::vector<PageNo>{a});
  CHECK(data->size() >= uint64_t{a + 1} * kPageSize);

  // No doublewrite file, or an empty one: nothing.
  CHECK(RepairTornPages(nullptr, NewMemoryBackend(data).get())->repaired.empty());
  auto empty = NewMemoryDisk("empty.dblwr");
  CHECK(RepairTornPages(NewMemoryBackend(empty).get(), NewMemoryBackend(data).get())->slots_valid ==
        0);
  CHECK(DoublewritePathFor("/x/db.minnow") == "/x/db.minnow.dblwr");
}

TEST_CASE("eviction writes a dirty page through the doublewrite file", "[buffer_pool]") {
  auto data = NewMemoryDisk("db.minnow");
  auto dblwr = NewMemoryDisk("db.minnow.dblwr");
  auto pool = OpenWithDblwr(data, dblwr, SmallOptions(16));
  REQUIRE(pool);
  auto pages = WritePages(pool.get(), 60, 5);  // far more than the pool holds
  CHECK(pool->stats().evictions > 0);
  CHECK(pool->stats().doublewrite_batches > 0);
  for (PageNo p : pages) CheckPage(pool.get(), p, 5);
  REQUIRE(pool->Close().ok());
  auto again = testing::OpenOrDie(data, SmallOptions(16));
  REQUIRE(again);
  for (PageNo p : pages) CheckPage(again.get(), p, 5);
}

TEST_CASE("doublewrite on real files repairs a torn compressed page", "[buffer_pool]") {
  TempDir dir("minnow_dblwr");
  const std::string path = dir.file("db.minnow");
  std::vector<PageNo> pages;
  {
    auto disk = OpenFileBackend(path, true);
    auto dblwr = OpenFileBackend(DoublewritePathFor(path), true);
    REQUIRE(disk.ok());
    REQUIRE(dblwr.ok());
    auto pool = BufferPool::Open(std::move(*disk), SmallOptions(32), nullptr, std::move(*dblwr));
    REQUIRE(pool.ok());
    pages = WritePages(pool->get(), 80, 9, kFlagCompressLz4);  // evictions and batches
    for (int i = 0; i < 3; ++i) Rewrite(pool->get(), pages[10], static_cast<uint8_t>(20 + i));
    REQUIRE((*pool)->Close().ok());
    CHECK((*pool)->stats().compressed_writes > 0);
  }
  // Tear two pages: the second half of the slot, in the file.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    const std::string junk(kPageSize / 2, 'J');
    for (PageNo p : {pages[10], pages[70]}) {
      f.seekp(static_cast<std::streamoff>(uint64_t{p} * kPageSize + 40));
      f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
  }
  auto disk = OpenFileBackend(path, false);
  auto dblwr = OpenFileBackend(DoublewritePathFor(path), false);
  REQUIRE(disk.ok());
  REQUIRE(dblwr.ok());
  auto r = RepairTornPages(dblwr->get(), disk->get());
  REQUIRE(r.ok());
  // Only pages written in the last batches still have a copy; page 0 was written last.
  const bool has10 = std::count(r->repaired.begin(), r->repaired.end(), pages[10]) != 0;
  const bool has70 = std::count(r->repaired.begin(), r->repaired.end(), pages[70]) != 0;
  CHECK(r->repaired.size() == size_t{has10} + size_t{has70});
  CHECK(has70);  // the pages were flushed in page order at Close: the last batch has it
  auto pool = BufferPool::Open(std::move(*disk), SmallOptions(32));
  REQUIRE(pool.ok());
  CheckPage(pool->get(), pages[70], 9);
  if (has10) CheckPage(pool->get(), pages[10], 22);
}

TEST_CASE("a failed doublewrite or data write or sync is fatal", "[buffer_pool]") {
  auto data = NewMemoryDisk("db.minnow");
  auto dblwr = NewMemoryDisk("db.minnow.dblwr");
  MemoryRedoLog log;
  auto pool = OpenWithDblwr(data, dblwr, SmallOptions(), &log);
  REQUIRE(pool);
  WritePages(pool.get(), 6, 2);
  const uint64_t dirty = pool->stats().dirty_pages;
  REQUIRE(dirty == 7);  // and page 0
  std::string what;
  SECTION("doublewrite write") {
    dblwr->FailWrite(0);
    what = "writing the doublewrite buffer";
  }
  SECTION("doublewrite sync") {
    dblwr->FailSync(true);
    what = "syncing the doublewrite buffer";
  }
  SECTION("data write") {
    data->FailWrite(2, WriteFault::kShort);
    what = "writing page";
  }
  SECTION("data sync") {
    data->FailSync(true);
    what = "injected fsync fault";
  }
  Status st = pool->FlushAll();
  CHECK(st.code() == Code::kIOError);
  CHECK_THAT(st.message(), Catch::Contains(what));
  CHECK(pool->stats().dirty_pages == dirty);  // nothing was known to be durable
  data->ClearFaults();
  dblwr->ClearFaults();
  const uint64_t writes = data->write_count() + dblwr->write_count();
  CHECK(pool->FlushAll().code() == Code::kIOError);
  CHECK(pool->fatal_error().code() == Code::kIOError);
  CHECK(pool->stats().dirty_pages == dirty);
  CHECK(data->write_count() + dblwr->write_count() == writes);
  CHECK(log.checkpoint_lsn() == 0);
  CHECK(pool->stats().checkpoints == 0);
  CHECK(pool->Close().code() == Code::kIOError);
}

TEST_CASE("the flusher records a fatal error once and stops writing", "[buffer_pool]") {
  auto data = NewMemoryDisk("db.minnow");
  auto dblwr = NewMemoryDisk("db.minnow.dblwr");
  auto o = SmallOptions(64);
  o.background_flusher = true;
  o.flusher_interval_ms = 2;
  o.max_dirty_fraction = 0.1;
  auto pool = OpenWithDblwr(data, dblwr, o);
  REQUIRE(pool);
  dblwr->FailSync(true);
  WritePages(pool.get(), 30, 1);
  for (int i = 0; i < 500 && pool->background_error().ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  CHECK(pool->background_error().code() == Code::kIOError);
  CHECK(pool->fatal_error().code() == Code::kIOError);
  const uint64_t syncs = dblwr->sync_count();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK(dblwr->sync_count() == syncs);  // no retry loop
  CHECK(pool->stats().dirty_pages >= 30);
}

TEST_CASE("a checkpoint records the checkpoint LSN and counts itself", "[buffer_pool]") {
  auto data = NewMemoryDisk("db.minnow");
  auto dblwr = NewMemoryDisk("db.minnow.dblwr");
  MemoryRedoLog log;
  auto pool = OpenWithDblwr(data, dblwr, SmallOptions(), &log);
  REQUIRE(pool);
  WritePages(pool.get(), 6, 1);
  REQUIRE(pool->FlushAll().ok());
  const Lsn ckpt = log.current_lsn();
  CHECK(pool->stats().checkpoints == 1);
  CHECK(pool->stats().checkpoint_lsn == ckpt);
  CHECK(log.checkpoint_lsn() == ckpt);
  auto header = ReadFileHeader(NewMemoryBackend(data).get());
  REQUIRE(header.ok());
  CHECK(header->format_version == kFormatVersion);
  CHECK(header->checkpoint_lsn == ckpt);
  CHECK(header->page_count == 7);
  // The bytes after the system roots (version 2's log_scan_lsn) stay zero.
  {
    std::vector<std::byte> p0 = data->Snapshot();
    p0.resize(kPageSize);
    REQUIRE(DecodePageImage("db", 0, p0.data()).ok());
    CHECK(Load64(p0.data() + file_header_offset::kSystemRoots + 4 * kSystemRootSlots) == 0);
  }

  WritePages(pool.get(), 1, 1);
  REQUIRE(pool->FlushAll().ok());
  header = ReadFileHeader(NewMemoryBackend(data).get());
  REQUIRE(header.ok());
  CHECK(header->checkpoint_lsn == log.current_lsn());
  CHECK(log.checkpoint_lsn() == log.current_lsn());
  CHECK(pool->stats().checkpoints == 2);
  REQUIRE(pool->Close().ok());
  CHECK(pool->stats().checkpoints == 3);
}

TEST_CASE("older format versions are refused; ReadFileHeader", "[buffer_pool]") {
  auto data = NewMemoryDisk("db.minnow");
  CHECK(ReadFileHeader(NewMemoryBackend(data).get()).status().code() == Code::kNotFound);
  {
    auto pool = testing::OpenOrDie(data, SmallOptions());
    REQUIRE(pool);
    WritePages(pool.get(), 5, 1);
    REQUIRE(pool->Close().ok());
  }
  // Shorter than page_count: ReadFileHeader accepts it (recovery's job), Open does not.
  data->Truncate(3 * kPageSize);
  auto header = ReadFileHeader(NewMemoryBackend(data).get());
  REQUIRE(header.ok());
  CHECK(header->page_count == 6);
  CHECK(BufferPool::Open(NewMemoryBackend(data), SmallOptions()).status().code() ==
        Code::kCorruption);

  // Older versions, with a valid checksum.
  const std::vector<std::byte> good = data->Snapshot();
  auto with_version = [&](uint32_t version) {
    std::vector<std::byte> bytes = good;
    std::vector<std::byte> p0(bytes.begin(), bytes.begin() + kPageSize);
    REQUIRE(DecodePageImage("db", 0, p0.data()).ok());
    Store32(p0.data() + file_header_offset::kFormatVersion, version);
    bool compressed = false;
    BuildPageImage(p0.data(), 0, bytes.data(), &compressed);
    data->Restore(bytes);
  };
  REQUIRE(kFormatVersion == 3);
  SECTION("version 2: undo as transaction records in the redo log") {
    with_version(2);
    auto r = BufferPool::Open(NewMemoryBackend(data), SmallOptions());
    CHECK(r.status().code() == Code::kNotSupported);
    CHECK(r.status().ToString() ==
          "NotSupported: db.minnow: format version 2 is older than this build of minnow supports "
          "(3): it was written before undo logs moved into undo pages; recreate the database");
    CHECK(ReadFileHeader(NewMemoryBackend(data).get()).status().message() == r.status().message());
  }
  SECTION("version 1: no durable redo log") {
    with_version(1);
    auto r = BufferPool::Open(NewMemoryBackend(data), SmallOptions());
    CHECK(r.status().code() == Code::kNotSupported);
    CHECK(r.status().message() ==
          "db.minnow: format version 1 is older than this build of minnow supports (3): it was "
          "written before minnow had a durable redo log; recreate the database");
    CHECK(ReadFileHeader(NewMemoryBackend(data).get()).status().code() == Code::kNotSupported);
  }
  SECTION("version 0 is damage") {
    with_version(0);
    CHECK(ReadFileHeader(NewMemoryBackend(data).get()).status().code() == Code::kCorruption);
  }
  SECTION("the current version is read") {
    with_version(kFormatVersion);
    auto header2 = ReadFileHeader(NewMemoryBackend(data).get());
    REQUIRE(header2.ok());
    CHECK(header2->format_version == kFormatVersion);
  }
}

// Runs `fn` in a child process that must die by SIGKILL (a crash point).
void RunUntilKilled(const std::function<void()>& fn) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    fn();
    std::_Exit(0);  // not killed: the parent fails the test
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

TEST_CASE("crash points on the write path leave a repairable file", "[buffer_pool]") {
  const std::string point =
      GENERATE(std::string("page.torn_write"), std::string("dblwr.after_write"),
               std::string("dblwr.after_sync"), std::string("page.after_write"),
               std::string("checkpoint.before_header"), std::string("checkpoint.after_header"));
  INFO(point);
  TempDir dir("minnow_dblwr");
  const std::string path = dir.file("db.minnow");
  std::vector<PageNo> pages;
  {
    auto disk = OpenFileBackend(path, true);
    auto dblwr = OpenFileBackend(DoublewritePathFor(path), true);
    auto pool = BufferPool::Open(std::move(*disk), SmallOptions(32), nullptr, std::move(*dblwr));
    REQUIRE(pool.ok());
    pages = WritePages(pool->get(), 8, 1);
    REQUIRE((*pool)->Close().ok());
  }
  RunUntilKilled([&] {
    auto disk = OpenFileBackend(path, false);
    auto dblwr = OpenFileBackend(DoublewritePathFor(path), false);
    auto pool = BufferPool::Open(std::move(*disk), SmallOptions(32), nullptr, std::move(*dblwr));
    if (!pool.ok()) std::_Exit(1);
    for (PageNo p : pages) Rewrite(pool->get(), p, 2);
    ArmCrashPoint(point, point == "page.torn_write" ? 3 : 1);
    (void)(*pool)->FlushAll();
    std::_Exit(0);
  });
  auto disk = OpenFileBackend(path, false);
  auto dblwr = OpenFileBackend(DoublewritePathFor(path), false);
  REQUIRE(disk.ok());
  REQUIRE(dblwr.ok());
  auto r = RepairTornPages(dblwr->get(), disk->get());
  REQUIRE(r.ok());
  if (point == "page.torn_write") CHECK(r->repaired == std::vector<PageNo>{pages[2]});
  auto pool = BufferPool::Open(std::move(*disk), SmallOptions(32));
  REQUIRE(pool.ok());
  // Every page is intact: old or new (redo would bring the old ones forward).
  for (PageNo p : pages) {
    auto g = (*pool)->FetchRead(p);
    REQUIRE(g.ok());
    const auto v = std::to_integer<uint8_t>(g->data()[kPageHeaderSize]);
    CHECK((v == static_cast<uint8_t>(1 + p) || v == static_cast<uint8_t>(2 + p)));
  }
}

}  // namespace
}  // namespace minnow
