// The crash test's child: committed transactions of random puts and erases, forever, each
// acknowledged commit logged to the side file (format in crash_test_workload.h); some are
// big (thousands of writes), so kills land inside them. The parent kills it; it returns only
// on an error.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "tools/crash_test_workload.h"

namespace minnow::crash_test {
namespace {

// Random transactions. Each child run has a mood (how often it puts rather than erases), so
// that across kills the tree grows (splits) and shrinks (merges).
class Workload {
 public:
  Workload(uint64_t seed, uint32_t keys) : rng_(seed), keys_(keys) {
    static constexpr double kPutRatio[] = {0.3, 0.5, 0.7, 0.9};
    put_ratio_ = kPutRatio[rng_() % 4];
  }

  // Ops of the next transaction; *rollback says it is to be rolled back.
  std::vector<Op> Next(bool* rollback) {
    *rollback = Chance(0.07);
    uint32_t n = 1 + Below(20);
    if (Chance(0.03)) n = 100 + Below(300);  // a large transaction
    // A big one: megabytes of undo over many undo pages, often cut by the kill half-way, so
    // recovery rolls back a long undo chain (and is itself killed at recovery.rollback).
    if (Chance(0.01)) n = 2'000 + Below(6'000);
    // Half the transactions work on a window of neighbouring keys (splits and merges of one
    // page), the rest anywhere.
    const bool local = Chance(0.5);
    const uint32_t width = std::min<uint32_t>(keys_, 64);
    const uint32_t base = Below(keys_ - width + 1);
    std::vector<Op> ops(n);
    for (Op& op : ops) {
      op.key = local ? base + Below(width) : Below(keys_);
      op.put = Chance(put_ratio_);
      if (!op.put) continue;
      if (Chance(0.01)) {
        op.len = 20'000 + Below(180'000);  // overflow pages
      } else if (Chance(0.3)) {
        op.len = Below(64);
      } else {
        op.len = Below(3'001);
      }
    }
    return ops;
  }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }

  std::mt19937_64 rng_;
  uint32_t keys_;
  double put_ratio_ = 0.5;
};

// Appends one record in a single write() (looping only if the kernel takes part of it).
bool Append(int fd, const std::string& record) {
  size_t done = 0;
  while (done < record.size()) {
    const ssize_t n = ::write(fd, record.data() + done, record.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fmt::print(stderr, "crash_test child: write side file: {}\n", std::strerror(errno));
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

int Fail(std::string_view what, const Status& st) {
  fmt::print(stderr, "crash_test child: {}: {}\n", what, st.ToString());
  return 3;
}

}  // namespace

int RunChild(const std::string& dir, uint64_t seed, int policy, uint32_t keys) {
  auto opened = Database::Open(DatabaseOptions(dir, policy));
  if (!opened.ok()) return Fail("open", opened.status());
  std::unique_ptr<Database> db = std::move(*opened);
  auto ks = db->OpenKeyspace(kKeyspaceName);
  if (!ks.ok()) return Fail("open keyspace", ks.status());
  auto session = db->NewSession();
  if (!session.ok()) return Fail("new session", session.status());
  const int fd =
      ::open(SidePath(dir).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    fmt::print(stderr, "crash_test child: open {}: {}\n", SidePath(dir), std::strerror(errno));
    return 3;
  }
  Workload workload(seed, keys);
  for (uint32_t n = 1;; ++n) {
    bool rollback = false;
    TxnOps t{.txn = n, .ops = workload.Next(&rollback)};
    auto txn = (*session)->Begin();
    if (!txn.ok()) return Fail("begin", txn.status());
    for (uint32_t i = 0; i < t.ops.size(); ++i) {
      const Op& op = t.ops[i];
      const std::string key = KeyName(op.key);
      Status st;
      if (op.put) {
        st = (*txn)->Put(*ks, key, MakeValue({.seed = seed, .txn = n, .op = i, .len = op.len}));
      } else {
        st = (*txn)->Erase(*ks, key);
        if (st.IsNotFound()) st = Status::OK();
      }
      if (!st.ok()) return Fail(fmt::format("txn {} op {} on '{}'", n, i, key), st);
    }
    if (rollback) {
      const Status st = (*txn)->Rollback();
      if (!st.ok()) return Fail(fmt::format("rollback of txn {}", n), st);
      if (!Append(fd, EncodeRolledBack(n))) return 3;
      continue;
    }
    if (!Append(fd, EncodePending(t))) return 3;
    const Status st = (*txn)->Commit();
    if (!st.ok()) return Fail(fmt::format("commit of txn {}", n), st);
    if (!Append(fd, EncodeAcked(n))) return 3;
  }
}

}  // namespace minnow::crash_test
