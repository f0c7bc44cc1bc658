// QUANTIZE, DEQUANTIZE (ONNX QuantizeLinear / DequantizeLinear) and
// DYNAMIC_QUANTIZE (ONNX DynamicQuantizeLinear); see twl.fbs.
//
// Scale and zero point apply per tensor, per axis or per block. x is seen as
// [outer, D, inner] around `axis`; element (o, d, i) uses parameter
//   o * outer_stride + (d / block) * axis_stride + i * inner_stride
// (per tensor: all strides 0; per axis: block 1, axis_stride 1; blocked:
// the parameters have x's shape with D shrunk to ceil(D / block)). The
// elements are walked in runs along `inner`, split across threads.
// A non-constant scale (DynamicQuantizeLinear's, decomposed) is checked in
// eval; a constant one in prepare.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/quantization.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

struct ParamLayout {
  int64_t axis_dim = 1, inner = 1;
  int64_t block = 1;
  int64_t outer_stride = 0, axis_stride = 0, inner_stride = 0;
};

// Calls f(offset, count, param, param_step) for the runs of elements
// [begin, end): elements offset + t use parameter param + t * param_step.
template <typename F>
void ForEachRun(const ParamLayout& l, int64_t begin, int64_t end, F&& f) {
  int64_t row = begin / l.inner, i = begin % l.inner;
  while (begin < end) {
    const int64_t count = std::min(l.inner - i, end - begin);
    const int64_t o = row / l.axis_dim, d = row % l.axis_dim;
    f(begin, count,
      o * l.outer_stride + (d / l.block) * l.axis_stride + i * l.inner_stride,
      l.inner_stride);
    begin += count;
    ++row;
    i = 0;
  }
}

Status ComputeLayout(const Tensor& x, const Tensor& scale,
                     const Tensor* zero_point, int axis_option, int block,
                     ParamLayout* l) {
  char xs[96], ss[96];
  x.shape.ToString(xs, sizeof(xs));
  scale.shape.ToString(ss, sizeof(ss));
  if (zero_point != nullptr) {
    TWL_CHECK_ARG(zero_point->shape == scale.shape,
                  "zero_point '%s' must have the scale's shape %s",
                  zero_point->name, ss);
  }
  TWL_CHECK_ARG(block >= 0, "block_size %d is negative", block);
  *l = ParamLayout();
  if (block == 0 && scale.num_elements() == 1 && scale.shape.rank <= 1) {
    l->inner = x.num_elements();  // per tensor: one run over everything
    return Status::Ok();
  }
  int axis;
  TWL_RETURN_IF_ERROR(NormalizeAxis(axis_option, x.shape.rank, &axis));
  const int64_t dim = x.shape.dims[axis];
  l->axis_dim = dim;
  l->inner = x.shape.Product(axis + 1, x.shape.rank);
  if (block == 0) {
    TWL_CHECK_ARG(scale.shape.rank == 1 && scale.shape.dims[0] == dim,
                  "scale '%s' has shape %s; per-axis scales of x %s along "
                  "axis %d need [%lld]",
                  scale.name, ss, xs, axis, static_cast<long long>(dim));
    l->axis_stride = 1;
    return Status::Ok();
  }
  const int64_t blocks = (dim + block - 1) / block;
  bool ok = scale.shape.rank == x.shape.rank;
  for (int i = 0; ok && i < x.shape.rank; ++i) {
    ok = scale.shape.dims[i] == (i == axis ? blocks : x.shape.dims[i]);
  }
  TWL_CHECK_ARG(ok,
                "scale '%s' has shape %s; blocks of %d along axis %d of x %s "
                "need x's shape with %lld there",
                scale.name, ss, block, axis, xs,
                static_cast<long long>(blocks));
  l->block = block;
  l->inner_stride = 1;
  l->axis_stride = l->inner;
  l->outer_stride = blocks * l->inner;
  return Status::Ok();
}

struct OpData {
  ParamLayout layout;
};

// The integer types of quantized tensors.
constexpr TypeSet kQuantizedTypes =
    TypeBit(DataType::kInt8) | TypeBit(DataType::kUInt8) |
    TypeBit(DataType::kInt16) | TypeBit(DataType::kUInt16) |
    TypeBit(DataType::kInt32);

bool IsQuantizedType(DataType t, bool with_int32) {
  return (kQuantizedTypes & TypeBit(t)) != 0 &&
         (with_int32 || t != DataType::kInt32);
}

