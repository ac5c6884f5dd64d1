#pragma once
// minnowd's server: listens on TCP (and a Unix socket when asked), runs each connection on a
// thread of its own with a SQL session of its own, and knows every live connection (for KILL,
// max_connections and noticing clients that hang up mid-statement).
//
//   minnow::server::Server server(engine, options);
//   RETURN_IF_ERROR(server.Listen());   // binds; port() is the bound port (0 picks a free one)
//   server.Run();                       // until Stop() (from a signal-handling thread)
//
// Threads: Run's thread accepts (Boost.Asio); one thread per connection runs its commands
// (a statement waiting for a lock blocks only its own connection); a watcher thread checks
// every 100 ms whether a client with a running statement has hung up, and cancels the
// statement (its transaction then rolls back when the connection ends, and its locks go).
// Thread-safe: Stop() and the registry's calls from any thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "common/latch.h"
#include "minnow/status.h"
#include "server/users.h"
#include "sql_lite_front/sql_engine.h"

namespace minnow::server {

struct ServerOptions {
  std::string bind_address = "127.0.0.1";
  uint16_t port = 3306;     // 0: a free port (Server::port() tells which)
  std::string socket_path;  // empty: no Unix socket
  uint32_t max_connections = 151;
  uint32_t wait_timeout_s = 28800;  // an idle connection is closed after this
  uint32_t connect_timeout_s = 10;  // the handshake must finish within this
  // The SQL front's read-only @@max_allowed_packet (64 MiB): a larger packet ends the
  // connection with 1153.
  size_t max_allowed_packet = 64u << 20;
  std::string version = "8.0.36-minnow";  // the SQL front's @@version
};

class Connection;

// The live connections by thread id.
class ConnectionRegistry {
 public:
  // False when max_connections are already registered.
  bool Add(uint64_t id, Connection* c, uint32_t max_connections);
  void Remove(uint64_t id);
  // KILL: false when there is no such connection.
  bool Kill(uint64_t id, bool query_only);
  // The watcher's pass: cancels the running statement of every connection whose client left.
  void CancelHungUp();
  void KillAll();  // Stop()
  // Runs `fn` with the registry's latch held, so that Kill and the watcher see a connection
  // before or after what `fn` changes, never during (a connection swapping its session).
  void Exclusively(const std::function<void()>& fn);
  size_t size() const;

 private:
  mutable Latch latch_;
  std::map<uint64_t, Connection*> live_ GUARDED_BY(latch_);
};

class Server {
 public:
  Server(sql::SqlEngine* engine, ServerOptions options);
  ~Server();  // stops and joins every thread

  // Binds and listens. A non-loopback bind address is refused unless every account that a
  // remote client could use has a password (kInvalidArgument).
  Status Listen();
  uint16_t port() const { return port_; }
  void Run();   // accepts until Stop()
  void Stop();  // from any thread

  UserTable& users() { return users_; }
  ConnectionRegistry& registry() { return registry_; }
  sql::SqlEngine* engine() const { return engine_; }
  const ServerOptions& options() const { return options_; }
  std::chrono::steady_clock::time_point started() const { return started_; }

 private:
  struct Acceptors;
  void Serve(int fd, std::string peer);
  void Watch();

  sql::SqlEngine* engine_;
  ServerOptions options_;
  UserTable users_;
  ConnectionRegistry registry_;
  std::unique_ptr<Acceptors> acceptors_;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> running_threads_{0};
  std::thread watcher_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace minnow::server
