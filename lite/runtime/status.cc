#include "lite/runtime/status.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace twl {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case StatusCode::kInvalidModel:
      return "INVALID_MODEL";
    case StatusCode::kUnsupported:
      return "UNSUPPORTED";
    case StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case StatusCode::kIoError:
      return "IO_ERROR";
    case StatusCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case StatusCode::kInternal:
      return "INTERNAL";
  }
  return "UNKNOWN";
}

Status Status::Error(StatusCode code, const char* format, ...) {
  Status status;
  status.code_ = code;
  va_list args;
  va_start(args, format);
  vsnprintf(status.message_, kMaxMessage, format, args);
  va_end(args);
  return status;
}

Status Status::WithPrefix(const char* format, ...) const {
  Status status;
  status.code_ = code_;
  va_list args;
  va_start(args, format);
  int n = vsnprintf(status.message_, kMaxMessage, format, args);
  va_end(args);
  if (n < 0) n = 0;
  // Append ": <message>", truncating at the buffer's end.
  size_t at = static_cast<size_t>(n) < kMaxMessage ? n : kMaxMessage - 1;
  for (const char* p = ": "; *p != '\0' && at + 1 < kMaxMessage; ++p) {
    status.message_[at++] = *p;
  }
  for (const char* p = message_; *p != '\0' && at + 1 < kMaxMessage; ++p) {
    status.message_[at++] = *p;
  }
  status.message_[at] = '\0';
  return status;
}

}  // namespace twl
