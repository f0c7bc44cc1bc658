// Status: the lite runtime's error type. No exceptions: every fallible call
// returns a Status whose message names what went wrong.
#ifndef TENSORWEAVE_LITE_RUNTIME_STATUS_H_
#define TENSORWEAVE_LITE_RUNTIME_STATUS_H_

#include <cstddef>

namespace twl {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,     // a caller passed a bad value
  kInvalidModel = 2,        // the model failed verification
  kUnsupported = 3,         // valid, but not supported by this runtime
  kFailedPrecondition = 4,  // e.g. Invoke() before AllocateTensors()
  kIoError = 5,             // file could not be opened or mapped
  kResourceExhausted = 6,   // allocation failed or limit exceeded
  kInternal = 7,
};

const char* StatusCodeName(StatusCode code);

// A status code plus a fixed-size message (no heap allocation).
class Status {
 public:
  static constexpr size_t kMaxMessage = 240;

  Status() { message_[0] = '\0'; }
  static Status Ok() { return Status(); }
  // printf-style message.
  static Status Error(StatusCode code, const char* format, ...)
      __attribute__((format(printf, 2, 3)));

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const char* message() const { return message_; }

  // Returns a copy whose message is "<prefix>: <message>".
  Status WithPrefix(const char* format, ...) const
      __attribute__((format(printf, 2, 3)));

 private:
  StatusCode code_ = StatusCode::kOk;
  char message_[kMaxMessage];
};

}  // namespace twl

// Returns from the enclosing function when `expr` is not ok.
#define TWL_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::twl::Status twl_status_ = (expr);        \
    if (!twl_status_.ok()) return twl_status_; \
  } while (0)

// Returns an kInvalidArgument status with a message when `cond` is false.
#define TWL_CHECK_ARG(cond, ...)                                       \
  do {                                                                 \
    if (!(cond))                                                       \
      return ::twl::Status::Error(::twl::StatusCode::kInvalidArgument, \
                                  __VA_ARGS__);                        \
  } while (0)

#endif  // TENSORWEAVE_LITE_RUNTIME_STATUS_H_
