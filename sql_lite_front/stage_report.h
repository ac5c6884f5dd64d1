#pragma once
// A running statement's stage as a client is told it in MariaDB's progress reports: stage k of
// n, the stage's name, and its work done of the work estimated. A StageListener set on a
// session (SqlSession::set_stage_listener) hears one each time the statement records a batch
// of work in its stage (session/statement_stage.h: copy-ALTER and OPTIMIZE in "copy to tmp
// table", stage 1 of 2, then "rename result table", 2 of 2; CREATE INDEX's build in
// "altering table", 1 of 1).

#include <cstdint>

namespace minnow::sql {

struct StageReport {
  const char* name = "";  // "copy to tmp table", as the processlist's State
  uint8_t stage = 1;      // 1-based
  uint8_t max_stage = 1;
  uint64_t work_completed = 0;
  // The estimate, raised to work_completed if that went past it (statement_stage.h).
  uint64_t work_estimated = 0;
};

class StageListener {
 public:
  virtual ~StageListener() = default;
  // Called on the statement's own thread, in the middle of the statement: it must not use the
  // session. A slow listener slows the statement.
  virtual void OnStageWork(const StageReport& report) = 0;
};

}  // namespace minnow::sql
