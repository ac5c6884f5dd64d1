// The SQL lexer (lexer.h).

#include "sql_lite_front/parse/lexer.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sql_lite_front/version.h"

namespace minnow::sql {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}
// A byte that may appear in a bare identifier (MySQL: [0-9a-zA-Z$_] and any non-ASCII byte).
bool IsIdentChar(char c) {
  auto u = static_cast<unsigned char>(c);
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
         u >= 0x80;
}
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// "ab" hex digits -> bytes; an odd count is padded on the left with a 0, as MySQL does for 0x.
std::string DecodeHex(std::string_view digits) {
  std::string out;
  size_t i = 0;
  if (digits.size() % 2 == 1) {
    out.push_back(static_cast<char>(HexValue(digits[0])));
    i = 1;
  }
  for (; i < digits.size(); i += 2) {  // an even count remains
    out.push_back(static_cast<char>(HexValue(digits[i]) * 16 + HexValue(digits[i + 1])));
  }
  return out;
}

char UpperAscii(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; }
char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

}  // namespace

class TokenStream::Lexer {
 public:
  Lexer(std::string_view sql, bool ansi_quotes) : sql_(sql), ansi_quotes_(ansi_quotes) {}

  // The next token; after a kError token (or the input's end) only kEnd tokens.
  Token Take() {
    if (!finished_) {
      if (!SkipSpaceAndComments()) {
        Emit(TokenKind::kError, pos_, pos_, "");
        finished_ = true;
        return std::move(out_);
      }
      if (pos_ < sql_.size()) {
        if (!Lex()) finished_ = true;  // Lex emitted a kError token
        return std::move(out_);
      }
      finished_ = true;
      if (exec_comment_) {
        Emit(TokenKind::kError, exec_comment_begin_, exec_comment_begin_, "");
        return std::move(out_);
      }
    }
    Token end;
    end.kind = TokenKind::kEnd;
    end.begin = end.end = static_cast<uint32_t>(sql_.size());
    end.line = line_;
    return end;
  }

 private:
  char At(size_t i) const { return i < sql_.size() ? sql_[i] : '\0'; }

  void Advance(size_t n) {
    for (size_t i = 0; i < n && pos_ < sql_.size(); ++i, ++pos_) {
      if (sql_[pos_] == '\n') ++line_;
    }
  }

