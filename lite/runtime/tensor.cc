#include "lite/runtime/tensor.h"

#include <cstdio>

namespace twl {

bool IsKnownDataType(int value) { return value >= 0 && value < kNumDataTypes; }

size_t DataTypeSize(DataType type) {
  switch (type) {
    case DataType::kFloat32:
      return 4;
    case DataType::kInt32:
      return 4;
    case DataType::kInt64:
      return 8;
    case DataType::kUInt8:
      return 1;
    case DataType::kInt8:
      return 1;
    case DataType::kBool:
      return 1;
    case DataType::kFloat64:
      return 8;
    case DataType::kInt16:
    case DataType::kUInt16:
    case DataType::kFloat16:
      return 2;
    case DataType::kUInt32:
      return 4;
    case DataType::kUInt64:
      return 8;
  }
  return 0;
}

const char* DataTypeName(DataType type) {
  switch (type) {
    case DataType::kFloat32:
      return "float32";
    case DataType::kInt32:
      return "int32";
    case DataType::kInt64:
      return "int64";
    case DataType::kUInt8:
      return "uint8";
    case DataType::kInt8:
      return "int8";
    case DataType::kBool:
      return "bool";
    case DataType::kFloat64:
      return "float64";
    case DataType::kInt16:
      return "int16";
    case DataType::kUInt16:
      return "uint16";
    case DataType::kUInt32:
      return "uint32";
    case DataType::kUInt64:
      return "uint64";
    case DataType::kFloat16:
      return "float16";
  }
  return "unknown";
}

Shape::Shape(std::initializer_list<int32_t> values) {
  for (int32_t v : values) {
    if (rank < kMaxDims) dims[rank++] = v;
  }
}

int64_t Shape::Product(int begin, int end) const {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) {
    if (dims[i] < 0) return -1;
    if (__builtin_mul_overflow(n, static_cast<int64_t>(dims[i]), &n)) return -1;
  }
  return n;
}

int64_t Shape::NumElements() const { return Product(0, rank); }

bool Shape::operator==(const Shape& other) const {
  if (rank != other.rank) return false;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] != other.dims[i]) return false;
  }
  return true;
}

const char* Shape::ToString(char* buffer, size_t size) const {
  size_t used = 0;
  auto append = [&](const char* format, int value) {
    if (used >= size) return;
    int n = snprintf(buffer + used, size - used, format, value);
    if (n > 0) used += static_cast<size_t>(n);
  };
  append("[", 0);
  for (int i = 0; i < rank; ++i) append(i == 0 ? "%d" : ",%d", dims[i]);
  append("]", 0);
  return buffer;
}

Status MakeShape(const int32_t* values, int rank, Shape* shape) {
  if (rank < 0) {
    return Status::Error(StatusCode::kInvalidArgument, "rank %d is negative",
                         rank);
  }
  if (rank > kMaxDims) {
    return Status::Error(StatusCode::kUnsupported,
                         "rank %d exceeds the maximum rank %d", rank, kMaxDims);
  }
  shape->rank = rank;
  for (int i = 0; i < rank; ++i) {
    if (values[i] < 0) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "dimension %d is negative (%d)", i, values[i]);
    }
    shape->dims[i] = values[i];
  }
  return Status::Ok();
}

Status ComputeByteSize(const Shape& shape, DataType type, size_t* bytes) {
  char text[128];
  int64_t n = shape.NumElements();
  int64_t total = 0;
  if (n < 0 ||
      __builtin_mul_overflow(n, static_cast<int64_t>(DataTypeSize(type)),
                             &total) ||
      total > kMaxTensorBytes) {
    return Status::Error(StatusCode::kResourceExhausted,
                         "tensor of shape %s and type %s exceeds %lld bytes",
                         shape.ToString(text, sizeof(text)), DataTypeName(type),
                         static_cast<long long>(kMaxTensorBytes));
  }
  *bytes = static_cast<size_t>(total);
  return Status::Ok();
}

const char* DescribeTensor(const Tensor& tensor, char* buffer, size_t size) {
  char shape[128];
  snprintf(buffer, size, "'%s' %s%s", tensor.name, DataTypeName(tensor.type),
           tensor.shape.ToString(shape, sizeof(shape)));
  return buffer;
}

}  // namespace twl
