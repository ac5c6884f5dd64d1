#include "common/fault_injection.h"

#include <mutex>

namespace minnow {

namespace fault_detail {

std::atomic<bool> g_armed{false};

namespace {

struct State {
  std::mutex mu;
  FaultSpec spec;
  uint64_t seen = 0;
  uint64_t fired = 0;
};

State& Get() {
  static State s;
  return s;
}

bool Applies(const FaultSpec& f, FaultOp op) {
  const FaultKind kind = f.kind;
  if (f.allocate || op == FaultOp::kAllocate) {
    return f.allocate && op == FaultOp::kAllocate && kind == FaultKind::kNoSpace;
  }
  return op == FaultOp::kSync ? kind == FaultKind::kSyncError : kind != FaultKind::kSyncError;
}

}  // namespace

FaultKind Take(FaultOp op, const std::string& path) {
  State& s = Get();
  std::lock_guard<std::mutex> g(s.mu);
  const FaultSpec& f = s.spec;
  if (f.kind == FaultKind::kNone || !Applies(f, op)) return FaultKind::kNone;
  if (!f.path_contains.empty() && path.find(f.path_contains) == std::string::npos) {
    return FaultKind::kNone;
  }
  if (s.seen++ < f.skip) return FaultKind::kNone;
  if (!f.sticky && s.fired > 0) return FaultKind::kNone;
  ++s.fired;
  return f.kind;
}

}  // namespace fault_detail

void ArmFault(const FaultSpec& spec) {
  auto& s = fault_detail::Get();
  std::lock_guard<std::mutex> g(s.mu);
  s.spec = spec;
  s.seen = 0;
  s.fired = 0;
  fault_detail::g_armed.store(spec.kind != FaultKind::kNone, std::memory_order_relaxed);
}

void ClearFaults() { ArmFault(FaultSpec{}); }

uint64_t FaultsFired() {
  auto& s = fault_detail::Get();
  std::lock_guard<std::mutex> g(s.mu);
  return s.fired;
}

}  // namespace minnow
