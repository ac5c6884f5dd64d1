#pragma once
// Helpers for the durability tests (issue #3):
//   - RunChild: a "crash" without killing the test process. A forked child opens the database,
//     runs a workload, reports each acknowledged commit over a pipe and dies by SIGKILL (no
//     Close, no destructors); the parent then reopens the files and checks recovery.
//   - a numbered-commit workload whose recovered state is checkable: commit i writes
//     kKeysPerCommit keys and sets a counter key to i, so after a crash the counter names the
//     last commit that survived, every commit up to it must be complete and none after it
//     may show.
//   - readers of the on-disk formats (page 0, txn/durable_redo_log.h segments and frames,
//     buffer_pool/doublewrite.h slots) for the tests that damage them.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "buffer_pool/file_header.h"
#include "buffer_pool/page_header.h"
#include "common/coding.h"
#include "common/crash_point.h"
#include "common/crc32c.h"
#include "common/fault_injection.h"
#include "engine_test_util.h"
#include "txn/durable_redo_log.h"

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

// Clears every armed I/O fault and crash point when the test leaves its scope (a failed REQUIRE
// must not leave a fault armed for the next test).
struct FaultGuard {
  FaultGuard() = default;
  FaultGuard(const FaultGuard&) = delete;
  FaultGuard& operator=(const FaultGuard&) = delete;
  ~FaultGuard() {
    ClearFaults();
    DisarmCrashPoints();
  }
};

// ---------------------------------------------------------------------------------------------
// Options.

// A file database for the durability tests: policy 1, no background page flusher (page writes
// happen only where the test makes them: eviction, Close), a log that never checkpoints.
inline Options DurableOptions(const std::string& path) {
  Options o = SmallOptions(path);
  o.background_flusher = false;
  o.flush_log_at_trx_commit = 1;
  o.log_capacity_bytes = 1ull << 30;
  return o;
}
// The smallest pool (16 frames): a few hundred KiB of writes force dirty pages out.
inline Options TinyPoolOptions(const std::string& path) {
  Options o = DurableOptions(path);
  o.buffer_pool_bytes = 16 * kPageSize;
  return o;
}

// ---------------------------------------------------------------------------------------------
// The numbered-commit workload.

inline constexpr uint64_t kKeysPerCommit = 4;
inline constexpr std::string_view kCounterKey = "~counter";  // sorts after every Key(i)
inline constexpr const char* kKeyspace = "t";

// The value of key k written by commit k / kKeysPerCommit: 60..1000 bytes, an overflow value
// (20 KB) now and then, the content a function of k.
inline std::string Val(uint64_t k) {
  const size_t len = k % 97 == 13 ? 20000 : 60 + (k * 37) % 940;
  std::string v(len, '\0');
  for (size_t i = 0; i < len; ++i) v[i] = static_cast<char>('a' + (k * 7 + i) % 26);
  return v;
}

// Runs commit number `i` (keys i * kKeysPerCommit ...) in its own transaction.
inline Status CommitNumbered(Session* s, const Keyspace& ks, uint64_t i) {
  ASSIGN_OR_RETURN(auto txn, s->Begin());
  for (uint64_t j = 0; j < kKeysPerCommit; ++j) {
    const uint64_t k = i * kKeysPerCommit + j;
    RETURN_IF_ERROR(txn->Put(ks, Key(k), Val(k)));
  }
  RETURN_IF_ERROR(txn->Put(ks, kCounterKey, std::to_string(i)));
  return txn->Commit();
}

// Creates the database with keyspace kKeyspace and closes it cleanly (so a child that crashes
// later never loses the keyspace itself).
inline void CreateDatabase(const Options& o) {
  auto db = MustOpen(o);
  MustKeyspace(db.get(), kKeyspace);
  REQUIRE_OK(db->Close());
}

// Checks the state recovered from the numbered workload: the counter names commit c, with
// c >= last_acked (every acknowledged commit survived); commits 0..c are complete and none of
// c+1..attempts-1 shows. Returns c (-1: no commit survived).
inline int64_t VerifyNumbered(Database* db, int64_t last_acked, uint64_t attempts) {
  Keyspace ks = Take(db->OpenKeyspace(kKeyspace));
  auto s = Take(db->NewSession());
  auto txn = MustBegin(s.get());
  std::string v;
  const bool has_counter = Take(txn->Get(ks, kCounterKey, &v));
  const int64_t c = has_counter ? std::stoll(v) : -1;
  INFO("counter " << c << ", last acknowledged commit " << last_acked << ", commits attempted "
                  << attempts);
  REQUIRE(c >= last_acked);
  REQUIRE(c < static_cast<int64_t>(attempts));
  uint64_t wrong = 0, first_wrong = UINT64_MAX;
  const uint64_t present_end = static_cast<uint64_t>(c + 1) * kKeysPerCommit;
  for (uint64_t k = 0; k < attempts * kKeysPerCommit; ++k) {
    const bool found = Take(txn->Get(ks, Key(k), &v));
    const bool ok = k < present_end ? (found && v == Val(k)) : !found;
    if (!ok && wrong++ == 0) first_wrong = k;
  }
  INFO("first wrong key " << first_wrong << " (commit " << first_wrong / kKeysPerCommit << ")");
  REQUIRE(wrong == 0);
  REQUIRE_OK(txn->Commit());
  REQUIRE_OK(db->CheckIntegrity());
  return c;
}

