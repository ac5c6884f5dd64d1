#pragma once
// The `minnow` shell's input: where its lines come from (a script, a pipe, or the terminal with
// libedit's line editing and history) and Ctrl-C, which interrupts a read at the prompt or a
// statement that runs.

#include <atomic>
#include <functional>
#include <istream>
#include <string>
#include <string_view>

namespace minnow::tools {

// Set by the SIGINT handler (InstallSigint); the shell takes it with exchange(false).
extern std::atomic<bool> g_interrupted;

// Ctrl-C sets g_interrupted instead of ending the process, and interrupts a blocking read.
void InstallSigint();

// `s` without leading and trailing white space.
std::string Trim(std::string_view s);

// Where input lines come from.
class LineSource {
 public:
  virtual ~LineSource() = default;
  // The next line without its newline; false at the end of input. *interrupted when Ctrl-C
  // ended the read (the line read so far is dropped).
  virtual bool Read(const std::string& prompt, std::string* line, bool* interrupted) = 0;
};

// A script file, a pipe or -e's text.
class StreamSource : public LineSource {
 public:
  explicit StreamSource(std::istream* in) : in_(in) {}
  bool Read(const std::string&, std::string* line, bool* interrupted) override {
    *interrupted = false;
    return static_cast<bool>(std::getline(*in_, *line));
  }

 private:
  std::istream* in_;
};

// The terminal: libedit's readline with history (~/.minnow_history), or a plain read of stdin
// when built without libedit.
//
// While the prompt waits for a key, about every 100 ms it asks `pending` whether there is
// output to show (a background session's result); if so it clears the prompt's line, calls
// `report` (which prints whole lines to stdout) and draws the prompt and the text typed so far
// again, so results appear when they happen rather than after the next Enter.
class TerminalSource : public LineSource {
 public:
  TerminalSource(std::function<bool()> pending, std::function<void()> report);
  ~TerminalSource() override;
  bool Read(const std::string& prompt, std::string* line, bool* interrupted) override;

 private:
  std::string history_;
};

}  // namespace minnow::tools
