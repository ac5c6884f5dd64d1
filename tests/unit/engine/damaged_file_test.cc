// Damaged and foreign files: every failure is a clear error (kCorruption), never a crash and
// never silent use. Each case starts from a clean copy of one small database file.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "buffer_pool/page_header.h"
#include "engine_test_util.h"

namespace minnow {
namespace {

using testing::Key;
using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;
using testing::TempDir;

constexpr size_t kPage = 16384;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  // These tests damage the data file itself. The doublewrite buffer would restore a damaged
  // page whose last write it still holds (the durability tests check that), so empty it.
  if (std::filesystem::exists(path + ".dblwr")) {
    std::ofstream dblwr(path + ".dblwr", std::ios::binary | std::ios::trunc);
  }
}

// Builds a database with two keyspaces over a few dozen pages; returns its bytes.
std::string MakeDatabase(const std::string& path) {
  auto db = MustOpen(SmallOptions(path));
  Keyspace a = MustKeyspace(db.get(), "a");
  Keyspace b = MustKeyspace(db.get(), "b");
  auto s = Take(db->NewSession());
  auto txn = MustBegin(s.get());
  for (int i = 0; i < 3000; ++i) {
    REQUIRE_OK(txn->Put(a, Key(i), std::string(60, static_cast<char>('a' + i % 26))));
    if (i % 10 == 0) REQUIRE_OK(txn->Put(b, Key(i), "b"));
  }
  REQUIRE_OK(txn->Put(b, "overflow", std::string(40000, 'o')));
  REQUIRE_OK(txn->Commit());
  txn.reset();
  s.reset();
  REQUIRE_OK(db->Close());
  return ReadFile(path);
}

// Pages in use (page 0's page_count); the file may be longer (it grows in chunks, the tail is
// a hole of zero pages nobody reads).
size_t PagesInUse(const std::string& file) {
  uint32_t n;
  std::memcpy(&n, file.data() + 48, 4);
  return n;
}

// Opens `path` and reads everything: the first error, or OK.
Status OpenAndReadAll(const std::string& path) {
  auto db = Database::Open(SmallOptions(path));
  if (!db.ok()) return db.status();
  RETURN_IF_ERROR((*db)->CheckIntegrity());
  auto s = (*db)->NewSession();
  if (!s.ok()) return s.status();
  auto txn = (*s)->Begin();
  if (!txn.ok()) return txn.status();
  for (const char* name : {"a", "b"}) {
    ASSIGN_OR_RETURN(Keyspace ks, (*db)->OpenKeyspace(name));
    ASSIGN_OR_RETURN(auto it, (*txn)->NewIterator(ks));
    RETURN_IF_ERROR(it->SeekToFirst());
    while (it->Valid()) {
      RETURN_IF_ERROR(it->value().status());
      RETURN_IF_ERROR(it->Next());
    }
  }
  return Status::OK();
}

TEST_CASE("a flipped byte in any page is caught", "[engine]") {
  TempDir dir;
  const std::string path = dir.file();
  const std::string clean = MakeDatabase(path);
  REQUIRE(clean.size() % kPage == 0);
  const size_t pages = PagesInUse(clean);
  REQUIRE(pages >= 10);
  REQUIRE(pages * kPage <= clean.size());
  REQUIRE_OK(OpenAndReadAll(path));
  for (size_t p = 0; p < pages; ++p) {
    // A page on the free list (a committed transaction's insert undo) is not read until it is
    // reused: its bytes do not matter until then.
    if (static_cast<uint8_t>(clean[p * kPage + page_offset::kPageType]) ==
        static_cast<uint8_t>(PageType::kFree)) {
      continue;
    }
    for (size_t offset : {size_t{36}, size_t{100} + (p * 4099) % (kPage - 200), kPage - 1}) {
      std::string bad = clean;
      bad[p * kPage + offset] ^= 0x10;
      WriteFile(path, bad);
      INFO("page " << p << " offset " << offset);
      REQUIRE_CODE(OpenAndReadAll(path), Code::kCorruption);
    }
  }
  // Page 0's format version field: a "newer" version is refused as such.
  std::string newer = clean;
  newer[40] ^= 0x10;
  WriteFile(path, newer);
  REQUIRE_CODE(OpenAndReadAll(path), Code::kNotSupported);
  WriteFile(path, clean);
  REQUIRE_OK(OpenAndReadAll(path));
}

// CheckKeyspace checks one tree and nothing else: a damaged page of one keyspace fails that
// keyspace's check (naming it), never the other's.
TEST_CASE("CheckKeyspace finds damage in its own tree only", "[engine]") {
  TempDir dir;
  const std::string path = dir.file();
  const std::string clean = MakeDatabase(path);
  const size_t pages = PagesInUse(clean);
  bool a_caught = false, b_caught = false;
  for (size_t p = 1; p < pages; ++p) {
    if (static_cast<uint8_t>(clean[p * kPage + page_offset::kPageType]) ==
        static_cast<uint8_t>(PageType::kFree)) {
      continue;
    }
    std::string bad = clean;
    bad[p * kPage + 100 + (p * 4099) % (kPage - 200)] ^= 0x10;
    WriteFile(path, bad);
    INFO("page " << p);
    auto db = Database::Open(SmallOptions(path));
    if (!db.ok()) continue;  // the catalog's page, or one that recovery reads
    Result<Keyspace> a = (*db)->OpenKeyspace("a");
    Result<Keyspace> b = (*db)->OpenKeyspace("b");
    REQUIRE_OK(a.status());
    REQUIRE_OK(b.status());
    Result<KeyspaceCheck> check_b = (*db)->CheckKeyspace(*b);
    Result<KeyspaceCheck> check_a = (*db)->CheckKeyspace(*a);
    CHECK((check_a.ok() || check_b.ok()));  // one page belongs to one tree
    if (!check_a.ok()) {
      CHECK(check_a.status().code() == Code::kCorruption);
      CHECK(check_a.status().message().find("keyspace 'a'") != std::string::npos);
      CHECK(check_b->records == 301);  // the other tree is counted in full
      a_caught = true;
    }
    if (!check_b.ok()) {
      CHECK(check_b.status().code() == Code::kCorruption);
      CHECK(check_b.status().message().find("keyspace 'b'") != std::string::npos);
      CHECK(check_a->records == 3000);
      b_caught = true;
    }
    // What CheckKeyspace found, CheckIntegrity finds too.
    if (!check_a.ok() || !check_b.ok()) CHECK((*db)->CheckIntegrity().code() == Code::kCorruption);
  }
  CHECK(a_caught);
  CHECK(b_caught);
}

TEST_CASE("a truncated file is refused", "[engine]") {
  TempDir dir;
  const std::string path = dir.file();
  const std::string clean = MakeDatabase(path);
  const size_t used = PagesInUse(clean) * kPage;
  for (size_t len : {size_t{100}, kPage - 1, kPage, kPage + 5, used / 2, used - kPage, used - 1}) {
    WriteFile(path, clean.substr(0, len));
    INFO("length " << len << " of " << clean.size() << ", pages in use " << PagesInUse(clean));
    REQUIRE_CODE(OpenAndReadAll(path), Code::kCorruption);
  }
}

TEST_CASE("a foreign file or a wrong magic is refused", "[engine]") {
  TempDir dir;
  const std::string path = dir.file();
  std::string bad = MakeDatabase(path);
  bad.replace(32, 8, "NOTMINNO");
  WriteFile(path, bad);
  REQUIRE_CODE(Database::Open(SmallOptions(path)).status(), Code::kCorruption);

  std::string text(3 * kPage, 'x');
  WriteFile(path, text);
  REQUIRE_CODE(Database::Open(SmallOptions(path)).status(), Code::kCorruption);
  // The error names the file.
  CHECK(Database::Open(SmallOptions(path)).status().message().find(path) != std::string::npos);
}

TEST_CASE("an empty existing file is a new database", "[engine]") {
  TempDir dir;
  WriteFile(dir.file(), "");
  auto db = MustOpen(SmallOptions(dir.file()));
  REQUIRE_OK(db->CreateKeyspace("t"));
  REQUIRE_OK(db->Close());
}

}  // namespace
}  // namespace minnow
