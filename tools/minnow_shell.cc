// minnow: the SQL shell, a small mysql client over an embedded database.
//
//   minnow [--db PATH] [--read-only] [-e "SQL"] [--batch|-B] [--force|-f] [FILE]
//
// Without --db the database is $MINNOW_DB, else minnow.db in the working directory (created if
// missing). --read-only opens an existing database for reading only (Options::read_only): no
// file is created or written, and every write fails with MySQL's error 1290. -e runs its
// statements and exits; a FILE, or stdin that is not a terminal, is run as a script with mysql's
// batch output (tab-separated), which stops at the first error unless --force says to go on
// (as mysql's: the exit code is still 1); on a terminal the shell is
// interactive: line editing and history (~/.minnow_history, when built with libedit), tables and
// summary lines as the mysql client prints them.
//
// Sessions: every session runs its statements on a thread of its own (SessionWorker). The shell
// waits for a statement, polling every 100 ms; once it waits for a lock, the shell says so and
// gives the prompt back, so the user can switch to another session and release the lock. The
// waiting statement's result is printed as soon as it finishes, even while the user types (the
// line being typed is drawn again below it). At the prompt, a statement for a session whose
// last statement still waits is refused; a script waits for it instead.

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/execute/result_format.h"
#include "sql_lite_front/parse/parser.h"
#include "sql_lite_front/sql_engine.h"
#include "tools/minnow_shell_input.h"
#include "tools/minnow_shell_sessions.h"

namespace minnow::tools {
namespace {

using sql::StatementResult;
using sql::StatementSplitter;
using Clock = std::chrono::steady_clock;

// How results are printed.
enum class OutputMode : uint8_t {
  kInteractive,  // tables, summary lines, errors without line numbers
  kTable,        // -e on a terminal: tables only, errors "at line N"
  kBatch,        // scripts and pipes: tab-separated, errors "at line N" end the run
};

// One shell session: its worker and what the shell remembers about its statement.
struct ShellSession {
  std::unique_ptr<SessionWorker> worker;
  bool vertical = false;    // the running statement ended with \G
  bool background = false;  // the prompt was given back while it ran: print it when done
  int line = 0;             // the line the running statement started on
  std::string file;         // and the sourced file it came from ("" for the main input)
};

class Shell {
 public:
  // force: an error does not end a batch run (mysql's --force); the exit code says it happened.
  Shell(sql::SqlEngine* engine, OutputMode mode, bool force)
      : engine_(engine), mode_(mode), force_(force) {
    AddSession("main");
  }
  ~Shell() {
    sessions_.clear();  // before the engine: each worker cancels and joins, then its session
  }

  // Runs every line of `src` (named `file` in error lines; "" for the main input). Returns
  // false when the input asked to quit or (outside interactive mode) an error ended the run.
  bool Run(LineSource* src, const std::string& file);
  // Waits for statements still running in any session and prints their results.
  void Drain();
  // A statement left running in the background has finished: ReportFinished prints it.
  bool HasFinishedInBackground() const;
  // Prints the results of background statements that have finished; false on an error that
  // ends a batch run.
  bool ReportFinished();
  int exit_code() const { return exit_code_; }
  // The input asked to quit (quit, exit, \q): statements still running are cancelled, not
  // waited for.
  bool quit_requested() const { return quit_requested_; }

 private:
  ShellSession& current() { return sessions_.at(current_); }
  void AddSession(const std::string& name);
  std::string Prompt(bool continuation) const;
  // A client command (quit, source, \connect ...): true if `line` was one. *quit asks to stop.
  bool Command(const std::string& line, bool* quit);
  // Runs one statement in the current session; false if it failed and the run must end.
  bool RunStatement(const std::string& sql, bool vertical, int line, const std::string& file);
  // Waits for `s`'s statement (allow_background: returns when it waits for a lock). True if it
  // finished (its result was printed).
  bool Await(ShellSession& s, const std::string& name, bool allow_background);
  // Prints a finished statement's result of session `name`; false on an error that ends a
  // batch run. An error names its session when the shell has more than one.
  bool PrintResult(ShellSession& s, const std::string& name,
                   const sql::SqlResult<StatementResult>& r);
  void PrintSessions();
  void Help();

