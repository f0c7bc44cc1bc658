// Handles of resources that live in a session's ResourceMgr (queues,
// accumulators): a scalar string tensor whose text is the container's
// length, ':', the container and the resource's name, so that any name can
// be told apart from its container.
#ifndef TENSORWEAVE_CORE_KERNELS_SESSION_RESOURCE_HANDLE_H_
#define TENSORWEAVE_CORE_KERNELS_SESSION_RESOURCE_HANDLE_H_

#include <string>

#include "core/framework/status.h"
#include "core/framework/tensor.h"

namespace tensorweave {

inline std::string EncodeSessionResourceHandle(const std::string& container,
                                               const std::string& name) {
  return std::to_string(container.size()) + ":" + container + name;
}

// `kind` ("a queue", "an accumulator") words the errors: a handle that is not a
// scalar string, or whose text is not a handle, is InvalidArgument.
inline Status DecodeSessionResourceHandle(const Tensor& handle,
                                          const char* kind,
                                          std::string* container,
                                          std::string* name) {
  if (handle.dtype() != DT_STRING || handle.num_elements() != 1 ||
      handle.shape().rank() != 0) {
    return errors::InvalidArgument(
        kind, " handle must be a string scalar, got ",
        DataTypeName(handle.dtype()), " ", handle.shape().ToString());
  }
  const std::string& text = handle.data<std::string>()[0];
  const size_t colon = text.find(':');
  size_t length = 0;
  bool ok = colon != std::string::npos && colon > 0;
  for (size_t i = 0; ok && i < colon; ++i) {
    ok = text[i] >= '0' && text[i] <= '9' && length < (1u << 20);
    length = length * 10 + (text[i] - '0');
  }
  if (!ok || colon + 1 + length > text.size()) {
    return errors::InvalidArgument("'", text, "' is not ", kind, " handle");
  }
  *container = text.substr(colon + 1, length);
  *name = text.substr(colon + 1 + length);
  return Status::OK();
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_SESSION_RESOURCE_HANDLE_H_
