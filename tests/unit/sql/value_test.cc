#include "sql_lite_front/value.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "sql_lite_front/status/status_counters.h"

namespace minnow::sql {
namespace {

TEST_CASE("doubles print as MySQL prints a DOUBLE", "[sql][value]") {
  CHECK(Value::Double(0.1).ToString() == "0.1");
  CHECK(Value::Double(2.5).ToString() == "2.5");
  CHECK(Value::Double(1e20).ToString() == "1e20");
  CHECK(Value::Double(1e15).ToString() == "1e15");
  CHECK(Value::Double(1e14).ToString() == "100000000000000");
  CHECK(Value::Double(100).ToString() == "100");
  CHECK(Value::Double(0).ToString() == "0");
  CHECK(Value::Double(-0.0).ToString() == "-0");
  CHECK(Value::Double(-1.5).ToString() == "-1.5");
  CHECK(Value::Double(0.1 + 0.2).ToString() == "0.30000000000000004");
  CHECK(Value::Double(1.5e-20).ToString() == "1.5e-20");
  CHECK(Value::Double(0.0001).ToString() == "0.0001");
  CHECK(Value::Double(123456.789).ToString() == "123456.789");
  CHECK(Value::Double(1234567890123456789.0).ToString() == "1.2345678901234568e18");
}

TEST_CASE("printed doubles read back as the same double", "[sql][value]") {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, 8);
    if (std::isnan(d) || std::isinf(d)) continue;
    std::string s = Value::Double(d).ToString();
    CHECK(std::strtod(s.c_str(), nullptr) == d);
  }
}

TEST_CASE("integers and strings print as they are", "[sql][value]") {
  CHECK(Value::Int(-42).ToString() == "-42");
  CHECK(Value::Int(std::numeric_limits<int64_t>::min()).ToString() == "-9223372036854775808");
  CHECK(Value::String("a b").ToString() == "a b");
}

TEST_CASE("conversions in expressions follow MySQL", "[sql][value]") {
  CHECK(Value::String("12abc").ToInt() == 12);
  CHECK(Value::String("x").ToInt() == 0);
  CHECK(Value::String("  -7").ToInt() == -7);
  CHECK(Value::String("2.5").ToDouble() == 2.5);
  CHECK(Value::String("1e3x").ToDouble() == 1000);
  CHECK(Value::String(".5").ToDouble() == 0.5);
  CHECK(Value::String("-").ToDouble() == 0);
  CHECK(Value::Double(2.5).ToInt() == 3);
  CHECK(Value::Double(-2.5).ToInt() == -3);
  CHECK(Value::Double(2.4).ToInt() == 2);
  CHECK(Value::Double(1e300).ToInt() == std::numeric_limits<int64_t>::max());
  CHECK(Value::String("99999999999999999999").ToInt() == std::numeric_limits<int64_t>::max());
  CHECK(Value::Int(3).ToDouble() == 3.0);
  CHECK(Value::Null().ToInt() == 0);
}

TEST_CASE("truth: non-zero numbers, strings as numbers", "[sql][value]") {
  CHECK(Value::Int(1).IsTrue());
  CHECK_FALSE(Value::Int(0).IsTrue());
  CHECK(Value::Double(0.5).IsTrue());
  CHECK_FALSE(Value::Double(0).IsTrue());
  CHECK(Value::String("1abc").IsTrue());
  CHECK_FALSE(Value::String("abc").IsTrue());
  CHECK_FALSE(Value::Null().IsTrue());
}

TEST_CASE("comparison: numbers numerically, strings as bytes, mixed as numbers", "[sql][value]") {
  CHECK(Value::Compare(Value::Int(1), Value::Int(2)) < 0);
  CHECK(Value::Compare(Value::Int(2), Value::Int(2)) == 0);
  CHECK(Value::Compare(Value::Int(2), Value::Double(1.5)) > 0);
  CHECK(Value::Compare(Value::Double(1.5), Value::Int(2)) < 0);
  CHECK(Value::Compare(Value::Int(2), Value::Double(2.0)) == 0);
  // Exact, not through a rounding to double: 2^53 + 1 > 2^53.
  CHECK(Value::Compare(Value::Int((int64_t{1} << 53) + 1), Value::Double(9007199254740992.0)) > 0);
  CHECK(Value::Compare(Value::Int(std::numeric_limits<int64_t>::max()), Value::Double(1e19)) < 0);
  CHECK(Value::Compare(Value::Int(-3), Value::Double(-2.5)) < 0);
  CHECK(Value::Compare(Value::String("1abc"), Value::Int(1)) == 0);
  CHECK(Value::Compare(Value::Int(10), Value::String("9")) > 0);       // numeric, not "10" < "9"
  CHECK(Value::Compare(Value::String("10"), Value::String("9")) < 0);  // bytes
  CHECK(Value::Compare(Value::String("a"), Value::String("ab")) < 0);
  CHECK(Value::Compare(Value::String("b"), Value::String("ab")) > 0);
  CHECK(Value::Compare(Value::String(std::string("a\0", 2)), Value::String("a")) > 0);
  CHECK(Value::Compare(Value::String("\xff"), Value::String("a")) > 0);  // unsigned bytes
  CHECK(Value::Compare(Value::Null(), Value::Int(0)) < 0);
  CHECK(Value::Compare(Value::Null(), Value::Null()) == 0);
}

TEST_CASE("equality is kind and contents", "[sql][value]") {
  CHECK(Value::Int(1) == Value::Int(1));
  CHECK_FALSE(Value::Int(1) == Value::Double(1));
  CHECK(Value::Null() == Value());
}

TEST_CASE("status counters add every field", "[sql][value]") {
  StatusCounters a, b;
  b.handler_read_next = 3;
  b.com_ddl = 2;
  b.innodb_rows_read = 7;
  b.select_range = 1;
  a.handler_read_next = 1;
  a.Add(b);
  a.Add(b);
  CHECK(a.handler_read_next == 7);
  CHECK(a.com_ddl == 4);
  CHECK(a.innodb_rows_read == 14);
  CHECK(a.select_range == 2);
  CHECK(a.questions == 0);
}

}  // namespace
}  // namespace minnow::sql
