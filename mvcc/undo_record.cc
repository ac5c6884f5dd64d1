// Undo record encoding (undo_record.h has the format).

#include "mvcc/undo_record.h"

#include <fmt/format.h>

#include <cstring>

namespace minnow {

namespace {

constexpr size_t kFixedSize = 1 + 8 + 4 + 4;     // type, undo_no, table_id, key_len
constexpr size_t kOldFixedSize = 6 + 7 + 1 + 4;  // old_trx_id, old_roll_ptr, flags, value_len

bool HasOldVersion(UndoType t) { return t == UndoType::kUpdate || t == UndoType::kDeleteMark; }

std::byte* PutLE(std::byte* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<std::byte>(v >> (8 * i));
  return out + bytes;
}

uint64_t GetLE(const std::byte* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | std::to_integer<uint8_t>(p[i]);
  return v;
}

std::byte* PutBytes(std::byte* out, ConstBytes b) {
  if (!b.empty()) std::memcpy(out, b.data(), b.size());
  return out + b.size();
}

}  // namespace

size_t UndoRecordSize(const UndoRecord& r) {
  return kFixedSize + r.key.size() +
         (HasOldVersion(r.type) ? kOldFixedSize + r.old_value.size() : 0);
}

void EncodeUndoRecordTo(const UndoRecord& r, std::byte* out) {
  *out++ = static_cast<std::byte>(r.type);
  out = PutLE(out, r.undo_no, 8);
  out = PutLE(out, r.table_id, 4);
  out = PutLE(out, r.key.size(), 4);
  out = PutBytes(out, r.key);
  if (!HasOldVersion(r.type)) return;
  out = PutLE(out, r.old_trx_id, 6);
  out = PutLE(out, r.old_roll_ptr, 7);
  *out++ = std::byte{static_cast<uint8_t>(r.old_delete_marked ? 1 : 0)};
  out = PutLE(out, r.old_value.size(), 4);
  PutBytes(out, r.old_value);
}

void EncodeUndoRecord(const UndoRecord& r, std::string* out) {
  const size_t at = out->size();
  out->resize(at + UndoRecordSize(r));
  EncodeUndoRecordTo(r, reinterpret_cast<std::byte*>(out->data() + at));
}

Status DecodeUndoRecord(ConstBytes bytes, UndoRecord* out) {
  const std::byte* p = bytes.data();
  size_t left = bytes.size();
  if (left < kFixedSize) {
    return Status::Corruption(fmt::format("undo record of {} bytes is too short", left));
  }
  const uint8_t type = std::to_integer<uint8_t>(p[0]);
  if (type < static_cast<uint8_t>(UndoType::kInsert) ||
      type > static_cast<uint8_t>(UndoType::kBulkLoad)) {
    return Status::Corruption(fmt::format("undo record of unknown type {}", type));
  }
  UndoRecord r;
  r.type = static_cast<UndoType>(type);
  r.undo_no = GetLE(p + 1, 8);
  r.table_id = static_cast<uint32_t>(GetLE(p + 9, 4));
  const uint64_t key_len = GetLE(p + 13, 4);
  p += kFixedSize;
  left -= kFixedSize;
  if (key_len > left) {
    return Status::Corruption(
        fmt::format("undo record {}: key of {} bytes, {} left", r.undo_no, key_len, left));
  }
  r.key = ConstBytes(p, key_len);
  p += key_len;
  left -= key_len;
  if (HasOldVersion(r.type)) {
    if (left < kOldFixedSize) {
      return Status::Corruption(
          fmt::format("undo record {}: old version fields cut short", r.undo_no));
    }
    r.old_trx_id = GetLE(p, 6);
    r.old_roll_ptr = GetLE(p + 6, 7);
    const uint8_t flags = std::to_integer<uint8_t>(p[13]);
    if ((flags & ~1u) != 0) {
      return Status::Corruption(fmt::format("undo record {}: bad flags {}", r.undo_no, flags));
    }
    r.old_delete_marked = (flags & 1) != 0;
    const uint64_t value_len = GetLE(p + 14, 4);
    p += kOldFixedSize;
    left -= kOldFixedSize;
    if (value_len > left) {
      return Status::Corruption(fmt::format("undo record {}: old value of {} bytes, {} left",
                                            r.undo_no, value_len, left));
    }
    r.old_value = ConstBytes(p, value_len);
    left -= value_len;
  }
  if (left != 0) {
    return Status::Corruption(
        fmt::format("undo record {}: {} bytes after its end", r.undo_no, left));
  }
  *out = r;
  return Status::OK();
}

}  // namespace minnow