// QUANTIZE and DEQUANTIZE: x, scale, optional zero_point.
TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 3));
  const bool quantize = node->op == BuiltinOperator::QUANTIZE;
  const Tensor* x = context->input(*node, 0);
  const Tensor* scale = context->input(*node, 1);
  const Tensor* zero_point = context->input(*node, 2);
  Tensor* y = context->output(*node, 0);
  const Tensor* integers = quantize ? y : x;
  TWL_RETURN_IF_ERROR(
      CheckType(quantize ? x : y, quantize ? "x" : "y", DataType::kFloat32));
  TWL_CHECK_ARG(IsQuantizedType(integers->type, !quantize),
                "%s '%s' is %s; it must be int8, uint8, int16 or uint16%s",
                quantize ? "y" : "x", integers->name,
                DataTypeName(integers->type), quantize ? "" : " or int32");
  TWL_RETURN_IF_ERROR(CheckType(scale, "scale", DataType::kFloat32));
  if (zero_point != nullptr) {
    TWL_RETURN_IF_ERROR(CheckType(zero_point, "zero_point", integers->type));
  }
  const auto* options = GetOptions<schema::QuantizeOptions>(*node);
  TWL_RETURN_IF_ERROR(ComputeLayout(*x, *scale, zero_point, options->axis(),
                                    options->block_size(), &d->layout));
  if (scale->is_constant) TWL_RETURN_IF_ERROR(CheckScales(*scale, "scale"));
  return context->ResizeTensor(y, x->shape);
}

template <typename T>
void QuantizeRun(const float* x, int64_t count, const float* scale,
                 const T* zero_point, int64_t step, T* y) {
  int64_t t = 0;
#if defined(TWL_QUANT_AVX512)
  if (step == 0 && sizeof(T) <= 2) {
    // One scale: 16 at a time as RoundToQuantized, the float quotient
    // clamped to [T's min - zp, T's max - zp] (NaN to 0, so it gives the
    // zero point) and converted rounding to nearest even.
    const int32_t zp = zero_point ? zero_point[0] : 0;
    const __m512 s = _mm512_set1_ps(scale[0]);
    const __m512 low = _mm512_set1_ps(std::numeric_limits<T>::min() - zp);
    const __m512 high = _mm512_set1_ps(std::numeric_limits<T>::max() - zp);
    const __m512i z = _mm512_set1_epi32(zp);
    for (; t + 16 <= count; t += 16) {
      __m512 q = _mm512_div_ps(_mm512_loadu_ps(x + t), s);
      q = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(q, q, _CMP_ORD_Q), q);
      q = _mm512_min_ps(_mm512_max_ps(q, low), high);
      const __m512i v = _mm512_add_epi32(_mm512_cvtps_epi32(q), z);
      if (sizeof(T) == 1) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y + t),
                         _mm512_cvtepi32_epi8(v));
      } else {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + t),
                            _mm512_cvtepi32_epi16(v));
      }
    }
  }
#elif defined(__AVX2__)
  if (step == 0 && sizeof(T) == 1) {
    // As the AVX-512 loop, 16 at a time in two vectors of 8; the results
    // are in T's range, so the packs do not saturate.
    const int32_t zp = zero_point ? zero_point[0] : 0;
    const __m256 s = _mm256_set1_ps(scale[0]);
    const __m256 low = _mm256_set1_ps(std::numeric_limits<T>::min() - zp);
    const __m256 high = _mm256_set1_ps(std::numeric_limits<T>::max() - zp);
    const __m256i z = _mm256_set1_epi32(zp);
    auto eight = [&](const float* p) {
      __m256 q = _mm256_div_ps(_mm256_loadu_ps(p), s);
      q = _mm256_and_ps(q, _mm256_cmp_ps(q, q, _CMP_ORD_Q));  // NaN: 0
      q = _mm256_min_ps(_mm256_max_ps(q, low), high);
      return _mm256_add_epi32(_mm256_cvtps_epi32(q), z);
    };
    for (; t + 16 <= count; t += 16) {
      const __m256i halves = _mm256_permute4x64_epi64(
          _mm256_packs_epi32(eight(x + t), eight(x + t + 8)), 0xd8);
      const __m128i lo = _mm256_castsi256_si128(halves);
      const __m128i hi = _mm256_extracti128_si256(halves, 1);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y + t),
                       std::is_same<T, uint8_t>::value
                           ? _mm_packus_epi16(lo, hi)
                           : _mm_packs_epi16(lo, hi));
    }
  }
#endif
  for (; t < count; ++t) {
    const int32_t zp = zero_point ? zero_point[t * step] : 0;
    // x / scale in float, as the ONNX reference divides.
    y[t] = RoundToQuantized<T>(x[t] / scale[t * step], zp);
  }
}

