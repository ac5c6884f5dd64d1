// Sessions as other threads see them, and the engine's locks in MySQL's words.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/status/status_views_internal.h"

namespace minnow::sql {

namespace {

std::string Hex(std::string_view bytes) {
  std::string out = "0x";
  for (char c : bytes) out += fmt::format("{:02X}", static_cast<unsigned char>(c));
  return out;
}

// A value inside LOCK_DATA: numbers as digits, strings and dates quoted ('it\'s',
// '2024-01-05').
std::string LockDataValue(const ColumnDef& col, const Value& v) {
  if (v.is_null()) return "NULL";
  if (v.is_int()) {
    if (col.is_unsigned) return std::to_string(static_cast<uint64_t>(v.as_int()));
    return std::to_string(v.as_int());
  }
  if (v.is_double() || v.is_decimal()) return v.ToString();
  if (v.is_temporal()) return "'" + v.ToString() + "'";
  std::string out = "'";
  for (char c : v.as_string()) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// A key of a keyspace no table owns: quoted if printable, else hex.
std::string RawKey(std::string_view key) {
  const bool printable = std::all_of(key.begin(), key.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
  });
  if (!printable) return Hex(key);
  ColumnDef text;
  text.type = ColumnType::kVarchar;
  return LockDataValue(text, Value::String(std::string(key)));
}

// The columns of `key` in the order they are encoded: the index's (or the primary key's), then
// for a secondary index the primary key columns it lacks, or the hidden row id.
SqlResult<std::string> DecodeForLockData(const TableDef& def, const IndexDef* index,
                                         std::string_view key) {
  std::vector<uint32_t> cols;
  if (index != nullptr) cols = index->columns;
  for (uint32_t c : def.primary_key) {
    if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
  }
  std::string out;
  size_t pos = 0;
  for (uint32_t c : cols) {
    const size_t start = pos;
    SQL_ASSIGN_OR_RETURN(Value v, DecodeKeyColumn(def.columns[c], key, &pos));
    if (!out.empty()) out += ", ";
    const bool flag = def.columns[c].nullable;
    if (KeyIsWeights(def.columns[c]) && !(flag && key[start] == '\0')) {
      // The record holds the collation's weights, not the text.
      out += Hex(key.substr(start + (flag ? 1 : 0), pos - start - (flag ? 1 : 0)));
    } else {
      // A PAD SPACE text prints as its key holds it, without trailing spaces: the record's
      // text (beside the key, row_codec.h) is not at hand.
      out += LockDataValue(def.columns[c], v);
    }
  }
  if (def.has_hidden_primary_key()) {
    if (key.size() - pos != kRowIdBytes) return SqlErr(kErUnknownError, "bad row id");
    if (!out.empty()) out += ", ";
    out += Hex(key.substr(pos));  // MySQL prints DB_ROW_ID as 0x000000000201
    pos = key.size();
  }
  if (pos != key.size()) return SqlErr(kErUnknownError, "trailing key bytes");
  return out;
}

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::vector<SessionSnapshot> SnapshotSessions(const ExecContext& ctx) {
  std::vector<SessionSnapshot> out;
  const auto now = std::chrono::steady_clock::now();
  LatchGuard g(ctx.engine->sessions_latch);
  for (const SessionState* s : ctx.engine->sessions) {
    SessionSnapshot snap;
    snap.id = s->id;
    {
      LatchGuard t(s->txn_latch);
      if (s->txn != nullptr) snap.trx_id = s->txn->id();
      if (s->txn != nullptr) snap.mdl_owner = s->txn->metadata_lock_owner();
      if (s->ddl_txn != nullptr) snap.ddl_mdl_owner = s->ddl_txn->metadata_lock_owner();
      snap.metadata_lock_wait = (s->txn != nullptr && s->txn->waiting_for_metadata_lock()) ||
                                (s->ddl_txn != nullptr && s->ddl_txn->waiting_for_metadata_lock());
    }
    snap.table_lock_wait = s->kv_session != nullptr && s->kv_session->waiting_for_table_lock();
    {
      LatchGuard q(s->query_latch);
      const bool started = s->query_start != std::chrono::steady_clock::time_point();
      const double since =
          started ? std::chrono::duration<double>(now - s->query_start).count() : 0;
      snap.database = s->database;
      if (!s->query.empty()) {
        snap.query = s->query;
        snap.query_seconds = since;
        snap.stage = ReadStage(s->stage);
      } else {
        snap.idle_seconds = since;
      }
    }
    out.push_back(std::move(snap));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

const SessionSnapshot* SessionOfMdlOwner(const std::vector<SessionSnapshot>& sessions,
                                         uint64_t owner) {
  for (const SessionSnapshot& s : sessions) {
    if (s.mdl_owner == owner || s.ddl_mdl_owner == owner) return &s;
  }
  return nullptr;
}

const SessionSnapshot* SessionOfTrx(const std::vector<SessionSnapshot>& sessions, uint64_t trx_id) {
  if (trx_id == 0) return nullptr;
  for (const SessionSnapshot& s : sessions) {
    if (s.trx_id == trx_id) return &s;
  }
  return nullptr;
}

int64_t UnixNow() { return UnixSeconds(std::chrono::system_clock::now()); }

int64_t UnixSeconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

std::string FormatLocalTime(int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

const LockDescriber::KeyspaceInfo& LockDescriber::Describe(const std::string& keyspace) {
  auto it = keyspaces_.find(keyspace);
  if (it != keyspaces_.end()) return it->second;
  KeyspaceInfo info;
  if (ctx_.catalog != nullptr &&
      ctx_.catalog->DescribeKeyspace(keyspace, &info.table, &info.index)) {
    info.has_table = true;
    info.open = ctx_.catalog->Find(info.table);
  }
  return keyspaces_.emplace(keyspace, std::move(info)).first->second;
}

std::string LockDescriber::TableName(const DataLock& l) {
  const KeyspaceInfo& info = Describe(l.keyspace);
  return info.has_table ? info.table.name : l.keyspace;
}

std::string LockDescriber::SchemaName(const DataLock& l) {
  const KeyspaceInfo& info = Describe(l.keyspace);
  return info.has_table ? info.table.schema : kDefaultDatabase;
}

std::optional<std::string> LockDescriber::IndexName(const DataLock& l) {
  if (l.is_table) return std::nullopt;
  const KeyspaceInfo& info = Describe(l.keyspace);
  return info.has_table ? info.index : "PRIMARY";  // a bare keyspace is one clustered tree
}

std::optional<std::string> LockDescriber::LockData(const DataLock& l) {
  if (l.is_table) return std::nullopt;
  if (l.supremum) return "supremum pseudo-record";
  const KeyspaceInfo& info = Describe(l.keyspace);
  if (!info.has_table || info.open == nullptr) return RawKey(l.key);
  const TableDef& def = info.open->def;
  const IndexDef* index = nullptr;
  if (info.index != "PRIMARY" && info.index != "GEN_CLUST_INDEX") {
    const int i = def.FindIndex(info.index);
    if (i >= 0) index = &def.indexes[static_cast<size_t>(i)];
  }
  SqlResult<std::string> decoded = DecodeForLockData(def, index, l.key);
  if (decoded.ok()) return std::move(decoded).value();
  // The record moved before its key was read (db.h's DataLocks: the key may be gone).
  if (l.key.empty()) return std::nullopt;
  return Hex(l.key);
}

uint32_t LockDescriber::KeyspaceId(const std::string& keyspace) {
  auto it = keyspace_ids_.find(keyspace);
  if (it != keyspace_ids_.end()) return it->second;
  uint32_t id = 0;
  if (ctx_.db != nullptr) {
    Result<Keyspace> ks = ctx_.db->OpenKeyspace(keyspace);
    if (ks.ok()) id = ks->id();
  }
  keyspace_ids_.emplace(keyspace, id);
  return id;
}

uint64_t LockDescriber::LockStructId(const DataLock& l) {
  const std::string who = fmt::format("{}:{}:{}:{}:{}", l.trx_id, l.keyspace,
                                      l.is_table ? 0 : l.page_no, l.lock_mode, l.waiting);
  // Shaped like a user-space address, as InnoDB's lock pointers print.
  return 0x7f0000000000ull | (Fnv1a(who) & 0xffffffffffull);
}

std::string LockDescriber::EngineLockId(const DataLock& l) {
  if (l.is_table) {
    return fmt::format("{}:{}:{}", l.trx_id, KeyspaceId(l.keyspace), LockStructId(l));
  }
  return fmt::format("{}:0:{}:{}:{}", l.trx_id, l.page_no, l.heap_no, LockStructId(l));
}

std::string LockDescriber::MonitorLine(const DataLock& l) {
  const std::string table = fmt::format("`{}`.`{}`", SchemaName(l), TableName(l));
  std::string_view mode = l.lock_mode;
  const size_t comma = mode.find(',');
  const std::string_view base = mode.substr(0, comma);
  const std::string_view kind =
      comma == std::string_view::npos ? std::string_view() : mode.substr(comma + 1);
  std::string line;
  if (l.is_table) {
    line = fmt::format("TABLE LOCK table {} trx id {} lock mode {}", table, l.trx_id, base);
  } else {
    // InnoDB's lock_rec_print: "lock mode S" but "lock_mode X".
    line = fmt::format(
        "RECORD LOCKS space id 0 page no {} n bits 0 index `{}` of table {} trx id {} "
        "lock{}{}",
        l.page_no, IndexName(l).value_or(""), table, l.trx_id, base == "X" ? "_mode " : " mode ",
        base);
    if (kind == "GAP") line += " locks gap before rec";
    if (kind == "REC_NOT_GAP") line += " locks rec but not gap";
    if (kind.find("INSERT_INTENTION") != std::string_view::npos) {
      line += " locks gap before rec insert intention";
    }
  }
  if (l.waiting) line += " waiting";
  return line;
}

}  // namespace minnow::sql
