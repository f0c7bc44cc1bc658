#include "lite/runtime/quantization.h"

namespace twl {

Status CheckScales(const Tensor& scale, const char* what) {
  TWL_CHECK_ARG(scale.type == DataType::kFloat32, "%s '%s' must be float32",
                what, scale.name);
  const float* s = scale.data_as<float>();
  const int64_t n = scale.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    TWL_CHECK_ARG(std::isfinite(s[i]) && s[i] > 0,
                  "%s '%s' element %lld is %g; scales must be positive and "
                  "finite",
                  what, scale.name, static_cast<long long>(i),
                  static_cast<double>(s[i]));
  }
  return Status::Ok();
}

}  // namespace twl
