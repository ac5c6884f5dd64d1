#include "minnow/status.h"

#include <catch2/catch.hpp>

namespace minnow {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  ASSIGN_OR_RETURN(int h, Half(x));
  ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckEven(int x) {
  RETURN_IF_ERROR(Half(x).status());
  return Status::OK();
}

TEST_CASE("status carries code and message", "[common]") {
  Status ok;
  CHECK(ok.ok());
  CHECK(ok.ToString() == "OK");
  Status nf = Status::NotFound("key 'a'");
  CHECK_FALSE(nf.ok());
  CHECK(nf.IsNotFound());
  CHECK(nf.ToString() == "NotFound: key 'a'");
  CHECK(Status(Code::kDeadlock, "victim").IsRetryable());
  CHECK(Status(Code::kLockWaitTimeout, "").IsRetryable());
  CHECK_FALSE(Status::Corruption("x").IsRetryable());
  CHECK(Status::ReadOnly("open read-only").ToString() == "ReadOnly: open read-only");
  CHECK_FALSE(Status::ReadOnly("x").IsRetryable());
}

TEST_CASE("result propagates values and errors", "[common]") {
  auto q = Quarter(8);
  REQUIRE(q.ok());
  CHECK(*q == 2);
  auto bad = Quarter(6);  // 6/2 = 3 is odd
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == Code::kInvalidArgument);
  CHECK(CheckEven(4).ok());
  CHECK(CheckEven(5).code() == Code::kInvalidArgument);
}

TEST_CASE("a result built from an OK status is an internal error", "[common]") {
  Result<int> r{Status::OK()};
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInternal);
}

}  // namespace
}  // namespace minnow
