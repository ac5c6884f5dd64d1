// STR_TO_DATE (str_to_date.h).

#include "sql_lite_front/execute/str_to_date.h"

#include <fmt/format.h>

#include <cctype>
#include <string>
#include <string_view>

namespace minnow::sql {
namespace {

constexpr const char* kMonthNames[] = {"january",   "february", "march",    "april",
                                       "may",       "june",     "july",     "august",
                                       "september", "october",  "november", "december"};

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// What the format read.
struct Read {
  DateTimeParts p;
  int day_of_year = 0;    // %j, 0: not given
  int hour12 = -1;        // %h %I %l %r, -1: not given
  int pm = -1;            // %p: 0 AM, 1 PM, -1 not given
  bool has_date = false;  // a date specifier
  bool has_time = false;  // a time specifier
  bool has_fraction = false;
};

class Scanner {
 public:
  Scanner(std::string_view text, Read* r) : s_(text), r_(r) {}

  // Reads `format` from the text; false on a mismatch.
  bool Run(std::string_view format) {
    for (size_t i = 0; i < format.size(); ++i) {
      SkipSpaces();
      if (pos_ >= s_.size()) return Unread(format.substr(i));
      const char f = format[i];
      if (f != '%' || i + 1 == format.size()) {
        if (IsSpace(f)) continue;
        if (s_[pos_] != f) return false;
        ++pos_;
        continue;
      }
      if (!Specifier(format[++i])) return false;
    }
    return true;
  }
  std::string_view rest() const { return s_.substr(pos_); }
  char unsupported = 0;  // a specifier minnow does not read

