// Row splits of a ragged vector (values + splits), as the string and ragged
// kernels take and return them: int32 or int64, checked at the boundary.
#ifndef TENSORWEAVE_CORE_KERNELS_RAGGED_SPLITS_H_
#define TENSORWEAVE_CORE_KERNELS_RAGGED_SPLITS_H_

#include <cstdint>
#include <vector>

#include "core/framework/op_kernel.h"

namespace tensorweave {

// Reads row splits (int32 or int64) and checks them against `num_values`:
// a non-empty vector that starts at 0, never decreases and ends at
// num_values.
inline Status ReadSplits(const Tensor& t, int64_t num_values,
                         std::vector<int64_t>* splits) {
  if (t.rank() != 1 || t.num_elements() < 1) {
    return errors::InvalidArgument("splits must be a non-empty vector, got ",
                                   t.shape().ToString());
  }
  const Status read = DispatchType<int32_t, int64_t>(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    splits->assign(p, p + t.num_elements());
    return Status::OK();
  });
  TW_RETURN_IF_ERROR(read);
  if ((*splits)[0] != 0) {
    return errors::InvalidArgument("splits must start with 0, got ",
                                   (*splits)[0]);
  }
  for (size_t i = 1; i < splits->size(); ++i) {
    if ((*splits)[i] < (*splits)[i - 1]) {
      return errors::InvalidArgument("splits must be non-decreasing, got ",
                                     (*splits)[i - 1], " then ", (*splits)[i]);
    }
  }
  if (splits->back() != num_values) {
    return errors::InvalidArgument("the last split (", splits->back(),
                                   ") must equal the number of values (",
                                   num_values, ")");
  }
  return Status::OK();
}

// Writes `splits` as output `index` of type T (int32 or int64).
template <typename T>
Status WriteSplits(OpKernelContext* ctx, int index,
                   const std::vector<int64_t>& splits) {
  Tensor* out;
  TW_RETURN_IF_ERROR(ctx->allocate_output(
      index, TensorShape({static_cast<int64_t>(splits.size())}), &out));
  T* o = out->data<T>();
  for (size_t i = 0; i < splits.size(); ++i) o[i] = static_cast<T>(splits[i]);
  return Status::OK();
}

// WriteSplits for a type chosen at run time (a Tsplits attr).
inline Status WriteSplitsAs(DataType dtype, OpKernelContext* ctx, int index,
                            const std::vector<int64_t>& splits) {
  return DispatchType<int32_t, int64_t>(dtype, [&](auto tag) {
    return WriteSplits<decltype(tag)>(ctx, index, splits);
  });
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_RAGGED_SPLITS_H_
