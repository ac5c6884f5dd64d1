// Bounded concurrency stress (hidden tag [.stress]; MINNOW_STRESS_SECONDS, default 3): appenders
// on both paths, committers flushing, a checkpointer trimming segments behind them; the log read
// back must hold every frame since the last checkpoint, intact and in each thread's order.

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <thread>

#include "log_test_util.h"

namespace minnow {
namespace {

using testing::DbId;
using testing::OpenLogOrDie;
using testing::ScanAll;
using testing::ScannedFrame;
using testing::SmallLogOptions;
using testing::TempLogDir;

double StressSeconds() {
  const char* s = std::getenv("MINNOW_STRESS_SECONDS");
  return s != nullptr ? std::atof(s) : 3.0;
}

// Payload: thread:u32 seq:u64, then filler derived from both.
std::string StressPayload(uint32_t thread, uint64_t seq, size_t len) {
  std::string p(std::max<size_t>(len, 12), '\0');
  std::memcpy(p.data(), &thread, 4);
  std::memcpy(p.data() + 4, &seq, 8);
  for (size_t i = 12; i < p.size(); ++i) p[i] = static_cast<char>(thread * 7 + seq + i);
  return p;
}

TEST_CASE("log stress: appends, group commits and checkpoints at once", "[.stress][txn]") {
  TempLogDir tmp("stress");
  const auto id = DbId(30);
  auto log = OpenLogOrDie(SmallLogOptions(tmp.log_dir(), 64 << 10, 8 << 10), id, 0);
  log->StartBackground();
  constexpr uint32_t kAppenders = 4;
  std::atomic<bool> stop{false};
  std::atomic<int> errors{0};
  std::vector<std::vector<Lsn>> ends(kAppenders);  // per thread: end LSN of seq i
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kAppenders; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      for (uint64_t seq = 0; !stop.load(std::memory_order_relaxed); ++seq) {
        // Mostly small frames, sometimes one bigger than the 8 KiB buffer.
        const size_t len = rng() % 64 == 0 ? 20000 + rng() % 20000 : 12 + rng() % 600;
        const std::string p = StressPayload(t, seq, len);
        Lsn end;
        if (seq % 2 == 0) {
          end = log->AppendEncoded(
              p.size(), [&](Bytes dst) { std::memcpy(dst.data(), p.data(), dst.size()); });
        } else {
          end = log->Append(AsBytes(p));
        }
        if (end == 0) ++errors;
        ends[t].push_back(end);
        if (seq % 5 == 0) {
          const auto policy = static_cast<FlushPolicy>(seq % 3);
          if (!log->CommitUpTo(end, policy).ok()) ++errors;
          if (policy == FlushPolicy::kSyncAtCommit && log->durable_lsn() < end) ++errors;
        }
      }
    });
  }
  // A committer that flushes whatever is current.
  threads.emplace_back([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      const Lsn lsn = log->current_lsn();
      if (!log->FlushUpTo(lsn).ok() || log->durable_lsn() < lsn) ++errors;
    }
  });
  // A checkpointer trimming behind the appenders.
  std::mutex ckpt_mu;
  Lsn last_checkpoint = 0;
  threads.emplace_back([&] {
    std::mt19937_64 rng(99);
    std::deque<Lsn> history;
    while (!stop.load(std::memory_order_relaxed)) {
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
      // Checkpoint a lagging frame boundary, so the final scan still checks many frames.
      history.push_back(log->current_lsn());
      if (history.size() > 300) history.pop_front();
      const Lsn ckpt = history.front();
      log->Checkpoint(ckpt);
      if (log->checkpoint_lsn() < ckpt) ++errors;
      std::lock_guard<std::mutex> g(ckpt_mu);
      last_checkpoint = ckpt;
    }
  });
  std::this_thread::sleep_for(std::chrono::duration<double>(StressSeconds()));
  stop = true;
  for (auto& th : threads) th.join();
  log->StopBackground();
  REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
  CHECK(errors == 0);
  const DurableLogStats s = log->stats();
  WARN("stress: " << s.frames << " frames, " << s.current_lsn << " bytes, " << s.writes
                  << " writes, " << s.syncs << " syncs, " << s.flush_requests
                  << " waiting flushes, " << s.segments_created << " segments created, "
                  << s.segments_removed << " removed");
  CHECK(s.segments_removed > 0);

  // Everything since the last checkpoint is there.
  Lsn from;
  {
    std::lock_guard<std::mutex> g(ckpt_mu);
    from = last_checkpoint;
  }
  std::vector<ScannedFrame> got;
  auto r = ScanAll(tmp.log_dir(), id, from, &got);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->end_lsn == log->current_lsn());
  CHECK_FALSE(r->torn_tail);
  std::vector<int64_t> last_seq(kAppenders, -1);
  uint64_t expected = 0;
  for (uint32_t t = 0; t < kAppenders; ++t) {
    for (Lsn e : ends[t]) expected += e > from ? 1 : 0;
  }
  uint64_t mine = 0;
  for (const ScannedFrame& f : got) {
    REQUIRE(f.payload.size() >= 12);
    uint32_t t;
    uint64_t seq;
    std::memcpy(&t, f.payload.data(), 4);
    std::memcpy(&seq, f.payload.data() + 4, 8);
    REQUIRE(t < kAppenders);
    REQUIRE(seq < ends[t].size());
    CHECK(ends[t][seq] == f.end);
    CHECK(static_cast<int64_t>(seq) > last_seq[t]);
    last_seq[t] = static_cast<int64_t>(seq);
    CHECK(f.payload == StressPayload(t, seq, f.payload.size()));
    ++mine;
  }
  CHECK(mine == expected);
}

}  // namespace
}  // namespace minnow

namespace minnow {
namespace {

// Hidden: append throughput (the mtr commit path), one thread and four. Prints, asserts nothing
// about timing.
TEST_CASE("log bench: AppendEncoded throughput", "[.bench][txn]") {
  TempLogDir tmp("bench");
  const auto id = DbId(31);
  DurableLogOptions o = SmallLogOptions(tmp.log_dir(), 64 << 20, 4 << 20);
  for (const int threads : {1, 4}) {
    auto log = OpenLogOrDie(o, id, 0);
    constexpr int kPerThread = 1'000'000;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t) {
      ts.emplace_back([&] {
        for (int i = 0; i < kPerThread; ++i) {
          log->AppendEncoded(100, [](Bytes dst) { std::memset(dst.data(), 7, dst.size()); });
        }
      });
    }
    for (auto& th : ts) th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE(log->FlushUpTo(log->current_lsn()).ok());
    WARN(threads << " thread(s): " << threads * kPerThread / s / 1e6 << " M appends/s of 100 B ("
                 << log->current_lsn() / s / 1e6 << " MB/s)");
    log.reset();
    std::filesystem::remove_all(o.dir);
  }
}

}  // namespace
}  // namespace minnow
