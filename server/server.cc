// Server and ConnectionRegistry (server.h).

#include "server/server.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <chrono>
#include <cstdio>
#include <thread>

#include "server/channel.h"
#include "server/connection.h"

namespace minnow::server {

namespace asio = boost::asio;

bool ConnectionRegistry::Add(uint64_t id, Connection* c, uint32_t max_connections) {
  LatchGuard g(latch_);
  if (live_.size() >= max_connections) return false;
  live_[id] = c;
  return true;
}

void ConnectionRegistry::Remove(uint64_t id) {
  LatchGuard g(latch_);
  live_.erase(id);
}

bool ConnectionRegistry::Kill(uint64_t id, bool query_only) {
  LatchGuard g(latch_);
  auto it = live_.find(id);
  if (it == live_.end()) return false;
  it->second->Kill(query_only);
  return true;
}

void ConnectionRegistry::CancelHungUp() {
  LatchGuard g(latch_);
  for (auto& [id, c] : live_) c->CancelIfHungUp();
}

void ConnectionRegistry::KillAll() {
  LatchGuard g(latch_);
  for (auto& [id, c] : live_) c->Kill(false);
}

void ConnectionRegistry::Exclusively(const std::function<void()>& fn) {
  LatchGuard g(latch_);
  fn();
}

size_t ConnectionRegistry::size() const {
  LatchGuard g(latch_);
  return live_.size();
}

struct Server::Acceptors {
  asio::io_context io;
  std::optional<asio::ip::tcp::acceptor> tcp;
  std::optional<asio::local::stream_protocol::acceptor> local;
};

Server::Server(sql::SqlEngine* engine, ServerOptions options)
    : engine_(engine), options_(std::move(options)), acceptors_(std::make_unique<Acceptors>()) {}

Server::~Server() {
  Stop();
  registry_.KillAll();
  while (running_threads_.load() > 0) {
    registry_.KillAll();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (watcher_.joinable()) watcher_.join();
  if (!options_.socket_path.empty()) ::unlink(options_.socket_path.c_str());
}

Status Server::Listen() {
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(options_.bind_address, ec);
  if (ec) return Status::InvalidArgument("bad bind address " + options_.bind_address);
  if (!address.is_loopback() && !users_.RemoteAccountsHavePasswords()) {
    return Status::InvalidArgument(
        "a bind address other than the loopback needs a password on every account a remote "
        "client could use (--users FILE)");
  }
  auto& tcp = acceptors_->tcp.emplace(acceptors_->io);
  const asio::ip::tcp::endpoint endpoint(address, options_.port);
  if (tcp.open(endpoint.protocol(), ec); ec) return Status::IOError("socket: " + ec.message());
  tcp.set_option(asio::socket_base::reuse_address(true));
  if (tcp.bind(endpoint, ec); ec) {
    return Status::IOError(
        fmt::format("bind {}:{}: {}", options_.bind_address, options_.port, ec.message()));
  }
  if (tcp.listen(asio::socket_base::max_listen_connections, ec); ec) {
    return Status::IOError("listen: " + ec.message());
  }
  port_ = tcp.local_endpoint().port();
  if (!options_.socket_path.empty()) {
    ::unlink(options_.socket_path.c_str());
    auto& local = acceptors_->local.emplace(acceptors_->io);
    const asio::local::stream_protocol::endpoint ep(options_.socket_path);
    if (local.open(ep.protocol(), ec); ec) return Status::IOError("socket: " + ec.message());
    if (local.bind(ep, ec); ec) {
      return Status::IOError("bind " + options_.socket_path + ": " + ec.message());
    }
    if (local.listen(asio::socket_base::max_listen_connections, ec); ec) {
      return Status::IOError("listen: " + ec.message());
    }
  }
  return Status::OK();
}

void Server::Serve(int fd, std::string peer) {
  running_threads_.fetch_add(1);
  std::thread([this, fd, peer = std::move(peer)]() mutable {
    {
      Connection c(this, std::make_unique<Channel>(fd, std::move(peer)));
      c.Run();
    }
    running_threads_.fetch_sub(1);
  }).detach();
}

void Server::Run() {
  watcher_ = std::thread([this] { Watch(); });
  std::function<void()> accept_tcp = [&] {
    acceptors_->tcp->async_accept([&](boost::system::error_code ec, asio::ip::tcp::socket s) {
      if (stopping_.load()) return;
      if (!ec) {
        s.set_option(asio::ip::tcp::no_delay(true), ec);
        std::string peer = s.remote_endpoint(ec).address().to_string();
        if (peer.empty()) peer = "?";
        Serve(s.release(), std::move(peer));
      }
      accept_tcp();
    });
  };
  std::function<void()> accept_local = [&] {
    acceptors_->local->async_accept(
        [&](boost::system::error_code ec, asio::local::stream_protocol::socket s) {
          if (stopping_.load()) return;
          if (!ec) Serve(s.release(), "");
          accept_local();
        });
  };
  accept_tcp();
  if (acceptors_->local) accept_local();
  acceptors_->io.run();
}

void Server::Stop() {
  if (stopping_.exchange(true)) return;
  acceptors_->io.stop();
}

void Server::Watch() {
  while (!stopping_.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    registry_.CancelHungUp();
  }
}

}  // namespace minnow::server
