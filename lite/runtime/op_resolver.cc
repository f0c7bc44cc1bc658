#include "lite/runtime/op_resolver.h"

namespace twl {

Status OpResolver::Add(const KernelRegistration& registration) {
  if (Find(registration.op, registration.version) != nullptr) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "kernel for %s version %d registered twice",
                         OpName(registration.op), registration.version);
  }
  if (size_ >= kCapacity) {
    return Status::Error(StatusCode::kResourceExhausted,
                         "op resolver is full (%d kernels)", kCapacity);
  }
  if (registration.prepare == nullptr || registration.eval == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "kernel for %s lacks prepare or eval",
                         OpName(registration.op));
  }
  registrations_[size_++] = registration;
  return Status::Ok();
}

const KernelRegistration* OpResolver::Find(BuiltinOperator op,
                                           int version) const {
  for (int i = 0; i < size_; ++i) {
    if (registrations_[i].op == op && registrations_[i].version == version) {
      return &registrations_[i];
    }
  }
  return nullptr;
}

}  // namespace twl
