// crash_test: kills a process writing to a minnow database, again and again, and checks after
// each kill that recovery brought back exactly the acknowledged commits.
//
//   crash_test [--kills N] [--seed S] [--policy 1|2|mixed] [--dir D] [--keep] [--verbose]
//              [--keys N] [--point-timeout-ms MS]
//
// Each round: a child process (this program with --child, fork + exec) runs transactions on
// DIR/db.minnow and logs each commit to a side file before and after Commit
// (crash_test_workload.h). The parent kills it with SIGKILL after a random delay, or arms a
// crash point (MINNOW_CRASH_AT, common/crash_point.h) so that the child kills itself inside a
// log flush, a page write, a checkpoint, a split... Then a verifier (a fork of the parent, so
// that it can also die without closing the database) opens the database, which recovers it,
// runs CheckIntegrity and compares every key with the model: all acknowledged transactions in
// order, plus the one pending transaction in full or not at all. The recovery.* crash points
// are armed in the verifier: recovery itself is killed, then recovered by the next verifier.
// The database and the model carry over from round to round; some verifiers die without
// closing, leaving recovery to the next child.
//
// Exit status: 0 all verified, 1 a failure (printed with the seed to rerun), 2 usage.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/crash_point.h"
#include "tools/crash_test_workload.h"

namespace minnow::crash_test {
namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  bool child = false;
  uint32_t kills = 50;
  uint64_t seed = 0;
  bool seed_given = false;
  std::string policy = "mixed";
  std::string dir;
  bool keep = false;
  bool verbose = false;
  uint32_t keys = 3000;
  uint32_t point_timeout_ms = 2000;
};

// How one round ends the child.
struct Plan {
  uint32_t kill = 0;
  int policy = 1;
  uint64_t child_seed = 0;
  std::string point;         // empty: a timer kill
  uint64_t n = 0;            // the point fires at its n-th hit
  bool in_recovery = false;  // a recovery.* point: armed in the verifier, the child gets a timer
  uint32_t delay_ms = 0;     // the timer
  bool unclean = false;      // the verifier dies without closing the database
};

uint64_t HitsFor(const std::string& point, std::mt19937_64& rng) {
  auto below = [&](uint64_t n) { return 1 + rng() % n; };
  if (point.starts_with("log.before") || point.starts_with("log.after") ||
      point.starts_with("txn.")) {
    return below(50);
  }
  if (point == "btree.split") return below(30);
  if (point == "btree.merge") return below(5);
  if (point == "recovery.rollback") return 1;
  return below(3);
}

Plan MakePlan(const Args& a, uint32_t kill, std::mt19937_64& rng) {
  Plan p;
  p.kill = kill;
  p.policy = a.policy == "mixed" ? 1 + static_cast<int>(rng() % 2) : std::stoi(a.policy);
  p.child_seed = rng();
  p.delay_ms = 20 + static_cast<uint32_t>(rng() % 381);
  p.unclean = rng() % 4 == 0 && kill != a.kills;
  const auto& names = CrashPointNames();
  if (rng() % 100 < 55 && !names.empty()) {
    p.point = names[rng() % names.size()];
    p.n = HitsFor(p.point, rng);
    p.in_recovery = p.point.starts_with("recovery.");
  }
  return p;
}

std::string PlanText(const Plan& p) {
  if (p.point.empty()) return fmt::format("timer {} ms", p.delay_ms);
  return fmt::format("{}:{}", p.point, p.n);
}

[[noreturn]] void Usage() {
  std::fputs(
      "usage: crash_test [--kills N] [--seed S] [--policy 1|2|mixed] [--dir D] [--keep] "
      "[--verbose] [--keys N] [--point-timeout-ms MS]\n",
      stderr);
  std::exit(2);
}

