// Running a join's nested loops (join.h).

#include "sql_lite_front/execute/join.h"

namespace minnow::sql {
namespace {

bool PassesAll(const std::vector<BoundExpr>& conds, const Row& row, EvalState& st) {
  for (const BoundExpr& c : conds) {
    if (!EvalPredicate(c, row, st)) return false;
  }
  return true;
}

class JoinRun {
 public:
  JoinRun(ExecContext& ctx, const JoinPlan& plan, EvalState& st,
          const std::function<SqlResult<bool>(Row&)>& fn, std::vector<std::string>* refs)
      : ctx_(ctx), plan_(plan), st_(st), fn_(fn), refs_(refs), row_(plan.columns.size()) {
    if (refs_ != nullptr) refs_->assign(plan.steps.size(), std::string());
  }

  SqlResult<bool> Step(size_t k);

  Row& row() { return row_; }

 private:
  // The step's walk for the current row: its own plan, or a lookup's with this row's key.
  // False: no row can match (a key part NULL or one its column cannot hold).
  bool LookupPlan(const JoinStep& s, AccessPlan* plan);
  // With the step's table placed (or NULL-extended): its conditions, then the next step.
  SqlResult<bool> Placed(const JoinStep& s, size_t k);

  ExecContext& ctx_;
  const JoinPlan& plan_;
  EvalState& st_;
  const std::function<SqlResult<bool>(Row&)>& fn_;
  std::vector<std::string>* refs_;
  Row row_;
};

bool JoinRun::LookupPlan(const JoinStep& s, AccessPlan* plan) {
  *plan = s.plan;
  std::string key;
  for (const JoinStep::KeyPart& part : s.key) {
    if (part.constant.has_value()) {
      key += *part.constant;
      continue;
    }
    std::optional<std::string> enc = EncodeExact(*part.column, Eval(*part.value, row_, st_));
    if (!enc.has_value()) return false;
    key += *enc;
  }
  plan->ranges = {PrefixRange(key)};
  plan->ranges[0].equality = true;
  return true;
}

SqlResult<bool> JoinRun::Placed(const JoinStep& s, size_t k) {
  const bool passes = PassesAll(s.after, row_, st_);
  SQL_RETURN_IF_ERROR(EvalError(st_));
  if (!passes) return true;
  return Step(k + 1);
}

SqlResult<bool> JoinRun::Step(size_t k) {
  if (k == plan_.steps.size()) return fn_(row_);
  const JoinStep& s = plan_.steps[k];
  AccessPlan lookup;
  const AccessPlan* walk = &s.plan;
  bool any = !s.plan.empty;
  if (s.lookup && any) {
    any = LookupPlan(s, &lookup);
    SQL_RETURN_IF_ERROR(EvalError(st_));
    walk = &lookup;
  }
  bool matched = false, more = true;
  const size_t width = s.table->def.columns.size();
  if (any) {
    ScanSpec spec;
    spec.table = s.table.get();
    spec.plan = walk;
    spec.lock = s.lock;
    spec.wait = s.wait;
    spec.residual = &s.residual;
    // A row its ON or WHERE conditions turn down gives its locks back under READ COMMITTED
    // (MySQL unlocks the row of the table whose condition failed).
    bool rejected = false;
    spec.rejected = &rejected;
    SQL_RETURN_IF_ERROR(
        ScanPlan(ctx_, spec, st_, [&](Row& r, std::string_view ref) -> SqlResult<bool> {
          for (size_t c = 0; c < width; ++c) row_[s.first + c] = std::move(r[c]);
          if (refs_ != nullptr) (*refs_)[s.position].assign(ref);
          const bool on = PassesAll(s.on, row_, st_);
          SQL_RETURN_IF_ERROR(EvalError(st_));
          if (!on) {
            rejected = true;
            return true;
          }
          matched = true;
          const bool after = PassesAll(s.after, row_, st_);
          SQL_RETURN_IF_ERROR(EvalError(st_));
          if (!after) {
            rejected = true;
            return true;
          }
          SQL_ASSIGN_OR_RETURN(more, Step(k + 1));
          return more;
        }));
  }
  if (!more) return false;
  if (s.outer && !matched) {
    for (size_t c = 0; c < width; ++c) row_[s.first + c] = Value::Null();
    if (refs_ != nullptr) (*refs_)[s.position].clear();
    return Placed(s, k);
  }
  return true;
}

}  // namespace

SqlStatus RunJoin(ExecContext& ctx, const JoinPlan& plan, EvalState& st,
                  const std::function<SqlResult<bool>(Row&)>& fn, std::vector<std::string>* refs) {
  JoinRun run(ctx, plan, st, fn, refs);
  return run.Step(0).status();
}

}  // namespace minnow::sql
