#pragma once
// Status and Result<T>: minnow's errors are values; no exception crosses the API.
//
// A Status is a Code plus a human-readable message. Result<T> holds either a T or a non-OK Status,
// mirroring std::expected<T, Status> (C++23 will be a rename; see docs/ARCHITECTURE.md).

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace minnow {

enum class Code : uint8_t {
  kOk = 0,
  kNotFound,         // the key / keyspace / object does not exist (often not an error)
  kDuplicateKey,     // Insert() of a key that is present (MySQL 1062)
  kInvalidArgument,  // the caller passed something the contract forbids (empty or oversize key,
                     // ...)
  kCorruption,       // damaged *input* (a file, a page, a log record): an error, never a CHECK
  kIOError,          // the operating system refused a read, write, fsync, ...
  kNotSupported,     // a valid request that this build or file format does not do
  kBusy,             // the resource is held by someone else and the caller asked not to wait
  kLockWait,         // no error: drop latches, then wait for the grant (InnoDB DB_LOCK_WAIT)
  kLockWaitTimeout,  // a lock wait lasted longer than the timeout (MySQL 1205); retryable
  kDeadlock,         // this transaction was chosen as a deadlock victim (MySQL 1213); retryable
  kClosed,           // use of a database, session or transaction after it was closed or ended
  kNoSpace,          // the file or the pool is full
  kAborted,          // the operation was cancelled or its transaction was rolled back
  kInternal,         // a minnow bug was detected and reported instead of crashing
  kLockNoWait,       // a lock the caller asked not to wait for is held by another transaction
                     // (NOWAIT: MySQL 3572); nothing was enqueued
  kReadOnly,         // a write to a database opened read-only (Options::read_only), or a file
                     // the operating system will not open for writing
  kRecordChanged,    // snapshot isolation (TransactionOptions::snapshot_isolation): a locking
                     // read or a write met a row changed since the transaction's read view;
                     // the transaction was rolled back (MariaDB's DB_RECORD_CHANGED, 1020)
};

// The stable, printable name of a code ("NotFound", ...).
std::string_view CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }
  static Status NotFound(std::string msg) { return {Code::kNotFound, std::move(msg)}; }
  static Status DuplicateKey(std::string msg) { return {Code::kDuplicateKey, std::move(msg)}; }
  static Status InvalidArgument(std::string msg) {
    return {Code::kInvalidArgument, std::move(msg)};
  }
  static Status Corruption(std::string msg) { return {Code::kCorruption, std::move(msg)}; }
  static Status IOError(std::string msg) { return {Code::kIOError, std::move(msg)}; }
  static Status NotSupported(std::string msg) { return {Code::kNotSupported, std::move(msg)}; }
  static Status Busy(std::string msg) { return {Code::kBusy, std::move(msg)}; }
  static Status Closed(std::string msg) { return {Code::kClosed, std::move(msg)}; }
  static Status NoSpace(std::string msg) { return {Code::kNoSpace, std::move(msg)}; }
  static Status Internal(std::string msg) { return {Code::kInternal, std::move(msg)}; }
  static Status LockNoWait(std::string msg) { return {Code::kLockNoWait, std::move(msg)}; }
  static Status ReadOnly(std::string msg) { return {Code::kReadOnly, std::move(msg)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  // A retryable failure: the transaction may simply be run again.
  bool IsRetryable() const { return code_ == Code::kLockWaitTimeout || code_ == Code::kDeadlock; }

  // "NotFound: key 'x' in keyspace 'y'" or "OK".
  std::string ToString() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// Holds a T or a non-OK status of type S. Accessing value() of an error aborts (a caller bug).
//
// One template serves every error vocabulary: Result<T> is Result<T, Status>, and the SQL front's
// SqlResult<T> is Result<T, sql::SqlStatus> (MySQL's numbered errors). S must be default
// constructible as OK, tell ok(), and offer S::Internal(message) for the error a Result holds
// when it is (wrongly) built from an OK status. A Result may also be built from any error type
// that S is built from (sql::SqlError for SqlStatus), so `return SqlErr(...);` works.
template <typename T, typename S = Status>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}   // NOLINT(google-explicit-constructor)
  Result(S status) : v_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (std::get<S>(v_).ok()) v_ = S::Internal("Result constructed from OK status");
  }
  template <typename E>
  requires(!std::is_same_v<std::remove_cvref_t<E>, S> && !std::is_constructible_v<T, E&&> &&
           std::is_convertible_v<E&&, S>) Result(E&& error)  // NOLINT(google-explicit-constructor)
      : Result(S(std::forward<E>(error))) {}

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const S& status() const {
    static const S kOk;
    return ok() ? kOk : std::get<S>(v_);
  }
  S TakeStatus() && { return ok() ? S() : std::move(std::get<S>(v_)); }
  // The error a status type carries (SqlStatus::error()). REQUIRES: !ok().
  decltype(auto) error() const requires requires(const S& s) { s.error(); }
  { return std::get<S>(v_).error(); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, S> v_;
};

}  // namespace minnow

#define MINNOW_CONCAT_INNER_(a, b) a##b
#define MINNOW_CONCAT_(a, b) MINNOW_CONCAT_INNER_(a, b)

// Returns the Status from the enclosing function if `expr` is not OK.
#define RETURN_IF_ERROR(expr)                \
  do {                                       \
    ::minnow::Status minnow_st_ = (expr);    \
    if (!minnow_st_.ok()) return minnow_st_; \
  } while (0)

// ASSIGN_OR_RETURN(auto x, F()): declares x from F()'s value or returns its Status.
#define ASSIGN_OR_RETURN(decl, expr) \
  ASSIGN_OR_RETURN_IMPL_(MINNOW_CONCAT_(minnow_res_, __LINE__), decl, expr)
#define ASSIGN_OR_RETURN_IMPL_(tmp, decl, expr)      \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return std::move(tmp).TakeStatus(); \
  decl = std::move(tmp).value()
