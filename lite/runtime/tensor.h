// Tensor: a typed view of memory the interpreter owns or the model maps.
#ifndef TENSORWEAVE_LITE_RUNTIME_TENSOR_H_
#define TENSORWEAVE_LITE_RUNTIME_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "lite/runtime/status.h"

namespace twl {

// Values match twl::schema::TensorType.
enum class DataType : int8_t {
  kFloat32 = 0,
  kInt32 = 1,
  kInt64 = 2,
  kUInt8 = 3,
  kInt8 = 4,
  kBool = 5,
  kFloat64 = 6,
  kInt16 = 7,
  kUInt16 = 8,
  kUInt32 = 9,
  kUInt64 = 10,
  kFloat16 = 11,  // IEEE binary16 bits; no C++ arithmetic type
};
constexpr int kNumDataTypes = 12;

bool IsKnownDataType(int value);
size_t DataTypeSize(DataType type);
const char* DataTypeName(DataType type);

template <typename T>
struct DataTypeOf;
template <>
struct DataTypeOf<float> {
  static constexpr DataType value = DataType::kFloat32;
};
template <>
struct DataTypeOf<int32_t> {
  static constexpr DataType value = DataType::kInt32;
};
template <>
struct DataTypeOf<int64_t> {
  static constexpr DataType value = DataType::kInt64;
};
template <>
struct DataTypeOf<uint8_t> {
  static constexpr DataType value = DataType::kUInt8;
};
template <>
struct DataTypeOf<int8_t> {
  static constexpr DataType value = DataType::kInt8;
};
template <>
struct DataTypeOf<bool> {
  static constexpr DataType value = DataType::kBool;
};
template <>
struct DataTypeOf<double> {
  static constexpr DataType value = DataType::kFloat64;
};
template <>
struct DataTypeOf<int16_t> {
  static constexpr DataType value = DataType::kInt16;
};
template <>
struct DataTypeOf<uint16_t> {
  static constexpr DataType value = DataType::kUInt16;
};
template <>
struct DataTypeOf<uint32_t> {
  static constexpr DataType value = DataType::kUInt32;
};
template <>
struct DataTypeOf<uint64_t> {
  static constexpr DataType value = DataType::kUInt64;
};

// Largest rank the runtime handles.
constexpr int kMaxDims = 8;
// Largest tensor the runtime will plan or accept (bytes).
constexpr int64_t kMaxTensorBytes = int64_t{1} << 31;

struct Shape {
  int rank = 0;
  int32_t dims[kMaxDims] = {};

  Shape() = default;
  Shape(std::initializer_list<int32_t> values);
  int32_t dim(int i) const { return dims[i]; }
  // Product of dims; -1 when it overflows int64 (never for verified shapes).
  int64_t NumElements() const;
  // Product of dims in [begin, end).
  int64_t Product(int begin, int end) const;
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }
  // Writes "[2,3,4]" into `buffer`; returns `buffer`.
  const char* ToString(char* buffer, size_t size) const;
};

// Builds a shape from `rank` values, checking rank and non-negative dims.
Status MakeShape(const int32_t* values, int rank, Shape* shape);
// Element count times element size, overflow- and limit-checked.
Status ComputeByteSize(const Shape& shape, DataType type, size_t* bytes);

struct Tensor {
  DataType type = DataType::kFloat32;
  Shape shape;
  void* data = nullptr;
  size_t bytes = 0;
  // Data points into the model (read-only weights).
  bool is_constant = false;
  // The shape is known only when the node producing it (or one before it)
  // has run: data is a heap buffer the interpreter grows in Invoke, not a
  // place in the arena (see KernelContext::MarkDynamic).
  bool is_dynamic = false;
  const char* name = "";

  template <typename T>
  T* data_as() {
    return static_cast<T*>(data);
  }
  template <typename T>
  const T* data_as() const {
    return static_cast<const T*>(data);
  }
  int64_t num_elements() const { return shape.NumElements(); }
};

// Formats "name float32[2,3]" for error messages.
const char* DescribeTensor(const Tensor& tensor, char* buffer, size_t size);

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_TENSOR_H_
