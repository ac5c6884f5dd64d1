// sqltest's end-of-script integrity check must be able to fail. No script can damage a database
// (SQL reaches no page), so this damages a file and asks the check's reporting directly.
#include "tools/sqltest_integrity.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "buffer_pool/page_header.h"
#include "tests/unit/engine/engine_test_util.h"

namespace minnow {
namespace {

using testing::Key;
using testing::MustBegin;
using testing::MustKeyspace;
using testing::MustOpen;
using testing::SmallOptions;
using testing::Take;
using testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Writes the data file and empties the doublewrite file, which would otherwise restore a damaged
// page whose last write it still holds.
void WriteDamaged(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (std::filesystem::exists(path + ".dblwr")) {
    std::ofstream dblwr(path + ".dblwr", std::ios::binary | std::ios::trunc);
  }
}

TEST_CASE("sqltest's integrity check reports a damaged leaf page", "[tools]") {
  TempDir dir("sqltest_integrity");
  const std::string path = dir.file();
  {
    auto db = MustOpen(SmallOptions(path));
    Keyspace t = MustKeyspace(db.get(), "t");
    auto s = Take(db->NewSession());
    auto txn = MustBegin(s.get());
    for (int i = 0; i < 3000; ++i) REQUIRE_OK(txn->Put(t, Key(i), std::string(60, 'v')));
    REQUIRE_OK(txn->Commit());
    txn.reset();
    s.reset();
    CHECK(tools::IntegrityFindings(db.get()).empty());
    REQUIRE_OK(db->Close());
  }
  const std::string clean = ReadFile(path);
  REQUIRE(clean.size() % kPageSize == 0);
  int reported = 0;
  for (size_t p = 1; p < clean.size() / kPageSize; ++p) {
    const auto* page = reinterpret_cast<const std::byte*>(clean.data() + p * kPageSize);
    if (HeaderPageType(page) != PageType::kBtreeLeaf) continue;
    std::string bad = clean;
    bad[p * kPageSize + kPageSize / 2] ^= 0x10;
    WriteDamaged(path, bad);
    INFO("leaf page " << p);
    auto db = Database::Open(SmallOptions(path));
    if (!db.ok()) {  // a page Open reads itself (the catalog's): refused there already
      CHECK(db.status().code() == Code::kCorruption);
      continue;
    }
    const std::string report = tools::IntegrityFindings(db->get());
    CHECK_THAT(report, Catch::StartsWith("sqltest: the integrity check at the end of the script "
                                         "failed: ") &&
                           Catch::Contains("Corruption"));
    ++reported;
    (void)(*db)->Close();
  }
  CHECK(reported >= 5);  // 3000 rows of 70 bytes fill over a dozen leaves
}

}  // namespace
}  // namespace minnow