  sql::SqlEngine* engine_;
  OutputMode mode_;
  bool force_;
  std::map<std::string, ShellSession> sessions_;
  std::string current_;
  int exit_code_ = 0;
  int source_depth_ = 0;
  bool quit_requested_ = false;
};

void Shell::AddSession(const std::string& name) {
  ShellSession s;
  s.worker = std::make_unique<SessionWorker>(name, engine_->NewSession());
  sessions_.emplace(name, std::move(s));
  current_ = name;
}

std::string Shell::Prompt(bool continuation) const {
  if (continuation) return "    -> ";
  if (sessions_.size() > 1) return "minnow [" + current_ + "]> ";
  return "minnow> ";
}

bool Shell::PrintResult(ShellSession& s, const std::string& name,
                        const sql::SqlResult<StatementResult>& r) {
  if (!r.ok()) {
    const sql::SqlError& e = r.error();
    std::fflush(stdout);
    const std::string session = sessions_.size() > 1 ? " in session '" + name + "'" : "";
    if (mode_ == OutputMode::kInteractive) {
      std::fprintf(stderr, "%s%s\n", e.ToString().c_str(), session.c_str());
      return true;
    }
    // mysql's batch error line: the statement's first line, and the sourced file if any.
    std::string where = " at line " + std::to_string(s.line);
    if (!s.file.empty()) where += " in file: '" + s.file + "'";
    std::fprintf(stderr, "ERROR %u (%s)%s%s: %s\n", e.code, e.sqlstate(), where.c_str(),
                 session.c_str(), e.message.c_str());
    exit_code_ = 1;
    return force_;
  }
  const StatementResult& res = *r;
  std::string out;
  if (res.has_result_set && !res.rows.empty()) {
    if (s.vertical) {
      out = sql::FormatVertical(res);
    } else if (mode_ == OutputMode::kBatch) {
      out = sql::FormatBatch(res);
    } else {
      out = sql::FormatTable(res);
    }
  }
  if (mode_ == OutputMode::kInteractive) out += sql::FormatSummary(res) + "\n\n";
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  return true;
}

bool Shell::Await(ShellSession& s, const std::string& name, bool allow_background) {
  const bool progress = mode_ == OutputMode::kInteractive && isatty(STDERR_FILENO);
  const auto start = Clock::now();
  auto next_progress = start + std::chrono::seconds(1);
  bool progress_shown = false, cancelled = false;
  while (!s.worker->WaitFor(std::chrono::milliseconds(100))) {
    if (g_interrupted.exchange(false) || cancelled) {
      // Cancel again at every poll: a cancel that lands before the statement starts is lost.
      if (!cancelled) {
        if (progress_shown) std::fputs("\r\033[K", stderr);
        progress_shown = false;
        std::fprintf(stderr, "-- cancelling the statement of session '%s' (KILL QUERY %llu)\n",
                     name.c_str(), static_cast<unsigned long long>(s.worker->id()));
      }
      cancelled = true;
      s.worker->Cancel();
      continue;
    }
    if (allow_background && s.worker->waiting_for_lock()) {
      if (progress_shown) std::fputs("\r\033[K", stderr);
      std::printf(
          "-- session '%s' is waiting for a lock (\\session NAME switches; Ctrl-C cancels)\n",
          name.c_str());
      std::fflush(stdout);
      s.background = true;
      return false;
    }
    if (progress && Clock::now() >= next_progress) {
      if (!cancelled) {
        std::fprintf(stderr, "\r-- %llu rows...",
                     static_cast<unsigned long long>(s.worker->progress_rows()));
        progress_shown = true;
      }
      next_progress += std::chrono::milliseconds(500);
    }
  }
  if (progress_shown) std::fputs("\r\033[K", stderr);
  return true;
}

bool Shell::HasFinishedInBackground() const {
  for (const auto& [name, s] : sessions_) {
    if (s.background && s.worker->state() == SessionWorker::State::kFinished) return true;
  }
  return false;
}

bool Shell::ReportFinished() {
  for (auto& [name, s] : sessions_) {
    if (!s.background || s.worker->state() != SessionWorker::State::kFinished) continue;
    s.background = false;
    std::printf("-- session '%s' finished:\n", name.c_str());
    std::fflush(stdout);
    if (!PrintResult(s, name, s.worker->TakeResult())) return false;
  }
  return true;
}

bool Shell::RunStatement(const std::string& sql, bool vertical, int line, const std::string& file) {
  ShellSession& s = current();
  if (s.worker->state() != SessionWorker::State::kIdle && mode_ == OutputMode::kInteractive &&
      s.worker->state() != SessionWorker::State::kFinished) {
    // At the prompt the shell stays free: a statement for a session that still waits is
    // refused, so the user can switch sessions and release what it waits for.
    std::fprintf(stderr,
                 "ERROR: session '%s' is still running its last statement; this one was not "
                 "run (\\session NAME switches, Ctrl-C at the prompt cancels it)\n",
                 current_.c_str());
    return true;
  }
  if (s.worker->state() != SessionWorker::State::kIdle) {
    // The session's last statement still runs (it was left waiting for a lock): a script waits
    // for it here, as a connection would; Ctrl-C cancels it and drops this statement.
    g_interrupted.store(false);
    Await(s, current_, /*allow_background=*/false);
    bool interrupted = g_interrupted.exchange(false);
    if (!ReportFinished()) return false;
    if (interrupted) return true;
  }
  s.vertical = vertical;
  s.line = line;
  s.file = file;
  s.background = false;
  g_interrupted.store(false);
  s.worker->Submit(sql);
  if (!Await(s, current_, /*allow_background=*/true)) return true;
  if (!PrintResult(s, current_, s.worker->TakeResult())) return false;
  // A COMMIT or ROLLBACK here may have released what a background statement waits for: give
  // those a moment, so that their results follow this one instead of the user's next line.
  for (auto& [name, other] : sessions_) {
    if (other.background) other.worker->WaitFor(std::chrono::milliseconds(50));
  }
  return true;
}

void Shell::PrintSessions() {
  StatementResult r;
  r.has_result_set = true;
  r.columns = {"", "session", "connection_id", "state", "statement"};
  for (auto& [name, s] : sessions_) {
    auto state = s.worker->state();
    std::string stmt = state == SessionWorker::State::kIdle ? "" : s.worker->statement();
    if (stmt.size() > 60) stmt = stmt.substr(0, 57) + "...";
    r.rows.push_back({name == current_ ? "*" : "", name, std::to_string(s.worker->id()),
                      SessionWorker::StateName(state), stmt});
  }
  std::fputs(sql::FormatTable(r).c_str(), stdout);
}

void Shell::Help() {
  std::fputs(
      "minnow commands (end SQL statements with ';', or '\\G' for vertical output):\n"
      "  help, \\h             this text\n"
      "  quit, exit, \\q       leave the shell (open transactions roll back)\n"
      "  source FILE, \\. FILE run the statements in FILE\n"
      "  \\c                   clear the statement being typed\n"
      "  \\connect NAME        open a new session NAME and switch to it\n"
      "  \\session NAME        switch to session NAME\n"
      "  \\sessions            list the sessions and what they are doing\n"
      "  \\disconnect NAME     close session NAME (rolls back its transaction)\n"
      "Every session runs on its own thread: when a statement waits for a lock the prompt comes\n"
      "back, and its result is printed once it finishes; the session takes no other statement\n"
      "until then. Ctrl-C cancels a running statement.\n",
      stdout);
}

bool Shell::Command(const std::string& raw, bool* quit) {
  std::string line = Trim(raw);
  while (!line.empty() && line.back() == ';') line = Trim(line.substr(0, line.size() - 1));
  size_t sp = line.find_first_of(" \t");
  std::string word = line.substr(0, sp);
  std::string arg = sp == std::string::npos ? "" : Trim(line.substr(sp));
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

  if (word == "quit" || word == "exit" || word == "\\q") {
    if (!arg.empty() && word != "\\q") return false;
    *quit = true;
    quit_requested_ = true;
    return true;
  }
  if (word == "help" || word == "\\h" || word == "?" || word == "\\?") {
    if (word == "help" && !arg.empty()) return false;  // HELP 'topic' is not a client command
    Help();
    return true;
  }
  if (word == "source" || word == "\\.") {
    if (arg.empty()) {
      std::fprintf(stderr, "ERROR: Usage: \\. <filename> | source <filename>\n");
      return true;
    }
    std::ifstream in(arg);
    if (!in) {
      std::fprintf(stderr, "ERROR: Failed to open file '%s', error: 2\n", arg.c_str());
      if (mode_ != OutputMode::kInteractive) {
        exit_code_ = 1;
        *quit = true;
      }
      return true;
    }
    if (source_depth_ >= 16) {
      std::fprintf(stderr, "ERROR: source files nested too deep\n");
      return true;
    }
    StreamSource src(&in);
    ++source_depth_;
    if (!Run(&src, arg) && mode_ != OutputMode::kInteractive) *quit = true;
    --source_depth_;
    return true;
  }
  if (word == "\\connect") {
    if (arg.empty()) {
      std::fprintf(stderr, "ERROR: Usage: \\connect NAME\n");
    } else if (sessions_.count(arg) != 0) {
      std::fprintf(stderr, "ERROR: session '%s' exists (\\session %s switches to it)\n",
                   arg.c_str(), arg.c_str());
    } else {
      AddSession(arg);
      std::printf("-- session '%s' (connection id %llu)\n", arg.c_str(),
                  static_cast<unsigned long long>(current().worker->id()));
    }
    return true;
  }
  if (word == "\\session") {
    if (sessions_.count(arg) == 0) {
      std::fprintf(stderr, "ERROR: no session '%s' (\\sessions lists them)\n", arg.c_str());
    } else {
      current_ = arg;
    }
    return true;
  }
  if (word == "\\sessions") {
    PrintSessions();
    return true;
  }
  if (word == "\\disconnect") {
    auto it = sessions_.find(arg);
    if (it == sessions_.end()) {
      std::fprintf(stderr, "ERROR: no session '%s' (\\sessions lists them)\n", arg.c_str());
    } else if (sessions_.size() == 1) {
      std::fprintf(stderr, "ERROR: '%s' is the last session (quit leaves the shell)\n",
                   arg.c_str());
    } else {
      sessions_.erase(it);  // cancels a running statement, rolls back, joins the thread
      if (current_ == arg) current_ = sessions_.count("main") ? "main" : sessions_.begin()->first;
      std::printf("-- session '%s' closed; now in '%s'\n", arg.c_str(), current_.c_str());
    }
    return true;
  }
  return false;
}

bool Shell::Run(LineSource* src, const std::string& file) {
  StatementSplitter splitter;
  int line_no = 0, start_line = 0;
  std::string line;
  for (;;) {
    if (mode_ == OutputMode::kInteractive && !ReportFinished()) return false;
    bool interrupted = false;
    if (!src->Read(Prompt(!splitter.empty()), &line, &interrupted)) break;
    if (interrupted) {  // Ctrl-C at the prompt clears the line, as the mysql client does
#ifdef MINNOW_HAVE_LIBEDIT
      std::fputs("^C\n", stdout);  // libedit reads in raw mode: the terminal echoed nothing
#else
      std::fputs("\n", stdout);  // the terminal echoed "^C"
#endif
      splitter.Clear();
      // ... and cancels a statement of this session that was left waiting in the background.
      if (current().worker->state() != SessionWorker::State::kIdle) {
        std::printf("-- cancelling the statement of session '%s'\n", current_.c_str());
        current().worker->Cancel();
      }
      continue;
    }
    ++line_no;
    if (mode_ != OutputMode::kInteractive && !ReportFinished()) return false;
    if (splitter.empty()) {
      std::string t = Trim(line);
      bool quit = false;
      if (t == "\\c") {
        splitter.Clear();
        continue;
      }
      if (!t.empty() && Command(t, &quit)) {
        if (quit) return false;
        continue;
      }
      start_line = line_no;
    } else if (Trim(line) == "\\c") {
      splitter.Clear();
      continue;
    }
    splitter.Feed(line);
    splitter.Feed("\n");
    std::string stmt;
    StatementSplitter::Terminator term;
    while (splitter.Next(&stmt, &term)) {
      if (!RunStatement(stmt, term == StatementSplitter::Terminator::kVertical, start_line, file) &&
          mode_ != OutputMode::kInteractive) {
        return false;
      }
      start_line = line_no;  // what follows on this line starts here
    }
  }
  // End of input: a statement without its ';' still runs, as in the mysql client's batch mode.
  std::string rest = splitter.Pending();
  if (!rest.empty() && !splitter.empty()) {
    if (!RunStatement(rest, false, start_line, file) && mode_ != OutputMode::kInteractive) {
      return false;
    }
  }
  return true;
}

void Shell::Drain() {
  for (auto& [name, s] : sessions_) {
    if (s.worker->state() == SessionWorker::State::kIdle) continue;
    if (s.worker->state() != SessionWorker::State::kFinished) {
      g_interrupted.store(false);
      Await(s, name, /*allow_background=*/false);
    }
    s.background = true;
  }
  ReportFinished();
}

void Usage() {
  std::fputs(
      "usage: minnow [--db PATH] [--read-only] [-e \"SQL\"] [--batch|-B] [--force|-f] [FILE]\n"
      "  --db PATH    the database file (default: $MINNOW_DB, else minnow.db here)\n"
      "  --read-only  open an existing database for reading only; writes fail (1290)\n"
      "  -e SQL       run the statements and exit\n"
      "  --batch, -B  tab-separated output, no prompt (the default for a FILE or a pipe)\n"
      "  --force, -f  go on after an error in a script or -e (the exit code is still 1)\n",
      stderr);
}

int Main(int argc, char** argv) {
  std::string db_path, exec, file;
  bool have_exec = false, batch = false, force = false, read_only = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if ((a == "--db" || a == "-e" || a == "--execute") && i + 1 >= argc) {
      Usage();
      return 2;
    }
    if (a == "--db") {
      db_path = argv[++i];
    } else if (a.starts_with("--db=")) {
      db_path = a.substr(5);
    } else if (a == "-e" || a == "--execute") {
      exec = argv[++i];
      have_exec = true;
    } else if (a.starts_with("--execute=")) {
      exec = a.substr(10);
      have_exec = true;
    } else if (a == "--batch" || a == "-B") {
      batch = true;
    } else if (a == "--force" || a == "-f") {
      force = true;
    } else if (a == "--read-only") {
      read_only = true;
    } else if (a == "--help" || a == "-h" || a == "-?") {
      Usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "minnow: unknown option '%s'\n", argv[i]);
      Usage();
      return 2;
    } else if (file.empty()) {
      file = a;
    } else {
      Usage();
      return 2;
    }
  }
  if (db_path.empty()) {
    const char* env = std::getenv("MINNOW_DB");
    db_path = env != nullptr && *env != '\0' ? env : "minnow.db";
  }