Args ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage();
      return argv[++i];
    };
    if (f == "--child") {
      a.child = true;
    } else if (f == "--kills") {
      a.kills = static_cast<uint32_t>(std::stoul(value()));
    } else if (f == "--seed") {
      a.seed = std::stoull(value());
      a.seed_given = true;
    } else if (f == "--policy") {
      a.policy = value();
      if (a.policy != "1" && a.policy != "2" && a.policy != "mixed") Usage();
    } else if (f == "--dir") {
      a.dir = value();
    } else if (f == "--keep") {
      a.keep = true;
    } else if (f == "--verbose") {
      a.verbose = true;
    } else if (f == "--keys") {
      a.keys = static_cast<uint32_t>(std::stoul(value()));
    } else if (f == "--point-timeout-ms") {
      a.point_timeout_ms = static_cast<uint32_t>(std::stoul(value()));
    } else {
      Usage();
    }
  }
  if (a.keys < 64 || a.keys > 999'999) Usage();
  return a;
}

std::string Signal(int status) {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return fmt::format("signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
  return fmt::format("wait status {:#x}", status);
}

// The child, killed after `wait_ms` unless it dies first. Returns its wait status and whether
// the parent sent the SIGKILL.
std::pair<int, bool> SpawnAndKill(const Args& a, const Plan& p, uint32_t wait_ms) {
  const std::string seed = std::to_string(p.child_seed), policy = std::to_string(p.policy),
                    keys = std::to_string(a.keys);
  const std::string crash_at =
      p.point.empty() || p.in_recovery ? std::string() : fmt::format("{}:{}", p.point, p.n);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    fmt::print(stderr, "crash_test: fork: {}\n", std::strerror(errno));
    std::exit(1);
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (crash_at.empty()) {
      ::unsetenv("MINNOW_CRASH_AT");
    } else {
      ::setenv("MINNOW_CRASH_AT", crash_at.c_str(), 1);
    }
    const char* argv[] = {"crash_test", "--child",    "--dir",    a.dir.c_str(),
                          "--seed",     seed.c_str(), "--policy", policy.c_str(),
                          "--keys",     keys.c_str(), nullptr};
    ::execv("/proc/self/exe", const_cast<char* const*>(argv));
    ::_exit(127);
  }
  const auto deadline = Clock::now() + std::chrono::milliseconds(wait_ms);
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return {status, false};
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return {status, true};
}