// ---------------------------------------------------------------------------------------------
// A crashing child process.

// The child's side of RunChild. Only the child touches its Database; it never returns into
// Catch2 and never uses its macros (a failure is reported to the parent and the child _exits).
class Child {
 public:
  explicit Child(int fd) : fd_(fd) {}

  void Ack(uint64_t i) {
    char buf[9];
    buf[0] = 'A';
    std::memcpy(buf + 1, &i, 8);
    Send(buf, sizeof buf);
  }
  [[noreturn]] void Fail(const std::string& what) {
    char hdr[5];
    hdr[0] = 'F';
    const uint32_t n = static_cast<uint32_t>(what.size());
    std::memcpy(hdr + 1, &n, 4);
    Send(hdr, sizeof hdr);
    Send(what.data(), what.size());
    ::_exit(3);
  }
  void Ok(const Status& st, const std::string& what) {
    if (!st.ok()) Fail(what + ": " + st.ToString());
  }
  template <typename T>
  T Take(Result<T>&& r, const std::string& what) {
    if (!r.ok()) Fail(what + ": " + r.status().ToString());
    return std::move(r).value();
  }
  // Dies as a crash does: no Close, no destructors, nothing flushed from user space.
  [[noreturn]] void Crash() {
    ::kill(::getpid(), SIGKILL);
    ::_exit(137);
  }

  // Opens the database and its keyspace, runs the numbered workload from commit `first` for
  // `count` commits (acknowledging each) and returns the database (still open).
  std::unique_ptr<Database> OpenAndRun(const Options& o, uint64_t first, uint64_t count) {
    auto db = Take(Database::Open(o), "open");
    Keyspace ks = Take(db->OpenKeyspace(kKeyspace), "open keyspace");
    auto s = Take(db->NewSession(), "session");
    for (uint64_t i = first; i < first + count; ++i) {
      Ok(CommitNumbered(s.get(), ks, i), "commit " + std::to_string(i));
      Ack(i);
    }
    return db;
  }

 private:
  void Send(const void* p, size_t n) {
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
      const ssize_t w = ::write(fd_, c, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        ::_exit(2);
      }
      c += w;
      n -= static_cast<size_t>(w);
    }
  }
  int fd_;
};

struct ChildOutcome {
  int signal = 0;      // the signal that ended the child (SIGKILL for a crash)
  int exit_code = -1;  // its exit code if it exited
  std::vector<uint64_t> acks;
  std::string failure;  // Child::Fail's message
  bool crashed() const { return signal == SIGKILL && failure.empty(); }
  int64_t last_ack() const { return acks.empty() ? -1 : static_cast<int64_t>(acks.back()); }
  std::string Describe() const {
    return "child: signal " + std::to_string(signal) + ", exit code " + std::to_string(exit_code) +
           ", " + std::to_string(acks.size()) + " commits acknowledged" +
           (failure.empty() ? std::string() : ", failure: " + failure);
  }
};

// Forks; the child runs `body`, which is expected to end in Child::Crash() (or be killed at an
// armed crash point). REQUIRES: the parent has no Database open (no threads while forking).
inline ChildOutcome RunChild(const std::function<void(Child&)>& body) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    Child c(fds[1]);
    try {
      body(c);
    } catch (...) {
      c.Fail("the child's workload threw");
    }
    c.Fail("the child's workload returned instead of crashing");
  }
  ::close(fds[1]);
  std::string bytes;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) REQUIRE(errno == EINTR);
  ChildOutcome out;
  if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  for (size_t p = 0; p < bytes.size();) {
    if (bytes[p] == 'A' && p + 9 <= bytes.size()) {
      uint64_t i;
      std::memcpy(&i, bytes.data() + p + 1, 8);
      out.acks.push_back(i);
      p += 9;
    } else if (bytes[p] == 'F' && p + 5 <= bytes.size()) {
      uint32_t n;
      std::memcpy(&n, bytes.data() + p + 1, 4);
      out.failure = bytes.substr(p + 5, n);
      p += 5 + n;
    } else {
      out.failure = "garbled pipe from the child";
      break;
    }
  }
  return out;
}

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
  Lsn checkpoint_lsn = 0, log_scan_lsn = 0;
  std::string database_id;
};
inline FileHeader ReadFileHeader(const std::string& db_path) {
  const std::string p0 = ReadAt(db_path, 0, kPageSize);
  FileHeader h;
  h.page_count = U32At(p0, file_header_offset::kPageCount);
  h.checkpoint_lsn = U64At(p0, file_header_offset::kCheckpointLsn);
  h.log_scan_lsn = U64At(p0, file_header_offset::kLogScanLsn);
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
// segments and checking each header's and payload's checksum as txn/log_reader.h does.
inline std::vector<Frame> WalkFrames(const std::string& db_path, Lsn from) {
  const std::vector<Segment> segs = ListSegments(db_path);
  REQUIRE(!segs.empty());
  // A segment's data ends where the next one starts (a reopen starts a new segment at the
  // recovered end), the last one's at its capacity.
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
