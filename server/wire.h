#pragma once
// The MySQL protocol's basic types, written and read (little-endian throughout):
//
//   int<1|2|3|4|8>   fixed-width unsigned integers
//   int<lenenc>      < 0xfb: one byte; 0xfc + int<2>; 0xfd + int<3>; 0xfe + int<8>
//                    (0xfb is NULL in a text row, 0xff starts an ERR packet)
//   string<lenenc>   int<lenenc> length, then the bytes
//   string<NUL>      bytes up to a 0 byte
//   string<EOF>      the rest of the packet
//
// WireReader never reads past its buffer: every read reports failure (and reads nothing) when
// the bytes are not there, so a truncated or malformed packet is an error, never a crash.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace minnow::server {

class WireWriter {
 public:
  void Int1(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void Int2(uint16_t v) { IntN(v, 2); }
  void Int3(uint32_t v) { IntN(v, 3); }
  void Int4(uint32_t v) { IntN(v, 4); }
  void Int8(uint64_t v) { IntN(v, 8); }
  void IntN(uint64_t v, int bytes);
  void LenencInt(uint64_t v);
  void LenencString(std::string_view s);
  void NulString(std::string_view s);  // REQUIRES: s has no 0 byte
  void Bytes(std::string_view s) { out_.append(s); }
  void Zeros(size_t n) { out_.append(n, '\0'); }

  const std::string& data() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class WireReader {
 public:
  explicit WireReader(std::string_view in) : in_(in) {}

  std::optional<uint64_t> IntN(int bytes);
  std::optional<uint8_t> Int1();
  std::optional<uint16_t> Int2();
  std::optional<uint32_t> Int4();
  std::optional<uint64_t> Int8();
  // A length-encoded integer; nullopt on 0xfb (NULL), 0xff or truncation.
  std::optional<uint64_t> LenencInt();
  std::optional<std::string_view> LenencString();
  std::optional<std::string_view> NulString();  // nullopt when no 0 byte follows
  std::optional<std::string_view> Bytes(size_t n);
  std::string_view Rest();  // string<EOF>: everything left

  size_t remaining() const { return in_.size() - pos_; }
  bool at_end() const { return pos_ == in_.size(); }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace minnow::server
