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

// Four inner products of row a with rows b, b + k, b + 2k, b + 3k: each load
// of a serves four multiply-adds.
inline void Dot4(const int16_t* a, const int16_t* b, int k, int32_t* out) {
  const int16_t *b0 = b, *b1 = b + k, *b2 = b + 2 * k, *b3 = b + 3 * k;
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int i = 0; i < k; ++i) {
    const int32_t x = a[i];
    s0 += x * b0[i];
    s1 += x * b1[i];
    s2 += x * b2[i];
    s3 += x * b3[i];
  }
  out[0] = s0;
  out[1] = s1;
  out[2] = s2;
  out[3] = s3;
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
  // Work items are a row times four columns (fewer at the end).
  const int blocks = (n + 3) / 4;
  const int64_t items = static_cast<int64_t>(m) * blocks;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t i = item / blocks;
      const int j = static_cast<int>(item % blocks) * 4;
      const int16_t* a = lhs + i * k;
      int32_t* o = out + i * out_stride + j;
      if (j + 4 <= n) {
        Dot4(a, rhs + static_cast<int64_t>(j) * k, k, o);
      } else {
        for (int t = 0; j + t < n; ++t) {
          o[t] = Dot(a, rhs + static_cast<int64_t>(j + t) * k, k);
        }
      }
    }
  };
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max(k, 1));
  if (pool == nullptr) {
    run(0, items);
  } else {
    pool->ParallelFor(items, grain, pool->num_threads(), run);
  }
}

}  // namespace twl
