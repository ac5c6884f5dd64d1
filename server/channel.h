#pragma once
// A connected stream socket (TCP or Unix) as a connection's thread uses it: blocking writes of
// whole responses, reads that give up after a timeout, and a way for another thread to end it.

#include <cstddef>
#include <string>
#include <string_view>

namespace minnow::server {

class Channel {
 public:
  // Takes ownership of the connected socket `fd`. `peer` is the client's address as text
  // ("127.0.0.1"), empty for a Unix socket.
  Channel(int fd, std::string peer);
  ~Channel();  // closes the socket
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  enum class ReadOutcome : uint8_t { kData, kTimeout, kClosed };
  // Appends what arrives (at least one byte) to *out; waits at most `timeout_ms` (<= 0:
  // forever).
  ReadOutcome Read(std::string* out, int timeout_ms);
  // Sends all of `bytes` in one write where the kernel takes it; false when the peer is gone.
  bool WriteAll(std::string_view bytes);
  // From any thread: true when the peer has closed or reset its side (reads would end).
  bool PeerHungUp() const;
  // From any thread: ends the connection; this thread's Read and WriteAll then fail.
  void ShutDown();

  const std::string& peer() const { return peer_; }
  int fd() const { return fd_; }

 private:
  int fd_;
  std::string peer_;
  int receive_timeout_ms_ = 0;  // the socket's SO_RCVTIMEO (0: none, the kernel's default)
};

}  // namespace minnow::server
