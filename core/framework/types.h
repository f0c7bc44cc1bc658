// Element types of tensors, and typed dispatch over them.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_TYPES_H_
#define TENSORWEAVE_CORE_FRAMEWORK_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/framework/graph.pb.h"
#include "core/framework/status.h"

namespace tensorweave {

// DataType is the enum of graph.proto (values match TensorFlow's).

// Every dtype tensorweave knows, in a stable order.
const std::vector<DataType>& AllDataTypes();

// "float32", "int64", ... (numpy's names, as Python shows them).
std::string DataTypeName(DataType dtype);
// Accepts numpy-style names and TensorFlow's ("float", "double").
bool DataTypeFromName(const std::string& name, DataType* dtype);
// Size of one element in bytes; 0 for DT_STRING and DT_INVALID.
size_t DataTypeSize(DataType dtype);
bool IsValidDataType(int value);
bool DataTypeIsFloating(DataType dtype);
bool DataTypeIsInteger(DataType dtype);

template <typename T>
struct DataTypeOf;
#define TW_DATATYPE_OF(T, ENUM)             \
  template <>                               \
  struct DataTypeOf<T> {                    \
    static constexpr DataType value = ENUM; \
  };
TW_DATATYPE_OF(float, DT_FLOAT)
TW_DATATYPE_OF(double, DT_DOUBLE)
TW_DATATYPE_OF(int32_t, DT_INT32)
TW_DATATYPE_OF(uint8_t, DT_UINT8)
TW_DATATYPE_OF(int64_t, DT_INT64)
TW_DATATYPE_OF(bool, DT_BOOL)
TW_DATATYPE_OF(std::string, DT_STRING)
#undef TW_DATATYPE_OF

// Typed dispatch: calls fn(T{}) with T the C++ type of `dtype`, for the
// dtypes listed in Types... Returns InvalidArgument for any other dtype.
// Usage: DispatchType<float, double>(dtype, [&](auto tag) { using T =
//   decltype(tag); ... });
template <typename... Types, typename Fn>
Status DispatchType(DataType dtype, Fn&& fn) {
  Status status =
      errors::InvalidArgument("unsupported dtype ", DataTypeName(dtype));
  bool done = false;
  auto try_one = [&](auto tag) {
    using T = decltype(tag);
    if (!done && dtype == DataTypeOf<T>::value) {
      done = true;
      status = fn(tag);
    }
  };
  (try_one(Types{}), ...);
  return status;
}

#define TW_NUMBER_TYPES float, double, int32_t, int64_t, uint8_t
#define TW_REAL_TYPES float, double, int32_t, int64_t
#define TW_FLOAT_TYPES float, double
#define TW_POD_TYPES float, double, int32_t, int64_t, uint8_t, bool

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_TYPES_H_
