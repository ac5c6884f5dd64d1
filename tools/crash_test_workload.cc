#include "tools/crash_test_workload.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace minnow::crash_test {
namespace {

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 14695981039346656037ull;
  for (const char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t SplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string Seal(std::string body) {
  body += fmt::format(" #{:016x}\n", Fnv1a(body));
  return body;
}

template <typename T>
bool ParseNumber(std::string_view s, T* out, int base = 10) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), *out, base);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::vector<std::string_view> Split(std::string_view s) {
  std::vector<std::string_view> words;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t end = std::min(s.find(' ', pos), s.size());
    if (end > pos) words.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return words;
}

bool ParseOp(std::string_view w, Op* op) {
  if (w.size() < 2) return false;
  if (w[0] == 'e') {
    op->put = false;
    return ParseNumber(w.substr(1), &op->key);
  }
  const size_t colon = w.find(':');
  if (w[0] != 'p' || colon == std::string_view::npos) return false;
  op->put = true;
  return ParseNumber(w.substr(1, colon - 1), &op->key) &&
         ParseNumber(w.substr(colon + 1), &op->len);
}

// One record's body (checksum verified and removed) into `log`. False if it makes no sense.
bool ApplyRecord(std::string_view body, uint32_t keys, SideLog* log) {
  const std::vector<std::string_view> w = Split(body);
  uint32_t txn = 0;
  if (w.size() < 2 || !ParseNumber(w[1], &txn)) return false;
  if (w[0] == "P") {
    uint32_t n = 0;
    if (log->pending.has_value() || w.size() < 3 || !ParseNumber(w[2], &n) || w.size() != 3 + n) {
      return false;
    }
    TxnOps t{.txn = txn, .ops = std::vector<Op>(n)};
    for (uint32_t i = 0; i < n; ++i) {
      if (!ParseOp(w[3 + i], &t.ops[i]) || t.ops[i].key >= keys) return false;
    }
    log->pending = std::move(t);
    return true;
  }
  if (w.size() != 2) return false;
  if (w[0] == "A") {
    if (!log->pending.has_value() || log->pending->txn != txn) return false;
    log->acked.push_back(std::move(*log->pending));
    log->pending.reset();
    return true;
  }
  if (w[0] == "R") {
    log->rolled_back.push_back(txn);
    return true;
  }
  return false;
}

}  // namespace

std::string DatabasePath(const std::string& dir) { return dir + "/db.minnow"; }
std::string SidePath(const std::string& dir) { return dir + "/side.log"; }

Options DatabaseOptions(const std::string& dir, int policy) {
  Options o;
  o.path = DatabasePath(dir);
  o.buffer_pool_bytes = 2u << 20;   // 128 frames: pages are evicted and written back all along
  o.log_file_bytes = 256u << 10;    // segments switch and are trimmed
  o.log_capacity_bytes = 1u << 20;  // a checkpoint every MiB of log
  o.flush_log_at_trx_commit = static_cast<uint8_t>(policy);
  o.log_flush_interval_ms = 50;  // policy 2's background sync runs often
  o.lock_wait_timeout_ms = 5'000;
  return o;
}

std::string KeyName(uint32_t index) {
  std::string key = fmt::format("k{:06d}", index);
  key.append(index % 23, static_cast<char>('a' + index % 26));
  return key;
}

std::optional<uint32_t> KeyIndex(std::string_view key, uint32_t keys) {
  uint32_t index = 0;
  if (key.size() < 7 || key[0] != 'k' || !ParseNumber(key.substr(1, 6), &index)) {
    return std::nullopt;
  }
  if (index >= keys || KeyName(index) != key) return std::nullopt;
  return index;
}

