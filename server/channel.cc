// Channel (channel.h): plain POSIX calls on the socket Boost.Asio accepted.

#include "server/channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>

namespace minnow::server {

Channel::Channel(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {
  // Blocking I/O (Read's timeout is SO_RCVTIMEO), whatever the acceptor left set.
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0 && (flags & O_NONBLOCK) != 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
}

Channel::~Channel() { ::close(fd_); }

Channel::ReadOutcome Channel::Read(std::string* out, int timeout_ms) {
  // One blocking recv under SO_RCVTIMEO rather than poll + recv: a command costs one system
  // call fewer. The option is set again only when the timeout changes (handshake, then idle).
  if (timeout_ms != receive_timeout_ms_) {
    timeval tv{};
    if (timeout_ms > 0) {
      tv.tv_sec = timeout_ms / 1000;
      tv.tv_usec = static_cast<suseconds_t>(timeout_ms % 1000) * 1000;
    }
    if (::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
      return ReadOutcome::kClosed;
    }
    receive_timeout_ms_ = timeout_ms;
  }
  char buf[16384];
  for (;;) {
    const ssize_t got = ::recv(fd_, buf, sizeof(buf), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return ReadOutcome::kTimeout;
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
