#pragma once
// A transaction's in-memory undo list (until mvcc/ keeps undo in pages, issue #4): what to do,
// newest first, to take its changes back. Records are packed into one growing buffer, so
// logging a change allocates nothing once the buffer has grown:
//
//   kind:u8  keyspace_id:u32  key_len:u32  value_len:u32  key  value  record_len:u32
//
// record_len at the end lets Unwind() walk backwards. A savepoint is a buffer size: unwinding
// to it undoes exactly the changes logged after it (statement rollback).

#include <cstdint>
#include <string>
#include <string_view>

#include "minnow/status.h"

namespace minnow {

class UndoLog {
 public:
  enum class Kind : uint8_t {
    kInserted = 1,     // the key was absent: remove it
    kOverwritten = 2,  // the key had `value`: put it back (after an update or an erase)
    kBulkLoaded = 3,   // the keyspace was empty before a bulk build: empty it again
  };
  struct Entry {
    Kind kind;
    uint32_t keyspace_id;
    std::string_view key;
    std::string_view value;
  };

  void AddInserted(uint32_t keyspace_id, std::string_view key) {
    Add(Kind::kInserted, keyspace_id, key, {});
  }
  void AddOverwritten(uint32_t keyspace_id, std::string_view key, std::string_view old_value) {
    Add(Kind::kOverwritten, keyspace_id, key, old_value);
  }
  void AddBulkLoaded(uint32_t keyspace_id) { Add(Kind::kBulkLoaded, keyspace_id, {}, {}); }

  size_t savepoint() const { return buf_.size(); }
  bool empty() const { return buf_.empty(); }
  uint64_t records() const { return records_; }

  // Calls `apply(entry)` for each record logged after `savepoint`, newest first, and drops
  // them. Keeps going after a failure; returns the first non-OK status.
  template <typename F>
  Status UnwindTo(size_t savepoint, F&& apply);

  void Clear();  // commit: forget everything (keeps a small buffer for reuse)

 private:
  static constexpr size_t kHeader = 13, kTrailer = 4;
  void Add(Kind kind, uint32_t keyspace_id, std::string_view key, std::string_view value);
  Entry Decode(size_t begin) const;
  size_t RecordBegin(size_t end) const;  // start of the record that ends at `end`

  std::string buf_;
  uint64_t records_ = 0;
};

template <typename F>
Status UndoLog::UnwindTo(size_t savepoint, F&& apply) {
  Status first;
  while (buf_.size() > savepoint) {
    size_t begin = RecordBegin(buf_.size());
    Status st = apply(Decode(begin));
    if (!st.ok() && first.ok()) first = std::move(st);
    buf_.resize(begin);
    --records_;
  }
  return first;
}

}  // namespace minnow
