#pragma once
// MySQL packet framing. Every message travels as packets of
//
//   int<3> payload length | int<1> sequence id | payload
//
// A payload of 2^24-1 (0xffffff) bytes or more is split: packets of exactly 0xffffff bytes
// follow each other, and the last is shorter (an empty one when the length is a multiple of
// 0xffffff). The sequence id starts at 0 with each command from the client and counts up by one
// per packet in either direction (wrapping at 256); the handshake is one such exchange starting
// with the server's greeting.

#include <cstdint>
#include <string>
#include <string_view>

namespace minnow::server {

inline constexpr size_t kMaxPacketChunk = 0xffffff;

// Appends `payload` to `out` as one or more packets with sequence ids *seq, *seq+1, ...;
// on return *seq is the id the next packet gets.
void AppendPackets(std::string_view payload, uint8_t* seq, std::string* out);

// Reassembles logical payloads from bytes as they arrive. Not thread-safe; one per connection.
class PacketReader {
 public:
  // A payload longer than `max_payload` bytes (max_allowed_packet) is refused as kTooLarge as
  // soon as its headers say so, before it is buffered.
  explicit PacketReader(size_t max_payload) : max_payload_(max_payload) {}

  enum class Outcome : uint8_t {
    kNeedMore,    // no complete payload yet: Feed more bytes
    kPayload,     // *payload holds the next payload; *first_seq the id of its first packet
    kTooLarge,    // the payload would exceed max_payload: the connection must end
    kOutOfOrder,  // a continuation packet's id did not follow its predecessor's
  };

  void Feed(std::string_view bytes) { buffer_.append(bytes); }
  // After kPayload, next_seq() is the id the reply's first packet must carry.
  Outcome Next(std::string* payload, uint8_t* first_seq);
  uint8_t next_seq() const { return next_seq_; }
  size_t buffered() const { return buffer_.size(); }
  void set_max_payload(size_t n) { max_payload_ = n; }

 private:
  size_t max_payload_;
  std::string buffer_;
  uint8_t next_seq_ = 0;
};

}  // namespace minnow::server
