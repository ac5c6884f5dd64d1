#include "tools/experiments/mariadb_peer.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <mysql.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

namespace minnow::experiments {
namespace {

// The first of `dirs`/name that is executable, or "".
std::string FindProgram(std::string_view name) {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"}) {
    const std::string p = fmt::format("{}/{}", dir, name);
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

// A loopback TCP port no one listens on now (the kernel's pick for port 0).
uint16_t FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

// Starts `argv` with stdout and stderr appended to `log`; the child's pid, or -1.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
  }
  ::execv(args[0], args.data());
  ::_exit(127);
}

// The last `lines` lines of the file at `path`.
std::string Tail(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    out += "    " + all[i] + "\n";
  }
  return out;
}

// Waits up to `timeout` for `pid` to exit; true if it did.
bool WaitExit(pid_t pid, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || r < 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

MYSQL* ConnectTo(uint16_t port, const char* db) {
  MYSQL* m = mysql_init(nullptr);
  if (m == nullptr) return nullptr;
  if (mysql_real_connect(m, "127.0.0.1", "root", nullptr, db, port, nullptr, 0) == nullptr) {
    mysql_close(m);
    return nullptr;
  }
  return m;
}

}  // namespace

std::unique_ptr<MariaDbPeer> MariaDbPeer::Start(const char* program, uint64_t buffer_pool_mib) {
  const std::string server = FindProgram("mariadbd");
  const std::string install = FindProgram("mariadb-install-db");
  if (server.empty() || install.empty()) {
    fmt::print(stderr,
               "{}: --compare-mariadb needs Debian's mariadb-server (mariadbd, "
               "mariadb-install-db): apt-get install -y mariadb-server\n",
               program);
    return nullptr;
  }
  std::error_code ec;
  const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  std::string dir = (tmp / "minnow-mariadb-XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) {
    fmt::print(stderr, "{}: cannot make a directory under {}\n", program, tmp.string());
    return nullptr;
  }
  const std::string log = dir + "/server.log";
  const std::string data = dir + "/data";
  const bool root = ::geteuid() == 0;
  // A --tmpdir of its own, for the bootstrap and the server: a starting mariadbd removes every
  // "#sql*" file in its tmpdir, so in a shared /tmp it removes the temporary tables another
  // peer's bootstrap is using (whose install then fails, 1051).
  const std::string tmpdir = "--tmpdir=" + dir;
  std::vector<std::string> init = {install,
                                   "--no-defaults",
                                   "--datadir=" + data,
                                   tmpdir,
                                   "--auth-root-authentication-method=normal",
                                   "--skip-test-db"};
  if (root) init.push_back("--user=root");
  const pid_t init_pid = Spawn(init, log);
  int status = -1;
  if (init_pid < 0 || ::waitpid(init_pid, &status, 0) != init_pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    fmt::print(stderr, "{}: mariadb-install-db failed; its log:\n{}", program, Tail(log, 15));
    std::filesystem::remove_all(dir, ec);
    return nullptr;
  }
  const uint16_t port = FreeLoopbackPort();
  std::vector<std::string> args = {server,
                                   "--no-defaults",
                                   "--datadir=" + data,
                                   tmpdir,
                                   "--socket=" + dir + "/mariadbd.sock",
                                   "--pid-file=" + dir + "/mariadbd.pid",
                                   "--bind-address=127.0.0.1",
                                   fmt::format("--port={}", port),
                                   "--skip-grant-tables",
                                   "--skip-name-resolve",
                                   fmt::format("--innodb-buffer-pool-size={}M", buffer_pool_mib)};
  if (root) args.push_back("--user=root");
  const pid_t pid = Spawn(args, log);
  if (pid < 0) {
    fmt::print(stderr, "{}: cannot start {}\n", program, server);
    std::filesystem::remove_all(dir, ec);
    return nullptr;
  }
  std::unique_ptr<MariaDbPeer> peer(new MariaDbPeer(program, dir, port, pid));
  MYSQL* m = nullptr;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (m == nullptr && std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      peer->pid_ = -1;  // it exited
      break;
    }
    m = ConnectTo(port, nullptr);
    if (m == nullptr) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (m == nullptr) {
    fmt::print(stderr, "{}: mariadbd did not start; its log:\n{}", program, Tail(log, 15));
    return nullptr;  // ~MariaDbPeer stops it and removes the directory
  }
  if (mysql_query(m, "CREATE DATABASE IF NOT EXISTS test") != 0) {
    fmt::print(stderr, "{}: MariaDB: {}\n", program, mysql_error(m));
    mysql_close(m);
    return nullptr;
  }
  peer->version_ = mysql_get_server_info(m);
  mysql_close(m);
  return peer;
}

