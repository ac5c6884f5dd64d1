#pragma once
// Helpers for the durability tests:
//   - RunChild: a "crash" without killing the test process. A forked child opens the database,
//     runs a workload, reports each acknowledged commit over a pipe and dies by SIGKILL (no
//     Close, no destructors); the parent then reopens the files and checks recovery.
//   - a numbered-commit workload whose recovered state is checkable: commit i writes
//     kKeysPerCommit keys and sets a counter key to i, so after a crash the counter names the
//     last commit that survived, every commit up to it must be complete and none after it
//     may show.
// The on-disk formats' readers are in durability_files_util.h.

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

#include "common/crash_point.h"
#include "common/fault_injection.h"
#include "durability_files_util.h"
#include "engine_test_util.h"

namespace minnow::testing {

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

}  // namespace minnow::testing
