// RegisterBuiltinKernels: the one table of builtin kernels.
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/op_resolver.h"

namespace twl {

Status RegisterBuiltinKernels(OpResolver* resolver) {
#define TWL_REGISTER(op) TWL_RETURN_IF_ERROR(resolver->Add(Register_##op()));
  TWL_FOR_EACH_BUILTIN_KERNEL(TWL_REGISTER)
#undef TWL_REGISTER
  return Status::Ok();
}

}  // namespace twl