template <typename T>
void DequantizeRun(const T* x, int64_t count, const float* scale,
                   const T* zero_point, int64_t step, float* y) {
  for (int64_t t = 0; t < count; ++t) {
    const double zp = zero_point ? zero_point[t * step] : 0;
    // Exact in double (int32 x included), then rounded once to float.
    y[t] = static_cast<float>((x[t] - zp) * scale[t * step]);
  }
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const bool quantize = node->op == BuiltinOperator::QUANTIZE;
  const Tensor* x = context->input(*node, 0);
  const Tensor* scale_tensor = context->input(*node, 1);
  const Tensor* zp_tensor = context->input(*node, 2);
  Tensor* y = context->output(*node, 0);
  if (!scale_tensor->is_constant) {
    TWL_RETURN_IF_ERROR(CheckScales(*scale_tensor, "scale"));
  }
  const float* scale = scale_tensor->data_as<float>();
  ThreadPool* pool = context->thread_pool();
  const int64_t n = x->num_elements();
  return DispatchTypes<kQuantizedTypes>(
      quantize ? y->type : x->type, quantize ? "QUANTIZE" : "DEQUANTIZE",
      [&](auto tag) {
        using T = decltype(tag);
        const T* zp = zp_tensor ? zp_tensor->data_as<T>() : nullptr;
        pool->ParallelFor(
            n, 16384, pool->num_threads(), [&](int64_t begin, int64_t end) {
              ForEachRun(
                  d.layout, begin, end,
                  [&](int64_t at, int64_t count, int64_t p, int64_t step) {
                    if (quantize) {
                      QuantizeRun<T>(x->data_as<float>() + at, count, scale + p,
                                     zp ? zp + p : nullptr, step,
                                     y->data_as<T>() + at);
                    } else {
                      DequantizeRun<T>(x->data_as<T>() + at, count, scale + p,
                                       zp ? zp + p : nullptr, step,
                                       y->data_as<float>() + at);
                    }
                  });
            });
        return Status::Ok();
      });
}

// DYNAMIC_QUANTIZE: x -> y, scale, zero_point.
TWL_PREPARE Status PrepareDynamic(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  TWL_CHECK_ARG(node->num_outputs == 3, "expects 3 outputs, got %d",
                node->num_outputs);
  const Tensor* x = context->input(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(x, "x", DataType::kFloat32));
  Tensor* y = context->output(*node, 0);
  Tensor* scale = context->output(*node, 1);
  Tensor* zero_point = context->output(*node, 2);
  TWL_RETURN_IF_ERROR(CheckType(y, "y", DataType::kUInt8));
  TWL_RETURN_IF_ERROR(CheckType(scale, "scale", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(zero_point, "zero_point", DataType::kUInt8));
  TWL_RETURN_IF_ERROR(context->ResizeTensor(y, x->shape));
  TWL_RETURN_IF_ERROR(context->ResizeTensor(scale, Shape()));
  return context->ResizeTensor(zero_point, Shape());
}

Status EvalDynamic(KernelContext* context, Node* node) {
  const Tensor* x_tensor = context->input(*node, 0);
  const float* x = x_tensor->data_as<float>();
  const int64_t n = x_tensor->num_elements();
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < n; ++i) {
    TWL_CHECK_ARG(!std::isnan(x[i]), "x '%s' element %lld is NaN",
                  x_tensor->name, static_cast<long long>(i));
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  const float scale = (hi == lo ? 1.f : hi - lo) / 255.f;
  TWL_CHECK_ARG(std::isfinite(scale) && scale > 0,
                "x '%s' spans [%g, %g]: no finite uint8 scale", x_tensor->name,
                static_cast<double>(lo), static_cast<double>(hi));
  const float initial = std::min(255.f, std::max(0.f, 0.f - lo / scale));
  const uint8_t zero_point = RoundToQuantized<uint8_t>(initial, 0);
  *context->output(*node, 1)->data_as<float>() = scale;
  *context->output(*node, 2)->data_as<uint8_t>() = zero_point;
  uint8_t* y = context->output(*node, 0)->data_as<uint8_t>();
  ThreadPool* pool = context->thread_pool();
  pool->ParallelFor(n, 16384, pool->num_threads(),
                    [&](int64_t begin, int64_t end) {
                      const float s = scale;
                      QuantizeRun<uint8_t>(x + begin, end - begin, &s,
                                           &zero_point, 0, y + begin);
                    });
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_QUANTIZE() {
  return {BuiltinOperator::QUANTIZE, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,        Prepare, Eval};
}
KernelRegistration Register_DEQUANTIZE() {
  return {BuiltinOperator::DEQUANTIZE, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,          Prepare, Eval};
}
KernelRegistration Register_DYNAMIC_QUANTIZE() {
  return {BuiltinOperator::DYNAMIC_QUANTIZE,
          1,
          nullptr,
          nullptr,
          PrepareDynamic,
          EvalDynamic};
}

}  // namespace twl
