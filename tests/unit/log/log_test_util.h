#pragma once
// Helpers for the durable log tests: temporary directories, payloads, scanning into a vector.

#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "log/durable_redo_log.h"
#include "log/log_reader.h"
#include "log/log_segment.h"

namespace minnow::testing {

// A unique directory under /tmp, removed with everything in it. log_dir() ends in ".redo" (the
// fault-injection tests match ".redo/").
class TempLogDir {
 public:
  explicit TempLogDir(const std::string& tag) {
    static std::atomic<int> counter{0};
    root_ = "/tmp/minnow-txn-" + std::to_string(::getpid()) + "-" +
            std::to_string(counter.fetch_add(1)) + "-" + tag;
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  ~TempLogDir() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  std::string log_dir() const { return root_ + "/db.minnow.redo"; }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

inline std::vector<std::byte> DbId(uint8_t seed) {
  std::vector<std::byte> id(kDatabaseIdSize);
  for (size_t i = 0; i < id.size(); ++i) id[i] = std::byte(static_cast<uint8_t>(seed * 31 + i));
  return id;
}

inline DurableLogOptions SmallLogOptions(const std::string& dir, uint64_t segment_bytes = 64 << 10,
                                         size_t buffer_bytes = 16 << 10) {
  DurableLogOptions o;
  o.dir = dir;
  o.segment_bytes = segment_bytes;
  o.buffer_bytes = buffer_bytes;
  o.background_interval_ms = 20;
  return o;
}

// Deterministic payload bytes for frame `i`.
inline std::string Payload(uint64_t i, size_t len) {
  std::string s(len, '\0');
  uint64_t x = i * 0x9E3779B97F4A7C15ull + 1;
  for (size_t j = 0; j < len; ++j) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s[j] = static_cast<char>(x);
  }
  return s;
}

struct ScannedFrame {
  LogFrameKind kind;
  Lsn start;
  Lsn end;
  std::string payload;
};

inline Result<LogScanResult> ScanAll(const std::string& dir, ConstBytes id, Lsn from,
                                     std::vector<ScannedFrame>* out) {
  return ScanLog(dir, id, from, [&](const LogFrame& f) {
    out->push_back({f.kind, f.start_lsn, f.end_lsn, std::string(AsStringView(f.payload))});
    return Status::OK();
  });
}

inline std::unique_ptr<DurableRedoLog> OpenLogOrDie(const DurableLogOptions& o, ConstBytes id,
                                                    Lsn start) {
  auto log = DurableRedoLog::Open(o, id, start);
  INFO(log.status().ToString());
  REQUIRE(log.ok());
  return std::move(log).value();
}

inline std::vector<log_format::SegmentFile> Segments(const std::string& dir) {
  auto s = log_format::ListSegments(dir);
  REQUIRE(s.ok());
  return std::move(s).value();
}

}  // namespace minnow::testing
