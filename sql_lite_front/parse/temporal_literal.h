#pragma once
// The typed temporal literals DATE 'str' and TIMESTAMP 'str' (and ODBC's {d 'str'} and
// {ts 'str'}), read as MySQL's create_temporal_literal reads them: the text must be exactly a
// date (DATE) or a date with a time of day (TIMESTAMP, a DATETIME whose fsp is the number of
// digits given after the seconds' point, at most 6); trailing text other than spaces, an
// impossible date, and under NO_ZERO_IN_DATE / NO_ZERO_DATE a zero part / the zero date make
// it no such value. TIME 'str' (ODBC's {t 'str'}) is a TIME as MySQL's str_to_time reads it,
// with no warning: a value out of TIME's range, trailing text or a date in the text make it none.

#include <optional>
#include <string_view>

#include "sql_lite_front/temporal.h"

namespace minnow::sql {

struct TemporalLiteralRules {
  bool no_zero_in_date = false;
  bool no_zero_date = false;
};

// REQUIRES: type is kDate or kDateTime. nullopt: `text` is not a value of that type.
std::optional<Temporal> ReadTemporalLiteral(Temporal::Type type, std::string_view text,
                                            const TemporalLiteralRules& rules);
// TIME 'str': nullopt if `text` is not exactly a TIME (fsp: the digits given after the point).
std::optional<Temporal> ReadTimeLiteral(std::string_view text);

}  // namespace minnow::sql
