// Packet framing (packet.h).

#include "server/packet.h"

#include <algorithm>

namespace minnow::server {

void AppendPackets(std::string_view payload, uint8_t* seq, std::string* out) {
  out->reserve(out->size() + payload.size() + 4 * (payload.size() / kMaxPacketChunk + 1));
  size_t pos = 0;
  for (;;) {
    const size_t n = std::min(kMaxPacketChunk, payload.size() - pos);
    out->push_back(static_cast<char>(n & 0xff));
    out->push_back(static_cast<char>((n >> 8) & 0xff));
    out->push_back(static_cast<char>((n >> 16) & 0xff));
    out->push_back(static_cast<char>((*seq)++));
    out->append(payload.substr(pos, n));
    pos += n;
    if (n < kMaxPacketChunk) return;  // a full chunk is always followed by another packet
  }
}

PacketReader::Outcome PacketReader::Next(std::string* payload, uint8_t* first_seq) {
  // Walk the headers first: only a complete run of packets is consumed.
  size_t pos = 0;
  size_t total = 0;
  uint8_t seq = 0;
  for (int i = 0;; ++i) {
    if (buffer_.size() - pos < 4) return Outcome::kNeedMore;
    const auto* h = reinterpret_cast<const unsigned char*>(buffer_.data() + pos);
    const size_t n = size_t{h[0]} | size_t{h[1]} << 8 | size_t{h[2]} << 16;
    if (i == 0) {
      seq = h[3];
    } else if (h[3] != static_cast<uint8_t>(seq + i)) {
      return Outcome::kOutOfOrder;
    }
    total += n;
    if (total > max_payload_) return Outcome::kTooLarge;
    if (buffer_.size() - pos - 4 < n) return Outcome::kNeedMore;
    pos += 4 + n;
    if (n < kMaxPacketChunk) {
      *first_seq = seq;
      next_seq_ = static_cast<uint8_t>(seq + i + 1);
      break;
    }
  }
  payload->clear();
  payload->reserve(total);
  size_t p = 0;
  while (p < pos) {
    const auto* h = reinterpret_cast<const unsigned char*>(buffer_.data() + p);
    const size_t n = size_t{h[0]} | size_t{h[1]} << 8 | size_t{h[2]} << 16;
    payload->append(buffer_, p + 4, n);
    p += 4 + n;
  }
  buffer_.erase(0, pos);
  return Outcome::kPayload;
}

}  // namespace minnow::server
