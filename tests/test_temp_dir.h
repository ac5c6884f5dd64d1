#pragma once
// The one temporary directory of minnow's tests (Catch2 unit tests and tools/sqltest).
//
// Contract: the constructor makes a fresh, empty directory under the system temporary directory
// ($TMPDIR, else /tmp) named `<prefix>.XXXXXX`; the destructor removes it with everything in it.
// A test that cannot get its directory cannot run, so failing to make one aborts (MINNOW_CHECK)
// naming the path and errno's text; Keep() leaves it behind. Not copyable or movable: the
// directory belongs to one scope.
// Header-only and free of Catch2, so programs that are not Catch2 tests can use it too.

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "common/check.h"

namespace minnow::testing {

class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "minnow_test") {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + ".XXXXXX")).string();
    MINNOW_CHECK(::mkdtemp(tmpl.data()) != nullptr, "mkdtemp {}: {}", tmpl, std::strerror(errno));
    path_ = std::move(tmpl);
  }
  ~TempDir() {
    if (keep_) return;
    std::error_code ec;  // best effort: a leftover directory must not fail the test
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Leaves the directory behind when this object goes (something still uses it, or someone is
  // to look at it).
  void Keep() { keep_ = true; }

  // The directory itself, without a trailing slash.
  const std::string& path() const { return path_; }
  // `name` inside the directory (not created).
  std::string file(std::string_view name = "test.minnow") const {
    return path_ + "/" + std::string(name);
  }

 private:
  std::string path_;
  bool keep_ = false;
};

}  // namespace minnow::testing
