#pragma once
// The stage a running DDL statement is in, and its work in it, as MySQL's processlist State and
// performance_schema.events_stages_current show them: a copy-ALTER (and OPTIMIZE) is in "copy to
// tmp table" while it reads the source's rows into the new table, then in "rename result
// table" while the catalog switches to the new table and the old one's storage is dropped;
// CREATE INDEX's build is in "altering table". Work is counted in source rows.
//
// The statement's own thread writes (StageScope); other threads read (SnapshotSessions). All
// relaxed atomics: a reader wants a recent figure, not one consistent with other fields. A
// listener (stage_report.h: minnowd's progress reports) hears each batch of work on the
// statement's thread.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "sql_lite_front/stage_report.h"

namespace minnow::sql {

enum class StatementStage : uint8_t {
  kNone,               // not in a stage that is shown: State is "executing" or a wait's
  kCopyToTmpTable,     // copy-ALTER, OPTIMIZE: rows into the new table
  kRenameResultTable,  // the catalog switch and the old storage's drop
  kAlteringTable,      // CREATE INDEX (ALTER ... ADD INDEX in place): the index build
};

// "copy to tmp table", as the processlist's State; "" for kNone.
inline const char* StageStateName(StatementStage stage) {
  switch (stage) {
    case StatementStage::kNone:
      return "";
    case StatementStage::kCopyToTmpTable:
      return "copy to tmp table";
    case StatementStage::kRenameResultTable:
      return "rename result table";
    case StatementStage::kAlteringTable:
      return "altering table";
  }
  return "";
}
// "stage/sql/copy to tmp table", as events_stages_current's EVENT_NAME; "" for kNone.
inline std::string StageEventName(StatementStage stage) {
  if (stage == StatementStage::kNone) return "";
  return std::string("stage/sql/") + StageStateName(stage);
}

// One session's stage and progress (SessionState::stage).
struct StageProgress {
  std::atomic<StatementStage> stage{StatementStage::kNone};
  std::atomic<uint64_t> work_completed{0};
  std::atomic<uint64_t> work_estimated{0};
  // Set and read by the session's own thread only (SqlSession::set_stage_listener).
  StageListener* listener = nullptr;
};

// What a reader saw: the percent done is completed over estimated, in 0..100.
struct StageSnapshot {
  StatementStage stage = StatementStage::kNone;
  uint64_t work_completed = 0;
  // The estimate raised to the work completed if that went past it (the estimate is the
  // source's row count at the start; WORK_COMPLETED never exceeds WORK_ESTIMATED).
  uint64_t work_estimated = 0;
  // 100 * completed / estimated, 0 when nothing is estimated (an empty source), and never
  // above 100.
  double percent() const {
    if (work_estimated == 0) return 0;
    return std::min(
        100.0, 100.0 * static_cast<double>(work_completed) / static_cast<double>(work_estimated));
  }
};

inline StageSnapshot ReadStage(const StageProgress& p) {
  StageSnapshot s;
  s.stage = p.stage.load(std::memory_order_relaxed);
  s.work_completed = p.work_completed.load(std::memory_order_relaxed);
  s.work_estimated = std::max(p.work_estimated.load(std::memory_order_relaxed), s.work_completed);
  return s;
}

// What a listener is told: the stage's place in its statement's sequence of stages (see
// stage_report.h) and its work. REQUIRES: s.stage != kNone.
inline StageReport ReportStage(const StageSnapshot& s) {
  StageReport r;
  r.name = StageStateName(s.stage);
  r.stage = s.stage == StatementStage::kRenameResultTable ? 2 : 1;
  r.max_stage = s.stage == StatementStage::kAlteringTable ? 1 : 2;
  r.work_completed = s.work_completed;
  r.work_estimated = s.work_estimated;
  return r;
}

// Sets a stage for its lifetime (back to kNone when it ends, an error's return included).
// `progress` may be null (a statement run without a session): then it does nothing.
class StageScope {
 public:
  StageScope(StageProgress* progress, StatementStage stage, uint64_t estimated) : p_(progress) {
    Enter(stage, estimated);
  }
  ~StageScope() {
    if (p_ != nullptr) p_->stage.store(StatementStage::kNone, std::memory_order_relaxed);
  }
  StageScope(const StageScope&) = delete;
  StageScope& operator=(const StageScope&) = delete;

  // The next stage; the work counters start again at 0 of `estimated`.
  void Enter(StatementStage stage, uint64_t estimated) {
    if (p_ == nullptr) return;
    p_->work_completed.store(0, std::memory_order_relaxed);
    p_->work_estimated.store(estimated, std::memory_order_relaxed);
    p_->stage.store(stage, std::memory_order_relaxed);
  }
  // Adds `n` units of work done, and tells the listener, if there is one.
  void Add(uint64_t n) {
    if (p_ == nullptr) return;
    p_->work_completed.fetch_add(n, std::memory_order_relaxed);
    if (p_->listener == nullptr) return;
    const StageSnapshot s = ReadStage(*p_);
    if (s.stage != StatementStage::kNone) p_->listener->OnStageWork(ReportStage(s));
  }

 private:
  StageProgress* p_;
};

}  // namespace minnow::sql