  void Emit(TokenKind kind, size_t begin, size_t end, std::string text) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.begin = static_cast<uint32_t>(begin);
    t.end = static_cast<uint32_t>(end);
    t.line = token_line_;
    last_kind_ = kind;
    last_end_ = end;
    emitted_ = true;
    out_ = std::move(t);
  }

  // Skips whitespace and comments (and the markers of executable comments). False on an
  // unterminated comment, with pos_ at its start.
  bool SkipSpaceAndComments() {
    for (;;) {
      token_line_ = line_;
      char c = At(pos_);
      if (pos_ >= sql_.size()) return true;
      if (IsSpace(c)) {
        Advance(1);
      } else if (c == '#' || (c == '-' && At(pos_ + 1) == '-' &&
                              (pos_ + 2 >= sql_.size() || IsSpace(At(pos_ + 2)) ||
                               static_cast<unsigned char>(At(pos_ + 2)) < 0x20))) {
        while (pos_ < sql_.size() && sql_[pos_] != '\n') Advance(1);
      } else if (c == '/' && At(pos_ + 1) == '*') {
        if (At(pos_ + 2) == '!' && !exec_comment_) {
          // Executable comment: its content is SQL when it has no version number or one no
          // newer than minnow's (MySQL's: five digits, or six); else it is a comment.
          size_t digits = 0;
          while (digits < 6 && IsDigit(At(pos_ + 3 + digits))) ++digits;
          if (digits == 5 || digits == 6) {
            const std::string_view number = sql_.substr(pos_ + 3, digits);
            if (std::stoul(std::string(number)) > kServerVersionId) {
              size_t close = sql_.find("*/", pos_ + 3 + digits);
              if (close == std::string_view::npos) return false;
              Advance(close + 2 - pos_);
              continue;
            }
          } else {
            digits = 0;  // "/*!1 x */": no version; the digits are SQL
          }
          exec_comment_ = true;
          exec_comment_begin_ = pos_;
          Advance(3 + digits);
          continue;
        }
        size_t close = sql_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) return false;
        Advance(close + 2 - pos_);
      } else if (exec_comment_ && c == '*' && At(pos_ + 1) == '/') {
        exec_comment_ = false;
        Advance(2);
      } else {
        return true;
      }
    }
  }

  // Lexes one token at pos_. False after emitting a kError token.
  bool Lex() {
    const size_t begin = pos_;
    const char c = sql_[pos_];
    if (c == '"' && ansi_quotes_) return LexQuotedIdent('"');
    if (c == '\'' || c == '"') return LexString(c);
    if (c == '`') return LexQuotedIdent('`');
    if ((c == 'x' || c == 'X') && At(pos_ + 1) == '\'') return LexHexString();
    if (c == '0' && (At(pos_ + 1) == 'x' || At(pos_ + 1) == 'X') && IsHexDigit(At(pos_ + 2))) {
      size_t end = pos_ + 2;
      while (IsHexDigit(At(end))) ++end;
      if (!IsIdentChar(At(end))) {
        Emit(TokenKind::kHexString, begin, end, DecodeHex(sql_.substr(begin + 2, end - begin - 2)));
        Advance(end - begin);
        return true;
      }
      // "0xzz" is an identifier, as in MySQL: fall through.
    }
    if (IsDigit(c) || (c == '.' && IsDigit(At(pos_ + 1)) && !AfterName())) return LexNumber();
    if (IsIdentChar(c)) {
      size_t end = pos_;
      while (IsIdentChar(At(end))) ++end;
      Emit(TokenKind::kIdent, begin, end, std::string(sql_.substr(begin, end - begin)));
      Advance(end - begin);
      return true;
    }
    if (c == '@' && At(pos_ + 1) == '@') return LexSysVar();
    return LexOperator();
  }

  // True if the previous token is a name ending right here ("t.5" is not a number).
  bool AfterName() const {
    return emitted_ && (last_kind_ == TokenKind::kIdent || last_kind_ == TokenKind::kQuotedIdent) &&
           last_end_ == pos_;
  }

  bool LexString(char quote) {
    const size_t begin = pos_;
    std::string text;
    size_t i = pos_ + 1;
    for (;;) {
      if (i >= sql_.size()) {
        Emit(TokenKind::kError, begin, begin, "");
        return false;
      }
      char c = sql_[i];
      if (c == quote) {
        if (At(i + 1) == quote) {  // '' inside '...'
          text.push_back(quote);
          i += 2;
          continue;
        }
        ++i;
        break;
      }
      if (c == '\\') {
        if (i + 1 >= sql_.size()) {
          Emit(TokenKind::kError, begin, begin, "");
          return false;
        }
        char e = sql_[i + 1];
        switch (e) {
          case '0':
            text.push_back('\0');
            break;
          case 'b':
            text.push_back('\b');
            break;
          case 'n':
            text.push_back('\n');
            break;
          case 'r':
            text.push_back('\r');
            break;
          case 't':
            text.push_back('\t');
            break;
          case 'Z':
            text.push_back('\x1a');
            break;
          case '%':
          case '_':
            text.push_back('\\');
            text.push_back(e);
            break;
          default:
            text.push_back(e);
            break;
        }
        i += 2;
        continue;
      }
      text.push_back(c);
      ++i;
    }
    Emit(TokenKind::kString, begin, i, std::move(text));
    Advance(i - begin);
    return true;
  }

  bool LexQuotedIdent(char quote) {
    const size_t begin = pos_;
    std::string text;
    size_t i = pos_ + 1;
    for (;;) {
      if (i >= sql_.size()) {
        Emit(TokenKind::kError, begin, begin, "");
        return false;
      }
      if (sql_[i] == quote) {
        if (At(i + 1) == quote) {
          text.push_back(quote);
          i += 2;
          continue;
        }
        ++i;
        break;
      }
      text.push_back(sql_[i++]);
    }
    Emit(TokenKind::kQuotedIdent, begin, i, std::move(text));
    Advance(i - begin);
    return true;
  }

  bool LexHexString() {
    const size_t begin = pos_;
    size_t i = pos_ + 2;
    while (IsHexDigit(At(i))) ++i;
    if (At(i) != '\'' || (i - begin - 2) % 2 != 0) {
      Emit(TokenKind::kError, begin, begin, "");
      return false;
    }
    Emit(TokenKind::kHexString, begin, i + 1, DecodeHex(sql_.substr(begin + 2, i - begin - 2)));
    Advance(i + 1 - begin);
    return true;
  }

  bool LexNumber() {
    const size_t begin = pos_;
    size_t i = pos_;
    bool decimal = false;
    while (IsDigit(At(i))) ++i;
    if (At(i) == '.') {
      decimal = true;
      ++i;
      while (IsDigit(At(i))) ++i;
    }
    if (At(i) == 'e' || At(i) == 'E') {
      size_t j = i + 1;
      if (At(j) == '+' || At(j) == '-') ++j;
      if (IsDigit(At(j))) {
        decimal = true;
        i = j;
        while (IsDigit(At(i))) ++i;
      }
    }
    if (!decimal && IsIdentChar(At(i))) {
      // "1abc" is an identifier in MySQL.
      while (IsIdentChar(At(i))) ++i;
      Emit(TokenKind::kIdent, begin, i, std::string(sql_.substr(begin, i - begin)));
    } else {
      Emit(decimal ? TokenKind::kDecimal : TokenKind::kInteger, begin, i,
           std::string(sql_.substr(begin, i - begin)));
    }
    Advance(i - begin);
    return true;
  }

  bool LexSysVar() {
    const size_t begin = pos_;
    size_t i = pos_ + 2;
    size_t name_begin = i;
    while (IsIdentChar(At(i))) ++i;
    if (i == name_begin) {
      Emit(TokenKind::kError, begin, begin, "");
      return false;
    }
    if (At(i) == '.' && IsIdentChar(At(i + 1))) {
      ++i;
      while (IsIdentChar(At(i))) ++i;
    }
    Emit(TokenKind::kSysVar, begin, i, std::string(sql_.substr(name_begin, i - name_begin)));
    Advance(i - begin);
    return true;
  }

  bool LexOperator() {
    static constexpr std::string_view kOps[] = {
        "<=>", "<=", ">=", "<>", "!=", "||", "&&", ":=", "<<", ">>", "=", "<", ">", "+", "-", "*",
        "/",   "%",  "(",  ")",  ",",  ".",  ";",  "!",  "~",  "&",  "|", "^", "@", "?", "{", "}",
    };
    const size_t begin = pos_;
    for (std::string_view op : kOps) {
      if (sql_.substr(pos_, op.size()) == op) {
        Emit(TokenKind::kOperator, begin, begin + op.size(), std::string(op));
        Advance(op.size());
        return true;
      }
    }
    Emit(TokenKind::kError, begin, begin, "");
    return false;
  }

  std::string_view sql_;
  bool ansi_quotes_ = false;
  size_t pos_ = 0;
  uint32_t line_ = 1, token_line_ = 1;
  bool exec_comment_ = false;
  size_t exec_comment_begin_ = 0;
  bool finished_ = false;
  Token out_;  // the token Emit made
  // The last token emitted (AfterName).
  bool emitted_ = false;
  TokenKind last_kind_ = TokenKind::kEnd;
  size_t last_end_ = 0;
};

TokenStream::TokenStream(std::string_view sql, bool ansi_quotes)
    : lexer_(std::make_unique<Lexer>(sql, ansi_quotes)) {}
TokenStream::~TokenStream() = default;
TokenStream::TokenStream(TokenStream&&) noexcept = default;
TokenStream& TokenStream::operator=(TokenStream&&) noexcept = default;

Token TokenStream::Next() { return lexer_->Take(); }

std::vector<Token> Tokenize(std::string_view sql, bool ansi_quotes) {
  TokenStream stream(sql, ansi_quotes);
  std::vector<Token> tokens;
  for (;;) {
    tokens.push_back(stream.Next());
    if (tokens.back().kind == TokenKind::kEnd) return tokens;
  }
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (UpperAscii(a[i]) != UpperAscii(b[i])) return false;
  }
  return true;
}

std::string ToUpperAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = UpperAscii(c);
  return out;
}

std::string ToLowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = LowerAscii(c);
  return out;
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

std::string QuoteStringLiteral(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    if (c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace minnow::sql
