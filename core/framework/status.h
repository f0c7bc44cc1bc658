// Status: the outcome of an operation, with error codes matching
// TensorFlow's (and absl's) canonical codes.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_STATUS_H_
#define TENSORWEAVE_CORE_FRAMEWORK_STATUS_H_

#include <memory>
#include <sstream>
#include <string>
#include <utility>

namespace tensorweave {

enum class Code {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

const char* CodeName(Code code);

class Status {
 public:
  Status() = default;  // OK
  Status(Code code, std::string message);

  static Status OK() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  Code code() const { return ok() ? Code::kOk : state_->code; }
  const std::string& message() const;
  std::string ToString() const;

  // Returns a copy whose message has `context` prepended ("context: msg").
  Status WithContext(const std::string& context) const;

 private:
  struct State {
    Code code;
    std::string message;
  };
  // Null when OK, so that returning OK costs nothing.
  std::shared_ptr<const State> state_;
};

namespace errors {

namespace internal {
inline void Append(std::ostringstream&) {}
template <typename T, typename... Rest>
void Append(std::ostringstream& out, const T& first, const Rest&... rest) {
  out << first;
  Append(out, rest...);
}
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream out;
  Append(out, args...);
  return out.str();
}
}  // namespace internal

#define TW_DEFINE_ERROR(Name, code_value)                 \
  template <typename... Args>                             \
  Status Name(const Args&... args) {                      \
    return Status(code_value, internal::StrCat(args...)); \
  }
TW_DEFINE_ERROR(Cancelled, Code::kCancelled)
TW_DEFINE_ERROR(Unknown, Code::kUnknown)
TW_DEFINE_ERROR(InvalidArgument, Code::kInvalidArgument)
TW_DEFINE_ERROR(DeadlineExceeded, Code::kDeadlineExceeded)
TW_DEFINE_ERROR(NotFound, Code::kNotFound)
TW_DEFINE_ERROR(AlreadyExists, Code::kAlreadyExists)
TW_DEFINE_ERROR(PermissionDenied, Code::kPermissionDenied)
TW_DEFINE_ERROR(ResourceExhausted, Code::kResourceExhausted)
TW_DEFINE_ERROR(FailedPrecondition, Code::kFailedPrecondition)
TW_DEFINE_ERROR(Aborted, Code::kAborted)
TW_DEFINE_ERROR(OutOfRange, Code::kOutOfRange)
TW_DEFINE_ERROR(Unimplemented, Code::kUnimplemented)
TW_DEFINE_ERROR(Internal, Code::kInternal)
TW_DEFINE_ERROR(Unavailable, Code::kUnavailable)
TW_DEFINE_ERROR(DataLoss, Code::kDataLoss)
#undef TW_DEFINE_ERROR

}  // namespace errors

using errors::internal::StrCat;

// StatusOr<T>: a value or the error that prevented it.
template <typename T>
class StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {}  // NOLINT
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() { return value_; }
  const T& value() const { return value_; }

 private:
  Status status_;
  T value_{};
};

}  // namespace tensorweave

#define TW_RETURN_IF_ERROR(expr)               \
  do {                                         \
    ::tensorweave::Status _tw_status = (expr); \
    if (!_tw_status.ok()) return _tw_status;   \
  } while (0)

#define TW_CONCAT_INNER(a, b) a##b
#define TW_CONCAT(a, b) TW_CONCAT_INNER(a, b)
#define TW_ASSIGN_OR_RETURN(lhs, expr) \
  TW_ASSIGN_OR_RETURN_IMPL(TW_CONCAT(_tw_statusor_, __LINE__), lhs, expr)
#define TW_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp.value())

#endif  // TENSORWEAVE_CORE_FRAMEWORK_STATUS_H_
