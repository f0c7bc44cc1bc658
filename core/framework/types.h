// Element types of tensors, and typed dispatch over them.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_TYPES_H_
#define TENSORWEAVE_CORE_FRAMEWORK_TYPES_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/framework/bfloat16.h"
#include "core/framework/float16.h"
#include "core/framework/graph.pb.h"
#include "core/framework/status.h"

namespace tensorweave {

// DataType is the enum of graph.proto (values match TensorFlow's).

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

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
bool DataTypeIsComplex(DataType dtype);

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
TW_DATATYPE_OF(int8_t, DT_INT8)
TW_DATATYPE_OF(int16_t, DT_INT16)
TW_DATATYPE_OF(uint16_t, DT_UINT16)
TW_DATATYPE_OF(uint32_t, DT_UINT32)
TW_DATATYPE_OF(uint64_t, DT_UINT64)
TW_DATATYPE_OF(half, DT_HALF)
TW_DATATYPE_OF(bfloat16, DT_BFLOAT16)
TW_DATATYPE_OF(complex64, DT_COMPLEX64)
TW_DATATYPE_OF(complex128, DT_COMPLEX128)
#undef TW_DATATYPE_OF

// Typed dispatch: calls fn(T{}) with T the C++ type of `dtype`, for the
// dtypes listed in Types... Returns InvalidArgument for any other dtype.
// Usage: DispatchType<float, double>(dtype, [&](auto tag) { using T =
//   decltype(tag); ... });
template <typename... Types, typename Fn>
Status DispatchType(DataType dtype, Fn&& fn) {
  Status status;
  bool done = false;
  auto try_one = [&](auto tag) {
    using T = decltype(tag);
    if (!done && dtype == DataTypeOf<T>::value) {
      done = true;
      status = fn(tag);
    }
  };
  (try_one(Types{}), ...);
  // The message is built only when it is needed: every kernel call passes
  // here.
  if (!done) {
    status = errors::InvalidArgument("unsupported dtype ", DataTypeName(dtype));
  }
  return status;
}

// The dtype lists kernels dispatch over. The TW_*_TYPES lists without
// "ALL" are the original five numeric dtypes; the small integer dtypes and
// half and bfloat16 are added per kernel where TensorFlow's CPU kernels have
// them.
#define TW_NUMBER_TYPES float, double, int32_t, int64_t, uint8_t
#define TW_REAL_TYPES float, double, int32_t, int64_t
#define TW_FLOAT_TYPES float, double
// int8, int16, uint16, uint32, uint64.
#define TW_SMALL_INT_TYPES int8_t, int16_t, uint16_t, uint32_t, uint64_t
// Every integer and floating dtype.
#define TW_ALL_NUMBER_TYPES TW_NUMBER_TYPES, TW_SMALL_INT_TYPES, half, bfloat16
// The signed ones (TensorFlow's Neg, Abs, Sign and Pow have no kernels for
// the unsigned dtypes).
#define TW_ALL_SIGNED_TYPES TW_REAL_TYPES, int8_t, int16_t, half, bfloat16
// float, double, half, bfloat16.
#define TW_ALL_FLOAT_TYPES TW_FLOAT_TYPES, half, bfloat16
// complex64 and complex128, added per kernel where TensorFlow's CPU kernels
// have them.
#define TW_COMPLEX_TYPES complex64, complex128
// Every dtype with a fixed size (copies, casts, comparisons for equality).
#define TW_POD_TYPES TW_ALL_NUMBER_TYPES, bool

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_TYPES_H_
