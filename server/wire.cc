// WireWriter and WireReader (wire.h).

#include "server/wire.h"

namespace minnow::server {

void WireWriter::IntN(uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void WireWriter::LenencInt(uint64_t v) {
  if (v < 0xfb) {
    Int1(static_cast<uint8_t>(v));
  } else if (v <= 0xffff) {
    Int1(0xfc);
    Int2(static_cast<uint16_t>(v));
  } else if (v <= 0xffffff) {
    Int1(0xfd);
    Int3(static_cast<uint32_t>(v));
  } else {
    Int1(0xfe);
    Int8(v);
  }
}

void WireWriter::LenencString(std::string_view s) {
  LenencInt(s.size());
  out_.append(s);
}

void WireWriter::NulString(std::string_view s) {
  out_.append(s);
  out_.push_back('\0');
}

std::optional<uint64_t> WireReader::IntN(int bytes) {
  if (remaining() < static_cast<size_t>(bytes)) return std::nullopt;
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{static_cast<uint8_t>(in_[pos_ + i])} << (8 * i);
  pos_ += bytes;
  return v;
}

std::optional<uint8_t> WireReader::Int1() {
  auto v = IntN(1);
  if (!v) return std::nullopt;
  return static_cast<uint8_t>(*v);
}

std::optional<uint16_t> WireReader::Int2() {
  auto v = IntN(2);
  if (!v) return std::nullopt;
  return static_cast<uint16_t>(*v);
}

std::optional<uint32_t> WireReader::Int4() {
  auto v = IntN(4);
  if (!v) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

std::optional<uint64_t> WireReader::Int8() { return IntN(8); }

std::optional<uint64_t> WireReader::LenencInt() {
  if (at_end()) return std::nullopt;
  const auto first = static_cast<uint8_t>(in_[pos_]);
  if (first < 0xfb) {
    ++pos_;
    return first;
  }
  const int width = first == 0xfc ? 2 : first == 0xfd ? 3 : first == 0xfe ? 8 : 0;
  if (width == 0 || remaining() < static_cast<size_t>(1 + width)) return std::nullopt;
  ++pos_;
  return IntN(width);
}

std::optional<std::string_view> WireReader::LenencString() {
  const size_t start = pos_;
  auto n = LenencInt();
  if (!n) return std::nullopt;
  if (*n > remaining()) {
    pos_ = start;
    return std::nullopt;
  }
  return Bytes(static_cast<size_t>(*n));
}

std::optional<std::string_view> WireReader::NulString() {
  const size_t end = in_.find('\0', pos_);
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view s = in_.substr(pos_, end - pos_);
  pos_ = end + 1;
  return s;
}

std::optional<std::string_view> WireReader::Bytes(size_t n) {
  if (remaining() < n) return std::nullopt;
  std::string_view s = in_.substr(pos_, n);
  pos_ += n;
  return s;
}

std::string_view WireReader::Rest() {
  std::string_view s = in_.substr(pos_);
  pos_ = in_.size();
  return s;
}

}  // namespace minnow::server
