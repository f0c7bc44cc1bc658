// What the image kernels share: TensorFlow's resize scale and sampling
// positions, and reading or writing any numeric tensor as floats.
#ifndef TENSORWEAVE_CORE_KERNELS_IMAGE_UTIL_H_
#define TENSORWEAVE_CORE_KERNELS_IMAGE_UTIL_H_

#include <cstdint>
#include <vector>

#include "core/framework/tensor.h"
#include "core/framework/types.h"

namespace tensorweave {

// Input pixels per output pixel (TensorFlow's CalculateResizeScale).
inline float ResizeScale(int64_t in_size, int64_t out_size,
                         bool align_corners) {
  return (align_corners && out_size > 1)
             ? (in_size - 1) / static_cast<float>(out_size - 1)
             : in_size / static_cast<float>(out_size);
}

// The input coordinate sampled by output index i (legacy: i * scale;
// half-pixel centers: (i + 0.5) * scale - 0.5).
inline float SourcePosition(int64_t i, float scale, bool half_pixel) {
  return half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                    : static_cast<float>(i) * scale;
}

inline Status ReadAsFloat(const Tensor& t, std::vector<float>* out) {
  out->resize(t.num_elements());
  return DispatchType<TW_ALL_NUMBER_TYPES>(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = t.data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      (*out)[i] = static_cast<float>(x[i]);
    }
    return Status::OK();
  });
}

inline Status WriteFromFloat(const std::vector<float>& values, Tensor* out) {
  return DispatchType<TW_ALL_FLOAT_TYPES>(out->dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out->data<T>();
    for (size_t i = 0; i < values.size(); ++i) o[i] = static_cast<T>(values[i]);
    return Status::OK();
  });
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_IMAGE_UTIL_H_
