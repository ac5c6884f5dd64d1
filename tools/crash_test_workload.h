#pragma once
// Pieces of tools/crash_test that its parent and child processes share: the database settings,
// the keys and values of the workload, the side file the child writes, the model the parent
// replays from it, and the check of a recovered database against that model.
//
// Side file (DIR/side.log), one text line per record, each ending in " #<fnv1a64 of the text
// before it, 16 hex digits>\n":
//
//   P <txn> <nops> <op>...   before Commit: the transaction's operations, in order; an op is
//                            "p<key>:<len>" (Put of a value of that length) or "e<key>" (Erase)
//   A <txn>                  Commit returned OK
//   R <txn>                  the transaction was rolled back (for diagnosis only)
//
// The child write()s each record in one call without fsync: a SIGKILL leaves the page cache
// alone, so only the last record can be torn, and its checksum tells. A value's bytes are a
// function of (child seed, txn, op index, length), so the side file never carries them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/db.h"
#include "minnow/options.h"
#include "minnow/status.h"

namespace minnow::crash_test {

inline constexpr std::string_view kKeyspaceName = "crash";

std::string DatabasePath(const std::string& dir);
std::string SidePath(const std::string& dir);

// Small settings so that a short run evicts pages, switches and trims log segments and
// checkpoints often. `policy` is flush_log_at_trx_commit.
Options DatabaseOptions(const std::string& dir, int policy);

// Key `index`: "k" + 6 digits + (index % 23) filler bytes. Keys sort as their indexes do.
std::string KeyName(uint32_t index);
// The index of a key made by KeyName, if it is one below `keys`.
std::optional<uint32_t> KeyIndex(std::string_view key, uint32_t keys);

// Who wrote a value: the child (its seed, and for messages the kill number), the transaction
// and the op index inside it, and the value's length.
struct ValueRef {
  uint64_t seed = 0;
  uint32_t kill = 0;
  uint32_t txn = 0;
  uint32_t op = 0;
  uint32_t len = 0;
};

// The value's bytes: a header "s<seed hex>.t<txn>.o<op>|" (cut to `len`), then pseudo-random
// bytes. Deterministic.
std::string MakeValue(const ValueRef& ref);
// "1234 bytes written by s1f.t17.o3" (from the header of the bytes), for failure messages.
std::string DescribeValue(std::string_view bytes);
struct ValueHeader {
  uint64_t seed = 0;
  uint32_t txn = 0, op = 0;
};
std::optional<ValueHeader> ParseValueHeader(std::string_view bytes);

struct Op {
  bool put = true;
  uint32_t key = 0;
  uint32_t len = 0;  // Put only
};

struct TxnOps {
  uint32_t txn = 0;
  std::vector<Op> ops;
};

std::string EncodePending(const TxnOps& t);
std::string EncodeAcked(uint32_t txn);
std::string EncodeRolledBack(uint32_t txn);

// What a child's side file says.
struct SideLog {
  std::vector<TxnOps> acked;      // in commit order
  std::optional<TxnOps> pending;  // the commit begun last and not acknowledged, if any
  std::vector<uint32_t> rolled_back;
  bool torn_tail = false;  // the last record was cut by the kill
  uint64_t bytes = 0;
};
// kCorruption if a bad record is followed by more (the child only ever appends) or a record
// breaks the protocol (an A without its P, a key index >= `keys`, ...).
Result<SideLog> ReadSideLog(const std::string& path, uint32_t keys);

// The expected content: for each key index, the value written by the last acknowledged write,
// or nothing.
class Model {
 public:
  explicit Model(uint32_t keys) : values_(keys) {}
  void Apply(uint64_t seed, uint32_t kill, const TxnOps& t);
  const std::optional<ValueRef>& at(uint32_t key) const { return values_[key]; }
  uint32_t keys() const { return static_cast<uint32_t>(values_.size()); }
  uint64_t live() const;

 private:
  std::vector<std::optional<ValueRef>> values_;
};

// The verdict on one recovered database.
struct Verdict {
  bool ok = false;
  bool pending_present = false;  // the pending transaction is in the database (fully)
  uint64_t records = 0;
  std::string failure;  // when !ok: what differs, first differing key first
};

// Reads keyspace kKeyspaceName of `db` in full and compares it with `model` (every
// acknowledged transaction applied), allowing `side.pending` (written by the child of seed
// `seed`, kill `kill`) to be present in full or absent in full. Runs CheckIntegrity first.
Verdict VerifyDatabase(Database& db, const Model& model, const SideLog& side, uint64_t seed,
                       uint32_t kill);

// The child process: runs transactions on DIR's database forever, logging them to the side
// file. Returns (non-zero) only on an error, after printing it.
int RunChild(const std::string& dir, uint64_t seed, int policy, uint32_t keys);

}  // namespace minnow::crash_test
