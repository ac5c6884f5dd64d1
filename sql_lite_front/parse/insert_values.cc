// The compact rows of an INSERT (insert_values.h).

#include "sql_lite_front/parse/insert_values.h"

#include <cstring>
#include <utility>

#include "sql_lite_front/decimal.h"
#include "sql_lite_front/parse/ast.h"
#include "sql_lite_front/temporal.h"

namespace minnow::sql {
namespace {

// An item's first byte.
enum Tag : uint8_t {
  kRowEnd,
  kNull,
  kDefault,
  kInt,      // zigzag varint
  kUInt,     // varint
  kDouble,   // 8 bytes
  kString,   // varint length, bytes
  kDecimal,  // varint length, Decimal::ToString's text
  kHex,      // varint length, bytes (a hex literal)
  kExpr,     // varint index into exprs_
};

constexpr size_t kMaxVarint = 10;

size_t PutVarint(uint64_t v, char* out) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  out[n++] = static_cast<char>(v);
  return n;
}

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

}  // namespace

InsertValues::InsertValues() = default;
InsertValues::~InsertValues() = default;
InsertValues::InsertValues(InsertValues&&) noexcept = default;
InsertValues& InsertValues::operator=(InsertValues&&) noexcept = default;

std::string& InsertValues::Room(size_t n) {
  if (chunks_.empty() || chunks_.back().capacity() - chunks_.back().size() < n) {
    chunks_.emplace_back();
    chunks_.back().reserve(std::max(kChunkBytes, n));
  }
  return chunks_.back();
}

void InsertValues::AddVarintItem(uint8_t tag, uint64_t v) {
  char buf[1 + kMaxVarint];
  buf[0] = static_cast<char>(tag);
  const size_t n = 1 + PutVarint(v, buf + 1);
  Room(n).append(buf, n);
  ++row_width_;
}

void InsertValues::AddBytesItem(uint8_t tag, std::string_view bytes) {
  char buf[1 + kMaxVarint];
  buf[0] = static_cast<char>(tag);
  const size_t n = 1 + PutVarint(bytes.size(), buf + 1);
  std::string& chunk = Room(n + bytes.size());
  chunk.append(buf, n);
  chunk.append(bytes);
  ++row_width_;
}

void InsertValues::AddLiteral(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      Room(1).push_back(static_cast<char>(kNull));
      ++row_width_;
      return;
    case Value::Kind::kInt:
      AddVarintItem(kInt, ZigZag(v.as_int()));
      return;
    case Value::Kind::kUInt:
      AddVarintItem(kUInt, v.as_uint());
      return;
    case Value::Kind::kDouble: {
      char buf[1 + sizeof(double)];
      buf[0] = static_cast<char>(kDouble);
      const double d = v.as_double();
      std::memcpy(buf + 1, &d, sizeof d);
      Room(sizeof buf).append(buf, sizeof buf);
      ++row_width_;
      return;
    }
    case Value::Kind::kString:
      AddBytesItem(kString, v.as_string());
      return;
    case Value::Kind::kDecimal:
      AddBytesItem(kDecimal, v.as_decimal().ToString());
      return;
    case Value::Kind::kTemporal:  // the parser makes no date literals: kept as the date's text
      AddBytesItem(kString, FormatTemporal(v.as_temporal()));
      return;
    case Value::Kind::kEnum:  // nor ENUM values: kept as the text
      AddBytesItem(kString, v.as_enum().Text());
      return;
  }
}

void InsertValues::AddHexLiteral(std::string_view bytes) { AddBytesItem(kHex, bytes); }

void InsertValues::AddDefault() {
  Room(1).push_back(static_cast<char>(kDefault));
  ++row_width_;
}

void InsertValues::AddExpr(std::unique_ptr<Expr> e) {
  AddVarintItem(kExpr, exprs_.size());
  exprs_.push_back(std::move(e));
}

void InsertValues::EndRow() {
  Room(1).push_back(static_cast<char>(kRowEnd));
  ++rows_;
  if (rows_ == 1) {
    first_width_ = row_width_;
  } else if (first_other_row_ == 0 && row_width_ != first_width_) {
    first_other_row_ = rows_;
  }
  row_width_ = 0;
}

size_t InsertValues::FirstRowNotOfWidth(size_t width) const {
  if (rows_ == 0) return 0;
  if (width != first_width_) return 1;
  return first_other_row_;
}

uint8_t InsertValues::Reader::Byte() {
  while (offset_ == values_->chunks_[chunk_].size()) {
    ++chunk_;
    offset_ = 0;
  }
  return static_cast<uint8_t>(values_->chunks_[chunk_][offset_++]);
}

uint64_t InsertValues::Reader::Varint() {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t b = Byte();
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}

std::string_view InsertValues::Reader::Bytes(size_t n) {
  std::string_view s(values_->chunks_[chunk_].data() + offset_, n);  // within the chunk
  offset_ += n;
  return s;
}

bool InsertValues::Reader::Next(std::vector<InsertValue>* row) {
  row->clear();
  if (chunk_ >= values_->chunks_.size()) return false;
  if (offset_ == values_->chunks_[chunk_].size() && chunk_ + 1 == values_->chunks_.size()) {
    return false;
  }
  for (;;) {
    const uint8_t tag = Byte();
    if (tag == kRowEnd) return true;
    InsertValue& out = row->emplace_back();
    switch (tag) {
      case kNull:
        out.value = Value::Null();
        break;
      case kDefault:
        break;
      case kInt:
        out.value = Value::Int(UnZigZag(Varint()));
        break;
      case kUInt:
        out.value = Value::UInt(Varint());
        break;
      case kDouble: {
        double d;
        std::memcpy(&d, Bytes(sizeof d).data(), sizeof d);
        out.value = Value::Double(d);
        break;
      }
      case kString: {
        const size_t n = Varint();
        out.value = Value::String(std::string(Bytes(n)));
        break;
      }
      case kDecimal: {
        const size_t n = Varint();
        out.value = Value::Dec(*Decimal::Parse(Bytes(n)));  // what ToString wrote parses
        break;
      }
      case kHex: {
        const size_t n = Varint();
        out.value = Value::String(std::string(Bytes(n)));
        out.hex = true;
        break;
      }
      case kExpr:
        out.expr = Varint();
        break;
    }
  }
}

}  // namespace minnow::sql
