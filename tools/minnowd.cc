// minnowd: the MySQL wire-protocol server over a minnow database.
//
//   minnowd --db PATH [--read-only] [--port 3306] [--bind 127.0.0.1] [--socket PATH]
//           [--users FILE] [--max-connections 151] [--wait-timeout 28800]
//
// --read-only opens an existing database for reading only (Options::read_only): no file is
// created or written, and every write fails with MySQL's error 1290.
//
// --port 0 picks a free port. Once listening it prints "minnowd: listening on ADDRESS:PORT" on
// stdout (tests read the port from it). SIGINT or SIGTERM stops it: every connection ends (open
// transactions roll back) and the database closes cleanly.
//
// Accounts (CREATE USER, ALTER USER, DROP USER) are kept in the database file (the "$users"
// keyspace, server/account_store.h) and loaded at start; a new database has root@localhost
// with no password. --users FILE: one account per line, "name@host password" ('#' starts a
// comment; host '%' is any host), applied after the stored accounts (adding or replacing, in
// memory only: the file is read again at every start). A --bind address other than the loopback
// needs a password on every non-loopback account.

#include <pthread.h>
#include <signal.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "minnow/db.h"
#include "server/account_store.h"
#include "server/server.h"
#include "sql_lite_front/sql_engine.h"

namespace {

int Usage() {
  std::cerr << "usage: minnowd --db PATH [--read-only] [--port 3306] [--bind 127.0.0.1] "
               "[--socket PATH] [--users FILE] [--max-connections N] [--wait-timeout SECONDS]\n";
  return 2;
}

// `text` as a whole number in [min, max]; false for anything else (never wraps or throws).
bool ParseCount(const std::string& text, uint64_t min, uint64_t max, uint64_t* out) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max) return false;
  *out = v;
  return true;
}

bool LoadUsers(const std::string& path, minnow::server::UserTable* users) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "minnowd: cannot read " << path << "\n";
    return false;
  }
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    const std::string account = line.substr(0, space);
    const std::string password = space == std::string::npos ? "" : line.substr(space + 1);
    const size_t at = account.find('@');
    if (at == 0 || account.empty()) {
      std::cerr << "minnowd: " << path << ":" << n << ": expected 'name@host password'\n";
      return false;
    }
    users->Set(account.substr(0, at), at == std::string::npos ? "%" : account.substr(at + 1),
               password);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string db_path, users_path;
  bool read_only = false;
  minnow::server::ServerOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--read-only") {
      read_only = true;
      continue;
    }
    if (i + 1 >= argc) return Usage();
    const std::string v = argv[++i];
    uint64_t n = 0;
    if (a == "--db") {
      db_path = v;
    } else if (a == "--port") {
      if (!ParseCount(v, 0, UINT16_MAX, &n)) return Usage();
      options.port = static_cast<uint16_t>(n);
    } else if (a == "--bind") {
      options.bind_address = v;
    } else if (a == "--socket") {
      options.socket_path = v;
    } else if (a == "--users") {
      users_path = v;
    } else if (a == "--max-connections") {
      if (!ParseCount(v, 1, UINT32_MAX, &n)) return Usage();
      options.max_connections = static_cast<uint32_t>(n);
    } else if (a == "--wait-timeout") {
      if (!ParseCount(v, 1, UINT32_MAX, &n)) return Usage();
      options.wait_timeout_s = static_cast<uint32_t>(n);
    } else {
      return Usage();
    }
  }
  if (db_path.empty()) return Usage();

  // SIGINT/SIGTERM go to one waiting thread only.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto db = minnow::Database::Open(minnow::Options{.path = db_path, .read_only = read_only});
  if (!db.ok()) {
    std::cerr << "minnowd: " << db.status().ToString() << "\n";
    return 1;
  }
  int rc = 0;
  {
    auto engine = minnow::sql::SqlEngine::Open(db->get());
    if (!engine.ok()) {
      std::cerr << "minnowd: " << engine.error().ToString() << "\n";
      return 1;
    }
    minnow::server::Server server(engine->get(), options);
    auto store = minnow::server::AccountStore::Open(db->get());
    minnow::Status st = store.ok() ? server.users().Attach(std::move(*store)) : store.status();
    if (!st.ok()) {
      std::cerr << "minnowd: accounts: " << st.ToString() << "\n";
      return 1;
    }
    if (!users_path.empty() && !LoadUsers(users_path, &server.users())) return 1;
    st = server.Listen();
    if (!st.ok()) {
      std::cerr << "minnowd: " << st.ToString() << "\n";
      return 1;
    }
    std::cout << "minnowd: listening on " << options.bind_address << ":" << server.port()
              << std::endl;
    std::thread stopper([&] {
      int sig = 0;
      sigwait(&signals, &sig);
      server.Stop();
    });
    server.Run();
    pthread_kill(stopper.native_handle(), SIGTERM);  // wakes it if Run ended another way
    stopper.join();
  }
  minnow::Status st = (*db)->Close();
  if (!st.ok()) {
    std::cerr << "minnowd: close: " << st.ToString() << "\n";
    rc = 1;
  }
  return rc;
}
