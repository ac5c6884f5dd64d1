// The `minnow` shell's input (see minnow_shell_input.h).

#include "tools/minnow_shell_input.h"

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>

#ifdef MINNOW_HAVE_LIBEDIT
#include <editline/readline.h>
#endif

namespace minnow::tools {

std::atomic<bool> g_interrupted{false};

namespace {
extern "C" void OnSigint(int) { g_interrupted.store(true); }
}  // namespace

void InstallSigint() {
  struct sigaction sa {};
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a read at the prompt returns, so the line can be cleared
  sigaction(SIGINT, &sa, nullptr);
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

namespace {

// libedit reads the terminal as multibyte characters of LC_CTYPE; in the "C" locale every byte
// above 0x7f is an invalid character and is dropped, so 'José' would reach the shell as 'Jos'.
// Take the user's locale, and where that is not UTF-8 (unset, "C", "POSIX") fall back to
// C.UTF-8: SQL text is UTF-8 whatever the terminal's locale says.
void UseUtf8CharacterLocale() {
  const char* got = setlocale(LC_CTYPE, "");
  const char* codeset = got != nullptr ? nl_langinfo(CODESET) : nullptr;
  if (codeset != nullptr &&
      (std::string_view(codeset) == "UTF-8" || std::string_view(codeset) == "utf8")) {
    return;
  }
  if (setlocale(LC_CTYPE, "C.UTF-8") == nullptr) setlocale(LC_CTYPE, "C.utf8");
}

}  // namespace

TerminalSource::TerminalSource() {
  UseUtf8CharacterLocale();
#ifdef MINNOW_HAVE_LIBEDIT
  if (const char* home = std::getenv("HOME")) history_ = std::string(home) + "/.minnow_history";
  if (!history_.empty()) read_history(history_.c_str());
#endif
}

TerminalSource::~TerminalSource() {
#ifdef MINNOW_HAVE_LIBEDIT
  if (!history_.empty()) write_history(history_.c_str());
#endif
}

bool TerminalSource::Read(const std::string& prompt, std::string* line, bool* interrupted) {
  g_interrupted.store(false);
#ifdef MINNOW_HAVE_LIBEDIT
  char* text = readline(prompt.c_str());
  *interrupted = g_interrupted.exchange(false);
  if (text == nullptr) {
    if (*interrupted) return true;
    return false;
  }
  *line = text;
  std::free(text);
  if (*interrupted) return true;
  if (!Trim(*line).empty()) add_history(line->c_str());
  return true;
#else
  std::fputs(prompt.c_str(), stdout);
  std::fflush(stdout);
  char* buf = nullptr;
  size_t cap = 0;
  ssize_t n = ::getline(&buf, &cap, stdin);
  *interrupted = g_interrupted.exchange(false);
  if (n < 0) {
    std::free(buf);
    clearerr(stdin);
    return *interrupted;
  }
  line->assign(buf, static_cast<size_t>(n));
  std::free(buf);
  if (!line->empty() && line->back() == '\n') line->pop_back();
  return true;
#endif
}

}  // namespace minnow::tools
