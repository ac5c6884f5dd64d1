// Typed temporal literals (temporal_literal.h).

#include "sql_lite_front/parse/temporal_literal.h"

#include <algorithm>

namespace minnow::sql {

std::optional<Temporal> ReadTemporalLiteral(Temporal::Type type, std::string_view text,
                                            const TemporalLiteralRules& rules) {
  const TemporalParse parse = ParseTemporalText(text);
  if (!parse.parts.has_value() || parse.trailing || parse.out_of_range) return std::nullopt;
  const bool datetime = type == Temporal::Type::kDateTime;
  if (parse.has_time != datetime) return std::nullopt;
  DateTimeParts p = *parse.parts;
  const bool zero_date = p.year == 0 && p.month == 0 && p.day == 0;
  if (zero_date && rules.no_zero_date) return std::nullopt;
  if (!zero_date && HasZeroInDate(p) && rules.no_zero_in_date) return std::nullopt;
  const int fsp = datetime ? std::min(parse.frac_digits, 6) : 0;
  if (datetime && !RoundToFsp(&p, fsp)) return std::nullopt;
  return MakeTemporal(type, static_cast<uint8_t>(fsp), p);
}

std::optional<Temporal> ReadTimeLiteral(std::string_view text) {
  // str_to_time reads a date's text as a DATE or DATETIME, which a TIME literal refuses: a
  // '-' other than the sign says the text is a date.
  const size_t first = text.find_first_not_of(" \t\n\r");
  if (first == std::string_view::npos) return std::nullopt;
  const size_t digits = text[first] == '-' ? first + 1 : first;
  if (text.find('-', digits) != std::string_view::npos) return std::nullopt;
  const TimeParse parse = ParseTimeText(text);
  if (!parse.micros.has_value() || parse.trailing || parse.out_of_range || parse.clipped)
    return std::nullopt;
  return MakeTime(*parse.micros, static_cast<uint8_t>(std::min(parse.frac_digits, 6)));
}

}  // namespace minnow::sql
