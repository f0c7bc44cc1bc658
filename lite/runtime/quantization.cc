#include "lite/runtime/quantization.h"

#include <algorithm>

#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

// The inner product of two int16 rows; GCC and Clang vectorize it into
// multiply-add-pairs (vpmaddwd).
inline int32_t Dot(const int16_t* a, const int16_t* b, int k) {
  int32_t sum = 0;
  for (int i = 0; i < k; ++i) sum += static_cast<int32_t>(a[i]) * b[i];
  return sum;
}

}  // namespace

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

void QuantizedGemm(const int16_t* lhs, const int16_t* rhs, int m, int n, int k,
                   int32_t* out, int64_t out_stride, ThreadPool* pool) {
  // Work items are (row, column) products, about 64K multiply-adds per task.
  const int64_t items = static_cast<int64_t>(m) * n;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t i = item / n, j = item % n;
      out[i * out_stride + j] = Dot(lhs + i * k, rhs + j * k, k);
    }
  };
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max(k, 1));
  if (pool == nullptr) {
    run(0, items);
  } else {
    pool->ParallelFor(items, grain, pool->num_threads(), run);
  }
}

}  // namespace twl
