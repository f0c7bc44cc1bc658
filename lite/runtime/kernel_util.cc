#include "lite/runtime/kernel_util.h"

#include <cmath>

namespace twl {

Status CheckActivation(ActivationFunctionType act) {
  TWL_CHECK_ARG(
      act >= ActivationFunctionType::MIN && act <= ActivationFunctionType::MAX,
      "unknown fused activation %d", static_cast<int>(act));
  TWL_CHECK_ARG(act != ActivationFunctionType::GELU &&
                    act != ActivationFunctionType::GELU_TANH,
                "fused activation %s is supported by FULLY_CONNECTED only",
                act == ActivationFunctionType::GELU ? "GELU" : "GELU_TANH");
  return Status::Ok();
}

float ApplyActivation(float x, ActivationFunctionType act) {
  switch (act) {
    case ActivationFunctionType::NONE:
      return x;
    case ActivationFunctionType::RELU:
      return x > 0.f ? x : 0.f;
    case ActivationFunctionType::RELU6:
      return std::min(std::max(x, 0.f), 6.f);
    case ActivationFunctionType::TANH:
      return std::tanh(x);
    case ActivationFunctionType::SIGMOID:
      return 1.f / (1.f + std::exp(-x));
    case ActivationFunctionType::GELU:
      return 0.5f * x * (1.f + std::erf(x * 0.70710678118654752f));
    case ActivationFunctionType::GELU_TANH:
      return 0.5f * x *
             (1.f +
              std::tanh(0.79788456080286536f * (x + 0.044715f * x * x * x)));
  }
  return x;
}

void ActivationRange(ActivationFunctionType act, float* low, float* high) {
  *low = -INFINITY;
  *high = INFINITY;
  if (act == ActivationFunctionType::RELU) *low = 0.f;
  if (act == ActivationFunctionType::RELU6) {
    *low = 0.f;
    *high = 6.f;
  }
}

void ApplyActivationInPlace(float* data, int64_t n,
                            ActivationFunctionType act) {
  if (act == ActivationFunctionType::NONE) return;
  if (act == ActivationFunctionType::RELU ||
      act == ActivationFunctionType::RELU6) {
    float low, high;
    ActivationRange(act, &low, &high);
    for (int64_t i = 0; i < n; ++i) {
      data[i] = std::min(std::max(data[i], low), high);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) data[i] = ApplyActivation(data[i], act);
}

Status ComputePadding(schema::Padding padding, int in, int filter, int stride,
                      int dilation, int* out, int* pad_before,
                      int explicit_before, int explicit_after) {
  TWL_CHECK_ARG(stride >= 1 && dilation >= 1 && filter >= 1,
                "stride (%d), dilation (%d) and filter size (%d) must be >= 1",
                stride, dilation, filter);
  int64_t effective = static_cast<int64_t>(filter - 1) * dilation + 1;
  int64_t o = 0;
  if (padding == schema::Padding::SAME) {
    o = (static_cast<int64_t>(in) + stride - 1) / stride;
  } else if (padding == schema::Padding::VALID) {
    o = in >= effective ? (in - effective + stride) / stride : 0;
  } else if (padding == schema::Padding::EXPLICIT) {
    TWL_CHECK_ARG(explicit_before >= 0 && explicit_after >= 0,
                  "explicit padding (%d, %d) must be >= 0", explicit_before,
                  explicit_after);
    const int64_t padded = int64_t{in} + explicit_before + explicit_after;
    o = padded >= effective ? (padded - effective + stride) / stride : 0;
    *out = static_cast<int>(o);
    *pad_before = explicit_before;
    return Status::Ok();
  } else {
    return Status::Error(StatusCode::kInvalidArgument, "unknown padding %d",
                         static_cast<int>(padding));
  }
  int64_t total = std::max<int64_t>((o - 1) * stride + effective - in, 0);
  *out = static_cast<int>(o);
  *pad_before = static_cast<int>(total / 2);
  return Status::Ok();
}

Status BroadcastShapes(const Shape& a, const Shape& b, Shape* out) {
  out->rank = std::max(a.rank, b.rank);
  for (int i = 0; i < out->rank; ++i) {
    int ia = i - (out->rank - a.rank), ib = i - (out->rank - b.rank);
    int da = ia >= 0 ? a.dims[ia] : 1, db = ib >= 0 ? b.dims[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      char ta[96], tb[96];
      return Status::Error(
          StatusCode::kInvalidArgument, "shapes %s and %s cannot be broadcast",
          a.ToString(ta, sizeof(ta)), b.ToString(tb, sizeof(tb)));
    }
    out->dims[i] = da == 1 ? db : da;
  }
  return Status::Ok();
}

void BroadcastStrides(const Shape& in, const Shape& out, int64_t* strides) {
  int64_t stride = 1;
  for (int i = out.rank - 1; i >= 0; --i) {
    int k = i - (out.rank - in.rank);
    int d = k >= 0 ? in.dims[k] : 1;
    strides[i] = d == 1 ? 0 : stride;
    stride *= d;
  }
}

Status NormalizeAxis(int axis, int rank, int* out) {
  TWL_CHECK_ARG(axis >= -rank && axis < rank,
                "axis %d out of range for rank %d", axis, rank);
  *out = axis < 0 ? axis + rank : axis;
  return Status::Ok();
}

void ComputeStrides(const Shape& shape, int64_t* strides) {
  int64_t stride = 1;
  for (int i = shape.rank - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape.dims[i];
  }
}

Status ReadShapeValues(const Tensor* tensor, bool eval, int64_t* values,
                       int* count, bool* computed) {
  *computed = tensor != nullptr && !tensor->is_constant;
  if (!*computed) {
    return ReadConstantInts(tensor, "shape", values, kMaxDims, count);
  }
  TWL_CHECK_ARG(
      tensor->type == DataType::kInt32 || tensor->type == DataType::kInt64,
      "shape '%s' must be int32 or int64, got %s", tensor->name,
      DataTypeName(tensor->type));
  TWL_CHECK_ARG(tensor->shape.rank == 1 && tensor->shape.dims[0] <= kMaxDims,
                "shape '%s' must be 1-D with at most %d values", tensor->name,
                kMaxDims);
  *count = tensor->shape.dims[0];
  for (int i = 0; i < *count; ++i) {
    values[i] = !eval ? 0
                : tensor->type == DataType::kInt32
                    ? tensor->data_as<int32_t>()[i]
                    : tensor->data_as<int64_t>()[i];
  }
  return Status::Ok();
}

}  // namespace twl
