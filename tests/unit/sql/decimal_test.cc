#include "sql_lite_front/decimal.h"

#include <catch2/catch.hpp>
#include <limits>
#include <string>

namespace minnow::sql {
namespace {

Decimal D(const char* s) {
  std::optional<Decimal> d = Decimal::Parse(s);
  REQUIRE(d.has_value());
  return *d;
}

std::string Str(const std::optional<Decimal>& d) { return d.has_value() ? d->ToString() : "OVF"; }

TEST_CASE("decimal parse and print keep the written scale", "[sql][decimal]") {
  CHECK(D("0.10").ToString() == "0.10");
  CHECK(D("-12.5").ToString() == "-12.5");
  CHECK(D("007").ToString() == "7");
  CHECK(D(".5").ToString() == "0.5");
  CHECK(!Decimal::Parse("1e3").has_value());
  CHECK(!Decimal::Parse("").has_value());
  CHECK(!Decimal::Parse(std::string(66, '9')).has_value());  // past 65 digits
  CHECK(Decimal::Parse(std::string(65, '9')).has_value());
}

TEST_CASE("decimal arithmetic follows MySQL's scales", "[sql][decimal]") {
  CHECK(Str(Decimal::Add(D("0.1"), D("0.2"))) == "0.3");
  CHECK(Str(Decimal::Sub(D("1"), D("0.25"))) == "0.75");
  CHECK(Str(Decimal::Mul(D("1.5"), D("1.25"))) == "1.875");
  CHECK(Str(Decimal::Div(D("1"), D("3"))) == "0.3333");
  CHECK(Str(Decimal::Div(D("2"), D("3"))) == "0.6667");  // shown rounded half up
  CHECK(Str(Decimal::Div(D("-2"), D("3"))) == "-0.6667");
  CHECK(Str(Decimal::Div(D("1"), D("0"))) == "OVF");  // the caller makes it NULL
  CHECK(Str(Decimal::Mod(D("-7.5"), D("2"))) == "-1.5");
  std::optional<Decimal> third = Decimal::Div(D("1"), D("3"));
  CHECK(Str(Decimal::Mul(*third, D("3"))) == "1.0000");
  CHECK(Decimal::Compare(*Decimal::Mul(*third, D("3")), D("1")) < 0);  // 0.999999999 inside
}

TEST_CASE("decimal overflow past 65 digits", "[sql][decimal]") {
  Decimal big = D(std::string(65, '9').c_str());
  CHECK(Str(Decimal::Add(big, D("1"))) == "OVF");
  CHECK(Str(Decimal::Mul(big, D("10"))) == "OVF");
  CHECK(Str(Decimal::Sub(big, D("1"))).size() == 65);
}

TEST_CASE("decimal rounding and conversions", "[sql][decimal]") {
  CHECK(Str(D("2.5").Round(0)) == "3");
  CHECK(Str(D("-2.5").Round(0)) == "-3");
  CHECK(Str(D("1.2345").Round(2)) == "1.23");
  CHECK(Str(D("1.5").Round(3)) == "1.500");
  CHECK(Str(D("15").Round(-1)) == "20");
  CHECK(D("-1.5").Floor().ToString() == "-2");
  CHECK(D("-1.5").Ceil().ToString() == "-1");
  CHECK(D("-1.5").Truncate().ToString() == "-1");
  int64_t i = 0;
  CHECK(D("9223372036854775807.4").ToInt64(&i));
  CHECK(i == INT64_MAX);
  CHECK(!D("9223372036854775807.5").ToInt64(&i));
  uint64_t u = 0;
  CHECK(D("18446744073709551615").ToUInt64(&u));
  CHECK(u == UINT64_MAX);
  CHECK(!D("-1").ToUInt64(&u));
  CHECK(D("0.1").ToDouble() == 0.1);
  CHECK(Decimal::FromInt128(static_cast<Int128>(INT64_MAX) * 4).ToString() ==
        "36893488147419103228");
  CHECK(Decimal::Compare(D("1.0"), D("1")) == 0);
}

TEST_CASE("a double as a decimal is its shortest digits", "[sql][decimal]") {
  CHECK(Str(Decimal::FromDouble(0.3)) == "0.3");
  CHECK(Str(Decimal::FromDouble(0.1 + 0.2)) == "0.30000000000000004");
  CHECK(Str(Decimal::FromDouble(-2.5)) == "-2.5");
  CHECK(Str(Decimal::FromDouble(1e20)) == "100000000000000000000");
  CHECK(Str(Decimal::FromDouble(1e-300)) == "0.000000000000000000000000000000");  // 30 digits
  CHECK(Str(Decimal::FromDouble(1e64)) == "1" + std::string(64, '0'));
  CHECK(!Decimal::FromDouble(1e65).has_value());  // 66 digits
  CHECK(!Decimal::FromDouble(std::numeric_limits<double>::infinity()).has_value());
  CHECK(!Decimal::FromDouble(std::numeric_limits<double>::quiet_NaN()).has_value());
}

}  // namespace
}  // namespace minnow::sql
