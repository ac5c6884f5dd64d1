// Channel (channel.h): plain POSIX calls on the socket Boost.Asio accepted.

#include "server/channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace minnow::server {

Channel::Channel(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}

Channel::~Channel() { ::close(fd_); }

Channel::ReadOutcome Channel::Read(std::string* out, int timeout_ms) {
  pollfd p{fd_, POLLIN, 0};
  for (;;) {
    const int n = ::poll(&p, 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return ReadOutcome::kTimeout;
    if (n < 0) return ReadOutcome::kClosed;
    break;
  }
  char buf[16384];
  for (;;) {
    const ssize_t got = ::recv(fd_, buf, sizeof(buf), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return ReadOutcome::kClosed;
    out->append(buf, static_cast<size_t>(got));
    return ReadOutcome::kData;
  }
}

bool Channel::WriteAll(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool Channel::PeerHungUp() const {
  pollfd p{fd_, POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

void Channel::ShutDown() { ::shutdown(fd_, SHUT_RDWR); }

}  // namespace minnow::server