 private:
  // The text ended: the rest of the format may only be specifiers that read nothing further.
  // MySQL stops there and checks the date it has.
  bool Unread(std::string_view format) {
    for (size_t i = 0; i < format.size(); ++i) {
      if (format[i] == '%' && i + 1 < format.size()) Note(format[++i]);
    }
    return true;
  }
  // Records what kind of part a specifier names (for the result's type).
  void Note(char c) {
    switch (c) {
      case 'Y':
      case 'y':
      case 'm':
      case 'c':
      case 'd':
      case 'e':
      case 'b':
      case 'M':
      case 'j':
        r_->has_date = true;
        break;
      case 'f':
        r_->has_fraction = true;
        r_->has_time = true;
        break;
      case 'H':
      case 'k':
      case 'h':
      case 'I':
      case 'l':
      case 'i':
      case 's':
      case 'S':
      case 'p':
      case 'T':
      case 'r':
        r_->has_time = true;
        break;
      default:
        break;
    }
  }
  void SkipSpaces() {
    while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
  }
  // 1..width digits; false when none.
  bool Number(size_t width, int* out, size_t* digits = nullptr) {
    size_t n = 0;
    int v = 0;
    while (n < width && pos_ < s_.size() && IsDigit(s_[pos_])) {
      v = v * 10 + (s_[pos_] - '0');
      ++pos_;
      ++n;
    }
    if (digits != nullptr) *digits = n;
    if (n == 0) return false;
    *out = v;
    return true;
  }
  bool Literal(char c) {
    SkipSpaces();
    if (pos_ >= s_.size() || s_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool MonthName(bool abbreviated) {
    for (int m = 0; m < 12; ++m) {
      const std::string_view name = kMonthNames[m];
      const size_t len = abbreviated ? 3 : name.size();
      if (pos_ + len > s_.size()) continue;
      bool same = true;
      for (size_t k = 0; k < len && same; ++k) {
        same = std::tolower(static_cast<unsigned char>(s_[pos_ + k])) == name[k];
      }
      if (same) {
        pos_ += len;
        r_->p.month = m + 1;
        return true;
      }
    }
    return false;
  }
  bool AmPm() {
    if (pos_ + 2 > s_.size()) return false;
    const char a = static_cast<char>(std::toupper(static_cast<unsigned char>(s_[pos_])));
    const char m = static_cast<char>(std::toupper(static_cast<unsigned char>(s_[pos_ + 1])));
    if ((a != 'A' && a != 'P') || m != 'M') return false;
    r_->pm = a == 'P' ? 1 : 0;
    pos_ += 2;
    return true;
  }
  bool Specifier(char c) {
    Note(c);
    DateTimeParts& p = r_->p;
    switch (c) {
      case 'Y': {
        size_t digits = 0;
        if (!Number(4, &p.year, &digits)) return false;
        if (digits <= 2) p.year += p.year < 70 ? 2000 : 1900;
        return true;
      }
      case 'y':
        if (!Number(2, &p.year)) return false;
        p.year += p.year < 70 ? 2000 : 1900;
        return true;
      case 'm':
      case 'c':
        return Number(2, &p.month);
      case 'd':
      case 'e':
        return Number(2, &p.day);
      case 'j':
        return Number(3, &r_->day_of_year);
      case 'H':
      case 'k':
        return Number(2, &p.hour);
      case 'h':
      case 'I':
      case 'l':
        return Number(2, &r_->hour12);
      case 'i':
        return Number(2, &p.minute);
      case 's':
      case 'S':
        return Number(2, &p.second);
      case 'f': {
        size_t digits = 0;
        int v = 0;
        if (!Number(6, &v, &digits)) return false;
        for (size_t k = digits; k < 6; ++k) v *= 10;
        p.micro = v;
        return true;
      }
      case 'p':
        return AmPm();
      case 'T':
        return Number(2, &p.hour) && Literal(':') && Number(2, &p.minute) && Literal(':') &&
               Number(2, &p.second);
      case 'r':
        if (!(Number(2, &r_->hour12) && Literal(':') && Number(2, &p.minute) && Literal(':') &&
              Number(2, &p.second))) {
          return false;
        }
        SkipSpaces();
        return AmPm();
      case 'b':
        return MonthName(true);
      case 'M':
        return MonthName(false);
      case '%':
        if (s_[pos_] != '%') return false;
        ++pos_;
        return true;
      default:
        // Week and weekday specifiers (%a %W %U %u %V %v %X %x %w %D): not read by minnow.
        unsupported = c;
        return false;
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  Read* r_;
};

// `type`: "datetime", or "time" for a format of a time alone (MySQL names the result's type).
Value Incorrect(EvalState& st, const std::string& text, std::string_view type = "datetime") {
  st.warnings.push_back(
      SqlWarning{"Warning", kErWrongValueForType,
                 fmt::format("Incorrect {} value: '{}' for function str_to_date", type, text)});
  return Value::Null();
}

}  // namespace

Value StrToDate(const Value& text_value, const Value& format_value, EvalState& st) {
  if (text_value.is_null() || format_value.is_null()) return Value::Null();
  const std::string text = text_value.ToString();
  const std::string format = format_value.ToString();
  Read r;
  Scanner scan(text, &r);
  const bool matched = scan.Run(format);
  if (scan.unsupported != 0) {
    if (!st.error.has_value()) {
      st.error = SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support ",
                        "'STR_TO_DATE %", std::string(1, scan.unsupported), "'");
    }
    return Value::Null();
  }
  const std::string_view type = r.has_date ? "datetime" : "time";
  if (!matched) return Incorrect(st, text, type);
  DateTimeParts& p = r.p;
  if (r.hour12 >= 0) {
    if (r.hour12 < 1 || r.hour12 > 12) return Incorrect(st, text, type);
    p.hour = r.hour12 % 12 + (r.pm == 1 ? 12 : 0);
  } else if (r.pm >= 0) {
    return Incorrect(st, text, type);  // %p needs a 12-hour clock
  }
  if (r.day_of_year > 0) {
    if (r.day_of_year > 366) return Incorrect(st, text, type);
    const DateTimeParts d = FromDayNumber(DayNumber(p.year, 1, 1) + r.day_of_year - 1);
    if (d.year != p.year) return Incorrect(st, text, type);
    p.month = d.month;
    p.day = d.day;
  }
  if (p.month > 12 || p.day > 31 || p.hour > 23 || p.minute > 59 || p.second > 59 ||
      (p.month > 0 && p.day > DaysInMonth(p.year, p.month))) {
    return Incorrect(st, text, type);
  }
  const std::string_view rest = scan.rest();
  bool only_spaces = true;
  for (char c : rest) only_spaces = only_spaces && IsSpace(c);
  if (!only_spaces) {
    st.warnings.push_back(
        SqlWarning{"Warning", kErTruncatedWrongValue,
                   fmt::format("Truncated incorrect {} value: '{}'", type, text)});
  }
  if (!r.has_date) {  // a format of a time alone: a TIME
    p.year = p.month = p.day = 0;
    return Value::FromTemporal(
        MakeTemporal(Temporal::Type::kTime, static_cast<uint8_t>(r.has_fraction ? 6 : 0), p));
  }
  if (!r.has_time) return Value::FromTemporal(MakeTemporal(Temporal::Type::kDate, 0, p));
  return Value::FromTemporal(
      MakeTemporal(Temporal::Type::kDateTime, static_cast<uint8_t>(r.has_fraction ? 6 : 0), p));
}

}  // namespace minnow::sql
