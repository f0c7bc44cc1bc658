// OpResolver: a fixed-capacity table of kernels keyed by (op, version).
#ifndef TENSORWEAVE_LITE_RUNTIME_OP_RESOLVER_H_
#define TENSORWEAVE_LITE_RUNTIME_OP_RESOLVER_H_

#include "lite/runtime/op_kernel.h"

namespace twl {

class OpResolver {
 public:
  static constexpr int kCapacity = 256;

  // Fails when full or when (op, version) is already registered.
  Status Add(const KernelRegistration& registration);
  // nullptr when absent.
  const KernelRegistration* Find(BuiltinOperator op, int version) const;
  int size() const { return size_; }

 private:
  KernelRegistration registrations_[kCapacity] = {};
  int size_ = 0;
};

// Registers every builtin kernel (defined in builtin_kernels.cc).
Status RegisterBuiltinKernels(OpResolver* resolver);

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_OP_RESOLVER_H_