std::string MakeValue(const ValueRef& ref) {
  std::string v(ref.len, '\0');
  const std::string header = fmt::format("s{:x}.t{}.o{}|", ref.seed, ref.txn, ref.op);
  const size_t h = std::min(header.size(), v.size());
  std::memcpy(v.data(), header.data(), h);
  uint64_t state =
      ref.seed ^ (uint64_t{ref.txn} << 24) ^ (uint64_t{ref.op} * 0x2545f4914f6cdd1dull);
  for (size_t i = h; i < v.size(); i += 8) {
    const uint64_t r = SplitMix(&state);
    std::memcpy(v.data() + i, &r, std::min<size_t>(8, v.size() - i));
  }
  return v;
}

std::optional<ValueHeader> ParseValueHeader(std::string_view bytes) {
  const size_t bar = bytes.substr(0, 48).find('|');
  if (bytes.empty() || bytes[0] != 's' || bar == std::string_view::npos) return std::nullopt;
  const std::string_view h = bytes.substr(1, bar - 1);
  const size_t t = h.find(".t"), o = h.find(".o");
  ValueHeader out;
  if (t == std::string_view::npos || o == std::string_view::npos || o < t ||
      !ParseNumber(h.substr(0, t), &out.seed, 16) ||
      !ParseNumber(h.substr(t + 2, o - t - 2), &out.txn) ||
      !ParseNumber(h.substr(o + 2), &out.op)) {
    return std::nullopt;
  }
  return out;
}

std::string DescribeValue(std::string_view bytes) {
  const auto h = ParseValueHeader(bytes);
  if (!h.has_value()) return fmt::format("{} bytes (header cut or absent)", bytes.size());
  return fmt::format("{} bytes written by seed {:x} txn {} op {}", bytes.size(), h->seed, h->txn,
                     h->op);
}

std::string EncodePending(const TxnOps& t) {
  std::string body = fmt::format("P {} {}", t.txn, t.ops.size());
  for (const Op& op : t.ops) {
    body += op.put ? fmt::format(" p{}:{}", op.key, op.len) : fmt::format(" e{}", op.key);
  }
  return Seal(std::move(body));
}

std::string EncodeAcked(uint32_t txn) { return Seal(fmt::format("A {}", txn)); }
std::string EncodeRolledBack(uint32_t txn) { return Seal(fmt::format("R {}", txn)); }

Result<SideLog> ReadSideLog(const std::string& path, uint32_t keys) {
  SideLog log;
  std::ifstream in(path, std::ios::binary);
  if (!in) return log;  // the child died before creating it
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  log.bytes = data.size();
  size_t pos = 0;
  while (pos < data.size()) {
    const size_t nl = data.find('\n', pos);
    const std::string_view line =
        std::string_view(data).substr(pos, (nl == std::string::npos ? data.size() : nl) - pos);
    const size_t mark = line.rfind(" #");
    uint64_t sum = 0;
    const bool sealed = nl != std::string::npos && mark != std::string_view::npos &&
                        ParseNumber(line.substr(mark + 2), &sum, 16) &&
                        sum == Fnv1a(line.substr(0, mark));
    if (!sealed) {
      if (nl != std::string::npos && nl + 1 < data.size()) {
        return Status::Corruption(
            fmt::format("{}: bad record at byte {} is not the last", path, pos));
      }
      log.torn_tail = true;
      break;
    }
    if (!ApplyRecord(line.substr(0, mark), keys, &log)) {
      return Status::Corruption(
          fmt::format("{}: record at byte {} breaks the protocol: {}", path, pos, line));
    }
    pos = nl + 1;
  }
  return log;
}

void Model::Apply(uint64_t seed, uint32_t kill, const TxnOps& t) {
  for (uint32_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.ops[i];
    if (op.put) {
      values_[op.key] = ValueRef{.seed = seed, .kill = kill, .txn = t.txn, .op = i, .len = op.len};
    } else {
      values_[op.key].reset();
    }
  }
}

uint64_t Model::live() const {
  uint64_t n = 0;
  for (const auto& v : values_) n += v.has_value();
  return n;
}

}  // namespace minnow::crash_test
