// The `minnow` shell's input (see minnow_shell_input.h).

#include "tools/minnow_shell_input.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cwchar>
#include <utility>

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

// The terminal's idle hooks (TerminalSource's contract); one terminal per process.
std::function<bool()> g_pending;
std::function<void()> g_report;

// Waits until stdin is readable, showing pending output every 100 ms meanwhile. Returns false
// when Ctrl-C interrupted the wait. `redraw` draws the prompt and the typed text again.
bool WaitForKey(void (*redraw)()) {
  for (;;) {
    pollfd p{STDIN_FILENO, POLLIN, 0};
    const int r = ::poll(&p, 1, 100);
    if (g_interrupted.load()) return false;
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return true;  // let the read report the error
    if (r == 0 && g_pending && g_pending()) {
      std::fputs("\r\033[K", stdout);
      g_report();
      std::fflush(stdout);
      redraw();
    }
  }
}

#ifdef MINNOW_HAVE_LIBEDIT
void RedrawLine() { rl_forced_update_display(); }

// libedit's character reader (rl_getc_function): one character as a code point, read after
// WaitForKey; -1 (the end of the read) at EOF or Ctrl-C. libedit takes the int as a wide
// character, so the UTF-8 bytes are decoded here under the (UTF-8) LC_CTYPE.
extern "C" int ReadKey(FILE*) {
  std::mbstate_t state{};
  for (;;) {
    if (!WaitForKey(RedrawLine)) return -1;
    char byte;
    const ssize_t n = ::read(STDIN_FILENO, &byte, 1);
    if (n < 0 && errno == EINTR) {
      if (g_interrupted.load()) return -1;
      continue;
    }
    if (n != 1) return -1;
    wchar_t wc;
    const size_t got = std::mbrtowc(&wc, &byte, 1, &state);
    if (got == static_cast<size_t>(-2)) continue;  // more bytes of this character to come
    if (got == static_cast<size_t>(-1)) {          // not UTF-8: dropped, as libedit drops it
      state = std::mbstate_t{};
      continue;
    }
    return static_cast<int>(wc);
  }
}
#else
std::string g_prompt;
void RedrawPrompt() {
  std::fputs(g_prompt.c_str(), stdout);  // the typed text stays in the terminal's buffer
  std::fflush(stdout);
}
#endif

}  // namespace

TerminalSource::TerminalSource(std::function<bool()> pending, std::function<void()> report) {
  g_pending = std::move(pending);
  g_report = std::move(report);
  UseUtf8CharacterLocale();
#ifdef MINNOW_HAVE_LIBEDIT
  rl_getc_function = ReadKey;
  if (const char* home = std::getenv("HOME")) history_ = std::string(home) + "/.minnow_history";
  if (!history_.empty()) read_history(history_.c_str());
#endif
}

TerminalSource::~TerminalSource() {
#ifdef MINNOW_HAVE_LIBEDIT
  if (!history_.empty()) write_history(history_.c_str());
#endif
  g_pending = nullptr;
  g_report = nullptr;
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
  g_prompt = prompt;
  if (!WaitForKey(RedrawPrompt)) {
    *interrupted = g_interrupted.exchange(false);
    return true;
  }
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
