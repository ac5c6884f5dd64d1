#pragma once
// Shared helpers for the undo log tests: a small buffer pool over a MemoryDisk with a redo log
// that keeps every group (so a test can "crash" and replay it into a fresh pool), an
// UndoStore on it, and record makers.

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "buffer_pool/buffer_pool.h"
#include "buffer_pool/memory_disk.h"
#include "buffer_pool/memory_redo_log.h"
#include "mvcc/undo_store.h"

namespace minnow::testing {

inline BufferPoolOptions UndoPoolOptions(size_t frames) {
  BufferPoolOptions o;
  o.pool_bytes = frames * kPageSize;
  o.background_flusher = false;
  o.old_blocks_time_ms = 0;
  o.log_capacity_bytes = 1u << 30;  // no checkpoints: the log is replayed from LSN 0
  return o;
}

class UndoFixture {
 public:
  explicit UndoFixture(size_t frames = 256) : frames_(frames), disk_(NewMemoryDisk("undo_test")) {
    log_ = std::make_unique<MemoryRedoLog>();
    log_->SetRetainAll(true);
    auto p = BufferPool::Open(NewMemoryBackend(disk_), UndoPoolOptions(frames), log_.get());
    REQUIRE(p.ok());
    pool_ = std::move(p).value();
    OpenStore();
  }
  ~UndoFixture() {
    store_.reset();
    if (pool_) (void)pool_->Close();
  }

  void OpenStore() {
    auto s = UndoStore::Open(pool_.get());
    INFO(s.status().ToString());
    REQUIRE(s.ok());
    store_ = std::move(s).value();
  }

  // Drops the pool without writing anything back, then replays the redo log (the groups
  // that end at or before `up_to`) onto the file as it was on "disk" (recovery mode), and
  // reopens the store. REQUIRES for a partial replay: no page written since `up_to` (a pool
  // large enough never to evict).
  void CrashAndRecover(Lsn up_to = ~Lsn{0}) {
    store_.reset();
    std::vector<std::pair<Lsn, std::string>> groups;
    REQUIRE(log_->ForEach([&](Lsn end, ConstBytes rec) {
                  groups.emplace_back(end, std::string(AsStringView(rec)));
                  return Status::OK();
                })
                .ok());
    const Lsn end_lsn = std::min(up_to, log_->current_lsn());
    std::vector<std::byte> image = disk_->Snapshot();
    pool_.reset();  // no flush
    disk_ = NewMemoryDisk("undo_test");
    disk_->Restore(std::move(image));
    log_ = std::make_unique<MemoryRedoLog>(end_lsn);
    log_->SetRetainAll(true);
    BufferPoolOptions o = UndoPoolOptions(frames_);
    o.recovery = true;
    auto p = BufferPool::Open(NewMemoryBackend(disk_), o, log_.get());
    INFO(p.status().ToString());
    REQUIRE(p.ok());
    pool_ = std::move(p).value();
    for (const auto& [end, rec] : groups) {
      if (end > up_to) break;
      auto n = pool_->ApplyLogRecords(AsBytes(rec), end - rec.size(), end);
      INFO(n.status().ToString());
      REQUIRE(n.ok());
    }
    Status end = pool_->EndRecovery();
    INFO(end.ToString());
    REQUIRE(end.ok());
    REQUIRE(pool_->FlushAll().ok());  // the end checkpoint: the next crash replays from here
    OpenStore();
  }

  BufferPool* pool() { return pool_.get(); }
  UndoStore* store() { return store_.get(); }
  MemoryRedoLog* log() { return log_.get(); }

 private:
  size_t frames_;
  std::shared_ptr<MemoryDisk> disk_;
  std::unique_ptr<MemoryRedoLog> log_;
  std::unique_ptr<BufferPool> pool_;
  std::unique_ptr<UndoStore> store_;
};

// Backing storage for a record's spans.
struct RecordData {
  std::string key;
  std::string old_value;
};

// An update record of table 7 for key "k<i>" with an old value of `value_len` bytes
// (deterministic in i).
inline UndoRecord UpdateRecord(uint64_t i, size_t value_len, RecordData* d) {
  d->key = "k" + std::to_string(i);
  d->old_value.assign(value_len, static_cast<char>('a' + i % 26));
  for (size_t j = 0; j < value_len; j += 997) d->old_value[j] = static_cast<char>(i * 31 + j);
  UndoRecord r;
  r.type = UndoType::kUpdate;
  r.table_id = 7;
  r.key = AsBytes(d->key);
  r.old_trx_id = 1000 + i;
  r.old_roll_ptr = i * 3;
  r.old_delete_marked = i % 2 == 0;
  r.old_value = AsBytes(d->old_value);
  return r;
}

inline UndoRecord InsertRecord(uint64_t i, RecordData* d) {
  d->key = "i" + std::to_string(i);
  UndoRecord r;
  r.type = UndoType::kInsert;
  r.table_id = 9;
  r.key = AsBytes(d->key);
  return r;
}

inline std::string S(ConstBytes b) { return std::string(AsStringView(b)); }

}  // namespace minnow::testing
