#pragma once
// Files of a database for the durability tests: byte-level reads and patches, a snapshot of a
// database's three files, and readers of the on-disk formats (page 0, log/durable_redo_log.h
// segments and frames, buffer_pool/doublewrite.h slots) for the tests that damage them.

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "buffer_pool/file_header.h"
#include "buffer_pool/page_header.h"
#include "common/coding.h"
#include "common/crc32c.h"
#include "engine_test_util.h"
#include "log/durable_redo_log.h"

namespace minnow::testing {

// ---------------------------------------------------------------------------------------------
// Files.

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}
// Overwrites bytes in place (the file keeps its length).
inline void PatchFile(const std::string& path, uint64_t offset, const std::string& bytes) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  REQUIRE(f.is_open());
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(f.good());
}
inline std::string ReadAt(const std::string& path, uint64_t offset, size_t len) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.is_open());
  in.seekg(static_cast<std::streamoff>(offset));
  std::string s(len, '\0');
  in.read(s.data(), static_cast<std::streamsize>(len));
  REQUIRE(static_cast<size_t>(in.gcount()) == len);
  return s;
}
inline void CopyDir(const std::string& from, const std::string& to) {
  std::filesystem::remove_all(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

inline std::string LogDir(const std::string& db_path) { return db_path + ".redo"; }
inline std::string DblwrPath(const std::string& db_path) { return db_path + ".dblwr"; }

// A copy of a database's files (data file, doublewrite file, log directory) to put back later.
class Snapshot {
 public:
  Snapshot(std::string db_path, std::string dir)
      : db_path_(std::move(db_path)), dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    Copy(db_path_, dir_ + "/data", DblwrPath(db_path_), dir_ + "/dblwr", LogDir(db_path_),
         dir_ + "/redo");
  }
  void Restore() const {
    Copy(dir_ + "/data", db_path_, dir_ + "/dblwr", DblwrPath(db_path_), dir_ + "/redo",
         LogDir(db_path_));
  }

 private:
  static void Copy(const std::string& data_from, const std::string& data_to,
                   const std::string& dblwr_from, const std::string& dblwr_to,
                   const std::string& redo_from, const std::string& redo_to) {
    const auto overwrite = std::filesystem::copy_options::overwrite_existing;
    std::filesystem::copy_file(data_from, data_to, overwrite);
    std::filesystem::remove(dblwr_to);
    if (std::filesystem::exists(dblwr_from)) {
      std::filesystem::copy_file(dblwr_from, dblwr_to, overwrite);
    }
    CopyDir(redo_from, redo_to);
  }
  std::string db_path_, dir_;
};

// ---------------------------------------------------------------------------------------------
// On-disk formats.

inline uint64_t U64At(std::string_view s, size_t off) {
  return Load64(reinterpret_cast<const std::byte*>(s.data() + off));
}
inline uint32_t U32At(std::string_view s, size_t off) {
  return Load32(reinterpret_cast<const std::byte*>(s.data() + off));
}
inline uint32_t Crc(std::string_view s) { return crc32c::Value(AsBytes(s)); }

// Page 0's fields.
struct FileHeader {
  uint32_t page_count = 0;
  Lsn checkpoint_lsn = 0;
  std::string database_id;
};
inline FileHeader ReadFileHeader(const std::string& db_path) {
  const std::string p0 = ReadAt(db_path, 0, kPageSize);
  FileHeader h;
  h.page_count = U32At(p0, file_header_offset::kPageCount);
  h.checkpoint_lsn = U64At(p0, file_header_offset::kCheckpointLsn);
  h.database_id = p0.substr(file_header_offset::kDatabaseId, kDatabaseIdSize);
  return h;
}

struct Segment {
  std::string path;
  Lsn start_lsn = 0;
  uint64_t capacity = 0;
};
// The log's segment files, oldest first, from their headers.
inline std::vector<Segment> ListSegments(const std::string& db_path) {
  std::vector<Segment> segs;
  for (const auto& e : std::filesystem::directory_iterator(LogDir(db_path))) {
    const std::string name = e.path().filename().string();
    if (name.rfind("redo-", 0) != 0 || e.path().extension() != ".log") continue;
    const std::string hdr = ReadAt(e.path().string(), 0, 64);
    REQUIRE(hdr.substr(0, 8) == "MINNOWLG");
    // magic[8] version:u32 database_id[16] start_lsn:u64 capacity:u64
    segs.push_back({e.path().string(), U64At(hdr, 28), U64At(hdr, 36)});
  }
  std::sort(segs.begin(), segs.end(),
            [](const Segment& a, const Segment& b) { return a.start_lsn < b.start_lsn; });
  return segs;
}

// Where LSN `lsn` lives: a segment file and an offset in it.
struct LogPos {
  std::string path;
  uint64_t offset = 0;
};
inline LogPos LocateLsn(const std::vector<Segment>& segs, Lsn lsn) {
  // The last segment starting at or before lsn (a segment's data ends where the next starts).
  for (size_t i = segs.size(); i-- > 0;) {
    if (segs[i].start_lsn <= lsn) {
      REQUIRE(lsn < segs[i].start_lsn + segs[i].capacity);
      return {segs[i].path, kLogSegmentHeaderSize + (lsn - segs[i].start_lsn)};
    }
  }
  FAIL("LSN " << lsn << " is in no segment");
  return {};
}

struct Frame {
  Lsn start = 0;
  uint32_t len = 0;
  uint8_t kind = 0;
  Lsn durable_hint = 0;
  Lsn end() const { return start + kFrameHeaderSize + len; }
};
// The valid frames of the log from `from` (a frame boundary) on, reading the stream across
// segments and checking each header's and payload's checksum as log/log_reader.h does.
inline std::vector<Frame> WalkFrames(const std::string& db_path, Lsn from) {
  const std::vector<Segment> segs = ListSegments(db_path);
  REQUIRE(!segs.empty());
  // A segment's data ends where the next one starts, the last one's at its capacity.
  std::string stream;  // LSN segs[0].start_lsn on
  for (size_t i = 0; i < segs.size(); ++i) {
    const Segment& s = segs[i];
    REQUIRE(s.start_lsn == segs[0].start_lsn + stream.size());  // contiguous
    const uint64_t len = i + 1 < segs.size() ? segs[i + 1].start_lsn - s.start_lsn : s.capacity;
    REQUIRE(len <= s.capacity);
    std::string data = ReadFile(s.path);
    data = data.size() > kLogSegmentHeaderSize ? data.substr(kLogSegmentHeaderSize) : "";
    data.resize(len, '\0');
    stream += data;
  }
  std::vector<Frame> frames;
  Lsn at = from;
  while (at + kFrameHeaderSize <= segs[0].start_lsn + stream.size()) {
    const size_t off = at - segs[0].start_lsn;
    std::string crc_input(8, '\0');
    std::memcpy(crc_input.data(), &at, 8);
    crc_input += stream.substr(off, 20);
    if (Crc(crc_input) != U32At(stream, off + 20)) break;
    Frame f{at, U32At(stream, off), static_cast<uint8_t>(stream[off + 4]), U64At(stream, off + 8)};
    if (off + kFrameHeaderSize + f.len > stream.size()) break;
    if (Crc(std::string_view(stream).substr(off + kFrameHeaderSize, f.len)) !=
        U32At(stream, off + 16)) {
      break;
    }
    frames.push_back(f);
    at = f.end();
  }
  return frames;
}

// True if a page image as stored on disk passes its checksum (page_header.h: bytes [4, 16384),
// or [4, 32 + stored_len) for a page stored compressed).
inline bool PageChecksumOk(std::string_view img) {
  if (img.size() < kPageSize) return false;
  const uint16_t flags =
      static_cast<uint16_t>(static_cast<uint8_t>(img[page_offset::kFlags]) |
                            (static_cast<uint8_t>(img[page_offset::kFlags + 1]) << 8));
  const size_t end = (flags & kFlagStoredCompressed) != 0
                         ? kPageHeaderSize + U32At(img, page_offset::kStoredLen)
                         : kPageSize;
  if (end > kPageSize) return false;
  return Crc(img.substr(4, end - 4)) == U32At(img, 0);
}

// One doublewrite slot holding a page image that passes its checksum.
struct DblwrCopy {
  size_t slot = 0;
  PageNo page_no = 0;
  Lsn page_lsn = 0;
  bool compressed = false;
  std::string image;  // kPageSize bytes
};
inline std::vector<DblwrCopy> ReadDoublewrite(const std::string& db_path) {
  std::vector<DblwrCopy> copies;
  if (!std::filesystem::exists(DblwrPath(db_path))) return copies;
  const std::string f = ReadFile(DblwrPath(db_path));
  for (size_t slot = 0; (slot + 1) * kPageSize <= f.size(); ++slot) {
    std::string img = f.substr(slot * kPageSize, kPageSize);
    if (!PageChecksumOk(img)) continue;
    const bool compressed =
        (static_cast<uint8_t>(img[page_offset::kFlags]) & kFlagStoredCompressed) != 0;
    copies.push_back({slot, U32At(img, page_offset::kPageNo), U64At(img, page_offset::kPageLsn),
                      compressed, std::move(img)});
  }
  return copies;
}

// Pages of the data file that have a valid doublewrite copy but fail their own checksum (or lie
// beyond the end of the file): the torn pages RepairTornPages must restore.
inline std::vector<PageNo> TornPagesWithCopies(const std::string& db_path) {
  const std::string data = ReadFile(db_path);
  std::vector<PageNo> torn;
  for (const DblwrCopy& c : ReadDoublewrite(db_path)) {
    const uint64_t off = uint64_t{c.page_no} * kPageSize;
    const bool bad = off + kPageSize > data.size() ||
                     !PageChecksumOk(std::string_view(data).substr(off, kPageSize));
    if (bad && std::find(torn.begin(), torn.end(), c.page_no) == torn.end()) {
      torn.push_back(c.page_no);
    }
  }
  return torn;
}

}  // namespace minnow::testing