void Send(int fd, const std::string& msg) {
  size_t done = 0;
  while (done < msg.size()) {
    const ssize_t n = ::write(fd, msg.data() + done, msg.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Runs body(fd) in a fork of this (single-threaded) process; returns what it wrote to fd and
// its wait status. The fork never returns into the parent's code: body ends with _exit or a
// SIGKILL.
std::pair<std::string, int> RunForked(const std::function<void(int fd)>& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    fmt::print(stderr, "crash_test: pipe: {}\n", std::strerror(errno));
    std::exit(1);
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    body(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string msg;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    msg.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return {msg, status};
}

// The verifier (in a fork): opens (recovers) the database, verifies it, reports
// "ok <pending present 0|1> <records>\n<recovery report>" or "fail\n<what>", then closes the
// database, or dies without closing it when `unclean`. With `arm_point`, the recovery crash
// point of the plan is armed during Open, and the fork may die there without reporting.
void Verifier(int fd, const Args& a, const Plan& p, const Model& model, const SideLog& side,
              bool arm_point) {
  if (arm_point) ArmCrashPoint(p.point, p.n);
  auto opened = Database::Open(DatabaseOptions(a.dir, 1));
  DisarmCrashPoints();
  if (!opened.ok()) {
    Send(fd, "fail\nopen (recovery): " + opened.status().ToString());
    ::_exit(0);
  }
  Database& db = **opened;
  const std::string report = db.recovery_report().ToString();
  const Verdict v = VerifyDatabase(db, model, side, p.child_seed, p.kill);
  if (!v.ok) {
    Send(fd, fmt::format("fail\n{}\n  recovery: {}", v.failure, report));
    ::_exit(0);
  }
  const std::string msg = fmt::format("ok {} {}\n{}", v.pending_present ? 1 : 0, v.records, report);
  if (p.unclean) {
    Send(fd, msg);
    ::kill(::getpid(), SIGKILL);  // the next child recovers
  }
  const Status st = db.Close();
  Send(fd, st.ok() ? msg : "fail\nclose after verifying: " + st.ToString());
  ::_exit(0);
}

struct PointCount {
  uint64_t armed = 0, fired = 0;
};

class Parent {
 public:
  explicit Parent(Args a) : a_(std::move(a)), model_(a_.keys), rng_(a_.seed) {}

  int Run() {
    const auto start = Clock::now();
    fmt::print("crash_test: seed {}, {} kills, policy {}, {} keys, dir {}\n", a_.seed, a_.kills,
               a_.policy, a_.keys, a_.dir);
    if (!Setup()) return 1;
    for (uint32_t k = 1; k <= a_.kills; ++k) {
      if (!Round(MakePlan(a_, k, rng_))) return 1;
    }
    PrintTable();
    const double secs = std::chrono::duration<double>(Clock::now() - start).count();
    fmt::print("pending transactions at the kill: {} recovered, {} gone, {} none\n",
               pending_present_, pending_absent_, a_.kills - pending_present_ - pending_absent_);
    fmt::print("kills inside recovery: {}; verifiers that died without closing: {}\n",
               recovery_kills_, unclean_);
    fmt::print("total time {:.1f} s\n", secs);
    fmt::print("crash_test: {} kills, {} recoveries verified, 0 failures\n", a_.kills, verified_);
    return 0;
  }

 private:
  bool Fail(const Plan& p, const std::string& what) {
    fmt::print("\ncrash_test: FAILED at kill {} ({}, policy {}, child seed {}):\n  {}\n", p.kill,
               PlanText(p), p.policy, p.child_seed, what);
    fmt::print(
        "crash_test: seed {}; rerun with: crash_test --seed {} --policy {} --keys {} --kills {} "
        "--keep (same plans and child seeds; the kill moments vary)\n",
        a_.seed, a_.seed, a_.policy, a_.keys, p.kill);
    fmt::print("crash_test: database and side file kept in {}\n", a_.dir);
    return false;
  }

  bool Setup() {
    auto [msg, status] = RunForked([&](int fd) {
      auto db = Database::Open(DatabaseOptions(a_.dir, 1));
      Status st = db.ok() ? (*db)->CreateKeyspace(kKeyspaceName) : db.status();
      if (st.ok()) st = (*db)->Close();
      Send(fd, st.ok() ? "ok" : "fail\n" + st.ToString());
      ::_exit(0);
    });
    if (msg == "ok") return true;
    return Fail(Plan{}, fmt::format("creating the database: {} ({})", msg, Signal(status)));
  }

  bool Round(const Plan& p) {
    std::filesystem::remove(SidePath(a_.dir));
    const uint32_t wait = p.point.empty() || p.in_recovery ? p.delay_ms : a_.point_timeout_ms;
    const auto [status, by_us] = SpawnAndKill(a_, p, wait);
    const bool sigkill = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    if (!sigkill) return Fail(p, "the child died by itself: " + Signal(status));
    std::string how = PlanText(p);
    if (!p.point.empty() && !p.in_recovery) {
      ++points_[p.point].armed;
      if (!by_us) ++points_[p.point].fired;
      how += by_us ? fmt::format(" not reached, killed at {} ms", wait) : " fired";
    }
    auto side = ReadSideLog(SidePath(a_.dir), a_.keys);
    if (!side.ok()) return Fail(p, "side file: " + side.status().ToString());
    for (const TxnOps& t : side->acked) model_.Apply(p.child_seed, p.kill, t);

    if (p.in_recovery) {
      ++points_[p.point].armed;
      auto [msg, vstatus] =
          RunForked([&](int fd) { Verifier(fd, a_, p, model_, *side, /*arm_point=*/true); });
      if (msg.empty() && WIFSIGNALED(vstatus) && WTERMSIG(vstatus) == SIGKILL) {
        ++points_[p.point].fired;
        ++recovery_kills_;
        how += " fired in recovery";
      } else {
        how += " not reached in recovery";
        if (!msg.starts_with("ok")) return Fail(p, VerifierFailure(msg, vstatus));
        if (p.unclean) ++unclean_;
        return Verified(p, how, *side, msg);  // that verifier got through: done
      }
    }
    auto [msg, vstatus] =
        RunForked([&](int fd) { Verifier(fd, a_, p, model_, *side, /*arm_point=*/false); });
    if (!msg.starts_with("ok")) return Fail(p, VerifierFailure(msg, vstatus));
    if (p.unclean) ++unclean_;
    return Verified(p, how, *side, msg);
  }

  static std::string VerifierFailure(const std::string& msg, int status) {
    if (msg.starts_with("fail\n")) return msg.substr(5);
    return fmt::format("the verifier died ({}) before reporting: '{}'", Signal(status), msg);
  }

  bool Verified(const Plan& p, const std::string& how, const SideLog& side,
                const std::string& msg) {
    ++verified_;
    const bool present = msg.size() > 3 && msg[3] == '1';
    const size_t nl = msg.find('\n');
    const std::string report = nl == std::string::npos ? "" : msg.substr(nl + 1);
    std::string pending = "no pending txn";
    if (side.pending.has_value()) {
      pending = fmt::format("pending txn {} {}", side.pending->txn, present ? "present" : "absent");
      ++(present ? pending_present_ : pending_absent_);
      if (present) model_.Apply(p.child_seed, p.kill, *side.pending);
    }
    fmt::print("kill {:>4}/{} p{} {:<44} {:>5} acked, {}{}; {}\n", p.kill, a_.kills, p.policy, how,
               side.acked.size(), pending, p.unclean ? ", left unclosed" : "", report);
    if (a_.verbose) {
      fmt::print("          side file {} bytes{}, {} rolled back; model {} keys; db {}\n",
                 side.bytes, side.torn_tail ? " (torn tail)" : "", side.rolled_back.size(),
                 model_.live(), msg.substr(0, nl));
    }
    return true;
  }

  void PrintTable() const {
    fmt::print("{:<28} {:>6} {:>6}\n", "crash point", "armed", "fired");
    for (const std::string& name : CrashPointNames()) {
      const auto it = points_.find(name);
      const PointCount c = it == points_.end() ? PointCount{} : it->second;
      fmt::print("{:<28} {:>6} {:>6}\n", name, c.armed, c.fired);
    }
  }

  Args a_;
  Model model_;
  std::mt19937_64 rng_;
  std::map<std::string, PointCount> points_;
  uint32_t verified_ = 0, pending_present_ = 0, pending_absent_ = 0, recovery_kills_ = 0,
           unclean_ = 0;
};

int ParentMain(Args a) {
  DisarmCrashPoints();  // MINNOW_CRASH_AT is for the children
  if (!a.seed_given) a.seed = std::random_device{}() ^ static_cast<uint64_t>(::getpid()) << 32;
  bool made_dir = false;
  if (a.dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/crash_test.XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) {
      fmt::print(stderr, "crash_test: mkdtemp {}: {}\n", templ, std::strerror(errno));
      return 1;
    }
    a.dir = templ;
    made_dir = true;
  } else {
    std::filesystem::create_directories(a.dir);
    if (std::filesystem::exists(DatabasePath(a.dir))) {
      fmt::print(stderr, "crash_test: {} exists; give an empty --dir\n", DatabasePath(a.dir));
      return 2;
    }
  }
  const bool keep = a.keep || !made_dir;
  const std::string dir = a.dir;
  const int rc = Parent(std::move(a)).Run();
  if (rc == 0 && !keep) std::filesystem::remove_all(dir);
  return rc;
}

}  // namespace
}  // namespace minnow::crash_test

int main(int argc, char** argv) {
  using namespace minnow::crash_test;
  Args a = ParseArgs(argc, argv);
  if (a.child) {
    if (a.dir.empty() || !a.seed_given || a.policy == "mixed") Usage();
    return RunChild(a.dir, a.seed, std::stoi(a.policy), a.keys);
  }
  return ParentMain(std::move(a));
}