  std::ifstream file_in;
  if (!have_exec && !file.empty()) {
    file_in.open(file);
    if (!file_in) {
      std::fprintf(stderr, "minnow: cannot open '%s'\n", file.c_str());
      return 1;
    }
  }
  const bool interactive = !have_exec && file.empty() && !batch && isatty(STDIN_FILENO);
  OutputMode mode = OutputMode::kBatch;
  if (interactive) {
    mode = OutputMode::kInteractive;
  } else if (have_exec && !batch && isatty(STDOUT_FILENO)) {
    mode = OutputMode::kTable;
  }

  auto db = Database::Open(Options{.path = db_path, .read_only = read_only});
  if (!db.ok()) {
    std::fprintf(stderr, "minnow: cannot open '%s': %s\n", db_path.c_str(),
                 db.status().ToString().c_str());
    return 1;
  }
  auto engine = sql::SqlEngine::Open(db->get());
  if (!engine.ok()) {
    std::fprintf(stderr, "minnow: %s\n", engine.error().ToString().c_str());
    return 1;
  }
  InstallSigint();
  int code = 0;
  {
    Shell shell(engine->get(), mode, force);
    if (have_exec) {
      std::istringstream in(exec);
      StreamSource src(&in);
      shell.Run(&src, "");
    } else if (!file.empty()) {
      StreamSource src(&file_in);
      shell.Run(&src, "");
    } else if (interactive) {
      std::printf(
          "Welcome to the minnow shell. Commands end with ; or \\G.\n"
          "Database: %s\n"
          "Type 'help' or '\\h' for help, '\\c' to clear the current input statement.\n\n",
          db_path.c_str());
      TerminalSource src([&shell] { return shell.HasFinishedInBackground(); },
                         [&shell] { shell.ReportFinished(); });
      shell.Run(&src, "");
      std::printf("Bye\n");
    } else {
      StreamSource src(&std::cin);
      shell.Run(&src, "");
    }
    // At the end of the input, statements still running finish and print, as in mysql; after
    // quit the shell's destructor cancels them (their waits end at once) and rolls back.
    if ((shell.exit_code() == 0 || force) && !shell.quit_requested()) shell.Drain();
    code = shell.exit_code();
  }
  engine->reset();
  Status st = (*db)->Close();
  if (!st.ok()) {
    std::fprintf(stderr, "minnow: closing '%s': %s\n", db_path.c_str(), st.ToString().c_str());
    return 1;
  }
  return code;
}

}  // namespace
}  // namespace minnow::tools

int main(int argc, char** argv) { return minnow::tools::Main(argc, argv); }
