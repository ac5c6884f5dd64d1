// The sqltest script interpreter (see sqltest_script.h): reads a script line by line, cuts
// statements with the mysql client's StatementSplitter, runs them on SessionWorkers and writes
// the output as mysqltest does.

#include "tools/sqltest_script.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "sql_lite_front/parse/parser.h"
#include "tools/minnow_shell_sessions.h"
#include "tools/sqltest_result.h"

namespace minnow::tools {
namespace {

using sql::StatementResult;

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Connection {
  std::unique_ptr<SessionWorker> worker;
  bool sent = false;  // a --send statement waits for its --reap
  Modifiers sent_modifiers;
  int sent_line = 0;
  bool sent_vertical = false;
};

class ScriptRunner {
 public:
  ScriptRunner(sql::SqlEngine* engine, const ScriptOptions& options)
      : engine_(engine), options_(options) {}

  ScriptOutcome Run(std::string_view script);

 private:
  // Each returns false when the script must stop (failure_ says why).
  bool Line(const std::string& line);
  bool Command(std::string_view name, std::string_view arg, bool dashes);
  bool Statement(const std::string& sql, bool vertical);
  bool Reap();
  bool Finish(const std::string& sql, int line, const sql::SqlResult<StatementResult>& r,
              const Modifiers& m, bool vertical);
  bool WaitBlocked(const std::string& name);
  bool Connect(std::string_view arg);
  bool Fail(int line, const std::string& what);
  Connection* current();
  void SwitchTo(const std::string& name);
  bool Parsed(const std::string& problem) { return problem.empty() || Fail(line_no_, problem); }
  void CloseAll();

