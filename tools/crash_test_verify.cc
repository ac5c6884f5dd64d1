// The crash test's check of a recovered database: integrity, then the content against the model
// (every acknowledged transaction, the pending one in full or not at all).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "tools/crash_test_workload.h"

namespace minnow::crash_test {
namespace {

using Content = std::vector<std::optional<std::string>>;

bool Matches(const std::optional<std::string>& got, const std::optional<ValueRef>& want) {
  if (!got.has_value() || !want.has_value()) return got.has_value() == want.has_value();
  return got->size() == want->len && *got == MakeValue(*want);
}

// Reads the whole keyspace into `content` (by key index).
Status ReadContent(Database& db, uint32_t keys, Content* content, uint64_t* records) {
  ASSIGN_OR_RETURN(Keyspace ks, db.OpenKeyspace(kKeyspaceName));
  ASSIGN_OR_RETURN(auto session, db.NewSession());
  ASSIGN_OR_RETURN(auto txn, session->Begin());
  ASSIGN_OR_RETURN(auto it, txn->NewIterator(ks));
  content->assign(keys, std::nullopt);
  RETURN_IF_ERROR(it->SeekToFirst());
  while (it->Valid()) {
    const auto index = KeyIndex(it->key(), keys);
    if (!index.has_value()) {
      return Status::Corruption(fmt::format("a key the workload never writes: '{}' ({} bytes)",
                                            it->key().substr(0, 64), it->key().size()));
    }
    ASSIGN_OR_RETURN(std::string_view value, it->value());
    (*content)[*index] = std::string(value);
    ++*records;
    RETURN_IF_ERROR(it->Next());
  }
  it.reset();
  return txn->Commit();
}

std::string DescribeWant(const std::optional<ValueRef>& want, const char* what) {
  if (!want.has_value()) return "absent";
  return fmt::format("{} bytes of txn {} op {} of kill {} ({})", want->len, want->txn, want->op,
                     want->kill, what);
}

std::string DescribeGot(const std::optional<std::string>& got, const SideLog& side, uint64_t seed) {
  if (!got.has_value()) return "absent";
  std::string d = DescribeValue(*got);
  const auto h = ParseValueHeader(*got);
  if (!h.has_value() || h->seed != seed) return d;
  const auto& rb = side.rolled_back;
  if (std::find(rb.begin(), rb.end(), h->txn) != rb.end()) {
    d += " = a ROLLED-BACK transaction of this kill";
  } else if (side.pending.has_value() && h->txn == side.pending->txn) {
    d += " = the pending transaction";
  } else if (side.acked.empty() || h->txn > side.acked.back().txn) {
    d += " = a transaction of this kill that never reached Commit";
  }
  return d;
}

}  // namespace

Verdict VerifyDatabase(Database& db, const Model& model, const SideLog& side, uint64_t seed,
                       uint32_t kill) {
  Verdict v;
  Status st = db.CheckIntegrity();
  if (!st.ok()) {
    v.failure = "CheckIntegrity: " + st.ToString();
    return v;
  }
  Content got;
  st = ReadContent(db, model.keys(), &got, &v.records);
  if (!st.ok()) {
    v.failure = "reading the keyspace: " + st.ToString();
    return v;
  }
  // The pending transaction's own view of the keys it writes.
  std::map<uint32_t, std::optional<ValueRef>> pending;
  if (side.pending.has_value()) {
    const TxnOps& t = *side.pending;
    for (uint32_t i = 0; i < t.ops.size(); ++i) {
      const Op& op = t.ops[i];
      pending[op.key] = op.put
                            ? std::optional<ValueRef>(ValueRef{
                                  .seed = seed, .kill = kill, .txn = t.txn, .op = i, .len = op.len})
                            : std::nullopt;
    }
  }
  std::vector<uint32_t> diff_acked;  // keys that differ from the acknowledged model
  for (uint32_t k = 0; k < model.keys(); ++k) {
    if (!Matches(got[k], model.at(k))) diff_acked.push_back(k);
  }
  if (diff_acked.empty()) {
    v.ok = true;
    return v;
  }
  uint32_t pending_changes = 0, pending_applied = 0;
  bool all_pending = true;  // every difference is a key the pending transaction writes
  for (const auto& [k, want] : pending) {
    const bool changes =
        !Matches(want.has_value() ? std::optional<std::string>(MakeValue(*want)) : std::nullopt,
                 model.at(k));
    pending_changes += changes;
    pending_applied += changes && Matches(got[k], want);
  }
  std::vector<uint32_t> diff_with_pending;
  for (const uint32_t k : diff_acked) {
    const auto p = pending.find(k);
    if (p == pending.end()) all_pending = false;
    if (!Matches(got[k], p == pending.end() ? model.at(k) : p->second)) {
      diff_with_pending.push_back(k);
    }
  }
  if (all_pending && diff_with_pending.empty()) {
    v.ok = true;
    v.pending_present = true;
    return v;
  }
  std::string what;
  if (all_pending) {
    what = fmt::format("a PARTIAL transaction: pending txn {} shows {} of the {} changes it makes",
                       side.pending->txn, pending_applied, pending_changes);
  } else {
    what = fmt::format("{} keys differ from the acknowledged model ({} with the pending txn)",
                       diff_acked.size(), diff_with_pending.size());
  }
  v.failure = what;
  for (size_t i = 0; i < std::min<size_t>(diff_acked.size(), 5); ++i) {
    const uint32_t k = diff_acked[i];
    v.failure += fmt::format("\n  {} key '{}': expected {}; found {}", i == 0 ? "first" : "then ",
                             KeyName(k), DescribeWant(model.at(k), "acked"),
                             DescribeGot(got[k], side, seed));
    const auto p = pending.find(k);
    if (p != pending.end()) {
      v.failure +=
          fmt::format(" (the pending txn would make it {})", DescribeWant(p->second, "pending"));
    }
  }
  return v;
}

}  // namespace minnow::crash_test
