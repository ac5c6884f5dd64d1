#include <cstring>

#include "common/check.h"
#include "engine/undo_log_internal.h"

namespace minnow {
namespace {

void Put32(std::string* buf, size_t at, uint32_t v) { std::memcpy(buf->data() + at, &v, 4); }
uint32_t Get32(const std::string& buf, size_t at) {
  uint32_t v;
  std::memcpy(&v, buf.data() + at, 4);
  return v;
}

}  // namespace

void UndoLog::Add(Kind kind, uint32_t keyspace_id, std::string_view key, std::string_view value) {
  const size_t at = buf_.size();
  const size_t len = kHeader + key.size() + value.size() + kTrailer;
  MINNOW_CHECK(len <= UINT32_MAX, "undo record of {} bytes", len);
  buf_.resize(at + len);
  buf_[at] = static_cast<char>(kind);
  Put32(&buf_, at + 1, keyspace_id);
  Put32(&buf_, at + 5, static_cast<uint32_t>(key.size()));
  Put32(&buf_, at + 9, static_cast<uint32_t>(value.size()));
  if (!key.empty()) std::memcpy(buf_.data() + at + kHeader, key.data(), key.size());
  if (!value.empty()) {
    std::memcpy(buf_.data() + at + kHeader + key.size(), value.data(), value.size());
  }
  Put32(&buf_, at + len - kTrailer, static_cast<uint32_t>(len));
  ++records_;
}

size_t UndoLog::RecordBegin(size_t end) const {
  const uint32_t len = Get32(buf_, end - kTrailer);
  MINNOW_DCHECK(len >= kHeader + kTrailer && len <= end, "bad undo record length {}", len);
  return end - len;
}

UndoLog::Entry UndoLog::Decode(size_t begin) const {
  Entry e;
  e.kind = static_cast<Kind>(buf_[begin]);
  e.keyspace_id = Get32(buf_, begin + 1);
  const uint32_t key_len = Get32(buf_, begin + 5);
  const uint32_t value_len = Get32(buf_, begin + 9);
  e.key = std::string_view(buf_.data() + begin + kHeader, key_len);
  e.value = std::string_view(buf_.data() + begin + kHeader + key_len, value_len);
  return e;
}

void UndoLog::Clear() {
  buf_.clear();
  if (buf_.capacity() > (1u << 20)) buf_.shrink_to_fit();  // don't pin a huge load's buffer
  records_ = 0;
}

}  // namespace minnow