  sql::SqlEngine* engine_;
  ScriptOptions options_;
  std::map<std::string, Connection> connections_;
  std::string current_;
  std::string out_;
  std::string failure_;
  bool abandoned_ = false;
  int line_no_ = 0;
  int statement_line_ = 0;  // where the statement being read started
  sql::StatementSplitter splitter_;
  Modifiers next_;
  bool send_next_ = false;
  bool query_log_ = true, result_log_ = true, warnings_ = true, info_ = false;
  bool vertical_results_ = false;
};

bool ScriptRunner::Fail(int line, const std::string& what) {
  failure_ = "sqltest: line " + std::to_string(line) + ": " + what;
  return false;
}

Connection* ScriptRunner::current() {
  auto it = connections_.find(current_);
  return it == connections_.end() ? nullptr : &it->second;
}

// The .result says which connection runs the statements that follow, as mysqltest's does: a
// "connection NAME;" line wherever the current connection changes (also by connect).
void ScriptRunner::SwitchTo(const std::string& name) {
  if (name != current_ && query_log_) out_ += "connection " + name + ";\n";
  current_ = name;
}

ScriptOutcome ScriptRunner::Run(std::string_view script) {
  Connection first;
  first.worker = std::make_unique<SessionWorker>("default", engine_->NewSession());
  connections_.emplace("default", std::move(first));
  current_ = "default";

  std::istringstream in{std::string(script)};
  std::string line;
  bool ok = true;
  while (ok && std::getline(in, line)) {
    ++line_no_;
    ok = Line(line);
  }
  if (ok && !splitter_.empty()) {
    ok = Fail(statement_line_, "the script ends inside a statement (a ';' is missing): '" +
                                   splitter_.Pending() + "'");
  }
  CloseAll();
  return ScriptOutcome{std::move(out_), std::move(failure_), abandoned_};
}

void ScriptRunner::CloseAll() {
  for (auto& [name, c] : connections_) {
    if (!c.worker->Stop(std::chrono::seconds(10))) {
      (void)c.worker.release();  // its thread is still inside the engine: leak, never free
      abandoned_ = true;
      if (failure_.empty()) failure_ = "sqltest: connection '" + name + "' would not stop";
    }
  }
  connections_.clear();
}

bool ScriptRunner::Line(const std::string& line) {
  if (splitter_.empty()) {
    std::string t = Trim(line);
    if (t.empty() || t[0] == '#') return true;
    if (t.starts_with("--")) {
      std::string_view rest = std::string_view(t).substr(2);
      const bool spaced = !rest.empty() && std::isspace(static_cast<unsigned char>(rest[0]));
      std::string body = Trim(rest);
      size_t sp = body.find_first_of(" \t(");
      std::string name = Lower(body.substr(0, sp));
      std::string arg = sp == std::string::npos ? "" : Trim(body.substr(sp));
      if (name.empty() && spaced) return true;  // "-- " alone
      // "-- text" that names no command is a comment, as in mysqltest; "--word" must be one.
      static const char* kCommands[] = {"connect",
                                        "connection",
                                        "disconnect",
                                        "send",
                                        "reap",
                                        "error",
                                        "sorted_result",
                                        "echo",
                                        "wait_blocked",
                                        "sleep",
                                        "replace_column",
                                        "replace_regex",
                                        "vertical_results",
                                        "horizontal_results",
                                        "disable_query_log",
                                        "enable_query_log",
                                        "disable_result_log",
                                        "enable_result_log",
                                        "disable_warnings",
                                        "enable_warnings",
                                        "disable_info",
                                        "enable_info"};
      bool known =
          std::find(std::begin(kCommands), std::end(kCommands), name) != std::end(kCommands);
      if (!known) {
        if (spaced) return true;
        return Fail(line_no_, "unknown command '--" + name + "'");
      }
      return Command(name, arg, /*dashes=*/true);
    }
    statement_line_ = line_no_;
  }
  splitter_.Feed(line);
  splitter_.Feed("\n");
  std::string stmt;
  sql::StatementSplitter::Terminator term;
  while (splitter_.Next(&stmt, &term)) {
    // mysqltest's bare command forms: "connection con1;", "reap;", "send SELECT 1;" ...
    size_t sp = stmt.find_first_of(" \t\n(");
    std::string first = Lower(stmt.substr(0, sp));
    std::string arg = sp == std::string::npos ? "" : Trim(stmt.substr(sp));
    static const char* kBare[] = {"connect",      "connection",   "disconnect", "send",
                                  "reap",         "error",        "echo",       "sleep",
                                  "wait_blocked", "sorted_result"};
    bool ok;
    if (std::find(std::begin(kBare), std::end(kBare), first) != std::end(kBare)) {
      ok = Command(first, arg, /*dashes=*/false);
    } else {
      ok = Statement(stmt, term == sql::StatementSplitter::Terminator::kVertical);
    }
    if (!ok) return false;
    statement_line_ = line_no_;
  }
  return true;
}

bool ScriptRunner::Command(std::string_view name, std::string_view arg_view, bool dashes) {
  std::string arg(arg_view);
  if (name == "echo") {
    out_ += arg + "\n";
    return true;
  }
  if (name == "connect") return Connect(arg);
  if (name == "connection") {
    if (connections_.count(arg) == 0) return Fail(line_no_, "connection '" + arg + "' not found");
    SwitchTo(arg);
    return true;
  }
  if (name == "disconnect") {
    auto it = connections_.find(arg);
    if (it == connections_.end()) return Fail(line_no_, "connection '" + arg + "' not found");
    if (!it->second.worker->Stop(options_.statement_timeout)) {
      (void)it->second.worker.release();
      abandoned_ = true;
      connections_.erase(it);
      return Fail(line_no_, "disconnect " + arg + ": its statement would not stop");
    }
    connections_.erase(it);
    if (arg == current_) current_.clear();  // no current connection until the next switch
    return true;
  }
  if (name == "send") {
    std::string stmt = Trim(arg);
    if (stmt.empty()) {
      send_next_ = true;
      return true;
    }
    // "--send UPDATE ...;" on one line (the ';' is optional there).
    while (!stmt.empty() && stmt.back() == ';') stmt = Trim(stmt.substr(0, stmt.size() - 1));
    send_next_ = true;
    statement_line_ = line_no_;
    return Statement(stmt, false);
  }
  if (name == "reap") return Reap();
  if (name == "error") return Parsed(ParseExpectedErrors(arg, &next_));
  if (name == "sorted_result") {
    next_.sorted = true;
    return true;
  }
  if (name == "wait_blocked") return WaitBlocked(arg);
  if (name == "sleep") {
    char* end = nullptr;
    double s = std::strtod(arg.c_str(), &end);
    if (arg.empty() || end == arg.c_str() || s < 0) {
      return Fail(line_no_, "--sleep needs a number of seconds");
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(s));
    return true;
  }
  if (name == "replace_column") return Parsed(ParseReplaceColumn(arg, &next_));
  if (name == "replace_regex") return Parsed(ParseReplaceRegex(arg, &next_));
  if (name == "vertical_results") vertical_results_ = true;
  if (name == "horizontal_results") vertical_results_ = false;
  if (name == "disable_query_log") query_log_ = false;
  if (name == "enable_query_log") query_log_ = true;
  if (name == "disable_result_log") result_log_ = false;
  if (name == "enable_result_log") result_log_ = true;
  if (name == "disable_warnings") warnings_ = false;
  if (name == "enable_warnings") warnings_ = true;
  if (name == "disable_info") info_ = false;
  if (name == "enable_info") info_ = true;
  (void)dashes;
  return true;
}

bool ScriptRunner::Connect(std::string_view arg_view) {
  // "con1" or "(con1,localhost,root,,)": only the name matters.
  std::string arg = Trim(arg_view);
  if (!arg.empty() && arg.front() == '(') {
    arg = arg.substr(1);
    size_t end = arg.find_first_of(",)");
    arg = Trim(arg.substr(0, end));
  }
  if (arg.empty()) return Fail(line_no_, "connect needs a name");
  if (connections_.count(arg) != 0) {
    return Fail(line_no_, "connection '" + arg + "' already exists");
  }
  Connection c;
  c.worker = std::make_unique<SessionWorker>(arg, engine_->NewSession());
  connections_.emplace(arg, std::move(c));
  SwitchTo(arg);  // as mysqltest, connect switches to the new connection
  return true;
}

bool ScriptRunner::Statement(const std::string& sql, bool vertical) {
  const int line = statement_line_;
  Modifiers m = std::move(next_);
  next_ = Modifiers();
  const bool send = send_next_;
  send_next_ = false;
  Connection* c = current();
  if (c == nullptr) return Fail(line, "no current connection (it was disconnected)");
  if (c->sent) {
    return Fail(line, "query '" + sql + "': connection '" + current_ +
                          "' still runs a sent statement (--reap it first)");
  }
  if (query_log_) out_ += sql + ";\n";
  c->worker->Submit(sql);
  if (send) {
    c->sent = true;
    c->sent_modifiers = std::move(m);
    c->sent_line = line;
    c->sent_vertical = vertical;
    return true;
  }
  if (!c->worker->WaitFor(options_.statement_timeout)) {
    return Fail(line, "query '" + sql + "' did not finish in " +
                          std::to_string(options_.statement_timeout.count() / 1000) + " s");
  }
  return Finish(sql, line, c->worker->TakeResult(), m, vertical);
}

bool ScriptRunner::Reap() {
  Connection* c = current();
  if (c == nullptr) return Fail(line_no_, "reap: no current connection");
  if (!c->sent) return Fail(line_no_, "reap: connection '" + current_ + "' sent no statement");
  Modifiers m = std::move(c->sent_modifiers);
  m.MergeFrom(next_);  // modifiers written just before --reap apply to it, as in mysqltest
  next_ = Modifiers();
  c->sent = false;
  const std::string sql = c->worker->statement();
  if (!c->worker->WaitFor(options_.statement_timeout)) {
    return Fail(line_no_, "reap: query '" + sql + "' (line " + std::to_string(c->sent_line) +
                              ") did not finish in " +
                              std::to_string(options_.statement_timeout.count() / 1000) + " s");
  }
  return Finish(sql, c->sent_line, c->worker->TakeResult(), m, c->sent_vertical);
}

bool ScriptRunner::Finish(const std::string& sql, int line,
                          const sql::SqlResult<StatementResult>& r, const Modifiers& m,
                          bool vertical) {
  const auto& expected = m.expected_errors;
  const bool success_allowed =
      expected.empty() || std::find(expected.begin(), expected.end(), 0) != expected.end();
  if (!r.ok()) {
    const sql::SqlError& e = r.error();
    if (std::find(expected.begin(), expected.end(), e.code) == expected.end()) {
      std::string what = "query '" + sql + "' failed";
      if (!expected.empty()) what += " with the wrong error";
      what += ": " + std::to_string(e.code) + ": " + e.message;
      if (!expected.empty()) what += " (expected " + ErrorList(expected) + ")";
      return Fail(line, what);
    }
    if (result_log_)
      out_ += "ERROR " + std::string(e.sqlstate()) + ": " + ApplyReplaceRegex(e.message, m) + "\n";
    return true;
  }
  if (!success_allowed) {
    return Fail(line,
                "query '" + sql + "' succeeded, should have failed with " + ErrorList(expected));
  }
  if (result_log_) {
    AppendResult(*r, m,
                 {.vertical = vertical || vertical_results_, .info = info_, .warnings = warnings_},
                 &out_);
  }
  return true;
}

bool ScriptRunner::WaitBlocked(const std::string& name) {
  auto it = connections_.find(name);
  if (it == connections_.end())
    return Fail(line_no_, "wait_blocked: connection '" + name + "' not found");
  Connection& c = it->second;
  if (!c.sent) return Fail(line_no_, "wait_blocked: connection '" + name + "' sent no statement");
  const auto deadline = std::chrono::steady_clock::now() + options_.wait_blocked_timeout;
  for (;;) {
    switch (c.worker->state()) {
      case SessionWorker::State::kWaitingForLock:
        return true;
      case SessionWorker::State::kFinished:
      case SessionWorker::State::kIdle:
        return Fail(line_no_, "wait_blocked: the statement of connection '" + name +
                                  "' finished without waiting for a lock: '" +
                                  c.worker->statement() + "'");
      case SessionWorker::State::kRunning:
        break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Fail(line_no_, "wait_blocked: connection '" + name + "' did not wait for a lock in " +
                                std::to_string(options_.wait_blocked_timeout.count() / 1000) +
                                " s: '" + c.worker->statement() + "'");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

ScriptOutcome RunScript(std::string_view script, sql::SqlEngine* engine,
                        const ScriptOptions& options) {
  ScriptRunner runner(engine, options);
  return runner.Run(script);
}

}  // namespace minnow::tools
