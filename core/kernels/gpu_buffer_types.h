// The dtypes whose values the GPU kernels that only pass buffers along
// (control flow's Switch/Merge/Enter/Exit/NextIteration, a loop gradient's
// stack) keep in device memory. int32 and string values stay on the host, as
// elsewhere on the GPU.
#ifndef TENSORWEAVE_CORE_KERNELS_GPU_BUFFER_TYPES_H_
#define TENSORWEAVE_CORE_KERNELS_GPU_BUFFER_TYPES_H_

#include "core/framework/types.h"

// A braced list for KernelDef::TypeConstraint.
#define TW_GPU_BUFFER_TYPES \
  { DT_FLOAT, DT_DOUBLE, DT_HALF, DT_INT64, DT_BOOL }

#endif  // TENSORWEAVE_CORE_KERNELS_GPU_BUFFER_TYPES_H_
