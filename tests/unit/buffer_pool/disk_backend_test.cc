// The file and memory disk backends.

#include "buffer_pool/disk_backend.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "buffer_pool/memory_disk.h"
#include "tests/test_temp_dir.h"

namespace minnow {
namespace {

std::vector<std::byte> Bytes4k(uint8_t v) { return std::vector<std::byte>(4096, std::byte{v}); }

void Exercise(DiskBackend* d) {
  auto size = d->Size();
  REQUIRE(size.ok());
  CHECK(*size == 0);
  auto a = Bytes4k(0xab);
  REQUIRE(d->Write(8192, ConstBytes(a)).ok());
  CHECK(*d->Size() == 12288);
  std::vector<std::byte> got(4096);
  REQUIRE(d->Read(8192, Bytes(got)).ok());
  CHECK(got == a);
  REQUIRE(d->Read(0, Bytes(got)).ok());  // the hole reads as zeros
  CHECK(got == Bytes4k(0));
  auto past = d->Read(10000, Bytes(got));
  CHECK(past.code() == Code::kCorruption);
  CHECK_THAT(past.message(), Catch::Contains(d->name()));
  REQUIRE(d->PunchHole(8192, 4096).ok());
  CHECK(*d->Size() == 12288);  // KEEP_SIZE
  REQUIRE(d->Read(8192, Bytes(got)).ok());
  CHECK(got == Bytes4k(0));
  // ReadV: consecutive bytes into several buffers, in order.
  auto c = Bytes4k(0xcd);
  REQUIRE(d->Write(4096, ConstBytes(c)).ok());
  REQUIRE(d->Write(8192, ConstBytes(a)).ok());
  std::vector<std::byte> v1(4096), v2(2048), v3(2048);
  const std::vector<Bytes> bufs = {Bytes(v1), Bytes(v2), Bytes(v3)};
  REQUIRE(d->ReadV(4096, bufs).ok());
  CHECK(v1 == c);
  CHECK(v2 == std::vector<std::byte>(2048, std::byte{0xab}));
  CHECK(v3 == std::vector<std::byte>(2048, std::byte{0xab}));
  const std::vector<Bytes> past_end = {Bytes(v1), Bytes(v1)};
  CHECK(d->ReadV(8192, past_end).code() == Code::kCorruption);
  REQUIRE(d->PunchHole(4096, 8192).ok());
  REQUIRE(d->Sync().ok());
  auto phys = d->PhysicalSize();
  REQUIRE(phys.ok());
  CHECK(*phys <= 12288);
}

TEST_CASE("memory backend", "[buffer_pool]") {
  auto disk = NewMemoryDisk("mem.db");
  auto backend = NewMemoryBackend(disk);
  CHECK(backend->name() == "mem.db");
  Exercise(backend.get());
  CHECK(disk->PhysicalSize() == 0);  // everything written was punched out again
  // A second backend over the same disk sees the same bytes ("reopen").
  auto again = NewMemoryBackend(disk);
  CHECK(*again->Size() == 12288);
}

TEST_CASE("memory disk faults", "[buffer_pool]") {
  auto disk = NewMemoryDisk("mem.db");
  auto d = NewMemoryBackend(disk);
  auto a = Bytes4k(1);
  disk->FailWrite(1);
  CHECK(d->Write(0, ConstBytes(a)).ok());
  CHECK(d->Write(0, ConstBytes(a)).code() == Code::kIOError);
  CHECK(d->Write(0, ConstBytes(a)).ok());  // one-shot
  disk->FailWrite(0, WriteFault::kShort);
  auto b = Bytes4k(2);
  CHECK(d->Write(0, ConstBytes(b)).code() == Code::kIOError);
  std::vector<std::byte> got(4096);
  REQUIRE(d->Read(0, Bytes(got)).ok());
  CHECK(got[0] == std::byte{2});     // first half written
  CHECK(got[4095] == std::byte{1});  // second half not
  disk->FailSync(true);
  CHECK(d->Sync().code() == Code::kIOError);
  disk->FailRead(0, /*sticky=*/true);
  CHECK(d->Read(0, Bytes(got)).code() == Code::kIOError);
  CHECK(d->Read(0, Bytes(got)).code() == Code::kIOError);
  disk->ClearFaults();
  CHECK(d->Read(0, Bytes(got)).ok());
  CHECK(d->Sync().ok());
  disk->FlipByte(0, 0x03);
  REQUIRE(d->Read(0, Bytes(got)).ok());
  CHECK(got[0] == std::byte{1});
  disk->Truncate(100);
  CHECK(*d->Size() == 100);
  CHECK(disk->write_count() == 4);
}

TEST_CASE("file backend", "[buffer_pool]") {
  testing::TempDir dir("minnow_disk");
  const std::string path = dir.file("f.db");
  auto missing = OpenFileBackend(path, false);
  CHECK(missing.status().code() == Code::kNotFound);
  CHECK_THAT(missing.status().message(), Catch::Contains(path));
  {
    auto d = OpenFileBackend(path, true);
    REQUIRE(d.ok());
    CHECK((*d)->name() == path);
    Exercise(d->get());
  }
  auto d = OpenFileBackend(path, false);
  REQUIRE(d.ok());
  CHECK(*(*d)->Size() == 12288);
}

}  // namespace
}  // namespace minnow
