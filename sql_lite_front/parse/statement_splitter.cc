// StatementSplitter (parser.h): the mysql client's way of cutting input into statements.

#include <string>
#include <string_view>

#include "sql_lite_front/parse/parser.h"

namespace minnow::sql {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsSpace(s[b])) ++b;
  while (e > b && IsSpace(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

// "-- " starts a comment only when a space or control character follows the dashes.
bool EndsDashDash(char c) { return static_cast<unsigned char>(c) <= ' '; }

}  // namespace

void StatementSplitter::Feed(std::string_view text) { buffer_.append(text); }

bool StatementSplitter::Next(std::string* statement, Terminator* terminator) {
  size_t i = scanned_;
  size_t n = buffer_.size();
  // A construct that the bytes fed so far cannot decide ("-" at the end could start "-- ")
  // stops the scan; the next Feed resumes there.
  while (i < n) {
    const char c = buffer_[i];
    if (line_comment_) {
      if (c == '\n') line_comment_ = false;
      ++i;
      continue;
    }
    if (block_comment_) {
      if (c == '*') {
        if (i + 1 >= n) break;
        if (buffer_[i + 1] == '/') {
          block_comment_ = false;
          i += 2;
          continue;
        }
      }
      ++i;
      continue;
    }
    if (quote_ != 0) {
      if (c == '\\' && quote_ != '`') {  // an escape: the next byte is the string's
        if (i + 1 >= n) break;
        i += 2;
        continue;
      }
      if (c == quote_) quote_ = 0;  // '' reads as a close and a reopen: the same state
      ++i;
      continue;
    }
    size_t terminator_len = 0;
    Terminator kind = Terminator::kSemicolon;
    switch (c) {
      case '\'':
      case '"':
      case '`':
        quote_ = c;
        ++i;
        continue;
      case '#':
        line_comment_ = true;
        ++i;
        continue;
      case '-':
        if (i + 1 >= n) break;
        if (buffer_[i + 1] == '-') {
          if (i + 2 >= n) break;
          if (EndsDashDash(buffer_[i + 2])) {
            line_comment_ = true;
            i += 3;
            continue;
          }
        }
        ++i;
        continue;
      case '/':
        if (i + 1 >= n) break;
        if (buffer_[i + 1] == '*') {
          block_comment_ = true;
          i += 2;
          continue;
        }
        ++i;
        continue;
      case ';':
        terminator_len = 1;
        break;
      case '\\':
        if (i + 1 >= n) break;
        if (buffer_[i + 1] == 'G') {
          terminator_len = 2;
          kind = Terminator::kVertical;
        } else if (buffer_[i + 1] == 'g') {
          terminator_len = 2;
        } else {
          i += 2;
          continue;
        }
        break;
      default:
        ++i;
        continue;
    }
    if (terminator_len == 0) break;  // undecided at the end of the text fed so far
    std::string text = Trim(std::string_view(buffer_).substr(0, i));
    buffer_.erase(0, i + terminator_len);
    scanned_ = 0;
    if (text.empty()) {  // ";;": nothing to run, as in the mysql client
      i = 0;
      n = buffer_.size();
      continue;
    }
    *statement = std::move(text);
    *terminator = kind;
    return true;
  }
  scanned_ = i;
  return false;
}

std::string StatementSplitter::Pending() const { return Trim(buffer_); }

bool StatementSplitter::empty() const {
  // The pending text starts outside quotes and comments (at the end of a statement).
  const size_t n = buffer_.size();
  size_t i = 0;
  while (i < n) {
    const char c = buffer_[i];
    if (IsSpace(c)) {
      ++i;
    } else if (c == '#' ||
               (c == '-' && i + 2 < n && buffer_[i + 1] == '-' && EndsDashDash(buffer_[i + 2])) ||
               (c == '-' && i + 2 == n && buffer_[i + 1] == '-')) {
      size_t eol = buffer_.find('\n', i);
      if (eol == std::string::npos) return true;
      i = eol + 1;
    } else if (c == '/' && i + 1 < n && buffer_[i + 1] == '*' &&
               !(i + 2 < n && buffer_[i + 2] == '!')) {  // /*! ... */ is SQL
      size_t close = buffer_.find("*/", i + 2);
      if (close == std::string::npos) return true;
      i = close + 2;
    } else {
      return false;
    }
  }
  return true;
}

void StatementSplitter::Clear() {
  buffer_.clear();
  scanned_ = 0;
  quote_ = 0;
  line_comment_ = block_comment_ = false;
}

}  // namespace minnow::sql