MariaDbPeer::~MariaDbPeer() { Stop(); }

void MariaDbPeer::Stop() {
  if (pid_ > 0) {
    if (MYSQL* m = ConnectTo(port_, nullptr)) {
      mysql_query(m, "SHUTDOWN");
      mysql_close(m);
    } else {
      ::kill(pid_, SIGTERM);
    }
    if (!WaitExit(pid_, std::chrono::seconds(60))) {
      ::kill(pid_, SIGKILL);
      WaitExit(pid_, std::chrono::seconds(10));
    }
    pid_ = -1;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::unique_ptr<MariaDbConnection> MariaDbPeer::Connect() {
  MYSQL* m = ConnectTo(port_, "test");
  if (m == nullptr) {
    fmt::print(stderr, "{}: cannot connect to the MariaDB peer on port {}\n", program_, port_);
    std::exit(1);
  }
  return std::unique_ptr<MariaDbConnection>(new MariaDbConnection(m, program_, version_, port_));
}

MariaDbConnection::MariaDbConnection(MYSQL* mysql, const char* program, std::string version,
                                     uint16_t port)
    : mysql_(mysql),
      program_(program),
      version_(std::move(version)),
      port_(port),
      thread_id_(mysql_thread_id(mysql)) {}

MariaDbConnection::~MariaDbConnection() { mysql_close(mysql_); }

void MariaDbConnection::SettleStatusViews() {
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
}

uint64_t MariaDbConnection::thread_id() const { return thread_id_; }

RunOutcome MariaDbConnection::TryRun(std::string_view sql) {
  if (mysql_real_query(mysql_, sql.data(), sql.size()) != 0) {
    return {static_cast<uint16_t>(mysql_errno(mysql_)), mysql_error(mysql_)};
  }
  if (MYSQL_RES* res = mysql_store_result(mysql_)) {
    mysql_free_result(res);
  } else if (mysql_field_count(mysql_) != 0) {
    return {static_cast<uint16_t>(mysql_errno(mysql_)), mysql_error(mysql_)};
  }
  return {};
}

void MariaDbConnection::Cancel() {
  if (MYSQL* m = ConnectTo(port_, nullptr)) {
    const std::string kill = fmt::format("KILL QUERY {}", thread_id_);
    mysql_query(m, kill.c_str());  // an error means the statement had ended
    mysql_close(m);
  }
}

sql::StatementResult MariaDbConnection::Run(std::string_view sql) {
  const auto start = std::chrono::steady_clock::now();
  if (mysql_real_query(mysql_, sql.data(), sql.size()) != 0) {
    std::fprintf(stderr, "%s: MariaDB error %u: %s\n  in: %.*s\n", program_, mysql_errno(mysql_),
                 mysql_error(mysql_), static_cast<int>(sql.size()), sql.data());
    std::exit(1);
  }
  sql::StatementResult r;
  MYSQL_RES* res = mysql_store_result(mysql_);
  if (res != nullptr) {
    r.has_result_set = true;
    const unsigned n = mysql_num_fields(res);
    MYSQL_FIELD* fields = mysql_fetch_fields(res);
    for (unsigned i = 0; i < n; ++i) r.columns.emplace_back(fields[i].name);
    while (MYSQL_ROW row = mysql_fetch_row(res)) {
      const unsigned long* lengths = mysql_fetch_lengths(res);
      std::vector<std::optional<std::string>> cells;
      for (unsigned i = 0; i < n; ++i) {
        if (row[i] == nullptr) {
          cells.emplace_back(std::nullopt);
        } else {
          cells.emplace_back(std::string(row[i], lengths[i]));
        }
      }
      r.rows.push_back(std::move(cells));
    }
    mysql_free_result(res);
  } else if (mysql_field_count(mysql_) != 0) {
    std::fprintf(stderr, "%s: MariaDB error %u: %s\n  in: %.*s\n", program_, mysql_errno(mysql_),
                 mysql_error(mysql_), static_cast<int>(sql.size()), sql.data());
    std::exit(1);
  } else {
    r.affected_rows = mysql_affected_rows(mysql_);
  }
  r.last_insert_id = mysql_insert_id(mysql_);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace minnow::experiments
