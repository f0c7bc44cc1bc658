// Helpers shared by kernels: fused activations, option access, dtype
// dispatch, padding arithmetic and numpy broadcasting.
#ifndef TENSORWEAVE_LITE_RUNTIME_KERNEL_UTIL_H_
#define TENSORWEAVE_LITE_RUNTIME_KERNEL_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <new>
#include <type_traits>

#include "lite/runtime/op_kernel.h"

namespace twl {

using schema::ActivationFunctionType;

// The options table of `node`, or a default-constructed one when absent
// (a flatbuffer table with no fields reads every field's default). A table
// whose union type is NONE is absent: the verifier checks a union member's
// table against its type only, so such a table was never verified (a fuzzed
// model read past its buffer through one).
template <typename T>
const T* GetOptions(const Node& node) {
  const T* options =
      node.fb->builtin_options_type() == schema::BuiltinOptions::NONE
          ? nullptr
          : static_cast<const T*>(node.fb->builtin_options());
  if (options != nullptr) return options;
  // Root offset 8 -> table at 8 whose vtable (at 4) declares no fields.
  alignas(8) static const uint8_t kEmptyTable[] = {8, 0, 0, 0, 4, 0,
                                                   4, 0, 4, 0, 0, 0};
  return flatbuffers::GetRoot<T>(kEmptyTable);
}

// A kernel's init and free for per-node data of type T (value-initialized;
// nullptr when out of memory, which its prepare reports).
template <typename T>
void* InitOpData(const schema::Operator&) {
  return new (std::nothrow) T();
}
template <typename T>
void FreeOpData(void* data) {
  delete static_cast<T*>(data);
}

Status CheckActivation(ActivationFunctionType act);
float ApplyActivation(float x, ActivationFunctionType act);
// Clamp bounds for NONE/RELU/RELU6 (the others are not clamps).
void ActivationRange(ActivationFunctionType act, float* low, float* high);
// In place over [0, n).
void ApplyActivationInPlace(float* data, int64_t n, ActivationFunctionType act);

// Calls f(T{}) with T the C++ type of `type`, for float32/int32/int64;
// returns kUnsupported otherwise.
template <typename F>
Status DispatchNumeric(DataType type, const char* op, F&& f) {
  switch (type) {
    case DataType::kFloat32:
      return f(float{});
    case DataType::kInt32:
      return f(int32_t{});
    case DataType::kInt64:
      return f(int64_t{});
    default:
      return Status::Error(StatusCode::kUnsupported, "%s does not support %s",
                           op, DataTypeName(type));
  }
}
// Every arithmetic element type (all but bool and float16). Costs code size:
// use it only where ONNX/TFLite define the op on all of them.
template <typename F>
Status DispatchAllNumeric(DataType type, const char* op, F&& f) {
  switch (type) {
    case DataType::kFloat64:
      return f(double{});
    case DataType::kInt8:
      return f(int8_t{});
    case DataType::kUInt8:
      return f(uint8_t{});
    case DataType::kInt16:
      return f(int16_t{});
    case DataType::kUInt16:
      return f(uint16_t{});
    case DataType::kUInt32:
      return f(uint32_t{});
    case DataType::kUInt64:
      return f(uint64_t{});
    default:
      return DispatchNumeric(type, op, static_cast<F&&>(f));
  }
}
// A set of element types, one bit per DataType.
using TypeSet = uint32_t;
constexpr TypeSet TypeBit(DataType type) {
  return TypeSet{1} << static_cast<int>(type);
}
constexpr TypeSet kFloat32Only = TypeBit(DataType::kFloat32);
constexpr TypeSet kFloatTypes = kFloat32Only | TypeBit(DataType::kFloat64);
// DispatchNumeric's types.
constexpr TypeSet kNumericTypes = TypeBit(DataType::kFloat32) |
                                  TypeBit(DataType::kInt32) |
                                  TypeBit(DataType::kInt64);
// DispatchAllNumeric's types.
constexpr TypeSet kAllNumericTypes =
    kNumericTypes | TypeBit(DataType::kFloat64) | TypeBit(DataType::kInt8) |
    TypeBit(DataType::kUInt8) | TypeBit(DataType::kInt16) |
    TypeBit(DataType::kUInt16) | TypeBit(DataType::kUInt32) |
    TypeBit(DataType::kUInt64);
// DispatchAllNumeric that instantiates f only for the types in kTypes (a
// subset of kAllNumericTypes); kUnsupported for the others.
template <TypeSet kTypes, typename F>
Status DispatchTypes(DataType type, const char* op, F&& f) {
  return DispatchAllNumeric(type, op, [&](auto zero) -> Status {
    if constexpr ((kTypes & TypeBit(DataTypeOf<decltype(zero)>::value)) != 0) {
      return f(zero);
    } else {
      return Status::Error(StatusCode::kUnsupported, "%s does not support %s",
                           op, DataTypeName(type));
    }
  });
}
// Every dtype, copying bytes (for data-movement ops).
template <typename F>
Status DispatchAll(DataType type, F&& f) {
  switch (DataTypeSize(type)) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(int32_t{});
    case 8:
      return f(int64_t{});
  }
  return Status::Error(StatusCode::kInternal, "bad dtype size");
}

// Output size and leading padding of one spatial dim; padding EXPLICIT
// takes explicit_before/explicit_after (the options' pad fields).
Status ComputePadding(schema::Padding padding, int in, int filter, int stride,
                      int dilation, int* out, int* pad_before,
                      int explicit_before = 0, int explicit_after = 0);

// numpy broadcasting of two shapes.
Status BroadcastShapes(const Shape& a, const Shape& b, Shape* out);
// Strides of `in` as seen through the broadcast `out` shape: 0 on
// broadcast dims. Both aligned to out.rank.
void BroadcastStrides(const Shape& in, const Shape& out, int64_t* strides);

// Normalizes a possibly negative axis into [0, rank).
Status NormalizeAxis(int axis, int rank, int* out);

// Row-major strides of a shape.
void ComputeStrides(const Shape& shape, int64_t* strides);

// A shape operand's values (RESHAPE's shape, BROADCAST_TO's target): a
// constant, or a 1-D int32/int64 tensor computed in the model (`*computed`
// true), whose values are known in eval only: in prepare (`eval` false) its
// values are not read and are set to 0.
Status ReadShapeValues(const Tensor* tensor, bool eval, int64_t* values,
                       int* count, bool* computed);

// a + b and a * b, integers wrapping (two's complement) instead of
// overflowing: computed unsigned, at least as wide as unsigned int (a
// narrower type would be promoted to int, whose overflow is undefined).
template <typename T>
using WrappingUnsigned = std::conditional_t<(sizeof(T) < sizeof(unsigned)),
                                            unsigned, std::make_unsigned_t<T>>;
template <typename T>
T WrappingAdd(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    using U = WrappingUnsigned<T>;
    return static_cast<T>(U(a) + U(b));
  } else {
    return a + b;
  }
}
template <typename T>
T WrappingMul(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    using U = WrappingUnsigned<T>;
    return static_cast<T>(U(a) * U(b));
  } else {
    return a * b;
  }
}

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_KERNEL_UTIL_H_
