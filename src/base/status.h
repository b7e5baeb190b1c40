// Errors as values: Status and Result<T>, used across every module boundary.
//
// A Status is either OK or carries a code and a human-readable message. Messages for untrusted
// input name the field, the value and the rule that was broken, e.g.
//   `--time: invalid duration "abc" (expected M, M:S, H:M:S, D-H, D-H:M or D-H:M:S)`.
// Result<T> holds either a T or a non-OK Status. Both are cheap to move and thread-compatible.
#ifndef GANTRY_BASE_STATUS_H_
#define GANTRY_BASE_STATUS_H_

#include <cassert>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace gantry {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kFailedPrecondition,
  kOutOfRange,
  kResourceExhausted,
  kUnavailable,
  kInternal,
  kUnauthenticated,  // the caller could not be identified (a bad or expired token)
};

// Stable lower-case name of a code ("invalid argument", ...), for logs.
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "invalid argument: <message>", or "OK".
  std::string ToString() const;

  friend bool operator==(const Status&, const Status&) = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string message) {
  return {StatusCode::kInvalidArgument, std::move(message)};
}
inline Status NotFound(std::string message) { return {StatusCode::kNotFound, std::move(message)}; }
inline Status AlreadyExists(std::string message) {
  return {StatusCode::kAlreadyExists, std::move(message)};
}
inline Status PermissionDenied(std::string message) {
  return {StatusCode::kPermissionDenied, std::move(message)};
}
inline Status FailedPrecondition(std::string message) {
  return {StatusCode::kFailedPrecondition, std::move(message)};
}
inline Status OutOfRange(std::string message) {
  return {StatusCode::kOutOfRange, std::move(message)};
}
inline Status ResourceExhausted(std::string message) {
  return {StatusCode::kResourceExhausted, std::move(message)};
}
inline Status Unavailable(std::string message) {
  return {StatusCode::kUnavailable, std::move(message)};
}
inline Status Internal(std::string message) { return {StatusCode::kInternal, std::move(message)}; }
inline Status Unauthenticated(std::string message) {
  return {StatusCode::kUnauthenticated, std::move(message)};
}

// Either a value or an error. Accessing value() of an error is a programming bug (asserts).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : data_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(data_).ok() && "Result built from an OK status");
  }

  bool ok() const { return std::holds_alternative<T>(data_); }

  // The error; an OK status when the result holds a value.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(data_); }

  const T& value() const& {
    assert(ok());
    return std::get<T>(data_);
  }
  T& value() & {
    assert(ok());
    return std::get<T>(data_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(data_));
  }

  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> data_;
};

// Runs `body` (returning Status or Result<T>) and returns what it returns; an exception that
// escapes it (std::bad_alloc, std::length_error...) becomes Internal "<what>: <exception text>".
// For request boundaries: a daemon answers the request with an error and lives on.
template <typename Body>
auto NoThrow(std::string_view what, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, std::string(what) + ": " + e.what());
  } catch (...) {
    return Status(StatusCode::kInternal, std::string(what) + ": unknown exception");
  }
}

}  // namespace gantry

#define GANTRY_STATUS_CONCAT_INNER_(a, b) a##b
#define GANTRY_STATUS_CONCAT_(a, b) GANTRY_STATUS_CONCAT_INNER_(a, b)

// Returns the Status of `expr` from the enclosing function when it is not OK.
#define GANTRY_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::gantry::Status gantry_status_ = (expr);        \
    if (!gantry_status_.ok()) return gantry_status_; \
  } while (false)

// `GANTRY_ASSIGN_OR_RETURN(auto x, F());` declares x from a Result or returns its error.
#define GANTRY_ASSIGN_OR_RETURN(lhs, expr) \
  GANTRY_ASSIGN_OR_RETURN_IMPL_(GANTRY_STATUS_CONCAT_(gantry_result_, __LINE__), lhs, expr)
// `lhs` is a declaration, so it cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define GANTRY_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)

#endif  // GANTRY_BASE_STATUS_H_
