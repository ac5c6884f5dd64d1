// libFuzzer target for minnowd's packet parsing (tools/fuzz_parser --target packets builds and
// runs it): no byte stream may crash, loop in, or leak from the packet framer, the
// handshake-response parser, the basic-type reader, the server's own statements' parser or the
// prepared statements' parameter decoding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/admin_statement.h"
#include "server/packet.h"
#include "server/prepared_statement.h"
#include "server/protocol.h"
#include "server/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // A small max_allowed_packet so that the too-large path is reached too.
  minnow::server::PacketReader reader(size > 0 ? data[0] * 64u : 64u);
  const size_t half = size / 2;
  std::string payload;
  uint8_t seq = 0;
  for (std::string_view part : {bytes.substr(0, half), bytes.substr(half)}) {
    reader.Feed(part);
    while (reader.Next(&payload, &seq) == minnow::server::PacketReader::Outcome::kPayload) {
      (void)minnow::server::ParseHandshakeResponse(payload);
      (void)minnow::server::ParseAdminStatement(payload);
      // As a COM_STMT_EXECUTE body for a statement with three placeholders, and as SQL text.
      minnow::server::PreparedStatement stmt;
      stmt.sql = "SELECT ?, ?, ?";
      stmt.param_count = minnow::server::FindPlaceholders(stmt.sql).size();
      (void)minnow::server::BindExecute(payload, &stmt);
      (void)minnow::server::FindPlaceholders(payload);
      minnow::server::WireReader r(payload);
      while (!r.at_end()) {
        if (!r.LenencString() && !r.Int1()) break;
      }
    }
  }
  // The raw bytes as a payload too (the framer only passes what its headers allow).
  (void)minnow::server::ParseHandshakeResponse(bytes);
  return 0;
}
